//! The engine: owns the board, options and hash table; thinks on a worker thread.

//! Board, moves, Zobrist hashing, candidate area, rules and win checks, renju forbidden points.

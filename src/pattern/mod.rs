//! Line encoding, pattern classes and their lookup tables (built once, read-only).

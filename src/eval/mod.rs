//! Static evaluation from the board's incremental pattern state.

pub mod weights;

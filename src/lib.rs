//! Pentad: a Gomoku engine ("brain") for the Gomocup protocol.
//!
//! The library holds everything; `src/main.rs` is a thin dispatcher over it.

pub mod bench;
pub mod board;
pub mod cli;
pub mod engine;
pub mod eval;
pub mod fuzz;
pub mod manager;
pub mod pattern;
pub mod protocol;
pub mod search;
pub mod train;

//! Iterative-deepening alpha-beta search, threat solvers, transposition table, time management.

pub mod time;

//! The manager side of the protocol: engine matches with statistics, and human play in the terminal.

pub mod client;
pub mod game;
pub mod openings;
pub mod play;
pub mod players;
pub mod record;
pub mod runner;
pub mod stats;

pub use play::run_play;
pub use runner::run_match;

//! Offline training of the evaluation (never on the search path): `selfplay` writes games, `data` is their file
//! format, `tune` fits the tables of `eval::table` to them.

pub mod data;
pub mod selfplay;
pub mod tune;

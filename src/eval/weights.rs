//! The only home of evaluation numbers. The board's incremental cell scores read `PATTERN_SCORE`.
//!
//! Initial values (owner of tuning: search); each is the worth of one direction's line class at an empty cell.

/// Score of one direction's line class at an empty cell, indexed by `Pattern as usize`
/// (Dead, Block1, Flex1, Block2, Flex2, Block3, Flex3, Block4, Flex4, Five).
/// Roughly geometric so that one stronger shape outweighs several weaker ones.
pub const PATTERN_SCORE: [i32; 10] = [0, 2, 6, 10, 30, 40, 150, 170, 1000, 4000];

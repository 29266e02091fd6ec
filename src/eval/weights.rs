//! The only home of evaluation numbers. The board's incremental cell scores read `PATTERN_SCORE`.
//!
//! Initial values (owner of tuning: search); each is the worth of one direction's line class at an empty cell.

/// Score of one direction's line class at an empty cell, indexed by `Pattern as usize`
/// (Dead, Block1, Flex1, Block2, Flex2, Block3, Flex3, Block4, Flex4, Five).
/// Roughly geometric so that one stronger shape outweighs several weaker ones.
pub const PATTERN_SCORE: [i32; 10] = [0, 2, 6, 10, 30, 40, 150, 170, 1000, 4000];

// ---- Static evaluation (`eval::evaluate`), owner: search. ----

/// Evaluation magnitude limit: far below the mate range of the search, so an eval never looks like a win.
pub const EVAL_CLAMP: i32 = 20_000;
/// The side to move's pattern potential (`score_sum`) weight: it gets to use it first.
pub const EVAL_OWN_POTENTIAL: i64 = 5;
/// The opponent's pattern potential weight.
pub const EVAL_OPP_POTENTIAL: i64 = 4;
/// Divisor applied to the weighted potential difference (keeps evals in a few-hundred range per stone).
pub const EVAL_DIVISOR: i64 = 4;
/// Bonus per empty cell where the side to move has each class of `eval::EVAL_THREATS`
/// (Block3, DoubleFlex2, Block3Plus, Flex3, Flex3Plus, DoubleFlex3, Block4, Block4Plus, Block4Flex3).
pub const EVAL_THREAT_OWN: [i32; 9] = [0, 20, 30, 0, 60, 400, 0, 100, 800];
/// Malus per empty cell where the opponent has each class of `eval::EVAL_THREATS`.
pub const EVAL_THREAT_OPP: [i32; 9] = [0, 10, 20, 0, 40, 200, 0, 60, 400];

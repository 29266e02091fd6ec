//! Static evaluation from the board's incremental pattern state only (no rescans).
//!
//! The board keeps, per side, the sum of every empty cell's pattern score (`score_sum`) and the number of empty
//! cells in each threat class (`threat_count`). The evaluation is a weighted difference of those, from the side to
//! move's point of view: the side to move's potential counts more because it can use it first. Every number is
//! in `weights.rs`.

pub mod weights;

use crate::board::Board;
use crate::pattern::Threat;
use weights::{
    EVAL_CLAMP, EVAL_DIVISOR, EVAL_OPP_POTENTIAL, EVAL_OWN_POTENTIAL, EVAL_THREAT_OPP,
    EVAL_THREAT_OWN,
};

/// Threat classes that carry an evaluation bonus, in the order of `EVAL_THREAT_OWN`/`EVAL_THREAT_OPP`.
pub const EVAL_THREATS: [Threat; 9] = [
    Threat::Block3,
    Threat::DoubleFlex2,
    Threat::Block3Plus,
    Threat::Flex3,
    Threat::Flex3Plus,
    Threat::DoubleFlex3,
    Threat::Block4,
    Threat::Block4Plus,
    Threat::Block4Flex3,
];

/// Static score of `board` for the side to move (positive = good for it), within ±`EVAL_CLAMP`.
pub fn evaluate(board: &Board) -> i32 {
    let me = board.side_to_move();
    let op = me.opp();
    let mut s = i64::from(board.score_sum(me)) * EVAL_OWN_POTENTIAL
        - i64::from(board.score_sum(op)) * EVAL_OPP_POTENTIAL;
    s /= EVAL_DIVISOR;
    for (i, &t) in EVAL_THREATS.iter().enumerate() {
        s += i64::from(board.threat_count(me, t)) * i64::from(EVAL_THREAT_OWN[i]);
        s -= i64::from(board.threat_count(op, t)) * i64::from(EVAL_THREAT_OPP[i]);
    }
    s.clamp(-i64::from(EVAL_CLAMP), i64::from(EVAL_CLAMP)) as i32
}

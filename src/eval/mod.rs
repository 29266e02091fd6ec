//! Static evaluation from the board's incremental state only (no rescans).
//!
//! The board keeps, per colour, the sums over empty cells of the cell-combination values of `table` (the
//! side-to-move lane and the opponent lane); the evaluation adds the side to move's own lane, subtracts the
//! opponent's opponent lane, and adds the threat-mask value. The numbers are the rule's learned table, or the
//! hand-set weights of `weights.rs`.

pub mod table;
pub mod weights;

use crate::board::Board;
use crate::pattern::Threat;
use weights::EVAL_CLAMP;

/// Threat classes that carry a hand-set evaluation bonus, in the order of the hand-set bonus tables.
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
#[inline]
pub fn evaluate(board: &Board) -> i32 {
    let me = board.side_to_move();
    let (own, _) = board.eval_lanes(me);
    let (_, opp) = board.eval_lanes(me.opp());
    let mask = board.eval_table().mask[me.index()][table::threat_mask(board, me)];
    (i64::from(own) - i64::from(opp) + i64::from(mask))
        .clamp(-i64::from(EVAL_CLAMP), i64::from(EVAL_CLAMP)) as i32
}

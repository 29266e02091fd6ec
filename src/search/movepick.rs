//! Threat-aware move generation and ordering.
//!
//! 1. If the opponent can make five, only the blocking points are generated.
//! 2. Else, if the opponent has an open three (a point that gives it an open four), only points that make our
//!    own four or take one of the opponent's four-making points (which include every defence of the three).
//! 3. Else every candidate point, ordered by hash move, killers, then the Δ-score (how much the point is worth
//!    to both sides: our attack plus the opponent's that we block) plus history.
//!
//! Renju: black never gets a forbidden point. Ties are broken by position, so the order is deterministic.

use crate::board::{Board, Color, Pos, Rule};
use crate::pattern::Threat;

use super::params::{
    HISTORY_DIVISOR, HISTORY_DIVISOR_FREESTYLE, ORDER_HASH_MOVE, ORDER_KILLER1, ORDER_KILLER2,
};

/// A move with its ordering score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoredMove {
    /// The point.
    pub pos: Pos,
    /// Ordering score: higher first.
    pub score: i32,
}

/// Which kind of move list `generate` produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenKind {
    /// The opponent threatens five: only blocks.
    BlockFive,
    /// The opponent has an open three: only defences and our fours.
    DefendThree,
    /// Normal position: all candidates.
    All,
}

/// True for the classes where playing the point makes a four (or better) for that colour.
pub fn makes_four(t: Threat) -> bool {
    matches!(
        t,
        Threat::Block4 | Threat::Block4Plus | Threat::Block4Flex3 | Threat::Flex4 | Threat::Five
    )
}

/// True if the side to move may play `p`: only black under renju has forbidden points.
#[inline]
pub fn allowed(board: &Board, p: Pos, me: Color) -> bool {
    !(me == Color::Black && board.rule() == Rule::Renju && board.is_forbidden(p))
}

/// Move ordering inputs that live outside the board.
pub struct OrderInfo<'a> {
    /// The hash move, if any.
    pub tt_move: Option<Pos>,
    /// The two killer moves of this ply.
    pub killers: [Option<Pos>; 2],
    /// History counters of the side to move, indexed by `Pos`.
    pub history: &'a [i32],
}

/// Fills `out` with the moves of the side to move in `board` and says which kind of list it is.
/// The side to move is assumed to have no five of its own (the caller wins at once in that case).
pub fn generate(board: &mut Board, info: &OrderInfo<'_>, out: &mut Vec<ScoredMove>) -> GenKind {
    out.clear();
    let me = board.side_to_move();
    let op = me.opp();
    let renju_black = me == Color::Black && board.rule() == Rule::Renju;
    let ok = |p: Pos| !renju_black || !board.is_forbidden(p);
    let history_divisor = if board.rule() == Rule::Freestyle {
        HISTORY_DIVISOR_FREESTYLE
    } else {
        HISTORY_DIVISOR
    };
    let order = |p: Pos| -> i32 {
        if info.tt_move == Some(p) {
            ORDER_HASH_MOVE
        } else if info.killers[0] == Some(p) {
            ORDER_KILLER1
        } else if info.killers[1] == Some(p) {
            ORDER_KILLER2
        } else {
            board.cell_score(p, me)
                + board.cell_score(p, op)
                + info.history.get(usize::from(p)).copied().unwrap_or(0) / history_divisor
        }
    };
    if board.threat_count(op, Threat::Five) > 0 {
        for p in board.candidates() {
            if board.threat(p, op) == Threat::Five && ok(p) {
                out.push(ScoredMove {
                    pos: p,
                    score: order(p),
                });
            }
        }
        return GenKind::BlockFive;
    }
    if board.threat_count(op, Threat::Flex4) > 0 {
        // Cheap superset first (our fours, the opponent's four points), then keep only our fours and the points
        // that really leave the opponent without an open-four point (played and checked).
        for p in board.candidates() {
            let mine = board.threat(p, me);
            if (makes_four(mine) || makes_four(board.threat(p, op)))
                && mine != Threat::Forbidden
                && ok(p)
            {
                out.push(ScoredMove {
                    pos: p,
                    score: order(p),
                });
            }
        }
        out.retain(|m| {
            if makes_four(board.threat(m.pos, me)) {
                return true;
            }
            board.play(m.pos);
            let defends = board.threat_count(op, Threat::Flex4) == 0;
            board.undo();
            defends
        });
        return GenKind::DefendThree;
    }
    for p in board.candidates() {
        if ok(p) {
            out.push(ScoredMove {
                pos: p,
                score: order(p),
            });
        }
    }
    GenKind::All
}

/// Moves the best remaining move (highest score, then lowest position) to index `i` and returns it.
#[inline]
pub fn pick(moves: &mut [ScoredMove], i: usize) -> Pos {
    let mut best = i;
    for j in i + 1..moves.len() {
        let (a, b) = (moves[j], moves[best]);
        if a.score > b.score || (a.score == b.score && a.pos < b.pos) {
            best = j;
        }
    }
    moves.swap(i, best);
    moves[i].pos
}

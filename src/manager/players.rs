//! Built-in baseline players, selectable as engines in `match`: `random` (a random candidate move) and `greedy`
//! (one ply: the move with the best static pattern score for attack plus defence, from the board's
//! `cell_score`, taking a five or blocking the opponent's five first). Both avoid renju-forbidden points.

use crate::board::{Board, Color, Pos, Rule};
use crate::pattern::Threat;

/// A small deterministic random generator (splitmix64): reproducible games from the match seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// True if the side to move may play the empty cell `p` (renju: black may not play a forbidden point).
fn allowed(board: &Board, p: Pos) -> bool {
    !(board.rule() == Rule::Renju && board.side_to_move() == Color::Black && board.is_forbidden(p))
}

/// The moves a baseline player chooses from: allowed candidate cells, else any allowed empty cell, else any
/// empty cell (a board where every point is forbidden is still finished by someone).
fn choices(board: &Board) -> Vec<Pos> {
    if board.move_count() == 0 {
        if let Some(c) = board.pos((board.width() / 2) as i64, (board.height() / 2) as i64) {
            return vec![c];
        }
    }
    let mut v: Vec<Pos> = board.candidates().filter(|&p| allowed(board, p)).collect();
    if v.is_empty() {
        let all: Vec<Pos> = (0..board.height())
            .flat_map(|y| (0..board.width()).map(move |x| (x, y)))
            .filter_map(|(x, y)| board.pos(x as i64, y as i64))
            .filter(|&p| board.is_empty(p))
            .collect();
        v = all.iter().copied().filter(|&p| allowed(board, p)).collect();
        if v.is_empty() {
            v = all;
        }
    }
    v
}

/// A uniformly random allowed candidate move; `None` on a full board.
pub fn random_move(board: &Board, rng: &mut Rng) -> Option<Pos> {
    let v = choices(board);
    if v.is_empty() {
        return None;
    }
    Some(v[rng.below(v.len() as u64) as usize])
}

/// The greedy one-ply move: a five if there is one, else a block of the opponent's five, else the best
/// `cell_score(me) + cell_score(opponent)`, ties broken at random.
pub fn greedy_move(board: &Board, rng: &mut Rng) -> Option<Pos> {
    let me = board.side_to_move();
    let opp = me.opp();
    let mut best: Option<(i64, u64, Pos)> = None;
    for p in choices(board) {
        let score = if board.threat(p, me) == Threat::Five {
            i64::MAX / 2
        } else if board.threat(p, opp) == Threat::Five {
            i64::MAX / 4
        } else {
            i64::from(board.cell_score(p, me)) + i64::from(board.cell_score(p, opp))
        };
        let tie = rng.next_u64();
        if best.is_none_or(|(s, t, _)| (score, tie) > (s, t)) {
            best = Some((score, tie, p));
        }
    }
    best.map(|(_, _, p)| p)
}

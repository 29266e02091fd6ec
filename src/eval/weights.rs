//! The only home of evaluation numbers. The learned tables live beside this file in `tables/` (see
//! `table.rs`); the hand-set numbers below are the evaluation of any rule that has no table, and the baseline
//! the learned tables are measured against.

use super::table::{combo_levels, combo_threat, Weights, COMBO_COUNT, LEVELS};
use super::EVAL_THREATS;
use crate::board::Board;

/// Score of one direction's line class at an empty cell, indexed by `Pattern as usize`
/// (Dead, Block1, Flex1, Block2, Flex2, Block3, Flex3, Block4, Flex4, Five).
/// Roughly geometric so that one stronger shape outweighs several weaker ones. Move ordering reads these
/// (`Board::cell_score`); the hand-set evaluation below is built from them.
pub const PATTERN_SCORE: [i32; 10] = [0, 2, 6, 10, 30, 40, 150, 170, 1000, 4000];

/// Evaluation magnitude limit: far below the mate range of the search, so an eval never looks like a win.
pub const EVAL_CLAMP: i32 = 20_000;
/// Evaluation units per unit of the win-probability logit (`P(win) = 1 / (1 + exp(-eval / this))`) of the
/// learned tables: the hand-set evaluation's own fitted scale on self-play positions (2803), so that the
/// search's margins (`search::params`), tuned with it, keep their meaning in win probability. A scale of 1000
/// (the learned evals spread as wide as the hand-set ones) lost: -33 +- 49 Elo after 200 games.
pub const EVAL_UNITS_PER_LOGIT: f64 = 2800.0;

// ---- The hand-set evaluation (the tables' baseline). ----

/// Hand-set: the side to move's pattern potential weight, over `HAND_DIVISOR` (it gets to use it first).
const HAND_OWN_POTENTIAL: i32 = 5;
/// Hand-set: the opponent's pattern potential weight, over `HAND_DIVISOR`.
const HAND_OPP_POTENTIAL: i32 = 4;
/// Hand-set: divisor of the potential weights (keeps evals in a few-hundred range per stone).
const HAND_DIVISOR: i32 = 4;
/// Hand-set: bonus per empty cell where the side to move has each class of `eval::EVAL_THREATS`
/// (Block3, DoubleFlex2, Block3Plus, Flex3, Flex3Plus, DoubleFlex3, Block4, Block4Plus, Block4Flex3).
const HAND_THREAT_OWN: [i32; 9] = [0, 20, 30, 0, 60, 400, 0, 100, 800];
/// Hand-set: malus per empty cell where the opponent has each class of `eval::EVAL_THREATS`.
const HAND_THREAT_OPP: [i32; 9] = [0, 10, 20, 0, 40, 200, 0, 60, 400];
/// Hand-set: the line score of each table level (`table::LEVELS`): levels merge Dead/Block1 and
/// Flex1/Block2, which get the mean of their `PATTERN_SCORE`s.
const HAND_LEVEL_SCORE: [i32; 8] = [1, 8, 30, 40, 150, 170, 1000, 4000];

/// The hand-set evaluation as table weights: a cell's four line scores times the potential weight, plus the
/// bonus of its threat class (no threat-mask term).
pub fn hand_weights() -> Weights {
    let mut w = Weights::zero();
    for k in 0..COMBO_COUNT {
        let lines: i32 = combo_levels(k)
            .iter()
            .map(|&l| HAND_LEVEL_SCORE[l as usize])
            .sum();
        let t = combo_threat(k);
        let bonus = |table: &[i32; 9]| {
            EVAL_THREATS
                .iter()
                .position(|&e| e == t)
                .map_or(0, |i| table[i])
        };
        for v in 0..2 {
            w.own[v][k] = lines * HAND_OWN_POTENTIAL / HAND_DIVISOR + bonus(&HAND_THREAT_OWN);
            w.opp[v][k] = lines * HAND_OPP_POTENTIAL / HAND_DIVISOR + bonus(&HAND_THREAT_OPP);
        }
    }
    w
}

/// The hand-set evaluation exactly as it was before the tables (each direction's `PATTERN_SCORE`, the side to
/// move's potential counted 5/4, a bonus per threat cell), recomputed from the board: the tuner's baseline.
pub fn hand_evaluate(board: &Board) -> i32 {
    let me = board.side_to_move();
    let op = me.opp();
    let (mut own, mut opp) = (0i64, 0i64);
    for p in board.empty_cells() {
        own += i64::from(board.cell_score(p, me));
        opp += i64::from(board.cell_score(p, op));
    }
    let mut s = (own * i64::from(HAND_OWN_POTENTIAL) - opp * i64::from(HAND_OPP_POTENTIAL))
        / i64::from(HAND_DIVISOR);
    for (i, &t) in EVAL_THREATS.iter().enumerate() {
        s += i64::from(board.threat_count(me, t)) * i64::from(HAND_THREAT_OWN[i]);
        s -= i64::from(board.threat_count(op, t)) * i64::from(HAND_THREAT_OPP[i]);
    }
    s.clamp(-i64::from(EVAL_CLAMP), i64::from(EVAL_CLAMP)) as i32
}

/// Eval units added to a cell's value (both lanes, both colours) per direction, by the direction's table
/// level (Dead/Block1, Flex1/Block2, Flex2, Block3, Flex3, Block4, Flex4, Five), per table (freestyle,
/// standard, renju, caro). The learned tables value quiet shape far below Rapfi's classical one (an open two
/// 0.002-0.009 logit against about 0.024). In self-play (session 34) they gained +30 Elo in freestyle, +58 in
/// standard and +88 in caro, nothing in renju; in freestyle +0.076 per game pair against Rapfi, where twice
/// these values lost.
pub const QUIET_LEVEL_VALUE: [[i32; LEVELS]; 4] = [
    [0, 10, 40, 10, 60, 0, 0, 0],
    [0, 10, 40, 10, 60, 0, 0, 0],
    [0; 8],
    [0, 10, 40, 10, 60, 0, 0, 0],
];

/// Eval units for the side to move, per table (freestyle, standard, renju, caro) and per colour to move (black,
/// white), added to every threat-mask value as the table is expanded for play. The learned tables already give the
/// side to move more for its own cells; the search wants a little more still: in freestyle +150 (0.05 logit) gained
/// +28.6 +- 18.6 Elo in self-play at 100 ms (1181 games, SPRT H1, session 36), +42.6 +- 24.1 on 20x20 (811 games,
/// H1, session 37), and held level against Rapfi at 60 ms; -150, +300 (on 15x15 and on 20x20) and black to move
/// only (-8.7 +- 18.1, 1240 games, session 39) did not gain. In renju, black to move only: +150 for both colours
/// was not shown to gain (+5.9 +- 10.9 over 3680 games, sessions 37-38), for black alone it did (+29.2 +- 22.2, 895
/// games, SPRT H1, session 39); 300 for black was no better (+2.1 +- 21.1, 1000 games, session 40). Caro
/// (+5.0 +- 15.2, 1680 games) was not shown to gain, and standard scored below (-18.4 +- 19.5 over 1080 games;
/// black to move only -1.6 +- 24.8, 660 games, session 40): they keep 0.
pub const TEMPO: [[i32; 2]; 4] = [[150, 150], [0, 0], [150, 0], [0, 0]];

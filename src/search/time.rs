//! Time management: a pure computation of how long to think, and a pure soft-stop rule.
//!
//! [`plan`] turns the manager's clock (`timeout_turn`, `timeout_match`, `time_left`) into a soft
//! target and a hard deadline at the start of a move; [`should_stop`] is asked after every finished
//! iteration. The hard deadline goes into the search's `Limits` and is polled inside the search.
//! All arithmetic is on saturating integers of milliseconds, so no input can overflow or panic.
//!
//! The managers' tolerance (1 s in Piskvork, 3 s in c-gomoku-cli) is never relied on: the hard
//! deadline already leaves [`margin_ms`] for writing the answer and for the OS scheduler.

use std::time::Duration;

use crate::board::Board;

/// `time_left` value that means "no match limit" in the protocol.
pub const UNLIMITED: i64 = 2_147_483_647;

/// Turn time when the manager sent no time information at all: finite, and short enough that a
/// person typing commands is not kept waiting.
pub const DEFAULT_TURN_MS: i64 = 5_000;

/// Safety margin kept below any limit: a fraction of it (per mille) … (measured: on a 2-core machine
/// loaded 4× over, answers came up to ~20 ms after the hard deadline; the minimum below keeps more than that,
/// and a long turn keeps a share for a slow or swapping machine)
const MARGIN_PER_MILLE: i64 = 60;
/// … but at least this (pipe latency, thread wake-up, a busy machine) …
const MARGIN_MIN_MS: i64 = 30;
/// … and at most this (a long turn does not need a longer margin).
const MARGIN_MAX_MS: i64 = 1_000;

/// For `timeout_turn 0` ("as fast as possible"): the whole answer must come this fast.
const INSTANT_HARD_MS: i64 = 10;

/// Moves we expect still to play when splitting the match clock: a long game is ~40 moves each.
const MOVES_TO_GO_MAX: i64 = 30;
/// Never plan for fewer moves than this: the game may go on longer than it looks.
const MOVES_TO_GO_MIN: i64 = 12;
/// Never spend more than 1/this of the match time left on one move.
const MATCH_HARD_DIVISOR: i64 = 5;
/// Match time kept back for each later move the game may still ask of us (the board not yet full): an instant
/// answer still costs the manager's clock a few milliseconds (up to 4 ms measured on a loaded 2-core machine),
/// so a game that fills the board must not find its clock spent. Without it, in 200 self-play games at 20 s a game
/// three sides ran 1-19 ms over the match time (inside the manager's tolerance, which a brain must not rely on).
const LATER_MOVE_RESERVE_MS: i64 = 8;

/// Under a match clock (time saved is worth something later): once this share (per mille) of the hard limit is
/// used, a new iteration is not started.
const NO_NEW_ITERATION_PER_MILLE: i64 = 500;
/// Under a turn limit alone (nothing is saved for later): new iterations start until this share (per mille) of
/// the hard limit; an iteration cut by the deadline still yields its better root moves, and its table entries
/// serve the next move.
const TURN_ONLY_ITERATION_PER_MILLE: i64 = 950;
/// The next iteration is expected to take at least this many times as long as the last one; one
/// that cannot finish before the hard deadline is not started (its work would be thrown away).
const NEXT_ITERATION_GROWTH: u32 = 2;
/// Best move unchanged for this many iterations counts as stable.
const STABLE_ITERATIONS: u32 = 3;
/// Soft-time scale (per mille) when the best move is stable: answer earlier.
const STABLE_SCALE: i64 = 600;
/// Soft-time scale (per mille) when the best move just changed: look once more.
const UNSTABLE_SCALE: i64 = 1_400;
/// A score this much below the previous iteration's counts as falling (search score units).
const SCORE_DROP: i32 = 40;
/// Soft-time scale (per mille) when the score is falling: think longer to find a defence.
const FALLING_SCALE: i64 = 1_800;

/// The clock as the manager describes it (all in milliseconds, exactly as received).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// `INFO timeout_turn`, if sent. 0 = answer as fast as possible.
    pub turn_ms: Option<i64>,
    /// `INFO timeout_match`, if sent. 0 = no limit.
    pub match_ms: Option<i64>,
    /// `INFO time_left`, if sent. May be negative; [`UNLIMITED`] = no limit.
    pub time_left_ms: Option<i64>,
    /// Time this brain has used in the current game, for managers that send `timeout_match` but
    /// no `time_left` (the protocol requires time_left, this is only a fallback).
    pub used_ms: i64,
}

/// What [`plan`] decides at the start of a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Don't start a new iteration after this much time (scaled by [`should_stop`]).
    pub soft: Duration,
    /// Stop the search inside an iteration at this point, whatever happens.
    pub hard: Duration,
    /// `timeout_turn 0` or no time left: play the best immediate move at once.
    pub instant: bool,
}

/// The safety margin for a limit of `limit_ms`.
pub fn margin_ms(limit_ms: i64) -> i64 {
    (limit_ms.saturating_mul(MARGIN_PER_MILLE) / 1000).clamp(MARGIN_MIN_MS, MARGIN_MAX_MS)
}

fn per_mille(ms: i64, pm: i64) -> i64 {
    ms.saturating_mul(pm) / 1000
}

fn dur(ms: i64) -> Duration {
    Duration::from_millis(ms.max(0) as u64)
}

/// Plans the next move on `board`: `plan` with its stone count and the later moves it may still ask of us.
pub fn plan_for(clock: &Clock, board: &Board) -> Plan {
    let later = later_moves_on(board.width() * board.height(), board.move_count());
    plan(clock, board.move_count(), later)
}

/// How many more moves a game on a board of `cells` cells holding `stones` stones may ask of the side to move
/// after its next one: every other cell of what stays empty.
fn later_moves_on(cells: usize, stones: usize) -> usize {
    cells.saturating_sub(stones + 1) / 2
}

/// Plans one move. `ply` is the number of stones on the board (games get decided, so later moves
/// get a larger share of what is left); `later_moves` is how many more moves the game may ask of us after this
/// one (the empty cells left to us), each of which keeps a little match time back.
pub fn plan(clock: &Clock, ply: usize, later_moves: usize) -> Plan {
    let instant = Plan {
        soft: Duration::ZERO,
        hard: dur(INSTANT_HARD_MS),
        instant: true,
    };
    // Turn limit: what is usable of it.
    let turn_hard = match clock.turn_ms {
        Some(t) if t <= 0 => return instant,
        Some(t) => Some(t.saturating_sub(margin_ms(t))),
        None => None,
    };
    // Match limit: what is left of it.
    let left = match (clock.time_left_ms, clock.match_ms) {
        (Some(l), _) if l >= UNLIMITED => None,
        (Some(l), _) => Some(l),
        (None, Some(m)) if m > 0 => Some(m.saturating_sub(clock.used_ms)),
        _ => None,
    };
    let (match_soft, match_hard) = match left {
        Some(l) => {
            let later = i64::try_from(later_moves).unwrap_or(i64::MAX);
            let reserve = LATER_MOVE_RESERVE_MS.saturating_mul(later);
            let usable = l.saturating_sub(margin_ms(l)).saturating_sub(reserve);
            if usable <= INSTANT_HARD_MS {
                return instant;
            }
            let ply = i64::try_from(ply).unwrap_or(i64::MAX);
            let to_go = (MOVES_TO_GO_MAX - ply / 4).clamp(MOVES_TO_GO_MIN, MOVES_TO_GO_MAX);
            (Some(usable / to_go), Some(usable / MATCH_HARD_DIVISOR))
        }
        None => (None, None),
    };
    let hard_ms = match (turn_hard, match_hard) {
        (Some(t), Some(m)) => t.min(m),
        (Some(t), None) => t,
        (None, Some(m)) => m,
        (None, None) => DEFAULT_TURN_MS.saturating_sub(margin_ms(DEFAULT_TURN_MS)),
    };
    let hard_ms = hard_ms.max(1);
    // Time saved on a move is only worth something when a match clock keeps it for later moves: under a turn
    // limit alone the whole turn is used (bounded by the no-new-iteration rules of `should_stop`).
    let soft_ms = match_soft.unwrap_or(hard_ms).min(hard_ms);
    Plan {
        soft: dur(soft_ms),
        hard: dur(hard_ms),
        instant: false,
    }
}

/// What the search reports after a finished iteration, as the soft stop needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Time since the move started.
    pub elapsed: Duration,
    /// How long the iteration that just finished took.
    pub last_iteration: Duration,
    /// Iterations in a row (this one included) that ended with the same best move.
    pub stable_iterations: u32,
    /// Score of this iteration (side to move's view).
    pub score: i32,
    /// Score of the previous iteration, if any.
    pub prev_score: Option<i32>,
    /// The score proves a win or a loss: deeper search cannot change the move's value.
    pub decided: bool,
}

/// Whether to stop after a finished iteration: stable best move → earlier, best move just changed or
/// score falling → later, never past the point where the next iteration cannot finish in time.
pub fn should_stop(plan: &Plan, p: &Progress) -> bool {
    if plan.instant || p.decided {
        return true;
    }
    let elapsed = p.elapsed.as_millis().min(i64::MAX as u128) as i64;
    let hard = plan.hard.as_millis().min(i64::MAX as u128) as i64;
    let soft = plan.soft.as_millis().min(i64::MAX as u128) as i64;
    if soft >= hard {
        return elapsed >= per_mille(hard, TURN_ONLY_ITERATION_PER_MILLE);
    }
    if elapsed >= per_mille(hard, NO_NEW_ITERATION_PER_MILLE) {
        return true;
    }
    if p.elapsed
        .saturating_add(p.last_iteration.saturating_mul(NEXT_ITERATION_GROWTH))
        > plan.hard
    {
        return true;
    }
    let falling = matches!(p.prev_score, Some(prev) if p.score < prev.saturating_sub(SCORE_DROP));
    let scale = if falling {
        FALLING_SCALE
    } else if p.stable_iterations >= STABLE_ITERATIONS {
        STABLE_SCALE
    } else if p.stable_iterations <= 1 {
        UNSTABLE_SCALE
    } else {
        1_000
    };
    elapsed >= per_mille(soft, scale).min(hard)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(d: Duration) -> i64 {
        d.as_millis() as i64
    }

    fn turn(t: i64) -> Clock {
        Clock {
            turn_ms: Some(t),
            ..Clock::default()
        }
    }

    #[test]
    fn turn_limit_leaves_a_margin() {
        for t in [100, 200, 300, 1000, 5000, 30_000, 300_000] {
            let p = plan(&turn(t), 10, 0);
            assert!(!p.instant);
            assert!(ms(p.hard) < t, "{t}: {p:?}");
            assert!(ms(p.hard) <= t - MARGIN_MIN_MS);
            assert!(ms(p.hard) >= t / 2, "{t}: too timid {p:?}");
            assert!(p.soft <= p.hard);
            assert!(p.soft > Duration::ZERO);
        }
        // 300 ms per move: the 30 ms minimum margin; 1 s: 6%.
        assert_eq!(ms(plan(&turn(300), 0, 0).hard), 270);
        assert_eq!(ms(plan(&turn(1000), 0, 0).hard), 940);
        // 100 ms per move: 30 ms margin.
        assert_eq!(ms(plan(&turn(100), 0, 0).hard), 70);
    }

    #[test]
    fn a_turn_limit_alone_is_used_whole() {
        // Nothing is saved for later without a match clock: the soft target is the hard limit.
        let p = plan(&turn(1000), 10, 0);
        assert_eq!(p.soft, p.hard);
        // A match clock with plenty left does not shorten the turn either.
        let c = Clock {
            turn_ms: Some(100),
            match_ms: Some(10_000),
            time_left_ms: Some(10_000),
            used_ms: 0,
        };
        assert_eq!(plan(&c, 0, 0).soft, plan(&c, 0, 0).hard);
        // A tight match clock does.
        let c = Clock {
            turn_ms: Some(30_000),
            match_ms: Some(180_000),
            time_left_ms: Some(60_000),
            used_ms: 0,
        };
        let p = plan(&c, 20, 0);
        assert!(p.soft < p.hard, "{p:?}");
    }

    #[test]
    fn zero_turn_time_is_instant() {
        let p = plan(&turn(0), 40, 0);
        assert!(p.instant);
        assert!(ms(p.hard) <= INSTANT_HARD_MS);
        assert!(plan(&turn(-5), 0, 0).instant);
        assert!(should_stop(
            &p,
            &Progress {
                elapsed: Duration::ZERO,
                last_iteration: Duration::ZERO,
                stable_iterations: 1,
                score: 0,
                prev_score: None,
                decided: false
            }
        ));
    }

    #[test]
    fn no_time_info_gives_a_finite_default() {
        let p = plan(&Clock::default(), 0, 0);
        assert!(!p.instant);
        assert!(ms(p.hard) < DEFAULT_TURN_MS);
        assert!(ms(p.hard) > 1000);
        // Match time "unlimited" and no turn limit: the same default.
        let c = Clock {
            time_left_ms: Some(UNLIMITED),
            match_ms: Some(0),
            ..Clock::default()
        };
        assert_eq!(plan(&c, 0, 0), p);
    }

    #[test]
    fn match_time_is_split() {
        // Fastgame: 5 s per turn, 120 s per game.
        let c = Clock {
            turn_ms: Some(5_000),
            match_ms: Some(120_000),
            time_left_ms: Some(120_000),
            used_ms: 0,
        };
        let p = plan(&c, 0, 0);
        assert!(ms(p.soft) <= 120_000 / MOVES_TO_GO_MAX);
        assert!(ms(p.hard) < 5_000);
        // Little time left: the match clock dominates the turn clock.
        let c = Clock {
            time_left_ms: Some(2_000),
            ..c
        };
        let p = plan(&c, 60, 0);
        assert!(ms(p.hard) <= 2_000 / MATCH_HARD_DIVISOR);
        assert!(ms(p.soft) <= 2_000 / MOVES_TO_GO_MIN);
        assert!(!p.instant);
    }

    #[test]
    fn no_time_left_is_instant() {
        for left in [-100, 0, 10, 30] {
            let c = Clock {
                turn_ms: Some(1_000),
                time_left_ms: Some(left),
                ..Clock::default()
            };
            assert!(plan(&c, 10, 0).instant, "{left}");
        }
    }

    #[test]
    fn match_without_time_left_uses_own_count() {
        let c = Clock {
            match_ms: Some(10_000),
            used_ms: 9_990,
            ..Clock::default()
        };
        assert!(plan(&c, 10, 0).instant);
        let c = Clock {
            match_ms: Some(10_000),
            used_ms: 0,
            ..Clock::default()
        };
        let p = plan(&c, 0, 0);
        assert!(ms(p.hard) <= 10_000 / MATCH_HARD_DIVISOR);
    }

    /// Plays a board-filling game of `cells` cells at 5 s a turn and 20 s a game against the planner (each move
    /// spends its whole hard limit, an instant one only the few milliseconds a manager still counts), with or
    /// without telling it the later moves; returns the match time left after its last move, or at the first
    /// move that found the clock spent.
    fn clock_left_after_a_full_board(cells: usize, tell_later_moves: bool) -> i64 {
        const ANSWER_COST_MS: i64 = 4;
        let mut left = 20_000i64;
        let mut ply = 0;
        while ply < cells && left > 0 {
            let later_moves = if tell_later_moves {
                later_moves_on(cells, ply)
            } else {
                0
            };
            let c = Clock {
                turn_ms: Some(5_000),
                match_ms: Some(20_000),
                time_left_ms: Some(left),
                used_ms: 0,
            };
            let p = plan(&c, ply, later_moves);
            left -= if p.instant { 0 } else { ms(p.hard) } + ANSWER_COST_MS;
            ply += 2;
        }
        left
    }

    #[test]
    fn a_game_that_fills_the_board_keeps_time_for_its_last_moves() {
        for cells in [225, 400] {
            let with = clock_left_after_a_full_board(cells, true);
            assert!(with > 0, "{cells} cells: {with} ms left");
            let without = clock_left_after_a_full_board(cells, false);
            assert!(
                without <= 0,
                "{cells} cells: {without} ms left without the reserve"
            );
        }
    }

    #[test]
    fn extreme_values_do_not_overflow() {
        for v in [i64::MIN, -1, 0, 1, i64::MAX] {
            let c = Clock {
                turn_ms: Some(v),
                match_ms: Some(v),
                time_left_ms: Some(v),
                used_ms: v,
            };
            let p = plan(&c, usize::MAX, usize::MAX);
            assert!(p.soft <= p.hard);
        }
    }

    fn progress(elapsed: i64, stable: u32, score: i32, prev: Option<i32>) -> Progress {
        Progress {
            elapsed: Duration::from_millis(elapsed as u64),
            last_iteration: Duration::from_millis(1),
            stable_iterations: stable,
            score,
            prev_score: prev,
            decided: false,
        }
    }

    #[test]
    fn soft_stop_scales_with_stability() {
        let p = Plan {
            soft: Duration::from_millis(100),
            hard: Duration::from_millis(1000),
            instant: false,
        };
        // Normal: stop at the soft target.
        assert!(!should_stop(&p, &progress(99, 2, 0, Some(0))));
        assert!(should_stop(&p, &progress(100, 2, 0, Some(0))));
        // Stable best move: stop earlier.
        assert!(should_stop(&p, &progress(70, 5, 0, Some(0))));
        // Best move just changed: continue past the soft target.
        assert!(!should_stop(&p, &progress(120, 1, 0, Some(0))));
        assert!(should_stop(&p, &progress(140, 1, 0, Some(0))));
        // Falling score: think longer still.
        assert!(!should_stop(&p, &progress(170, 5, -100, Some(0))));
        assert!(should_stop(&p, &progress(180, 5, -100, Some(0))));
        // A proven result: stop at once.
        let mut d = progress(1, 1, 0, None);
        d.decided = true;
        assert!(should_stop(&p, &d));
    }

    #[test]
    fn an_iteration_that_cannot_finish_is_not_started() {
        let p = Plan {
            soft: Duration::from_millis(900),
            hard: Duration::from_millis(1000),
            instant: false,
        };
        let mut pr = progress(300, 1, 0, Some(0));
        pr.last_iteration = Duration::from_millis(300);
        assert!(!should_stop(&p, &pr));
        pr.last_iteration = Duration::from_millis(400);
        assert!(should_stop(&p, &pr));
    }

    #[test]
    fn never_start_an_iteration_past_half_the_hard_limit() {
        let p = Plan {
            soft: Duration::from_millis(900),
            hard: Duration::from_millis(1000),
            instant: false,
        };
        assert!(!should_stop(&p, &progress(499, 1, 0, Some(0))));
        assert!(should_stop(&p, &progress(500, 1, -500, Some(0))));
    }

    #[test]
    fn a_turn_limit_alone_keeps_iterating_to_the_end() {
        let p = plan(&turn(500), 10, 0);
        assert_eq!(p.soft, p.hard);
        // A long last iteration, a stable move: under a match clock either would stop, here neither does.
        let mut pr = progress(300, 9, 0, Some(0));
        pr.last_iteration = Duration::from_millis(200);
        assert!(!should_stop(&p, &pr));
        let late = ms(p.hard) * TURN_ONLY_ITERATION_PER_MILLE / 1000;
        assert!(!should_stop(&p, &progress(late - 1, 1, 0, Some(0))));
        assert!(should_stop(&p, &progress(late, 1, 0, Some(0))));
        // A proven result still answers at once.
        let mut d = progress(1, 1, 0, None);
        d.decided = true;
        assert!(should_stop(&p, &d));
    }
}

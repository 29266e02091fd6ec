//! `pbrain-pentad bench`: fixed positions searched to a fixed depth; prints `N nodes M nps`.
//!
//! The node count is a checksum of search behaviour: one thread, a fresh table per position, depth-limited, so
//! it is the same on every run and machine. Every functional change to search or evaluation states it in its
//! commit message as `Bench: N`.
//!
//! Usage: `pbrain-pentad bench [depth]` (default `params::BENCH_DEPTH`). `pbrain-pentad bench depth [SECONDS]`
//! instead times how long each position takes to complete depths 10, 12 and 14 (at most SECONDS each, default
//! 10) and prints the medians over the positions that get there and that the search does not prove won or lost (wall time: for before/after comparisons
//! on one machine, not a checksum). `pbrain-pentad bench wins FILE [MS]` plays each position of a forced-win set
//! (`testsets/`) as one move of an MS turn and reports how often a winning move is played and how fast it is
//! proven.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{bail, Context};

use crate::board::{Board, Rule};
use crate::manager::openings::parse_pos_moves;
use crate::search::params::{
    BENCH_DEPTH, BENCH_HASH_BYTES, WINS_HARD_MS, WINS_HASH_BYTES, WINS_TURN_MS,
};
use crate::search::{score_is_loss, score_is_win, Control, Limits, Searcher};

/// One benchmark position: rule, board size and the moves from an empty board.
pub struct BenchPosition {
    /// Game rule.
    pub rule: Rule,
    /// Board width.
    pub width: usize,
    /// Board height.
    pub height: usize,
    /// Moves in play order, black first: a letter for x (`a` = 0) then the row y + 1, e.g. `h8i9j10`.
    pub moves: &'static str,
}

/// The fixed benchmark set: every rule, 15×15 and 20×20, mostly middle games (played out by an early build of
/// the engine from the shared opening suites), plus two openings.
pub const POSITIONS: &[BenchPosition] = &[
    BenchPosition {
        rule: Rule::Freestyle,
        width: 15,
        height: 15,
        moves: "h8i9j10i8k9h9i7g9f9i11f8g10f11f10",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        width: 15,
        height: 15,
        moves: "g4b8f4f6e7g5a3e4e5d6e6e8d7f5g6f7",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        width: 15,
        height: 15,
        moves: "o11m12n13m15m14o15j14k15l13j11k13m13j12m11i12k11i11h10",
    },
    BenchPosition {
        rule: Rule::Standard,
        width: 15,
        height: 15,
        moves: "l7l12h10j7g6l11l9k12l6l8i10j13i14l13l14k13",
    },
    BenchPosition {
        rule: Rule::Standard,
        width: 15,
        height: 15,
        moves: "e8f8e12d9d8e9f9g7d10e7d7g10d6h10g9i10j10h11e6c6c8b9b8a8",
    },
    BenchPosition {
        rule: Rule::Renju,
        width: 15,
        height: 15,
        moves: "d6g8g4i4h9f8h8f9h7h6g7f6f7e7g5g6",
    },
    BenchPosition {
        rule: Rule::Renju,
        width: 15,
        height: 15,
        moves: "j6j2f2h7e2i5c2d2c4f5c5c3h5i6d4e3d3b5i4i7g6f7",
    },
    BenchPosition {
        rule: Rule::Caro,
        width: 15,
        height: 15,
        moves: "h8h9i9g7j10g10j11i8k11l12j7g11l10g9g8j12",
    },
    BenchPosition {
        rule: Rule::CaroExact,
        width: 15,
        height: 15,
        moves: "h8i8g9g6h7h6i6i7g5j4h10h9g10g8i10j10g11i5g7i11",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        width: 15,
        height: 15,
        moves: "h8i9j10",
    },
    BenchPosition {
        rule: Rule::Renju,
        width: 15,
        height: 15,
        moves: "h8",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        width: 20,
        height: 20,
        moves: "h10i10m4h5h9h11j9i9i8j7h8h7g8f8k8j8",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        width: 20,
        height: 20,
        moves: "j8l6o5k10o6o4p6n5q6n6n4q7r6s6m6o7m5m3p7p8p5",
    },
    BenchPosition {
        rule: Rule::Standard,
        width: 20,
        height: 20,
        moves: "k10l11j11k12m10i12l10j10l9h12j12i11g13i13i14g11j14k14",
    },
    BenchPosition {
        rule: Rule::Renju,
        width: 20,
        height: 20,
        moves: "k10k11l10m12j11j10l9m8i9l12l7l8k9m9k8",
    },
    BenchPosition {
        rule: Rule::Caro,
        width: 20,
        height: 20,
        moves: "k10j11l12j10k13j9j12k12l13i11m13n13l10",
    },
];

/// Builds the board of a benchmark position.
pub fn position_board(p: &BenchPosition) -> anyhow::Result<Board> {
    board_from_moves(p.rule, p.width, p.height, p.moves)
}

/// A `width`×`height` board of `rule` with the moves of a move string played (`-` or empty: no moves).
fn board_from_moves(rule: Rule, width: usize, height: usize, moves: &str) -> anyhow::Result<Board> {
    let mut board = Board::new(width, height, rule)?;
    if moves != "-" {
        for (x, y) in parse_pos_moves(moves)? {
            board
                .try_play(x, y)
                .map_err(|e| anyhow::anyhow!("position {moves:?}: {e}"))?;
        }
    }
    Ok(board)
}

/// Searches every position to `depth`; returns the total node count.
pub fn run_search_bench(depth: i32, verbose: bool) -> anyhow::Result<(u64, f64)> {
    let stop = AtomicBool::new(false);
    let mut total = 0u64;
    let start = Instant::now();
    for (i, p) in POSITIONS.iter().enumerate() {
        let board = position_board(p)?;
        let mut searcher = Searcher::new();
        searcher.set_hash_bytes(BENCH_HASH_BYTES);
        let limits = Limits {
            max_depth: Some(depth),
            ..Limits::default()
        };
        let t = Instant::now();
        let r = searcher.search(&board, &limits, &stop, &mut |_| Control::Continue);
        total += r.nodes;
        if verbose {
            let best = r.best.map(|b| board.xy(b));
            eprintln!(
                "position {:2} {:?} {}x{} {:24} best {:?} score {} depth {} nodes {} time {:.3}s",
                i + 1,
                p.rule,
                p.width,
                p.height,
                p.moves,
                best,
                r.score,
                r.depth,
                r.nodes,
                t.elapsed().as_secs_f64()
            );
        }
    }
    Ok((total, start.elapsed().as_secs_f64()))
}

/// Depths whose completion time `bench depth` reports.
const TIMED_DEPTHS: [i32; 3] = [10, 12, 14];

/// `bench depth`: per position, the time at which each of `TIMED_DEPTHS` finished (or `-`), then medians.
fn run_depth_bench(cap_secs: f64) -> anyhow::Result<()> {
    let stop = AtomicBool::new(false);
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); TIMED_DEPTHS.len()];
    for (i, p) in POSITIONS.iter().enumerate() {
        let board = position_board(p)?;
        let mut searcher = Searcher::new();
        searcher.set_hash_bytes(BENCH_HASH_BYTES);
        let limits = Limits {
            max_depth: TIMED_DEPTHS.last().copied(),
            hard_deadline: Some(Instant::now() + std::time::Duration::from_secs_f64(cap_secs)),
            ..Limits::default()
        };
        let mut done = [None; TIMED_DEPTHS.len()];
        let mut last = 0;
        let mut proven = false;
        searcher.search(&board, &limits, &stop, &mut |info| {
            for (k, &d) in TIMED_DEPTHS.iter().enumerate() {
                if info.depth >= d && done[k].is_none() {
                    done[k] = Some(info.elapsed.as_secs_f64());
                }
            }
            last = info.depth;
            proven = score_is_win(info.score) || score_is_loss(info.score);
            Control::Continue
        });
        let cells: Vec<String> = done
            .iter()
            .map(|t| t.map_or("-".to_string(), |t| format!("{t:.3}s")))
            .collect();
        // A position the search decides (a proven win or loss) is no depth measure: left out of the medians.
        let decided = proven;
        println!(
            "position {:2} {:?} {}x{} depth 10/12/14 at {} (last depth {last}){}",
            i + 1,
            p.rule,
            p.width,
            p.height,
            cells.join(" "),
            if decided { ", decided" } else { "" }
        );
        for (k, t) in done.iter().enumerate() {
            if let Some(t) = t.filter(|_| !decided) {
                times[k].push(t);
            }
        }
    }
    for (k, d) in TIMED_DEPTHS.iter().enumerate() {
        let v = &mut times[k];
        v.sort_by(f64::total_cmp);
        let median = v
            .get(v.len() / 2)
            .map_or("-".to_string(), |t| format!("{t:.3}s"));
        println!(
            "depth {d}: median {median} over {} undecided positions",
            v.len()
        );
    }
    Ok(())
}

/// One position of a forced-win set (`bench wins`): a position from a real game that the reference engine proved
/// won for the side to move.
struct WinPosition {
    /// Game rule.
    rule: Rule,
    /// The board, moves played.
    board: Board,
    /// The reference engine's winning move, as written in the file.
    reference_move: String,
    /// Other moves the reference engine proved winning (the defender mated after them), from `also=`.
    also: Vec<String>,
    /// Milliseconds the reference took to first report the win.
    reference_ms: f64,
    /// Milliseconds after which the reference, in a run of its own at the bench's turn, settled on the winning
    /// move it played (`choice=`; absent when it played no known winning move in that run).
    reference_choice_ms: Option<f64>,
    /// The reference's mate distance in plies.
    mate_plies: u32,
}

/// Parses a forced-win set: one position per line, `RULE SIZE MOVES MOVE MS PLIES [SOURCE] [also=M,M…]
/// [choice=MS]` (`MOVES` in the bench's move-string form, `-` for an empty board; `also=` lists other moves the
/// reference proved winning, `choice=` when it settled on its winning move); blank lines and lines starting
/// with `#` are skipped.
fn read_win_set(path: &str) -> anyhow::Result<Vec<WinPosition>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parse = || -> anyhow::Result<WinPosition> {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 6 {
                bail!("expected RULE SIZE MOVES MOVE MS PLIES");
            }
            let rule = Rule::from_gomocup(f[0].parse()?).context("unknown rule")?;
            let size: usize = f[1].parse()?;
            let also: Vec<String> = f[6..]
                .iter()
                .filter_map(|x| x.strip_prefix("also="))
                .flat_map(|x| x.split(','))
                .map(str::to_string)
                .collect();
            for m in &also {
                if parse_pos_moves(m).ok().map(|v| v.len()) != Some(1) {
                    bail!("bad move {m:?} in also=");
                }
            }
            let reference_choice_ms = match f[6..].iter().find_map(|x| x.strip_prefix("choice=")) {
                Some(v) => Some(v.parse::<f64>().context("bad choice=")?),
                None => None,
            };
            Ok(WinPosition {
                rule,
                board: board_from_moves(rule, size, size, f[2])?,
                reference_move: f[3].to_string(),
                also,
                reference_choice_ms,
                reference_ms: f[4].parse()?,
                mate_plies: f[5].parse()?,
            })
        };
        out.push(parse().with_context(|| format!("{path}, line {}", n + 1))?);
    }
    if out.is_empty() {
        bail!("{path}: no positions");
    }
    Ok(out)
}

/// What `bench wins` made of one position.
#[derive(Clone, Copy)]
enum WinOutcome {
    /// The search proved a win (its score is a win) after `proof_ms`; it chose the move at `found_ms`.
    Proven {
        /// Milliseconds to the first iteration that reported a win score.
        proof_ms: f64,
        /// Milliseconds to the first report of the final run of reports whose best move was the move played.
        found_ms: f64,
    },
    /// No proof, but the move played is one the reference proved winning (its own or an `also=` move).
    Winning {
        /// As in `Proven`.
        found_ms: f64,
    },
    /// No proof and a move not known to win.
    Missed,
}

/// `bench wins`: each position searched as one move of a `turn_ms` turn limit (the engine's own time plan; the
/// search stops once it proves a win); prints per position what came of it, then per rule the share of
/// winning moves played, the median time to the proof against the reference's (`MS`), and the median time from
/// which the search's choice was the winning move it played against the reference's own (`choice=`).
fn run_wins_bench(path: &str, turn_ms: i64) -> anyhow::Result<()> {
    let set = read_win_set(path)?;
    let stop = AtomicBool::new(false);
    let mut searcher = Searcher::new();
    searcher.set_hash_bytes(WINS_HASH_BYTES);
    let mut rows: Vec<(&WinPosition, WinOutcome)> = Vec::new();
    for (i, p) in set.iter().enumerate() {
        searcher.new_game();
        let clock = crate::search::time::Clock {
            turn_ms: Some(turn_ms),
            ..Default::default()
        };
        let plan = crate::search::time::plan_for(&clock, &p.board);
        let limits = Limits {
            hard_deadline: Some(Instant::now() + plan.hard),
            ..Limits::default()
        };
        let start = Instant::now();
        let mut proof_ms = None;
        // (ms, best move) of every finished iteration (or threat-solver report), in order.
        let mut reports = Vec::new();
        let r = searcher.search(&p.board, &limits, &stop, &mut |info| {
            let ms = info.elapsed.as_secs_f64() * 1000.0;
            reports.push((ms, info.best));
            if score_is_win(info.score) {
                proof_ms.get_or_insert(ms);
                Control::Stop
            } else {
                Control::Continue
            }
        });
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        // The choice settled when the reports started naming the move finally played (a move that only a cut
        // iteration chose settled at the end).
        let found_ms = match reports.last() {
            Some(&(_, b)) if Some(b) == r.best => reports
                .iter()
                .rev()
                .take_while(|q| Some(q.1) == r.best)
                .last()
                .map_or(ms, |q| q.0),
            _ => ms,
        };
        let played = r.best.map_or("-".to_string(), |b| {
            let (x, y) = p.board.xy(b);
            crate::manager::openings::move_name(x, y)
        });
        let known_win = played == p.reference_move || p.also.contains(&played);
        let outcome = match proof_ms {
            Some(t) if score_is_win(r.score) => WinOutcome::Proven {
                proof_ms: t,
                found_ms,
            },
            _ if known_win => WinOutcome::Winning { found_ms },
            _ => WinOutcome::Missed,
        };
        let what = match outcome {
            WinOutcome::Proven { proof_ms, found_ms } => {
                format!("proven    {proof_ms:7.1} ms, chosen at {found_ms:7.1} ms")
            }
            WinOutcome::Winning { found_ms } => {
                format!("winning   {ms:7.1} ms, chosen at {found_ms:7.1} ms")
            }
            WinOutcome::Missed => format!("MISSED    {ms:7.1} ms"),
        };
        println!(
            "position {:3} {:?} mate {:2} {what} played {played:4} (reference {} in {:.0} ms)",
            i + 1,
            p.rule,
            p.mate_plies,
            p.reference_move,
            p.reference_ms
        );
        rows.push((p, outcome));
    }
    let median = |mut v: Vec<f64>| -> f64 {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let mut rules: Vec<Rule> = rows.iter().map(|r| r.0.rule).collect();
    rules.sort_by_key(|r| r.gomocup_code());
    rules.dedup();
    let groups = rules
        .into_iter()
        .map(|r| (format!("{r:?}"), Some(r), 0.0))
        .chain([
            ("all".to_string(), None, 0.0),
            (
                format!("reference >= {WINS_HARD_MS:.0} ms"),
                None,
                WINS_HARD_MS,
            ),
        ]);
    for (name, rule, min_ref) in groups {
        let sel: Vec<_> = rows
            .iter()
            .filter(|r| rule.is_none_or(|q| r.0.rule == q) && r.0.reference_ms >= min_ref)
            .collect();
        let proven: Vec<_> = sel
            .iter()
            .filter_map(|r| match r.1 {
                WinOutcome::Proven { proof_ms, .. } => Some((proof_ms, r.0.reference_ms)),
                _ => None,
            })
            .collect();
        let found: Vec<_> = sel
            .iter()
            .filter_map(|r| match r.1 {
                WinOutcome::Proven { found_ms, .. } | WinOutcome::Winning { found_ms } => {
                    Some((found_ms, r.0.reference_choice_ms))
                }
                WinOutcome::Missed => None,
            })
            .collect();
        let both: Vec<_> = found
            .iter()
            .filter_map(|&(ours, theirs)| Some((ours, theirs?)))
            .collect();
        println!(
            "{name}: winning move {}/{} ({:.1}%): {} proven, {} a move the reference proved winning; \
             median time to the proof {:.1} ms, reference {:.1} ms on the same positions; median time to \
             settle on the winning move {:.1} ms, reference {:.1} ms ({} positions where both did)",
            found.len(),
            sel.len(),
            100.0 * found.len() as f64 / sel.len().max(1) as f64,
            proven.len(),
            found.len() - proven.len(),
            median(proven.iter().map(|p| p.0).collect()),
            median(proven.iter().map(|p| p.1).collect()),
            median(both.iter().map(|p| p.0).collect()),
            median(both.iter().map(|p| p.1).collect()),
            both.len(),
        );
    }
    Ok(())
}

/// `pbrain-pentad bench --help`.
pub const BENCH_USAGE: &str = "\
usage: pbrain-pentad bench [DEPTH]          search the fixed positions to DEPTH (default 6); the node count
                                            printed is the `Bench:` signature of commit messages
       pbrain-pentad bench depth [SECONDS]  time to complete depths 10, 12 and 14 per position (at most
                                            SECONDS each, default 10), with medians
       pbrain-pentad bench wins FILE [MS]   a forced-win set (see testsets/README.md): each position as
                                            one move of an MS turn (default 1000); share proven and time
       pbrain-pentad bench board [RULE [ROUNDS]]
                                            make+undo pairs per second of the board core (RULE 0, 1, 4, 8
                                            or 9, default 0; ROUNDS default 200)
";

/// Runs the benchmark with the given command-line arguments.
pub fn run(args: &[String]) -> anyhow::Result<()> {
    crate::cli::check_flags(args, BENCH_USAGE)?;
    let bad = |what: String| crate::cli::usage_error(what, BENCH_USAGE);
    match args.first().map(String::as_str) {
        // `bench board …`: the board core's make+undo benchmark (owner: core).
        Some("board") => {
            return crate::board::bench::run(&args[1..]).map_err(|e| bad(format!("{e:#}")))
        }
        Some("wins") => {
            let path = args
                .get(1)
                .ok_or_else(|| bad("bench wins: FILE is missing".to_string()))?;
            if args.len() > 3 {
                return Err(bad(format!("unexpected `{}`", args[3])));
            }
            let ms = match args.get(2) {
                None => WINS_TURN_MS,
                Some(s) => s
                    .parse::<i64>()
                    .ok()
                    .filter(|v| *v > 0)
                    .ok_or_else(|| bad(format!("bench wins: bad milliseconds {s:?}")))?,
            };
            return run_wins_bench(path, ms);
        }
        Some("depth") => {
            if args.len() > 2 {
                return Err(bad(format!("unexpected `{}`", args[2])));
            }
            let cap = match args.get(1) {
                None => 10.0,
                Some(s) => s
                    .parse::<f64>()
                    .ok()
                    .filter(|v| *v > 0.0)
                    .ok_or_else(|| bad(format!("bench depth: bad seconds {s:?}")))?,
            };
            return run_depth_bench(cap);
        }
        _ => {}
    }
    if args.len() > 1 {
        return Err(bad(format!("unexpected `{}`", args[1])));
    }
    let depth = match args.first() {
        None => BENCH_DEPTH,
        Some(d) => d
            .parse()
            .ok()
            .filter(|d| (1..=crate::search::params::MAX_DEPTH).contains(d))
            .ok_or_else(|| bad(format!("bench: bad depth {d:?}")))?,
    };
    let (nodes, secs) = run_search_bench(depth, true)?;
    let nps = (nodes as f64 / secs.max(1e-9)) as u64;
    println!("{nodes} nodes {nps} nps");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_forced_win_set_reads_and_its_winning_moves_are_empty_cells() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testsets/forced-wins-dev.txt");
        let set = read_win_set(path).unwrap();
        assert_eq!(set.len(), 471);
        for p in &set {
            let (x, y) = parse_pos_moves(&p.reference_move).unwrap()[0];
            let pos = p.board.pos(x, y).expect("on the board");
            assert!(p.board.is_empty(pos), "{}", p.reference_move);
            assert!(p.mate_plies >= 9);
            for m in &p.also {
                let (x, y) = parse_pos_moves(m).unwrap()[0];
                let q = p.board.pos(x, y).expect("on the board");
                assert!(p.board.is_empty(q) && *m != p.reference_move, "{m}");
            }
        }
    }

    #[test]
    fn a_bad_also_or_choice_field_is_an_error_with_its_line() {
        for (n, bad) in ["also=h8,zz", "choice=soon"].iter().enumerate() {
            let path =
                std::env::temp_dir().join(format!("pentad-also-{}-{n}.txt", std::process::id()));
            std::fs::write(
                &path,
                format!("0 15 h8 i9 3 9 x also=j9\n0 15 h8 i9 3 9 x {bad}\n"),
            )
            .unwrap();
            let err = read_win_set(path.to_str().unwrap()).err().unwrap();
            std::fs::remove_file(&path).unwrap();
            let msg = format!("{err:#}");
            assert!(msg.contains("line 2"), "{msg}");
        }
    }

    #[test]
    fn a_bad_forced_win_line_names_the_file_and_the_line() {
        let path = std::env::temp_dir().join(format!("pentad-wins-{}.txt", std::process::id()));
        std::fs::write(&path, "# comment\n0 15 h8 i9 3 9 x\n0 15 h8h8 i9 3 9 x\n").unwrap();
        let err = read_win_set(path.to_str().unwrap()).err().unwrap();
        std::fs::remove_file(&path).unwrap();
        let msg = format!("{err:#}");
        assert!(
            msg.contains("pentad-wins-") && msg.contains("line 3"),
            "{msg}"
        );
    }
}

//! `pbrain-pentad bench`: fixed positions searched to a fixed depth; prints `N nodes M nps`.
//!
//! The node count is a checksum of search behaviour: one thread, a fresh table per position, depth-limited, so
//! it is the same on every run and machine. Every functional change to search or evaluation states it in its
//! commit message as `Bench: N`.
//!
//! Usage: `pbrain-pentad bench [depth]` (default `params::BENCH_DEPTH`).

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{bail, Context};

use crate::board::{Board, Rule};
use crate::search::params::{BENCH_DEPTH, BENCH_HASH_BYTES};
use crate::search::{Control, Limits, Searcher};

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

/// The fixed benchmark set: every rule, 15×15 and 20×20, openings and middle games.
pub const POSITIONS: &[BenchPosition] = &[
    BenchPosition {
        rule: Rule::Freestyle,
        width: 15,
        height: 15,
        moves: "h8i9j10",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        width: 15,
        height: 15,
        moves: "g4b8f4f6e7g5a3",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        width: 15,
        height: 15,
        moves: "o11m12n13m15m14o15j14",
    },
    BenchPosition {
        rule: Rule::Standard,
        width: 15,
        height: 15,
        moves: "l7l12h10j7g6",
    },
    BenchPosition {
        rule: Rule::Standard,
        width: 15,
        height: 15,
        moves: "e8f8e12d9d8",
    },
    BenchPosition {
        rule: Rule::Renju,
        width: 15,
        height: 15,
        moves: "d6g8g4i4h9f8",
    },
    BenchPosition {
        rule: Rule::Renju,
        width: 15,
        height: 15,
        moves: "j6j2f2h7e2i5c2",
    },
    BenchPosition {
        rule: Rule::Caro,
        width: 15,
        height: 15,
        moves: "h8h9i9g7j10",
    },
    BenchPosition {
        rule: Rule::CaroExact,
        width: 15,
        height: 15,
        moves: "h8i8g9",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        width: 20,
        height: 20,
        moves: "h10i10m4h5h9",
    },
    BenchPosition {
        rule: Rule::Freestyle,
        width: 20,
        height: 20,
        moves: "j8l6o5k10",
    },
    BenchPosition {
        rule: Rule::Standard,
        width: 20,
        height: 20,
        moves: "k10l11j11k12",
    },
    BenchPosition {
        rule: Rule::Renju,
        width: 20,
        height: 20,
        moves: "k10k11l10m12",
    },
    BenchPosition {
        rule: Rule::Caro,
        width: 20,
        height: 20,
        moves: "k10j11l12",
    },
];

/// Parses a move string (`h8i9j10`) into (x, y) pairs, 0-based.
pub fn parse_moves(s: &str) -> anyhow::Result<Vec<(i64, i64)>> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if !c.is_ascii_lowercase() {
            bail!("bad move string {s:?} at byte {i}: expected a letter");
        }
        let x = i64::from(c - b'a');
        i += 1;
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let y: i64 = s[start..i]
            .parse()
            .with_context(|| format!("bad row in move string {s:?}"))?;
        if y < 1 {
            bail!("bad row 0 in move string {s:?}");
        }
        out.push((x, y - 1));
    }
    Ok(out)
}

/// Builds the board of a benchmark position.
pub fn position_board(p: &BenchPosition) -> anyhow::Result<Board> {
    let mut board = Board::new(p.width, p.height, p.rule)?;
    for (x, y) in parse_moves(p.moves)? {
        board
            .try_play(x, y)
            .map_err(|e| anyhow::anyhow!("bench position {:?}: {e}", p.moves))?;
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

/// Runs the benchmark with the given command-line arguments.
pub fn run(args: &[String]) -> anyhow::Result<()> {
    // `bench board …`: the board core's make+undo benchmark (owner: core).
    if args.first().map(String::as_str) == Some("board") {
        return crate::board::bench::run(&args[1..]);
    }
    let depth = match args.first() {
        None => BENCH_DEPTH,
        Some(d) => d
            .parse()
            .with_context(|| format!("bench: bad depth {d:?}"))?,
    };
    let (nodes, secs) = run_search_bench(depth, true)?;
    let nps = (nodes as f64 / secs.max(1e-9)) as u64;
    println!("{nodes} nodes {nps} nps");
    Ok(())
}

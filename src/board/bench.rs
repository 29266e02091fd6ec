//! `pbrain-pentad bench board [rule] [rounds]`: make+undo speed on 15x15 middle-game positions.
//!
//! Positions: fixed-seed random games of 24..40 stones played among the candidates (no finished games). Each
//! round plays and undoes every candidate move of every position. Prints pairs/s for the rule (default 0).

use super::{Board, Rule};
use std::time::Instant;

/// Deterministic xorshift64* generator (no dependency, reproducible positions).
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// Next pseudo-random value.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-ish value below `n` (n > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// CPU time of this thread in seconds (Linux `/proc/thread-self/schedstat`), if available. The machine is
/// shared, so the rate per CPU second is steadier than the wall-clock rate.
fn thread_cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

/// Fixed middle-game positions on a 15x15 board under `rule`.
pub fn positions(rule: Rule, count: usize) -> Vec<Board> {
    let mut rng = Rng::new(0x0B0A_4D00_2026);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut b = Board::new(15, 15, rule).expect("15x15 is supported");
        let target = 24 + rng.below(17);
        b.play(b.pos(7, 7).expect("centre"));
        let mut ok = true;
        while b.move_count() < target {
            let cands: Vec<_> = b.candidates().collect();
            if cands.is_empty() {
                ok = false;
                break;
            }
            let p = cands[rng.below(cands.len())];
            b.play(p);
            if b.winner().is_some() {
                ok = false;
                break;
            }
        }
        if ok {
            out.push(b);
        }
    }
    out
}

/// Runs the board benchmark.
pub fn run(args: &[String]) -> anyhow::Result<()> {
    let rule = match args.first() {
        Some(a) => a
            .parse()
            .ok()
            .and_then(Rule::from_gomocup)
            .ok_or_else(|| anyhow::anyhow!("bench board: unknown rule {a:?}"))?,
        None => Rule::Freestyle,
    };
    let rounds: usize = match args.get(1) {
        Some(a) => a
            .parse()
            .map_err(|_| anyhow::anyhow!("bench board: bad rounds {a:?}"))?,
        None => 200,
    };
    if let Some(extra) = args.get(2) {
        anyhow::bail!("bench board: unexpected `{extra}`");
    }
    // The first board of a rule builds that rule's tables (lazily, once per process).
    let t0 = Instant::now();
    Board::new(15, 15, rule)?;
    println!(
        "board bench rule {}: first Board::new (table build) {:.1} ms",
        rule.gomocup_code(),
        t0.elapsed().as_secs_f64() * 1e3
    );
    let mut boards = positions(rule, 32);
    let moves: Vec<Vec<_>> = boards.iter().map(|b| b.candidates().collect()).collect();
    let mut pairs = 0u64;
    let mut check = 0u64;
    let cpu0 = thread_cpu_secs();
    let start = Instant::now();
    for _ in 0..rounds {
        for (b, ms) in boards.iter_mut().zip(&moves) {
            for &m in ms {
                b.play(m);
                check = check.wrapping_add(b.hash() ^ b.eval_lanes(super::Color::Black).0 as u64);
                b.undo();
            }
            pairs += ms.len() as u64;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let cpu = match (cpu0, thread_cpu_secs()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => secs,
    };
    println!(
        "board bench rule {}: {} make+undo pairs, {:.3} s wall = {:.0} pairs/s, {:.3} s cpu = {:.0} pairs/s per cpu second (checksum {:016x})",
        rule.gomocup_code(),
        pairs,
        secs,
        pairs as f64 / secs,
        cpu,
        pairs as f64 / cpu,
        check
    );
    Ok(())
}

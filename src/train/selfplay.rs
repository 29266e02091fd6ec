//! `pbrain-pentad selfplay`: games of the engine against itself at a fixed node budget, for the tuner.
//!
//! Each game starts from a random opening (a few random stones near the centre and near each other, redrawn
//! until a short search calls it balanced), then both sides search every move with the same node budget. The
//! search is deterministic under a node limit and every game has its own seed, so the file is the same for the
//! same arguments whatever the number of threads (records are written in game order).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::{bail, Context};

use super::data::{write_header, GameRecord, Outcome};
use crate::board::{Board, Color, Pos, Rule};
use crate::cli::{check_flags, usage_error};
use crate::manager::players::Rng;
use crate::search::params::{
    SELFPLAY_BALANCE_LIMIT, SELFPLAY_HASH_BYTES, SELFPLAY_OPENING_RADIUS, SELFPLAY_OPENING_TRIES,
};
use crate::search::{Control, Limits, Searcher};

/// `pbrain-pentad selfplay --help`.
pub const SELFPLAY_USAGE: &str = "\
usage: pbrain-pentad selfplay --out FILE [options]

Plays games of Pentad against itself at a fixed node budget and writes them to FILE (the tuner's input).
  --out FILE          game file to write (replaced)
  --games N           games to play (default 1000)
  --rule R            Gomocup rule code: 0 freestyle, 1 standard, 4 renju, 8 caro, 9 caro exact (default 0)
  --size S[,S...]     board sizes, used in turn (default 15)
  --nodes N           node budget per move (default 4000)
  --random-plies A-B  random opening stones per game, from A to B (default 2-6)
  --seed N            seed of the openings (default 1): the same arguments give the same file
  --threads N         games played at once (default 2)
";

/// What `selfplay` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfplayConfig {
    /// Output file.
    pub out: PathBuf,
    /// Number of games.
    pub games: usize,
    /// Rule of every game.
    pub rule: Rule,
    /// Board sizes, game `i` uses `sizes[i % len]`.
    pub sizes: Vec<usize>,
    /// Node budget per move.
    pub nodes: u64,
    /// Random opening plies, inclusive range.
    pub random_plies: (usize, usize),
    /// Seed of the openings.
    pub seed: u64,
    /// Games played at once.
    pub threads: usize,
}

/// Parses `selfplay`'s arguments.
pub fn parse_selfplay_args(args: &[String]) -> anyhow::Result<SelfplayConfig> {
    let mut cfg = SelfplayConfig {
        out: PathBuf::new(),
        games: 1000,
        rule: Rule::Freestyle,
        sizes: vec![15],
        nodes: 4000,
        random_plies: (2, 6),
        seed: 1,
        threads: 2,
    };
    let mut out = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value()?)),
            "--games" => cfg.games = value()?.parse().context("--games: not a number")?,
            "--rule" => {
                let code: i64 = value()?.parse().context("--rule: not a number")?;
                cfg.rule = Rule::from_gomocup(code).context("--rule: unknown rule code")?;
            }
            "--size" => {
                cfg.sizes = value()?
                    .split(',')
                    .map(|s| s.parse::<usize>())
                    .collect::<Result<_, _>>()
                    .context("--size: not a list of numbers")?;
                if cfg.sizes.is_empty() || cfg.sizes.iter().any(|s| !(5..=32).contains(s)) {
                    bail!("--size: each size must be 5..=32");
                }
            }
            "--nodes" => cfg.nodes = value()?.parse().context("--nodes: not a number")?,
            "--random-plies" => {
                let v = value()?;
                let (a, b) = v.split_once('-').unwrap_or((v, v));
                cfg.random_plies = (
                    a.parse().context("--random-plies: not A-B")?,
                    b.parse().context("--random-plies: not A-B")?,
                );
                if cfg.random_plies.0 > cfg.random_plies.1 {
                    bail!("--random-plies: A is larger than B");
                }
            }
            "--seed" => cfg.seed = value()?.parse().context("--seed: not a number")?,
            "--threads" => cfg.threads = value()?.parse().context("--threads: not a number")?,
            _ => bail!("unknown option {a}"),
        }
    }
    cfg.out = out.context("--out FILE is required")?;
    if cfg.games == 0 || cfg.nodes == 0 || cfg.threads == 0 {
        bail!("--games, --nodes and --threads must be at least 1");
    }
    Ok(cfg)
}

/// `pbrain-pentad selfplay ARGS`.
pub fn run_selfplay(args: &[String]) -> anyhow::Result<()> {
    check_flags(args, SELFPLAY_USAGE)?;
    let cfg =
        parse_selfplay_args(args).map_err(|e| usage_error(format!("{e:#}"), SELFPLAY_USAGE))?;
    let mut file =
        File::create(&cfg.out).with_context(|| format!("cannot create {}", cfg.out.display()))?;
    write_header(&mut file).with_context(|| format!("writing {}", cfg.out.display()))?;
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, anyhow::Result<GameRecord>)>();
    let started = Instant::now();
    let tty = std::io::stderr().is_terminal();
    std::thread::scope(|s| -> anyhow::Result<()> {
        for _ in 0..cfg.threads.min(cfg.games) {
            let tx = tx.clone();
            let (cfg, next) = (&cfg, &next);
            s.spawn(move || {
                let mut searcher = Searcher::new();
                searcher.set_hash_bytes(SELFPLAY_HASH_BYTES);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cfg.games || tx.send((i, play_game(cfg, i, &mut searcher))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Records go out in game order, so the file does not depend on the threads' timing.
        let mut pending = BTreeMap::new();
        let (mut written, mut positions, mut wins) = (0usize, 0usize, [0usize; 3]);
        for (i, game) in rx {
            pending.insert(i, game);
            while let Some(game) = pending.remove(&written) {
                let game = game?;
                file.write_all(&game.to_bytes())
                    .with_context(|| format!("writing {}", cfg.out.display()))?;
                written += 1;
                positions += game.moves.len() - game.opening as usize;
                wins[match game.outcome {
                    Outcome::Won(Color::Black) => 0,
                    Outcome::Won(Color::White) => 1,
                    Outcome::Draw => 2,
                }] += 1;
                if tty {
                    let secs = started.elapsed().as_secs_f64();
                    eprint!(
                        "\rselfplay: {written}/{} games written, {positions} positions, black-white-draw \
                         {}-{}-{}, {:.1} games/s ",
                        cfg.games,
                        wins[0],
                        wins[1],
                        wins[2],
                        written as f64 / secs.max(1e-9)
                    );
                }
            }
        }
        if tty {
            eprintln!();
        }
        eprintln!(
            "selfplay: {written} games, {positions} positions (black-white-draw {}-{}-{}) in {:.1} s -> {}",
            wins[0],
            wins[1],
            wins[2],
            started.elapsed().as_secs_f64(),
            cfg.out.display()
        );
        Ok(())
    })
}

/// Seed of game `i`.
fn game_seed(seed: u64, i: usize) -> u64 {
    let mut r = Rng::new(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    r.next_u64()
}

/// Plays game `i` of `cfg` with `searcher`.
pub fn play_game(
    cfg: &SelfplayConfig,
    i: usize,
    searcher: &mut Searcher,
) -> anyhow::Result<GameRecord> {
    let size = cfg.sizes[i % cfg.sizes.len()];
    let mut rng = Rng::new(game_seed(cfg.seed, i));
    let stop = AtomicBool::new(false);
    let limits = Limits {
        max_nodes: Some(cfg.nodes),
        ..Limits::default()
    };
    let search = |searcher: &mut Searcher, board: &Board| {
        searcher.search(board, &limits, &stop, &mut |_| Control::Continue)
    };
    // 1. A random opening the search calls balanced (the last draw is kept if none is).
    let mut board = Board::new(size, size, cfg.rule)?;
    for _ in 0..SELFPLAY_OPENING_TRIES {
        board = random_opening(cfg, size, &mut rng)?;
        searcher.new_game();
        if board.winner().is_none()
            && search(searcher, &board).score.abs() <= SELFPLAY_BALANCE_LIMIT
        {
            break;
        }
    }
    let opening = board.move_count();
    let mut moves: Vec<(u8, u8, i16)> = board
        .moves()
        .iter()
        .map(|&p| {
            let (x, y) = board.xy(p);
            (x as u8, y as u8, 0)
        })
        .collect();
    // 2. The game.
    searcher.new_game();
    while board.winner().is_none() && !board.is_full() {
        let r = search(searcher, &board);
        let Some(p) = r.best else { break };
        let (x, y) = board.xy(p);
        moves.push((x as u8, y as u8, r.score.clamp(-32_000, 32_000) as i16));
        board.play(p);
    }
    let outcome = board.winner().map_or(Outcome::Draw, Outcome::Won);
    Ok(GameRecord {
        rule: cfg.rule,
        width: size as u8,
        height: size as u8,
        outcome,
        moves,
        opening: opening as u16,
    })
}

/// A board with a random opening: the first stone within `SELFPLAY_OPENING_RADIUS` of the centre, each next one
/// within two cells of a stone (never a renju-forbidden point, never a five).
fn random_opening(cfg: &SelfplayConfig, size: usize, rng: &mut Rng) -> anyhow::Result<Board> {
    let mut board = Board::new(size, size, cfg.rule)?;
    let (lo, hi) = cfg.random_plies;
    let plies = lo + rng.below((hi - lo + 1) as u64) as usize;
    let c = (size / 2) as i64;
    let r = SELFPLAY_OPENING_RADIUS;
    for _ in 0..plies {
        let me = board.side_to_move();
        let cells: Vec<Pos> = if board.move_count() == 0 {
            (c - r..=c + r)
                .flat_map(|y| (c - r..=c + r).map(move |x| (x, y)))
                .filter_map(|(x, y)| board.pos(x, y))
                .collect()
        } else {
            board.candidates().collect()
        };
        let ok: Vec<Pos> = cells
            .into_iter()
            .filter(|&p| {
                board.is_empty(p)
                    && crate::search::movepick::allowed(&board, p, me)
                    && board.threat(p, me) != crate::pattern::Threat::Five
            })
            .collect();
        if ok.is_empty() {
            break;
        }
        board.play(ok[rng.below(ok.len() as u64) as usize]);
    }
    Ok(board)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn arguments() {
        let cfg = parse_selfplay_args(&args(
            "--out x.bin --games 7 --rule 4 --size 15,20 --nodes 300 --random-plies 1-3 --seed 9",
        ))
        .expect("valid");
        assert_eq!(cfg.rule, Rule::Renju);
        assert_eq!(cfg.sizes, vec![15, 20]);
        assert_eq!((cfg.games, cfg.nodes, cfg.seed), (7, 300, 9));
        assert_eq!(cfg.random_plies, (1, 3));
        assert!(parse_selfplay_args(&args("--games 3")).is_err());
        assert!(parse_selfplay_args(&args("--out x --rule 77")).is_err());
        assert!(parse_selfplay_args(&args("--out x --size 40")).is_err());
        assert!(parse_selfplay_args(&args("--out x --random-plies 5-2")).is_err());
    }

    #[test]
    fn games_are_legal_finished_and_reproducible() {
        let cfg = parse_selfplay_args(&args("--out x --games 2 --rule 4 --nodes 300 --size 9,15"))
            .expect("valid");
        let mut s = Searcher::new();
        s.set_hash_bytes(1 << 20);
        for i in 0..2 {
            let g = play_game(&cfg, i, &mut s).expect("plays");
            assert_eq!(g.width as usize, cfg.sizes[i]);
            assert!((2..=6).contains(&(g.opening as usize)));
            let mut board = None;
            g.replay(|_, _| {}).expect("every move legal");
            g.replay(|b, k| {
                if k + 1 == g.moves.len() {
                    board = Some(b.clone());
                }
            })
            .expect("legal");
            let mut last = board.expect("moves");
            let (x, y, _) = *g.moves.last().expect("moves");
            last.try_play(x.into(), y.into()).expect("legal");
            assert_eq!(g.outcome, last.winner().map_or(Outcome::Draw, Outcome::Won));
            let mut fresh = Searcher::new();
            fresh.set_hash_bytes(1 << 20);
            assert_eq!(
                play_game(&cfg, i, &mut fresh).expect("plays"),
                g,
                "same game again"
            );
        }
    }
}

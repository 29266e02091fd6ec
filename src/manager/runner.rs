//! `pbrain-pentad match`: option parsing, the game schedule (each opening twice with colours swapped, every
//! pair of engines), worker threads, live statistics with an SPRT that stops the match, records and summaries.

use super::game::{
    opening_board, play_game, EndReason, EngineKind, EngineSpec, GameResult, GameSettings,
};
use super::openings::{parse_openings, Opening, OpeningFormat};
use super::players::Rng;
use super::record::{psq_string, rule_name, sgf_string, GameInfo};
use super::stats::{Sprt, SprtModel, SprtState, Tally};
use crate::board::{Color, Rule};
use anyhow::{bail, Context};
use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

/// With `--quiet` and no terminal, a progress line is printed every this many games.
const PROGRESS_EVERY: u64 = 20;

/// A match stops with an error when an engine has failed to start in this many games and never started.
const START_FAILURES_ABORT: u64 = 3;

/// Usage text of `pbrain-pentad match`.
pub const MATCH_USAGE: &str = "\
usage: pbrain-pentad match [options] ENGINE ENGINE [ENGINE ...]

ENGINE is a brain command (`./pbrain-x`, or with arguments in one quoted word: \"./pbrain-x --flag\"),
optionally named: NAME=COMMAND; or a built-in player: `random`, `greedy`. Three or more engines play a
round robin. Results are from the first engine's point of view.

options:
  --rule R              0 freestyle, 1 standard, 4 renju, 8 caro, 9 caro with exactly five (or the names
                        freestyle, standard, renju, caro, caro-exact); default 0
  --size N | WxH        board size, default 15
  --tc MS               time per move in ms (INFO timeout_turn), default 1000; 0 = no turn limit
  --match-time MS       time per game per player in ms (INFO timeout_match), default 0 = none
  --tolerance MS        grace added to every deadline, default 1000 (Piskvork's)
  --max-memory BYTES    sent as INFO max_memory, default 367001600 (Gomocup); 0 = none
  --games N             games to play (rounded up to an even number); default: every opening twice for
                        each pair of engines (20 games without openings)
  --openings FILE       opening suite: offset lines `dx,dy, dx,dy, ...` or pos lines `h8i9j10`
  --openings-format F   offset | pos (default: detected)
  --shuffle             play the openings in a random (seeded) order
  --draw-after N        a draw when N stones are on the board (Gomocup renju: 200); default: board full only
  --send-delay MS       wait MS after a brain's move before sending it the next command (for brains that
                        drop a command arriving right after their move, e.g. Rapfi, Embryo); default 0:
                        at once, as Piskvork does, and such a brain's error line loses the game
  --concurrency N       games played at the same time, default 1
  --seed N              seed for the built-in players and --shuffle (default: from the clock; printed)
  --sprt elo0=E0 elo1=E1 alpha=A beta=B [model=pentanomial|trinomial]
                        stop when the SPRT decides (two engines only); pentanomial counts game pairs
  --out DIR             where records go (default matches/<unix time>): game-NNNN.psq/.sgf, summary.json
  --no-records          do not write records
  --log                 also write each engine's protocol traffic: game-NNNN-<name>.log in --out
  --quiet               no line per game
";

/// Everything `match` was asked to do.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The engines, in command-line order.
    pub engines: Vec<EngineSpec>,
    /// Board, rule and clocks.
    pub settings: GameSettings,
    /// Number of games (None = the default schedule).
    pub games: Option<u64>,
    /// Parallel games.
    pub concurrency: usize,
    /// The openings file, if any.
    pub openings_path: Option<PathBuf>,
    /// Its format, if forced.
    pub openings_format: Option<OpeningFormat>,
    /// Shuffle the openings.
    pub shuffle: bool,
    /// Random seed.
    pub seed: u64,
    /// SPRT, if asked.
    pub sprt: Option<Sprt>,
    /// Records directory (None = no records).
    pub out_dir: Option<PathBuf>,
    /// Write protocol logs.
    pub log: bool,
    /// No per-game lines.
    pub quiet: bool,
}

/// Parses a rule given as a Gomocup code or a name.
pub fn parse_rule(s: &str) -> anyhow::Result<Rule> {
    let code = match s.to_ascii_lowercase().as_str() {
        "freestyle" | "gomoku" => 0,
        "standard" => 1,
        "renju" => 4,
        "caro" => 8,
        "caro-exact" | "caro5" => 9,
        other => other
            .parse::<i64>()
            .map_err(|_| anyhow::anyhow!("unknown rule `{s}`"))?,
    };
    match Rule::from_gomocup(code) {
        Some(r) if [0, 1, 4, 8, 9].contains(&code) => Ok(r),
        _ => bail!("unsupported rule `{s}` (use 0, 1, 4, 8 or 9)"),
    }
}

/// Parses `N` or `WxH`.
pub fn parse_size(s: &str) -> anyhow::Result<(usize, usize)> {
    let (w, h) = match s.split_once(['x', 'X']) {
        Some((w, h)) => (w.trim().parse()?, h.trim().parse()?),
        None => {
            let n: usize = s.trim().parse()?;
            (n, n)
        }
    };
    if !(5..=32).contains(&w) || !(5..=32).contains(&h) {
        bail!("board sides must be 5..=32, got {w}x{h}");
    }
    Ok((w, h))
}

/// Parses the `key=value` words after `--sprt`.
pub fn parse_sprt(words: &[String]) -> anyhow::Result<Sprt> {
    let mut sprt = Sprt {
        elo0: 0.0,
        elo1: 5.0,
        alpha: 0.05,
        beta: 0.05,
        model: SprtModel::Pentanomial,
    };
    for w in words {
        let (k, v) = w
            .split_once('=')
            .with_context(|| format!("--sprt: expected key=value, got `{w}`"))?;
        match k {
            "elo0" => sprt.elo0 = v.parse()?,
            "elo1" => sprt.elo1 = v.parse()?,
            "alpha" => sprt.alpha = v.parse()?,
            "beta" => sprt.beta = v.parse()?,
            "model" => {
                sprt.model = match v {
                    "pentanomial" | "penta" => SprtModel::Pentanomial,
                    "trinomial" | "tri" => SprtModel::Trinomial,
                    _ => bail!("--sprt model must be pentanomial or trinomial"),
                }
            }
            _ => bail!("--sprt: unknown key `{k}` (elo0, elo1, alpha, beta, model)"),
        }
    }
    if sprt.elo1 <= sprt.elo0
        || sprt.elo1.is_nan()
        || !(0.0..0.5).contains(&sprt.alpha)
        || !(0.0..0.5).contains(&sprt.beta)
    {
        bail!("--sprt needs elo1 > elo0 and 0 < alpha, beta < 0.5");
    }
    Ok(sprt)
}

/// Parses one engine word: `random`, `greedy`, `NAME=COMMAND` or `COMMAND`.
pub fn parse_engine(word: &str) -> anyhow::Result<EngineSpec> {
    match word {
        "random" => {
            return Ok(EngineSpec {
                name: "random".into(),
                kind: EngineKind::Random,
            })
        }
        "greedy" => {
            return Ok(EngineSpec {
                name: "greedy".into(),
                kind: EngineKind::Greedy,
            })
        }
        _ => {}
    }
    let (name, cmd) = match word.split_once('=') {
        Some((n, c)) if !n.is_empty() && !n.contains(['/', ' ']) => (Some(n.to_string()), c),
        _ => (None, word),
    };
    let argv: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
    if argv.is_empty() {
        bail!("empty engine command");
    }
    let kind = match argv[0].as_str() {
        "random" if argv.len() == 1 => EngineKind::Random,
        "greedy" if argv.len() == 1 => EngineKind::Greedy,
        _ => EngineKind::Command(argv.clone()),
    };
    let name = name.unwrap_or_else(|| {
        Path::new(&argv[0])
            .file_name()
            .map_or(argv[0].clone(), |f| f.to_string_lossy().into_owned())
    });
    Ok(EngineSpec { name, kind })
}

/// Makes engine names unique by appending `#2`, `#3`, … (self-play).
fn uniquify(engines: &mut [EngineSpec]) {
    let mut seen: HashMap<String, u32> = HashMap::new();
    for e in engines.iter_mut() {
        let n = seen.entry(e.name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            e.name = format!("{}#{}", e.name, n);
        }
    }
}

/// Checks that a brain command can be started at all (an SPRT with a typo should fail at once, not lose every
/// game).
fn check_command(argv: &[String]) -> anyhow::Result<()> {
    let prog = Path::new(&argv[0]);
    if argv[0].contains('/') {
        if !prog.is_file() {
            bail!("engine `{}` not found", argv[0]);
        }
        return Ok(());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|d| d.join(prog).is_file()) {
        Ok(())
    } else {
        bail!(
            "engine `{}` not found in PATH (give a path like ./{})",
            argv[0],
            argv[0]
        )
    }
}

fn take_value<'a>(args: &'a [String], i: &mut usize, opt: &str) -> anyhow::Result<&'a str> {
    *i += 1;
    args.get(*i)
        .map(String::as_str)
        .with_context(|| format!("{opt} needs a value"))
}

/// Parses the arguments of `match`.
pub fn parse_match_args(args: &[String]) -> anyhow::Result<MatchConfig> {
    let mut settings = GameSettings {
        max_memory: 367_001_600, // Gomocup's 350 MB
        ..GameSettings::default()
    };
    let mut cfg = MatchConfig {
        engines: Vec::new(),
        settings: settings.clone(),
        games: None,
        concurrency: 1,
        openings_path: None,
        openings_format: None,
        shuffle: false,
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64 % 1_000_000_007),
        sprt: None,
        out_dir: Some(default_out_dir()),
        log: false,
        quiet: false,
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "--rule" => settings.rule = parse_rule(take_value(args, &mut i, a)?)?,
            "--size" => {
                (settings.width, settings.height) = parse_size(take_value(args, &mut i, a)?)?
            }
            "--tc" | "--turn" => settings.turn_ms = take_value(args, &mut i, a)?.parse()?,
            "--match-time" => settings.match_ms = take_value(args, &mut i, a)?.parse()?,
            "--tolerance" => settings.tolerance_ms = take_value(args, &mut i, a)?.parse()?,
            "--max-memory" => settings.max_memory = take_value(args, &mut i, a)?.parse()?,
            "--draw-after" => settings.draw_after = take_value(args, &mut i, a)?.parse()?,
            "--send-delay" => settings.send_delay_ms = take_value(args, &mut i, a)?.parse()?,
            "--games" => cfg.games = Some(take_value(args, &mut i, a)?.parse()?),
            "--concurrency" => {
                cfg.concurrency = take_value(args, &mut i, a)?.parse::<usize>()?.max(1)
            }
            "--openings" => cfg.openings_path = Some(PathBuf::from(take_value(args, &mut i, a)?)),
            "--openings-format" => {
                cfg.openings_format = Some(match take_value(args, &mut i, a)? {
                    "offset" => OpeningFormat::Offset,
                    "pos" => OpeningFormat::Pos,
                    f => bail!("unknown openings format `{f}` (offset or pos)"),
                })
            }
            "--shuffle" => cfg.shuffle = true,
            "--seed" => cfg.seed = take_value(args, &mut i, a)?.parse()?,
            "--sprt" => {
                let mut words = Vec::new();
                while i + 1 < args.len()
                    && !args[i + 1].starts_with("--")
                    && args[i + 1].contains('=')
                {
                    let w = &args[i + 1];
                    // `NAME=COMMAND` engines also contain '=': only SPRT keys belong here.
                    let key = w.split_once('=').map_or("", |(k, _)| k);
                    if !["elo0", "elo1", "alpha", "beta", "model"].contains(&key) {
                        break;
                    }
                    words.extend(w.split(',').map(str::to_string));
                    i += 1;
                }
                cfg.sprt = Some(parse_sprt(&words)?);
            }
            "--out" => cfg.out_dir = Some(PathBuf::from(take_value(args, &mut i, a)?)),
            "--no-records" => cfg.out_dir = None,
            "--log" => cfg.log = true,
            "--quiet" => cfg.quiet = true,
            _ if a.starts_with('-') => bail!("unknown option `{a}`"),
            _ => cfg.engines.push(parse_engine(a)?),
        }
        i += 1;
    }
    if cfg.engines.len() < 2 {
        bail!("need at least two engines");
    }
    if settings.turn_ms == 0 && settings.match_ms == 0 {
        bail!("give a time limit: --tc and/or --match-time");
    }
    if cfg.sprt.is_some() && cfg.engines.len() != 2 {
        bail!("--sprt needs exactly two engines");
    }
    if cfg.log && cfg.out_dir.is_none() {
        bail!("--log needs a records directory (drop --no-records)");
    }
    uniquify(&mut cfg.engines);
    cfg.settings = settings;
    Ok(cfg)
}

fn default_out_dir() -> PathBuf {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    PathBuf::from(format!("matches/{t}"))
}

/// Which engines and opening a game uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scheduled {
    /// Engine index playing black.
    pub black: usize,
    /// Engine index playing white.
    pub white: usize,
    /// Index into the (possibly shuffled) opening list.
    pub opening: usize,
    /// Index of the engine pair (into `pairs`).
    pub pair: usize,
    /// The pair of games (same opening, colours swapped) this game belongs to.
    pub block: u64,
}

/// The game schedule: for each opening, for each engine pair (i < j), two games: i black, then j black.
pub fn schedule(game: u64, pairs: &[(usize, usize)], n_openings: usize) -> Scheduled {
    let block = game / 2;
    let pair = (block % pairs.len() as u64) as usize;
    let opening = ((block / pairs.len() as u64) % n_openings.max(1) as u64) as usize;
    let (i, j) = pairs[pair];
    let (black, white) = if game.is_multiple_of(2) {
        (i, j)
    } else {
        (j, i)
    };
    Scheduled {
        black,
        white,
        opening,
        pair,
        block,
    }
}

/// Escapes a string for JSON.
fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// A JSON number (non-finite values become null).
fn json_num(v: f64) -> String {
    if v.is_finite() {
        let v = if v == 0.0 { 0.0 } else { v }; // no "-0.0000"
        format!("{:.4}", v)
    } else {
        "null".into()
    }
}

/// Live state of a match, updated by the main thread as results come in.
struct MatchState {
    /// Tally per engine pair, from the pair's first engine's view.
    tallies: Vec<Tally>,
    /// Half points of the first game of a pair waiting for its partner, by block.
    half_pairs: HashMap<u64, u8>,
    /// Loss reasons charged to each engine (timeouts, crashes, …), by engine index.
    faults: Vec<BTreeMap<String, u64>>,
    /// Game end reasons, counted.
    reasons: BTreeMap<String, u64>,
    /// Points per engine (round robin table), in half points, and games.
    points2: Vec<(u64, u64)>,
    finished: u64,
    sprt_state: SprtState,
    /// Games finished and the LLR when the SPRT reached a bound (games still in flight finish after it).
    sprt_decided: Option<(u64, f64)>,
    /// Per engine: games it failed to start in, and whether it ever started.
    starts: Vec<(u64, bool)>,
}

fn reason_key(r: &EndReason) -> String {
    match r {
        EndReason::Five => "five".into(),
        EndReason::Foul => "renju foul".into(),
        EndReason::OffBoard(..) => "illegal move".into(),
        EndReason::Occupied(..) => "occupied point".into(),
        EndReason::Fault(f) => match f {
            super::client::Fault::Timeout => "timeout".into(),
            super::client::Fault::Crash => "crash".into(),
            super::client::Fault::Malformed(_) => "malformed answer".into(),
            super::client::Fault::StartFailed(_) => "start failed".into(),
            super::client::Fault::Memory(_) => "memory limit".into(),
        },
        EndReason::BoardFull => "board full".into(),
        EndReason::MoveLimit => "move limit".into(),
    }
}

/// Runs `pbrain-pentad match` with its command-line arguments.
pub fn run_match(args: &[String]) -> anyhow::Result<()> {
    crate::cli::check_flags(args, MATCH_USAGE)?;
    let cfg = parse_match_args(args)
        .map_err(|e| crate::cli::usage_error(format!("{e:#}"), MATCH_USAGE))?;
    for e in &cfg.engines {
        if let EngineKind::Command(argv) = &e.kind {
            check_command(argv)?;
        }
    }
    let mut openings: Vec<Opening> = match &cfg.openings_path {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            parse_openings(&text, cfg.openings_format)?
        }
        None => Vec::new(),
    };
    if cfg.openings_path.is_some() && openings.is_empty() {
        bail!("the openings file has no openings");
    }
    for (n, o) in openings.iter().enumerate() {
        opening_board(
            &cfg.settings,
            &o.stones(cfg.settings.width, cfg.settings.height),
        )
        .with_context(|| format!("opening {} does not fit this board and rule", n + 1))?;
    }
    if cfg.shuffle {
        let mut rng = Rng::new(cfg.seed);
        for i in (1..openings.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            openings.swap(i, j);
        }
    }
    if openings.is_empty() {
        openings.push(Opening::Absolute(Vec::new()));
    }
    let n = cfg.engines.len();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let default_games = if cfg.openings_path.is_some() {
        2 * (pairs.len() * openings.len()) as u64
    } else {
        20
    };
    let total = cfg.games.unwrap_or(default_games).div_ceil(2) * 2;
    if let Some(dir) = &cfg.out_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let s = &cfg.settings;
    let names: Vec<&str> = cfg.engines.iter().map(|e| e.name.as_str()).collect();
    println!(
        "Match: {} | {} games | {} {}x{} | tc {} ms/move, {} ms/game, tolerance {} ms{} | openings: {} | seed {}{}",
        names.join(" vs "),
        total,
        rule_name(s.rule.gomocup_code()),
        s.width,
        s.height,
        s.turn_ms,
        s.match_ms,
        s.tolerance_ms,
        if s.send_delay_ms > 0 {
            format!(", send delay {} ms after each move", s.send_delay_ms)
        } else {
            String::new()
        },
        cfg.openings_path.as_ref().map_or("none (empty board)".to_string(), |p| format!(
            "{} ({})",
            p.display(),
            openings.len()
        )),
        cfg.seed,
        cfg.out_dir.as_ref().map_or(String::new(), |d| format!(" | records: {}", d.display())),
    );

    let next = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<(u64, anyhow::Result<GameResult>)>();
    let cfg_arc = Arc::new(cfg.clone());
    let openings = Arc::new(openings);
    let pairs = Arc::new(pairs);
    let mut workers = Vec::new();
    for _ in 0..cfg.concurrency.min(total as usize).max(1) {
        let (next, stop, tx) = (next.clone(), stop.clone(), tx.clone());
        let (cfg, openings, pairs) = (cfg_arc.clone(), openings.clone(), pairs.clone());
        workers.push(std::thread::spawn(move || loop {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let g = next.fetch_add(1, Ordering::Relaxed);
            if g >= total {
                break;
            }
            let sch = schedule(g, &pairs, openings.len());
            let (black, white) = (&cfg.engines[sch.black], &cfg.engines[sch.white]);
            let st = &cfg.settings;
            let stones = openings[sch.opening].stones(st.width, st.height);
            let logs = match (&cfg.out_dir, cfg.log) {
                (Some(d), true) => [
                    Some(d.join(format!("game-{:04}-{}.log", g + 1, file_safe(&black.name)))),
                    Some(d.join(format!("game-{:04}-{}.log", g + 1, file_safe(&white.name)))),
                ],
                _ => [None, None],
            };
            let seed = Rng::new(cfg.seed ^ g.wrapping_mul(0x9E37_79B9)).next_u64();
            let r = play_game(st, black, white, &stones, seed, logs);
            if tx.send((g, r)).is_err() {
                break;
            }
        }));
    }
    drop(tx);

    let mut state = MatchState {
        tallies: vec![Tally::default(); pairs.len()],
        half_pairs: HashMap::new(),
        faults: vec![BTreeMap::new(); n],
        reasons: BTreeMap::new(),
        points2: vec![(0, 0); n],
        finished: 0,
        sprt_state: SprtState::Continue,
        sprt_decided: None,
        starts: vec![(0, false); n],
    };
    let live = std::io::stderr().is_terminal();
    let mut first_error: Option<anyhow::Error> = None;
    for (g, r) in rx {
        let res = match r {
            Ok(res) => res,
            Err(e) => {
                stop.store(true, Ordering::Relaxed);
                first_error.get_or_insert(e.context(format!("game {}", g + 1)));
                continue;
            }
        };
        let sch = schedule(g, &pairs, openings.len());
        record_result(&mut state, &sch, &res);
        if let Some(e) = never_starts(&mut state, &cfg, &sch, &res) {
            stop.store(true, Ordering::Relaxed);
            first_error.get_or_insert(e);
        }
        if let Some(dir) = &cfg.out_dir {
            write_records(dir, g, &cfg, &sch, &res)?;
        }
        if live {
            eprint!("\r\x1b[K");
        }
        if !cfg.quiet {
            let score = match res.winner {
                Some(Color::Black) => "1-0",
                Some(Color::White) => "0-1",
                None => "½-½",
            };
            println!(
                "game {:>4}: {} (black) vs {} (white), opening {}: {score} {}, {} moves",
                g + 1,
                names[sch.black],
                names[sch.white],
                sch.opening + 1,
                res.describe(),
                res.moves.len()
            );
        }
        if let Some(sprt) = &cfg.sprt {
            let llr = sprt.llr(&state.tallies[0]);
            if state.sprt_state == SprtState::Continue {
                state.sprt_state = sprt.state(llr);
                if state.sprt_state != SprtState::Continue {
                    state.sprt_decided = Some((state.finished, llr));
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
        if live {
            eprint!("{}", progress_line(&state, &cfg, total));
            let _ = std::io::stderr().flush();
        } else if cfg.quiet && state.finished.is_multiple_of(PROGRESS_EVERY) {
            // Not a terminal (a log file, a script): a plain progress line now and then instead.
            eprintln!("{}", progress_line(&state, &cfg, total));
        }
    }
    for w in workers {
        let _ = w.join();
    }
    if live {
        eprintln!();
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    let (human, json) = summaries(&state, &cfg, &pairs, total);
    print!("{human}");
    println!("{json}");
    if let Some(dir) = &cfg.out_dir {
        std::fs::write(dir.join("summary.json"), format!("{json}\n"))?;
    }
    Ok(())
}

/// Counts start failures; if an engine has failed to start in each of its first `START_FAILURES_ABORT` games,
/// the match is pointless (a wrong path, a missing library): returns an error to stop it.
fn never_starts(
    state: &mut MatchState,
    cfg: &MatchConfig,
    sch: &Scheduled,
    res: &GameResult,
) -> Option<anyhow::Error> {
    for (engine, started) in [(sch.black, res.started[0]), (sch.white, res.started[1])] {
        let (failed, ever) = &mut state.starts[engine];
        if started {
            *ever = true;
        } else {
            *failed += 1;
            if *failed >= START_FAILURES_ABORT && !*ever {
                let why = match &res.reason {
                    EndReason::Fault(f) => format!(" ({f})"),
                    _ => String::new(),
                };
                return Some(anyhow::anyhow!(
                    "engine `{}` fails to start{why}; match stopped",
                    cfg.engines[engine].name
                ));
            }
        }
    }
    None
}

/// A name usable in a file name.
fn file_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn record_result(state: &mut MatchState, sch: &Scheduled, res: &GameResult) {
    state.finished += 1;
    *state.reasons.entry(reason_key(&res.reason)).or_insert(0) += 1;
    // Pairs are (i, j) with i < j: the tally is from the lower-numbered engine's view.
    let first = sch.black.min(sch.white);
    // Half points of the black and white engines.
    let (pb, pw): (u8, u8) = match res.winner {
        Some(Color::Black) => (2, 0),
        Some(Color::White) => (0, 2),
        None => (1, 1),
    };
    state.points2[sch.black].0 += u64::from(pb);
    state.points2[sch.white].0 += u64::from(pw);
    state.points2[sch.black].1 += 1;
    state.points2[sch.white].1 += 1;
    if let Some(w) = res.winner {
        if !matches!(res.reason, EndReason::Five) {
            let loser = if w == Color::Black {
                sch.white
            } else {
                sch.black
            };
            *state.faults[loser]
                .entry(reason_key(&res.reason))
                .or_insert(0) += 1;
        }
    }
    let p_first = if sch.black == first { pb } else { pw };
    let t = &mut state.tallies[sch.pair];
    t.add_game(p_first);
    match state.half_pairs.remove(&sch.block) {
        Some(other) => t.add_pair(other + p_first),
        None => {
            state.half_pairs.insert(sch.block, p_first);
        }
    }
}

fn fmt_elo(v: f64) -> String {
    if v.is_finite() {
        let v = if v == 0.0 { 0.0 } else { v }; // no "-0.0"
        format!("{v:+.1}")
    } else if v > 0.0 {
        "+inf".into()
    } else {
        "-inf".into()
    }
}

fn fmt_err(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.1}")
    } else {
        "inf".into()
    }
}

fn progress_line(state: &MatchState, cfg: &MatchConfig, total: u64) -> String {
    let t = &state.tallies[0];
    let s = t.summary();
    let mut line = format!(
        "[{}/{}] {} vs {}: {}-{}-{}  Elo {} ± {}",
        state.finished,
        total,
        cfg.engines[0].name,
        cfg.engines[1].name,
        t.wins,
        t.losses,
        t.draws,
        fmt_elo(s.elo),
        fmt_err(s.elo_error)
    );
    if let Some(sprt) = &cfg.sprt {
        let (lo, hi) = sprt.bounds();
        line.push_str(&format!("  LLR {:.2} ({:.2}, {:.2})", sprt.llr(t), lo, hi));
    }
    line
}

fn summaries(
    state: &MatchState,
    cfg: &MatchConfig,
    pairs: &[(usize, usize)],
    total: u64,
) -> (String, String) {
    let s = &cfg.settings;
    let mut h = String::new();
    let mut pair_json = Vec::new();
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let t = &state.tallies[k];
        let sm = t.summary();
        let (a, b) = (&cfg.engines[i].name, &cfg.engines[j].name);
        h.push_str(&format!(
            "Score of {a} vs {b}: {} - {} - {}  [{:.3}]  {} games\n",
            t.wins, t.losses, t.draws, sm.score, sm.games
        ));
        h.push_str(&format!(
            "Elo difference: {} ± {} (95%)  LOS: {:.1}%\n",
            fmt_elo(sm.elo),
            fmt_err(sm.elo_error),
            100.0 * sm.los
        ));
        h.push_str(&format!(
            "Game pairs (LL, LD, WL+DD, WD, WW): {:?}\n",
            t.penta
        ));
        pair_json.push(format!(
            "{{\"first\":{},\"second\":{},\"wins\":{},\"losses\":{},\"draws\":{},\"games\":{},\"score\":{},\"elo\":{},\"elo_error\":{},\"los\":{},\"pentanomial\":{:?}}}",
            json_str(a), json_str(b), t.wins, t.losses, t.draws, sm.games, json_num(sm.score),
            json_num(sm.elo), json_num(sm.elo_error), json_num(sm.los), t.penta
        ));
    }
    let mut sprt_json = "null".to_string();
    if let Some(sprt) = &cfg.sprt {
        let t = &state.tallies[0];
        let llr = sprt.llr(t);
        let (lo, hi) = sprt.bounds();
        let verdict = match state.sprt_state {
            SprtState::AcceptH1 => "H1 accepted",
            SprtState::AcceptH0 => "H0 accepted",
            SprtState::Continue => "inconclusive",
        };
        let model = match sprt.model {
            SprtModel::Pentanomial => "pentanomial",
            SprtModel::Trinomial => "trinomial",
        };
        // The games in flight when a bound was reached still finish and count, so the final LLR can lie back
        // inside the bounds: say when the verdict was reached.
        let decided = match state.sprt_decided {
            Some((games, at)) if games < state.finished => {
                let late = state.finished - games;
                let noun = if late == 1 { "game" } else { "games" };
                format!(" at game {games} (LLR {at:.2}; {late} {noun} in flight finished after it)")
            }
            _ => String::new(),
        };
        h.push_str(&format!(
            "SPRT: elo0 {} elo1 {} alpha {} beta {} ({model}): LLR {:.2} ({:.2}, {:.2}) -> {verdict}{decided}\n",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta, llr, lo, hi
        ));
        let (decided_games, decided_llr) = state
            .sprt_decided
            .map_or(("null".to_string(), "null".to_string()), |(g, l)| {
                (g.to_string(), json_num(l))
            });
        sprt_json = format!(
            "{{\"elo0\":{},\"elo1\":{},\"alpha\":{},\"beta\":{},\"model\":\"{model}\",\"llr\":{},\"lower\":{},\"upper\":{},\"result\":\"{verdict}\",\"decided_games\":{decided_games},\"decided_llr\":{decided_llr}}}",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta, json_num(llr), json_num(lo), json_num(hi)
        );
    }
    if cfg.engines.len() > 2 {
        h.push_str("Standings (points / games):\n");
        let mut order: Vec<usize> = (0..cfg.engines.len()).collect();
        order.sort_by_key(|&e| std::cmp::Reverse(state.points2[e].0));
        for e in order {
            let (p2, g) = state.points2[e];
            h.push_str(&format!(
                "  {:<20} {:>6.1} / {}\n",
                cfg.engines[e].name,
                p2 as f64 / 2.0,
                g
            ));
        }
    }
    let reasons: Vec<String> = state
        .reasons
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    h.push_str(&format!("Endings: {}\n", reasons.join(", ")));
    let mut fault_json = Vec::new();
    for (e, f) in state.faults.iter().enumerate() {
        let items: Vec<String> = f
            .iter()
            .map(|(k, v)| format!("{}:{v}", json_str(k)))
            .collect();
        fault_json.push(format!(
            "{}:{{{}}}",
            json_str(&cfg.engines[e].name),
            items.join(",")
        ));
        if !f.is_empty() {
            let words: Vec<String> = f.iter().map(|(k, v)| format!("{k} {v}")).collect();
            h.push_str(&format!(
                "Losses by fault, {}: {}\n",
                cfg.engines[e].name,
                words.join(", ")
            ));
        }
    }
    let mut tc = format!(
        "{} ms/move, {} ms/game, tolerance {} ms",
        s.turn_ms, s.match_ms, s.tolerance_ms
    );
    if s.send_delay_ms > 0 {
        tc.push_str(&format!(
            ", send delay {} ms after each move",
            s.send_delay_ms
        ));
    }
    h.push_str(&format!(
        "Games: {} of {} | TC: {tc} | {} {}x{}\n",
        state.finished,
        total,
        rule_name(s.rule.gomocup_code()),
        s.width,
        s.height
    ));
    if pairs.len() == 1 {
        let t = &state.tallies[0];
        let sm = t.summary();
        let llr = cfg.sprt.as_ref().map_or(String::new(), |sp| {
            let (lo, hi) = sp.bounds();
            format!(", LLR {:.2} ({:.2}, {:.2})", sp.llr(t), lo, hi)
        });
        h.push_str(&format!(
            "Result line: {} vs {}: W-L-D {}-{}-{}, Elo {} ± {}{llr}, {} games, TC {} ms/move{}, {} {}x{}\n",
            cfg.engines[0].name,
            cfg.engines[1].name,
            t.wins,
            t.losses,
            t.draws,
            fmt_elo(sm.elo),
            fmt_err(sm.elo_error),
            sm.games,
            s.turn_ms,
            if s.match_ms > 0 { format!(" + {} ms/game", s.match_ms) } else { String::new() },
            rule_name(s.rule.gomocup_code()),
            s.width,
            s.height
        ));
    }
    let reasons_json: Vec<String> = state
        .reasons
        .iter()
        .map(|(k, v)| format!("{}:{v}", json_str(k)))
        .collect();
    let json = format!(
        "{{\"engines\":[{}],\"rule\":{},\"width\":{},\"height\":{},\"turn_ms\":{},\"match_ms\":{},\"tolerance_ms\":{},\"send_delay_ms\":{},\"seed\":{},\"openings\":{},\"games\":{},\"pairs\":[{}],\"sprt\":{},\"endings\":{{{}}},\"faults\":{{{}}}}}",
        cfg.engines.iter().map(|e| json_str(&e.name)).collect::<Vec<_>>().join(","),
        s.rule.gomocup_code(),
        s.width,
        s.height,
        s.turn_ms,
        s.match_ms,
        s.tolerance_ms,
        s.send_delay_ms,
        cfg.seed,
        cfg.openings_path.as_ref().map_or("null".into(), |p| json_str(&p.display().to_string())),
        state.finished,
        pair_json.join(","),
        sprt_json,
        reasons_json.join(","),
        fault_json.join(","),
    );
    (h, json)
}

fn write_records(
    dir: &Path,
    g: u64,
    cfg: &MatchConfig,
    sch: &Scheduled,
    res: &GameResult,
) -> anyhow::Result<()> {
    let s = &cfg.settings;
    let info = GameInfo {
        width: s.width,
        height: s.height,
        rule_code: s.rule.gomocup_code(),
        black: &cfg.engines[sch.black].name,
        white: &cfg.engines[sch.white].name,
        moves: &res.moves,
        opening_len: res.opening_len,
        black_won: res.winner.map(|c| c == Color::Black),
        reason: &res.describe(),
    };
    let base = dir.join(format!("game-{:04}", g + 1));
    std::fs::write(base.with_extension("psq"), psq_string(&info))?;
    std::fs::write(base.with_extension("sgf"), sgf_string(&info))?;
    Ok(())
}

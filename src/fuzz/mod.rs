//! In-tree fuzzing of the protocol front end (stable Rust has no `cargo fuzz`: this is a seeded,
//! structure-aware random tester that CI runs briefly and `examples/fuzz.rs` runs for as long as
//! asked).
//!
//! - [`gen`]: the input generator (commands, blocks, broken variants, invalid UTF-8, huge lines).
//! - [`parser_target`]: target (a), the command parser.
//! - [`session_target`]: target (b), the whole session (parser, session, engine, search) in
//!   process, every answer checked by the reference [`model`].
//! - [`pipe_target`]: target (c), the real binary over pipes (exit status, memory, hangs).
//!
//! Every case is made from one 64-bit seed, so a finding is reproduced by its seed; the exact bytes
//! are also kept in the [`Finding`] (and written to a file by the runner) for the regression corpus
//! in `fuzz-corpus/`.

pub mod gen;
pub mod model;
pub mod parser_target;
pub mod pipe_target;
pub mod session_target;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::protocol::command::{Command, Parser};

/// The seed of the case being run (for a panic hook: in release builds a panic aborts at once).
pub static CURRENT_SEED: AtomicU64 = AtomicU64::new(0);

/// Counters of one run.
#[derive(Clone, Debug, Default)]
pub struct CaseStats {
    /// Cases finished without a finding.
    pub cases: u64,
    /// Input lines sent.
    pub lines: u64,
    /// Input bytes sent.
    pub bytes: u64,
    /// Commands the parser produced.
    pub commands: u64,
    /// Items or commands whose outcome was checked against an expectation.
    pub checked: u64,
    /// Moves answered (session targets).
    pub moves: u64,
}

/// A broken property, with everything needed to reproduce it.
#[derive(Clone, Debug)]
pub struct Finding {
    /// Which target found it.
    pub target: &'static str,
    /// The case seed (the case is regenerated from it).
    pub seed: u64,
    /// What went wrong.
    pub what: String,
    /// The exact input bytes sent, up to the failure.
    pub input: Vec<u8>,
}

/// The seed of case `i` of a run with base seed `base` (spread out, so neighbouring runs differ).
pub fn case_seed(base: u64, i: u64) -> u64 {
    crate::manager::players::Rng::new(base ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64()
}

/// Parses a whole byte stream the way the brain's reader does (see [`parse_line`]).
pub fn reader_parse(input: &[u8]) -> Vec<Command> {
    let mut parser = Parser::new();
    let mut out = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let (line, next) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        out.extend(parse_line(&mut parser, line));
        rest = next;
    }
    out
}

/// One raw input line as the brain's stdin reader turns it into commands: cut to the reader's
/// bounded length (a longer line is one `Invalid`, or spoils the open block), decoded lossily, fed to `parser`.
pub fn parse_line(parser: &mut Parser, raw: &[u8]) -> Vec<Command> {
    let mut reader = std::io::BufReader::with_capacity(4096, raw.chain(&b"\n"[..]));
    let mut buf = Vec::new();
    match crate::protocol::read_line_bounded(&mut reader, &mut buf, crate::protocol::MAX_LINE_BYTES)
    {
        Ok((true, false)) => parser.feed(&String::from_utf8_lossy(&buf)),
        Ok((true, true)) => parser.too_long(crate::protocol::MAX_LINE_BYTES),
        _ => Vec::new(),
    }
}

/// Unique set size of a process (memory only it has touched: private clean + dirty pages, as
/// GomocupJudge measures), from `/proc/<pid>/smaps_rollup`; None off Linux.
pub fn proc_uss(pid: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    let mut kb = 0u64;
    for l in text.lines() {
        if l.starts_with("Private_Clean:") || l.starts_with("Private_Dirty:") {
            kb += l.split_whitespace().nth(1)?.parse::<u64>().ok()?;
        }
    }
    Some(kb * 1024)
}

/// Which target a run drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The command parser.
    Parser,
    /// The session state machine in process.
    Session,
    /// The real binary over pipes.
    Pipe,
}

impl Target {
    /// Parses a target name.
    pub fn from_name(s: &str) -> Option<Target> {
        match s {
            "parser" => Some(Target::Parser),
            "session" => Some(Target::Session),
            "pipe" => Some(Target::Pipe),
            _ => None,
        }
    }
}

/// What a run is asked to do.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The target.
    pub target: Target,
    /// Base seed.
    pub seed: u64,
    /// Stop after this long...
    pub duration: Option<Duration>,
    /// ...or after this many cases (whichever comes first).
    pub cases: Option<u64>,
    /// Items per case.
    pub items: usize,
    /// Allow megabyte lines and oversized blocks.
    pub big: bool,
    /// Stop at the first finding.
    pub stop_on_finding: bool,
    /// Where findings are written (one file per finding), if anywhere.
    pub findings_dir: Option<PathBuf>,
    /// Print a progress line this often.
    pub progress: Option<Duration>,
    /// Use `seed` itself as the seed of the first case (to rerun one case).
    pub exact_seed: bool,
    /// The brain binary (pipe target).
    pub binary: Option<PathBuf>,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Counters.
    pub stats: CaseStats,
    /// Cases run (with or without findings).
    pub executions: u64,
    /// The findings.
    pub findings: Vec<Finding>,
    /// Wall time.
    pub elapsed: Duration,
    /// Peak resident memory of this process at the end (VmHWM), bytes, if known.
    pub peak_rss: Option<u64>,
    /// Target-specific notes for the summary (e.g. the brains' peak memory).
    pub extra: Option<String>,
}

/// Runs one case of a target.
pub fn run_one(
    target: Target,
    seed: u64,
    opts: &RunOptions,
    st: &mut CaseStats,
) -> Result<(), Finding> {
    match target {
        Target::Parser => parser_target::run_case(seed, opts.items, opts.big, st),
        Target::Session => session_target::run_case(seed, opts.items, opts.big, st),
        Target::Pipe => {
            let default =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/pbrain-pentad");
            let bin = opts.binary.clone().unwrap_or(default);
            pipe_target::run_case(&bin, seed, opts.items, opts.big, st)
        }
    }
}

/// Runs cases until the time or the count is used up.
pub fn run(opts: &RunOptions) -> Report {
    let start = Instant::now();
    let mut rep = Report::default();
    let mut last_progress = start;
    let mut i = 0u64;
    loop {
        if opts.cases.is_some_and(|n| i >= n) || opts.duration.is_some_and(|d| start.elapsed() >= d)
        {
            break;
        }
        let seed = if opts.exact_seed && i == 0 {
            opts.seed
        } else {
            case_seed(opts.seed, i)
        };
        CURRENT_SEED.store(seed, Ordering::SeqCst);
        if let Some(dir) = &opts.findings_dir {
            // An abort that is no panic (e.g. a failed allocation) runs no hook: the seed of the
            // case that was running is left here.
            let _ = std::fs::create_dir_all(dir);
            let _ = std::fs::write(
                dir.join(format!("running-{:?}.seed", opts.target)),
                format!("{seed:#x}\n"),
            );
        }
        i += 1;
        rep.executions += 1;
        if let Err(f) = run_one(opts.target, seed, opts, &mut rep.stats) {
            if let Some(dir) = &opts.findings_dir {
                if let Err(e) = save_finding(dir, &f) {
                    eprintln!("fuzz: could not save a finding: {e}");
                }
            }
            eprintln!(
                "fuzz: FINDING in {} case seed {:#x}: {}",
                f.target, f.seed, f.what
            );
            rep.findings.push(f);
            if opts.stop_on_finding {
                break;
            }
        }
        if let Some(every) = opts.progress {
            if last_progress.elapsed() >= every {
                last_progress = Instant::now();
                eprintln!(
                    "fuzz: {:?} {} cases {} lines {} MB {} findings {:.0}s",
                    opts.target,
                    rep.executions,
                    rep.stats.lines,
                    rep.stats.bytes >> 20,
                    rep.findings.len(),
                    start.elapsed().as_secs_f64()
                );
            }
        }
    }
    rep.elapsed = start.elapsed();
    rep.extra = match opts.target {
        Target::Parser => None,
        Target::Session => Some(format!(
            "slowest answer after STOP: {} ms",
            session_target::MAX_STOP_LATENCY_US.load(Ordering::Relaxed) / 1000
        )),
        Target::Pipe => Some(format!(
            "peak resident memory of a brain process: {} MB",
            pipe_target::PEAK_BRAIN_RSS.load(Ordering::Relaxed) >> 20
        )),
    };
    rep.peak_rss = proc_status_bytes("self", "VmHWM");
    rep
}

/// Writes a finding's input as `<target>-<seed>.txt` (raw bytes) and its description beside it.
pub fn save_finding(dir: &Path, f: &Finding) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{}-{:016x}.txt", f.target, f.seed));
    std::fs::write(&path, &f.input)?;
    let mut note = std::fs::File::create(path.with_extension("why"))?;
    writeln!(note, "{}", f.what)?;
    Ok(path)
}

/// A `kB` field of `/proc/<pid>/status` (e.g. `VmRSS`, `VmHWM`), in bytes; None off Linux.
pub fn proc_status_bytes(pid: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = text
        .lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))?;
    let kb: u64 = line[field.len() + 1..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// The regression corpus: `(file name, bytes)` of every file in `fuzz-corpus/` but its README,
/// sorted by name.
pub fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz-corpus");
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".txt") {
                if let Ok(bytes) = std::fs::read(e.path()) {
                    out.push((name, bytes));
                }
            }
        }
    }
    out.sort();
    out
}

/// One line per finding (seed and what), for test failures and the runner's summary.
pub fn describe(findings: &[Finding]) -> String {
    findings
        .iter()
        .map(|f| format!("{} seed {:#x}: {}\n", f.target, f.seed, f.what))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(target: Target, cases: u64) -> RunOptions {
        RunOptions {
            target,
            seed: 0x5eed,
            duration: None,
            cases: Some(cases),
            items: 40,
            big: true,
            stop_on_finding: true,
            findings_dir: None,
            progress: None,
            exact_seed: false,
            binary: None,
        }
    }

    /// CI's short fuzzing of the parser: a few thousand cases, every property checked.
    #[test]
    fn parser_fuzz_short() {
        let rep = run(&opts(Target::Parser, 1000));
        assert!(rep.findings.is_empty(), "{}", describe(&rep.findings));
        assert_eq!(rep.stats.cases, 1000);
        assert!(rep.stats.checked > 10_000, "{:?}", rep.stats);
    }

    #[test]
    fn corpus_through_the_parser() {
        let corpus = corpus();
        assert!(corpus.len() >= 10, "fuzz-corpus/ not found");
        for (name, bytes) in corpus {
            let cmds = reader_parse(&bytes);
            assert!(!cmds.is_empty(), "{name}");
            for c in &cmds {
                parser_target::check_bounds(std::slice::from_ref(c))
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
    }

    #[test]
    fn megabyte_lines_are_survived() {
        let mut input = b"START 15\n".to_vec();
        for fill in [b'x', b'7', b' ', 0xff] {
            input.extend(std::iter::repeat_n(fill, 3 << 20));
            input.push(b'\n');
        }
        input.extend_from_slice(b"BEGIN\n");
        let cmds = reader_parse(&input);
        assert_eq!(cmds.first(), Some(&Command::Start(15)));
        assert_eq!(cmds.last(), Some(&Command::Begin));
        parser_target::check_bounds(&cmds[1..2]).unwrap();
    }

    /// CI's short fuzzing of the whole session in process.
    #[test]
    fn session_fuzz_short() {
        let mut o = opts(Target::Session, 60);
        o.items = 30;
        let rep = run(&o);
        assert!(rep.findings.is_empty(), "{}", describe(&rep.findings));
        assert_eq!(rep.stats.cases, 60);
        assert!(rep.stats.moves > 40, "{:?}", rep.stats);
    }

    #[test]
    fn corpus_through_the_session() {
        for (name, bytes) in corpus() {
            let mut st = CaseStats::default();
            session_target::replay(&bytes, &mut st).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(st.checked > 0, "{name}");
        }
    }

    #[test]
    fn cases_are_deterministic() {
        let mut a = CaseStats::default();
        let mut b = CaseStats::default();
        let o = opts(Target::Parser, 1);
        run_one(Target::Parser, 42, &o, &mut a).unwrap();
        run_one(Target::Parser, 42, &o, &mut b).unwrap();
        assert_eq!(
            (a.lines, a.bytes, a.commands),
            (b.lines, b.bytes, b.commands)
        );
    }
}

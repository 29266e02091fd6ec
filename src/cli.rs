//! Command-line conventions shared by the binary and its subcommands: `--help`/`-h` print the usage and
//! `--version`/`-V` the version, both on stdout with exit status 0; a wrong command line prints what is wrong
//! and the usage on stderr with exit status 2; any other failure exits 1. With no arguments at all the binary
//! speaks the protocol and none of this applies.

use std::fmt;

/// The binary's own usage (`pbrain-pentad --help`).
pub const MAIN_USAGE: &str = "\
usage: pbrain-pentad                 speak the Gomocup protocol on stdin/stdout (what managers run)
       pbrain-pentad bench [...]     search and board benchmarks
       pbrain-pentad match [...]     play engines against each other (SPRT, round robin)
       pbrain-pentad play [...]      play against Pentad (or any brain) on the terminal
       pbrain-pentad selfplay [...]  self-play games for the evaluation tuner
       pbrain-pentad tune [...]      fit the evaluation table to self-play games
       pbrain-pentad --version

`pbrain-pentad SUBCOMMAND --help` tells more about each subcommand.
";

/// An early end that a command-line parser asks of `main` instead of running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// `--help`, `-h`, `--version`, `-V`: print this on stdout, exit 0.
    Print(String),
    /// A wrong command line: print this (what is wrong, then the usage) on stderr, exit 2.
    Usage(String),
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Print(s) | Exit::Usage(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for Exit {}

/// The `--version` line.
pub fn version() -> String {
    format!("pbrain-pentad {}", env!("CARGO_PKG_VERSION"))
}

/// `Err(Exit::Print)` if `args` ask for the usage (`-h`, `--help`) or the version (`-V`, `--version`).
pub fn check_flags(args: &[String], usage: &str) -> anyhow::Result<()> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return Err(Exit::Print(usage.to_string()).into());
    }
    if args.iter().any(|a| a == "-V" || a == "--version") {
        return Err(Exit::Print(version()).into());
    }
    Ok(())
}

/// A wrong command line: `what` is wrong, followed by the usage.
pub fn usage_error(what: impl fmt::Display, usage: &str) -> anyhow::Error {
    Exit::Usage(format!("pbrain-pentad: {what}\n\n{usage}")).into()
}

/// Runs the binary with `args` (without the program name) and returns its exit status, printing what a
/// help request or an error asks for.
pub fn main_with(args: &[String]) -> u8 {
    // A bad embedded evaluation table is a build defect: say so at start, never fail in play.
    if let Err(e) = crate::eval::table::check_tables() {
        eprintln!("pbrain-pentad: {e:#}");
        return 1;
    }
    let result = match args.first().map(String::as_str) {
        None => crate::protocol::run_stdio(),
        Some("bench") => crate::bench::run(&args[1..]),
        Some("match") => crate::manager::run_match(&args[1..]),
        Some("play") => crate::manager::run_play(&args[1..]),
        Some("selfplay") => crate::train::selfplay::run_selfplay(&args[1..]),
        Some("tune") => crate::train::tune::run_tune(&args[1..]),
        Some(_) => check_flags(&args[..1], MAIN_USAGE).and_then(|()| {
            Err(usage_error(
                format!("unknown subcommand `{}`", args[0]),
                MAIN_USAGE,
            ))
        }),
    };
    match result {
        Ok(()) => 0,
        Err(e) => match e.downcast_ref::<Exit>() {
            Some(Exit::Print(s)) => {
                println!("{}", s.trim_end());
                0
            }
            Some(Exit::Usage(s)) => {
                eprintln!("{}", s.trim_end());
                2
            }
            None => {
                eprintln!("pbrain-pentad: {e:#}");
                1
            }
        },
    }
}

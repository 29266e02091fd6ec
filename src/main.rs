//! `pbrain-pentad`: with no arguments, speaks the Gomocup protocol on stdin/stdout.
//! Subcommands: `bench`, `match`, `play`.

use std::process::ExitCode;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        None => pentad::protocol::run_stdio(),
        Some("bench") => pentad::bench::run(&args[1..]),
        Some("match") => pentad::manager::run_match(&args[1..]),
        Some("play") => pentad::manager::run_play(&args[1..]),
        Some(other) => Err(anyhow::anyhow!(
            "unknown subcommand `{other}` (expected bench, match or play; no arguments runs the brain)"
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pbrain-pentad: {e:#}");
            ExitCode::FAILURE
        }
    }
}

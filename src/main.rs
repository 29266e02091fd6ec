//! `pbrain-pentad`: with no arguments, speaks the Gomocup protocol on stdin/stdout.
//! Subcommands: `bench`, `match`, `play`; `--help` and `--version` (see `pentad::cli`).

use std::process::ExitCode;

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    ExitCode::from(pentad::cli::main_with(&args))
}

//! The Gomocup protocol front end: command parsing, session state, the only writer of stdout.

pub mod command;
pub mod output;

/// Runs the brain on stdin/stdout until `END` or end of input.
pub fn run_stdio() -> anyhow::Result<()> {
    anyhow::bail!("protocol front end not built yet")
}

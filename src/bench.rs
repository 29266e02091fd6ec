//! `pbrain-pentad bench`: fixed positions searched to a fixed depth; prints `N nodes M nps`.

/// Runs the benchmark with the given command-line arguments.
pub fn run(_args: &[String]) -> anyhow::Result<()> {
    anyhow::bail!("bench not built yet")
}

//! The manager side of the protocol: engine matches with statistics, and human play in the terminal.

/// Runs `pbrain-pentad match …`.
pub fn run_match(_args: &[String]) -> anyhow::Result<()> {
    anyhow::bail!("match runner not built yet")
}

/// Runs `pbrain-pentad play …`.
pub fn run_play(_args: &[String]) -> anyhow::Result<()> {
    anyhow::bail!("play not built yet")
}

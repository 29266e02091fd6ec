//! `pbrain-pentad bench`: fixed positions searched to a fixed depth; prints `N nodes M nps`.

/// Runs the benchmark with the given command-line arguments.
pub fn run(args: &[String]) -> anyhow::Result<()> {
    // `bench board …`: the board core's make+undo benchmark (owner: core).
    if args.first().map(String::as_str) == Some("board") {
        return crate::board::bench::run(&args[1..]);
    }
    anyhow::bail!("bench not built yet")
}

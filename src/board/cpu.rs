//! Which copy of the move update this CPU runs. The binary is built for the CPU of the machine that builds it
//! (`.cargo/config.toml`) or, for a package meant for any machine, for baseline x86-64; either way the move
//! update (the hot loop of make) is also compiled for x86-64-v3 (AVX2, BMI1/2, LZCNT, FMA) and used when the
//! CPU has those features, so a package runs on every x86-64 CPU and still gets the v3 speed where it can.
//! `PENTAD_CPU=baseline` in the environment forces the baseline copy (to test it on a v3 machine).

use std::sync::OnceLock;

/// The copy of the move update in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Compiled for x86-64-v3, chosen because the CPU has AVX2, BMI1/2, LZCNT and FMA.
    V3,
    /// Compiled for the build's target CPU only (baseline x86-64 in a portable build).
    Baseline,
}

/// The path for this process (detected once).
pub fn path() -> Path {
    static PATH: OnceLock<Path> = OnceLock::new();
    *PATH.get_or_init(|| {
        if std::env::var("PENTAD_CPU").is_ok_and(|v| v.eq_ignore_ascii_case("baseline")) {
            return Path::Baseline;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("fma")
        {
            return Path::V3;
        }
        Path::Baseline
    })
}

/// A short name of the path for the `ABOUT` line: `x86-64-v3` or `baseline`.
pub fn name() -> &'static str {
    match path() {
        Path::V3 => "x86-64-v3",
        Path::Baseline => "baseline",
    }
}

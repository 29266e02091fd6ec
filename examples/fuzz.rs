//! The long-running fuzzer: `cargo run --release --example fuzz -- --target parser --seconds 600`.
//!
//! Options: `--target parser|session|pipe`, `--seconds S`, `--cases N`, `--seed N` (default: from
//! the clock, printed), `--items N` per case, `--small` (no megabyte lines), `--findings DIR`
//! (default `fuzz-findings/`), `--keep-going` (do not stop at the first finding), `--binary PATH`
//! (pipe target; default `target/release/pbrain-pentad`).
//! A panic aborts the process (release profile): the hook prints the case seed first, and
//! `--cases 1 --seed-exact SEED` runs exactly that case again.

use std::sync::atomic::Ordering;
use std::time::Duration;

use pentad::fuzz::{describe, run, RunOptions, Target, CURRENT_SEED};

fn main() {
    if let Err(e) = real_main() {
        eprintln!("fuzz: {e:#}");
        std::process::exit(2);
    }
}

fn real_main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut opts = RunOptions {
        target: Target::Parser,
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1),
        duration: None,
        cases: None,
        items: 40,
        big: true,
        stop_on_finding: true,
        findings_dir: Some("fuzz-findings".into()),
        progress: Some(Duration::from_secs(30)),
        exact_seed: false,
        binary: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || {
            it.next()
                .cloned()
                .ok_or_else(|| anyhow::anyhow!("{a} needs a value"))
        };
        match a.as_str() {
            "--target" => {
                let v = val()?;
                opts.target =
                    Target::from_name(&v).ok_or_else(|| anyhow::anyhow!("unknown target {v}"))?;
            }
            "--seconds" => opts.duration = Some(Duration::from_secs_f64(val()?.parse()?)),
            "--cases" => opts.cases = Some(val()?.parse()?),
            "--seed" => opts.seed = parse_u64(&val()?)?,
            "--seed-exact" => {
                opts.seed = parse_u64(&val()?)?;
                opts.exact_seed = true;
            }
            "--items" => opts.items = val()?.parse()?,
            "--small" => opts.big = false,
            "--findings" => opts.findings_dir = Some(val()?.into()),
            "--keep-going" => opts.stop_on_finding = false,
            "--binary" => opts.binary = Some(val()?.into()),
            other => anyhow::bail!("unknown option {other}"),
        }
    }
    if opts.duration.is_none() && opts.cases.is_none() {
        opts.duration = Some(Duration::from_secs(60));
    }
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        eprintln!(
            "fuzz: PANIC in case seed {:#x} (rerun: --cases 1 --seed-exact {:#x})",
            CURRENT_SEED.load(Ordering::SeqCst),
            CURRENT_SEED.load(Ordering::SeqCst)
        );
        default_hook(info);
    }));
    println!(
        "fuzz: target {:?} seed {:#x} items/case {} big {}",
        opts.target, opts.seed, opts.items, opts.big
    );
    let rep = run(&opts);
    let secs = rep.elapsed.as_secs_f64().max(1e-9);
    println!(
        "fuzz: {:?}: {} executions in {:.1} s ({:.0}/s), {} lines, {:.1} MB, {} commands, {} checked, {} moves, peak RSS {} MB, {} findings",
        opts.target,
        rep.executions,
        secs,
        rep.executions as f64 / secs,
        rep.stats.lines,
        rep.stats.bytes as f64 / 1e6,
        rep.stats.commands,
        rep.stats.checked,
        rep.stats.moves,
        rep.peak_rss.map_or(0, |b| b >> 20),
        rep.findings.len()
    );
    if let Some(extra) = &rep.extra {
        println!("fuzz: {extra}");
    }
    if !rep.findings.is_empty() {
        print!("{}", describe(&rep.findings));
        std::process::exit(1);
    }
    Ok(())
}

fn parse_u64(s: &str) -> anyhow::Result<u64> {
    Ok(match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16)?,
        None => s.parse()?,
    })
}

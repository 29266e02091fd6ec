//! The command line: `--help`, `-h` and `--version` for the binary and every subcommand (stdout, exit 0), a
//! wrong option (usage on stderr, exit 2), the protocol mode with no arguments (nothing on stderr), and the
//! training pipeline: `selfplay` writes a game file that `tune` reads and fits, the same arguments give the
//! same file and the same table, a killed `selfplay` leaves a readable file, and a file that is not a game
//! file is an error naming it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pentad::train::data::read_games;

const BIN: &str = env!("CARGO_BIN_EXE_pbrain-pentad");

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// Runs the binary in protocol mode on `input` (with `PENTAD_CPU` set to `cpu`, if given) to its exit.
fn converse(cpu: Option<&str>, input: &[u8]) -> Output {
    let mut cmd = Command::new(BIN);
    if let Some(v) = cpu {
        cmd.env("PENTAD_CPU", v);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn help_and_version_for_the_binary_and_every_subcommand() {
    let version = format!("pbrain-pentad {}", env!("CARGO_PKG_VERSION"));
    for sub in [
        None,
        Some("bench"),
        Some("match"),
        Some("play"),
        Some("selfplay"),
        Some("tune"),
    ] {
        for flag in ["--help", "-h", "--version", "-V"] {
            let args: Vec<&str> = sub.into_iter().chain([flag]).collect();
            let o = run(&args);
            assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
            assert!(o.stderr.is_empty(), "{args:?}: stderr {}", text(&o.stderr));
            let out = text(&o.stdout);
            if flag.contains('V') || flag == "--version" {
                assert_eq!(out.trim_end(), version, "{args:?}");
            } else {
                let want = match sub {
                    None => "usage: pbrain-pentad ".to_string(),
                    Some(s) => format!("usage: pbrain-pentad {s}"),
                };
                assert!(out.starts_with(&want), "{args:?}: {out}");
            }
        }
    }
}

#[test]
fn a_wrong_command_line_prints_the_usage_on_stderr_and_exits_2() {
    for args in [
        &["--frobnicate"][..],
        &["frobnicate"],
        &["bench", "--frobnicate"],
        &["bench", "deep"],
        &["bench", "6", "7"],
        &["bench", "depth", "-1"],
        &["bench", "board", "16"],
        &["match", "--frobnicate", "greedy", "greedy"],
        &["match", "greedy"],
        &["match", "--tc", "abc", "greedy", "greedy"],
        &["play", "--frobnicate"],
        &["play", "--color", "green"],
        &["selfplay", "--games", "3"],
        &["selfplay", "--out", "x.bin", "--rule", "77"],
        &["tune", "--epochs", "many", "x.bin"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}: stdout {}", text(&o.stdout));
        let err = text(&o.stderr);
        assert!(err.starts_with("pbrain-pentad: "), "{args:?}: {err}");
        assert!(err.contains("\nusage: pbrain-pentad"), "{args:?}: {err}");
    }
}

#[test]
fn no_arguments_speaks_the_protocol_with_a_silent_stderr() {
    let o = converse(
        None,
        b"START 15\nINFO timeout_turn 200\nBEGIN\nTURN 0,0\nFROB\nTURN 99,99\nEND\n",
    );
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with("MESSAGE ")).collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert_eq!(lines[0], "OK");
    assert!(lines[3].starts_with("UNKNOWN "), "{out}");
    assert!(lines[4].starts_with("ERROR "), "{out}");
    assert!(o.stderr.is_empty(), "stderr: {}", text(&o.stderr));
}

#[test]
fn the_baseline_cpu_path_can_be_forced_and_plays() {
    for (env, want) in [(Some("baseline"), Some("baseline")), (None, None)] {
        let o = converse(
            env,
            b"ABOUT\nSTART 15\nINFO timeout_turn 100\nINFO show_detail 0\nBEGIN\nTURN 0,0\nEND\n",
        );
        assert_eq!(o.status.code(), Some(0));
        let out = text(&o.stdout);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        let cpu = lines[0]
            .rsplit_once(", cpu=\"")
            .map(|(_, c)| c.trim_end_matches('"'));
        match want {
            Some(w) => assert_eq!(cpu, Some(w), "{out}"),
            None => assert!(matches!(cpu, Some("baseline" | "x86-64-v3")), "{out}"),
        }
        assert!(lines[2].contains(',') && lines[3].contains(','), "{out}");
    }
}

/// A scratch folder of this test process.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pentad-train-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn selfplay_then_tune_is_reproducible() {
    let dir = scratch("pipeline");
    let (a, b) = (dir.join("a.bin"), dir.join("b.bin"));
    for (file, threads) in [(&a, "2"), (&b, "1")] {
        let o = run(&[
            "selfplay",
            "--out",
            path(file),
            "--games",
            "12",
            "--rule",
            "4",
            "--nodes",
            "300",
            "--size",
            "15,12",
            "--seed",
            "7",
            "--threads",
            threads,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains("selfplay: 12 games"),
            "{}",
            text(&o.stderr)
        );
    }
    let bytes = std::fs::read(&a).expect("written");
    assert_eq!(
        bytes,
        std::fs::read(&b).expect("written"),
        "threads change nothing"
    );
    let games = read_games(&a).expect("readable");
    assert_eq!(games.len(), 12);
    assert!(games.iter().all(|g| g.rule == pentad::board::Rule::Renju));
    let (t1, t2) = (dir.join("t1.txt"), dir.join("t2.txt"));
    for t in [&t1, &t2] {
        let o = run(&[
            "tune",
            "--epochs",
            "20",
            "--holdout",
            "4",
            "--out",
            path(t),
            path(&a),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(out.contains("held-out loss"), "{out}");
    }
    let table = std::fs::read_to_string(&t1).expect("table written");
    assert_eq!(
        table,
        std::fs::read_to_string(&t2).expect("table written"),
        "same table bit for bit"
    );
    let (rule, _) = pentad::eval::table::Weights::parse(&table).expect("the table loads");
    assert_eq!(rule, "renju");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_killed_selfplay_leaves_a_readable_file() {
    let dir = scratch("killed");
    let file = dir.join("games.bin");
    let mut child = Command::new(BIN)
        .args([
            "selfplay",
            "--out",
            path(&file),
            "--games",
            "100000",
            "--nodes",
            "200",
            "--size",
            "9",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    // Wait for a few records, then kill it wherever it is.
    let t = Instant::now();
    while std::fs::metadata(&file).map_or(0, |m| m.len()) < 2000
        && t.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("killed");
    child.wait().expect("reaped");
    let games = read_games(&file).expect("every record on disk reads");
    assert!(!games.is_empty());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tune_names_a_bad_file() {
    let dir = scratch("bad");
    let file = dir.join("notes.txt");
    std::fs::write(&file, "not a game file\n").expect("written");
    let o = run(&["tune", path(&file)]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("notes.txt") && err.contains("not a Pentad game file"),
        "{err}"
    );
    let o = run(&["tune"]);
    assert_eq!(o.status.code(), Some(2), "no file is a usage error");
    std::fs::remove_dir_all(&dir).ok();
}

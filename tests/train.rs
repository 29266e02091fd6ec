//! The training pipeline through the binary: `selfplay` writes a game file that `tune` reads and fits, the
//! same arguments give the same file and the same table, a killed `selfplay` leaves a readable file, and a
//! file that is not a game file is an error naming it.

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

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
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

//! The command line: `--help`, `-h` and `--version` for the binary and every subcommand (stdout, exit 0), a
//! wrong option (usage on stderr, exit 2), and the protocol mode with no arguments (nothing on stderr).

use std::io::Write;
use std::process::{Command, Output, Stdio};

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

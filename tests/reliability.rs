//! Reliability of the real `pbrain-pentad` binary (issue 6): faults (stdin EOF and stdout closed
//! mid-search, SIGTERM, a manager that writes ahead of the answers), memory (`INFO max_memory`
//! honoured through a whole game, measured from /proc), the fuzz regression corpus and a short
//! fuzz run over pipes. The long runs are `cargo run --release --example fuzz` and the ignored
//! tests here (`cargo test --release --test reliability -- --ignored`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use pentad::fuzz::model::{parse_move, Model};
use pentad::fuzz::{
    corpus, describe, pipe_target, proc_status_bytes, proc_uss, reader_parse, run, CaseStats,
    RunOptions, Target,
};

const BIN: &str = env!("CARGO_BIN_EXE_pbrain-pentad");

/// A brain process with its output read on a thread (so a silent brain can be timed out).
struct Brain {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Option<Receiver<String>>,
}

impl Brain {
    fn spawn() -> Brain {
        let mut b = Brain::spawn_raw();
        let out = b.child.stdout.take().unwrap();
        b.lines = Some(read_lines(out));
        b
    }

    /// Spawned with stdout left in `child.stdout` (for the closed-stdout test).
    fn spawn_raw() -> Brain {
        let mut child = Command::new(BIN)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the brain");
        let stdin = child.stdin.take();
        Brain {
            child,
            stdin,
            lines: None,
        }
    }

    fn pid(&self) -> String {
        self.child.id().to_string()
    }

    fn send(&mut self, text: &str) {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(text.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
    }

    /// The next line that is not MESSAGE/DEBUG, within `limit`.
    fn answer(&mut self, limit: Duration) -> Option<String> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.as_ref().unwrap().recv_timeout(left) {
                Ok(l) if l.starts_with("MESSAGE ") || l.starts_with("DEBUG ") => continue,
                Ok(l) => return Some(l),
                Err(_) => return None,
            }
        }
    }

    fn mv(&mut self, limit: Duration) -> (i64, i64) {
        let l = self.answer(limit).expect("a move in time");
        parse_move(&l).unwrap_or_else(|| panic!("not a move: {l:?}"))
    }

    /// Waits for the process to end; its exit status, or None if it is still running at `limit`.
    fn exit_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return Some(s);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// All remaining output lines (MESSAGE/DEBUG removed) until the brain closes stdout.
    fn rest(&mut self, limit: Duration) -> Vec<String> {
        let deadline = Instant::now() + limit;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.as_ref().unwrap().recv_timeout(left) {
                Ok(l) if l.starts_with("MESSAGE ") || l.starts_with("DEBUG ") => {}
                Ok(l) => out.push(l),
                Err(RecvTimeoutError::Disconnected) => return out,
                Err(RecvTimeoutError::Timeout) => panic!("the brain kept its output open: {out:?}"),
            }
        }
    }
}

impl Drop for Brain {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_lines(out: ChildStdout) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

fn assert_clean_exit(s: Option<std::process::ExitStatus>, what: &str) {
    let s = s.unwrap_or_else(|| panic!("{what}: the brain did not exit in time"));
    assert!(s.success(), "{what}: exit status {s}");
}

/// A position where the brain thinks for its whole turn (no instant move).
fn start_long_search(b: &mut Brain, turn_ms: u64) {
    b.send("INFO show_detail 1");
    b.send("START 20");
    assert_eq!(b.answer(Duration::from_secs(5)).as_deref(), Some("OK"));
    b.send(&format!("INFO timeout_turn {turn_ms}"));
    b.send("INFO timeout_match 0");
    b.send("TURN 10,10");
    let m = b.mv(Duration::from_secs(5) + Duration::from_millis(turn_ms));
    let far = if m.0 < 10 { (15, 15) } else { (4, 4) };
    b.send(&format!("TURN {},{}", far.0, far.1));
    std::thread::sleep(Duration::from_millis(150));
}

// ---------------------------------------------------------------------------------------------
// Faults

#[test]
fn stdin_eof_mid_search_answers_and_exits() {
    let mut b = Brain::spawn();
    start_long_search(&mut b, 30_000);
    let t = Instant::now();
    b.stdin = None;
    let rest = b.rest(Duration::from_secs(3));
    assert!(
        rest.len() == 1 && parse_move(&rest[0]).is_some(),
        "{rest:?}"
    );
    assert_clean_exit(b.exit_within(Duration::from_secs(2)), "EOF mid-search");
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "took {:?}",
        t.elapsed()
    );
}

#[test]
fn stdout_closed_mid_search_exits() {
    let mut b = Brain::spawn_raw();
    let mut out = BufReader::new(b.child.stdout.take().unwrap());
    b.send("START 20");
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim_end(), "OK");
    b.send("INFO timeout_turn 1500");
    b.send("TURN 10,10");
    std::thread::sleep(Duration::from_millis(100));
    drop(out); // the manager is gone
               // The brain notices at its next write (a MESSAGE or the move) and ends quietly.
    assert_clean_exit(b.exit_within(Duration::from_secs(4)), "stdout closed");
}

#[test]
fn sigterm_mid_search_exits() {
    let mut b = Brain::spawn();
    start_long_search(&mut b, 30_000);
    let t = Instant::now();
    let ok = Command::new("kill")
        .args(["-TERM", &b.pid()])
        .status()
        .unwrap();
    assert!(ok.success());
    let s = b.exit_within(Duration::from_secs(2));
    assert!(s.is_some(), "still running {:?} after SIGTERM", t.elapsed());
}

#[test]
fn end_mid_search_answers_and_exits() {
    let mut b = Brain::spawn();
    start_long_search(&mut b, 30_000);
    let t = Instant::now();
    b.send("END");
    b.send("ABOUT"); // after END: never looked at
    let rest = b.rest(Duration::from_secs(2));
    assert!(
        rest.len() == 1 && parse_move(&rest[0]).is_some(),
        "{rest:?}"
    );
    assert_clean_exit(b.exit_within(Duration::from_millis(1000)), "END mid-search");
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "took {:?}",
        t.elapsed()
    );
}

/// A manager that writes the next commands before reading the answers (all in one write, even
/// while the brain thinks): every command is answered, in order, nothing lost or duplicated.
/// (Each game is cleared with an empty YXBOARD: a RESTART or START would drop the move of a search
/// it interrupts, by design.)
#[test]
fn commands_written_ahead_are_all_answered() {
    let mut script = String::from("INFO timeout_turn 30\nSTART 15\n");
    for i in 0..40 {
        script.push_str("BEGIN\nABOUT\nINFO time_left 100000\n");
        script.push_str(&format!(
            "TURN {},{}\nYXSHOWFORBID\nYXBOARD\nDONE\n",
            i % 3,
            14 - i % 4
        ));
    }
    script.push_str("YXBOARD\nDONE\nBEGIN\n");
    let mut b = Brain::spawn();
    b.stdin
        .as_mut()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    b.stdin = None; // and end of input right behind them
    let lines = b.rest(Duration::from_secs(60));
    assert_clean_exit(b.exit_within(Duration::from_secs(2)), "EOF after a batch");
    let mut model = Model::new(false);
    let mut i = 0;
    for cmd in reader_parse(script.as_bytes()) {
        i += model
            .check(&cmd, &lines[i..])
            .unwrap_or_else(|e| panic!("{cmd:?}: {e}; answers from {i}: {:?}", &lines[i..]));
    }
    assert_eq!(i, lines.len(), "stray lines: {:?}", &lines[i..]);
    assert_eq!(lines.len(), 1 + 40 * 4 + 1);
}

// ---------------------------------------------------------------------------------------------
// Memory

/// Plays a whole game against a second brain process under `INFO max_memory`; returns the peak
/// resident set (VmHWM) and the largest USS seen after any move, over both processes.
fn game_memory(
    max_memory: u64,
    hash_kb: Option<u64>,
    turn_ms: u64,
    size: u32,
    max_moves: usize,
) -> (u64, u64, usize) {
    let mut brains = [Brain::spawn(), Brain::spawn()];
    for b in brains.iter_mut() {
        b.send(&format!("START {size}"));
        assert_eq!(b.answer(Duration::from_secs(5)).as_deref(), Some("OK"));
        b.send(&format!("INFO max_memory {max_memory}"));
        if let Some(kb) = hash_kb {
            b.send(&format!("INFO hash_size {kb}"));
        }
        b.send(&format!("INFO timeout_turn {turn_ms}"));
        b.send("INFO timeout_match 0");
        b.send("INFO rule 1");
    }
    let limit = Duration::from_millis(turn_ms + 3000);
    brains[0].send("BEGIN");
    let mut last = brains[0].mv(limit);
    let (mut peak_rss, mut peak_uss) = (0u64, 0u64);
    let mut moves = 1;
    let mut side = 1;
    while moves < max_moves {
        let b = &mut brains[side];
        b.send(&format!("TURN {},{}", last.0, last.1));
        let Some(l) = b.answer(limit) else {
            panic!("no answer at move {moves}")
        };
        if l.starts_with("ERROR") {
            break; // board full
        }
        last = parse_move(&l).unwrap_or_else(|| panic!("not a move: {l:?}"));
        moves += 1;
        peak_rss = peak_rss.max(proc_status_bytes(&b.pid(), "VmHWM").unwrap_or(0));
        peak_uss = peak_uss.max(proc_uss(&b.pid()).unwrap_or(0));
        side = 1 - side;
    }
    (peak_rss, peak_uss, moves)
}

#[test]
fn max_memory_is_honoured_through_a_game() {
    // Even when hash_size asks for 4 GB, the 350 MB limit decides.
    let (rss, uss, moves) = game_memory(367_001_600, Some(4 << 20), 60, 20, 120);
    eprintln!(
        "max_memory 367001600: {moves} moves, peak RSS {} MB, peak USS {} MB",
        rss >> 20,
        uss >> 20
    );
    assert!(moves >= 20);
    assert!(rss > 0 && rss < 350 << 20, "peak RSS {rss}");
    assert!(uss < 350 << 20, "peak USS {uss}");
}

#[test]
fn small_max_memory_is_honoured() {
    let (rss, uss, _) = game_memory(48 << 20, Some(1 << 20), 60, 15, 40);
    eprintln!(
        "max_memory 48 MB: peak RSS {} MB, peak USS {} MB",
        rss >> 20,
        uss >> 20
    );
    assert!(rss < 48 << 20, "peak RSS {} MB", rss >> 20);
}

/// The long version (minutes): 1 s per move, so the hash table really fills.
#[test]
#[ignore]
fn max_memory_whole_game_long() {
    let (rss, uss, moves) = game_memory(367_001_600, Some(4 << 20), 1000, 20, 400);
    eprintln!(
        "max_memory 367001600, 1 s/move: {moves} moves, peak RSS {} MB, peak USS {} MB",
        rss >> 20,
        uss >> 20
    );
    assert!(rss < 350 << 20 && uss < 350 << 20);
}

/// `INFO hash_size` values no machine can give must not crash the brain (a fuzz finding).
#[test]
fn absurd_hash_size_does_not_crash() {
    for kb in ["1073741824", "9223372036854775807", "-5", "0"] {
        let mut b = Brain::spawn();
        b.send(&format!("INFO hash_size {kb}"));
        b.send("INFO timeout_turn 50");
        b.send("START 15");
        assert_eq!(b.answer(Duration::from_secs(5)).as_deref(), Some("OK"));
        b.send("TURN 7,7");
        b.mv(Duration::from_secs(5));
        b.send("TURN 0,0");
        b.mv(Duration::from_secs(5));
        b.send("END");
        assert_clean_exit(b.exit_within(Duration::from_secs(1)), kb);
    }
}

// ---------------------------------------------------------------------------------------------
// Fuzz corpus and a short fuzz run over pipes

#[test]
fn corpus_through_the_binary() {
    for (name, bytes) in corpus() {
        let mut st = CaseStats::default();
        pipe_target::replay(BIN.as_ref(), &bytes, &mut st)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(st.checked > 0, "{name}");
    }
}

#[test]
fn fuzz_pipe_short() {
    let rep = run(&RunOptions {
        target: Target::Pipe,
        seed: 0x919e,
        duration: None,
        cases: Some(12),
        items: 30,
        big: true,
        stop_on_finding: true,
        findings_dir: None,
        progress: None,
        exact_seed: false,
        binary: Some(BIN.into()),
    });
    assert!(rep.findings.is_empty(), "{}", describe(&rep.findings));
    assert_eq!(rep.stats.cases, 12);
    assert!(rep.stats.moves > 10, "{:?}", rep.stats);
}

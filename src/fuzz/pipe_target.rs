//! Fuzz target (c): the real `pbrain-pentad` binary over pipes, as a manager runs it.
//!
//! Each case starts a fresh brain process, writes generated items to its stdin and reads its
//! stdout on a separate thread. After an item the driver usually sends `ABOUT` as a sentinel and
//! waits for its answer (answers come in command order, so everything before it has been
//! answered); sometimes it writes on without waiting. A search that runs longer than
//! [`STOP_AFTER`] gets `YXSTOP`, as c-gomoku-cli sends on a soft timeout. All answers are checked
//! by the [`Model`] (lenient only about *when* a deferred `INFO` problem is reported, since over
//! pipes a STOP may land before or after the search ends). Before a valid `START`/`RECTSTART`/
//! `RESTART` the driver waits for all answers (such a command drops the move of a search it
//! interrupts, and over pipes which one that is is a race). The case ends with `END` (the process
//! answers what came before it at once, then exits) or by closing stdin (it must answer what is
//! queued, then exit). The exit
//! status must be clean (a panic aborts: SIGABRT) and the peak resident memory is recorded.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::gen::{Generator, Hints};
use super::model::Model;
use super::{parse_line, proc_status_bytes, CaseStats, Finding};
use crate::manager::players::Rng;
use crate::protocol::command::{Command, Parser};
use crate::protocol::session::starts_a_game;

/// How long the driver waits for answers before it sends `YXSTOP`.
pub const STOP_AFTER: Duration = Duration::from_millis(60);
/// No output line at all for this long after a `YXSTOP` is a hang.
pub const HANG_AFTER: Duration = Duration::from_secs(5);
/// After `END` the process must be gone within this (managers kill after 0.5-0.7 s).
pub const EXIT_WITHIN: Duration = Duration::from_millis(1000);
/// A brain over this much resident memory is a finding (the Gomocup limit is 350 MB).
pub const MEMORY_LIMIT: u64 = 350 << 20;

/// Peak resident memory (VmHWM) of any brain process seen, bytes.
pub static PEAK_BRAIN_RSS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

struct Brain {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Result<String, String>>,
    pid: String,
}

impl Brain {
    fn spawn(binary: &Path) -> Result<Brain, String> {
        let mut child = Process::new(binary)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) => return,
                    Ok(_) => {
                        let line = if buf.last() != Some(&b'\n') {
                            Err(format!(
                                "unterminated output line {:?}",
                                String::from_utf8_lossy(&buf)
                            ))
                        } else {
                            buf.pop();
                            String::from_utf8(buf.clone())
                                .map_err(|_| "output not UTF-8".to_string())
                        };
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                    Err(_) => return,
                }
            }
        });
        let pid = child.id().to_string();
        let stdin = child.stdin.take();
        Ok(Brain {
            child,
            stdin,
            lines,
            pid,
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        let w = self.stdin.as_mut().ok_or("stdin already closed")?;
        w.write_all(bytes)
            .and_then(|_| w.flush())
            .map_err(|e| format!("writing to the brain failed (did it die?): {e}"))
    }

    fn peak_rss(&self) -> Option<u64> {
        proc_status_bytes(&self.pid, "VmHWM")
    }

    /// Waits for the process to end; Err if it does not within `limit` or ends badly.
    fn wait_exit(&mut self, limit: Duration) -> Result<(), String> {
        let deadline = Instant::now() + limit;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    return if status.success() {
                        Ok(())
                    } else {
                        Err(format!("the brain exited badly: {status}"))
                    };
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2))
                }
                Ok(None) => return Err(format!("the brain did not exit within {limit:?}")),
                Err(e) => return Err(format!("waiting for the brain: {e}")),
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

struct Driver {
    brain: Brain,
    parser: Parser,
    model: Model,
    pending: Vec<Command>,
    lines: Vec<String>,
    input: Vec<u8>,
}

impl Driver {
    fn write_line(&mut self, raw: &[u8], st: &mut CaseStats) -> Result<(), String> {
        if self.pending.contains(&Command::End) {
            return Ok(()); // the brain is gone (or going): nothing more to say
        }
        let mut bytes = raw.to_vec();
        bytes.push(b'\n');
        let cmds = parse_line(&mut self.parser, raw);
        if cmds.iter().any(starts_a_game) && !self.pending.is_empty() {
            self.sync(st)?;
        }
        self.input.extend_from_slice(&bytes);
        st.lines += 1;
        st.bytes += bytes.len() as u64;
        for cmd in cmds {
            st.commands += 1;
            self.pending.push(cmd);
        }
        self.brain.write(&bytes)
    }

    /// Sends `ABOUT`, waits for its answer (so for every answer before it) and checks them all.
    fn sync(&mut self, st: &mut CaseStats) -> Result<(), String> {
        self.input.extend_from_slice(b"ABOUT\n");
        st.lines += 1;
        st.bytes += 6;
        st.commands += 1;
        self.pending.push(Command::About);
        self.brain.write(b"ABOUT\n")?;
        let n = self.abouts_pending();
        self.collect(Some(n))?;
        self.check(st)
    }

    /// Collects output until `abouts` ABOUT answers have arrived (or, with `None`, until the
    /// process closes its stdout). Stops slow searches; reports hangs.
    fn collect(&mut self, abouts: Option<usize>) -> Result<(), String> {
        let mut last_line = Instant::now();
        let mut last_stop: Option<Instant> = None;
        loop {
            let seen = self
                .lines
                .iter()
                .filter(|l| l.starts_with("name=\""))
                .count();
            if abouts.is_some_and(|n| seen >= n) {
                return Ok(());
            }
            let wait = match last_stop {
                Some(_) => STOP_AFTER,
                None => STOP_AFTER.saturating_sub(last_line.elapsed()),
            };
            match self.brain.lines.recv_timeout(wait) {
                Ok(line) => {
                    let line = line?;
                    if line.is_empty()
                        || line != line.trim_end()
                        || line.contains(|c: char| c.is_control())
                    {
                        return Err(format!("malformed output line {line:?}"));
                    }
                    if !(line.starts_with("MESSAGE ") || line.starts_with("DEBUG ")) {
                        self.lines.push(line);
                    }
                    last_line = Instant::now();
                }
                Err(RecvTimeoutError::Timeout) => {
                    if last_line.elapsed() > HANG_AFTER {
                        return Err(format!("hang: no output for {HANG_AFTER:?} despite YXSTOP"));
                    }
                    if abouts.is_some() || self.brain.stdin.is_some() {
                        // Not recorded as a command: it answers nothing either way.
                        self.input.extend_from_slice(b"YXSTOP\n");
                        self.brain.write(b"YXSTOP\n")?;
                    }
                    last_stop = Some(Instant::now());
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return match abouts {
                        None => Ok(()),
                        Some(_) => Err("the brain closed its output (crashed?)".into()),
                    };
                }
            }
        }
    }

    /// Checks the collected lines against the pending commands.
    fn check(&mut self, st: &mut CaseStats) -> Result<(), String> {
        let lines = std::mem::take(&mut self.lines);
        let pending = std::mem::take(&mut self.pending);
        let mut i = 0;
        for cmd in &pending {
            let used = self
                .model
                .check(cmd, &lines[i..])
                .map_err(|e| format!("{e}\n  answers: {:?}", &lines[i..lines.len().min(i + 4)]))?;
            if used > 0 && matches!(cmd, Command::Begin | Command::Turn(..) | Command::Board(_)) {
                st.moves += 1;
            }
            i += used;
        }
        if i != lines.len() {
            return Err(format!("stray output lines: {:?}", &lines[i..]));
        }
        st.checked += pending.len() as u64;
        Ok(())
    }

    /// Closes stdin and checks the rest. After `END` (if it was sent) everything before it is
    /// answered at once, in order, and the process is gone within [`EXIT_WITHIN`]; at end of input
    /// everything queued is answered, then the process exits by itself.
    fn finish(&mut self, st: &mut CaseStats) -> Result<(), String> {
        self.brain.stdin = None;
        if let Some(end) = self.pending.iter().position(|c| *c == Command::End) {
            self.brain.wait_exit(EXIT_WITHIN)?;
            self.collect(None)?;
            self.pending.truncate(end + 1);
        } else {
            self.collect(None)?;
            self.brain.wait_exit(HANG_AFTER)?;
        }
        self.check(st)
    }

    fn abouts_pending(&self) -> usize {
        self.pending
            .iter()
            .filter(|c| **c == Command::About)
            .count()
    }
}

/// Runs one case against a fresh brain process.
pub fn run_case(
    binary: &Path,
    seed: u64,
    items: usize,
    big: bool,
    st: &mut CaseStats,
) -> Result<(), Finding> {
    let mut gen = Generator::new(seed, big);
    let mut rng = Rng::new(seed ^ 0xB1AE);
    let fail = |what: String, input: Vec<u8>| Finding {
        target: "pipe",
        seed,
        what,
        input,
    };
    let brain = Brain::spawn(binary).map_err(|e| fail(e, Vec::new()))?;
    let mut d = Driver {
        brain,
        parser: Parser::new(),
        model: Model::new(true),
        pending: Vec::new(),
        lines: Vec::new(),
        input: Vec::new(),
    };
    let res = (|| -> Result<(), String> {
        if rng.below(10) < 7 {
            d.write_line(b"INFO timeout_turn 10", st)?;
        }
        for _ in 0..items {
            let hints = Hints {
                size: d.model.dims(),
                stones: d.model.stone_points(),
            };
            let item = gen.item(&hints);
            for l in &item.lines {
                d.write_line(l, st)?;
            }
            if d.pending.contains(&Command::End) {
                break;
            }
            if rng.below(10) < 7 {
                d.sync(st)?;
            }
        }
        if let Some(rss) = d.brain.peak_rss() {
            PEAK_BRAIN_RSS.fetch_max(rss, std::sync::atomic::Ordering::Relaxed);
            if rss > MEMORY_LIMIT {
                return Err(format!(
                    "the brain's peak resident memory is {} MB",
                    rss >> 20
                ));
            }
        }
        if !d.pending.contains(&Command::End) && rng.below(2) == 0 {
            d.write_line(b"END", st)?;
        }
        d.finish(st)
    })();
    match res {
        Ok(()) => {
            st.cases += 1;
            Ok(())
        }
        Err(what) => Err(fail(what, std::mem::take(&mut d.input))),
    }
}

/// Replays raw input bytes (a corpus file) through a fresh brain process, line by line (waiting for
/// the answers before a new game, as [`run_case`] does), then closes its input; every answer is
/// checked.
pub fn replay(binary: &Path, input: &[u8], st: &mut CaseStats) -> Result<(), String> {
    let mut d = Driver {
        brain: Brain::spawn(binary)?,
        parser: Parser::new(),
        model: Model::new(true),
        pending: Vec::new(),
        lines: Vec::new(),
        input: Vec::new(),
    };
    for raw in input
        .strip_suffix(b"\n")
        .unwrap_or(input)
        .split(|&b| b == b'\n')
    {
        d.write_line(raw, st)?;
    }
    d.finish(st)
}

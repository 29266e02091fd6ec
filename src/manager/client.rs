//! The manager's side of one brain process: spawn it, write commands (CRLF, as Piskvork and GomocupJudge do),
//! read its answers on a separate thread so a silent brain can be timed out, and kill it at the end.
//! Optionally every line both ways (and the brain's stderr) goes to a log file with millisecond timestamps.

use parking_lot::Mutex;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a brain gets to exit by itself after `END` before it is killed (the managers use 0.5–0.7 s).
const END_GRACE: Duration = Duration::from_millis(500);

/// Why a brain lost the game on its own account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// No answer before the deadline (turn or match clock plus tolerance).
    Timeout,
    /// The process exited, closed its output or could not be written to.
    Crash,
    /// A line that is not an `x,y` move (nor MESSAGE/DEBUG) while a move was expected.
    Malformed(String),
    /// The process could not be started, or answered START with something else than OK.
    StartFailed(String),
    /// The process's resident memory (bytes) went over `INFO max_memory` (GomocupJudge scores it as a crash).
    Memory(u64),
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Timeout => write!(f, "timeout"),
            Fault::Crash => write!(f, "crash"),
            Fault::Malformed(l) => write!(f, "malformed answer `{l}`"),
            Fault::StartFailed(m) => write!(f, "start failed: {m}"),
            Fault::Memory(b) => write!(f, "memory limit exceeded ({} MB resident)", b / 1_000_000),
        }
    }
}

/// A shared, timestamped protocol log.
#[derive(Clone)]
struct Log {
    file: Arc<Mutex<File>>,
    t0: Instant,
}

impl Log {
    /// Appends one line: milliseconds since spawn, a direction mark, the text.
    fn line(&self, mark: &str, text: &str) {
        let ms = self.t0.elapsed().as_millis();
        let _ = writeln!(self.file.lock(), "{ms:>7} {mark} {text}");
    }
}

/// A running brain process.
pub struct BrainProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<String>,
    log: Option<Log>,
    /// Least time between the brain's move and the next command sent to it (see `set_send_delay`).
    send_delay: Duration,
    /// When the brain's last move arrived, until the next command is sent.
    moved_at: Option<Instant>,
}

/// Parses an answer line as a move `x,y`: two integers, spaces around the comma tolerated, but nothing before
/// or after (c-gomoku-cli rejects `7,7 ` too, so a brain that passes here passes everywhere).
pub fn parse_move(line: &str) -> Option<(i64, i64)> {
    if line.trim() != line {
        return None;
    }
    let (a, b) = line.split_once(',')?;
    let int = |s: &str| -> Option<i64> {
        let s = s.trim();
        let digits = s.strip_prefix('-').unwrap_or(s);
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    Some((int(a)?, int(b)?))
}

impl BrainProcess {
    /// Starts `argv[0]` with the remaining arguments; `log_path` turns on the protocol log.
    pub fn spawn(argv: &[String], log_path: Option<&Path>) -> Result<BrainProcess, Fault> {
        let (prog, args) = argv
            .split_first()
            .ok_or_else(|| Fault::StartFailed("empty command".into()))?;
        let log = match log_path {
            Some(p) => Some(Log {
                file: Arc::new(Mutex::new(File::create(p).map_err(|e| {
                    Fault::StartFailed(format!("log {}: {e}", p.display()))
                })?)),
                t0: Instant::now(),
            }),
            None => None,
        };
        let mut cmd = Command::new(prog);
        cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped());
        cmd.stderr(if log.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let mut child = cmd
            .spawn()
            .map_err(|e| Fault::StartFailed(format!("{prog}: {e}")))?;
        if let Some(l) = &log {
            l.line("#", &format!("started {}", argv.join(" ")));
        }
        let stdout = child.stdout.take().ok_or(Fault::Crash)?;
        let (tx, rx) = mpsc::channel();
        let out_log = log.clone();
        // The reader thread ends at EOF; dropping `tx` then tells the waiting side the brain is gone.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&buf);
                        let text = text.trim_end_matches(['\n', '\r']).to_string();
                        if let Some(l) = &out_log {
                            l.line("<", &text);
                        }
                        if tx.send(text).is_err() {
                            break;
                        }
                    }
                }
            }
            if let Some(l) = &out_log {
                l.line("#", "stdout closed");
            }
        });
        if let (Some(mut err), Some(l)) = (child.stderr.take(), log.clone()) {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = err.read_to_end(&mut buf);
                for line in String::from_utf8_lossy(&buf).lines() {
                    l.line("!", line);
                }
            });
        }
        let stdin = child.stdin.take();
        Ok(BrainProcess {
            child,
            stdin,
            rx,
            log,
            send_delay: Duration::ZERO,
            moved_at: None,
        })
    }

    /// Opt-in for fragile brains: the first command after a move is sent no sooner than `d` after that move.
    /// Some brains drop a command that arrives within microseconds of their move (Rapfi clears its "thinking"
    /// flag only after printing the move, Embryo answers "BAD COMMAND IN SEARCH MODE"); Piskvork and this
    /// runner by default send at once and score the resulting error line as a loss.
    pub fn set_send_delay(&mut self, d: Duration) {
        self.send_delay = d;
    }

    /// Waits out the send delay after the brain's last move, if any.
    fn wait_after_move(&mut self) {
        if let Some(t) = self.moved_at.take() {
            let left = self.send_delay.saturating_sub(t.elapsed());
            if !left.is_zero() {
                std::thread::sleep(left);
            }
        }
    }

    /// Writes one command line (CRLF-terminated) and flushes it.
    pub fn send(&mut self, line: &str) -> Result<(), Fault> {
        self.wait_after_move();
        if let Some(l) = &self.log {
            l.line(">", line);
        }
        let stdin = self.stdin.as_mut().ok_or(Fault::Crash)?;
        stdin
            .write_all(format!("{line}\r\n").as_bytes())
            .and_then(|_| stdin.flush())
            .map_err(|_| Fault::Crash)
    }

    /// Writes several lines in one write (a BOARD block), then flushes.
    pub fn send_block(&mut self, lines: &[String]) -> Result<(), Fault> {
        self.wait_after_move();
        let mut text = String::new();
        for l in lines {
            if let Some(log) = &self.log {
                log.line(">", l);
            }
            text.push_str(l);
            text.push_str("\r\n");
        }
        let stdin = self.stdin.as_mut().ok_or(Fault::Crash)?;
        stdin
            .write_all(text.as_bytes())
            .and_then(|_| stdin.flush())
            .map_err(|_| Fault::Crash)
    }

    /// The next line from the brain, waiting until `deadline` (forever if `None`).
    pub fn recv(&mut self, deadline: Option<Instant>) -> Result<String, Fault> {
        match deadline {
            None => self.rx.recv().map_err(|_| Fault::Crash),
            Some(d) => {
                let wait = d.saturating_duration_since(Instant::now());
                match self.rx.recv_timeout(wait) {
                    Ok(l) => Ok(l),
                    Err(RecvTimeoutError::Timeout) => Err(Fault::Timeout),
                    Err(RecvTimeoutError::Disconnected) => Err(Fault::Crash),
                }
            }
        }
    }

    /// Waits for a move answer: MESSAGE/DEBUG lines (and empty lines) are skipped and handed to `on_info`, as
    /// Piskvork does; any other line that is not exactly a move loses.
    pub fn recv_move(
        &mut self,
        deadline: Option<Instant>,
        on_info: &mut dyn FnMut(&str),
    ) -> Result<(i64, i64), Fault> {
        loop {
            let line = self.recv(deadline)?;
            if line.trim().is_empty() {
                continue;
            }
            let upper = line.to_ascii_uppercase();
            if upper.starts_with("MESSAGE") || upper.starts_with("DEBUG") {
                on_info(&line);
                continue;
            }
            let mv = parse_move(&line).ok_or(Fault::Malformed(line))?;
            if !self.send_delay.is_zero() {
                self.moved_at = Some(Instant::now());
            }
            return Ok(mv);
        }
    }

    /// Waits for `OK` after START/RECTSTART (MESSAGE/DEBUG skipped).
    pub fn recv_ok(&mut self, deadline: Option<Instant>) -> Result<(), Fault> {
        loop {
            let line = self.recv(deadline).map_err(|f| match f {
                Fault::Timeout => Fault::StartFailed("no OK to START".into()),
                Fault::Crash => Fault::StartFailed("exited during START".into()),
                other => other,
            })?;
            let t = line.trim();
            let upper = t.to_ascii_uppercase();
            if t.is_empty() || upper.starts_with("MESSAGE") || upper.starts_with("DEBUG") {
                continue;
            }
            if upper == "OK" {
                return Ok(());
            }
            return Err(Fault::StartFailed(format!("answered `{t}` to START")));
        }
    }

    /// The process's resident memory in bytes (Linux `/proc`; `None` elsewhere or if it cannot be read).
    /// GomocupJudge measures the memory a brain actually touched after every move; the resident set is the
    /// closest cheap equivalent.
    pub fn resident_bytes(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }

    /// Sends `END`, gives the brain a moment to exit, then kills it and reaps it.
    pub fn quit(mut self) {
        let _ = self.send("END");
        self.stdin = None; // EOF as well, for brains that only exit at end of input
        let until = Instant::now() + END_GRACE;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        if let Some(l) = &self.log {
            l.line("#", "killed after END");
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Kills the process at once (after a fault).
    pub fn kill(mut self) {
        if let Some(l) = &self.log {
            l.line("#", "killed");
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for BrainProcess {
    fn drop(&mut self) {
        // Never leave a brain running behind us (e.g. after an early return); harmless if it already exited.
        let _ = self.child.kill();
        let _ = self.child.try_wait();
    }
}

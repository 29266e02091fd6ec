//! Fuzz target (b): the whole session state machine, in process.
//!
//! A real [`Session`] over a real [`Engine`] (with its search thread), answering into a captured
//! [`Output`]. Input lines go through the brain's own bounded line reader and parser; finished
//! searches are handed back as the stdin loop does. The driver acts like a manager that is
//! sometimes impatient: it often sends the next items while a search still runs (they must be
//! queued, nothing lost), stops searches that take longer than [`STOP_AFTER`] (they must answer
//! within [`HANG_AFTER_STOP`]), and ends each case with `END` (idle or mid-search) or end of input.
//! Before a valid `START`/`RECTSTART`/`RESTART` it waits for the answers: a search that one of those
//! interrupts drops its move, and which searches it interrupts is a race the model does not judge
//! (the session tests and the protocol transcripts cover that path).
//!
//! Every answer is checked by the [`Model`]: one answer per command that needs one, `ERROR` /
//! `UNKNOWN` for bad input, legal `x,y` moves, no stray lines, nothing after `END`.

use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::gen::{Generator, Hints};
use super::model::Model;
use super::{parse_line, CaseStats, Finding};
use crate::engine::{Engine, ThinkResult};
use crate::manager::players::Rng;
use crate::protocol::command::{Command, Info, Parser};
use crate::protocol::output::Output;
use crate::protocol::session::{starts_a_game, Event, Flow, Session};

/// How long a search may run before the driver sends `STOP` (a manager's soft timeout).
pub const STOP_AFTER: Duration = Duration::from_millis(40);
/// How long a stopped search may take to answer; longer is reported as a hang.
pub const HANG_AFTER_STOP: Duration = Duration::from_secs(5);

/// The slowest answer after a STOP seen by this process (for the report), in microseconds.
pub static MAX_STOP_LATENCY_US: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

struct Driver {
    session: Session,
    done: Receiver<ThinkResult>,
    buf: Arc<Mutex<Vec<u8>>>,
    /// Bytes of output already checked.
    seen: usize,
    parser: Parser,
    model: Model,
    /// Commands executed or queued since the last check, whose answers are not checked yet.
    pending: Vec<Command>,
    input: Vec<u8>,
    exited: bool,
}

impl Driver {
    fn new() -> Driver {
        let (out, buf) = Output::capture();
        let (tx, done) = channel();
        let engine = Engine::new(
            out.clone(),
            Box::new(move |r| {
                let _ = tx.send(r);
            }),
        );
        Driver {
            session: Session::new(engine, out),
            done,
            buf,
            seen: 0,
            parser: Parser::new(),
            model: Model::new(false),
            pending: Vec::new(),
            input: Vec::new(),
            exited: false,
        }
    }

    /// One input line, through the brain's bounded reader and parser, to the session.
    fn line(&mut self, raw: &[u8], st: &mut CaseStats) -> Result<(), String> {
        if self.exited {
            return Ok(());
        }
        self.input.extend_from_slice(raw);
        self.input.push(b'\n');
        st.lines += 1;
        st.bytes += raw.len() as u64 + 1;
        let cmds = parse_line(&mut self.parser, raw);
        for cmd in cmds {
            st.commands += 1;
            if starts_a_game(&cmd) {
                self.settle(st)?;
            }
            self.command(cmd)?;
            if self.exited {
                break;
            }
        }
        Ok(())
    }

    fn command(&mut self, cmd: Command) -> Result<(), String> {
        let busy = self.session.engine().is_thinking();
        let absorbed = busy
            && matches!(
                cmd,
                Command::Stop | Command::YxStop | Command::Info(Info::TimeoutTurn(i64::MIN..=0))
            );
        let end = cmd == Command::End;
        if !absorbed && !end {
            self.pending.push(cmd.clone());
        }
        let flow = self.session.handle(Event::Command(cmd, Instant::now()));
        if end {
            if !busy && flow != Flow::Exit {
                return Err("END did not end an idle session".into());
            }
            return self.after_end(flow);
        }
        if flow == Flow::Exit {
            return Err("the session exited without END or end of input".into());
        }
        Ok(())
    }

    /// New output lines since the last call (all complete lines), checked for form.
    fn new_lines(&mut self) -> Result<Vec<String>, String> {
        let data = self.buf.lock()[self.seen..].to_vec();
        if !data.is_empty() && data.last() != Some(&b'\n') {
            return Err(format!(
                "output ends inside a line: {:?}",
                String::from_utf8_lossy(&data)
            ));
        }
        self.seen += data.len();
        let text = String::from_utf8(data).map_err(|_| "output is not UTF-8".to_string())?;
        let mut out = Vec::new();
        for l in text.lines() {
            if l.is_empty() || l != l.trim_end() || l.contains(|c: char| c.is_control()) {
                return Err(format!("malformed output line {l:?}"));
            }
            if l.starts_with("MESSAGE ") || l.starts_with("DEBUG ") {
                continue;
            }
            out.push(l.to_string());
        }
        Ok(out)
    }

    /// Checks all output against the pending commands: every one answered, no stray line.
    fn check(&mut self, st: &mut CaseStats) -> Result<(), String> {
        let lines = self.new_lines()?;
        let mut i = 0;
        let pending = std::mem::take(&mut self.pending);
        for cmd in &pending {
            let before = self.model.stone_points().len();
            let used = self
                .model
                .check(cmd, &lines[i..])
                .map_err(|e| format!("{e}\n  answers: {:?}", &lines[i..lines.len().min(i + 4)]))?;
            if matches!(
                cmd,
                Command::Begin | Command::Turn(..) | Command::Board(_) | Command::YxNbest(_)
            ) && self.model.stone_points().len() > before
            {
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

    /// Hands finished searches back until the engine is idle; stops slow ones; detects hangs.
    fn settle(&mut self, st: &mut CaseStats) -> Result<(), String> {
        let mut started = Instant::now();
        let mut stopped: Option<Instant> = None;
        while self.session.engine().is_thinking() {
            let wait = match stopped {
                None => STOP_AFTER.saturating_sub(started.elapsed()),
                Some(t) => HANG_AFTER_STOP.saturating_sub(t.elapsed()),
            };
            match self.done.recv_timeout(wait) {
                Ok(r) => {
                    if let Some(t) = stopped {
                        let us = t.elapsed().as_micros() as u64;
                        MAX_STOP_LATENCY_US.fetch_max(us, std::sync::atomic::Ordering::Relaxed);
                    }
                    let flow = self.session.handle(Event::Done(r));
                    if flow == Flow::Exit {
                        return Err("the session exited after a search without END".into());
                    }
                    started = Instant::now();
                    stopped = None;
                }
                Err(RecvTimeoutError::Timeout) => {
                    if stopped.is_some() {
                        return Err(format!("hang: no answer {HANG_AFTER_STOP:?} after STOP"));
                    }
                    self.session
                        .handle(Event::Command(Command::Stop, Instant::now()));
                    stopped = Some(Instant::now());
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err("the search thread is gone".into());
                }
            }
        }
        self.check(st)
    }

    /// After END: a search it interrupted answers at once, every command before it is answered in
    /// order, the session exits, and nothing comes after.
    fn after_end(&mut self, flow: Flow) -> Result<(), String> {
        self.run_to_exit(flow, "END")?;
        let mut st = CaseStats::default();
        self.check(&mut st)?;
        // Nothing read after END is looked at.
        self.session
            .handle(Event::Command(Command::About, Instant::now()));
        let after = self.new_lines()?;
        if !after.is_empty() {
            return Err(format!("output after END: {after:?}"));
        }
        Ok(())
    }

    /// End of input: everything queued is answered, then the session exits.
    fn eof(&mut self, st: &mut CaseStats) -> Result<(), String> {
        let flow = self.session.handle(Event::Eof);
        self.run_to_exit(flow, "end of input")?;
        self.check(st)
    }

    /// Hands finished searches back until the session exits (after END or end of input, named `what`).
    fn run_to_exit(&mut self, mut flow: Flow, what: &str) -> Result<(), String> {
        let deadline = Instant::now() + HANG_AFTER_STOP * 4;
        while flow != Flow::Exit {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.done.recv_timeout(left) {
                Ok(r) => flow = self.session.handle(Event::Done(r)),
                Err(_) => return Err(format!("hang: the session did not exit after {what}")),
            }
        }
        self.exited = true;
        Ok(())
    }
}

/// Runs one case: `items` items from `seed` against a fresh session.
pub fn run_case(seed: u64, items: usize, big: bool, st: &mut CaseStats) -> Result<(), Finding> {
    let mut gen = Generator::new(seed, big);
    let mut rng = Rng::new(seed ^ 0xD1CE);
    let mut d = Driver::new();
    let res = (|| -> Result<(), String> {
        // Mostly short searches, so that a case plays many moves.
        if rng.below(10) < 7 {
            d.line(b"INFO timeout_turn 10", st)?;
        }
        for _ in 0..items {
            let hints = Hints {
                size: d.model.dims(),
                stones: d.model.stone_points(),
            };
            let item = gen.item(&hints);
            for l in &item.lines {
                d.line(l, st)?;
            }
            if d.exited {
                return Ok(());
            }
            // Usually wait for the answers, as a manager does; sometimes run on (queueing).
            if rng.below(10) < 7 {
                d.settle(st)?;
            }
        }
        match rng.below(4) {
            0 => {
                d.settle(st)?;
                d.line(b"END", st)
            }
            1 => d.line(b"END", st),
            _ => d.eof(st),
        }
    })();
    match res {
        Ok(()) => {
            st.cases += 1;
            Ok(())
        }
        Err(what) => {
            // Stop whatever still runs so the worker thread ends with the engine.
            d.session
                .handle(Event::Command(Command::Stop, Instant::now()));
            Err(Finding {
                target: "session",
                seed,
                what,
                input: d.input,
            })
        }
    }
}

/// Replays raw input bytes (a corpus file) through a fresh session, then end of input.
pub fn replay(input: &[u8], st: &mut CaseStats) -> Result<(), String> {
    let mut d = Driver::new();
    for raw in input.split(|&b| b == b'\n') {
        d.line(raw, st)?;
        if d.exited {
            return Ok(());
        }
        d.settle(st)?;
    }
    d.eof(st)
}

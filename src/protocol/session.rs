//! The session: protocol state and dispatch of commands to the engine.
//!
//! Everything arrives as an [`Event`] on one channel, in order: commands from the reader thread,
//! end of input, and finished searches from the engine's worker. The session is never blocked:
//! while the engine thinks, `STOP`/`YXSTOP` and `INFO timeout_turn 0` act at once and every other
//! command waits in a queue, to be handled right after the move has been printed. Every command is
//! answered in the order received, with three commands that also cut the running search short:
//! - `END` (and end of input): the search answers at once with its best move so far, each queued
//!   command is answered in turn (a search it starts answers at once too), then the process exits;
//!   nothing read after `END` is looked at.
//! - `START`, `RECTSTART`, `RESTART`: the search stops at once and its move is never printed (the
//!   manager asked for a new game, not for that move; a stray line loses games under Piskvork),
//!   nor is the move of a search that a command queued before them starts; then `OK` comes.

use std::collections::VecDeque;
use std::time::Instant;

use crate::board::Rule;
use crate::engine::{Engine, Task, ThinkResult, MAX_NBEST, MIN_MEMORY_BYTES, NO_GAME};
use crate::protocol::command::{Command, Info};
use crate::protocol::output::Output;

/// Smallest and largest board side the brain plays.
pub const MIN_SIZE: i64 = 5;
/// See [`MIN_SIZE`].
pub const MAX_SIZE: i64 = 32;

/// In swap2, take black when the position is worse than this for white (search score units):
/// any disadvantage for white makes black the better colour.
const SWAP2_SWAP_BELOW: i32 = 0;

/// The `ABOUT` line; `cpu` says which copy of the move update runs (`board::cpu`: `x86-64-v3` or `baseline`).
pub fn about_line() -> String {
    format!(
        "name=\"Pentad\", version=\"{}\", author=\"The Pentad developers\", country=\"International\", cpu=\"{}\"",
        env!("CARGO_PKG_VERSION"),
        crate::board::cpu::name()
    )
}

/// Something for the session to handle.
pub enum Event {
    /// A parsed command and when its (first) line was read.
    Command(Command, Instant),
    /// End of input.
    Eof,
    /// The engine finished a search.
    Done(ThinkResult),
}

/// Whether the brain goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep running.
    Continue,
    /// Exit the process now (END, or end of input with nothing left to do).
    Exit,
}

/// Protocol state around the engine.
pub struct Session {
    engine: Engine,
    out: Output,
    queue: VecDeque<(Command, Instant)>,
    /// A problem with an INFO line, reported at the next non-INFO command (the manager does not
    /// read answers to INFO).
    info_problem: Option<String>,
    /// END was read while busy, or input ended: answer what is pending at once, then exit.
    closing: bool,
    /// A new game was asked for while the running search thinks: its move is dropped.
    discard: bool,
}

impl Session {
    /// A session over an engine, answering on `out`.
    pub fn new(engine: Engine, out: Output) -> Session {
        Session {
            engine,
            out,
            queue: VecDeque::new(),
            info_problem: None,
            closing: false,
            discard: false,
        }
    }

    /// The engine (tests look at the board through it).
    pub fn engine(&mut self) -> &mut Engine {
        &mut self.engine
    }

    /// Handles one event.
    pub fn handle(&mut self, ev: Event) -> Flow {
        match ev {
            Event::Command(_, _) if self.closing => Flow::Continue,
            Event::Command(cmd, at) => {
                if self.engine.is_thinking() || !self.queue.is_empty() {
                    match cmd {
                        Command::End => return self.close(),
                        Command::Stop | Command::YxStop => self.engine.stop(),
                        Command::Info(Info::TimeoutTurn(t)) if t <= 0 => {
                            self.engine.options.clock.turn_ms = Some(t);
                            self.engine.stop();
                        }
                        other => {
                            let new_game = starts_a_game(&other);
                            self.queue.push_back((other, at));
                            if new_game && self.engine.is_thinking() {
                                self.discard = true;
                                self.engine.stop();
                            }
                        }
                    }
                    Flow::Continue
                } else {
                    self.execute(cmd, at)
                }
            }
            Event::Eof => self.close(),
            Event::Done(r) => {
                self.engine.finish(&r);
                if !std::mem::take(&mut self.discard) {
                    self.answer(&r);
                }
                self.drain()
            }
        }
    }

    /// END while busy, or the end of input: the running search answers at once, then the queue is
    /// answered (see `think`) and the process exits.
    fn close(&mut self) -> Flow {
        self.closing = true;
        if self.engine.is_thinking() {
            self.engine.stop();
            Flow::Continue
        } else {
            self.drain()
        }
    }

    fn end(&mut self) -> Flow {
        self.engine.stop();
        self.out.close();
        Flow::Exit
    }

    /// Runs queued commands until one starts a search; exits at end of input when all is done.
    fn drain(&mut self) -> Flow {
        while !self.engine.is_thinking() {
            let Some((cmd, at)) = self.queue.pop_front() else {
                break;
            };
            if self.execute(cmd, at) == Flow::Exit {
                return Flow::Exit;
            }
        }
        if self.closing && !self.engine.is_thinking() && self.queue.is_empty() {
            return self.end();
        }
        Flow::Continue
    }

    /// Prints the answer of a finished search.
    fn answer(&mut self, r: &ThinkResult) {
        match r.task {
            Task::Move | Task::Nbest(_) => match self.engine.commit(r) {
                Some((x, y)) => self.out.mv(x, y),
                None => self.out.error("no legal move"),
            },
            Task::Swap2 => {
                if r.score < SWAP2_SWAP_BELOW {
                    self.out.line("SWAP");
                } else {
                    match self.engine.commit(r) {
                        Some((x, y)) => self.out.mv(x, y),
                        None => self.out.line("SWAP"),
                    }
                }
            }
        }
    }

    fn think(&mut self, task: Task, at: Instant) {
        match self.engine.think(task, at) {
            Ok(()) => {
                if self.closing {
                    // Nobody is left to wait for a good move: answer at once and go.
                    self.engine.stop();
                } else if self.queue.iter().any(|(c, _)| starts_a_game(c)) {
                    // A new game is already asked for: this move would never be wanted.
                    self.discard = true;
                    self.engine.stop();
                }
            }
            Err(e) => self.out.error(&e),
        }
    }

    fn need_game(&self) -> bool {
        if self.engine.dims().is_none() {
            self.out.error(NO_GAME);
            false
        } else {
            true
        }
    }

    /// Runs one command with the engine idle.
    fn execute(&mut self, cmd: Command, at: Instant) -> Flow {
        if !matches!(cmd, Command::Info(_) | Command::BadInfo(_) | Command::End) {
            if let Some(p) = self.info_problem.take() {
                self.out.error(&p);
            }
        }
        match cmd {
            Command::End => return self.end(),
            Command::Start(n) => self.start(n, n),
            Command::RectStart(w, h) => self.start(w, h),
            Command::Restart => match self.engine.restart() {
                Ok(()) => self.out.ok(),
                Err(e) => self.out.error(&e),
            },
            Command::Begin => {
                if self.need_game() {
                    if self.engine.move_count() > 0 {
                        self.out
                            .error("BEGIN on a board with stones (send RESTART first)");
                    } else {
                        self.think(Task::Move, at);
                    }
                }
            }
            Command::Turn(x, y) => {
                if self.need_game() {
                    match self.engine.play_opponent(x, y) {
                        Ok(()) => self.think(Task::Move, at),
                        Err(e) => self.out.error(&e),
                    }
                }
            }
            Command::Board(stones) => {
                if self.need_game() {
                    match self.engine.set_position(&stones) {
                        Ok(()) => self.think(Task::Move, at),
                        Err(e) => self.out.error(&e),
                    }
                }
            }
            Command::YxBoard(stones) => {
                if self.need_game() {
                    if let Err(e) = self.engine.set_position(&stones) {
                        self.out.error(&e);
                    }
                }
            }
            Command::Swap2Board(stones) => {
                if self.need_game() {
                    self.swap2(&stones, at);
                }
            }
            Command::Info(info) => self.info(info),
            Command::BadInfo(msg) => self.info_problem = Some(msg),
            Command::About => self.out.line(&about_line()),
            Command::Takeback(x, y) => {
                if self.need_game() {
                    match self.engine.takeback(x, y) {
                        Ok(()) => self.out.ok(),
                        Err(e) => self.out.error(&e),
                    }
                }
            }
            Command::Play(x, y) => {
                if self.need_game() {
                    match self.engine.play_own(x, y) {
                        Ok(()) => self.out.line(&format!("{x},{y}")),
                        Err(e) => self.out.error(&e),
                    }
                }
            }
            // Nothing to stop: a STOP that arrives after the move is simply late.
            Command::Stop | Command::YxStop => {}
            Command::YxNbest(n) => {
                if self.need_game() {
                    let n = usize::try_from(n).unwrap_or(MAX_NBEST).min(MAX_NBEST);
                    self.think(Task::Nbest(n), at);
                }
            }
            Command::YxShowForbid => match self.engine.forbidden_points() {
                Ok(points) => {
                    let mut line = String::from("FORBID ");
                    for (x, y) in points {
                        line.push_str(&format!("{x:02}{y:02}"));
                    }
                    line.push('.');
                    self.out.line(&line);
                }
                Err(e) => self.out.error(&e),
            },
            Command::YxHashClear => self.engine.clear_hash(),
            Command::Unknown(msg) => self.out.unknown(&msg),
            Command::Invalid(msg) => self.out.error(&msg),
        }
        Flow::Continue
    }

    fn start(&mut self, w: i64, h: i64) {
        let ok = |v: i64| (MIN_SIZE..=MAX_SIZE).contains(&v);
        if !ok(w) || !ok(h) {
            self.out.error(&format!(
                "unsupported board size {w}x{h} (each side {MIN_SIZE} to {MAX_SIZE})"
            ));
            return;
        }
        self.engine.start(w as usize, h as usize);
        self.out.ok();
    }

    fn info(&mut self, info: Info) {
        let o = &mut self.engine.options;
        match info {
            Info::TimeoutTurn(t) => o.clock.turn_ms = Some(t),
            Info::TimeoutMatch(t) => o.clock.match_ms = Some(t),
            Info::TimeLeft(t) => o.clock.time_left_ms = Some(t),
            Info::MaxMemory(m) => {
                if m < 0 {
                    self.info_problem = Some(format!("INFO max_memory {m} is negative"));
                } else {
                    o.max_memory = m;
                    if m > 0 && m < MIN_MEMORY_BYTES {
                        self.info_problem = Some(format!(
                            "INFO max_memory {m} is below the {MIN_MEMORY_BYTES} bytes the brain needs"
                        ));
                    }
                }
            }
            Info::HashSize(kb) => o.hash_kb = (kb > 0).then_some(kb),
            Info::ThreadNum(n) => o.threads = usize::try_from(n.clamp(1, 256)).unwrap_or(1),
            Info::MaxDepth(d) => o.max_depth = (d > 0).then(|| d.min(i32::MAX as i64) as i32),
            Info::MaxNode(n) => o.max_nodes = (n > 0).then_some(n as u64),
            Info::ShowDetail(v) => o.show_detail = v != 0,
            Info::Rule(code) => match Rule::from_gomocup(code) {
                Some(rule) => {
                    if let Err(e) = self.engine.set_rule(rule) {
                        self.info_problem = Some(e);
                    }
                }
                None => {
                    self.info_problem = Some(format!(
                        "INFO rule {code} is not supported (0 freestyle, 1 standard, 4 renju, 8 caro, 9 caro exact)"
                    ))
                }
            },
            Info::GameType(_) | Info::Evaluate | Info::Folder(_) | Info::Other(_) => {}
        }
    }

    fn swap2(&mut self, stones: &[(i64, i64)], at: Instant) {
        match stones.len() {
            0 => {
                let Some((w, h)) = self.engine.dims() else {
                    return;
                };
                let moves = swap2_opening(w as i64, h as i64);
                let text: Vec<String> = moves.iter().map(|(x, y)| format!("{x},{y}")).collect();
                self.out.line(&text.join(" "));
            }
            3 | 5 => match self.engine.set_swap2_position(stones) {
                Ok(()) => self.think(Task::Swap2, at),
                Err(e) => self.out.error(&e),
            },
            n => self
                .out
                .error(&format!("SWAP2BOARD expects 0, 3 or 5 stones, got {n}")),
        }
    }
}

/// START or RECTSTART of a size the brain plays, or RESTART: a command that makes the move of a search
/// running in a game unwanted (an unsupported size is an ERROR that leaves the game as it is).
pub fn starts_a_game(c: &Command) -> bool {
    let side = |n: &i64| (MIN_SIZE..=MAX_SIZE).contains(n);
    match c {
        Command::Start(n) => side(n),
        Command::RectStart(w, h) => side(w) && side(h),
        Command::Restart => true,
        _ => false,
    }
}

/// The first three swap2 stones (black, white, black) that the brain proposes: a quiet,
/// spread-out shape near the centre that leaves neither side a clear edge; on very small boards a
/// corner shape.
pub fn swap2_opening(w: i64, h: i64) -> [(i64, i64); 3] {
    let (cx, cy) = (w / 2, h / 2);
    if w >= 9 && h >= 9 {
        [(cx, cy), (cx + 1, cy - 2), (cx - 2, cy + 1)]
    } else {
        [(0, 0), (2, 1), (2, 4)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;
    use crate::protocol::command::Parser;
    use parking_lot::Mutex;
    use std::sync::mpsc::{channel, Receiver};
    use std::sync::Arc;

    /// A session on captured output, with finished searches delivered back by hand.
    struct Harness {
        session: Session,
        done: Receiver<ThinkResult>,
        buf: Arc<Mutex<Vec<u8>>>,
        parser: Parser,
        seen: usize,
    }

    impl Harness {
        fn new() -> Harness {
            let (out, buf) = Output::capture();
            let (tx, done) = channel();
            let engine = Engine::new(
                out.clone(),
                Box::new(move |r| {
                    let _ = tx.send(r);
                }),
            );
            let mut h = Harness {
                session: Session::new(engine, out),
                done,
                buf,
                parser: Parser::new(),
                seen: 0,
            };
            // Short searches and no MESSAGE lines keep the tests quick and the answers plain.
            h.send("INFO timeout_turn 50");
            h.send("INFO show_detail 0");
            h
        }

        /// A 15x15 game whose opening move is being searched with a 30 s turn (it will not end by itself soon).
        fn thinking() -> Harness {
            let mut h = Harness::new();
            h.send("INFO timeout_turn 30000");
            h.send("START 15");
            h.lines();
            h.send("BEGIN");
            assert!(h.session.engine.is_thinking());
            h
        }

        /// Sends one line; returns the flow of the last command it completed.
        fn send(&mut self, line: &str) -> Flow {
            let mut flow = Flow::Continue;
            for cmd in self.parser.feed(line) {
                flow = self.session.handle(Event::Command(cmd, Instant::now()));
            }
            flow
        }

        /// Delivers finished searches until the engine is idle.
        fn settle(&mut self) {
            while self.session.engine.is_thinking() {
                let r = self.done.recv().expect("search result");
                self.session.handle(Event::Done(r));
            }
        }

        /// Answer lines printed since the last call.
        fn lines(&mut self) -> Vec<String> {
            let text = String::from_utf8(self.buf.lock().clone()).unwrap();
            let all: Vec<String> = text.lines().map(str::to_string).collect();
            let new = all[self.seen..].to_vec();
            self.seen = all.len();
            new
        }

        fn board(&mut self) -> &crate::board::Board {
            self.session.engine.board().expect("a board")
        }
    }

    fn is_move(s: &str) -> bool {
        s.split_once(',')
            .is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok())
    }

    #[test]
    fn a_game_and_errors_that_change_nothing() {
        let mut h = Harness::new();
        h.send("TURN 7,7");
        assert!(h.lines()[0].starts_with("ERROR "));
        h.send("START 15");
        assert_eq!(h.lines(), ["OK"]);
        h.send("BEGIN");
        h.settle();
        let l = h.lines();
        assert_eq!(l.len(), 1);
        assert!(is_move(&l[0]), "{l:?}");
        assert_eq!(h.board().move_count(), 1);
        for bad in ["TURN 15,15", "TURN -1,0", "TURN 7", "TAKEBACK 0,0"] {
            h.send(bad);
            let l = h.lines();
            assert!(l.len() == 1 && l[0].starts_with("ERROR "), "{bad}: {l:?}");
            assert!(!h.session.engine.is_thinking());
            assert_eq!(h.board().move_count(), 1, "{bad}");
        }
        // The occupied point (our own move).
        let first = l[0].clone();
        h.send(&format!("TURN {first}"));
        assert!(h.lines()[0].starts_with("ERROR "));
        assert_eq!(h.board().move_count(), 1);
        h.send("TURN 0,0");
        h.settle();
        assert!(is_move(&h.lines()[0]));
        assert_eq!(h.board().move_count(), 3);
        assert_eq!(h.send("END"), Flow::Exit);
        assert!(h.lines().is_empty());
    }

    #[test]
    fn board_assigns_colours_so_the_brain_is_to_move() {
        let mut h = Harness::new();
        h.send("START 15");
        assert_eq!(h.lines(), ["OK"]);
        // Two own, two opponent: we are black. Stones out of move order, with a wall.
        for l in [
            "YXBOARD", "3,3,1", "5,5,2", "0,0,3", "4,4,1", "6,6,2", "DONE",
        ] {
            h.send(l);
        }
        let b = h.board();
        assert_eq!(b.move_count(), 5);
        assert_eq!(b.side_to_move(), Color::Black);
        assert_eq!(b.stone(b.pos(3, 3).unwrap()), Some(Color::Black));
        assert_eq!(b.stone(b.pos(5, 5).unwrap()), Some(Color::White));
        // One own, two opponent: we are white.
        for l in ["YXBOARD", "7,7,2", "8,8,1", "9,9,2", "DONE"] {
            h.send(l);
        }
        let b = h.board();
        assert_eq!(b.side_to_move(), Color::White);
        assert_eq!(b.stone(b.pos(8, 8).unwrap()), Some(Color::White));
        assert!(h.lines().is_empty());
        // A bad block leaves the position as it was.
        for l in ["YXBOARD", "1,1,1", "1,1,2", "DONE"] {
            h.send(l);
        }
        assert!(h.lines()[0].starts_with("ERROR "));
        assert_eq!(h.board().move_count(), 3);
    }

    #[test]
    fn commands_while_thinking_are_queued_in_order() {
        let mut h = Harness::new();
        h.send("START 15");
        h.lines();
        h.send("BEGIN");
        assert!(h.session.engine.is_thinking());
        h.send("ABOUT");
        h.send("TURN 0,0");
        h.send("TAKEBACK 0,0");
        // Nothing is answered before the move.
        assert!(h.lines().is_empty());
        h.settle();
        let l = h.lines();
        assert_eq!(l.len(), 4, "{l:?}");
        assert!(is_move(&l[0]));
        assert!(l[1].starts_with("name=\"Pentad\""));
        assert!(is_move(&l[2]));
        assert_eq!(l[3], "OK");
        assert_eq!(h.board().move_count(), 2);
    }

    #[test]
    fn end_while_thinking_answers_at_once_then_exits() {
        let mut h = Harness::thinking();
        assert_eq!(h.send("END"), Flow::Continue);
        // Nothing read after END is looked at.
        h.send("ABOUT");
        let r = h.done.recv().unwrap();
        assert_eq!(h.session.handle(Event::Done(r)), Flow::Exit);
        let l = h.lines();
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(is_move(&l[0]), "{l:?}");
    }

    #[test]
    fn end_answers_the_queue_in_order_first() {
        let mut h = Harness::thinking();
        h.send("TURN 0,0");
        h.send("ABOUT");
        h.send("END");
        let mut flow = Flow::Continue;
        while flow == Flow::Continue {
            let r = h.done.recv().unwrap();
            flow = h.session.handle(Event::Done(r));
        }
        let l = h.lines();
        assert_eq!(l.len(), 3, "{l:?}");
        assert!(is_move(&l[0]) && is_move(&l[1]), "{l:?}");
        assert!(l[2].starts_with("name=\"Pentad\""), "{l:?}");
        assert_eq!(h.board().move_count(), 3);
    }

    #[test]
    fn a_new_game_while_thinking_drops_the_move() {
        for cmd in ["RESTART", "START 15", "RECTSTART 15,15"] {
            let mut h = Harness::thinking();
            // A queued search before the new game is dropped too; commands after it run normally.
            h.send("TURN 0,0");
            h.send(cmd);
            h.send("ABOUT");
            h.send("INFO timeout_turn 50");
            h.send("BEGIN");
            h.settle();
            let l = h.lines();
            assert_eq!(l.len(), 3, "{cmd}: {l:?}");
            assert_eq!(l[0], "OK", "{cmd}");
            assert!(l[1].starts_with("name=\"Pentad\""), "{cmd}: {l:?}");
            assert!(is_move(&l[2]), "{cmd}: {l:?}");
            assert_eq!(h.board().move_count(), 1, "{cmd}");
        }
    }

    #[test]
    fn info_problems_wait_for_the_next_command() {
        let mut h = Harness::new();
        h.send("START 15");
        h.lines();
        h.send("INFO rule 16");
        h.send("INFO timeout_turn abc");
        assert!(h.lines().is_empty());
        assert_eq!(h.session.engine.rule(), Rule::Freestyle);
        h.send("ABOUT");
        let l = h.lines();
        assert_eq!(l.len(), 2);
        assert!(l[0].starts_with("ERROR "));
        assert!(l[1].starts_with("name="));
        h.send("INFO rule 4");
        h.send("ABOUT");
        assert_eq!(h.lines().len(), 1);
        assert_eq!(h.session.engine.rule(), Rule::Renju);
    }

    #[test]
    fn takeback_of_an_earlier_stone_keeps_colours() {
        let mut h = Harness::new();
        h.send("START 15");
        h.send("PLAY 7,7");
        h.send("TURN 0,0");
        h.settle();
        h.lines();
        h.send("TAKEBACK 0,0");
        assert_eq!(h.lines(), ["OK"]);
        let b = h.board();
        assert_eq!(b.move_count(), 2);
        assert_eq!(b.stone(b.pos(7, 7).unwrap()), Some(Color::Black));
        assert_eq!(b.side_to_move(), Color::White);
    }

    #[test]
    fn eof_finishes_the_queue_then_exits() {
        let mut h = Harness::new();
        h.send("INFO timeout_turn 30000");
        h.send("START 15");
        h.send("BEGIN");
        h.send("ABOUT");
        assert_eq!(h.session.handle(Event::Eof), Flow::Continue);
        let r = h.done.recv().unwrap();
        assert_eq!(h.session.handle(Event::Done(r)), Flow::Exit);
        let l = h.lines();
        assert_eq!(l.len(), 3);
        assert!(is_move(&l[1]));
    }

    #[test]
    fn swap2_opening_is_on_board_and_distinct() {
        for w in MIN_SIZE..=MAX_SIZE {
            for h in [MIN_SIZE, 9, 15, 20, MAX_SIZE] {
                let m = swap2_opening(w, h);
                for &(x, y) in &m {
                    assert!(x >= 0 && y >= 0 && x < w && y < h, "{w}x{h}: {m:?}");
                }
                assert!(m[0] != m[1] && m[1] != m[2] && m[0] != m[2]);
            }
        }
    }

    #[test]
    fn about_is_one_line_with_name() {
        let a = about_line();
        assert!(a.starts_with("name=\"Pentad\", version=\""));
        assert!(
            a.ends_with(&format!(", cpu=\"{}\"", crate::board::cpu::name())),
            "{a}"
        );
        assert!(!a.contains('\n'));
    }
}

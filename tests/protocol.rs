//! Runs every conformance transcript in `protocol-tests/` against the real release binary.
//! The transcript format is described in `protocol-tests/README.md`.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Marks a failure that is only a missed time bound.
const TOO_SLOW: &str = "[too slow]";
/// Runs of a transcript that may miss only a time bound before it fails: the shared CI machine can be
/// busy with other builds for a moment, but a brain that is really too slow misses every time.
const TIMING_ATTEMPTS: usize = 3;

/// How long an answer without `@N` may take.
const DEFAULT_WAIT: Duration = Duration::from_secs(10);
/// How long the brain may take to exit at the end of a transcript (after stdin is closed).
const EXIT_WAIT: Duration = Duration::from_secs(1);

/// One line from the brain, or the end of its stdout.
enum Out {
    Line(String, Instant),
    Eof(Instant),
}

/// What the runner knows of the game, to check that moves are legal.
#[derive(Default)]
struct Game {
    width: i64,
    height: i64,
    stones: HashSet<(i64, i64)>,
    /// Stones in the order they were placed, for TAKEBACK.
    order: Vec<(i64, i64)>,
}

impl Game {
    fn clear(&mut self) {
        self.stones.clear();
        self.order.clear();
    }
    fn put(&mut self, p: (i64, i64)) {
        if self.stones.insert(p) {
            self.order.push(p);
        }
    }
    fn on_board(&self, p: (i64, i64)) -> bool {
        p.0 >= 0 && p.1 >= 0 && p.0 < self.width && p.1 < self.height
    }
    /// The empty point farthest from every stone (first in row order on ties): a safe opponent
    /// move for transcripts that must not depend on which moves the brain chose.
    fn free_point(&self) -> Option<(i64, i64)> {
        let mut best: Option<(i64, (i64, i64))> = None;
        for y in 0..self.height {
            for x in 0..self.width {
                if self.stones.contains(&(x, y)) {
                    continue;
                }
                let d = self
                    .stones
                    .iter()
                    .map(|&(a, b)| (a - x).abs().max((b - y).abs()))
                    .min()
                    .unwrap_or(0);
                if best.is_none_or(|(bd, _)| d > bd) {
                    best = Some((d, (x, y)));
                }
            }
        }
        best.map(|(_, p)| p)
    }
}

/// `x,y` exactly (as the brain parses it).
fn parse_pair(s: &str) -> Option<(i64, i64)> {
    let v: Vec<&str> = s.split(',').collect();
    if v.len() != 2 {
        return None;
    }
    Some((v[0].trim().parse().ok()?, v[1].trim().parse().ok()?))
}

/// The point of a block line `x,y` or `x,y,f`.
fn block_point(s: &str) -> Option<(i64, i64)> {
    let v: Vec<&str> = s.split(',').collect();
    if v.len() < 2 {
        return None;
    }
    Some((v[0].trim().parse().ok()?, v[1].trim().parse().ok()?))
}

/// Mirrors the state changes of a command the runner sends (only well-formed ones matter: the
/// brain must ignore bad ones, and so does the runner, as the transcripts are written that way).
struct Tracker {
    game: Game,
    in_board: bool,
    /// Number of comma-separated fields a line of the open block has.
    block_fields: usize,
    /// No bad line in the open block so far.
    block_ok: bool,
    pending: Vec<(i64, i64)>,
}

impl Tracker {
    fn sent(&mut self, line: &str) {
        let t = line.trim();
        let (word, rest) = t.split_once(' ').unwrap_or((t, ""));
        let word = word.to_ascii_uppercase();
        if self.in_board {
            if word == "DONE" {
                self.in_board = false;
                let ok = self.block_ok
                    && self.pending.iter().all(|&p| self.game.on_board(p))
                    && self.pending.iter().collect::<HashSet<_>>().len() == self.pending.len();
                if ok {
                    self.game.clear();
                    for p in std::mem::take(&mut self.pending) {
                        self.game.put(p);
                    }
                }
                return;
            }
            if !t.starts_with(|c: char| c.is_ascii_alphabetic()) {
                let fields: Vec<&str> = t.split(',').collect();
                match (fields.len() == self.block_fields, block_point(t)) {
                    (true, Some(p)) => self.pending.push(p),
                    _ => self.block_ok = false,
                }
                if self.block_fields == 3
                    && !matches!(fields.last().map(|f| f.trim()), Some("1" | "2" | "3"))
                {
                    self.block_ok = false;
                }
                return;
            }
            // A command inside a block: the brain drops the block and runs the command.
            self.in_board = false;
        }
        match word.as_str() {
            "START" => {
                if let Ok(n) = rest.trim().parse::<i64>() {
                    if (5..=32).contains(&n) {
                        self.game.width = n;
                        self.game.height = n;
                        self.game.clear();
                    }
                }
            }
            "RECTSTART" => {
                if let Some((w, h)) = parse_pair(rest) {
                    if (5..=32).contains(&w) && (5..=32).contains(&h) {
                        self.game.width = w;
                        self.game.height = h;
                        self.game.clear();
                    }
                }
            }
            "RESTART" => self.game.clear(),
            "TURN" | "PLAY" => {
                if let Some(p) = parse_pair(rest) {
                    if self.game.on_board(p) {
                        self.game.put(p);
                    }
                }
            }
            "TAKEBACK" => {
                if let Some(p) = parse_pair(rest) {
                    if self.game.stones.remove(&p) {
                        self.game.order.retain(|q| *q != p);
                    }
                }
            }
            "BOARD" | "YXBOARD" | "SWAP2BOARD" => {
                self.in_board = true;
                self.block_ok = rest.is_empty();
                self.block_fields = if word == "SWAP2BOARD" { 2 } else { 3 };
                self.pending.clear();
            }
            _ => {}
        }
    }
}

fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

struct Run {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Out>,
    log: Vec<String>,
    tracker: Tracker,
    /// Start of the latest group of sent lines (the manager's clock).
    clock: Instant,
    last_was_send: bool,
    /// A move was answered and nothing was sent since: MESSAGE lines are now forbidden.
    after_move: bool,
    exited: bool,
}

impl Run {
    fn start() -> Run {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-pentad"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start pbrain-pentad");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                match r.read_line(&mut line) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(Out::Eof(Instant::now()));
                        return;
                    }
                    Ok(_) => {
                        let _ = tx.send(Out::Line(line, Instant::now()));
                    }
                }
            }
        });
        Run {
            child,
            stdin,
            rx,
            log: Vec::new(),
            tracker: Tracker {
                game: Game::default(),
                in_board: false,
                block_fields: 3,
                block_ok: true,
                pending: Vec::new(),
            },
            clock: Instant::now(),
            last_was_send: false,
            after_move: false,
            exited: false,
        }
    }

    fn send(&mut self, text: &str, crlf: bool) -> Result<(), String> {
        let owned;
        let text = if text.contains("$free") {
            let (x, y) = self
                .tracker
                .game
                .free_point()
                .ok_or("no free point for $free")?;
            owned = text.replace("$free", &format!("{x},{y}"));
            owned.as_str()
        } else {
            text
        };
        if !self.last_was_send {
            self.clock = Instant::now();
        }
        self.last_was_send = true;
        self.after_move = false;
        self.tracker.sent(text);
        self.log.push(format!("> {text}"));
        let stdin = self.stdin.as_mut().ok_or("stdin already closed")?;
        let end = if crlf { "\r\n" } else { "\n" };
        stdin
            .write_all(format!("{text}{end}").as_bytes())
            .and_then(|_| stdin.flush())
            .map_err(|e| format!("write to brain failed: {e}"))
    }

    /// The next line that is not a MESSAGE/DEBUG line, within `limit` of the clock. MESSAGE lines
    /// after a move are an error unless another move is awaited (a queued command may have
    /// started the next search).
    fn next_answer(
        &mut self,
        limit: Duration,
        want_move: bool,
    ) -> Result<Option<(String, Duration)>, String> {
        self.last_was_send = false;
        loop {
            let deadline = self.clock + limit;
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(wait) {
                Ok(Out::Line(raw, at)) => {
                    let took = at.duration_since(self.clock);
                    if !raw.ends_with('\n') {
                        return Err(format!("line without newline: {raw:?}"));
                    }
                    let line = raw.trim_end_matches('\n').to_string();
                    self.log
                        .push(format!("< {line}    [{} ms]", took.as_millis()));
                    if line.contains('\r') || line != line.trim_end() {
                        return Err(format!("stray whitespace in {line:?}"));
                    }
                    if line.starts_with("MESSAGE") || line.starts_with("DEBUG") {
                        if self.after_move && !want_move {
                            return Err("MESSAGE/DEBUG after the move".into());
                        }
                        continue;
                    }
                    if took > limit {
                        return Err(format!(
                            "{TOO_SLOW} answer took {} ms > {} ms",
                            took.as_millis(),
                            limit.as_millis()
                        ));
                    }
                    return Ok(Some((line, took)));
                }
                Ok(Out::Eof(_)) => {
                    self.exited = true;
                    return Ok(None);
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "{TOO_SLOW} no answer within {} ms",
                        limit.as_millis()
                    ))
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
            }
        }
    }

    fn expect(&mut self, kind: &str, arg: &str, limit: Option<Duration>) -> Result<(), String> {
        match kind {
            "<none" => {
                let ms: u64 = arg.trim().parse().map_err(|_| "bad <none")?;
                self.last_was_send = false;
                return match self.rx.recv_timeout(Duration::from_millis(ms)) {
                    Ok(Out::Line(l, _)) => {
                        self.log.push(format!("< {}", l.trim_end()));
                        Err(format!("expected no answer, got {:?}", l.trim_end()))
                    }
                    Ok(Out::Eof(_)) => Err("brain exited".into()),
                    Err(_) => Ok(()),
                };
            }
            "<exit" => {
                self.last_was_send = false;
                let limit = limit.unwrap_or(EXIT_WAIT);
                let deadline = self.clock + limit;
                loop {
                    let wait = deadline.saturating_duration_since(Instant::now());
                    return match self.rx.recv_timeout(wait) {
                        // Written before END/EOF was sent (a fast search): not "after END".
                        Ok(Out::Line(l, at)) if at < self.clock => {
                            self.log.push(format!("< {}    [before]", l.trim_end()));
                            continue;
                        }
                        Ok(Out::Line(l, _)) => {
                            self.log.push(format!("< {}", l.trim_end()));
                            Err(format!("output after END/EOF: {:?}", l.trim_end()))
                        }
                        Ok(Out::Eof(at)) => {
                            self.exited = true;
                            let took = at.duration_since(self.clock);
                            self.log.push(format!("<exit    [{} ms]", took.as_millis()));
                            if took > limit {
                                return Err(format!(
                                    "{TOO_SLOW} exit took {} ms > {} ms",
                                    took.as_millis(),
                                    limit.as_millis()
                                ));
                            }
                            self.wait_exit(deadline)
                        }
                        Err(_) => Err(format!(
                            "{TOO_SLOW} brain did not exit within {} ms",
                            limit.as_millis()
                        )),
                    };
                }
            }
            _ => {}
        }
        let (line, _) = self
            .next_answer(limit.unwrap_or(DEFAULT_WAIT), kind == "<move")?
            .ok_or("brain exited instead of answering")?;
        match kind {
            "<" => {
                if line != arg {
                    return Err(format!("expected {arg:?}, got {line:?}"));
                }
            }
            "<~" => {
                if !arg.split(" | ").any(|alt| glob(alt, &line)) {
                    return Err(format!("expected pattern {arg:?}, got {line:?}"));
                }
            }
            "<move" => {
                let p = match line.split_once(',') {
                    Some((a, b))
                        if !a.is_empty()
                            && !b.is_empty()
                            && a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit()) =>
                    {
                        (
                            a.parse::<i64>().unwrap_or(-1),
                            b.parse::<i64>().unwrap_or(-1),
                        )
                    }
                    _ => return Err(format!("expected a move x,y, got {line:?}")),
                };
                let game = &mut self.tracker.game;
                if !game.on_board(p) {
                    return Err(format!(
                        "move {line} is off the {}x{} board",
                        game.width, game.height
                    ));
                }
                if game.stones.contains(&p) {
                    return Err(format!("move {line} is on an occupied point"));
                }
                let allowed: Vec<(i64, i64)> =
                    arg.split_whitespace().filter_map(parse_pair).collect();
                if !allowed.is_empty() && !allowed.contains(&p) {
                    return Err(format!("move {line} is not one of {arg}"));
                }
                game.put(p);
                self.after_move = true;
            }
            _ => return Err(format!("unknown expectation {kind}")),
        }
        Ok(())
    }

    fn wait_exit(&mut self, deadline: Instant) -> Result<(), String> {
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                return Ok(());
            }
            if Instant::now() > deadline + Duration::from_millis(200) {
                return Err("stdout closed but the process did not exit".into());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn step(&mut self, line: &str) -> Result<(), String> {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            return Ok(());
        }
        if let Some(text) = line.strip_prefix(">r ") {
            return self.send(text, true);
        }
        if let Some(text) = line.strip_prefix("> ") {
            return self.send(text, false);
        }
        if line == ">" {
            return self.send("", false);
        }
        if let Some(ms) = line.strip_prefix("!sleep ") {
            let ms: u64 = ms.trim().parse().map_err(|_| "bad !sleep")?;
            std::thread::sleep(Duration::from_millis(ms));
            // The next line sent starts a new clock.
            self.last_was_send = false;
            return Ok(());
        }
        if line == "!close" {
            // End of input starts a new clock: the brain must react to it.
            self.clock = Instant::now();
            self.last_was_send = true;
            self.after_move = false;
            self.stdin = None;
            self.log.push("!close".into());
            return Ok(());
        }
        if line.starts_with('<') {
            let (body, limit) = match line.rsplit_once(" @") {
                Some((b, ms)) if ms.trim().parse::<u64>().is_ok() => (
                    b,
                    Some(Duration::from_millis(ms.trim().parse().unwrap_or(0))),
                ),
                _ => (line, None),
            };
            let (kind, arg) = match body.split_once(' ') {
                Some((k, a)) => (k, a),
                None => (body, ""),
            };
            return self.expect(kind, arg, limit);
        }
        Err(format!("bad transcript line {line:?}"))
    }

    fn finish(&mut self) -> Result<(), String> {
        if !self.exited {
            self.stdin = None;
            self.clock = Instant::now();
            self.last_was_send = false;
            self.expect("<exit", "", Some(EXIT_WAIT))?;
        }
        Ok(())
    }
}

fn run_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut run = Run::start();
    let mut result = Ok(());
    for (no, line) in text.lines().enumerate() {
        if let Err(e) = run.step(line) {
            result = Err(format!("line {}: {line}\n  {e}", no + 1));
            break;
        }
    }
    if result.is_ok() {
        result = run.finish().map_err(|e| format!("at the end: {e}"));
    }
    let _ = run.child.kill();
    let _ = run.child.wait();
    result.map_err(|e| format!("{e}\n  exchange:\n    {}", run.log.join("\n    ")))
}

fn transcripts() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-tests");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("protocol-tests directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
}

#[test]
fn glob_matches() {
    assert!(glob("ERROR *", "ERROR bad move"));
    assert!(!glob("ERROR *", "OK"));
    assert!(glob("*", ""));
    assert!(glob("a*b*c", "a-b-c"));
    assert!(!glob("a*b*c", "a-c-b"));
    assert!(glob("OK", "OK"));
}

/// Every transcript passes. Files run one after another (the CI machine has two cores).
#[test]
fn transcripts_pass() {
    let files = transcripts();
    assert!(!files.is_empty(), "no transcripts found");
    let mut failures = Vec::new();
    for f in &files {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let t = Instant::now();
        let mut result = run_file(f);
        for attempt in 2..=TIMING_ATTEMPTS {
            match &result {
                Err(e) if e.contains(TOO_SLOW) => {
                    eprintln!(
                        "slow {name}, attempt {attempt}: {}",
                        e.lines().next().unwrap_or("")
                    );
                    result = run_file(f);
                }
                _ => break,
            }
        }
        match result {
            Ok(()) => eprintln!("ok   {name} ({} ms)", t.elapsed().as_millis()),
            Err(e) => {
                eprintln!("FAIL {name}: {e}");
                failures.push(format!("{name}: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} transcript(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

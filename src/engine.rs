//! The engine: owns the board, the options and the searcher; thinks on a worker thread.
//!
//! [`Engine::think`] never blocks: it hands a copy of the board to the worker thread, which owns
//! the [`Searcher`] (and so its hash table) and sleeps on a channel between moves, using no CPU.
//! When the search ends, the worker calls the `done` callback given to [`Engine::new`]; the
//! session then calls [`Engine::finish`] (the engine is idle again) and only then prints the move.
//! [`Engine::stop`] sets the shared stop flag the search polls.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::board::{Board, Color, Pos, Rule};
use crate::protocol::command::{BoardStone, Field};
use crate::protocol::output::Output;
use crate::search::params::DEFAULT_HASH_BYTES;
use crate::search::time::{self, Clock, Plan, Progress};
use crate::search::{score_is_loss, score_is_win, Control, IterationInfo, Limits, Searcher};

/// Largest hash table `INFO hash_size` may ask for: an allocation the machine cannot give aborts
/// the process (fuzz finding: `INFO hash_size 1073741824`, i.e. 1 TB, killed the brain at its
/// first real search with a failed allocation, and `INFO hash_size 9223372036854775807` with a
/// capacity overflow).
pub const MAX_HASH_BYTES: usize = 2 << 30;

/// `INFO max_memory` below this cannot be honoured (code, stacks and the board alone need a few
/// MB); the brain still plays, with the smallest table, and reports the problem.
pub const MIN_MEMORY_BYTES: i64 = 8 << 20;

/// At most this many moves for `YXNBEST` (each gets a share of the turn time).
pub const MAX_NBEST: usize = 20;

/// Longest principal variation printed in the per-iteration `MESSAGE`.
const PV_SHOWN: usize = 8;

/// Options set by `INFO` (besides the rule, which lives with the board).
#[derive(Clone, Debug)]
pub struct Options {
    /// Turn/match clock as received.
    pub clock: Clock,
    /// `max_memory` in bytes; 0 = no limit.
    pub max_memory: i64,
    /// `hash_size` in KB (Yixin-Board), if sent.
    pub hash_kb: Option<i64>,
    /// Search threads (`thread_num`).
    pub threads: usize,
    /// `max_depth`, if > 0.
    pub max_depth: Option<i32>,
    /// `max_node`, if > 0.
    pub max_nodes: Option<u64>,
    /// Print a `MESSAGE` per finished iteration.
    pub show_detail: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            clock: Clock::default(),
            max_memory: 0,
            hash_kb: None,
            threads: 1,
            max_depth: None,
            max_nodes: None,
            show_detail: true,
        }
    }
}

impl Options {
    /// Hash table bytes: `hash_size` or the default, never more than half of `max_memory` so the
    /// whole process (tables of the board, stacks, code) stays under the limit.
    pub fn hash_bytes(&self) -> usize {
        let want = match self.hash_kb {
            Some(kb) if kb > 0 => usize::try_from(kb)
                .unwrap_or(usize::MAX)
                .saturating_mul(1024)
                .min(MAX_HASH_BYTES),
            _ => DEFAULT_HASH_BYTES,
        };
        if self.max_memory > 0 {
            want.min(usize::try_from(self.max_memory / 2).unwrap_or(usize::MAX))
        } else {
            want
        }
    }
}

/// Why the engine is thinking: decides what the answer looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Task {
    /// Answer a move (BEGIN, TURN, BOARD, PLAY-less play).
    Move,
    /// `YXNBEST n`: report the n best moves, then answer the best.
    Nbest(usize),
    /// `SWAP2BOARD` with 3 or 5 stones: swap, or play the next (white) move.
    Swap2,
}

/// What a finished search hands back.
#[derive(Clone, Debug)]
pub struct ThinkResult {
    /// The task this search was for.
    pub task: Task,
    /// Best move found (always `Some` when the board had an empty point).
    pub best: Option<Pos>,
    /// Its score, side to move's view.
    pub score: i32,
    /// Depth of the last finished iteration.
    pub depth: i32,
    /// Nodes searched.
    pub nodes: u64,
    /// When the command that started this search was read.
    pub started: Instant,
}

enum Job {
    Think(Box<ThinkJob>),
    NewGame,
}

struct ThinkJob {
    board: Board,
    task: Task,
    plan: Plan,
    max_depth: Option<i32>,
    max_nodes: Option<u64>,
    started: Instant,
    hash_bytes: usize,
    threads: usize,
    show_detail: bool,
}

/// Callback for finished searches (called on the worker thread).
pub type DoneFn = Box<dyn Fn(ThinkResult) + Send>;

/// Owns the game and drives the worker thread.
pub struct Engine {
    /// Board size from START/RECTSTART; `None` before the first START.
    dims: Option<(usize, usize)>,
    /// The board, made on first use: START answers at once and the rule that usually follows it
    /// (`INFO rule`) does not cost a second board (and a second set of pattern tables).
    board: Option<Board>,
    rule: Rule,
    /// Options from `INFO`.
    pub options: Options,
    stop: Arc<AtomicBool>,
    thinking: bool,
    jobs: Sender<Job>,
    /// Rules whose read-only tables a background thread has been asked to build.
    warmed: Vec<Rule>,
}

/// The error for commands that need a game.
pub const NO_GAME: &str = "no game started (send START first)";

impl Engine {
    /// Starts the worker thread. `done` receives every finished search; `out` carries the
    /// per-iteration `MESSAGE` lines.
    pub fn new(out: Output, done: DoneFn) -> Engine {
        let stop = Arc::new(AtomicBool::new(false));
        let (jobs, rx) = channel::<Job>();
        let worker_stop = stop.clone();
        std::thread::Builder::new()
            .name("pentad-search".into())
            .spawn(move || {
                let mut searcher = Searcher::new();
                let mut hash_bytes = None;
                let mut threads = None;
                // Blocks between moves: no CPU is used while idle.
                while let Ok(job) = rx.recv() {
                    match job {
                        Job::NewGame => searcher.new_game(),
                        Job::Think(job) => {
                            if hash_bytes != Some(job.hash_bytes) {
                                searcher.set_hash_bytes(job.hash_bytes);
                                hash_bytes = Some(job.hash_bytes);
                            }
                            if threads != Some(job.threads) {
                                searcher.set_threads(job.threads);
                                threads = Some(job.threads);
                            }
                            let result = run_job(&mut searcher, &job, &worker_stop, &out);
                            done(result);
                        }
                    }
                }
            })
            .expect("spawn the search thread");
        let mut engine = Engine {
            dims: None,
            board: None,
            rule: Rule::Freestyle,
            options: Options::default(),
            stop,
            thinking: false,
            jobs,
            warmed: Vec::new(),
        };
        engine.warm_up(Rule::Freestyle);
        engine
    }

    /// Builds the board's read-only tables for `rule` on a short-lived background thread, so that
    /// the first move after START or `INFO rule` does not pay for them when the manager leaves
    /// time in between (Piskvork, c-gomoku-cli wait for `OK`). When it does not (GomocupJudge),
    /// the first board waits for the same one-time build it would have done itself.
    fn warm_up(&mut self, rule: Rule) {
        if self.warmed.contains(&rule) {
            return;
        }
        self.warmed.push(rule);
        let spawned = std::thread::Builder::new()
            .name("pentad-warmup".into())
            .spawn(move || {
                let _ = Board::new(5, 5, rule);
            });
        if let Err(e) = spawned {
            log::warn!("could not start the table warm-up thread: {e}");
        }
    }

    /// Board size, if a game was started.
    pub fn dims(&self) -> Option<(usize, usize)> {
        self.dims
    }

    /// Stones on the board (0 before the first START).
    pub fn move_count(&self) -> usize {
        self.board.as_ref().map_or(0, |b| b.move_count())
    }

    /// The current board, if a game was started (made on first use).
    pub fn board(&mut self) -> Option<&Board> {
        self.board_mut().ok().map(|b| &*b)
    }

    fn board_mut(&mut self) -> Result<&mut Board, String> {
        let (w, h) = self.dims.ok_or(NO_GAME)?;
        if self.board.is_none() {
            self.board = Some(Board::new(w, h, self.rule).map_err(|e| format!("{e:#}"))?);
        }
        self.board.as_mut().ok_or_else(|| NO_GAME.to_string())
    }

    fn empty_board(&self) -> Result<Board, String> {
        let (w, h) = self.dims.ok_or(NO_GAME)?;
        Board::new(w, h, self.rule).map_err(|e| format!("{e:#}"))
    }

    /// The current rule.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Whether a search is running.
    pub fn is_thinking(&self) -> bool {
        self.thinking
    }

    /// Asks the running search (if any) to stop now and answer its best move so far.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// New empty `width`×`height` board; the hash table is kept but cleared (lazily allocated by
    /// the searcher, so this costs nothing before the first search).
    pub fn start(&mut self, width: usize, height: usize) {
        self.dims = Some((width, height));
        self.board = None;
        self.new_game();
    }

    /// New game on the same board size.
    pub fn restart(&mut self) -> Result<(), String> {
        self.dims.ok_or(NO_GAME)?;
        self.board = None;
        self.new_game();
        Ok(())
    }

    fn new_game(&mut self) {
        self.options.clock.used_ms = 0;
        let _ = self.jobs.send(Job::NewGame);
    }

    /// `YXHASHCLEAR`: forget everything the searcher learnt.
    pub fn clear_hash(&mut self) {
        let _ = self.jobs.send(Job::NewGame);
    }

    /// Changes the rule; stones already on the board are kept.
    pub fn set_rule(&mut self, rule: Rule) -> Result<(), String> {
        if rule == self.rule {
            return Ok(());
        }
        self.warm_up(rule);
        match self.board.as_ref() {
            Some(b) if b.move_count() > 0 => {
                let rebuilt = rebuild(b, rule, None)?;
                self.board = Some(rebuilt);
                let _ = self.jobs.send(Job::NewGame);
            }
            // An empty board is simply made again, under the new rule, when first needed.
            _ => self.board = None,
        }
        self.rule = rule;
        Ok(())
    }

    /// `TURN x,y`: the opponent's stone. On error the board is unchanged.
    pub fn play_opponent(&mut self, x: i64, y: i64) -> Result<(), String> {
        let b = self.board_mut()?;
        b.try_play(x, y)
            .map(|_| ())
            .map_err(|e| format!("cannot play {x},{y}: {e}"))
    }

    /// `PLAY x,y`: the manager imposes our stone. On error the board is unchanged.
    pub fn play_own(&mut self, x: i64, y: i64) -> Result<(), String> {
        self.play_opponent(x, y)
    }

    /// `TAKEBACK x,y`: removes that stone (normally the last one). On error the board is unchanged.
    pub fn takeback(&mut self, x: i64, y: i64) -> Result<(), String> {
        let b = self.board_mut()?;
        let p = b
            .pos(x, y)
            .ok_or_else(|| format!("TAKEBACK {x},{y} is off the board"))?;
        if b.is_empty(p) {
            return Err(format!("TAKEBACK {x},{y}: no stone there"));
        }
        if b.last_move() == Some(p) {
            b.undo();
        } else {
            let rebuilt = rebuild(b, b.rule(), Some(p))?;
            *b = rebuilt;
        }
        Ok(())
    }

    /// `BOARD`/`YXBOARD`: a whole new position, the brain to move. Field 1 stones are ours.
    /// On error the board is unchanged.
    pub fn set_position(&mut self, stones: &[BoardStone]) -> Result<(), String> {
        let mut b = self.empty_board()?;
        let own_n = stones.iter().filter(|s| s.field == Field::Own).count();
        let opp_n = stones.iter().filter(|s| s.field == Field::Opponent).count();
        // Black moves when both sides have as many stones; otherwise we are white.
        let own = if own_n == opp_n {
            Color::Black
        } else {
            Color::White
        };
        // Walls (field 3) first, as opponent stones: they only need to be "occupied". Then the
        // stones in the order given, except that the last opponent-coloured stone goes last so
        // that the side to move is ours (a no-op when lines come in move order, as for renju).
        let mut order: Vec<(i64, i64, Color)> = Vec::with_capacity(stones.len());
        for s in stones.iter().filter(|s| s.field == Field::Wall) {
            order.push((s.x, s.y, own.opp()));
        }
        for s in stones.iter().filter(|s| s.field != Field::Wall) {
            let c = if s.field == Field::Own {
                own
            } else {
                own.opp()
            };
            order.push((s.x, s.y, c));
        }
        if let Some(i) = order.iter().rposition(|s| s.2 != own) {
            let last = order.remove(i);
            order.push(last);
        } else if !order.is_empty() {
            return Err(
                "position has only own stones: the brain cannot be the side to move".into(),
            );
        }
        for (x, y, c) in order {
            b.try_place(x, y, c)
                .map_err(|e| format!("stone {x},{y}: {e}"))?;
        }
        self.board = Some(b);
        Ok(())
    }

    /// `SWAP2BOARD`: stones in move order, black first. On error the board is unchanged.
    pub fn set_swap2_position(&mut self, stones: &[(i64, i64)]) -> Result<(), String> {
        let mut b = self.empty_board()?;
        for &(x, y) in stones {
            b.try_play(x, y)
                .map_err(|e| format!("stone {x},{y}: {e}"))?;
        }
        self.board = Some(b);
        Ok(())
    }

    /// Renju forbidden points for black, as `(x, y)`, row by row.
    pub fn forbidden_points(&mut self) -> Result<Vec<(usize, usize)>, String> {
        let b = self.board_mut()?;
        let mut out = Vec::new();
        for y in 0..b.height() {
            for x in 0..b.width() {
                if let Some(p) = b.pos(x as i64, y as i64) {
                    if b.is_empty(p) && b.is_forbidden(p) {
                        out.push((x, y));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Starts thinking for the side to move; returns at once. `started` is when the command was
    /// read: the manager's clock runs from then, so deadlines count from it.
    pub fn think(&mut self, task: Task, started: Instant) -> Result<(), String> {
        if self.thinking {
            return Err("already thinking".into());
        }
        let b = self.board_mut()?;
        if b.is_full() {
            return Err("the board is full".into());
        }
        let b = b.clone();
        let plan = time::plan_for(&self.options.clock, &b);
        // "As fast as possible": the best immediate move, i.e. a one-ply search.
        let max_depth = if plan.instant {
            Some(1)
        } else {
            self.options.max_depth
        };
        let job = ThinkJob {
            board: b,
            task,
            plan,
            max_depth,
            max_nodes: self.options.max_nodes,
            started,
            hash_bytes: self.options.hash_bytes(),
            threads: self.options.threads.max(1),
            show_detail: self.options.show_detail,
        };
        self.stop.store(false, Ordering::SeqCst);
        self.thinking = true;
        if self.jobs.send(Job::Think(Box::new(job))).is_err() {
            self.thinking = false;
            return Err("the search thread is gone".into());
        }
        Ok(())
    }

    /// Marks the engine idle after a search and books its time. For [`Task::Move`] and
    /// [`Task::Nbest`] use [`Engine::commit`] to put the chosen stone on the board.
    pub fn finish(&mut self, r: &ThinkResult) {
        self.thinking = false;
        let used = r.started.elapsed().as_millis().min(i64::MAX as u128) as i64;
        self.options.clock.used_ms = self.options.clock.used_ms.saturating_add(used);
    }

    /// The move to answer for a result: the search's, or (should it have none) any legal point.
    /// Puts it on the board and returns its coordinates.
    pub fn commit(&mut self, r: &ThinkResult) -> Option<(usize, usize)> {
        let b = self.board.as_mut()?;
        let p = r
            .best
            .filter(|&p| b.is_empty(p))
            .or_else(|| any_legal_point(b))?;
        let (x, y) = b.xy(p);
        b.try_play(x as i64, y as i64).ok()?;
        Some((x, y))
    }
}

/// A legal point when the search gave none: the empty point nearest the centre (not forbidden).
fn any_legal_point(b: &Board) -> Option<Pos> {
    let (cx, cy) = (b.width() as i64 / 2, b.height() as i64 / 2);
    let mut best: Option<(i64, Pos)> = None;
    for y in 0..b.height() as i64 {
        for x in 0..b.width() as i64 {
            if let Some(p) = b.pos(x, y) {
                if b.is_empty(p) && !(b.side_to_move() == Color::Black && b.is_forbidden(p)) {
                    let d = (x - cx).abs().max((y - cy).abs());
                    if best.is_none_or(|(bd, _)| d < bd) {
                        best = Some((d, p));
                    }
                }
            }
        }
    }
    best.map(|(_, p)| p)
}

/// The same stones (and colours, in the same order) on a fresh board under `rule`, without `skip`.
fn rebuild(b: &Board, rule: Rule, skip: Option<Pos>) -> Result<Board, String> {
    let mut nb = Board::new(b.width(), b.height(), rule).map_err(|e| e.to_string())?;
    for &p in b.moves() {
        if Some(p) == skip {
            continue;
        }
        let (x, y) = b.xy(p);
        let c = b.stone(p).unwrap_or(Color::Black);
        nb.try_place(x as i64, y as i64, c)
            .map_err(|e| format!("rebuilding the board: {e}"))?;
    }
    Ok(nb)
}

/// Formats a move list as `x,y x,y …`.
fn fmt_moves(b: &Board, moves: &[Pos]) -> String {
    moves
        .iter()
        .map(|&p| {
            let (x, y) = b.xy(p);
            format!("{x},{y}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs one search job on the worker thread.
fn run_job(
    searcher: &mut Searcher,
    job: &ThinkJob,
    stop: &AtomicBool,
    out: &Output,
) -> ThinkResult {
    let n = match job.task {
        Task::Nbest(n) => n.clamp(1, MAX_NBEST),
        _ => 1,
    };
    let mut first: Option<ThinkResult> = None;
    let mut exclude: Vec<Pos> = Vec::new();
    for i in 0..n {
        // Each of the n searches gets an equal share of the time.
        let share = |d: Duration| d.mul_f64((i + 1) as f64 / n as f64);
        let plan = Plan {
            soft: share(job.plan.soft),
            hard: share(job.plan.hard),
            instant: job.plan.instant,
        };
        let limits = Limits {
            max_depth: job.max_depth,
            max_nodes: job.max_nodes,
            hard_deadline: Some(job.started + plan.hard),
            exclude: exclude.clone(),
        };
        let r = search_once(searcher, job, &plan, &limits, stop, out);
        if n > 1 {
            match r.best {
                Some(p) => {
                    let (x, y) = job.board.xy(p);
                    out.message(&format!(
                        "nbest {} {x},{y} eval {} depth {}",
                        i + 1,
                        r.score,
                        r.depth
                    ));
                    exclude.push(p);
                }
                None => break,
            }
        }
        if first.is_none() {
            first = Some(r);
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
    }
    first.unwrap_or(ThinkResult {
        task: job.task,
        best: None,
        score: 0,
        depth: 0,
        nodes: 0,
        started: job.started,
    })
}

/// One search with the soft-stop rule and the per-iteration `MESSAGE`.
fn search_once(
    searcher: &mut Searcher,
    job: &ThinkJob,
    plan: &Plan,
    limits: &Limits,
    stop: &AtomicBool,
    out: &Output,
) -> ThinkResult {
    let mut last_best: Option<Pos> = None;
    let mut stable = 0u32;
    let mut prev_score: Option<i32> = None;
    let mut prev_elapsed = Duration::ZERO;
    let mut on_iter = |info: &IterationInfo| -> Control {
        let elapsed = job.started.elapsed();
        if job.show_detail {
            let secs = info.elapsed.as_secs_f64();
            let nps = if secs > 0.0 {
                (info.nodes as f64 / secs) as u64
            } else {
                0
            };
            let pv = &info.pv[..info.pv.len().min(PV_SHOWN)];
            out.message(&format!(
                "depth {} eval {} nodes {} nps {} time {} pv {}",
                info.depth,
                info.score,
                info.nodes,
                nps,
                elapsed.as_millis(),
                fmt_moves(&job.board, pv)
            ));
        }
        if last_best == Some(info.best) {
            stable += 1;
        } else {
            stable = 1;
            last_best = Some(info.best);
        }
        let last_iteration = info.elapsed.saturating_sub(prev_elapsed);
        prev_elapsed = info.elapsed;
        let progress = Progress {
            elapsed,
            last_iteration,
            stable_iterations: stable,
            score: info.score,
            prev_score,
            decided: score_is_win(info.score) || score_is_loss(info.score),
        };
        prev_score = Some(info.score);
        if time::should_stop(plan, &progress) {
            Control::Stop
        } else {
            Control::Continue
        }
    };
    let r = searcher.search(&job.board, limits, stop, &mut on_iter);
    ThinkResult {
        task: job.task,
        best: r.best,
        score: r.score,
        depth: r.depth,
        nodes: r.nodes,
        started: job.started,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (fuzz finding): any `hash_size` gives a table the machine can allocate, and
    /// `max_memory` still caps it.
    #[test]
    fn hash_bytes_is_bounded() {
        let mut o = Options::default();
        assert_eq!(o.hash_bytes(), DEFAULT_HASH_BYTES);
        for kb in [1 << 30, i64::MAX, 1 << 40] {
            o.hash_kb = Some(kb);
            assert_eq!(o.hash_bytes(), MAX_HASH_BYTES, "{kb}");
        }
        o.max_memory = 367_001_600;
        assert_eq!(o.hash_bytes(), 367_001_600 / 2);
        o.hash_kb = Some(1024);
        assert_eq!(o.hash_bytes(), 1 << 20);
    }
}

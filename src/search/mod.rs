//! Iterative-deepening alpha-beta search, threat solvers, transposition table, time management.
//!
//! `Searcher` owns the transposition table and the move-ordering history, and runs one search at a time on a
//! clone of the caller's board. The search never prints: it reports each finished iteration through a callback
//! and returns a `SearchResult`.

pub mod alphabeta;
pub mod movepick;
pub mod params;
pub mod threat;
pub mod time;
pub mod tt;

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::board::{Board, Pos};
use crate::eval::evaluate;
use crate::pattern::Threat;

use alphabeta::{win_in, RootMove, Worker};
use movepick::{allowed, generate, OrderInfo};
use params::{
    Pruning, ASPIRATION_MIN_DEPTH, DEFAULT_HASH_BYTES, INF, MAX_DEPTH, MIN_HASH_BYTES,
    ROOT_THREAT_NODES_PER_MS, ROOT_VCF_NODES, ROOT_VCT_NODES, WIN, WIN_BOUND,
};
use threat::{ThreatSolver, VcfOutcome};
use tt::Tt;

/// Limits of one search. `Default` means no limits at all (the caller must then stop it through the flag).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Deepest iteration to run.
    pub max_depth: Option<i32>,
    /// Node budget; the search stops as soon as it is reached (deterministic).
    pub max_nodes: Option<u64>,
    /// Time at which the search stops wherever it is.
    pub hard_deadline: Option<Instant>,
    /// Root moves not to play (for `YXNBEST`).
    pub exclude: Vec<Pos>,
}

/// What the time manager learns after each finished iteration.
#[derive(Clone, Debug)]
pub struct IterationInfo {
    /// Depth of the iteration just finished.
    pub depth: i32,
    /// Its score for the side to move.
    pub score: i32,
    /// Its best move.
    pub best: Pos,
    /// Nodes so far in this search.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Principal variation, starting with `best`.
    pub pv: Vec<Pos>,
    /// How often the best move changed during this iteration (including from the previous iteration's best).
    pub best_changes: u32,
}

/// The callback's answer after an iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Run the next iteration.
    Continue,
    /// Stop now and return the result of the finished iteration.
    Stop,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// Move to play; `None` only if the board has no empty cell.
    pub best: Option<Pos>,
    /// Score of `best` for the side to move (see `score_is_win`).
    pub score: i32,
    /// Depth of the last finished iteration (0 if none finished).
    pub depth: i32,
    /// Nodes visited.
    pub nodes: u64,
    /// Principal variation of the last finished iteration.
    pub pv: Vec<Pos>,
}

/// True if `s` is a proven win for the side to move.
pub fn score_is_win(s: i32) -> bool {
    s >= WIN_BOUND
}

/// True if `s` is a proven loss for the side to move.
pub fn score_is_loss(s: i32) -> bool {
    s <= -WIN_BOUND
}

/// Plies until the five of a proven win or loss score (`None` for ordinary scores).
pub fn mate_distance(s: i32) -> Option<i32> {
    if score_is_win(s) || score_is_loss(s) {
        Some(WIN - s.abs())
    } else {
        None
    }
}

/// The search: transposition table, history, options.
pub struct Searcher {
    /// The shared hash table (allocated on the first search).
    tt: Tt,
    /// Worker threads to use (1 = single-threaded).
    threads: usize,
    /// History counters kept between moves of one game.
    history: Vec<i32>,
    /// Row length the history was built for.
    stride: usize,
    /// Threat solver for the root (built on the first search; its proof table persists).
    solver: Option<ThreatSolver>,
}

impl Default for Searcher {
    fn default() -> Self {
        Self::new()
    }
}

impl Searcher {
    /// A searcher with the default table size; no memory is allocated until the first search.
    pub fn new() -> Searcher {
        Searcher {
            tt: Tt::new(DEFAULT_HASH_BYTES),
            threads: 1,
            history: Vec::new(),
            stride: 0,
            solver: None,
        }
    }

    /// Sets the table size in bytes (allocated lazily on the next search).
    pub fn set_hash_bytes(&mut self, bytes: usize) {
        self.tt.resize(bytes.max(MIN_HASH_BYTES));
    }

    /// Sets the number of search threads (at least 1).
    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.max(1);
    }

    /// Forgets everything learned: table, history, threat proofs.
    pub fn new_game(&mut self) {
        self.tt.clear();
        if let Some(s) = self.solver.as_mut() {
            s.clear();
        }
        self.history.clear();
        self.stride = 0;
    }

    /// Searches `board` for the side to move within `limits`, calling `on_iter` after each finished iteration.
    pub fn search(
        &mut self,
        board: &Board,
        limits: &Limits,
        stop: &AtomicBool,
        on_iter: &mut dyn FnMut(&IterationInfo) -> Control,
    ) -> SearchResult {
        let start = Instant::now();
        // 1. Root moves. Trivial cases need no table.
        let stride = max_pos(board) + 1;
        if stride != self.stride {
            self.stride = stride;
            self.history = vec![0; 2 * stride];
        }
        let mut roots = self.root_moves(board, &limits.exclude);
        let Some(first) = roots.first().map(|r| r.pos) else {
            return SearchResult {
                best: None,
                score: 0,
                depth: 0,
                nodes: 0,
                pv: Vec::new(),
            };
        };
        let me = board.side_to_move();
        if board.move_count() == 0 || board.threat(first, me) == Threat::Five {
            let score = if board.move_count() == 0 {
                0
            } else {
                win_in(1)
            };
            let info = IterationInfo {
                depth: 1,
                score,
                best: first,
                nodes: 1,
                elapsed: start.elapsed(),
                pv: vec![first],
                best_changes: 0,
            };
            on_iter(&info);
            return SearchResult {
                best: Some(first),
                score,
                depth: 1,
                nodes: 1,
                pv: vec![first],
            };
        }
        // 2. Threat solvers at the root: a proven win is played at once.
        let solver = self.solver.get_or_insert_with(ThreatSolver::new);
        let mut root_board = board.clone();
        let mut threat_nodes = 0;
        let root_budget = |nodes: u64| {
            match limits.hard_deadline {
                Some(d) => {
                    let ms = d.saturating_duration_since(Instant::now()).as_millis() as u64;
                    nodes.min(ms.saturating_mul(ROOT_THREAT_NODES_PER_MS))
                }
                None => nodes,
            }
            .min(limits.max_nodes.unwrap_or(u64::MAX) / 2)
        };
        for (vct, budget) in [(false, ROOT_VCF_NODES), (true, ROOT_VCT_NODES)] {
            let budget = root_budget(budget);
            if budget == 0 {
                break;
            }
            let outcome = if vct {
                solver.vct(&mut root_board, budget, stop)
            } else {
                solver.vcf(&mut root_board, budget, stop)
            };
            threat_nodes += solver.nodes();
            if let VcfOutcome::Win(line) = outcome {
                if let Some(&first) = line.first().filter(|p| roots.iter().any(|r| r.pos == **p)) {
                    let score = win_in(line.len().max(1));
                    let info = IterationInfo {
                        depth: line.len() as i32,
                        score,
                        best: first,
                        nodes: threat_nodes,
                        elapsed: start.elapsed(),
                        pv: line.clone(),
                        best_changes: 0,
                    };
                    on_iter(&info);
                    return SearchResult {
                        best: Some(first),
                        score,
                        depth: line.len() as i32,
                        nodes: threat_nodes,
                        pv: line,
                    };
                }
            }
        }
        // 3. The table and one worker.
        self.tt.ensure_allocated();
        self.tt.new_search();
        let history = std::mem::take(&mut self.history);
        let mut w = Worker::new(root_board, &self.tt, stop, history, stride);
        w.nodes = threat_nodes;
        w.deadline = limits.hard_deadline;
        w.max_nodes = limits.max_nodes.unwrap_or(u64::MAX);
        let max_depth = limits.max_depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let mut result = SearchResult {
            best: Some(first),
            score: evaluate(board),
            depth: 0,
            nodes: 0,
            pv: vec![first],
        };
        // 4. Iterative deepening with aspiration windows.
        let aspiration_delta = Pruning::for_rule(board.rule()).aspiration_delta;
        let mut prev_score = 0;
        for depth in 1..=max_depth {
            let mut changes = 0;
            let use_window = depth >= ASPIRATION_MIN_DEPTH
                && !score_is_win(prev_score)
                && !score_is_loss(prev_score);
            let mut delta = aspiration_delta;
            let (mut alpha, mut beta) = if use_window {
                (prev_score - delta, prev_score + delta)
            } else {
                (-INF, INF)
            };
            let score = loop {
                // The root counts as a node too, under the same exact limit as every other node.
                if w.count_node() {
                    break 0;
                }
                let s = w.root(&mut roots, depth, alpha, beta, &mut changes);
                if w.aborted {
                    break s;
                }
                if s <= alpha && alpha > -INF {
                    // A fail low re-centres the window on the fail-soft score, and the upper bound comes down
                    // halfway (a fail high widens from the fail-soft score too).
                    beta = (alpha + beta) / 2;
                    alpha = if delta > 4 * aspiration_delta {
                        -INF
                    } else {
                        (s - delta).max(-INF)
                    };
                    delta *= 2;
                } else if s >= beta && beta < INF {
                    // A proven win needs no exact distance: the move wins, and proving the shortest mate
                    // costs many times more. Wider windows stop at the smallest win score for the same reason.
                    if score_is_win(s) {
                        break s;
                    }
                    beta = if delta > 4 * aspiration_delta {
                        WIN_BOUND
                    } else {
                        (s + delta).min(WIN_BOUND)
                    };
                    delta *= 2;
                } else {
                    break s;
                }
            };
            if w.aborted {
                // A root move proven better than the last finished iteration's best before the stop came is
                // still the better move: play it (its score is a lower bound at this depth).
                if changes > 0 && roots[0].score > -INF {
                    let pv = w.root_pv();
                    result.best = Some(roots[0].pos);
                    result.score = roots[0].score;
                    result.pv = if pv.first() == Some(&roots[0].pos) {
                        pv
                    } else {
                        vec![roots[0].pos]
                    };
                }
                break;
            }
            prev_score = score;
            let best = roots[0].pos;
            let mut pv = w.root_pv();
            if pv.first() != Some(&best) {
                pv = vec![best];
            }
            result = SearchResult {
                best: Some(best),
                score,
                depth,
                nodes: w.nodes,
                pv: pv.clone(),
            };
            let info = IterationInfo {
                depth,
                score,
                best,
                nodes: w.nodes,
                elapsed: start.elapsed(),
                pv,
                best_changes: changes,
            };
            if on_iter(&info) == Control::Stop {
                break;
            }
            // A single legal move, or a win proven within the horizon, cannot change with more depth.
            if roots.len() == 1 || (score_is_win(score) && WIN - score <= depth) {
                break;
            }
        }
        result.nodes = w.nodes;
        self.history = std::mem::take(&mut w.history);
        result
    }

    /// The root moves in their initial order; never empty if the board has an allowed empty cell.
    fn root_moves(&self, board: &Board, exclude: &[Pos]) -> Vec<RootMove> {
        let me = board.side_to_move();
        let keep = |p: Pos| !exclude.contains(&p) && allowed(board, p, me);
        let mut out: Vec<Pos> = Vec::new();
        if board.move_count() == 0 {
            let (w, h) = (board.width() as i64, board.height() as i64);
            if let Some(c) = board.pos(w / 2, h / 2).filter(|&p| keep(p)) {
                out.push(c);
            }
        } else {
            // Our own five first: nothing else matters.
            out.extend(
                board
                    .candidates()
                    .filter(|&p| board.threat(p, me) == Threat::Five && keep(p))
                    .take(1),
            );
            if out.is_empty() {
                let hist_start = me.index() * self.stride;
                let info = OrderInfo {
                    tt_move: self.tt.probe(board.hash()).and_then(|e| e.mv),
                    killers: [None; 2],
                    history: self
                        .history
                        .get(hist_start..hist_start + self.stride)
                        .unwrap_or(&[]),
                };
                let mut moves = Vec::new();
                generate(&mut board.clone(), &info, &mut moves);
                moves.sort_by(|a, b| b.score.cmp(&a.score).then(a.pos.cmp(&b.pos)));
                out.extend(moves.iter().map(|m| m.pos).filter(|&p| keep(p)));
            }
        }
        // Fallbacks: any candidate, then any empty cell (a lost position still gets a legal move).
        if out.is_empty() {
            out.extend(board.candidates().filter(|&p| keep(p)));
        }
        if out.is_empty() {
            for y in 0..board.height() as i64 {
                for x in 0..board.width() as i64 {
                    if let Some(p) = board.pos(x, y).filter(|&p| board.is_empty(p) && keep(p)) {
                        out.push(p);
                    }
                }
            }
        }
        out.into_iter()
            .map(|pos| RootMove { pos, score: -INF })
            .collect()
    }
}

/// Largest `Pos` of an on-board cell.
fn max_pos(board: &Board) -> usize {
    let mut m = 0;
    for y in 0..board.height() as i64 {
        for x in 0..board.width() as i64 {
            if let Some(p) = board.pos(x, y) {
                m = m.max(usize::from(p));
            }
        }
    }
    m
}

#[cfg(test)]
mod tests;

//! The search proper: iterative deepening over a principal-variation, fail-soft negamax with aspiration windows.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::board::{Board, Color, Pos, Rule};
use crate::eval::evaluate;
use crate::pattern::Threat;

use super::movepick::{allowed, generate, makes_four, pick, GenKind, OrderInfo, ScoredMove};
use super::params::{
    Pruning, DISTANT_DEFENCE_CELLS, EVAL_LIMIT, HISTORY_MAX, INF, LMR_DISTANT_FROM_OPP,
    LMR_DISTANT_FROM_OWN, LMR_MIN_DEPTH, MAX_PLY, MCP_POWER, NULL_MOVE, NULL_MOVE_BASE_R,
    NULL_MOVE_DEPTH_PER_R, NULL_MOVE_MAX_CELLS, NULL_MOVE_MIN_DEPTH, POLL_NODES, QS_MAX_PLY,
    QS_NEAR_CELLS, RAZOR_DEPTH, ROOT_LMR_MIN_MOVES, TRIVIAL_PRUNE_DEPTH, WIN, WIN_BOUND,
};
use super::threat::find_cell;
use super::tt::{Bound, Tt};

/// Score for the side to move when it makes five with its next stone at `ply` (the five lands on ply + 1).
#[inline]
pub fn win_in(ply: usize) -> i32 {
    WIN - ply as i32
}

/// Converts a score relative to the root into one relative to the node at `ply` (for the table).
#[inline]
fn score_to_tt(s: i32, ply: usize) -> i32 {
    if s >= WIN_BOUND {
        s + ply as i32
    } else if s <= -WIN_BOUND {
        s - ply as i32
    } else {
        s
    }
}

/// Inverse of `score_to_tt`.
#[inline]
fn score_from_tt(s: i32, ply: usize) -> i32 {
    if s >= WIN_BOUND {
        s - ply as i32
    } else if s <= -WIN_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// One root move with its last score.
#[derive(Clone, Copy, Debug)]
pub struct RootMove {
    /// The move.
    pub pos: Pos,
    /// Score in the current (or last) iteration; `-INF` if it failed low without a bound.
    pub score: i32,
}

/// Per-thread search state. Owns a clone of the root board; everything else is preallocated so nodes allocate
/// nothing.
pub struct Worker<'a> {
    /// The board, played forward and back during the search.
    pub board: Board,
    /// Shared transposition table.
    pub tt: &'a Tt,
    /// External stop request.
    pub stop: &'a AtomicBool,
    /// Hard deadline.
    pub deadline: Option<Instant>,
    /// Node limit (`u64::MAX` if none).
    pub max_nodes: u64,
    /// Nodes visited.
    pub nodes: u64,
    /// Next node count at which the stop flag and clock are polled.
    next_poll: u64,
    /// Set once a limit or stop was hit: every node returns at once and the iteration is discarded.
    pub aborted: bool,
    /// History counters, `[color][pos]` flattened with `stride`.
    pub history: Vec<i32>,
    /// Row length of `history` (largest `Pos` + 1).
    pub stride: usize,
    /// Two killer moves per ply.
    pub killers: Vec<[Option<Pos>; 2]>,
    /// One reusable move buffer per ply.
    buffers: Vec<Vec<ScoredMove>>,
    /// Triangular principal-variation table, `MAX_PLY` entries per ply.
    pv: Vec<Pos>,
    /// Length of the principal variation stored at each ply.
    pv_len: Vec<usize>,
    /// Whether the rule makes a static open-four win safe (caro's blocked-five rule can turn one).
    flex4_is_win: bool,
    /// Whether the null move is used: never while `NULL_MOVE` is off; when on, on freestyle boards up to 15x15
    /// only (it lost in renju and on 20x20 and did not gain in standard).
    null_move: bool,
    /// Per colour to move, whether its distant moves facing an open three are reduced and pruned (every rule but
    /// renju, where only white, which has no forbidden points, gained from it).
    distant_defence: [bool; 2],
    /// Static evaluation of the node at each ply (for "improving").
    evals: Vec<i32>,
    /// The rule's reduction and pruning sizes.
    pruning: Pruning,
    /// `lmr_scale.sqrt() * ln(n)` for n up to the number of cells (reductions multiply two of them).
    lmr_ln: Vec<f32>,
    /// Move-count pruning limit per remaining depth, `[improving][depth]`.
    mcp_limit: [Vec<usize>; 2],
}

impl<'a> Worker<'a> {
    /// A worker for `board`, with history and killers handed in (and handed back by the caller afterwards).
    pub fn new(
        board: Board,
        tt: &'a Tt,
        stop: &'a AtomicBool,
        history: Vec<i32>,
        stride: usize,
    ) -> Worker<'a> {
        let board_rule = board.rule();
        let pruning = Pruning::for_rule(board_rule);
        let flex4_is_win = matches!(board_rule, Rule::Freestyle | Rule::Standard | Rule::Renju);
        let mut buffers = Vec::with_capacity(MAX_PLY + 1);
        let cells = board.width() * board.height();
        let null_move =
            NULL_MOVE && board.rule() == Rule::Freestyle && cells <= NULL_MOVE_MAX_CELLS;
        for _ in 0..=MAX_PLY {
            buffers.push(Vec::with_capacity(cells));
        }
        Worker {
            board,
            tt,
            stop,
            deadline: None,
            max_nodes: u64::MAX,
            nodes: 0,
            next_poll: POLL_NODES,
            aborted: false,
            history,
            stride,
            killers: vec![[None; 2]; MAX_PLY + 1],
            buffers,
            pv: vec![0; (MAX_PLY + 1) * (MAX_PLY + 1)],
            pv_len: vec![0; MAX_PLY + 1],
            flex4_is_win,
            null_move,
            distant_defence: [board_rule != Rule::Renju, true],
            evals: vec![0; MAX_PLY + 1],
            pruning,
            lmr_ln: (0..=cells.max(MAX_PLY))
                .map(|n| pruning.lmr_scale.sqrt() * (n.max(1) as f32).ln())
                .collect(),
            mcp_limit: [pruning.mcp_not_improving, 1.0].map(|share| {
                (0..=MAX_PLY)
                    .map(|d| {
                        let count =
                            pruning.mcp_base + pruning.mcp_scale * (d as f32).powf(MCP_POWER);
                        (share * count) as usize
                    })
                    .collect()
            }),
        }
    }

    /// Polls the stop flag and the clock.
    #[cold]
    fn poll(&mut self) {
        self.next_poll = self.nodes + POLL_NODES;
        if self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.aborted = true;
        }
    }

    /// Counts a node and checks the limits; true if the search must unwind.
    #[inline]
    pub(super) fn count_node(&mut self) -> bool {
        // A re-search started after the limit was hit (the caller checks `aborted` only after its last child)
        // must not count past the limit.
        if self.aborted {
            return true;
        }
        self.nodes += 1;
        if self.nodes >= self.max_nodes {
            self.aborted = true;
        } else if self.nodes >= self.next_poll {
            self.poll();
        }
        self.aborted
    }

    /// The principal variation found at the root by the last completed search call.
    pub fn root_pv(&self) -> Vec<Pos> {
        self.pv[..self.pv_len[0]].to_vec()
    }

    /// Records `mv` followed by the child's PV as the PV of `ply`.
    #[inline]
    fn update_pv(&mut self, ply: usize, mv: Pos) {
        let (head, tail) = self.pv.split_at_mut((ply + 1) * (MAX_PLY + 1));
        let row = &mut head[ply * (MAX_PLY + 1)..];
        row[0] = mv;
        let child_len = if ply < MAX_PLY {
            self.pv_len[ply + 1]
        } else {
            0
        };
        let n = child_len.min(MAX_PLY);
        row[1..=n].copy_from_slice(&tail[..n]);
        self.pv_len[ply] = n + 1;
    }

    /// History slot of `p` for `c`.
    #[inline]
    fn hist_index(&self, c: Color, p: Pos) -> usize {
        c.index() * self.stride + usize::from(p)
    }

    /// Rewards a move that caused a cutoff and punishes the quiet moves tried before it.
    fn reward(&mut self, ply: usize, depth: i32, mv: Pos, tried: &[ScoredMove]) {
        let me = self.board.side_to_move();
        let k = &mut self.killers[ply];
        if k[0] != Some(mv) {
            k[1] = k[0];
            k[0] = Some(mv);
        }
        let bonus = depth * depth;
        let i = self.hist_index(me, mv);
        self.history[i] += bonus;
        for m in tried {
            if m.pos != mv {
                let j = self.hist_index(me, m.pos);
                self.history[j] -= bonus;
            }
        }
        if self.history[i] > HISTORY_MAX {
            for h in &mut self.history {
                *h /= 2;
            }
        }
    }

    /// Static results that need no search: `Some(score)` if the position is decided by the threat counts.
    #[inline]
    fn static_result(&self, ply: usize) -> Option<i32> {
        let me = self.board.side_to_move();
        let op = me.opp();
        // Our five on the next stone.
        if self.board.threat_count(me, Threat::Five) > 0 {
            return Some(win_in(ply + 1));
        }
        if !self.flex4_is_win {
            return None;
        }
        // The opponent's five points: two or more cannot all be blocked with one stone (caro's blocked-five
        // rule could, hence not for caro), one must be blocked now.
        match self.board.threat_count(op, Threat::Five) {
            0 => {}
            1 => return None,
            _ => return Some(-win_in(ply + 2)),
        }
        // Our open four (or double four): whatever the opponent plays, one five point stays, and he has no five
        // of his own: our five lands two plies later.
        if self.board.threat_count(me, Threat::Flex4) > 0 {
            return Some(win_in(ply + 3));
        }
        // Our four-three or double open three: the block (of the four, or of one three) leaves an open three
        // that becomes an open four, five plies. Renju black's threes can hang on forbidden points, so not for
        // it. Only when the opponent has no four to answer with.
        let four_three = !(self.board.rule() == Rule::Renju && me == Color::Black)
            && (self.board.threat_count(me, Threat::Block4Flex3) > 0
                || self.board.threat_count(me, Threat::DoubleFlex3) > 0);
        if !four_three
            || self.board.threat_count(op, Threat::Flex4) > 0
            || self.board.threat_count(op, Threat::Block4) > 0
            || self.board.threat_count(op, Threat::Block4Plus) > 0
            || self.board.threat_count(op, Threat::Block4Flex3) > 0
        {
            return None;
        }
        Some(win_in(ply + 5))
    }

    /// Node entry of the search and the quiescence: counts the node and polls the limits (`Some(0)` when the
    /// search must unwind), then the scores that need no search: the previous move made five, the board is
    /// full, or the threat counts decide (`static_result`).
    #[inline]
    fn enter_node(&mut self, ply: usize) -> Option<i32> {
        self.pv_len[ply] = 0;
        if self.count_node() {
            return Some(0);
        }
        if self.board.winner().is_some() {
            return Some(-win_in(ply));
        }
        if self.board.is_full() {
            return Some(0);
        }
        self.static_result(ply)
    }

    /// Horizon value: the threat quiescence inside (`alpha`, `beta`).
    #[inline]
    fn quiesce(&mut self, alpha: i32, beta: i32, ply: usize) -> i32 {
        self.qsearch(alpha, beta, ply, QS_MAX_PLY)
    }

    /// Threat quiescence, attacker to move: the static evaluation stands (stand pat), or one of the attacker's
    /// fours, answered by the forced block, does better. Fail-soft.
    fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize, qply: i32) -> i32 {
        if let Some(s) = self.enter_node(ply) {
            return s;
        }
        let me = self.board.side_to_move();
        let op = me.opp();
        if self.board.threat_count(op, Threat::Five) > 0 {
            // The defender's block made a four: the attacker must block it, and attacks on only if that block is
            // a four itself.
            let Some(block) = self.single_five_point(op) else {
                return -win_in(ply + 1);
            };
            if !allowed(&self.board, block, me) {
                return -win_in(ply + 1);
            }
            let four = makes_four(self.board.threat(block, me));
            self.board.play(block);
            let s = if four && qply > 0 && ply + 2 < MAX_PLY {
                -self.qdefend(-beta, -alpha, ply + 1, qply - 1)
            } else {
                -evaluate(&self.board)
            };
            self.board.undo();
            return s;
        }
        let stand_pat = evaluate(&self.board);
        if stand_pat >= beta || qply <= 0 || ply + 2 >= MAX_PLY || !self.has_four_move(me) {
            return stand_pat;
        }
        let mut best = stand_pat;
        alpha = alpha.max(stand_pat);
        // This ply's move buffer is free: the horizon node calls the quiescence before generating.
        let mut fours = std::mem::take(&mut self.buffers[ply]);
        fours.clear();
        // After the first four, only fours on a line through the attacker's previous four (within four
        // cells) continue the attack; the others are independent and were tried one level up.
        let anchor = if qply < QS_MAX_PLY {
            let ms = self.board.moves();
            ms.len().checked_sub(2).map(|i| self.board.xy(ms[i]))
        } else {
            None
        };
        let mut add = |p: Pos| {
            let t = self.board.threat(p, me);
            if makes_four(t) {
                fours.push(ScoredMove {
                    pos: p,
                    score: t as i32,
                });
            }
        };
        match anchor {
            None => self.board.candidates().for_each(&mut add),
            Some((x, y)) => {
                let r = QS_NEAR_CELLS as i64;
                for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    for k in (-r..=r).filter(|&k| k != 0) {
                        if let Some(p) = self.board.pos(x as i64 + k * dx, y as i64 + k * dy) {
                            add(p);
                        }
                    }
                }
            }
        }
        for i in 0..fours.len() {
            let p = pick(&mut fours, i);
            self.board.play(p);
            let s = -self.qdefend(-beta, -alpha, ply + 1, qply - 1);
            self.board.undo();
            if self.aborted {
                self.buffers[ply] = fours;
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        self.buffers[ply] = fours;
        best
    }

    /// Threat quiescence, defender to move after the attacker's four: the block is forced (a double four or a
    /// forbidden block loses; a five of our own wins).
    fn qdefend(&mut self, alpha: i32, beta: i32, ply: usize, qply: i32) -> i32 {
        self.pv_len[ply] = 0;
        if self.count_node() {
            return 0;
        }
        if self.board.winner().is_some() {
            return -win_in(ply);
        }
        let me = self.board.side_to_move();
        let op = me.opp();
        if self.board.threat_count(me, Threat::Five) > 0 {
            return win_in(ply + 1);
        }
        if self.board.threat_count(op, Threat::Five) == 0 {
            // The attacker's "four" needs no answer (e.g. caro's blocked five): an ordinary position.
            return evaluate(&self.board);
        }
        let Some(block) = self.single_five_point(op) else {
            return -win_in(ply + 1);
        };
        if !allowed(&self.board, block, me) {
            return -win_in(ply + 1);
        }
        self.board.play(block);
        let s = -self.qsearch(-beta, -alpha, ply + 1, qply - 1);
        self.board.undo();
        s
    }

    /// The one cell where `c` makes five, or `None` if there are two or more (a double four: it cannot be
    /// stopped). Call only when `c` has a five point.
    fn single_five_point(&self, c: Color) -> Option<Pos> {
        if self.board.threat_count(c, Threat::Five) != 1 {
            return None;
        }
        // Nearly always on a line through the last move (the four that made it): the threat solver's lookup.
        find_cell(
            &self.board,
            c,
            |t| t == Threat::Five,
            self.board.last_move(),
            4,
        )
    }

    /// The last stone of the side not to move and the one before it (the side to move's), if played.
    fn last_stones(&self) -> (Option<Pos>, Option<Pos>) {
        let ms = self.board.moves();
        let at = |k: usize| ms.len().checked_sub(k).map(|i| ms[i]);
        (at(1), at(2))
    }

    /// True if `p` is more than `DISTANT_DEFENCE_CELLS` from `stone` (Chebyshev distance), or no such stone.
    fn far_from(&self, p: Pos, stone: Option<Pos>) -> bool {
        let (x, y) = self.board.xy(p);
        stone.is_none_or(|s| {
            let (sx, sy) = self.board.xy(s);
            x.abs_diff(sx).max(y.abs_diff(sy)) > DISTANT_DEFENCE_CELLS
        })
    }

    /// True if `c` has a point that makes a four (or better).
    #[inline]
    fn has_four_move(&self, c: Color) -> bool {
        [
            Threat::Block4,
            Threat::Block4Plus,
            Threat::Block4Flex3,
            Threat::Flex4,
        ]
        .iter()
        .any(|&t| self.board.threat_count(c, t) > 0)
    }

    /// Fail-soft negamax with principal-variation search. Returns a score for the side to move.
    pub fn negamax(
        &mut self,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
        cut_node: bool,
    ) -> i32 {
        // 1-3. Count the node and poll the limits; terminal positions and those the threat counts decide.
        if let Some(s) = self.enter_node(ply) {
            return s;
        }
        if ply >= MAX_PLY - 2 {
            return evaluate(&self.board);
        }
        // 4. Mate-distance pruning: no score here can beat a five on the next stone.
        let best_possible = win_in(ply + 1);
        if alpha >= best_possible {
            return alpha;
        }
        let me = self.board.side_to_move();
        let op = me.opp();
        let forced = self.board.threat_count(op, Threat::Five) > 0;
        // 5. Horizon: a VCF probe (quiescence), then the static evaluation. Forced blocks are searched instead
        //    (they extend the line for free).
        if depth <= 0 && !forced {
            return self.quiesce(alpha, beta, ply);
        }
        // 6. Transposition table.
        let key = self.board.hash();
        let entry = self.tt.probe(key);
        let mut tt_move = None;
        let mut static_eval = None;
        if let Some(e) = entry {
            tt_move = e.mv;
            static_eval = Some(e.eval);
            let s = score_from_tt(e.score, ply);
            if !pv_node && e.depth >= depth {
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if usable {
                    return s;
                }
            }
        }
        let static_eval = static_eval.unwrap_or_else(|| evaluate(&self.board));
        self.evals[ply] = static_eval;
        let improving = ply < 2 || static_eval > self.evals[ply - 2];
        // 7. Futility: a quiet position whose static eval is far above beta (the farther, the deeper) is taken
        //    as a cut, unless the opponent can make an open four or a double threat with its next stone.
        if !pv_node
            && !forced
            && beta > -WIN_BOUND
            && static_eval
                - self.pruning.futility_margin * (depth - 1 - i32::from(improving)).max(0)
                >= beta
            && static_eval < EVAL_LIMIT
            && self.board.threat_count(op, Threat::Flex4) == 0
            && self.board.threat_count(op, Threat::Block4Flex3) == 0
            && self.board.threat_count(op, Threat::DoubleFlex3) == 0
        {
            return static_eval;
        }
        // 8. Razoring: near the horizon, a non-PV node whose static eval is far below alpha drops to the
        //    horizon probe (our VCF, else the eval) instead of searching its moves.
        if !pv_node
            && !forced
            && depth <= RAZOR_DEPTH
            && alpha < WIN_BOUND
            && static_eval + self.pruning.razor_margin * depth < alpha
        {
            return self.quiesce(alpha, beta, ply);
        }
        // 9. Null move (freestyle): a non-PV node whose static eval is at least beta, facing no double threat,
        //    lets the opponent move twice at a much reduced depth; if we still stay above beta, it is a cut.
        if self.null_move
            && !pv_node
            && !forced
            && depth >= NULL_MOVE_MIN_DEPTH
            && beta.abs() < WIN_BOUND
            && static_eval < EVAL_LIMIT
            && static_eval >= beta
            && self.board.can_pass()
            && !self.board.just_passed()
            && self.board.threat_count(op, Threat::Flex4) == 0
            && self.board.threat_count(op, Threat::Block4Flex3) == 0
            && self.board.threat_count(op, Threat::DoubleFlex3) == 0
        {
            let r = NULL_MOVE_BASE_R + depth / NULL_MOVE_DEPTH_PER_R;
            self.board.pass();
            let s = -self.negamax(depth - 1 - r, -beta, -beta + 1, ply + 1, false, !cut_node);
            self.board.unpass();
            if self.aborted {
                return 0;
            }
            if s >= beta {
                // An unproven win: the pass is not a move, so only the bound is claimed.
                return if s >= WIN_BOUND { beta } else { s };
            }
        }
        // 10. Generate moves into this ply's buffer.
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        let hist_start = me.index() * self.stride;
        let kind = {
            let info = OrderInfo {
                tt_move,
                killers: self.killers[ply],
                history: &self.history[hist_start..hist_start + self.stride],
            };
            generate(&mut self.board, &info, &mut moves)
        };
        if moves.is_empty() {
            // Nothing legal that helps (e.g. renju black whose only block is forbidden): lost next move, or a draw
            // if no cell at all is left to us.
            self.buffers[ply] = moves;
            return if forced || kind == GenKind::DefendThree {
                -win_in(ply + 2)
            } else {
                0
            };
        }
        // Forced blocks do not use up depth: the line is narrow and decides races of fours.
        let new_depth = if kind == GenKind::BlockFive {
            depth
        } else {
            depth - 1
        };
        // 11. The move loop.
        let mut best = -INF;
        let mut best_move = None;
        let original_alpha = alpha;
        let mcp_limit =
            self.mcp_limit[usize::from(improving)][depth.clamp(0, MAX_PLY as i32) as usize];
        // An expected cut node whose static eval is far above beta will very likely fail high: its moves that
        // make no four are searched a ply shallower.
        let likely_fail_high = !pv_node
            && cut_node
            && !forced
            && static_eval < EVAL_LIMIT
            && static_eval >= beta + self.pruning.fail_high_margin * depth;
        // Facing an open three: where the two sides played last (the opponent's last stone, then ours).
        let last_stones = (self.distant_defence[me.index()] && kind == GenKind::DefendThree)
            .then(|| self.last_stones());
        let mut i = 0;
        while i < moves.len() {
            let mv = pick(&mut moves, i);
            let mine = self.board.threat(mv, me);
            let theirs = self.board.threat(mv, op);
            let four = makes_four(mine);
            let quiet = kind == GenKind::All && !four;
            // Facing an open three, a move that takes none of its four points (a four of ours elsewhere) mostly
            // delays the defence: far from both sides' last stones it is pruned near the horizon, else it is
            // reduced more the farther it is (Rapfi's "useless defence" rule).
            let mut distant_r = 0;
            if let Some((last_op, last_me)) = last_stones {
                if !makes_four(theirs) {
                    let far_op = self.far_from(mv, last_op);
                    let far_me = self.far_from(mv, last_me);
                    if far_op && far_me && depth < TRIVIAL_PRUNE_DEPTH && best > -WIN_BOUND {
                        i += 1;
                        continue;
                    }
                    distant_r = LMR_DISTANT_FROM_OPP * i32::from(far_op)
                        + LMR_DISTANT_FROM_OWN * i32::from(far_me);
                }
            }
            // Pruning once a move that does not lose outright is found: quiet moves past a count that grows
            // with depth, and near the horizon moves with no pattern at all for either side.
            if quiet
                && best > -WIN_BOUND
                && (i >= mcp_limit
                    || (depth < TRIVIAL_PRUNE_DEPTH
                        && mine == Threat::None
                        && theirs == Threat::None))
            {
                i += 1;
                continue;
            }
            let new_depth = new_depth - i32::from(likely_fail_high && !four);
            self.board.play(mv);
            let score = if i == 0 {
                -self.negamax(
                    new_depth,
                    -beta,
                    -alpha,
                    ply + 1,
                    pv_node,
                    !pv_node && !cut_node,
                )
            } else {
                // Late moves (fours too) are searched shallower first; a surprise is searched again at full depth.
                let mut r = 0;
                if kind != GenKind::BlockFive && depth >= LMR_MIN_DEPTH {
                    let important = mine >= Threat::DoubleFlex2 || theirs >= Threat::Flex3;
                    let h = self.history[self.hist_index(me, mv)] as f32;
                    let p = &self.pruning;
                    let rf = self.lmr_ln[depth as usize] * self.lmr_ln[i + 1]
                        - if pv_node { p.lmr_pv } else { 0.0 }
                        + if improving { 0.0 } else { p.lmr_not_improving }
                        + if cut_node { p.lmr_cut_node } else { 0.0 }
                        - if important { p.lmr_important } else { 0.0 }
                        - h / p.lmr_history_per_ply;
                    r = (rf.round() as i32 + distant_r).clamp(0, (new_depth - 1).max(0));
                }
                let mut s = -self.negamax(new_depth - r, -alpha - 1, -alpha, ply + 1, false, true);
                if s > alpha && r > 0 {
                    s = -self.negamax(new_depth, -alpha - 1, -alpha, ply + 1, false, !cut_node);
                }
                if s > alpha && s < beta && pv_node {
                    s = -self.negamax(new_depth, -beta, -alpha, ply + 1, true, false);
                }
                s
            };
            self.board.undo();
            if self.aborted {
                self.buffers[ply] = moves;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, mv);
                    }
                    if score >= beta {
                        if quiet {
                            self.reward(ply, depth, mv, &moves[..i]);
                        }
                        break;
                    }
                }
            }
            i += 1;
        }
        self.buffers[ply] = moves;
        // 12. Store the result.
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let eval_store = static_eval.clamp(-EVAL_LIMIT, EVAL_LIMIT);
        self.tt.store(
            key,
            best_move,
            score_to_tt(best, ply),
            eval_store,
            depth.max(0),
            bound,
        );
        best
    }

    /// Searches the root moves at `depth` inside (`alpha`, `beta`); updates their scores, counts best-move
    /// changes, and returns the best score. The first move of `moves` is the previous best.
    pub fn root(
        &mut self,
        moves: &mut [RootMove],
        depth: i32,
        mut alpha: i32,
        beta: i32,
        changes: &mut u32,
    ) -> i32 {
        self.pv_len[0] = 0;
        let mut best = -INF;
        for i in 0..moves.len() {
            let mv = moves[i].pos;
            self.pv_len[1] = 0;
            let four = makes_four(self.board.threat(mv, self.board.side_to_move()));
            self.board.play(mv);
            let score = if self.board.winner().is_some() {
                win_in(1)
            } else if i == 0 {
                -self.negamax(depth - 1, -beta, -alpha, 1, true, false)
            } else {
                // Late root moves that make no four are searched shallower first, as in the tree (PV
                // reductions); one that beats alpha is searched again at full depth.
                let mut r = 0;
                if i >= ROOT_LMR_MIN_MOVES && depth >= LMR_MIN_DEPTH && !four {
                    let rf = self.lmr_ln[depth as usize] * self.lmr_ln[i + 1] - self.pruning.lmr_pv;
                    r = (rf.round() as i32).clamp(0, (depth - 2).max(0));
                }
                let mut s = -self.negamax(depth - 1 - r, -alpha - 1, -alpha, 1, false, true);
                if s > alpha && r > 0 {
                    s = -self.negamax(depth - 1, -alpha - 1, -alpha, 1, false, false);
                }
                if s > alpha && s < beta {
                    s = -self.negamax(depth - 1, -beta, -alpha, 1, true, false);
                }
                s
            };
            self.board.undo();
            if self.aborted {
                break;
            }
            moves[i].score = score;
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(0, mv);
                    if i > 0 {
                        *changes += 1;
                        // Move the new best to the front, keeping the order of the others.
                        moves[..=i].rotate_right(1);
                    }
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::params::QS_MAX_PLY;

    /// A board with black's and white's stones placed alternately (black first); black is to move after an
    /// equal number of each.
    fn position(rule: Rule, black: &[(i64, i64)], white: &[(i64, i64)]) -> Board {
        let mut board = Board::new(15, 15, rule).unwrap();
        for (i, &(x, y)) in black.iter().enumerate() {
            board.try_place(x, y, Color::Black).unwrap();
            if let Some(&(wx, wy)) = white.get(i) {
                board.try_place(wx, wy, Color::White).unwrap();
            }
        }
        board
    }

    /// Runs `f` on a fresh worker for `board` (a small table, no limits).
    fn with_worker<R>(board: &Board, f: impl FnOnce(&mut Worker) -> R) -> R {
        let mut tt = Tt::new(1 << 20);
        tt.ensure_allocated();
        let stop = AtomicBool::new(false);
        let stride = board.width() * board.height();
        f(&mut Worker::new(
            board.clone(),
            &tt,
            &stop,
            vec![0; 2 * stride],
            stride,
        ))
    }

    /// The threat quiescence's value of `board` for the side to move, with the full window (without the VCF
    /// probe in front of it).
    fn quiescence(board: &Board) -> i32 {
        with_worker(board, |w| w.qsearch(-INF, INF, 0, QS_MAX_PLY))
    }

    #[test]
    fn the_single_five_point_is_found_away_from_the_last_stone_and_a_double_four_has_none() {
        // Black's four (1..4, 1) has one five point, (0, 1) being white's; white's last stone is far away.
        let board = position(
            Rule::Freestyle,
            &[(1, 1), (2, 1), (3, 1), (4, 1)],
            &[(0, 1), (12, 12), (12, 10), (10, 12)],
        );
        assert_eq!(board.last_move(), board.pos(10, 12));
        let five = with_worker(&board, |w| w.single_five_point(Color::Black));
        assert_eq!(five, board.pos(5, 1));
        // A second four (1, 2..5) gives black two five points: nothing single to block.
        let board = position(
            Rule::Freestyle,
            &[(1, 1), (2, 1), (3, 1), (4, 1), (1, 3), (1, 4), (1, 5)],
            &[
                (0, 1),
                (12, 12),
                (12, 10),
                (10, 12),
                (8, 8),
                (8, 10),
                (1, 6),
            ],
        );
        assert_eq!(
            with_worker(&board, |w| w.single_five_point(Color::Black)),
            None
        );
    }

    /// Black's four at (6,7) (five point (7,7)) also makes a vertical open three; after the block, the three
    /// becomes an open four.
    const ATTACK: [(i64, i64); 5] = [(3, 7), (4, 7), (5, 7), (6, 5), (6, 6)];

    #[test]
    fn quiescence_follows_fours_to_the_win() {
        let white = [(2, 7), (10, 11), (12, 11), (10, 13), (13, 13)];
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
            let board = position(rule, &ATTACK, &white);
            assert_eq!(board.side_to_move(), Color::Black);
            // Four (ply 1), block (2), open four (3), any answer (4), five (5).
            assert_eq!(quiescence(&board), win_in(5), "{rule:?}");
        }
    }

    /// `static_result` of `board` at ply 0.
    fn static_result(board: &Board) -> Option<i32> {
        with_worker(board, |w| w.static_result(0))
    }

    #[test]
    fn a_four_three_against_no_four_is_a_static_win_but_not_for_renju_black() {
        let white = [(2, 7), (10, 11), (12, 11), (10, 13), (13, 13)];
        for rule in [Rule::Freestyle, Rule::Standard] {
            let board = position(rule, &ATTACK, &white);
            assert_eq!(static_result(&board), Some(win_in(5)), "{rule:?}");
        }
        // Renju black's four-three may hang on a forbidden point: left to the search.
        assert_eq!(static_result(&position(Rule::Renju, &ATTACK, &white)), None);
        // White has an open three, so a four (an open one) to play in between: no static result.
        let white_three = [(2, 7), (10, 11), (11, 11), (12, 11), (0, 14)];
        let board = position(Rule::Freestyle, &ATTACK, &white_three);
        assert_eq!(static_result(&board), None);
    }

    #[test]
    fn an_open_four_point_wins_against_any_four_points_and_two_five_points_lose() {
        // Black's open three (3..5, 7) gives it open-four points; white's open three gives white four points
        // too, but no five point: black's open four wins all the same.
        let black = [(3, 7), (4, 7), (5, 7), (0, 0)];
        let white = [(10, 11), (11, 11), (12, 11), (14, 14)];
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
            let board = position(rule, &black, &white);
            assert_eq!(static_result(&board), Some(win_in(3)), "{rule:?}");
        }
        // White's open four (9..12, 11) has two five points: black, with no five of its own, cannot block both.
        let black = [(3, 7), (0, 0), (14, 0), (0, 14)];
        let white = [(9, 11), (10, 11), (11, 11), (12, 11)];
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
            let board = position(rule, &black, &white);
            assert_eq!(static_result(&board), Some(-win_in(2)), "{rule:?}");
        }
        // Caro's blocked-five rule can turn both: left to the search.
        let board = position(Rule::Caro, &black, &white);
        assert_eq!(static_result(&board), None);
    }

    #[test]
    fn a_double_open_three_against_no_four_is_a_static_win() {
        // Black (7,7) makes open threes on the row and on the column.
        let black = [(5, 7), (6, 7), (7, 5), (7, 6)];
        let white = [(0, 0), (14, 0), (0, 14), (14, 14)];
        let board = position(Rule::Freestyle, &black, &white);
        assert_eq!(static_result(&board), Some(win_in(5)));
    }

    #[test]
    fn a_block_that_makes_a_four_stops_the_attack() {
        // White's block at (7,7) makes its own four (7,7)..(7,10) (black holds (7,11)): black must answer at
        // (7,6), which is no four, so the attack ends there without a win.
        let black: Vec<(i64, i64)> = ATTACK.iter().copied().chain([(7, 11)]).collect();
        let white = [(2, 7), (7, 8), (7, 9), (7, 10), (13, 0), (0, 14)];
        let board = position(Rule::Freestyle, &black, &white);
        assert_eq!(board.side_to_move(), Color::Black);
        let s = quiescence(&board);
        assert!(s < WIN_BOUND, "{s}");
    }

    #[test]
    fn the_distant_defence_rule_measures_from_both_sides_last_stones() {
        // Black (7,7), then white (3,3): black to move, white's stone is the last, black's the one before.
        let board = position(Rule::Freestyle, &[(7, 7)], &[(3, 3)]);
        with_worker(&board, |w| {
            let (op, me) = w.last_stones();
            assert_eq!((op, me), (board.pos(3, 3), board.pos(7, 7)));
            let at = |x, y| board.pos(x, y).expect("on the board");
            assert!(!w.far_from(at(11, 11), me), "4 cells away is near");
            assert!(w.far_from(at(12, 7), me), "5 cells away is far");
            assert!(!w.far_from(at(0, 7), op), "4 rows away is near");
            assert!(w.far_from(at(0, 0), None), "no stone: far");
        });
        // Every rule but renju applies the rule to both colours; renju to white only.
        for rule in [Rule::Freestyle, Rule::Standard, Rule::Caro, Rule::CaroExact] {
            let b = position(rule, &[(7, 7)], &[(3, 3)]);
            assert_eq!(
                with_worker(&b, |w| w.distant_defence),
                [true, true],
                "{rule:?}"
            );
        }
        let renju = position(Rule::Renju, &[(7, 7)], &[(3, 3)]);
        assert_eq!(with_worker(&renju, |w| w.distant_defence), [false, true]);
    }

    #[test]
    fn quiescence_without_fours_is_the_evaluation() {
        let board = position(
            Rule::Freestyle,
            &[(7, 7), (8, 8), (5, 9)],
            &[(6, 6), (9, 7), (10, 10)],
        );
        assert_eq!(quiescence(&board), evaluate(&board));
    }
}

//! Threat-space solvers: VCF (victory by continuous fours) and VCT (victory by threes and fours).
//!
//! Both search for a forced win of the side to move (the *attacker*) and are exact in what they claim: a reported
//! win is a real win under the board's rule, because every defence the rules allow is tried (or proven useless):
//!
//! - After the attacker's four, the defender must put a stone on the five point — unless he can make a five
//!   himself (then the attacker's line fails). With two or more five points every block is tried; a point the
//!   defender may not play (renju: forbidden for black) is no defence at all.
//! - After the attacker's three (VCT only), the attacker threatens an open four. The defender's candidate replies
//!   are every legal cell after which the attacker has no open-four point left, plus every four of his own (which
//!   the attacker then has to block, and the three is still there). Any other reply loses to the open four.
//! - The attacker (and the defender) never plays a renju-forbidden point as black; five classes come from the board
//!   core (`Threat::Five` is an exact five in standard and for black in renju, a five not blocked at both ends in
//!   caro), so the solvers need no rule-specific code beyond the forbidden-point check.
//!
//! The solvers are depth-first, node-budgeted and stoppable, allocate nothing per node (move lists live on one
//! preallocated stack) and keep a small table of proven and disproven nodes that survives between calls, which is
//! what makes [`ThreatSolver::quick_vcf`] cheap enough to be the alpha-beta's quiescence search.

mod table;
#[cfg(test)]
mod tests;

use crate::board::{Board, Color, Pos, Rule};
use crate::pattern::{Pattern, Threat};
use std::sync::atomic::{AtomicBool, Ordering};
use table::{ProofTable, Stored};

pub use super::params::{MAX_VCT_DEPTH, ROOT_TABLE_BITS, THREAT_TABLE_BITS};
use super::params::{POLL_NODES, THREAT_STACK_CAPACITY};

/// Depth stored for a VCF node and for a failure that no extra depth would change.
const ANY_DEPTH: u8 = u8::MAX;

/// Result of a threat search for the side to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VcfOutcome {
    /// A forced win: the line alternates attacker and defender moves, starts with the attacker's move and normally
    /// ends with the attacker's five (it stops earlier only when the defender has no legal move that matters,
    /// e.g. every block is forbidden for him, or if the budget ran out while writing it down; the first move is
    /// always proven).
    Win(Vec<Pos>),
    /// The search finished within its limits without finding a win (for VCF: there is none).
    NoWin,
    /// The node budget ran out or the stop flag was raised before an answer.
    Unknown,
}

/// Result of [`ThreatSolver::quick_vcf`]: no line, just what the alpha-beta needs at its horizon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuickVcf {
    /// The side to move wins by continuous fours, starting with `first`, in at most `plies` plies (its five included)
    /// along the line that was found (the defender cannot prolong it past that).
    Win {
        /// The attacker's first move.
        first: Pos,
        /// Plies to the five along the proven line (1 = five on the board now).
        plies: u32,
    },
    /// No VCF exists.
    NoWin,
    /// Budget exhausted before an answer.
    Unknown,
}

/// Which solver a node belongs to (they store different things in the table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Vcf = 0,
    Vct = 1,
}

/// Result of one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum R {
    /// The attacker wins; plies to the five along the found line.
    Win(u16),
    /// No win; `true` when a depth limit was hit somewhere below (more depth might find one).
    Fail(bool),
    /// Budget or stop.
    Abort,
}

/// Keys of attacker and defender nodes of each mode differ, so one table holds them all.
const SALT: [[u64; 2]; 2] = [
    [0x0000_0000_0000_0000, 0x9e37_79b9_7f4a_7c15],
    [0xc2b2_ae3d_27d4_eb4f, 0x1656_67b1_9e37_79f9],
];

/// Line directions as (dx, dy), in the board core's `pattern` direction order.
const DIRS: [(i64, i64); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

static NEVER_STOP: AtomicBool = AtomicBool::new(false);

/// A reusable VCF/VCT solver: owns its proof table and move stack (allocated once, in `new`).
pub struct ThreatSolver {
    table: ProofTable,
    /// Move lists of all open nodes, one after another (attack lists hold packed ordering keys).
    stack: Vec<u32>,
    nodes: u64,
    total_nodes: u64,
    budget: u64,
    aborted: bool,
    ply: u32,
    /// Winning first move found at ply 0 (for `quick_vcf`).
    root_move: Option<Pos>,
    /// Board size and rule the table's contents belong to.
    fingerprint: (usize, usize, u8),
}

impl Default for ThreatSolver {
    fn default() -> Self {
        ThreatSolver::new()
    }
}

impl ThreatSolver {
    /// A solver with the default table size (1 MiB).
    pub fn new() -> ThreatSolver {
        ThreatSolver::with_table_bits(THREAT_TABLE_BITS)
    }

    /// A solver whose proof table has `1 << bits` slots of 16 bytes.
    pub fn with_table_bits(bits: u32) -> ThreatSolver {
        ThreatSolver {
            table: ProofTable::new(bits.clamp(4, 28)),
            stack: Vec::with_capacity(THREAT_STACK_CAPACITY),
            nodes: 0,
            total_nodes: 0,
            budget: 0,
            aborted: false,
            ply: 0,
            root_move: None,
            fingerprint: (0, 0, 0),
        }
    }

    /// Forget all stored proofs (call on a new game; done automatically when the board size or rule changes).
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Nodes (stones played) by the last call.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Nodes played by all calls since the solver was made.
    pub fn total_nodes(&self) -> u64 {
        self.total_nodes
    }

    /// Search a VCF for the side to move and return the winning line. `board` is restored before returning.
    pub fn vcf(&mut self, board: &mut Board, budget_nodes: u64, stop: &AtomicBool) -> VcfOutcome {
        self.root(board, budget_nodes, stop, Mode::Vcf)
    }

    /// Search a VCT (threes and fours) for the side to move by iterative deepening on the number of attacker
    /// threat moves (up to [`MAX_VCT_DEPTH`]), each node also trying a VCF. `board` is restored before returning.
    pub fn vct(&mut self, board: &mut Board, budget_nodes: u64, stop: &AtomicBool) -> VcfOutcome {
        self.root(board, budget_nodes, stop, Mode::Vct)
    }

    /// Cheap VCF probe for the alpha-beta horizon (quiescence): no line, no stop flag, O(1) answer when the side
    /// to move has no four at all. Results are remembered in the table across calls.
    pub fn quick_vcf(&mut self, board: &mut Board, budget_nodes: u64) -> QuickVcf {
        // The cheap answers below play no stone: `nodes()` must say 0 for them, not the previous call's count.
        self.nodes = 0;
        let att = board.side_to_move();
        let def = att.opp();
        if board.winner().is_some() {
            return QuickVcf::NoWin;
        }
        if board.threat_count(att, Threat::Five) > 0 {
            return match find_cell(board, att, is_five, board.last_move(), 4) {
                Some(first) => QuickVcf::Win { first, plies: 1 },
                None => QuickVcf::NoWin,
            };
        }
        let def_fives = board.threat_count(def, Threat::Five);
        if def_fives >= 2 || (def_fives == 0 && four_count(board, att) == 0) {
            return QuickVcf::NoWin;
        }
        self.begin(board, budget_nodes);
        let r = self.att(board, &NEVER_STOP, Mode::Vcf, ANY_DEPTH);
        self.total_nodes += self.nodes;
        match (r, self.root_move) {
            (R::Win(plies), Some(first)) => QuickVcf::Win {
                first,
                plies: u32::from(plies),
            },
            (R::Win(_), None) | (R::Abort, _) => QuickVcf::Unknown,
            (R::Fail(_), _) => QuickVcf::NoWin,
        }
    }

    fn begin(&mut self, board: &Board, budget_nodes: u64) {
        let fp = (board.width(), board.height(), board.rule().gomocup_code());
        if fp != self.fingerprint {
            self.table.clear();
            self.fingerprint = fp;
        }
        self.nodes = 0;
        self.budget = budget_nodes;
        self.aborted = false;
        self.ply = 0;
        self.root_move = None;
        self.stack.clear();
    }

    fn root(
        &mut self,
        board: &mut Board,
        budget_nodes: u64,
        stop: &AtomicBool,
        mode: Mode,
    ) -> VcfOutcome {
        self.nodes = 0;
        if board.winner().is_some() || board.is_full() {
            return VcfOutcome::NoWin;
        }
        self.begin(board, budget_nodes);
        let (r, depth) = match mode {
            Mode::Vcf => (self.att(board, stop, Mode::Vcf, ANY_DEPTH), ANY_DEPTH),
            Mode::Vct => {
                let mut out = (R::Fail(false), 0);
                for d in 1..=MAX_VCT_DEPTH {
                    let r = self.att(board, stop, Mode::Vct, d);
                    out = (r, d);
                    if r != R::Fail(true) {
                        break;
                    }
                }
                out
            }
        };
        self.total_nodes += self.nodes;
        match r {
            R::Win(_) => {
                let mut line = Vec::new();
                // Writing the line down mostly replays table hits; give it a fresh budget of the same size.
                let search_nodes = self.nodes;
                self.nodes = 0;
                self.aborted = false;
                self.extract(board, stop, mode, depth, &mut line);
                self.total_nodes += self.nodes;
                self.nodes += search_nodes;
                if line.is_empty() {
                    // Cannot happen for a proven win unless the stop flag cut the replay at once.
                    VcfOutcome::Unknown
                } else {
                    VcfOutcome::Win(line)
                }
            }
            R::Fail(_) => VcfOutcome::NoWin,
            R::Abort => VcfOutcome::Unknown,
        }
    }

    /// Play `p` for the side to move and count the node; false when the budget or the stop flag ends the search
    /// (the stone is on the board either way: the caller undoes it).
    fn play(&mut self, board: &mut Board, stop: &AtomicBool, p: Pos) -> bool {
        board.play(p);
        self.ply += 1;
        self.nodes += 1;
        if self.nodes >= self.budget
            || (self.nodes.is_multiple_of(POLL_NODES) && stop.load(Ordering::Relaxed))
        {
            self.aborted = true;
        }
        !self.aborted
    }

    fn undo(&mut self, board: &mut Board) {
        board.undo();
        self.ply -= 1;
    }

    /// Attacker to move: does he win?
    fn att(&mut self, board: &mut Board, stop: &AtomicBool, mode: Mode, depth: u8) -> R {
        if self.aborted {
            return R::Abort;
        }
        let att = board.side_to_move();
        let def = att.opp();
        if board.threat_count(att, Threat::Five) > 0 {
            if self.ply == 0 {
                self.root_move = find_cell(board, att, is_five, board.last_move(), 4);
            }
            return R::Win(1);
        }
        let def_fives = board.threat_count(def, Threat::Five);
        if def_fives >= 2 {
            // Two five points cannot be blocked with one stone (conservative: a caro block that kills another
            // five by closing its second end is not looked for).
            return R::Fail(false);
        }
        let key = board.hash() ^ SALT[mode as usize][0];
        match self.table.probe(key) {
            Some(Stored::Win { plies }) if self.ply > 0 => return R::Win(plies),
            Some(Stored::Fail { depth: d }) if d >= depth => return R::Fail(d != ANY_DEPTH),
            _ => {}
        }
        let r = if def_fives == 1 {
            self.forced_block(board, stop, mode, depth, att, def)
        } else {
            self.attack(board, stop, mode, depth, att)
        };
        self.remember(key, r, depth);
        r
    }

    /// The defender has a four: the attacker must block it, and the block must keep his attack going.
    fn forced_block(
        &mut self,
        board: &mut Board,
        stop: &AtomicBool,
        mode: Mode,
        depth: u8,
        att: Color,
        def: Color,
    ) -> R {
        let Some(f) = find_cell(board, def, is_five, board.last_move(), 4) else {
            return R::Fail(false);
        };
        if !legal(board, f, att) {
            return R::Fail(false);
        }
        let r = self.then_def(board, stop, f, mode, depth);
        let r = add_ply(r);
        if self.ply == 0 && matches!(r, R::Win(_)) {
            self.root_move = Some(f);
        }
        r
    }

    /// Plays the attacker's `m`, judges the defender's node, takes `m` back.
    fn then_def(
        &mut self,
        board: &mut Board,
        stop: &AtomicBool,
        m: Pos,
        mode: Mode,
        depth: u8,
    ) -> R {
        let r = if self.play(board, stop, m) {
            self.def(board, stop, mode, depth)
        } else {
            R::Abort
        };
        self.undo(board);
        r
    }

    /// Plays the defender's `m`, judges the attacker's node, takes `m` back.
    fn then_att(
        &mut self,
        board: &mut Board,
        stop: &AtomicBool,
        m: Pos,
        mode: Mode,
        depth: u8,
    ) -> R {
        let r = if self.play(board, stop, m) {
            self.att(board, stop, mode, depth)
        } else {
            R::Abort
        };
        self.undo(board);
        r
    }

    /// No four to answer: try the attacker's threat moves.
    fn attack(
        &mut self,
        board: &mut Board,
        stop: &AtomicBool,
        mode: Mode,
        depth: u8,
        att: Color,
    ) -> R {
        let mut cut = false;
        let child_depth = if mode == Mode::Vct {
            match self.att(board, stop, Mode::Vcf, ANY_DEPTH) {
                R::Win(k) => return R::Win(k),
                R::Abort => return R::Abort,
                R::Fail(_) => {}
            }
            if depth == 0 {
                return R::Fail(true);
            }
            depth - 1
        } else {
            if four_count(board, att) == 0 {
                return R::Fail(false);
            }
            ANY_DEPTH
        };
        let base = self.stack.len();
        gen_attack(board, mode, att, &mut self.stack);
        let mut result = None;
        for i in base..self.stack.len() {
            let m = unpack_move(self.stack[i]);
            let r = self.then_def(board, stop, m, mode, child_depth);
            match r {
                R::Win(k) => {
                    if self.ply == 0 {
                        self.root_move = Some(m);
                    }
                    result = Some(R::Win(k.saturating_add(1)));
                    break;
                }
                R::Fail(c) => cut |= c,
                R::Abort => {
                    result = Some(R::Abort);
                    break;
                }
            }
        }
        self.stack.truncate(base);
        result.unwrap_or(R::Fail(cut))
    }

    /// Defender to move after an attacker's threat: does every defence lose?
    fn def(&mut self, board: &mut Board, stop: &AtomicBool, mode: Mode, depth: u8) -> R {
        if self.aborted {
            return R::Abort;
        }
        let def = board.side_to_move();
        let att = def.opp();
        if board.threat_count(def, Threat::Five) > 0 {
            return R::Fail(false);
        }
        let key = board.hash() ^ SALT[mode as usize][1];
        match self.table.probe(key) {
            Some(Stored::Win { plies }) => return R::Win(plies),
            Some(Stored::Fail { depth: d }) if d >= depth => return R::Fail(d != ANY_DEPTH),
            _ => {}
        }
        let base = self.stack.len();
        if !self.gen_defence(board, mode, att, def) {
            self.stack.truncate(base);
            let r = if self.aborted {
                R::Abort
            } else {
                R::Fail(false)
            };
            self.remember(key, r, depth);
            return r;
        }
        if self.aborted {
            self.stack.truncate(base);
            return R::Abort;
        }
        // With no legal defence the defender plays anywhere and the attacker makes five: two plies.
        let mut longest: u16 = 1;
        let mut result = None;
        for i in base..self.stack.len() {
            let o = unpack_move(self.stack[i]);
            let r = self.then_att(board, stop, o, mode, depth);
            match r {
                R::Win(k) => longest = longest.max(k),
                other => {
                    result = Some(other);
                    break;
                }
            }
        }
        self.stack.truncate(base);
        let r = result.unwrap_or(R::Win(longest.saturating_add(1)));
        self.remember(key, r, depth);
        r
    }

    fn remember(&mut self, key: u64, r: R, depth: u8) {
        match r {
            R::Win(plies) => self.table.store(key, Stored::Win { plies }),
            R::Fail(cut) => self.table.store(
                key,
                Stored::Fail {
                    depth: if cut { depth } else { ANY_DEPTH },
                },
            ),
            R::Abort => {}
        }
    }

    /// Push the defender's candidate replies. Returns false when the attacker has no threat to answer (the
    /// attacker's line fails). Every reply left out provably loses at once.
    fn gen_defence(&mut self, board: &mut Board, mode: Mode, att: Color, def: Color) -> bool {
        let base = self.stack.len();
        if board.threat_count(att, Threat::Five) > 0 {
            // A four: block a five point (all of them are tried; with two the attacker wins anyway).
            let hint = board.last_move();
            collect_cells(board, att, is_five, hint, 4, &mut self.stack);
            let mut w = base;
            for i in base..self.stack.len() {
                let p = unpack_move(self.stack[i]);
                if legal(board, p, def) {
                    self.stack[w] = self.stack[i];
                    w += 1;
                }
            }
            self.stack.truncate(w);
            return true;
        }
        if mode == Mode::Vcf {
            return false;
        }
        // The attacker threatens an open four (or a double four). Replies: cells that leave him none, and fours.
        let Some(c1) = self.open_four_cell(board, att, def) else {
            return false;
        };
        // Only a stone on a line where c1 makes a four (within the ±5 line window) can take c1's threat away.
        if self.kills_open_fours(board, c1, att, def) {
            self.stack.push(u32::from(c1));
        }
        let (x, y) = board.xy(c1);
        for (d, &(dx, dy)) in DIRS.iter().enumerate() {
            if !matches!(board.pattern(c1, att, d), Pattern::Block4 | Pattern::Flex4) {
                continue;
            }
            for sign in [-1i64, 1] {
                for k in 1..=5i64 {
                    let Some(q) = board.pos(x as i64 + sign * k * dx, y as i64 + sign * k * dy)
                    else {
                        break;
                    };
                    if board.is_empty(q) && self.kills_open_fours(board, q, att, def) {
                        self.stack.push(u32::from(q));
                    }
                }
            }
        }
        if att == Color::Black && matches!(board.rule(), Rule::Renju) {
            // A white stone off those lines can still change which black points are forbidden (a four-three-three
            // through c1 whose second three becomes real): try every nearby cell too.
            let lines_end = self.stack.len();
            for q in scan(board) {
                self.stack.push(u32::from(q));
            }
            let end = self.stack.len();
            let mut w = lines_end;
            for i in lines_end..end {
                let v = self.stack[i];
                let q = unpack_move(v);
                if !self.stack[base..lines_end].contains(&v)
                    && q != c1
                    && self.kills_open_fours(board, q, att, def)
                {
                    self.stack[w] = v;
                    w += 1;
                }
            }
            self.stack.truncate(w);
        }
        // The defender's own fours (the attacker must answer them; the three is still there afterwards).
        if four_count(board, def) > 0 {
            let blocks_end = self.stack.len();
            for q in scan(board) {
                if is_four(board.threat(q, def)) {
                    let v = u32::from(q);
                    if !self.stack[base..blocks_end].contains(&v) {
                        self.stack.push(v);
                    }
                }
            }
        }
        true
    }

    /// Whether the defender may play `q` and, having done so, leaves the attacker no open-four point.
    fn kills_open_fours(&mut self, board: &mut Board, q: Pos, att: Color, def: Color) -> bool {
        if !legal(board, q, def) {
            return false;
        }
        board.play(q);
        self.nodes += 1;
        if self.nodes >= self.budget {
            self.aborted = true;
        }
        let kills = self.open_four_cell(board, att, def).is_none();
        board.undo();
        kills
    }

    /// An empty cell where the attacker (not to move) makes an open four or double four that wins even if the
    /// defender answers it, if there is one. Outside caro every `Threat::Flex4` cell does; in caro a four whose
    /// two fives would each be closed at both ends by one block (`O.XXXX.O`) does not, so each is checked.
    fn open_four_cell(&mut self, board: &mut Board, att: Color, def: Color) -> Option<Pos> {
        if board.threat_count(att, Threat::Flex4) == 0 {
            return None;
        }
        let is_flex4 = |t| t == Threat::Flex4;
        if !matches!(board.rule(), Rule::Caro | Rule::CaroExact) {
            return find_cell(board, att, is_flex4, board.last_move(), 5);
        }
        let base = self.stack.len();
        self.stack.extend(
            scan(board)
                .filter(|&q| board.threat(q, att) == Threat::Flex4)
                .map(u32::from),
        );
        let mut found = None;
        for i in base..self.stack.len() {
            let c = self.stack[i] as Pos;
            if sure_four(board, c, att, def) {
                found = Some(c);
                break;
            }
        }
        self.stack.truncate(base);
        found
    }

    /// Write down the proven line from the current (attacker-to-move, proven won) node.
    fn extract(
        &mut self,
        board: &mut Board,
        stop: &AtomicBool,
        mut mode: Mode,
        mut depth: u8,
        line: &mut Vec<Pos>,
    ) {
        let start_ply = self.ply;
        loop {
            if self.aborted {
                break;
            }
            // Attacker node.
            let att = board.side_to_move();
            let def = att.opp();
            if board.threat_count(att, Threat::Five) > 0 {
                if let Some(f) = find_cell(board, att, is_five, board.last_move(), 4) {
                    line.push(f);
                }
                break;
            }
            let chosen = if board.threat_count(def, Threat::Five) == 1 {
                match find_cell(board, def, is_five, board.last_move(), 4) {
                    Some(f) => f,
                    None => break,
                }
            } else {
                if mode == Mode::Vct {
                    match self.att(board, stop, Mode::Vcf, ANY_DEPTH) {
                        R::Win(_) => {
                            mode = Mode::Vcf;
                            depth = ANY_DEPTH;
                            continue;
                        }
                        R::Abort => break,
                        R::Fail(_) => {}
                    }
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                let base = self.stack.len();
                gen_attack(board, mode, att, &mut self.stack);
                let mut found = None;
                for i in base..self.stack.len() {
                    let m = unpack_move(self.stack[i]);
                    let r = self.then_def(board, stop, m, mode, depth);
                    if matches!(r, R::Win(_)) {
                        found = Some(m);
                    }
                    if r != R::Fail(false) && r != R::Fail(true) {
                        break;
                    }
                }
                self.stack.truncate(base);
                match found {
                    Some(m) => m,
                    None => break,
                }
            };
            line.push(chosen);
            board.play(chosen);
            self.ply += 1;
            // Defender node: show the reply that holds out longest.
            if board.threat_count(def, Threat::Five) > 0 {
                break;
            }
            let base = self.stack.len();
            if !self.gen_defence(board, mode, att, def) {
                self.stack.truncate(base);
                break;
            }
            if self.stack.len() == base {
                // Nothing defends: show the defender blocking one open-four point (if he may), then the win.
                match self.open_four_cell(board, att, def) {
                    Some(c) if legal(board, c, def) => self.stack.push(u32::from(c)),
                    _ => break,
                }
            }
            let mut best: Option<(u16, Pos)> = None;
            for i in base..self.stack.len() {
                let o = unpack_move(self.stack[i]);
                let r = self.then_att(board, stop, o, mode, depth);
                match r {
                    R::Win(k) if best.is_none_or(|(bk, _)| k > bk) => best = Some((k, o)),
                    R::Win(_) => {}
                    _ => {
                        best = None;
                        break;
                    }
                }
            }
            self.stack.truncate(base);
            let Some((_, o)) = best else { break };
            line.push(o);
            board.play(o);
            self.ply += 1;
        }
        while self.ply > start_ply {
            self.undo(board);
        }
    }
}

/// Search a VCF (victory by continuous fours) for the side to move with a fresh 4 MiB table.
pub fn vcf(board: &mut Board, budget_nodes: u64, stop: &AtomicBool) -> VcfOutcome {
    ThreatSolver::with_table_bits(ROOT_TABLE_BITS).vcf(board, budget_nodes, stop)
}

/// Search a VCT (victory by threes and fours) for the side to move with a fresh 4 MiB table.
pub fn vct(board: &mut Board, budget_nodes: u64, stop: &AtomicBool) -> VcfOutcome {
    ThreatSolver::with_table_bits(ROOT_TABLE_BITS).vct(board, budget_nodes, stop)
}

fn add_ply(r: R) -> R {
    match r {
        R::Win(k) => R::Win(k.saturating_add(1)),
        other => other,
    }
}

fn is_five(t: Threat) -> bool {
    t == Threat::Five
}

/// Threat classes of a move that makes at least one four (and no five).
fn is_four(t: Threat) -> bool {
    matches!(
        t,
        Threat::Block4 | Threat::Block4Plus | Threat::Block4Flex3 | Threat::Flex4
    )
}

fn four_count(board: &Board, c: Color) -> u32 {
    board.threat_count(c, Threat::Block4)
        + board.threat_count(c, Threat::Block4Plus)
        + board.threat_count(c, Threat::Block4Flex3)
        + board.threat_count(c, Threat::Flex4)
}

fn three_count(board: &Board, c: Color) -> u32 {
    board.threat_count(c, Threat::Flex3)
        + board.threat_count(c, Threat::Flex3Plus)
        + board.threat_count(c, Threat::DoubleFlex3)
}

/// Ordering rank of an attacker move (0 = not a threat move in this mode).
fn attack_rank(t: Threat, mode: Mode) -> u32 {
    match t {
        Threat::Flex4 => 7,
        Threat::Block4Flex3 => 6,
        Threat::Block4Plus => 5,
        Threat::Block4 => 4,
        Threat::DoubleFlex3 if mode == Mode::Vct => 3,
        Threat::Flex3Plus if mode == Mode::Vct => 2,
        Threat::Flex3 if mode == Mode::Vct => 1,
        _ => 0,
    }
}

/// Whether `mover` may play the empty cell `p` (renju: black never plays a forbidden point).
fn legal(board: &Board, p: Pos, mover: Color) -> bool {
    !(mover == Color::Black && matches!(board.rule(), Rule::Renju) && board.is_forbidden(p))
}

/// Pack a move with its ordering key so that a descending sort gives best key first, then ascending position.
fn pack_move(key: u32, p: Pos) -> u32 {
    (key << 16) | (0xffff - u32::from(p))
}

/// The position of a stack entry (attack entries are packed, defence entries are plain positions).
fn unpack_move(v: u32) -> Pos {
    if v > 0xffff {
        (0xffff - (v & 0xffff)) as Pos
    } else {
        v as Pos
    }
}

/// Push the attacker's threat moves (fours; threes too in VCT), best first, without allocating.
fn gen_attack(board: &Board, mode: Mode, att: Color, out: &mut Vec<u32>) {
    let mut wanted = four_count(board, att);
    if mode == Mode::Vct {
        wanted += three_count(board, att);
    }
    if wanted == 0 {
        return;
    }
    // Prefer threats near the attacker's previous stone: continuous-four lines are local.
    let moves = board.moves();
    let prev = if moves.len() >= 2 {
        Some(board.xy(moves[moves.len() - 2]))
    } else {
        None
    };
    let base = out.len();
    let mut found = 0;
    for p in scan(board) {
        let rank = attack_rank(board.threat(p, att), mode);
        if rank == 0 {
            continue;
        }
        let near = match prev {
            Some((px, py)) => {
                let (x, y) = board.xy(p);
                31 - (x.abs_diff(px).max(y.abs_diff(py)).min(31) as u32)
            }
            None => 0,
        };
        // Keys are at least 32, so packed attack entries are always above 0xffff.
        out.push(pack_move(rank * 32 + near, p));
        found += 1;
        if found == wanted {
            break;
        }
    }
    out[base..].sort_unstable_by(|a, b| b.cmp(a));
}

/// First empty cell where `c` has a threat class satisfying `pred`: looked for on the four lines through `hint`
/// (within `reach`) first, then among all candidate cells.
pub(super) fn find_cell(
    board: &Board,
    c: Color,
    pred: impl Fn(Threat) -> bool,
    hint: Option<Pos>,
    reach: i64,
) -> Option<Pos> {
    if let Some(h) = hint {
        let (x, y) = board.xy(h);
        for &(dx, dy) in &DIRS {
            for sign in [-1i64, 1] {
                for k in 1..=reach {
                    let Some(q) = board.pos(x as i64 + sign * k * dx, y as i64 + sign * k * dy)
                    else {
                        break;
                    };
                    if board.is_empty(q) && pred(board.threat(q, c)) {
                        return Some(q);
                    }
                }
            }
        }
    }
    scan(board).find(|&q| pred(board.threat(q, c)))
}

/// Push every empty cell where `c` has a threat class satisfying `pred` (exactly `threat_count` of them when
/// `pred` is one class): the lines through `hint` first, all candidates if that did not find them all.
fn collect_cells(
    board: &Board,
    c: Color,
    pred: impl Fn(Threat) -> bool,
    hint: Option<Pos>,
    reach: i64,
    out: &mut Vec<u32>,
) {
    let wanted = board.threat_count(c, Threat::Five) as usize;
    let base = out.len();
    if let Some(h) = hint {
        let (x, y) = board.xy(h);
        for &(dx, dy) in &DIRS {
            for sign in [-1i64, 1] {
                for k in 1..=reach {
                    let Some(q) = board.pos(x as i64 + sign * k * dx, y as i64 + sign * k * dy)
                    else {
                        break;
                    };
                    if board.is_empty(q) && pred(board.threat(q, c)) {
                        out.push(u32::from(q));
                    }
                }
            }
        }
        if out.len() - base == wanted {
            return;
        }
        out.truncate(base);
    }
    out.extend(
        scan(board)
            .filter(|&q| pred(board.threat(q, c)))
            .map(u32::from),
    );
}

/// The empty cells that can hold a threat: the board's candidate area when it reaches two cells from every stone
/// (every four, three, five point and their answers do), else every empty cell. No allocation.
fn scan(board: &Board) -> impl Iterator<Item = Pos> + '_ {
    let all = board.candidate_range() < 2;
    let (w, n) = (
        board.width(),
        if all {
            board.width() * board.height()
        } else {
            0
        },
    );
    board.candidates().filter(move |_| !all).chain(
        (0..n)
            .filter_map(move |i| board.pos((i % w) as i64, (i / w) as i64))
            .filter(|&p| board.is_empty(p)),
    )
}

/// Caro: whether `att` playing the empty cell `c` (out of turn, the defender having passed) makes a four that
/// still leaves a five after every single block.
fn sure_four(board: &mut Board, c: Pos, att: Color, def: Color) -> bool {
    let (x, y) = board.xy(c);
    if board.try_place(x as i64, y as i64, att).is_err() {
        return false;
    }
    let mut fives = 0;
    let mut sure = true;
    'dirs: for &(dx, dy) in &DIRS {
        for sign in [-1i64, 1] {
            for k in 1..=4i64 {
                let (fx, fy) = (x as i64 + sign * k * dx, y as i64 + sign * k * dy);
                let Some(f) = board.pos(fx, fy) else { break };
                if !board.is_empty(f) || board.threat(f, att) != Threat::Five {
                    continue;
                }
                fives += 1;
                if board.try_place(fx, fy, def).is_ok() {
                    let left = board.threat_count(att, Threat::Five);
                    board.undo();
                    if left == 0 {
                        sure = false;
                        break 'dirs;
                    }
                }
            }
        }
    }
    board.undo();
    sure && fives >= 2
}

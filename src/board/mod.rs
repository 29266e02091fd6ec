//! Board, moves, Zobrist hashing, candidate area, rules and win checks, renju forbidden points.
//!
//! Layout: a padded array of `(height + 10) * (width + 5) + 10` cells; row `y` starts at `(y + 5) * stride`
//! and its board cells are columns `5..5 + width`; the five columns before a row's board cells (shared with the
//! previous row's right side) and five rows above and below are walls. So any cell up to five steps from a board
//! cell, in any of the four directions, is inside the array: line walks need no bounds checks.
//!
//! Incremental state (all restored by `undo` from a stack, never recomputed):
//! - per cell and direction, a 20-bit line key (see `crate::pattern`), XOR-updated on the 40 cells around a stone;
//! - per empty cell, the line codes for both colours (one merged table lookup per direction), the combined
//!   `Threat` per colour, and the `cell_score` per colour; per colour, counts of each threat class and the sum of
//!   cell scores;
//! - the candidate area (a stone-neighbourhood count per cell and a bitset), the Zobrist hash, the winner.
//!
//! Renju: a cell where black has two Flex3 lines (and no other forbidden shape) is a double-three candidate;
//! whether at least two of those threes are real depends on cells off its lines, so after every move the
//! (few) candidates are re-judged by the exact recursive check.

mod diagram;
mod zobrist;

pub mod bench;

#[cfg(test)]
mod tests;

pub use diagram::diagram_marks;

use crate::eval::weights::PATTERN_SCORE;
use crate::pattern::{
    class_table, code, combine_threat, rule_table, threat_table, LineRule, Pattern, Threat,
    NEEDS_CHECK,
};
use std::fmt;

/// Stone colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// Moves first.
    Black = 0,
    /// Moves second.
    White = 1,
}

impl Color {
    /// The other colour.
    #[inline]
    pub fn opp(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for black, 1 for white.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// Cell code of this colour's stones (1 black, 2 white).
    #[inline]
    fn cell(self) -> u8 {
        self as u8 + 1
    }
}

/// Game rule (Gomocup `INFO rule` values 0, 1, 4, 8, 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Rule 0: five or more wins.
    Freestyle = 0,
    /// Rule 1: exactly five wins.
    Standard = 1,
    /// Rule 4: black has forbidden moves and needs exactly five; white wins with five or more.
    Renju = 2,
    /// Rule 8: five or more, not blocked by opponent stones at both ends (the edge is no block).
    Caro = 3,
    /// Rule 9: exactly five, not blocked at both ends.
    CaroExact = 4,
}

impl Rule {
    /// All rules.
    pub const ALL: [Rule; 5] = [
        Rule::Freestyle,
        Rule::Standard,
        Rule::Renju,
        Rule::Caro,
        Rule::CaroExact,
    ];

    /// Rule from a Gomocup `INFO rule` bitmask (1 exact five, 2 continuous game — ignored, 4 renju, 8 caro).
    pub fn from_gomocup(code: i64) -> Option<Rule> {
        if code < 0 {
            return None;
        }
        match code & !2 {
            0 => Some(Rule::Freestyle),
            1 => Some(Rule::Standard),
            4 | 5 => Some(Rule::Renju),
            8 => Some(Rule::Caro),
            9 => Some(Rule::CaroExact),
            _ => None,
        }
    }

    /// The Gomocup code of this rule.
    pub fn gomocup_code(self) -> u8 {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 4,
            Rule::Caro => 8,
            Rule::CaroExact => 9,
        }
    }

    /// How black's and white's fives are judged on a line.
    pub fn line_rules(self) -> (LineRule, LineRule) {
        match self {
            Rule::Freestyle => (LineRule::Freestyle, LineRule::Freestyle),
            Rule::Standard => (LineRule::Exact, LineRule::Exact),
            Rule::Renju => (LineRule::RenjuBlack, LineRule::Freestyle),
            Rule::Caro => (LineRule::Caro, LineRule::Caro),
            Rule::CaroExact => (LineRule::CaroExact, LineRule::CaroExact),
        }
    }
}

/// Padded cell index, cheap to copy.
pub type Pos = u16;

/// Why a checked move was refused (the board is unchanged).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The coordinates are outside the board.
    OffBoard,
    /// The cell already holds a stone.
    Occupied,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::OffBoard => write!(f, "move is off the board"),
            PlayError::Occupied => write!(f, "cell is already occupied"),
        }
    }
}

impl std::error::Error for PlayError {}

/// Padding width (walls) around the board.
const PAD: usize = 5;
/// Cell codes.
const EMPTY: u8 = 0;
const WALL: u8 = 3;
/// Default candidate range (Chebyshev distance to the nearest stone).
pub const DEFAULT_CANDIDATE_RANGE: usize = 2;
/// Largest supported candidate range (the padding bounds it).
pub const MAX_CANDIDATE_RANGE: usize = 5;

/// Key slot of the cell at signed offset `k` (±1..=±5) from a line's centre.
#[inline]
const fn slot_of(k: isize) -> usize {
    if k < 0 {
        (k + 5) as usize
    } else {
        (k + 4) as usize
    }
}

/// Cached per-cell state (empty cells; all zero for occupied cells).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CellCache {
    /// Byte d = black line code | white line code << 4, for direction d.
    pats: u32,
    /// `Threat as u8` per colour.
    threat: [u8; 2],
    /// Bit 0: renju double-three candidate for black.
    flags: u8,
    _pad: u8,
    /// `cell_score` per colour.
    score: [i32; 2],
}

/// A cell's cache as it was before the current ply changed it.
#[derive(Clone, Copy, Debug)]
struct Saved {
    pos: u32,
    cache: CellCache,
}

/// Per-ply undo record.
#[derive(Clone, Copy, Debug)]
struct Ply {
    counts: [[u16; Threat::COUNT]; 2],
    sums: [i32; 2],
    saved_start: u32,
    winner: Option<Color>,
}

/// Score of each internal line code.
const CODE_SCORE: [i32; 16] = {
    let mut s = [0i32; 16];
    let mut i = 0;
    while i < 10 {
        s[i] = PATTERN_SCORE[i];
        i += 1;
    }
    s[code::MULTI4 as usize] = PATTERN_SCORE[Pattern::Flex4 as usize];
    s[code::OVERLINE as usize] = PATTERN_SCORE[Pattern::Dead as usize];
    s
};

/// Packs the four black (or white, pre-shifted) nibbles of `pats` into a 16-bit threat-table index.
#[inline]
fn gather(x: u32) -> usize {
    let x = x & 0x0F0F_0F0F;
    let y = x | (x >> 4);
    ((y & 0xFF) | ((y >> 8) & 0xFF00)) as usize
}

/// The game board with incremental pattern state (see the module docs).
pub struct Board {
    width: usize,
    height: usize,
    stride: usize,
    rule: Rule,
    renju: bool,
    offs: [usize; 4],
    table: &'static [u8],
    threat_tabs: [&'static [u8]; 2],
    renju_class: &'static [u8],
    cells: Vec<u8>,
    keys: Vec<[u32; 4]>,
    cache: Vec<CellCache>,
    near: Vec<u8>,
    cand: Vec<u64>,
    dt: Vec<u64>,
    saved_stamp: Vec<u32>,
    stamp: u32,
    moves: Vec<Pos>,
    plies: Vec<Ply>,
    saved: Vec<Saved>,
    counts: [[u16; Threat::COUNT]; 2],
    sums: [i32; 2],
    zhash: u64,
    winner: Option<Color>,
    range: usize,
}

impl Clone for Board {
    fn clone(&self) -> Board {
        let mut b = Board {
            width: self.width,
            height: self.height,
            stride: self.stride,
            rule: self.rule,
            renju: self.renju,
            offs: self.offs,
            table: self.table,
            threat_tabs: self.threat_tabs,
            renju_class: self.renju_class,
            cells: self.cells.clone(),
            keys: self.keys.clone(),
            cache: self.cache.clone(),
            near: self.near.clone(),
            cand: self.cand.clone(),
            dt: self.dt.clone(),
            saved_stamp: self.saved_stamp.clone(),
            stamp: self.stamp,
            moves: self.moves.clone(),
            plies: self.plies.clone(),
            saved: self.saved.clone(),
            counts: self.counts,
            sums: self.sums,
            zhash: self.zhash,
            winner: self.winner,
            range: self.range,
        };
        b.reserve_stacks();
        b
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Board {}x{} {:?}", self.width, self.height, self.rule)?;
        f.write_str(&self.to_diagram())
    }
}

impl Board {
    /// A new empty board; each side must be 5..=32.
    pub fn new(width: usize, height: usize, rule: Rule) -> anyhow::Result<Board> {
        if !(5..=32).contains(&width) || !(5..=32).contains(&height) {
            anyhow::bail!("board size {width}x{height} not supported (each side 5..=32)");
        }
        let stride = width + PAD;
        let size = (height + 2 * PAD) * stride + 2 * PAD;
        let words = size.div_ceil(64);
        let mut b = Board {
            width,
            height,
            stride,
            rule,
            renju: rule == Rule::Renju,
            offs: [1, stride, stride + 1, stride - 1],
            table: &rule_table(rule).entries,
            threat_tabs: [threat_table(rule == Rule::Renju), threat_table(false)],
            renju_class: class_table(LineRule::RenjuBlack),
            cells: vec![WALL; size],
            keys: vec![[0; 4]; size],
            cache: vec![CellCache::default(); size],
            near: vec![0; size],
            cand: vec![0; words],
            dt: vec![0; words],
            saved_stamp: vec![0; size],
            stamp: 0,
            moves: Vec::new(),
            plies: Vec::new(),
            saved: Vec::new(),
            counts: [[0; Threat::COUNT]; 2],
            sums: [0; 2],
            zhash: 0,
            winner: None,
            range: DEFAULT_CANDIDATE_RANGE,
        };
        for y in 0..height {
            for x in 0..width {
                let p = b.idx(x, y);
                b.cells[p] = EMPTY;
            }
        }
        b.reserve_stacks();
        b.recompute_all();
        Ok(b)
    }

    fn reserve_stacks(&mut self) {
        let n = self.width * self.height;
        self.moves.reserve(n.saturating_sub(self.moves.len()));
        self.plies.reserve(n.saturating_sub(self.plies.len()));
        let want = n * 48;
        self.saved.reserve(want.saturating_sub(self.saved.len()));
    }

    /// Padded index of board coordinates (must be on the board).
    #[inline]
    fn idx(&self, x: usize, y: usize) -> usize {
        (y + PAD) * self.stride + x + PAD
    }

    /// Iterates the padded indices of all board cells.
    fn board_cells(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| self.idx(x, y)))
    }

    /// Recomputes every incremental quantity from the stones (board creation, candidate range change).
    fn recompute_all(&mut self) {
        let cells: Vec<usize> = self.board_cells().collect();
        for &p in &cells {
            for d in 0..4 {
                self.keys[p][d] = self.raw_key(p, d);
            }
        }
        self.counts = [[0; Threat::COUNT]; 2];
        self.sums = [0; 2];
        self.dt.iter_mut().for_each(|w| *w = 0);
        for &p in &cells {
            let c = if self.cells[p] == EMPTY {
                self.compute_cell(p)
            } else {
                CellCache::default()
            };
            self.cache[p] = c;
            if self.cells[p] == EMPTY {
                for col in 0..2 {
                    self.counts[col][c.threat[col] as usize] += 1;
                    self.sums[col] += c.score[col];
                }
                if c.flags & 1 != 0 {
                    self.dt[p / 64] |= 1 << (p % 64);
                }
            }
        }
        let (near, cand) = self.compute_candidates();
        self.near = near;
        self.cand = cand;
        self.zhash = self.compute_hash();
    }

    /// Width (x extent).
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height (y extent).
    pub fn height(&self) -> usize {
        self.height
    }

    /// The rule this board judges by.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The cell at (x, y), or None if off the board (any i64 is safe).
    #[inline]
    pub fn pos(&self, x: i64, y: i64) -> Option<Pos> {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return None;
        }
        Some(self.idx(x as usize, y as usize) as Pos)
    }

    /// Board coordinates (x, y) of an on-board cell.
    #[inline]
    pub fn xy(&self, p: Pos) -> (usize, usize) {
        let p = p as usize;
        (p % self.stride - PAD, p / self.stride - PAD)
    }

    /// The stone on an on-board cell.
    #[inline]
    pub fn stone(&self, p: Pos) -> Option<Color> {
        match self.cells[p as usize] {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }

    /// Whether an on-board cell is empty.
    #[inline]
    pub fn is_empty(&self, p: Pos) -> bool {
        self.cells[p as usize] == EMPTY
    }

    /// Opposite of the last stone's colour; Black on an empty board.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        match self.moves.last() {
            Some(&p) if self.cells[p as usize] == 1 => Color::White,
            _ => Color::Black,
        }
    }

    /// Number of stones on the board.
    #[inline]
    pub fn move_count(&self) -> usize {
        self.moves.len()
    }

    /// Stones in the order they were placed.
    #[inline]
    pub fn moves(&self) -> &[Pos] {
        &self.moves
    }

    /// The last stone placed.
    #[inline]
    pub fn last_move(&self) -> Option<Pos> {
        self.moves.last().copied()
    }

    /// Checked move for the side to move (protocol input): the board is unchanged on error.
    pub fn try_play(&mut self, x: i64, y: i64) -> Result<Pos, PlayError> {
        let c = self.side_to_move();
        self.try_place(x, y, c)
    }

    /// Checked placement of a stone of any colour (BOARD blocks): the board is unchanged on error.
    pub fn try_place(&mut self, x: i64, y: i64, c: Color) -> Result<Pos, PlayError> {
        let p = self.pos(x, y).ok_or(PlayError::OffBoard)?;
        if !self.is_empty(p) {
            return Err(PlayError::Occupied);
        }
        self.make(p as usize, c);
        Ok(p)
    }

    /// Fast path for search: the side to move plays the empty on-board cell `p` (debug-asserted).
    #[inline]
    pub fn play(&mut self, p: Pos) {
        debug_assert!(self.is_empty(p), "play on a non-empty cell");
        let c = self.side_to_move();
        self.make(p as usize, c);
    }

    /// Zobrist hash of stones and side to move (fixed-seed keys).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.zhash
            ^ match self.side_to_move() {
                Color::Black => 0,
                Color::White => zobrist::SIDE,
            }
    }

    /// Some(c) iff the last stone made a winning five for c under the rule (O(1)).
    #[inline]
    pub fn winner(&self) -> Option<Color> {
        self.winner
    }

    /// Whether every cell holds a stone.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.moves.len() == self.width * self.height
    }

    /// Renju: whether the empty cell `p` is forbidden for black (exact, recursive threes). False otherwise.
    #[inline]
    pub fn is_forbidden(&self, p: Pos) -> bool {
        self.renju
            && self.cells[p as usize] == EMPTY
            && self.cache[p as usize].threat[0] == Threat::Forbidden as u8
    }

    /// Empty cells within the candidate range of a stone, ascending; no allocation.
    #[inline]
    pub fn candidates(&self) -> Candidates<'_> {
        Candidates {
            words: &self.cand,
            index: 0,
            cur: self.cand.first().copied().unwrap_or(0),
        }
    }

    /// Current candidate range (Chebyshev distance to a stone).
    pub fn candidate_range(&self) -> usize {
        self.range
    }

    /// Sets the candidate range (clamped to 1..=5) and rebuilds the candidate area (not for the hot path).
    pub fn set_candidate_range(&mut self, range: usize) {
        self.range = range.clamp(1, MAX_CANDIDATE_RANGE);
        let (near, cand) = self.compute_candidates();
        self.near = near;
        self.cand = cand;
    }

    /// Line class of direction `dir` (0 horizontal, 1 vertical, 2 diagonal, 3 anti-diagonal) through the empty
    /// cell `p` if `c` plays there (Dead for occupied cells).
    #[inline]
    pub fn pattern(&self, p: Pos, c: Color, dir: usize) -> Pattern {
        let byte = (self.cache[p as usize].pats >> (8 * dir)) & 0xFF;
        Pattern::from_code(((byte >> (4 * c.index())) & 0xF) as u8)
    }

    /// Combined four-direction class of the empty cell `p` for `c` (None for occupied cells).
    #[inline]
    pub fn threat(&self, p: Pos, c: Color) -> Threat {
        Threat::from_index(self.cache[p as usize].threat[c.index()])
    }

    /// Number of empty cells where `c` has threat class `t` (O(1)).
    #[inline]
    pub fn threat_count(&self, c: Color, t: Threat) -> u32 {
        self.counts[c.index()][t as usize] as u32
    }

    /// Σ over the four directions of the per-pattern score (`eval::weights::PATTERN_SCORE`) at empty cell `p`.
    #[inline]
    pub fn cell_score(&self, p: Pos, c: Color) -> i32 {
        self.cache[p as usize].score[c.index()]
    }

    /// Σ of `cell_score` over all empty cells (incremental).
    #[inline]
    pub fn score_sum(&self, c: Color) -> i32 {
        self.sums[c.index()]
    }

    /// Undoes the last stone (no-op if the board is empty).
    pub fn undo(&mut self) {
        let Some(s) = self.moves.pop() else {
            return;
        };
        let s = s as usize;
        let ply = self.plies.pop().expect("one undo record per move");
        let c = self.cells[s] - 1;
        self.cells[s] = EMPTY;
        self.zhash ^= zobrist::key(c as usize, s);
        let bits = c as u32 + 1;
        for d in 0..4 {
            let off = self.offs[d];
            for k in 1..=5usize {
                self.keys[s - k * off][d] ^= bits << (2 * (k + 4));
                self.keys[s + k * off][d] ^= bits << (2 * (5 - k));
            }
        }
        let start = ply.saved_start as usize;
        for i in start..self.saved.len() {
            let Saved { pos, cache } = self.saved[i];
            let pos = pos as usize;
            self.cache[pos] = cache;
            if self.renju {
                self.set_dt(pos, cache.flags & 1 != 0);
            }
        }
        self.saved.truncate(start);
        self.counts = ply.counts;
        self.sums = ply.sums;
        self.winner = ply.winner;
        self.candidates_remove(s);
    }

    /// Places a stone of colour `c` on the empty cell `s` with all incremental updates.
    fn make(&mut self, s: usize, c: Color) {
        debug_assert_eq!(self.cells[s], EMPTY);
        if self.stamp == u32::MAX {
            self.saved_stamp.iter_mut().for_each(|v| *v = 0);
            self.stamp = 0;
        }
        self.stamp += 1;
        self.plies.push(Ply {
            counts: self.counts,
            sums: self.sums,
            saved_start: self.saved.len() as u32,
            winner: self.winner,
        });
        self.moves.push(s as Pos);
        self.zhash ^= zobrist::key(c.index(), s);

        // The placed cell leaves the empty-cell aggregates.
        self.save(s);
        let old = self.cache[s];
        for col in 0..2 {
            self.counts[col][old.threat[col] as usize] -= 1;
            self.sums[col] -= old.score[col];
        }
        self.cache[s] = CellCache::default();
        if self.renju {
            self.set_dt(s, false);
        }
        self.cells[s] = c.cell();

        let bits = c.cell() as u32;
        for d in 0..4 {
            let off = self.offs[d];
            for k in 1..=5usize {
                let p = s - k * off;
                self.keys[p][d] ^= bits << (2 * (k + 4));
                if self.cells[p] == EMPTY {
                    self.refresh(p, d);
                }
                let p = s + k * off;
                self.keys[p][d] ^= bits << (2 * (5 - k));
                if self.cells[p] == EMPTY {
                    self.refresh(p, d);
                }
            }
        }
        if self.renju {
            self.recheck_double_threes();
        }
        self.winner = if self.five_made(s, c) { Some(c) } else { None };
        self.candidates_add(s);
    }

    /// Saves the cache of cell `p` once per ply, before its first change.
    #[inline]
    fn save(&mut self, p: usize) {
        if self.saved_stamp[p] != self.stamp {
            self.saved_stamp[p] = self.stamp;
            self.saved.push(Saved {
                pos: p as u32,
                cache: self.cache[p],
            });
        }
    }

    #[inline]
    fn set_dt(&mut self, p: usize, on: bool) {
        if on {
            self.dt[p / 64] |= 1 << (p % 64);
        } else {
            self.dt[p / 64] &= !(1 << (p % 64));
        }
    }

    /// Re-reads direction `d` of the empty cell `p` after its key changed.
    #[inline]
    fn refresh(&mut self, p: usize, d: usize) {
        let e = self.table[self.keys[p][d] as usize] as u32;
        let shift = 8 * d;
        let old_pats = self.cache[p].pats;
        let old = (old_pats >> shift) & 0xFF;
        if old == e {
            return;
        }
        self.save(p);
        let pats = (old_pats & !(0xFF << shift)) | (e << shift);
        let db = CODE_SCORE[(e & 0xF) as usize] - CODE_SCORE[(old & 0xF) as usize];
        let dw = CODE_SCORE[(e >> 4) as usize] - CODE_SCORE[(old >> 4) as usize];
        let tb = self.threat_tabs[0][gather(pats)];
        let tw = self.threat_tabs[1][gather(pats >> 4)];
        let cc = &mut self.cache[p];
        cc.pats = pats;
        cc.score[0] += db;
        cc.score[1] += dw;
        let (ob, ow) = (cc.threat[0], cc.threat[1]);
        let nb = tb & !NEEDS_CHECK;
        cc.threat = [nb, tw];
        self.sums[0] += db;
        self.sums[1] += dw;
        if ob != nb {
            self.counts[0][ob as usize] -= 1;
            self.counts[0][nb as usize] += 1;
        }
        if ow != tw {
            self.counts[1][ow as usize] -= 1;
            self.counts[1][tw as usize] += 1;
        }
        if self.renju {
            let check = tb & NEEDS_CHECK != 0;
            self.cache[p].flags = check as u8;
            self.set_dt(p, check);
        }
    }

    /// Renju: re-judges every black double-three candidate (its status depends on cells off its lines).
    fn recheck_double_threes(&mut self) {
        for wi in 0..self.dt.len() {
            let mut w = self.dt[wi];
            while w != 0 {
                let p = wi * 64 + w.trailing_zeros() as usize;
                w &= w - 1;
                let base = self.threat_tabs[0][gather(self.cache[p].pats)] & !NEEDS_CHECK;
                let t = if self.forbidden_raw(p) {
                    Threat::Forbidden as u8
                } else {
                    base
                };
                let old = self.cache[p].threat[0];
                if old != t {
                    self.save(p);
                    self.cache[p].threat[0] = t;
                    self.counts[0][old as usize] -= 1;
                    self.counts[0][t as usize] += 1;
                }
            }
        }
    }

    /// Line key of direction `d` at board cell `p`, read from the stones (no caches).
    #[inline]
    fn raw_key(&self, p: usize, d: usize) -> u32 {
        let off = self.offs[d];
        let mut key = 0u32;
        for k in 1..=5usize {
            key |= (self.cells[p - k * off] as u32) << (2 * slot_of(-(k as isize)));
            key |= (self.cells[p + k * off] as u32) << (2 * slot_of(k as isize));
        }
        key
    }

    /// Exact renju test: is the empty cell `p` forbidden for black? Reads only the stones (plus the tables),
    /// so it can recurse on hypothetical stones: a three is real only if some point that turns it into a
    /// straight four is itself not forbidden once `p` is played.
    fn forbidden_raw(&mut self, p: usize) -> bool {
        let keys = [0, 1, 2, 3].map(|d| self.raw_key(p, d));
        let codes = keys.map(|k| self.renju_class[k as usize]);
        let (t, check) = combine_threat(codes, true);
        if t == Threat::Forbidden {
            return true;
        }
        if !check {
            return false;
        }
        self.cells[p] = Color::Black.cell();
        let mut real = 0;
        for d in 0..4 {
            if codes[d] != code::FLEX3 {
                continue;
            }
            let off = self.offs[d] as isize;
            for k in [-4isize, -3, -2, -1, 1, 2, 3, 4] {
                let q = (p as isize + k * off) as usize;
                if self.cells[q] != EMPTY {
                    continue;
                }
                let nk = keys[d] | (1 << (2 * slot_of(k)));
                if self.renju_class[nk as usize] == code::FLEX4 && !self.forbidden_raw(q) {
                    real += 1;
                    break;
                }
            }
            if real >= 2 {
                break;
            }
        }
        self.cells[p] = EMPTY;
        real >= 2
    }

    /// From-scratch cache of the empty cell `p`.
    fn compute_cell(&mut self, p: usize) -> CellCache {
        let mut pats = 0u32;
        let mut score = [0i32; 2];
        for d in 0..4 {
            let e = self.table[self.raw_key(p, d) as usize] as u32;
            pats |= e << (8 * d);
            score[0] += CODE_SCORE[(e & 0xF) as usize];
            score[1] += CODE_SCORE[(e >> 4) as usize];
        }
        let codes_b = [0, 1, 2, 3].map(|d| ((pats >> (8 * d)) & 0xF) as u8);
        let codes_w = [0, 1, 2, 3].map(|d| ((pats >> (8 * d + 4)) & 0xF) as u8);
        let (tb, check) = combine_threat(codes_b, self.renju);
        let (tw, _) = combine_threat(codes_w, false);
        let tb = if check && self.forbidden_raw(p) {
            Threat::Forbidden
        } else {
            tb
        };
        CellCache {
            pats,
            threat: [tb as u8, tw as u8],
            flags: check as u8,
            _pad: 0,
            score,
        }
    }

    /// Whether the stone of colour `c` at `s` makes a winning five under the rule (exact line scan).
    fn five_made(&self, s: usize, c: Color) -> bool {
        let (lb, lw) = self.rule.line_rules();
        let lr = if c == Color::Black { lb } else { lw };
        let me = c.cell();
        let opp = c.opp().cell();
        for d in 0..4 {
            let off = self.offs[d];
            let mut l = 1;
            while self.cells[s - l * off] == me {
                l += 1;
            }
            let mut r = 1;
            while self.cells[s + r * off] == me {
                r += 1;
            }
            let run = l + r - 1;
            if run < 5 || (run > 5 && lr.exact()) {
                continue;
            }
            if lr.caro() && self.cells[s - l * off] == opp && self.cells[s + r * off] == opp {
                continue;
            }
            return true;
        }
        false
    }

    fn compute_hash(&self) -> u64 {
        let mut h = 0;
        for p in self.board_cells() {
            match self.cells[p] {
                1 => h ^= zobrist::key(0, p),
                2 => h ^= zobrist::key(1, p),
                _ => {}
            }
        }
        h
    }

    /// From-scratch neighbourhood counts and candidate bitset.
    fn compute_candidates(&self) -> (Vec<u8>, Vec<u64>) {
        let mut near = vec![0u8; self.cells.len()];
        let mut cand = vec![0u64; self.cand.len()];
        let r = self.range as isize;
        for p in self.board_cells() {
            if self.cells[p] == EMPTY {
                continue;
            }
            for dy in -r..=r {
                for dx in -r..=r {
                    let q = (p as isize + dy * self.stride as isize + dx) as usize;
                    near[q] += 1;
                }
            }
        }
        for p in self.board_cells() {
            if self.cells[p] == EMPTY && near[p] > 0 {
                cand[p / 64] |= 1 << (p % 64);
            }
        }
        (near, cand)
    }

    #[inline]
    fn candidates_add(&mut self, s: usize) {
        let r = self.range;
        let top = s - r * self.stride - r;
        for dy in 0..=2 * r {
            let row = top + dy * self.stride;
            for q in row..=row + 2 * r {
                self.near[q] += 1;
                if self.near[q] == 1 && self.cells[q] == EMPTY {
                    self.cand[q / 64] |= 1 << (q % 64);
                }
            }
        }
        self.cand[s / 64] &= !(1 << (s % 64));
    }

    #[inline]
    fn candidates_remove(&mut self, s: usize) {
        let r = self.range;
        let top = s - r * self.stride - r;
        for dy in 0..=2 * r {
            let row = top + dy * self.stride;
            for q in row..=row + 2 * r {
                self.near[q] -= 1;
                if self.near[q] == 0 {
                    self.cand[q / 64] &= !(1 << (q % 64));
                }
            }
        }
        if self.near[s] > 0 {
            self.cand[s / 64] |= 1 << (s % 64);
        }
    }

    /// Recomputes every incremental quantity from scratch and panics on any mismatch (for tests).
    pub fn check_invariants(&self) {
        let mut b = self.clone();
        // Stones and move list agree.
        let stones = self
            .board_cells()
            .filter(|&p| self.cells[p] != EMPTY)
            .count();
        assert_eq!(stones, self.moves.len(), "stone count vs move list");
        assert_eq!(self.plies.len(), self.moves.len(), "undo records");
        for &m in &self.moves {
            assert!(self.stone(m).is_some(), "move list cell is empty");
        }
        assert_eq!(self.zhash, self.compute_hash(), "hash");
        let mut counts = [[0u16; Threat::COUNT]; 2];
        let mut sums = [0i32; 2];
        let mut dt = vec![0u64; self.dt.len()];
        for p in self.board_cells() {
            for d in 0..4 {
                assert_eq!(
                    self.keys[p][d],
                    self.raw_key(p, d),
                    "key at {:?} dir {d}",
                    self.xy(p as Pos)
                );
            }
            if self.cells[p] != EMPTY {
                assert_eq!(self.cache[p], CellCache::default(), "occupied cell cache");
                continue;
            }
            let c = b.compute_cell(p);
            assert_eq!(
                self.cache[p],
                c,
                "cell cache at {:?}\n{:?}",
                self.xy(p as Pos),
                self
            );
            for col in 0..2 {
                counts[col][c.threat[col] as usize] += 1;
                sums[col] += c.score[col];
            }
            if c.flags & 1 != 0 {
                dt[p / 64] |= 1 << (p % 64);
            }
        }
        assert_eq!(self.counts, counts, "threat counts");
        assert_eq!(self.sums, sums, "score sums");
        if self.renju {
            assert_eq!(self.dt, dt, "renju double-three candidates");
        }
        let (near, cand) = self.compute_candidates();
        for p in self.board_cells() {
            assert_eq!(self.near[p], near[p], "near count");
        }
        assert_eq!(self.cand, cand, "candidate set");
        let w = self.last_move().and_then(|m| {
            let c = self.stone(m).expect("last move is a stone");
            self.five_made(m as usize, c).then_some(c)
        });
        assert_eq!(self.winner, w, "winner");
    }
}

/// Iterator over the candidate area (ascending `Pos`).
pub struct Candidates<'a> {
    words: &'a [u64],
    index: usize,
    cur: u64,
}

impl Iterator for Candidates<'_> {
    type Item = Pos;

    #[inline]
    fn next(&mut self) -> Option<Pos> {
        while self.cur == 0 {
            self.index += 1;
            if self.index >= self.words.len() {
                return None;
            }
            self.cur = self.words[self.index];
        }
        let bit = self.cur.trailing_zeros() as usize;
        self.cur &= self.cur - 1;
        Some((self.index * 64 + bit) as Pos)
    }
}

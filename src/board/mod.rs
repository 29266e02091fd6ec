//! Board, moves, Zobrist hashing, candidate area, rules and win checks, renju forbidden points.
//!
//! Layout: a padded array of `(height + 10) * (width + 5) + 10` cells; row `y` starts at `(y + 5) * stride`
//! and its board cells are columns `5..5 + width`; the five columns before a row's board cells (shared with the
//! previous row's right side) and five rows above and below are walls. So any cell up to five steps from a board
//! cell, in any of the four directions, is inside the array: line walks need no bounds checks.
//!
//! Incremental state (all restored by `undo` from a stack, never recomputed):
//! - per cell and direction, a line key (see `crate::pattern`) updated by one add on the 40 cells around a
//!   stone: two 16-bit ternary keys (black's and white's view) for every rule but caro, the 20-bit key for caro;
//!   ternary keys are compact (`pattern::POW3_COMPACT`: the ±5 cells are one own-stone bit each), so a view's
//!   table is 26 KB (6.5 KB in freestyle, whose keys cover only ±4);
//! - per empty cell, the four line codes per colour (a nibble per direction, in the `STORED` numbering whose top
//!   three bits index the compact threat table directly) and the combined `Threat` per colour; per colour,
//!   counts of each threat class and the sums of the evaluation's cell values (`eval::table`, read at the same
//!   compact index; move ordering's `cell_score` is four small lookups on the cached codes);
//! - the candidate area: per row, a bitmask of cells within range of a stone (OR-ed in on a move; the few rows
//!   a move touched are saved and restored by undo); the Zobrist hash; the winner.
//!
//! A move refreshes the empty cells on its four lines (see `update_lines`), and pushes their old 8-byte cache
//! entries on the undo stack; undo pops them back. Nothing is allocated per move (stacks are reserved).
//!
//! Renju: a cell where black has two Flex3 lines (and no other forbidden shape) is a double-three candidate;
//! whether at least two of those threes are real depends on cells off its lines, so after every move the
//! (few) candidates are re-judged by the exact recursive check.

pub mod cpu;
mod diagram;
mod zobrist;

pub mod bench;

#[cfg(test)]
mod tests;

pub use diagram::diagram_marks;

use crate::eval::table::{table as eval_table, EvalTable};
use crate::eval::weights::PATTERN_SCORE;
use crate::pattern::{
    code, combine_threat, compact_pair_table, rule_table, threat_table, LineRule, PairTable,
    Pattern, Threat, KEY_COUNT, NEEDS_CHECK, POW3_COMPACT,
};
use std::fmt;
use std::sync::LazyLock;

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
/// Size of the per-cell arrays: a power of two above the largest padded board (42 * 37 + 10 cells), so that
/// hot-path indices masked with `MASK` need no bounds checks.
const CELLS: usize = 2048;
/// Index mask for the per-cell arrays.
const MASK: usize = CELLS - 1;
/// Placeholder 2-bit table for a ternary board (zeroed, never read).
static NO_TABLE: [u8; KEY_COUNT] = [0; KEY_COUNT];

/// What a black stone on an empty cell makes under renju (see `Board::black_move`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlackMove {
    /// A five: it wins, whatever else it makes.
    Five,
    /// An overline, a double four or a double three.
    Forbidden,
    /// Anything else.
    Other,
}

/// A boxed fixed-size array filled with `v`.
fn boxed<T: Clone + std::fmt::Debug, const N: usize>(v: T) -> Box<[T; N]> {
    vec![v; N].into_boxed_slice().try_into().expect("length N")
}
/// Length of the scratch list of a move's cells: a power of two above the 40 cells on a move's lines, so
/// that indices masked with `LIST_MASK` need no bounds checks.
const LIST_LEN: usize = 64;
/// Index mask for the scratch list.
const LIST_MASK: usize = LIST_LEN - 1;
/// Cell codes.
const EMPTY: u8 = 0;
const WALL: u8 = 3;
/// Default candidate range (Chebyshev distance to the nearest stone).
pub const DEFAULT_CANDIDATE_RANGE: usize = 2;
/// Most null moves (`Board::pass`) in force at once; the search's depth bounds its nesting far below this.
pub const MAX_PASSES: usize = 32;
/// Largest supported candidate range.
pub const MAX_CANDIDATE_RANGE: usize = 5;
/// Guard rows above and below the candidate rows: a move's 2 * range + 1 rows never need clipping, so the
/// update is a fixed number of rows.
const CAND_PAD: usize = MAX_CANDIDATE_RANGE;

/// Key change of a stone of colour `c` at key slot `i`: `DELTAS[ternary as usize][c][i]`. Ternary keys hold
/// black's view in the low half and white's in the high half (an own stone is 1, an opponent's 2, times the
/// slot's power of three; the outer slots 0 and 9 count only an own stone, see `POW3_COMPACT`); caro's 2-bit
/// keys hold the cell code. A constant, so that the move update adds immediates.
const DELTAS: [[[u32; 10]; 2]; 2] = {
    let mut t = [[[0u32; 10]; 2]; 2];
    let mut i = 0;
    while i < 10 {
        let pow = POW3_COMPACT[i];
        t[0][0][i] = 1 << (2 * i);
        t[0][1][i] = 2 << (2 * i);
        if i == 0 || i == 9 {
            t[1][0][i] = pow;
            t[1][1][i] = pow << 16;
        } else {
            t[1][0][i] = pow | ((2 * pow) << 16);
            t[1][1][i] = (2 * pow) | (pow << 16);
        }
        i += 1;
    }
    t
};

/// Key slot of the cell at signed offset `k` (±1..=±5) from a line's centre.
#[inline]
const fn slot_of(k: isize) -> usize {
    if k < 0 {
        (k + 5) as usize
    } else {
        (k + 4) as usize
    }
}

/// Cached per-cell state (empty cells; all zero for occupied cells), packed in one word so that saving and
/// restoring it is a single move: bits 0..16 black's stored line codes (`STORED`; direction d in bits
/// 4d..4d+4, which is directly the threat tables' index), 16..32 white's, 32..36 black's `Threat`, 36..40
/// white's (so bits 32..40 index `CellTables::lanes`), bit 48 the renju double-three-candidate flag. Whether
/// a cell is empty is read from `cells`, not from here (an empty cell's cache can be all zero too).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CellCache(u64);

impl CellCache {
    /// A cache of both colours' codes, both threats (black's | white's << 4) and the renju flag.
    #[inline]
    fn new(pats: u32, threats: u8, flag: u8) -> CellCache {
        CellCache(pats as u64 | (threats as u64) << 32 | (flag as u64 & 1) << 48)
    }

    /// Both colours' line codes.
    #[inline]
    fn pats(self) -> u32 {
        self.0 as u32
    }

    /// Black's four line codes.
    #[inline]
    fn pb(self) -> u16 {
        self.0 as u16
    }

    /// White's four line codes.
    #[inline]
    fn pw(self) -> u16 {
        (self.0 >> 16) as u16
    }

    /// Black's threat.
    #[inline]
    fn tb(self) -> u8 {
        ((self.0 >> 32) & 0xF) as u8
    }

    /// White's threat.
    #[inline]
    fn tw(self) -> u8 {
        ((self.0 >> 36) & 0xF) as u8
    }

    /// Both threats, black's | white's << 4 (the `CellTables::lanes` index).
    #[inline]
    fn threats(self) -> usize {
        ((self.0 >> 32) & 0xFF) as usize
    }

    /// Renju double-three candidate flag (0 or 1).
    #[inline]
    fn flag(self) -> u8 {
        ((self.0 >> 48) & 1) as u8
    }

    /// The same with black's threat replaced.
    #[inline]
    fn with_tb(self, t: u8) -> CellCache {
        CellCache((self.0 & !(0xF << 32)) | (t as u64) << 32)
    }
}

/// Everything the move update touches for one cell: 24 bytes, unpadded (the 32-byte aligned layout was
/// 4 KB more of L1 for a 15x15 board and measured slower).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Slot {
    /// Line key per direction (ternary: black's view | white's view << 16; caro: the 2-bit key).
    keys: [u32; 4],
    cache: CellCache,
}

/// A cell's cache as it was before the current ply changed it, with the cell index in bits 52..63.
#[derive(Clone, Copy, Debug, Default)]
struct Saved(u64);

impl Saved {
    #[inline]
    fn new(pos: usize, cache: CellCache) -> Saved {
        Saved(cache.0 | (pos as u64) << 52)
    }

    #[inline]
    fn pos(self) -> usize {
        (self.0 >> 52) as usize & MASK
    }

    #[inline]
    fn cache(self) -> CellCache {
        CellCache(self.0 & ((1 << 52) - 1))
    }
}

/// A stack in a preallocated buffer: the hot path writes `buf[len]` with a local copy of `len` (one bounds
/// check, no capacity check or length store per push, unlike `Vec::push`); `reserve` grows it off the hot path.
#[derive(Clone, Debug)]
struct Stack<T> {
    buf: Box<[T]>,
    len: usize,
}

impl<T: Copy + Default> Stack<T> {
    fn new() -> Stack<T> {
        Stack {
            buf: Box::new([]),
            len: 0,
        }
    }

    /// Makes room for at least `n` more entries (allocates only if the buffer is too small).
    #[inline]
    fn reserve(&mut self, n: usize) {
        if self.len + n > self.buf.len() {
            self.grow(self.len + n);
        }
    }

    #[cold]
    fn grow(&mut self, want: usize) {
        let mut v = self.buf.to_vec();
        v.resize(want.max(2 * self.buf.len()), T::default());
        self.buf = v.into_boxed_slice();
    }

    #[inline]
    fn push(&mut self, v: T) {
        self.reserve(1);
        self.buf[self.len] = v;
        self.len += 1;
    }

    #[inline]
    fn as_slice(&self) -> &[T] {
        &self.buf[..self.len]
    }
}

/// Per-ply undo record.
#[derive(Clone, Copy, Debug)]
struct Ply {
    counts: [[u16; 16]; 2],
    sums: [i64; 2],
    saved_start: u32,
    winner: Option<Color>,
}

/// The cache's numbering of line codes ("stored codes"): code `c` (see `pattern::code`) is stored as
/// `STORED[c]`. It is chosen so that a stored code's top three bits (`>> 1`) are all that the threat class
/// needs outside renju's black: Dead/Block1 and Flex1/Block2 share a value (neither counts for a threat), as do
/// Flex4/Multi4. Overline also counts for nothing there and is stored as Dead; it keeps its own value (5,
/// beside Flex2) only in renju's black view, whose threat table reads all four bits. Then the threat table
/// for the other views has 8^4 entries at the index `(codes >> 1) & 0x7777` (a 30 KB table of which 8 KB is
/// used), where one indexed by all four bits of each code needs 64 KB or nibble packing: the first missed
/// L1 far more often, the second cost about 12 instructions a cell to unpack.
const STORED: [u8; 12] = [0, 1, 2, 3, 4, 6, 8, 10, 12, 14, 5, 13];

/// Inverse of `STORED` (unused stored values read as Dead).
const CODE_OF: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut c = 0;
    while c < 12 {
        t[STORED[c] as usize] = c as u8;
        c += 1;
    }
    t
};

/// Stored code of `code` in a view under line rule `lr` (overline is Dead unless it is renju black's).
const fn store(code: u8, lr: LineRule) -> u8 {
    if code == code::OVERLINE && !matches!(lr, LineRule::RenjuBlack) {
        STORED[Pattern::Dead as usize]
    } else {
        STORED[code as usize]
    }
}

/// Index into `CellTables::compact` of four stored codes (direction d in bits 4d..4d+4).
#[inline(always)]
fn compact_index(codes: u32) -> usize {
    ((codes >> 1) & 0x7777) as usize
}

/// Score of each stored line code.
const CODE_SCORE: [i32; 16] = {
    let mut s = [0i32; 16];
    let mut i = 0;
    while i < 16 {
        s[i] = PATTERN_SCORE[Pattern::from_code(CODE_OF[i]) as usize];
        i += 1;
    }
    s
};

/// The tables the move update reads for every cell, in one allocation, so that one base register serves them
/// all: with a base each, the update loop ran short of registers and spilled to the stack.
#[repr(C)]
struct CellTables {
    /// Count lanes of a threat pair `black | white << 4`: byte `black` and byte `16 + white` are 1. The move
    /// update sums new minus old lanes over its cells in wrapping bytes (a class count changes by at most 41
    /// in a move) and adds them to the counts once: four read-modify-writes of the counts per cell cost more.
    lanes: [[u8; 32]; 256],
    /// Threat class (`Threat as u8`) by four stored codes at `compact_index`, for every view but renju
    /// black's.
    compact: [u8; 0x7778],
    /// Renju black's threat class plus `NEEDS_CHECK` by four stored codes (all 16 bits; zero in other rules).
    renju: [u8; 1 << 16],
    /// `compact_pair_table(rule)` in stored codes: black's view at the key, white's at key | 1 << 16 (zero
    /// for caro, whose 2-bit keys read `CARO_LINES`).
    lines: PairTable,
}

impl CellTables {
    /// The tables of `rule`.
    fn new(rule: Rule) -> Box<CellTables> {
        let mut t = Box::new(CellTables {
            lanes: [[0; 32]; 256],
            compact: [0; 0x7778],
            renju: [0; 1 << 16],
            lines: [0; 1 << 17],
        });
        for (i, l) in t.lanes.iter_mut().enumerate() {
            l[i & 15] = 1;
            l[16 + (i >> 4)] = 1;
        }
        for (i, e) in t.compact.iter_mut().enumerate() {
            if i & 0x8888 == 0 {
                // The even stored code of each value stands for both.
                let codes = [0, 1, 2, 3].map(|d| CODE_OF[((i >> (4 * d)) & 7) * 2]);
                *e = combine_threat(codes, false).0 as u8;
            }
        }
        if rule == Rule::Renju {
            let full = threat_table(true);
            for (i, e) in t.renju.iter_mut().enumerate() {
                let code = (0..4).fold(0, |k, d| {
                    k | (CODE_OF[(i >> (4 * d)) & 15] as usize) << (4 * d)
                });
                *e = full[code];
            }
        }
        if !matches!(rule, Rule::Caro | Rule::CaroExact) {
            let (lb, lw) = rule.line_rules();
            for (i, &c) in compact_pair_table(rule).iter().enumerate() {
                t.lines[i] = store(c, if i < 1 << 16 { lb } else { lw });
            }
        }
        t
    }
}

/// `CellTables` per rule, indexed by `Rule as usize` (built when a rule is first used).
static CELL_TABLES: [LazyLock<Box<CellTables>>; 5] = [
    LazyLock::new(|| CellTables::new(Rule::Freestyle)),
    LazyLock::new(|| CellTables::new(Rule::Standard)),
    LazyLock::new(|| CellTables::new(Rule::Renju)),
    LazyLock::new(|| CellTables::new(Rule::Caro)),
    LazyLock::new(|| CellTables::new(Rule::CaroExact)),
];

/// Caro's merged 2-bit-key line table (`rule_table`) in stored codes, for caro (index 0) and caro exact (1).
static CARO_LINES: [LazyLock<Box<[u8; KEY_COUNT]>>; 2] = [
    LazyLock::new(|| caro_lines(Rule::Caro)),
    LazyLock::new(|| caro_lines(Rule::CaroExact)),
];

/// See `CARO_LINES`.
fn caro_lines(rule: Rule) -> Box<[u8; KEY_COUNT]> {
    let (lb, lw) = rule.line_rules();
    let mut t = rule_table(rule).entries;
    for e in t.iter_mut() {
        *e = store(*e & 0xF, lb) | store(*e >> 4, lw) << 4;
    }
    t
}

/// Splits a sum of packed `lo + hi * 2^32` values (or of their differences) into (lo, hi).
#[inline]
fn unpack_lanes(v: i64) -> (i32, i32) {
    let b = v as i32;
    (b, ((v - b as i64) >> 32) as i32)
}

/// Σ of the code scores of four packed nibbles.
#[inline]
fn codes_score(p: u16) -> i32 {
    CODE_SCORE[(p & 0xF) as usize]
        + CODE_SCORE[((p >> 4) & 0xF) as usize]
        + CODE_SCORE[((p >> 8) & 0xF) as usize]
        + CODE_SCORE[(p >> 12) as usize]
}

/// The game board with incremental pattern state (see the module docs).
pub struct Board {
    width: usize,
    height: usize,
    stride: usize,
    rule: Rule,
    renju: bool,
    offs: [usize; 4],
    /// Ternary keys (all rules but caro): key = black view | white view << 16.
    ternary: bool,
    /// Key contribution of a wall cell at key slot i.
    wall: [u32; 10],
    /// Black's-view weight of a black stone at each key slot (`POW3_COMPACT`; renju forbidden checks).
    pow: [u32; 10],
    /// Merged 2-bit table (caro).
    table: &'static [u8; KEY_COUNT],
    /// Threat count lanes, threat tables and (ternary) line tables.
    ct: &'static CellTables,
    /// The evaluation's cell values of the rule (`eval::table`): the board keeps their sums.
    ev: &'static EvalTable,
    cells: Box<[u8; CELLS]>,
    /// x | y << 8 of each padded index (avoids a division per move).
    coord: Box<[u16; CELLS]>,
    /// Line keys and cache of each cell, together (one or two cache lines per cell on the hot path).
    slots: Box<[Slot; CELLS]>,
    /// Per board row: bit x set iff (x, y) is within range of a stone (occupied cells included).
    cand_rows: Vec<u64>,
    /// Per board row: bit x set iff (x, y) holds a stone.
    stone_rows: Vec<u64>,
    /// Renju double-three candidates (bit per padded index).
    dt: [u64; CELLS / 64],
    moves: Vec<Pos>,
    plies: Vec<Ply>,
    saved: Stack<Saved>,
    /// Candidate rows as they were before each move (2 * range + 1 per move, clipped rows too).
    cand_saved: Stack<u64>,
    /// Whether the move update runs its x86-64-v3 copy (`cpu::path`).
    v3: bool,
    /// Hypothetical black stones of the renju forbidden-point recursion (innermost last; empty between calls).
    hyp: Vec<usize>,
    /// Scratch list of the empty cells on a move's lines (`update_lines`; meaningless between moves).
    changed: [u64; LIST_LEN],
    counts: [[u16; 16]; 2],
    /// Per colour, Σ over empty cells of `ev.cell[colour]` at the cell's codes (two packed lanes).
    sums: [i64; 2],
    zhash: u64,
    winner: Option<Color>,
    range: usize,
    /// Null moves in force (`pass`), innermost last: the stone counts at which they were made. The side to move
    /// is flipped while no stone was placed since the innermost one.
    pass_at: [u16; MAX_PASSES],
    /// Number of entries of `pass_at` in use.
    passes: usize,
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
            ternary: self.ternary,
            wall: self.wall,
            pow: self.pow,
            table: self.table,
            ct: self.ct,
            ev: self.ev,
            cells: self.cells.clone(),
            coord: self.coord.clone(),
            slots: self.slots.clone(),
            cand_rows: self.cand_rows.clone(),
            stone_rows: self.stone_rows.clone(),
            dt: self.dt,
            moves: self.moves.clone(),
            plies: self.plies.clone(),
            saved: self.saved.clone(),
            cand_saved: self.cand_saved.clone(),
            v3: self.v3,
            hyp: Vec::with_capacity(64),
            changed: [0; LIST_LEN],
            counts: self.counts,
            sums: self.sums,
            zhash: self.zhash,
            passes: self.passes,
            pass_at: self.pass_at,
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
        debug_assert!((height + 2 * PAD) * stride + 2 * PAD <= CELLS);
        let ternary = !matches!(rule, Rule::Caro | Rule::CaroExact);
        let mut wall = [0u32; 10];
        for (i, &pow) in POW3_COMPACT.iter().enumerate() {
            // Compact keys: the outer slots (0 and 9) count only an own stone (see `POW3_COMPACT`).
            let outer = i == 0 || i == 9;
            wall[i] = if !ternary {
                3 << (2 * i)
            } else if outer {
                0
            } else {
                (2 * pow) | ((2 * pow) << 16)
            };
        }
        let mut b = Board {
            width,
            height,
            stride,
            rule,
            renju: rule == Rule::Renju,
            offs: [1, stride, stride + 1, stride - 1],
            ternary,
            wall,
            pow: POW3_COMPACT,
            table: match rule {
                Rule::Caro => &CARO_LINES[0],
                Rule::CaroExact => &CARO_LINES[1],
                _ => &NO_TABLE,
            },
            ct: &CELL_TABLES[rule as usize],
            ev: eval_table(rule),
            cells: boxed(WALL),
            coord: boxed(0),
            slots: boxed(Slot::default()),
            cand_rows: vec![0; height + 2 * CAND_PAD],
            stone_rows: vec![0; height],
            dt: [0; CELLS / 64],
            moves: Vec::new(),
            plies: Vec::new(),
            saved: Stack::new(),
            cand_saved: Stack::new(),
            v3: cpu::path() == cpu::Path::V3,
            hyp: Vec::with_capacity(64),
            changed: [0; LIST_LEN],
            counts: [[0; 16]; 2],
            sums: [0; 2],
            zhash: 0,
            passes: 0,
            pass_at: [0; MAX_PASSES],
            winner: None,
            range: DEFAULT_CANDIDATE_RANGE,
        };
        for y in 0..height {
            for x in 0..width {
                let p = b.idx(x, y);
                b.cells[p] = EMPTY;
                b.coord[p] = (x | y << 8) as u16;
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
        // 41 cells per move at most, plus renju re-judged cells (rarely more than a few).
        let want = n * 48;
        self.saved.reserve(want.saturating_sub(self.saved.len));
        let want = n * (2 * MAX_CANDIDATE_RANGE + 1);
        self.cand_saved
            .reserve(want.saturating_sub(self.cand_saved.len));
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
        debug_assert!(cells.iter().all(|&p| p + 5 * (self.stride + 1) < CELLS));
        for &p in &cells {
            for d in 0..4 {
                self.slots[p].keys[d] = self.raw_key(p, d);
            }
        }
        self.counts = [[0; 16]; 2];
        self.sums = [0; 2];
        self.dt.iter_mut().for_each(|w| *w = 0);
        for &p in &cells {
            let c = if self.cells[p] == EMPTY {
                self.compute_cell(p)
            } else {
                CellCache::default()
            };
            self.slots[p].cache = c;
            if self.cells[p] == EMPTY {
                self.counts[0][c.tb() as usize] += 1;
                self.counts[1][c.tw() as usize] += 1;
                self.sums[0] += self.ev.cell[0][compact_index(c.pb() as u32)];
                self.sums[1] += self.ev.cell[1][compact_index(c.pw() as u32)];
                if c.flag() != 0 {
                    self.dt[p / 64] |= 1 << (p % 64);
                }
            }
        }
        let (cand, stones) = self.compute_candidates();
        self.cand_rows = cand;
        self.stone_rows = stones;
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
        let c = self.coord[p as usize] as usize;
        (c & 0xFF, c >> 8)
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

    /// Opposite of the last stone's colour (Black on an empty board), flipped while a null move is in force.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        let c = match self.moves.last() {
            Some(&p) if self.cells[p as usize] == 1 => Color::White,
            _ => Color::Black,
        };
        if self.just_passed() {
            c.opp()
        } else {
            c
        }
    }

    /// True if another `pass` fits (at most `MAX_PASSES` in force).
    #[inline]
    pub fn can_pass(&self) -> bool {
        self.passes < MAX_PASSES
    }

    /// Null move of the search: the side to move passes (undo with `unpass` after undoing the stones placed
    /// since). Call only when `can_pass`.
    #[inline]
    pub fn pass(&mut self) {
        self.pass_at[self.passes] = self.moves.len() as u16;
        self.passes += 1;
    }

    /// True if the side to move is flipped by a null move with no stone since.
    #[inline]
    pub fn just_passed(&self) -> bool {
        self.passes > 0 && usize::from(self.pass_at[self.passes - 1]) == self.moves.len()
    }

    /// Undoes the last `pass`.
    #[inline]
    pub fn unpass(&mut self) {
        self.passes -= 1;
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

    /// Every empty board cell, in ascending `Pos` (not for the hot path).
    pub fn empty_cells(&self) -> impl Iterator<Item = Pos> + '_ {
        self.board_cells()
            .filter(|&p| self.cells[p] == EMPTY)
            .map(|p| p as Pos)
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
            && self.slots[p as usize].cache.tb() == Threat::Forbidden as u8
    }

    /// Empty cells within the candidate range of a stone, ascending; no allocation.
    #[inline]
    pub fn candidates(&self) -> Candidates<'_> {
        Candidates {
            board: self,
            y: 0,
            cur: self.cand_rows[CAND_PAD] & !self.stone_rows[0],
        }
    }

    /// Current candidate range (Chebyshev distance to a stone).
    pub fn candidate_range(&self) -> usize {
        self.range
    }

    /// Sets the candidate range (clamped to 1..=5) and rebuilds the candidate area (not for the hot path).
    /// Undo stays exact across the change: saved rows are kept per move, so the change is applied to them too.
    pub fn set_candidate_range(&mut self, range: usize) {
        let range = range.clamp(1, MAX_CANDIDATE_RANGE);
        if range == self.range {
            return;
        }
        // Replay the candidate history under the new range so undo keeps restoring exact rows.
        self.range = range;
        self.cand_saved.len = 0;
        self.cand_rows.iter_mut().for_each(|r| *r = 0);
        self.stone_rows.iter_mut().for_each(|r| *r = 0);
        for i in 0..self.moves.len() {
            let s = self.moves[i] as usize;
            self.candidates_add(s);
        }
    }

    /// Line class of direction `dir` (0 horizontal, 1 vertical, 2 diagonal, 3 anti-diagonal) through the empty
    /// cell `p` if `c` plays there (Dead for occupied cells).
    #[inline]
    pub fn pattern(&self, p: Pos, c: Color, dir: usize) -> Pattern {
        let cc = &self.slots[p as usize].cache;
        let codes = (cc.pats() >> (16 * c.index())) as u16;
        Pattern::from_code(CODE_OF[((codes >> (4 * dir)) & 0xF) as usize])
    }

    /// Combined four-direction class of the empty cell `p` for `c` (None for occupied cells).
    #[inline]
    pub fn threat(&self, p: Pos, c: Color) -> Threat {
        let cc = &self.slots[p as usize].cache;
        Threat::from_index(if c == Color::Black { cc.tb() } else { cc.tw() })
    }

    /// Number of empty cells where `c` has threat class `t` (O(1)).
    #[inline]
    pub fn threat_count(&self, c: Color, t: Threat) -> u32 {
        self.counts[c.index()][t as usize] as u32
    }

    /// Σ over the four directions of the per-pattern score (`eval::weights::PATTERN_SCORE`) at empty cell `p`
    /// (0 for occupied cells); O(1) from the cached line codes.
    #[inline]
    pub fn cell_score(&self, p: Pos, c: Color) -> i32 {
        if self.cells[p as usize] != EMPTY {
            return 0;
        }
        let cc = self.slots[p as usize].cache;
        codes_score((cc.pats() >> (16 * c.index())) as u16)
    }

    /// Σ over all empty cells of the evaluation's values of `c`'s cells (`eval::table`): the lane for `c` to
    /// move and the lane for `c` not to move (incremental).
    #[inline]
    pub fn eval_lanes(&self, c: Color) -> (i32, i32) {
        unpack_lanes(self.sums[c.index()])
    }

    /// The evaluation tables this board keeps sums of (its rule's).
    #[inline]
    pub fn eval_table(&self) -> &'static EvalTable {
        self.ev
    }

    /// The compact index of `c`'s four line codes at `p` (zero for occupied cells): the index the board reads
    /// `eval::table`'s cell tables at, so the tuner's features are the board's own.
    #[inline]
    pub fn cell_index(&self, p: Pos, c: Color) -> usize {
        compact_index(self.slots[p as usize].cache.pats() >> (16 * c.index()))
    }

    /// Undoes the last stone (no-op if the board is empty).
    pub fn undo(&mut self) {
        let Some(s) = self.moves.pop() else {
            return;
        };
        let s = s as usize;
        let Some(ply) = self.plies.pop() else {
            return;
        };
        let c = (self.cells[s] - 1) as usize;
        self.cells[s] = EMPTY;
        self.zhash ^= zobrist::key(c, s);
        match (self.rule, c) {
            (Rule::Freestyle, 0) => self.remove_keys::<4, true, 0>(s),
            (Rule::Freestyle, _) => self.remove_keys::<4, true, 1>(s),
            (Rule::Standard | Rule::Renju, 0) => self.remove_keys::<5, true, 0>(s),
            (Rule::Standard | Rule::Renju, _) => self.remove_keys::<5, true, 1>(s),
            (Rule::Caro | Rule::CaroExact, 0) => self.remove_keys::<5, false, 0>(s),
            (Rule::Caro | Rule::CaroExact, _) => self.remove_keys::<5, false, 1>(s),
        }
        let start = ply.saved_start as usize;
        let saved = &self.saved.buf[start..self.saved.len];
        // The slots borrowed once: through `self` the pointer would be reloaded after every store.
        let slots = &mut *self.slots;
        if !self.renju {
            for e in saved {
                slots[e.pos()].cache = e.cache();
            }
        } else {
            for e in saved {
                let pos = e.pos();
                let cache = e.cache();
                if (slots[pos].cache.flag() | cache.flag()) != 0 {
                    let bit = 1u64 << (pos % 64);
                    if cache.flag() != 0 {
                        self.dt[pos / 64 % (CELLS / 64)] |= bit;
                    } else {
                        self.dt[pos / 64 % (CELLS / 64)] &= !bit;
                    }
                }
                slots[pos].cache = cache;
            }
        }
        self.saved.len = start;
        self.counts = ply.counts;
        self.sums = ply.sums;
        self.winner = ply.winner;
        self.candidates_remove(s);
    }

    /// Takes the stone of colour index `C` at `s` out of the line keys within `REACH` cells (`TERNARY`: key
    /// format; constants, so that the key deltas are immediates).
    #[inline(always)]
    fn remove_keys<const REACH: usize, const TERNARY: bool, const C: usize>(&mut self, s: usize) {
        let delta = DELTAS[TERNARY as usize][C];
        for d in 0..4 {
            let off = self.offs[d];
            for k in 1..=REACH {
                self.slots[(s - k * off) & MASK].keys[d] -= delta[k + 4];
                self.slots[(s + k * off) & MASK].keys[d] -= delta[5 - k];
            }
        }
    }

    /// Places a stone of colour `c` on the empty cell `s` with all incremental updates.
    #[inline]
    fn make(&mut self, s: usize, c: Color) {
        debug_assert_eq!(self.cells[s], EMPTY);
        self.plies.push(Ply {
            counts: self.counts,
            sums: self.sums,
            saved_start: self.saved.len as u32,
            winner: self.winner,
        });
        self.moves.push(s as Pos);
        self.zhash ^= zobrist::key(c.index(), s);

        // The placed cell leaves the empty-cell aggregates.
        let old = self.slots[s].cache;
        // Room for this cell and the 40 on its lines (renju re-judging pushes check for themselves).
        self.saved.reserve(41);
        self.saved.push(Saved::new(s, old));
        self.counts[0][old.tb() as usize] -= 1;
        self.counts[1][old.tw() as usize] -= 1;
        self.sums[0] -= self.ev.cell[0][compact_index(old.pb() as u32)];
        self.sums[1] -= self.ev.cell[1][compact_index(old.pw() as u32)];
        self.slots[s & MASK].cache = CellCache::default();
        if self.renju {
            self.dt[s / 64] &= !((old.flag() as u64) << (s % 64));
        }
        self.cells[s] = c.cell();

        #[cfg(target_arch = "x86_64")]
        if self.v3 {
            // SAFETY: `v3` is set only when `cpu::path` found every feature `update_lines_v3` is compiled for.
            unsafe { self.update_lines_v3(s, c) }
        } else {
            self.update_lines_for(s, c)
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.update_lines_for(s, c);
        if self.renju {
            self.recheck_double_threes();
        }
        // The cached Five class covers every real five (it can only over-report a caro overline whose end
        // lies past the key window), so the exact scan runs only when it may succeed.
        let t = if c == Color::Black {
            old.tb()
        } else {
            old.tw()
        };
        self.winner = if t == Threat::Five as u8 && self.five_made(s, c) {
            Some(c)
        } else {
            None
        };
        self.candidates_add(s);
    }

    /// `update_lines_for` compiled for x86-64-v3 (see `cpu`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,fma")]
    fn update_lines_v3(&mut self, s: usize, c: Color) {
        self.update_lines_for(s, c)
    }

    /// `update_lines` for the rule and the stone's colour.
    #[inline(always)]
    fn update_lines_for(&mut self, s: usize, c: Color) {
        match (self.rule, c) {
            (Rule::Freestyle, Color::Black) => self.update_lines::<true, false, false, 0>(s),
            (Rule::Freestyle, Color::White) => self.update_lines::<true, false, false, 1>(s),
            (Rule::Standard, Color::Black) => self.update_lines::<true, true, false, 0>(s),
            (Rule::Standard, Color::White) => self.update_lines::<true, true, false, 1>(s),
            (Rule::Renju, Color::Black) => self.update_lines::<true, true, true, 0>(s),
            (Rule::Renju, Color::White) => self.update_lines::<true, true, true, 1>(s),
            (Rule::Caro | Rule::CaroExact, Color::Black) => {
                self.update_lines::<false, true, false, 0>(s)
            }
            (Rule::Caro | Rule::CaroExact, Color::White) => {
                self.update_lines::<false, true, false, 1>(s)
            }
        }
    }

    /// Updates the keys of the 40 cells on the four lines through the new stone at `s` and refreshes the
    /// empty ones whose codes changed. `TERNARY`: key format. `RING5`: whether keys cover cells five away
    /// (not in freestyle, where a five through a cell lies within ±4 and overlines count, so the classes do
    /// not depend on them: freestyle keys leave slots ±5 empty).
    /// `RENJU`: maintain the double-three candidate set. `C`: the stone's colour index (the key deltas are
    /// then constants).
    ///
    /// Two passes. The first updates the keys and lists every empty cell on the lines, without a branch per
    /// cell (whether a cell near a stone is empty is close to a coin toss, so a branch there mispredicts
    /// often). The second reads the listed cells' new codes and refreshes them in a small loop whose state
    /// stays in registers; a cell whose codes did not change goes through it too (its deltas are zero), which
    /// is cheaper than a test: about nine in ten listed cells change.
    #[inline(always)]
    fn update_lines<const TERNARY: bool, const RING5: bool, const RENJU: bool, const C: usize>(
        &mut self,
        s: usize,
    ) {
        let delta = DELTAS[TERNARY as usize][C];
        let slots = &mut *self.slots;
        let list = &mut self.changed;
        let cells = &*self.cells;
        let mut n = 0usize;
        let offs = self.offs;
        // The directions are unrolled too (constant key offsets; measured 2.6% fewer instructions).
        macro_rules! direction {
            ($d:literal) => {{
                let d: usize = $d;
                let off = offs[d];
                // One cell `p` on line `d`, whose key changes by `dk`; listed (`n` advances) iff it is empty.
                // An entry is the cell | direction << 16. (A macro, not a closure: eight or ten copies.)
                macro_rules! cell {
                    ($p:expr, $dk:expr) => {{
                        let p: usize = $p & MASK;
                        let slot = &mut slots[p];
                        slot.keys[d] += $dk;
                        list[n] = p as u64 | (d as u64) << 16;
                        n += (cells[p] == EMPTY) as usize;
                        n &= LIST_MASK;
                    }};
                }
                // Unrolled: slot of the stone as seen from the cell is 4 + k (cell before s) or 5 - k (after).
                cell!(s - off, delta[5]);
                cell!(s + off, delta[4]);
                cell!(s - 2 * off, delta[6]);
                cell!(s + 2 * off, delta[3]);
                cell!(s - 3 * off, delta[7]);
                cell!(s + 3 * off, delta[2]);
                cell!(s - 4 * off, delta[8]);
                cell!(s + 4 * off, delta[1]);
                if RING5 {
                    cell!(s - 5 * off, delta[9]);
                    cell!(s + 5 * off, delta[0]);
                }
            }};
        }
        direction!(0);
        direction!(1);
        direction!(2);
        direction!(3);

        let pt = &self.ct.lines;
        let table = self.table;
        let ct = self.ct;
        // `make` reserved room for 41 entries; n <= 40.
        let sp = self.saved.len;
        let saved = &mut self.saved.buf[sp..sp + n];
        let counts = &mut self.counts;
        let dt = &mut self.dt;
        let ev = self.ev;
        let (mut sum_b, mut sum_w) = (0i64, 0i64);
        let mut lanes = [0u8; 32];
        for (&entry, out) in list[..n].iter().zip(saved) {
            let p = entry as usize & MASK;
            let d = (entry >> 16) as usize & 3;
            let sh = 4 * d as u32;
            let slot = &mut slots[p];
            let key = slot.keys[d];
            // The line's new codes as the pair black | white << 4. Times 0x1001 then masked, a pair becomes the
            // cache's layout black | white << 16 (fewer operations than moving each nibble).
            let new = if TERNARY {
                // Both colours share one table half unless the rules differ (renju).
                let wi = if RENJU {
                    (key >> 16) | 0x10000
                } else {
                    key >> 16
                };
                pt[(key & 0xFFFF) as usize] as u32 | (pt[wi as usize] as u32) << 4
            } else {
                table[key as usize & (KEY_COUNT - 1)] as u32
            };
            let e = new.wrapping_mul(0x1001) & 0x000F_000F;
            let cc = slot.cache;
            *out = Saved::new(p, cc);
            let m = 0x000F_000F << sh;
            let pats = (cc.pats() & !m) | e << sh;
            // Renju black reads the full table, whose entries carry the double-three flag; every other view
            // reads the compact one.
            let tbf = if RENJU {
                ct.renju[(pats & 0xFFFF) as usize]
            } else {
                ct.compact[compact_index(pats)]
            };
            let tw = ct.compact[compact_index(pats >> 16)];
            let old_pats = cc.pats();
            sum_b += ev.cell[0][compact_index(pats)] - ev.cell[0][compact_index(old_pats)];
            sum_w +=
                ev.cell[1][compact_index(pats >> 16)] - ev.cell[1][compact_index(old_pats >> 16)];
            let tb = if RENJU { tbf & !NEEDS_CHECK } else { tbf };
            let threats = tb | tw << 4;
            let (lo, ln) = (&ct.lanes[cc.threats()], &ct.lanes[threats as usize]);
            for i in 0..32 {
                lanes[i] = lanes[i].wrapping_add(ln[i]).wrapping_sub(lo[i]);
            }
            let flag = if RENJU {
                let flag = tbf >> 7;
                if (flag | cc.flag()) != 0 {
                    let bit = 1u64 << (p % 64);
                    if flag != 0 {
                        dt[(p / 64) % (CELLS / 64)] |= bit;
                    } else {
                        dt[(p / 64) % (CELLS / 64)] &= !bit;
                    }
                }
                flag
            } else {
                0
            };
            slot.cache = CellCache::new(pats, threats, flag);
        }
        for (i, &l) in lanes.iter().enumerate() {
            let k = &mut counts[i / 16][i % 16];
            *k = k.wrapping_add(l as i8 as u16);
        }
        self.saved.len = sp + n;
        self.sums[0] += sum_b;
        self.sums[1] += sum_w;
    }

    /// Renju: re-judges every black double-three candidate (its status depends on cells off its lines).
    fn recheck_double_threes(&mut self) {
        let start = self.plies.last().map_or(0, |p| p.saved_start as usize);
        for wi in 0..self.dt.len() {
            let mut w = self.dt[wi];
            while w != 0 {
                let p = wi * 64 + w.trailing_zeros() as usize;
                w &= w - 1;
                let base = self.ct.renju[self.slots[p].cache.pb() as usize] & !NEEDS_CHECK;
                let t = if self.forbidden_raw(p) {
                    Threat::Forbidden as u8
                } else {
                    base
                };
                let cc = self.slots[p].cache;
                if cc.tb() != t {
                    if !self.saved.as_slice()[start..].iter().any(|e| e.pos() == p) {
                        self.saved.push(Saved::new(p, cc));
                    }
                    self.slots[p].cache = cc.with_tb(t);
                    self.counts[0][cc.tb() as usize] -= 1;
                    self.counts[0][t as usize] += 1;
                }
            }
        }
    }

    /// How far along each direction the line keys reach (see `update_lines`).
    #[inline]
    fn reach(&self) -> usize {
        if self.rule == Rule::Freestyle {
            4
        } else {
            5
        }
    }

    /// Merged line entry (black code | white code << 4) of a key.
    #[inline]
    fn lookup(&self, key: u32) -> u32 {
        if self.ternary {
            self.ct.lines[(key & 0xFFFF) as usize] as u32
                | (self.ct.lines[((key >> 16) | 0x10000) as usize] as u32) << 4
        } else {
            self.table[key as usize] as u32
        }
    }

    /// Line key of direction `d` at board cell `p`, read from the stones (no caches).
    #[inline]
    fn raw_key(&self, p: usize, d: usize) -> u32 {
        let off = self.offs[d];
        let mut key = 0u32;
        for k in 1..=self.reach() {
            for (q, slot) in [
                (p - k * off, slot_of(-(k as isize))),
                (p + k * off, slot_of(k as isize)),
            ] {
                key += match self.cells[q] {
                    EMPTY => 0,
                    1 => DELTAS[self.ternary as usize][0][slot],
                    2 => DELTAS[self.ternary as usize][1][slot],
                    // A wall: an opponent for both views (ternary), code 3 (2-bit).
                    _ => self.wall[slot],
                };
            }
        }
        key
    }

    /// Exact renju test: is the empty cell `p` forbidden for black? Recurses on hypothetical black stones
    /// (a three is real only if some point that turns it into a straight four is itself not forbidden once
    /// `p` is played). Line keys come from the maintained slot keys plus the hypothetical stones, which
    /// measured much faster than rescanning the cells (`forbidden_scan`, checked equal in the invariants).
    fn forbidden_raw(&mut self, p: usize) -> bool {
        self.forbidden_with::<true>(p)
    }

    /// `forbidden_raw` reading every line key from the cells (the reference for the invariant check).
    fn forbidden_scan(&mut self, p: usize) -> bool {
        self.forbidden_with::<false>(p)
    }

    /// Black's view of the line key of direction `d` at the empty cell `q`: the slot key plus the
    /// hypothetical black stones of the renju recursion that lie on that line within reach.
    fn hyp_key(&self, q: usize, d: usize) -> u32 {
        let off = self.offs[d] as isize;
        let mut key = self.slots[q].keys[d] & 0xFFFF;
        for &h in &self.hyp {
            // Index differences along a line are unique for |k| <= 5: the stride exceeds the board width + 4.
            let diff = h as isize - q as isize;
            if diff % off == 0 {
                let k = diff / off;
                if k != 0 && k.abs() <= 5 {
                    key += self.pow[slot_of(k)];
                }
            }
        }
        key
    }

    /// See `forbidden_raw`; `CACHED`: keys from `hyp_key`, else from the cells.
    fn forbidden_with<const CACHED: bool>(&mut self, p: usize) -> bool {
        self.black_move::<CACHED>(p) == BlackMove::Forbidden
    }

    /// What a black stone on the empty cell `p` makes, as the renju rules judge it. A row is a real three only
    /// if some point turns it into a straight four without being forbidden and without at the same time making
    /// a five (RIF: "without at the same time a five in a row is made"), so the recursion asks for both.
    fn black_move<const CACHED: bool>(&mut self, p: usize) -> BlackMove {
        // Renju keys are ternary: black's view is the low half.
        let keys = [0, 1, 2, 3].map(|d| {
            if CACHED {
                self.hyp_key(p, d)
            } else {
                self.raw_key(p, d) & 0xFFFF
            }
        });
        let codes = keys.map(|k| CODE_OF[self.ct.lines[k as usize] as usize]);
        let (t, check) = combine_threat(codes, true);
        match t {
            Threat::Five => return BlackMove::Five,
            Threat::Forbidden => return BlackMove::Forbidden,
            _ if !check => return BlackMove::Other,
            _ => {}
        }
        self.cells[p] = Color::Black.cell();
        if CACHED {
            self.hyp.push(p);
        }
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
                let nk = keys[d] + self.pow[slot_of(k)];
                if CODE_OF[self.ct.lines[nk as usize] as usize] == code::FLEX4
                    && self.black_move::<CACHED>(q) == BlackMove::Other
                {
                    real += 1;
                    break;
                }
            }
            if real >= 2 {
                break;
            }
        }
        if CACHED {
            self.hyp.pop();
        }
        self.cells[p] = EMPTY;
        if real >= 2 {
            BlackMove::Forbidden
        } else {
            BlackMove::Other
        }
    }

    /// From-scratch cache of the empty cell `p` (threats by `combine_threat`, not the threat tables).
    fn compute_cell(&mut self, p: usize) -> CellCache {
        let mut pb = 0u16;
        let mut pw = 0u16;
        for d in 0..4 {
            let e = self.lookup(self.raw_key(p, d)) as u16;
            pb |= (e & 0xF) << (4 * d);
            pw |= (e >> 4) << (4 * d);
        }
        let pats = pb as u32 | (pw as u32) << 16;
        let codes_b = [0, 1, 2, 3].map(|d| CODE_OF[((pb >> (4 * d)) & 0xF) as usize]);
        let codes_w = [0, 1, 2, 3].map(|d| CODE_OF[((pw >> (4 * d)) & 0xF) as usize]);
        let (tb, check) = combine_threat(codes_b, self.renju);
        let (tw, _) = combine_threat(codes_w, false);
        let tb = if check && self.forbidden_raw(p) {
            Threat::Forbidden
        } else {
            tb
        };
        CellCache::new(pats, tb as u8 | (tw as u8) << 4, check as u8)
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

    /// Bits x - range ..= x + range of a row (clipped to the board).
    #[inline]
    fn span(&self, x: usize) -> u64 {
        let r = self.range;
        let wide = ((1u64 << (2 * r + 1)) - 1) << x >> r;
        wide & ((1u64 << self.width) - 1)
    }

    /// From-scratch candidate rows (guard rows included) and stone rows.
    fn compute_candidates(&self) -> (Vec<u64>, Vec<u64>) {
        let mut cand = vec![0u64; self.height + 2 * CAND_PAD];
        let mut stones = vec![0u64; self.height];
        for (y, stone_row) in stones.iter_mut().enumerate() {
            for x in 0..self.width {
                if self.cells[self.idx(x, y)] == EMPTY {
                    continue;
                }
                *stone_row |= 1 << x;
                let lo = y + CAND_PAD - self.range;
                for row in &mut cand[lo..=lo + 2 * self.range] {
                    *row |= self.span(x);
                }
            }
        }
        (cand, stones)
    }

    /// Adds the stone at `s` to the candidate rows, saving the rows it changes.
    #[inline]
    fn candidates_add(&mut self, s: usize) {
        let c = self.coord[s] as usize;
        let (x, y) = (c & 0xFF, c >> 8);
        let span = self.span(x);
        let lo = y + CAND_PAD - self.range;
        match self.range {
            1 => self.add_rows::<3>(lo, span),
            2 => self.add_rows::<5>(lo, span),
            3 => self.add_rows::<7>(lo, span),
            4 => self.add_rows::<9>(lo, span),
            _ => self.add_rows::<11>(lo, span),
        }
        self.stone_rows[y] |= 1 << x;
    }

    /// Saves the `N` candidate rows from `lo` and ORs `span` into them.
    #[inline(always)]
    fn add_rows<const N: usize>(&mut self, lo: usize, span: u64) {
        self.cand_saved.reserve(N);
        let sp = self.cand_saved.len;
        let saved: &mut [u64; N] = (&mut self.cand_saved.buf[sp..sp + N])
            .try_into()
            .expect("N rows");
        let rows: &mut [u64; N] = (&mut self.cand_rows[lo..lo + N])
            .try_into()
            .expect("N rows");
        for (old, row) in saved.iter_mut().zip(rows.iter_mut()) {
            *old = *row;
            *row |= span;
        }
        self.cand_saved.len = sp + N;
    }

    /// Removes the stone at `s` (the last one added) from the candidate rows.
    #[inline]
    fn candidates_remove(&mut self, s: usize) {
        let c = self.coord[s] as usize;
        let (x, y) = (c & 0xFF, c >> 8);
        let lo = y + CAND_PAD - self.range;
        match self.range {
            1 => self.restore_rows::<3>(lo),
            2 => self.restore_rows::<5>(lo),
            3 => self.restore_rows::<7>(lo),
            4 => self.restore_rows::<9>(lo),
            _ => self.restore_rows::<11>(lo),
        }
        self.stone_rows[y] &= !(1 << x);
    }

    /// Puts back the `N` candidate rows from `lo` that the last `add_rows` saved.
    #[inline(always)]
    fn restore_rows<const N: usize>(&mut self, lo: usize) {
        let sp = self.cand_saved.len - N;
        let saved: &[u64; N] = (&self.cand_saved.buf[sp..sp + N])
            .try_into()
            .expect("N rows");
        let rows: &mut [u64; N] = (&mut self.cand_rows[lo..lo + N])
            .try_into()
            .expect("N rows");
        *rows = *saved;
        self.cand_saved.len = sp;
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
        let mut counts = [[0u16; 16]; 2];
        let mut sums = [0i64; 2];
        let mut dt = [0u64; CELLS / 64];
        for p in self.board_cells() {
            for d in 0..4 {
                assert_eq!(
                    self.slots[p].keys[d],
                    self.raw_key(p, d),
                    "key at {:?} dir {d}",
                    self.xy(p as Pos)
                );
            }
            if self.cells[p] != EMPTY {
                assert_eq!(
                    self.slots[p].cache,
                    CellCache::default(),
                    "occupied cell cache"
                );
                continue;
            }
            let c = b.compute_cell(p);
            if self.renju {
                assert_eq!(
                    b.forbidden_raw(p),
                    b.forbidden_scan(p),
                    "forbidden from slot keys vs from cells at {:?}",
                    self.xy(p as Pos)
                );
            }
            assert_eq!(
                self.slots[p].cache,
                c,
                "cell cache at {:?}\n{:?}",
                self.xy(p as Pos),
                self
            );
            counts[0][c.tb() as usize] += 1;
            counts[1][c.tw() as usize] += 1;
            sums[0] += self.ev.cell[0][compact_index(c.pb() as u32)];
            sums[1] += self.ev.cell[1][compact_index(c.pw() as u32)];
            if c.flag() != 0 {
                dt[p / 64] |= 1 << (p % 64);
            }
        }
        assert_eq!(self.counts, counts, "threat counts");
        assert_eq!(self.sums, sums, "evaluation sums");
        assert_eq!(self.dt, dt, "renju double-three candidates");
        let (cand, stone_rows) = self.compute_candidates();
        assert_eq!(self.cand_rows, cand, "candidate rows");
        assert_eq!(self.stone_rows, stone_rows, "stone rows");
        assert_eq!(
            self.cand_saved.len,
            self.moves.len() * (2 * self.range + 1),
            "saved candidate rows"
        );
        let w = self.last_move().and_then(|m| {
            let c = self.stone(m).expect("last move is a stone");
            self.five_made(m as usize, c).then_some(c)
        });
        assert_eq!(self.winner, w, "winner");
    }
}

/// Iterator over the candidate area (ascending `Pos`).
pub struct Candidates<'a> {
    board: &'a Board,
    y: usize,
    cur: u64,
}

impl Iterator for Candidates<'_> {
    type Item = Pos;

    #[inline]
    fn next(&mut self) -> Option<Pos> {
        while self.cur == 0 {
            self.y += 1;
            if self.y >= self.board.height {
                return None;
            }
            self.cur = self.board.cand_rows[self.y + CAND_PAD] & !self.board.stone_rows[self.y];
        }
        let x = self.cur.trailing_zeros() as usize;
        self.cur &= self.cur - 1;
        Some(self.board.idx(x, self.y) as Pos)
    }
}

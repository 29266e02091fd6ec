//! Pattern lookup tables: one class table per line rule (built once, lazily) and one merged black/white table
//! per game rule, indexed by the raw 20-bit line key.

use super::code;
use super::line::{decode, five_test, is_straight, step_down, FiveTest, LineRule, EMPTY};
use crate::board::Rule;
use std::sync::LazyLock;

/// Number of line keys (10 cells, 2 bits each).
pub const KEY_COUNT: usize = 1 << 20;

/// Key bit index of line index `i` (0..=10, centre 5 excluded).
#[inline]
const fn key_slot(i: usize) -> usize {
    if i < 5 {
        i
    } else {
        i - 1
    }
}

/// Number of ternary line keys (10 cells, 3 states: empty 0, own 1, blocked 2).
pub const KEY3_COUNT: usize = 59049;

/// Powers of three: weight of key slot i in a ternary key.
pub const POW3: [u32; 10] = [1, 3, 9, 27, 81, 243, 729, 2187, 6561, 19683];

/// Decodes a ternary key (own 1, opponent-or-wall 2) into an 11-cell line with the centre set to own.
pub fn decode3(key: u32) -> [u8; 11] {
    let mut cells = [0u8; 11];
    let mut k = key;
    for slot in [0usize, 1, 2, 3, 4, 6, 7, 8, 9, 10] {
        cells[slot] = (k % 3) as u8;
        k /= 3;
    }
    cells[5] = super::line::OWN;
    cells
}

/// Builds the class table of one line rule by dynamic programming: a key's follow-ups (one more own stone)
/// have larger keys, so walking keys downwards finds them already classified. Same result as `brute_class`.
/// `ternary`: keys in base 3 (walls read as opponent stones: exact for every rule but caro), else 2-bit cells.
fn build_class_table(rule: LineRule, ternary: bool) -> Box<[u8]> {
    let count = if ternary { KEY3_COUNT } else { KEY_COUNT };
    let own_delta = |i: usize| -> u32 {
        if ternary {
            POW3[key_slot(i)]
        } else {
            1 << (2 * key_slot(i))
        }
    };
    // Ternary tables are padded to 2^16 entries so that any 16-bit index is in bounds (no checks on lookup).
    let mut t = vec![0u8; if ternary { 1 << 16 } else { count }].into_boxed_slice();
    for key in (0..count as u32).rev() {
        let cells = if ternary { decode3(key) } else { decode(key) };
        match five_test(&cells, rule) {
            FiveTest::Five => {
                t[key as usize] = code::FIVE;
                continue;
            }
            FiveTest::Overline => {
                t[key as usize] = code::OVERLINE;
                continue;
            }
            FiveTest::None => {}
        }
        let mut w: u16 = 0;
        let mut best = 0u8;
        for i in 1..10 {
            if i != 5 && cells[i] == EMPTY {
                let sub = t[(key + own_delta(i)) as usize];
                if sub == code::FIVE {
                    w |= 1 << i;
                } else {
                    best = best.max(step_down(sub, rule));
                }
            }
        }
        t[key as usize] = if w.count_ones() >= 2 {
            if is_straight(w, &cells) {
                code::FLEX4
            } else {
                code::MULTI4
            }
        } else if w != 0 {
            code::BLOCK4
        } else {
            best
        };
    }
    t
}

static CLASS_TABLES: [LazyLock<Box<[u8]>>; 5] = [
    LazyLock::new(|| build_class_table(LineRule::Freestyle, false)),
    LazyLock::new(|| build_class_table(LineRule::Exact, false)),
    LazyLock::new(|| build_class_table(LineRule::RenjuBlack, false)),
    LazyLock::new(|| build_class_table(LineRule::Caro, false)),
    LazyLock::new(|| build_class_table(LineRule::CaroExact, false)),
];

static CLASS_TABLES3: [LazyLock<Box<[u8; 1 << 16]>>; 5] = [
    LazyLock::new(|| fixed(build_class_table(LineRule::Freestyle, true))),
    LazyLock::new(|| fixed(build_class_table(LineRule::Exact, true))),
    LazyLock::new(|| fixed(build_class_table(LineRule::RenjuBlack, true))),
    LazyLock::new(|| fixed(build_class_table(LineRule::Caro, true))),
    LazyLock::new(|| fixed(build_class_table(LineRule::CaroExact, true))),
];

/// Converts a boxed slice of the right length into a boxed array.
fn fixed<const N: usize>(b: Box<[u8]>) -> Box<[u8; N]> {
    b.try_into().expect("table length")
}

/// The ternary class table of a line rule (59049 entries used, padded to 2^16 so that a 16-bit index needs no
/// bounds check; fits in L2), indexed by a base-3 key with own stones 1 and opponent stones or walls 2.
/// Not valid for caro, where a wall is no block.
pub fn class_table3(rule: LineRule) -> &'static [u8; 1 << 16] {
    &CLASS_TABLES3[rule.index()]
}

/// The 2-bit class table of a line rule (2^20 entries), indexed by a key in which own stones are code 1.
pub fn class_table(rule: LineRule) -> &'static [u8] {
    &CLASS_TABLES[rule.index()]
}

/// Swaps black and white in a raw key (walls and empties stay), giving white's own-perspective key.
#[inline]
pub fn swap_colors(key: u32) -> u32 {
    ((key & 0x55555) << 1) | ((key >> 1) & 0x55555)
}

/// Merged per-rule table: entry = black code | white code << 4, indexed by the raw key.
pub struct RuleTable {
    /// Entries for all keys.
    pub entries: Box<[u8; KEY_COUNT]>,
}

/// The merged black/white table of a game rule, built anew on each call (its one user, the board, keeps a
/// converted copy per rule, so caching this one too would hold the megabyte twice).
pub fn rule_table(rule: Rule) -> RuleTable {
    let (b, w) = rule.line_rules();
    let tb = class_table(b);
    let tw = class_table(w);
    let entries: Box<[u8]> = (0..KEY_COUNT as u32)
        .map(|k| tb[k as usize] | (tw[swap_colors(k) as usize] << 4))
        .collect();
    RuleTable {
        entries: fixed(entries),
    }
}

/// Black's ternary table in the low half, white's in the high half, so that one base address serves both:
/// black's entry at `key & 0xFFFF`, white's at `(key >> 16) | 0x10000` (no bounds checks either way).
pub type PairTable = [u8; 1 << 17];

fn build_pair_table(rule: Rule) -> Box<PairTable> {
    let (b, w) = rule.line_rules();
    let mut t: Box<PairTable> = vec![0u8; 1 << 17]
        .into_boxed_slice()
        .try_into()
        .expect("2^17 entries");
    t[..1 << 16].copy_from_slice(&class_table3(b)[..]);
    t[1 << 16..].copy_from_slice(&class_table3(w)[..]);
    t
}

static PAIR_TABLES: [LazyLock<Box<PairTable>>; 5] = [
    LazyLock::new(|| build_pair_table(Rule::Freestyle)),
    LazyLock::new(|| build_pair_table(Rule::Standard)),
    LazyLock::new(|| build_pair_table(Rule::Renju)),
    LazyLock::new(|| build_pair_table(Rule::Caro)),
    LazyLock::new(|| build_pair_table(Rule::CaroExact)),
];

/// The black/white ternary pair table of a game rule (built on first use; not valid for caro).
pub fn pair_table3(rule: Rule) -> &'static PairTable {
    &PAIR_TABLES[rule as usize]
}

/// Key weight of each slot in a compact key (one colour's view). The eight inner slots (offsets ±1..=±4) are
/// ternary with weights 3^0..3^7. The two outer slots (±5) hold one bit each, set only by an own stone: every
/// rule but caro reads a cell five away only to see whether an own stone there makes an overline, so an
/// opponent stone or a wall there is the same as an empty cell (checked exhaustively by the board tests).
/// Freestyle never sets the outer bits (its classes do not depend on cells five away).
pub const POW3_COMPACT: [u32; 10] = [6561, 1, 3, 9, 27, 81, 243, 729, 2187, 13122];

/// Number of compact keys of one view (3^8 inner values times the two outer bits).
pub const COMPACT_COUNT: usize = 4 * 6561;

/// Number of compact keys without outer bits (all that freestyle uses).
pub const COMPACT_INNER: usize = 6561;

/// The full ternary key (`POW3` weights) of a compact key, with not-own outer cells read as empty.
pub fn compact_to_full(key: u32) -> u32 {
    let inner = key % 6561;
    let outer = key / 6561;
    // Inner slot i weighs 3^i in a full key and 3^(i-1) in a compact one; an own stone is digit 1.
    3 * inner + (outer & 1) + 19683 * (outer >> 1)
}

fn build_compact(rule: Rule) -> Box<PairTable> {
    let (b, w) = rule.line_rules();
    let (tb, tw) = (class_table3(b), class_table3(w));
    let mut t: Box<PairTable> = vec![0u8; 1 << 17]
        .into_boxed_slice()
        .try_into()
        .expect("2^17 entries");
    for k in 0..COMPACT_COUNT as u32 {
        let full = compact_to_full(k) as usize;
        t[k as usize] = tb[full];
        t[k as usize | 1 << 16] = tw[full];
    }
    t
}

static COMPACT_TABLES: [LazyLock<Box<PairTable>>; 3] = [
    LazyLock::new(|| build_compact(Rule::Freestyle)),
    LazyLock::new(|| build_compact(Rule::Standard)),
    LazyLock::new(|| build_compact(Rule::Renju)),
];

/// Pair table of a ternary game rule (freestyle, standard, renju) indexed by compact keys (`POW3_COMPACT`
/// weights), same layout as `pair_table3`: black's class at `key`, white's at `key | 1 << 16`. Its used part
/// is 26 KB per view (6.5 KB in freestyle) instead of 59 KB, so it stays in L1 during search.
pub fn compact_pair_table(rule: Rule) -> &'static PairTable {
    match rule {
        Rule::Freestyle => &COMPACT_TABLES[0],
        Rule::Standard => &COMPACT_TABLES[1],
        Rule::Renju => &COMPACT_TABLES[2],
        Rule::Caro | Rule::CaroExact => panic!("caro uses 2-bit keys"),
    }
}

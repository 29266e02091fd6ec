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

/// Builds the class table of one line rule by dynamic programming: a key's follow-ups (one more own stone)
/// have larger keys, so walking keys downwards finds them already classified. Same result as `brute_class`.
fn build_class_table(rule: LineRule) -> Box<[u8]> {
    let mut t = vec![0u8; KEY_COUNT].into_boxed_slice();
    for key in (0..KEY_COUNT as u32).rev() {
        let cells = decode(key);
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
                let sub = t[(key | (1 << (2 * key_slot(i)))) as usize];
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
    LazyLock::new(|| build_class_table(LineRule::Freestyle)),
    LazyLock::new(|| build_class_table(LineRule::Exact)),
    LazyLock::new(|| build_class_table(LineRule::RenjuBlack)),
    LazyLock::new(|| build_class_table(LineRule::Caro)),
    LazyLock::new(|| build_class_table(LineRule::CaroExact)),
];

/// The class table of a line rule, indexed by a key in which own stones are code 1.
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
    pub entries: Box<[u8]>,
}

fn build_rule_table(rule: Rule) -> RuleTable {
    let (b, w) = rule.line_rules();
    let tb = class_table(b);
    let tw = class_table(w);
    let entries = (0..KEY_COUNT as u32)
        .map(|k| tb[k as usize] | (tw[swap_colors(k) as usize] << 4))
        .collect();
    RuleTable { entries }
}

static RULE_TABLES: [LazyLock<RuleTable>; 5] = [
    LazyLock::new(|| build_rule_table(Rule::Freestyle)),
    LazyLock::new(|| build_rule_table(Rule::Standard)),
    LazyLock::new(|| build_rule_table(Rule::Renju)),
    LazyLock::new(|| build_rule_table(Rule::Caro)),
    LazyLock::new(|| build_rule_table(Rule::CaroExact)),
];

/// The merged black/white table of a game rule (built on first use).
pub fn rule_table(rule: Rule) -> &'static RuleTable {
    &RULE_TABLES[rule as usize]
}

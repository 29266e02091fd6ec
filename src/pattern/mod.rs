//! Line encoding, pattern classes and their lookup tables (built once, read-only).
//!
//! # Line keys
//! For an empty cell `p` and a direction, the ten cells at offsets -5..=-1 and +1..=+5 along the line are packed
//! two bits each into a 20-bit key (offset -5 in bits 0..2, …, offset -1 in bits 8..10, +1 in bits 10..12, …,
//! +5 in bits 18..20). Cell codes: 0 empty, 1 black, 2 white, 3 wall (off the board). Radius 5 is exact for every
//! rule: a five through `p` lies within ±4, and the exact-five and caro checks look one cell past its ends.
//! Every rule but caro reads a wall like an opponent stone, so those rules use ternary keys instead (per colour:
//! 0 empty, 1 own, 2 opponent or wall; slot i weighs 3^i): 59049-entry tables that stay in cache.
//!
//! # Pattern classes (one direction, colour `c` to play at `p`, `X` = c, `O` = opponent or wall, `.` = empty)
//! Only fives that contain `p` count, so a class says what playing `p` achieves on that line.
//! ```text
//! Five    X X X X [p]          p completes a winning five (rule-aware: exact five, caro blocking)
//! Flex4   . X X X [p] .        two ways to make five (an open four, or two fours on one line)
//! Block4  O X X X [p] .        exactly one way to make five
//! Flex3   . . X X [p] .        one more stone makes a Flex4 (renju black: a straight four)
//! Block3  O X X [p] . .        one more stone makes a Block4
//! Flex2   . . X [p] . .        one more stone makes a Flex3
//! Block2  O X [p] . . .        one more stone makes a Block3
//! Flex1   . . [p] . . .        one more stone makes a Flex2
//! Block1  O [p] . . . .        one more stone makes a Block2
//! Dead                         nothing (also: p makes an overline where overlines do not win)
//! ```

mod line;
mod table;
mod threat;

pub use line::{brute_class, decode as decode_key, LineRule};
pub use table::{
    class_table, class_table3, compact_pair_table, compact_to_full, decode3, pair_table3,
    rule_table, swap_colors, PairTable, RuleTable, COMPACT_COUNT, COMPACT_INNER, KEY3_COUNT,
    KEY_COUNT, POW3, POW3_COMPACT,
};
pub use threat::{combine_threat, threat_table, Threat, NEEDS_CHECK};

/// Line class of one direction through an empty cell for one colour (ascending strength).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Pattern {
    /// No way to a five on this line.
    Dead = 0,
    /// One more stone makes a Block2.
    Block1,
    /// One more stone makes a Flex2.
    Flex1,
    /// One more stone makes a Block3.
    Block2,
    /// One more stone makes a Flex3.
    Flex2,
    /// One more stone makes a Block4.
    Block3,
    /// One more stone makes a Flex4 (a straight four for renju black).
    Flex3,
    /// Exactly one way to a five.
    Block4,
    /// Two or more ways to a five (open four, or two fours on one line).
    Flex4,
    /// Playing here makes a winning five on this line.
    Five,
}

impl Pattern {
    /// All classes in ascending order (index = `as usize`).
    pub const ALL: [Pattern; 10] = [
        Pattern::Dead,
        Pattern::Block1,
        Pattern::Flex1,
        Pattern::Block2,
        Pattern::Flex2,
        Pattern::Block3,
        Pattern::Flex3,
        Pattern::Block4,
        Pattern::Flex4,
        Pattern::Five,
    ];

    /// Public class of an internal line code (see [`code`]).
    #[inline]
    pub const fn from_code(c: u8) -> Pattern {
        match c {
            code::OVERLINE => Pattern::Dead,
            code::MULTI4 => Pattern::Flex4,
            c if c > 9 => Pattern::Five,
            c => Pattern::ALL[c as usize],
        }
    }
}

/// Internal line codes stored in the tables: 0..=9 are `Pattern as u8`, plus two refinements the renju
/// forbidden-point logic needs.
pub mod code {
    /// Playing here makes an overline on this line, under a rule where that is no five (exact five).
    pub const OVERLINE: u8 = 10;
    /// Two or more ways to five that are not one straight four (e.g. `X.XXX.X` with the middle played):
    /// two fours on one line.
    pub const MULTI4: u8 = 11;
    /// Straight four or any other Flex4 that is not MULTI4.
    pub const FLEX4: u8 = 8;
    /// Block4 code.
    pub const BLOCK4: u8 = 7;
    /// Flex3 code.
    pub const FLEX3: u8 = 6;
    /// Five code.
    pub const FIVE: u8 = 9;
}

//! Per-cell threat classes: the four directions' line classes combined.

use super::code;
use std::sync::LazyLock;

/// Combined four-direction class of an empty cell for one colour (ascending strength).
///
/// `B4` = Block4, `F3` = Flex3 and so on, counted over the four directions:
/// ```text
/// Five        some direction is Five
/// Flex4       a Flex4 (open four, or two fours on one line), or Block4 in two directions (double four)
/// Block4Flex3 one Block4 and at least one Flex3 (four-three)
/// Block4Plus  one Block4 and a Block3 or Flex2 elsewhere
/// Block4      one Block4
/// DoubleFlex3 two or more Flex3 (double three)
/// Flex3Plus   one Flex3 and a Block3 or Flex2 elsewhere
/// Flex3       one Flex3
/// Block3Plus  two Block3, or a Block3 and a Flex2
/// DoubleFlex2 two or more Flex2
/// Block3      one Block3
/// Flex2       one Flex2
/// Forbidden   renju, black only: double-three (real threes, recursively), double-four, or overline
/// None        nothing above
/// ```
/// A renju five beats a simultaneous forbidden shape (the five wins), so such a cell is Five.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Threat {
    /// Nothing notable.
    None = 0,
    /// Renju: black may not play here.
    Forbidden,
    /// One Flex2.
    Flex2,
    /// One Block3.
    Block3,
    /// Two or more Flex2.
    DoubleFlex2,
    /// Two Block3, or Block3 + Flex2.
    Block3Plus,
    /// One Flex3.
    Flex3,
    /// Flex3 + (Block3 or Flex2).
    Flex3Plus,
    /// Two or more Flex3.
    DoubleFlex3,
    /// One Block4.
    Block4,
    /// Block4 + (Block3 or Flex2).
    Block4Plus,
    /// Block4 + Flex3.
    Block4Flex3,
    /// Open four or double four.
    Flex4,
    /// Makes a five.
    Five,
}

impl Threat {
    /// Number of classes.
    pub const COUNT: usize = 14;

    /// All classes in ascending order (index = `as usize`).
    pub const ALL: [Threat; 14] = [
        Threat::None,
        Threat::Forbidden,
        Threat::Flex2,
        Threat::Block3,
        Threat::DoubleFlex2,
        Threat::Block3Plus,
        Threat::Flex3,
        Threat::Flex3Plus,
        Threat::DoubleFlex3,
        Threat::Block4,
        Threat::Block4Plus,
        Threat::Block4Flex3,
        Threat::Flex4,
        Threat::Five,
    ];

    /// The class with index `i` (must be < COUNT).
    #[inline]
    pub fn from_index(i: u8) -> Threat {
        Threat::ALL[i as usize]
    }
}

/// Combines four internal line codes into a threat class. With `renju_black`, the second value says the cell
/// has two or more Flex3 lines and no other forbidden shape: it is Forbidden iff at least two of those threes
/// are real (checked by the board, recursively); the class returned is the one to use if it is not.
pub fn combine_threat(codes: [u8; 4], renju_black: bool) -> (Threat, bool) {
    let mut n = [0u8; 12];
    for c in codes {
        n[c as usize] += 1;
    }
    if n[code::FIVE as usize] > 0 {
        return (Threat::Five, false);
    }
    let f4 = n[code::FLEX4 as usize] + n[code::MULTI4 as usize];
    let b4 = n[code::BLOCK4 as usize];
    let f3 = n[code::FLEX3 as usize];
    let b3 = n[5];
    let f2 = n[4];
    let mut check = false;
    if renju_black {
        let fours = b4 + n[code::FLEX4 as usize] + 2 * n[code::MULTI4 as usize];
        if n[code::OVERLINE as usize] > 0 || fours >= 2 {
            return (Threat::Forbidden, false);
        }
        check = f3 >= 2;
    }
    let t = if f4 > 0 || b4 >= 2 {
        Threat::Flex4
    } else if b4 == 1 {
        if f3 > 0 {
            Threat::Block4Flex3
        } else if b3 + f2 > 0 {
            Threat::Block4Plus
        } else {
            Threat::Block4
        }
    } else if f3 >= 2 {
        Threat::DoubleFlex3
    } else if f3 == 1 {
        if b3 + f2 > 0 {
            Threat::Flex3Plus
        } else {
            Threat::Flex3
        }
    } else if b3 >= 2 || (b3 >= 1 && f2 >= 1) {
        Threat::Block3Plus
    } else if f2 >= 2 {
        Threat::DoubleFlex2
    } else if b3 == 1 {
        Threat::Block3
    } else if f2 == 1 {
        Threat::Flex2
    } else {
        Threat::None
    };
    (t, check)
}

/// Bit set in a threat-table entry when the renju double-three check is needed.
pub const NEEDS_CHECK: u8 = 0x80;

fn build_threat_table(renju_black: bool) -> Box<[u8; 1 << 16]> {
    let t: Box<[u8]> = (0..1u32 << 16)
        .map(|i| {
            let codes = [0, 1, 2, 3].map(|d| ((i >> (4 * d)) & 0xF) as u8);
            if codes.iter().any(|&c| c > code::MULTI4) {
                return 0;
            }
            let (t, check) = combine_threat(codes, renju_black);
            t as u8 | if check { NEEDS_CHECK } else { 0 }
        })
        .collect();
    t.try_into().expect("2^16 entries")
}

static THREAT_TABLES: [LazyLock<Box<[u8; 1 << 16]>>; 2] = [
    LazyLock::new(|| build_threat_table(false)),
    LazyLock::new(|| build_threat_table(true)),
];

/// Threat table indexed by four 4-bit line codes (direction d in bits 4d..4d+4); entry = `Threat as u8`,
/// plus `NEEDS_CHECK` in the renju-black table.
pub fn threat_table(renju_black: bool) -> &'static [u8; 1 << 16] {
    &THREAT_TABLES[renju_black as usize]
}

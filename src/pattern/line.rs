//! Line semantics per rule and colour, and the straightforward (slow) reference classifier.

use super::code;

/// Cell code: empty.
pub(crate) const EMPTY: u8 = 0;
/// Cell code: a stone of the colour being classified (black in raw keys).
pub(crate) const OWN: u8 = 1;
/// Cell code: an opponent stone.
pub(crate) const OPP: u8 = 2;

/// How one colour's fives are judged on a line (a rule gives one of these to each colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LineRule {
    /// Five or more wins (freestyle; renju white).
    Freestyle,
    /// Exactly five wins (standard).
    Exact,
    /// Exactly five wins; a three counts only if it can become a straight four (renju black).
    RenjuBlack,
    /// Five or more wins unless both ends are opponent stones (caro, rule 8); the edge is not a block.
    Caro,
    /// Exactly five, not blocked by opponent stones at both ends (caro, rule 9).
    CaroExact,
}

impl LineRule {
    /// All line rules.
    pub const ALL: [LineRule; 5] = [
        LineRule::Freestyle,
        LineRule::Exact,
        LineRule::RenjuBlack,
        LineRule::Caro,
        LineRule::CaroExact,
    ];

    /// Overline is not a five.
    #[inline]
    pub fn exact(self) -> bool {
        matches!(
            self,
            LineRule::Exact | LineRule::RenjuBlack | LineRule::CaroExact
        )
    }

    /// A five with opponent stones at both ends does not count.
    #[inline]
    pub fn caro(self) -> bool {
        matches!(self, LineRule::Caro | LineRule::CaroExact)
    }

    /// Index 0..5.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Outcome of the five test at the centre of an 11-cell line.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum FiveTest {
    None,
    Five,
    Overline,
}

/// Five test for the run of own stones through the centre (index 5, assumed own) of an 11-cell line.
/// Cells past the window are unknown; they are treated as "not an opponent stone" (matters only for caro when
/// a run already reaches the window edge, which needs an existing unblocked five, i.e. a finished game).
#[inline]
pub(crate) fn five_test(cells: &[u8; 11], rule: LineRule) -> FiveTest {
    let mut l = 0;
    while l < 5 && cells[4 - l] == OWN {
        l += 1;
    }
    let mut r = 0;
    while r < 5 && cells[6 + r] == OWN {
        r += 1;
    }
    let run = l + r + 1;
    if run < 5 {
        return FiveTest::None;
    }
    if run > 5 && rule.exact() {
        return FiveTest::Overline;
    }
    if rule.caro() {
        let left = if l < 5 { cells[4 - l] } else { EMPTY };
        let right = if r < 5 { cells[6 + r] } else { EMPTY };
        if left == OPP && right == OPP {
            return FiveTest::None;
        }
    }
    FiveTest::Five
}

/// Decodes a 20-bit key (own = 1) into an 11-cell line with the centre (index 5) set to own.
#[inline]
pub fn decode(key: u32) -> [u8; 11] {
    let mut cells = [0u8; 11];
    for (i, slot) in [0usize, 1, 2, 3, 4, 6, 7, 8, 9, 10].iter().enumerate() {
        cells[*slot] = ((key >> (2 * i)) & 3) as u8;
    }
    cells[5] = OWN;
    cells
}

/// Class one level down: what a line whose best follow-up has class `sub` is worth now.
#[inline]
pub(crate) fn step_down(sub: u8, rule: LineRule) -> u8 {
    match sub {
        code::FLEX4 => 6,
        // Two fours on one line: for renju black that follow-up is forbidden, so it is only a four-maker.
        code::MULTI4 => {
            if rule == LineRule::RenjuBlack {
                5
            } else {
                6
            }
        }
        7 => 5,
        6 => 4,
        5 => 3,
        4 => 2,
        3 => 1,
        _ => 0,
    }
}

/// Whether the winning-spot mask `w` (bits = line indices) is one straight four: exactly two spots, five apart,
/// with four own stones between them.
#[inline]
pub(crate) fn is_straight(w: u16, cells: &[u8; 11]) -> bool {
    if w.count_ones() != 2 {
        return false;
    }
    let a = w.trailing_zeros() as usize;
    let b = 15 - w.leading_zeros() as usize;
    b == a + 5 && (a + 1..b).all(|i| cells[i] == OWN)
}

/// Reference classifier: straightforward recursive scan of an 11-cell line whose centre (index 5) is own.
/// Returns an internal line code (0..=9 = `Pattern`, or `code::OVERLINE` / `code::MULTI4`).
/// Slow (exponential in the number of empty cells); used to check the tables.
pub fn brute_class(cells: &mut [u8; 11], rule: LineRule) -> u8 {
    match five_test(cells, rule) {
        FiveTest::Five => return code::FIVE,
        FiveTest::Overline => return code::OVERLINE,
        FiveTest::None => {}
    }
    let mut w: u16 = 0;
    for i in 1..10 {
        if i != 5 && cells[i] == EMPTY {
            cells[i] = OWN;
            if five_test(cells, rule) == FiveTest::Five {
                w |= 1 << i;
            }
            cells[i] = EMPTY;
        }
    }
    if w.count_ones() >= 2 {
        return if is_straight(w, cells) {
            code::FLEX4
        } else {
            code::MULTI4
        };
    }
    if w != 0 {
        return code::BLOCK4;
    }
    let mut best = 0;
    for i in 1..10 {
        if i != 5 && cells[i] == EMPTY {
            cells[i] = OWN;
            let sub = brute_class(cells, rule);
            cells[i] = EMPTY;
            best = best.max(step_down(sub, rule));
        }
    }
    best
}

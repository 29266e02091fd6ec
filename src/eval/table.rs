//! The evaluation's features and tables.
//!
//! # Features
//! - **Cell combination.** For every empty cell and each colour, the four directions' line codes, each cut to
//!   one of [`LEVELS`] levels (the board's stored code without its lowest bit: Dead/Block1, Flex1/Block2, Flex2,
//!   Block3, Flex3, Block4, Flex4, Five), taken as an unordered multiset: one of [`COMBO_COUNT`] combinations.
//!   A cell is worth `own[view][combo]` to the side to move when the cell's colour is the side to move, and
//!   `opp[view][combo]` (subtracted) when it is the opponent's: potential the side to move uses first is worth
//!   more. `view` is the colour whose lines are read (the same table for both colours but in renju).
//! - **Threat mask.** Presence bits of the strongest threat classes for the side to move and the opponent
//!   ([`threat_mask`]): "I have a four-three point and the opponent has no four" is worth more than the sum of
//!   its cells. Indexed by the side to move's colour.
//!
//! The board keeps, per colour, the sum over empty cells of both lanes (own and opp) incrementally; the mask is
//! read from its threat counts. So an evaluation is a handful of loads.
//!
//! # Text format (written by `pbrain-pentad tune`, embedded with `include_str!`)
//! ```text
//! pentad-eval 1
//! rule freestyle
//! own black <330 integers>      own white <330 integers>
//! opp black <330 integers>      opp white <330 integers>
//! mask black <2048 integers>    mask white <2048 integers>
//! ```
//! one keyword line each (six lines after the header), `#` comments and blank lines ignored. Values are in
//! evaluation units (see `weights::EVAL_UNITS_PER_LOGIT`).

use std::sync::LazyLock;

use anyhow::{bail, Context};

use crate::board::{Board, Color, Rule};
use crate::pattern::{combine_threat, Threat};

/// Levels of one direction's line code (the stored code's top three bits).
pub const LEVELS: usize = 8;
/// Unordered combinations of four levels: C(8 + 3, 4).
pub const COMBO_COUNT: usize = 330;
/// Range of the board's compact index of four stored codes (`(codes >> 1) & 0x7777`).
pub const CELL_INDEX: usize = 0x7778;
/// Bits of the threat mask.
pub const MASK_BITS: usize = 11;
/// Entries of a threat-mask table.
pub const MASK_COUNT: usize = 1 << MASK_BITS;

/// Threat classes behind the side to move's mask bits 0..5, each a set of classes.
const OWN_MASK: [&[Threat]; 5] = [
    &[Threat::Flex4],
    &[Threat::Block4Flex3],
    &[Threat::Block4, Threat::Block4Plus],
    &[Threat::DoubleFlex3],
    &[Threat::Flex3, Threat::Flex3Plus],
];
/// Threat classes behind the opponent's mask bits 5..11.
const OPP_MASK: [&[Threat]; 6] = [
    &[Threat::Five],
    &[Threat::Flex4],
    &[Threat::Block4Flex3],
    &[Threat::Block4, Threat::Block4Plus],
    &[Threat::DoubleFlex3],
    &[Threat::Flex3, Threat::Flex3Plus],
];

/// The threat mask of `board` for the side to move `me` (see the module docs).
#[inline]
pub fn threat_mask(board: &Board, me: Color) -> usize {
    let op = me.opp();
    let has = |c: Color, set: &[Threat]| set.iter().any(|&t| board.threat_count(c, t) > 0);
    let mut m = 0;
    for (i, set) in OWN_MASK.iter().enumerate() {
        m |= (has(me, set) as usize) << i;
    }
    for (i, set) in OPP_MASK.iter().enumerate() {
        m |= (has(op, set) as usize) << (OWN_MASK.len() + i);
    }
    m
}

/// Combination id of every sorted level tuple, indexed by `a + 8b + 64c + 512d` of the levels in any order.
static COMBO_BY_LEVELS: LazyLock<Box<[u16; 4096]>> = LazyLock::new(|| {
    let mut ids = Box::new([0u16; 4096]);
    let mut sorted = Vec::with_capacity(COMBO_COUNT);
    for a in 0..LEVELS {
        for b in a..LEVELS {
            for c in b..LEVELS {
                for d in c..LEVELS {
                    sorted.push([a, b, c, d]);
                }
            }
        }
    }
    debug_assert_eq!(sorted.len(), COMBO_COUNT);
    for (i, slot) in ids.iter_mut().enumerate() {
        let mut l = [i & 7, (i >> 3) & 7, (i >> 6) & 7, (i >> 9) & 7];
        l.sort_unstable();
        *slot = sorted.iter().position(|s| *s == l).unwrap_or(0) as u16;
    }
    ids
});

/// The four levels of a combination id (ascending).
pub fn combo_levels(combo: usize) -> [u8; 4] {
    let i = COMBO_BY_LEVELS
        .iter()
        .position(|&c| c as usize == combo)
        .unwrap_or(0);
    let mut l = [i & 7, (i >> 3) & 7, (i >> 6) & 7, (i >> 9) & 7].map(|v| v as u8);
    l.sort_unstable();
    l
}

/// Combination id of a compact index (`(stored codes >> 1) & 0x7777`, a direction per nibble).
#[inline]
pub fn combo_of_compact(ci: usize) -> usize {
    let dense = (ci & 7) | ((ci >> 1) & 0x38) | ((ci >> 2) & 0x1C0) | ((ci >> 3) & 0xE00);
    COMBO_BY_LEVELS[dense] as usize
}

/// Threat class of a combination (renju black's forbidden shapes aside), from a representative code per level.
pub fn combo_threat(combo: usize) -> Threat {
    // Stored codes 2L are Dead, Flex1, Flex2, Block3, Flex3, Block4, Flex4, Five in the pattern numbering.
    const CODE_OF_LEVEL: [u8; LEVELS] = [0, 2, 4, 5, 6, 7, 8, 9];
    combine_threat(
        combo_levels(combo).map(|l| CODE_OF_LEVEL[l as usize]),
        false,
    )
    .0
}

/// An evaluation's numbers as the tuner writes them (see the module docs), per view or side-to-move colour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Value of a cell of the side to move, by view colour and combination.
    pub own: [Vec<i32>; 2],
    /// Value (subtracted) of a cell of the opponent, by view colour and combination.
    pub opp: [Vec<i32>; 2],
    /// Value of the threat mask, by the side to move's colour.
    pub mask: [Vec<i32>; 2],
}

impl Weights {
    /// All zero.
    pub fn zero() -> Weights {
        Weights {
            own: [vec![0; COMBO_COUNT], vec![0; COMBO_COUNT]],
            opp: [vec![0; COMBO_COUNT], vec![0; COMBO_COUNT]],
            mask: [vec![0; MASK_COUNT], vec![0; MASK_COUNT]],
        }
    }

    /// The weights in the text format, for `rule_name`.
    pub fn to_text(&self, rule_name: &str, comment: &str) -> String {
        let mut s = String::from("pentad-eval 1\n");
        for line in comment.lines() {
            s.push_str(&format!("# {line}\n"));
        }
        s.push_str(&format!("rule {rule_name}\n"));
        let mut row = |key: &str, colour: &str, v: &[i32]| {
            s.push_str(key);
            s.push(' ');
            s.push_str(colour);
            for x in v {
                s.push_str(&format!(" {x}"));
            }
            s.push('\n');
        };
        for (key, vals) in [("own", &self.own), ("opp", &self.opp), ("mask", &self.mask)] {
            row(key, "black", &vals[0]);
            row(key, "white", &vals[1]);
        }
        s
    }

    /// Parses the text format; every row must be present once with the right number of values.
    pub fn parse(text: &str) -> anyhow::Result<(String, Weights)> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        match lines.next() {
            Some((_, "pentad-eval 1")) => {}
            Some((n, l)) => bail!("line {n}: expected `pentad-eval 1`, found `{l:.40}`"),
            None => bail!("empty table"),
        }
        let mut rule = None;
        let mut rows: [[Option<Vec<i32>>; 2]; 3] = Default::default();
        for (n, line) in lines {
            let mut words = line.split_ascii_whitespace();
            let key = words.next().unwrap_or("");
            if key == "rule" {
                rule = Some(words.next().context("rule without a name")?.to_string());
                continue;
            }
            let (k, len) = match key {
                "own" => (0, COMBO_COUNT),
                "opp" => (1, COMBO_COUNT),
                "mask" => (2, MASK_COUNT),
                _ => bail!("line {n}: unknown row `{key:.20}`"),
            };
            let c = match words.next() {
                Some("black") => 0,
                Some("white") => 1,
                _ => bail!("line {n}: `{key}` needs `black` or `white`"),
            };
            let v = words
                .map(|w| w.parse::<i32>())
                .collect::<Result<Vec<i32>, _>>()
                .with_context(|| format!("line {n}: a value is not an integer"))?;
            if v.len() != len {
                bail!("line {n}: `{key}` has {} values, expected {len}", v.len());
            }
            if rows[k][c].replace(v).is_some() {
                bail!("line {n}: `{key}` given twice");
            }
        }
        let rule = rule.context("no `rule` line")?;
        let mut take = |k: usize, name: &str| -> anyhow::Result<[Vec<i32>; 2]> {
            let [b, w] = std::mem::take(&mut rows[k]);
            Ok([
                b.with_context(|| format!("no `{name} black` row"))?,
                w.with_context(|| format!("no `{name} white` row"))?,
            ])
        };
        let own = take(0, "own")?;
        let opp = take(1, "opp")?;
        let mask = take(2, "mask")?;
        Ok((rule, Weights { own, opp, mask }))
    }
}

/// The tables the board and `evaluate` read, expanded from `Weights`.
pub struct EvalTable {
    /// Per view colour: `own | opp << 32` by the cell's compact index (see `Board`'s incremental sums). Both
    /// colours share one table when their weights are equal (every rule but renju), so the move update touches
    /// half the memory.
    pub cell: [&'static [i64; CELL_INDEX]; 2],
    /// Per side to move's colour: the threat-mask value.
    pub mask: [Box<[i32; MASK_COUNT]>; 2],
}

impl EvalTable {
    /// Expands `w`. The cell tables are leaked: an `EvalTable` is built once per rule, for a static.
    fn new(w: &Weights) -> EvalTable {
        let expand = |v: usize| -> &'static [i64; CELL_INDEX] {
            let mut t = Box::new([0i64; CELL_INDEX]);
            for (ci, e) in t.iter_mut().enumerate() {
                if ci & 0x8888 == 0 {
                    let k = combo_of_compact(ci);
                    *e = i64::from(w.own[v][k]) + (i64::from(w.opp[v][k]) << 32);
                }
            }
            Box::leak(t)
        };
        let black = expand(0);
        let same = w.own[0] == w.own[1] && w.opp[0] == w.opp[1];
        let cell = [black, if same { black } else { expand(1) }];
        let mask = [0, 1].map(|c| {
            let mut t = Box::new([0i32; MASK_COUNT]);
            t.copy_from_slice(&w.mask[c]);
            t
        });
        EvalTable { cell, mask }
    }
}

/// The table files in `src/eval/tables/`, by rule (caro's two rules share one).
const TABLE_TEXT: [(&str, Option<&str>); 4] = [
    ("freestyle", Some(include_str!("tables/freestyle.txt"))),
    ("standard", Some(include_str!("tables/standard.txt"))),
    ("renju", Some(include_str!("tables/renju.txt"))),
    ("caro", Some(include_str!("tables/caro.txt"))),
];

/// Name of the table file of `rule` (without `.txt`).
pub fn table_name(rule: Rule) -> &'static str {
    TABLE_TEXT[table_slot(rule)].0
}

/// Index into `TABLE_TEXT` of `rule`.
fn table_slot(rule: Rule) -> usize {
    match rule {
        Rule::Freestyle => 0,
        Rule::Standard => 1,
        Rule::Renju => 2,
        Rule::Caro | Rule::CaroExact => 3,
    }
}

/// The weights of `rule`: its table file, or the hand-set weights where there is none.
pub fn rule_weights(rule: Rule) -> anyhow::Result<Weights> {
    let (name, text) = TABLE_TEXT[table_slot(rule)];
    match text {
        None => Ok(super::weights::hand_weights()),
        Some(text) => {
            let (r, w) = Weights::parse(text).with_context(|| format!("eval table `{name}`"))?;
            if r != name {
                bail!("eval table `{name}` says it is for rule `{r}`");
            }
            Ok(w)
        }
    }
}

/// Checks that every embedded table loads (called at start, so a bad table is an error there, never in play).
pub fn check_tables() -> anyhow::Result<()> {
    for rule in Rule::ALL {
        rule_weights(rule)?;
    }
    Ok(())
}

/// Expanded tables per `table_slot` (built on first use; `check_tables` ran at start).
static TABLES: [LazyLock<EvalTable>; 4] = [
    LazyLock::new(|| load(Rule::Freestyle)),
    LazyLock::new(|| load(Rule::Standard)),
    LazyLock::new(|| load(Rule::Renju)),
    LazyLock::new(|| load(Rule::Caro)),
];

/// See `TABLES`: a table that does not load (impossible once `check_tables` passed) falls back to hand weights.
fn load(rule: Rule) -> EvalTable {
    let mut w = rule_weights(rule).unwrap_or_else(|_| super::weights::hand_weights());
    add_quiet_values(&mut w, &super::weights::QUIET_LEVEL_VALUE[table_slot(rule)]);
    add_tempo(&mut w, super::weights::TEMPO[table_slot(rule)]);
    EvalTable::new(&w)
}

/// Adds `tempo[c]` to every threat-mask value of colour `c` to move (see `weights::TEMPO`): the mask is read once
/// per evaluation, always from the side to move's view.
fn add_tempo(w: &mut Weights, tempo: [i32; 2]) {
    for (mask, t) in w.mask.iter_mut().zip(tempo) {
        for m in mask.iter_mut() {
            *m += t;
        }
    }
}

/// Adds `quiet[level]` per direction to both lanes of every combination's value, for both colours (see
/// `weights::QUIET_LEVEL_VALUE`).
fn add_quiet_values(w: &mut Weights, quiet: &[i32; LEVELS]) {
    for k in 0..COMBO_COUNT {
        let q: i32 = combo_levels(k).iter().map(|&l| quiet[usize::from(l)]).sum();
        for v in 0..2 {
            w.own[v][k] += q;
            w.opp[v][k] += q;
        }
    }
}

/// The evaluation tables of `rule`.
pub fn table(rule: Rule) -> &'static EvalTable {
    &TABLES[table_slot(rule)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_are_unordered_and_complete() {
        let mut seen = vec![false; COMBO_COUNT];
        for ci in 0..CELL_INDEX {
            if ci & 0x8888 != 0 {
                continue;
            }
            let k = combo_of_compact(ci);
            seen[k] = true;
            let mut l = [ci & 7, (ci >> 4) & 7, (ci >> 8) & 7, (ci >> 12) & 7].map(|v| v as u8);
            l.sort_unstable();
            assert_eq!(combo_levels(k), l, "compact index {ci:#x}");
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn quiet_values_add_per_direction_level_to_both_lanes() {
        let quiet = [0, 1, 10, 100, 1000, 0, 0, 0];
        let mut w = Weights::zero();
        add_quiet_values(&mut w, &quiet);
        let flex2_flex2_flex3 = COMBO_BY_LEVELS[2 | 2 << 3 | 4 << 6] as usize;
        let block3_flex1 = COMBO_BY_LEVELS[3 | 1 << 3] as usize;
        for v in 0..2 {
            assert_eq!(w.own[v][flex2_flex2_flex3], 1020);
            assert_eq!(w.opp[v][flex2_flex2_flex3], 1020);
            assert_eq!(w.own[v][block3_flex1], 101);
            assert_eq!(w.own[v][0], 0, "the all-dead combination");
        }
        // What play reads: the freestyle table's file values plus its quiet values.
        let file = rule_weights(Rule::Freestyle).expect("loads");
        let played = table(Rule::Freestyle);
        let ci = 2 | 2 << 4 | 4 << 8;
        assert_eq!(combo_of_compact(ci), flex2_flex2_flex3);
        let q = super::super::weights::QUIET_LEVEL_VALUE[0];
        let expected_own = file.own[0][flex2_flex2_flex3] + 2 * q[2] + q[4];
        assert_eq!(played.cell[0][ci] as i32, expected_own);
    }

    #[test]
    fn tempo_adds_to_every_mask_value_of_play() {
        for rule in [Rule::Freestyle, Rule::Renju] {
            let file = rule_weights(rule).expect("loads");
            let played = table(rule);
            let tempo = super::super::weights::TEMPO[table_slot(rule)];
            for (c, &t) in tempo.iter().enumerate() {
                for m in [0, 1, 0x10, 0x400, MASK_COUNT - 1] {
                    assert_eq!(
                        played.mask[c][m],
                        file.mask[c][m] + t,
                        "{rule:?} colour {c} mask {m:#x}"
                    );
                }
            }
        }
        let mut w = Weights::zero();
        add_tempo(&mut w, [-7, 3]);
        assert!(w.mask[0].iter().all(|&v| v == -7));
        assert!(w.mask[1].iter().all(|&v| v == 3));
        assert!(w
            .own
            .iter()
            .chain(&w.opp)
            .all(|l| l.iter().all(|&v| v == 0)));
    }

    #[test]
    fn text_round_trip_and_shape_errors() {
        let mut w = Weights::zero();
        w.own[1][7] = -3;
        w.mask[0][MASK_COUNT - 1] = 12345;
        let text = w.to_text("renju", "a test\nof two lines");
        let (rule, back) = Weights::parse(&text).expect("parses");
        assert_eq!(rule, "renju");
        assert_eq!(back, w);
        let short = text.replace(" 12345", "");
        let e = Weights::parse(&short).unwrap_err().to_string();
        assert!(e.contains("`mask` has 2047 values, expected 2048"), "{e}");
        let missing: String = text
            .lines()
            .filter(|l| !l.starts_with("opp white"))
            .map(|l| format!("{l}\n"))
            .collect();
        let e = Weights::parse(&missing).unwrap_err().to_string();
        assert!(e.contains("no `opp white` row"), "{e}");
        assert!(Weights::parse("").is_err());
        assert!(Weights::parse("pentad-eval 2\n").is_err());
    }

    #[test]
    fn embedded_tables_load() {
        check_tables().expect("every embedded table loads");
    }
}

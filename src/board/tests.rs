//! Board tests: rules from diagrams, pattern classes, renju forbidden points, random playouts against a
//! from-scratch recomputation, and the pattern tables against the brute-force line scanner.

use super::bench::Rng;
use super::*;
use crate::pattern::{
    brute_class, class_table, class_table3, compact_pair_table, compact_to_full, decode3,
    decode_key, threat_table, COMPACT_COUNT, COMPACT_INNER, KEY3_COUNT, KEY_COUNT,
};

/// Board from a diagram plus the position of each mark letter.
/// Diagrams of fewer than five rows get empty rows appended (boards are at least 5x5).
fn setup(diagram: &str, rule: Rule) -> (Board, Vec<(char, Pos)>) {
    let mut text = diagram.to_string();
    let rows: Vec<&str> = diagram.lines().filter(|l| !l.trim().is_empty()).collect();
    let width = rows[0].chars().filter(|c| !c.is_whitespace()).count();
    for _ in rows.len()..5 {
        text.push('\n');
        text.push_str(&".".repeat(width));
    }
    let diagram = text.as_str();
    let b = Board::from_diagram(diagram, rule).expect("valid diagram");
    let marks = diagram_marks(diagram)
        .into_iter()
        .map(|(ch, x, y)| (ch, b.pos(x as i64, y as i64).expect("on board")))
        .collect();
    (b, marks)
}

fn mark(marks: &[(char, Pos)], ch: char) -> Pos {
    marks.iter().find(|m| m.0 == ch).expect("mark present").1
}

/// Places `c` at mark `a` and returns the winner.
fn winner_after(diagram: &str, rule: Rule, c: Color) -> Option<Color> {
    let (mut b, marks) = setup(diagram, rule);
    let a = mark(&marks, 'a');
    let (x, y) = b.xy(a);
    b.try_place(x as i64, y as i64, c).expect("legal");
    b.check_invariants();
    let w = b.winner();
    // The pattern at the mark (before playing) must agree with the win check.
    let (before, _) = setup(diagram, rule);
    let five = (0..4).any(|d| before.pattern(a, c, d) == Pattern::Five);
    assert_eq!(five, w == Some(c), "Five pattern vs win check\n{diagram}");
    assert_eq!(before.threat(a, c) == Threat::Five, w == Some(c));
    w
}

const B: Color = Color::Black;
const W: Color = Color::White;

#[test]
fn wins_per_rule() {
    let five = ". . X X a X X . . .";
    let over = ". X X X a X X . . .";
    let five_w = ". . O O a O O . . .";
    let over_w = ". O O O a O O . . .";
    for rule in Rule::ALL {
        assert_eq!(winner_after(five, rule, B), Some(B), "{rule:?} five");
        assert_eq!(
            winner_after(five_w, rule, W),
            Some(W),
            "{rule:?} white five"
        );
        let overline_wins = matches!(rule, Rule::Freestyle | Rule::Caro);
        assert_eq!(
            winner_after(over, rule, B).is_some(),
            overline_wins,
            "{rule:?} black overline"
        );
        let white_over = overline_wins || rule == Rule::Renju;
        assert_eq!(
            winner_after(over_w, rule, W).is_some(),
            white_over,
            "{rule:?} white overline"
        );
    }
    // Four in a row is not a win; a five in another direction is.
    assert_eq!(winner_after(". X X a X . . .", Rule::Freestyle, B), None);
    let vertical = "
        . . . . .
        . . X . .
        . . X . .
        . . a . .
        . . X . .
        . . X . .
        . . . . .";
    for rule in Rule::ALL {
        assert_eq!(winner_after(vertical, rule, B), Some(B));
    }
    let diagonal = "
        X . . . . .
        . X . . . .
        . . a . . .
        . . . X . .
        . . . . X .
        . . . . . .";
    assert_eq!(winner_after(diagonal, Rule::Standard, B), Some(B));
    let anti = "
        . . . . . X
        . . . . X .
        . . . a . .
        . . X . . .
        . X . . . .
        O . . . . .";
    assert_eq!(winner_after(anti, Rule::Standard, B), Some(B));
    assert_eq!(
        winner_after(anti, Rule::CaroExact, B),
        Some(B),
        "edge is no block"
    );
}

#[test]
fn caro_blocking() {
    let open = ". X X a X X . .";
    let one_end = "O X X a X X . .";
    let both = "O X X a X X O .";
    let edge_opp = "X X a X X O . .";
    let edge_edge = "X X a X X";
    let over_blocked_one = "O X X a X X X .";
    let over_blocked_both = "O X X a X X X O";
    for rule in [Rule::Caro, Rule::CaroExact] {
        assert_eq!(winner_after(open, rule, B), Some(B));
        assert_eq!(
            winner_after(one_end, rule, B),
            Some(B),
            "blocked at one end"
        );
        assert_eq!(winner_after(both, rule, B), None, "blocked at both ends");
        assert_eq!(winner_after(edge_opp, rule, B), Some(B), "edge is no block");
        assert_eq!(
            winner_after(edge_edge, rule, B),
            Some(B),
            "edge at both ends"
        );
        let over = rule == Rule::Caro;
        assert_eq!(winner_after(over_blocked_one, rule, B).is_some(), over);
        assert_eq!(winner_after(over_blocked_both, rule, B), None);
    }
    // Other rules ignore blocking.
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
        assert_eq!(winner_after(both, rule, B), Some(B));
    }
    // A blocked five-to-be is no four in caro.
    let (b, m) = setup("O X X X a . O . .", Rule::Caro);
    assert_eq!(b.pattern(mark(&m, 'a'), B, 0), Pattern::Dead);
    let (b, m) = setup("O X X X a . . . .", Rule::Caro);
    assert_eq!(b.pattern(mark(&m, 'a'), B, 0), Pattern::Block4);
}

#[test]
fn pattern_classes() {
    let cases: &[(&str, Pattern)] = &[
        (". . X X X X a . . . .", Pattern::Five),
        (". . X X X a . . . . .", Pattern::Flex4),
        (". X . X X a . X . . .", Pattern::Flex4),
        ("O X X X a . . . . . .", Pattern::Block4),
        (". . X X . a X . . . .", Pattern::Block4),
        (". . . X X a . . . . .", Pattern::Flex3),
        (". . X . X a . . . . .", Pattern::Flex3),
        ("O X X a . . . . . . .", Pattern::Block3),
        (". . . O X X a . . . .", Pattern::Block3),
        (". . . . X a . . . . .", Pattern::Flex2),
        (". . . X . a . . . . .", Pattern::Flex2),
        ("O X a . . . . . . . .", Pattern::Block2),
        (". . . . . a . . . . .", Pattern::Flex1),
        ("O a . . . . . . . . .", Pattern::Block1),
        ("O a . . . O . . . . .", Pattern::Dead),
    ];
    for &(line, want) in cases {
        for rule in Rule::ALL {
            let (b, m) = setup(line, rule);
            let a = mark(&m, 'a');
            assert_eq!(b.pattern(a, B, 0), want, "{rule:?} {line}");
            // Same line in white's colours.
            let swapped: String = line
                .chars()
                .map(|c| match c {
                    'X' => 'O',
                    'O' => 'X',
                    c => c,
                })
                .collect();
            let (b, m) = setup(&swapped, rule);
            assert_eq!(
                b.pattern(mark(&m, 'a'), W, 0),
                want,
                "{rule:?} white {swapped}"
            );
        }
    }
    // Overline-making cell: Five where overlines win, Dead where they do not.
    let line = ". X X a X X X . .";
    for rule in Rule::ALL {
        let (b, m) = setup(line, rule);
        let want = if matches!(rule, Rule::Freestyle | Rule::Caro) {
            Pattern::Five
        } else {
            Pattern::Dead
        };
        assert_eq!(b.pattern(mark(&m, 'a'), B, 0), want, "{rule:?}");
    }
    // A standard-rule Flex3 whose open four would need an overline point is only a Block3.
    let (b, m) = setup("X . . X X a . . X . .", Rule::Standard);
    assert_eq!(b.pattern(mark(&m, 'a'), B, 0), Pattern::Block3);
    let (b, m) = setup("X . . X X a . . X . .", Rule::Freestyle);
    assert_eq!(b.pattern(mark(&m, 'a'), B, 0), Pattern::Flex3);
}

#[test]
fn threat_classes() {
    let cases: &[(&str, Threat)] = &[
        (
            "
            . . . . . . .
            . . . X . . .
            . . . X . . .
            . X X a . . .
            . . . . . . .
            . . . . . . .",
            Threat::DoubleFlex3,
        ),
        (
            "
            . . . . . . . .
            . . . . X . . .
            . . . . X . . .
            O X X X a . . .
            . . . . . . . .
            . . . . . . . .",
            Threat::Block4Flex3,
        ),
        (
            "
            . . . . . . . .
            . . . . O . . .
            . . . . X . . .
            O X X X a . . .
            . . . . . . . .
            . . . . . . . .",
            Threat::Block4,
        ),
        (
            "
            . . . . . . . .
            . . . . X . . .
            . . . . X . . .
            . . . . X . . .
            O X X X a . . .
            . . . . . . . .
            . . . . . . . .",
            Threat::Flex4,
        ),
    ];
    for &(d, want) in cases {
        let (b, m) = setup(d, Rule::Freestyle);
        assert_eq!(b.threat(mark(&m, 'a'), B), want, "{d}");
        assert_eq!(b.threat_count(B, want), 1, "{d}");
        b.check_invariants();
    }
}

/// The false double-three: `a` has two Flex3 lines, but the horizontal three's only straight-four point `q`
/// is itself forbidden (a double four), so only one three is real and `a` is allowed.
const FALSE_DOUBLE_THREE: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    O . . . O . . . . . . . . . .
    . X . . X . . . . . . . . . .
    . . X . X . . X . . . . . . .
    . . . X X . . X . . . . . . .
    . . . . q X X a . O . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . O
    . . . . . . . . . . . . . . O
    . . . . . . . . . . . . . . O
    . . . . . . . . . . . . . . O
    O . O . O . . . . . . . . . .";

#[test]
fn renju_false_double_three() {
    let (b, m) = setup(FALSE_DOUBLE_THREE, Rule::Renju);
    b.check_invariants();
    let (a, q) = (mark(&m, 'a'), mark(&m, 'q'));
    assert_eq!(b.side_to_move(), B);
    assert_eq!(b.pattern(a, B, 0), Pattern::Flex3);
    assert_eq!(b.pattern(a, B, 1), Pattern::Flex3);
    assert!(b.is_forbidden(q), "q is a double four");
    assert_eq!(b.threat(q, B), Threat::Forbidden);
    assert!(!b.is_forbidden(a), "false double three is allowed");
    assert_eq!(b.threat(a, B), Threat::DoubleFlex3);
    // Without the lines that give q a second four, the double three is real. (Any other four through q
    // makes q a double four once a is played, so they all go.)
    let real = "
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . X . . . . . . .
        . . . . . . . X . . . . . . .
        . . . . q X X a . O . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . O
        . . . . . . . . . . . . . . O
        . . . . . . . . . . . . . . O
        . . . . . . . . . . . . . . .";
    let (b, m) = setup(real, Rule::Renju);
    b.check_invariants();
    assert!(!b.is_forbidden(mark(&m, 'q')));
    assert!(b.is_forbidden(mark(&m, 'a')), "real double three");
    assert_eq!(b.threat(mark(&m, 'a'), B), Threat::Forbidden);
    assert!(b.threat_count(B, Threat::Forbidden) >= 1);
    // Other rules and white: no forbidden points.
    let (b, m) = setup(real, Rule::Standard);
    assert!(!b.is_forbidden(mark(&m, 'a')));
    assert_eq!(b.threat_count(B, Threat::Forbidden), 0);
}

/// A three whose only straight-four point also makes a five is no three (RIF: "without at the same time a five
/// in a row is made"). `a` has two Flex3 lines: the horizontal one is real (8,5 or 12,5 make a straight four),
/// the vertical one reaches a straight four only through `q`, which also completes the five q..13,6.
const THREE_THROUGH_FIVE: &str = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . . .
    . . . . . . . . . a X X . . .
    . . . . . . . . . q X X X X .
    . . . . . . . . . X . . . . .
    . . . . . . . . . X . . . . .
    . . . . . . . . . . . . . . .
    O . O . O . . . . . . . . . .
    . . . . . . . . . . . . . . .
    O . O . O . . . . . . . . . .
    . . . . . . . . . . . . . . .
    O . O . . . . . . . . . . . .";

#[test]
fn renju_three_through_a_five_point_is_no_three() {
    let (b, m) = setup(THREE_THROUGH_FIVE, Rule::Renju);
    b.check_invariants();
    let (a, q) = (mark(&m, 'a'), mark(&m, 'q'));
    assert_eq!(b.side_to_move(), B);
    assert_eq!(b.pattern(a, B, 0), Pattern::Flex3);
    assert_eq!(b.pattern(a, B, 1), Pattern::Flex3);
    assert_eq!(b.threat(q, B), Threat::Five);
    assert!(!b.is_forbidden(a), "only one real three");
    assert_eq!(b.threat(a, B), Threat::DoubleFlex3);
    // Without the five (12,6 and 13,6 gone), q makes a straight four and a three: the vertical three is real
    // and `a` is a double three.
    let no_five = THREE_THROUGH_FIVE
        .replacen("X X X X", "X X . .", 1)
        .replacen("O . O . .", ". . . . .", 1);
    let (b, m) = setup(&no_five, Rule::Renju);
    b.check_invariants();
    assert!(b.is_forbidden(mark(&m, 'a')), "real double three");
    assert_eq!(b.threat(mark(&m, 'a'), B), Threat::Forbidden);
}

#[test]
fn renju_four_three_with_a_three_through_a_five_point() {
    // The same two threes at `a`, plus a four on the diagonal a..12,2 (blocked by white at 13,1): a
    // four-three-three if the vertical three counted, a legal four-three as it is.
    let d = "
    . . . . . . . . . . . . . . .
    . . . . . . . . . . . . . O .
    . . . . . . . . . . . . X . .
    . . . . . . . . . . . X . . .
    . . . . . . . . . . X . . . .
    . . . . . . . . . a X X . . .
    . . . . . . . . . q X X X X .
    . . . . . . . . . X . . . . .
    . . . . . . . . . X . . . . .
    . . . . . . . . . . . . . . .
    O . O . O . . . . . . . . . .
    . . . . . . . . . . . . . . .
    O . O . O . . . . . . . . . .
    . . . . . . . . . . . . . . .
    O . O . O . O . . . . . . . .";
    let (b, m) = setup(d, Rule::Renju);
    b.check_invariants();
    let a = mark(&m, 'a');
    assert_eq!(b.side_to_move(), B);
    assert_eq!(b.pattern(a, B, 3), Pattern::Block4);
    assert!(!b.is_forbidden(a), "four-three, not four-three-three");
    assert_eq!(b.threat(a, B), Threat::Block4Flex3);
}

#[test]
fn renju_three_through_a_five_point_issue_position() {
    // The position of the issue report (x,y from 0, black to move): 9,5 is legal.
    let black = [
        (10, 6),
        (11, 6),
        (12, 6),
        (13, 6),
        (9, 7),
        (11, 7),
        (9, 8),
        (11, 9),
        (10, 5),
        (6, 3),
        (8, 1),
        (9, 0),
        (10, 0),
    ];
    let white = [
        (9, 13),
        (9, 14),
        (8, 13),
        (8, 12),
        (8, 5),
        (7, 5),
        (7, 14),
        (5, 7),
        (6, 4),
        (6, 6),
        (7, 6),
        (3, 5),
        (4, 6),
    ];
    let mut b = Board::new(15, 15, Rule::Renju).unwrap();
    for (&(bx, by), &(wx, wy)) in black.iter().zip(&white) {
        b.try_place(bx, by, B).unwrap();
        b.try_place(wx, wy, W).unwrap();
        b.check_invariants();
    }
    assert_eq!(b.side_to_move(), B);
    let p = b.pos(9, 5).unwrap();
    assert!(!b.is_forbidden(p));
    assert_ne!(b.threat(p, B), Threat::Forbidden);
}

#[test]
fn renju_double_four_on_one_line() {
    let d = ". . X . X a X . X . . . .";
    let (b, m) = setup(d, Rule::Renju);
    let a = mark(&m, 'a');
    assert_eq!(b.pattern(a, B, 0), Pattern::Flex4);
    assert!(b.is_forbidden(a));
    assert_eq!(b.threat(a, B), Threat::Forbidden);
    b.check_invariants();
    // An open four is fine.
    let (b, m) = setup(". . . X X a X . . . .", Rule::Renju);
    assert!(!b.is_forbidden(mark(&m, 'a')));
    assert_eq!(b.threat(mark(&m, 'a'), B), Threat::Flex4);
    // White may.
    let (b, m) = setup(". . O . O a O . O . . . .", Rule::Renju);
    assert_eq!(b.threat(mark(&m, 'a'), W), Threat::Flex4);
    // Standard: the same shape is a Flex4 threat.
    let (b, m) = setup(d, Rule::Standard);
    assert_eq!(b.threat(mark(&m, 'a'), B), Threat::Flex4);
}

#[test]
fn renju_overline_and_four() {
    // Horizontal overline plus a vertical four at a.
    let d = "
        . . . . . . . . . .
        . . . . . . . . . .
        . . O . . . . . . .
        . . X . . . . . . .
        . . X . . . . . . .
        . . X . . . . . . .
        X X a X X X . . . .
        . . . . . . . . . .";
    let (b, m) = setup(d, Rule::Renju);
    let a = mark(&m, 'a');
    assert_eq!(b.pattern(a, B, 1), Pattern::Block4);
    assert!(b.is_forbidden(a));
    assert_eq!(b.threat(a, B), Threat::Forbidden);
    assert_eq!(winner_after(d, Rule::Renju, B), None);
    // Freestyle: a five.
    let (b, m) = setup(d, Rule::Freestyle);
    assert_eq!(b.threat(mark(&m, 'a'), B), Threat::Five);
    // Renju: a five beats a simultaneous forbidden shape.
    let five_and_double_four = "
        . . . . . . . . . .
        . . . . . . . . . .
        . . . O . . . . . .
        X . . X . . . . . .
        . X . X . . . . . .
        . . X X . . . . . .
        . X X a X X . . . .
        . . . . . . . . . .";
    let (b, m) = setup(five_and_double_four, Rule::Renju);
    assert!(!b.is_forbidden(mark(&m, 'a')));
    assert_eq!(b.threat(mark(&m, 'a'), B), Threat::Five);
    assert_eq!(winner_after(five_and_double_four, Rule::Renju, B), Some(B));
}

#[test]
fn checked_moves_and_undo() {
    let mut b = Board::new(15, 15, Rule::Standard).expect("size");
    assert!(Board::new(4, 15, Rule::Standard).is_err());
    assert!(Board::new(15, 33, Rule::Standard).is_err());
    assert_eq!(b.try_play(-1, 0), Err(PlayError::OffBoard));
    assert_eq!(b.try_play(15, 0), Err(PlayError::OffBoard));
    assert_eq!(b.try_play(i64::MAX, i64::MIN), Err(PlayError::OffBoard));
    let h0 = b.hash();
    let p = b.try_play(7, 7).expect("empty");
    assert_eq!(b.xy(p), (7, 7));
    assert_eq!(b.stone(p), Some(B));
    assert_eq!(b.side_to_move(), W);
    assert_ne!(b.hash(), h0);
    assert_eq!(b.try_play(7, 7), Err(PlayError::Occupied));
    assert_eq!(b.move_count(), 1);
    let q = b.try_place(8, 8, B).expect("empty");
    assert_eq!(b.side_to_move(), W);
    assert_eq!(b.last_move(), Some(q));
    assert_eq!(b.moves(), &[p, q]);
    b.undo();
    b.undo();
    b.undo();
    assert_eq!(b.move_count(), 0);
    assert_eq!(b.hash(), h0);
    assert_eq!(b.candidates().count(), 0);
    b.check_invariants();
    assert_eq!(Rule::from_gomocup(0), Some(Rule::Freestyle));
    assert_eq!(Rule::from_gomocup(1), Some(Rule::Standard));
    assert_eq!(Rule::from_gomocup(2), Some(Rule::Freestyle));
    assert_eq!(Rule::from_gomocup(3), Some(Rule::Standard));
    assert_eq!(Rule::from_gomocup(4), Some(Rule::Renju));
    assert_eq!(Rule::from_gomocup(8), Some(Rule::Caro));
    assert_eq!(Rule::from_gomocup(9), Some(Rule::CaroExact));
    assert_eq!(Rule::from_gomocup(-1), None);
    assert_eq!(Rule::from_gomocup(16), None);
    for r in Rule::ALL {
        assert_eq!(Rule::from_gomocup(r.gomocup_code() as i64), Some(r));
    }
}

#[test]
fn candidate_area() {
    let mut b = Board::new(15, 15, Rule::Freestyle).expect("size");
    b.play(b.pos(0, 0).expect("on"));
    assert_eq!(b.candidates().count(), 8);
    b.set_candidate_range(1);
    assert_eq!(b.candidates().count(), 3);
    b.play(b.pos(7, 7).expect("on"));
    assert_eq!(b.candidates().count(), 11);
    let v: Vec<_> = b.candidates().collect();
    assert!(v.windows(2).all(|w| w[0] < w[1]), "ascending");
    b.check_invariants();
}

/// Random games with random undos; every incremental quantity is checked after every move and undo.
fn playouts(w: usize, h: usize, rule: Rule, games: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    for g in 0..games {
        let mut b = Board::new(w, h, rule).expect("size");
        // Every other game runs the baseline copy of the move update (the other one the CPU's, `cpu::path`).
        if g % 2 == 1 {
            b.v3 = false;
        }
        if g % 3 == 1 {
            b.set_candidate_range(1 + rng.below(MAX_CANDIDATE_RANGE));
        }
        b.check_invariants();
        loop {
            if b.winner().is_some() || b.is_full() {
                break;
            }
            let cands: Vec<Pos> = b.candidates().collect();
            let p = if cands.is_empty() || rng.below(8) == 0 {
                loop {
                    let x = rng.below(w) as i64;
                    let y = rng.below(h) as i64;
                    let p = b.pos(x, y).expect("on board");
                    if b.is_empty(p) {
                        break p;
                    }
                }
            } else {
                cands[rng.below(cands.len())]
            };
            if rng.below(16) == 0 {
                let (x, y) = b.xy(p);
                let c = if rng.below(2) == 0 { B } else { W };
                b.try_place(x as i64, y as i64, c).expect("empty");
            } else {
                b.play(p);
            }
            b.check_invariants();
            if rng.below(64) == 0 {
                // A range change mid-game replays the candidate history; undo must stay exact after it.
                b.set_candidate_range(1 + rng.below(MAX_CANDIDATE_RANGE));
                b.check_invariants();
            }
            if rng.below(6) == 0 {
                for _ in 0..1 + rng.below(3) {
                    b.undo();
                    b.check_invariants();
                }
            }
        }
        while b.move_count() > 0 {
            let before = b.move_count();
            b.undo();
            assert_eq!(b.move_count(), before - 1);
            if rng.below(4) == 0 {
                b.check_invariants();
            }
        }
        b.check_invariants();
    }
}

#[test]
fn random_playouts_small() {
    for (i, rule) in Rule::ALL.into_iter().enumerate() {
        playouts(5, 5, rule, 400, 11 + i as u64);
        playouts(6, 9, rule, 200, 21 + i as u64);
    }
}

#[test]
fn random_playouts_15() {
    for (i, rule) in Rule::ALL.into_iter().enumerate() {
        let games = if rule == Rule::Renju { 300 } else { 120 };
        playouts(15, 15, rule, games, 31 + i as u64);
    }
}

#[test]
fn random_playouts_large_and_rect() {
    for (i, rule) in Rule::ALL.into_iter().enumerate() {
        playouts(32, 32, rule, 4, 41 + i as u64);
        playouts(20, 11, rule, 30, 51 + i as u64);
        playouts(32, 5, rule, 30, 61 + i as u64);
    }
}

/// Every key of every table a rule uses (ternary for all but caro, 2-bit for caro): the table equals the
/// straightforward recursive scanner.
#[test]
fn tables_match_brute_force() {
    for rule in [LineRule::Freestyle, LineRule::Exact, LineRule::RenjuBlack] {
        let t = class_table3(rule);
        for key in 0..KEY3_COUNT as u32 {
            let mut cells = decode3(key);
            assert_eq!(
                t[key as usize],
                brute_class(&mut cells, rule),
                "{rule:?} key {key}"
            );
        }
    }
    // Freestyle classes ignore the cells five away (the board leaves those key slots empty).
    let t = class_table3(LineRule::Freestyle);
    for key in 0..KEY3_COUNT as u32 {
        let inner = key - key % 3 - (key / 19683) * 19683;
        assert_eq!(t[key as usize], t[inner as usize], "freestyle key {key}");
    }
    // Compact keys lose nothing: a cell five away matters only as an own stone (an opponent stone or a wall
    // there reads like an empty cell) for every non-caro line rule.
    for rule in [LineRule::Freestyle, LineRule::Exact, LineRule::RenjuBlack] {
        let t = class_table3(rule);
        for key in 0..KEY3_COUNT as u32 {
            let (lo, hi) = (key % 3, key / 19683);
            let inner = (key - lo - hi * 19683) / 3;
            let compact = inner + 6561 * ((lo == 1) as u32 + 2 * (hi == 1) as u32);
            assert_eq!(
                t[key as usize],
                t[compact_to_full(compact) as usize],
                "{rule:?} key {key}"
            );
        }
    }
    // The compact pair tables, both views, against the scanner.
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
        let (lb, lw) = rule.line_rules();
        let t = compact_pair_table(rule);
        let n = if rule == Rule::Freestyle {
            COMPACT_INNER
        } else {
            COMPACT_COUNT
        };
        for key in 0..n as u32 {
            let full = compact_to_full(key);
            let (b, w) = (t[key as usize], t[key as usize | 1 << 16]);
            assert_eq!(b, brute_class(&mut decode3(full), lb), "{rule:?} {key}");
            assert_eq!(w, brute_class(&mut decode3(full), lw), "{rule:?} {key}");
        }
    }
    for rule in [LineRule::Caro, LineRule::CaroExact] {
        let t = class_table(rule);
        for key in 0..KEY_COUNT as u32 {
            let mut cells = decode_key(key);
            assert_eq!(
                t[key as usize],
                brute_class(&mut cells, rule),
                "{rule:?} key {key:05x}"
            );
        }
    }
}

/// The move update's threat tables, read through stored codes, agree with `combine_threat` on the codes they
/// stand for: the compact table for every view but renju black's (where overline is stored as Dead), the
/// full table for renju black. This is what lets the compact table drop each stored code's lowest bit.
#[test]
fn stored_code_threat_tables() {
    for c in 0..12u8 {
        assert_eq!(CODE_OF[STORED[c as usize] as usize], c, "code {c}");
    }
    let renju_full = threat_table(true);
    for rule in [Rule::Freestyle, Rule::Renju] {
        let t = &CELL_TABLES[rule as usize];
        for i in 0..1u32 << 16 {
            let stored = [0, 1, 2, 3].map(|d| ((i >> (4 * d)) & 15) as usize);
            if stored.iter().any(|&s| !STORED.contains(&(s as u8))) {
                continue;
            }
            let codes = stored.map(|s| CODE_OF[s]);
            if !codes.contains(&code::OVERLINE) {
                let want = combine_threat(codes, false).0 as u8;
                assert_eq!(t.compact[compact_index(i)], want, "{rule:?} {codes:?}");
            }
            if rule == Rule::Renju {
                let full = (0..4).fold(0, |k, d| k | (codes[d] as usize) << (4 * d));
                assert_eq!(t.renju[i as usize], renju_full[full], "{codes:?}");
            }
        }
    }
}

#[test]
fn a_pass_flips_the_side_to_move_until_the_next_stone_and_unpass_restores_it() {
    let mut b = Board::new(15, 15, Rule::Freestyle).unwrap();
    b.try_play(7, 7).unwrap();
    b.try_play(8, 8).unwrap();
    let (side, hash) = (b.side_to_move(), b.hash());
    assert_eq!(side, Color::Black);
    b.pass();
    assert!(b.just_passed());
    assert_eq!(b.side_to_move(), Color::White);
    assert_ne!(b.hash(), hash);
    // White plays again after black's pass: then it is black's turn, as after any white stone.
    let p = b.pos(9, 9).unwrap();
    b.play(p);
    assert_eq!(b.stone(p), Some(Color::White));
    assert!(!b.just_passed());
    assert_eq!(b.side_to_move(), Color::Black);
    // A pass nested inside the first one.
    b.pass();
    assert_eq!(b.side_to_move(), Color::White);
    b.unpass();
    b.undo();
    assert_eq!(b.side_to_move(), Color::White);
    b.unpass();
    assert_eq!((b.side_to_move(), b.hash()), (side, hash));
    assert!(!b.just_passed() && b.can_pass());
    b.check_invariants();
}

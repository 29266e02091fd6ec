//! Solver tests: the shared VCF puzzle set (every claimed line replayed and checked with `winner()` only, not
//! with the threat classes the solver uses), rule-specific cases and hand-made VCT positions.

use super::*;
use crate::board::{Board, Color, Pos, Rule};

/// Node budget per puzzle: generous, the set is solved with far fewer (see the README's measurement).
const PUZZLE_BUDGET: u64 = 2_000_000;
/// Node budget of each re-search when a VCT claim is checked against every reply.
const VERIFY_BUDGET: u64 = 300_000;

struct Puzzle {
    id: String,
    black: Vec<(i64, i64)>,
    white: Vec<(i64, i64)>,
    answer: (i64, i64),
    valid_freestyle: bool,
    valid_standard: bool,
}

/// The integers of the JSON value after `"key":` when it is a list of 2- or 3-int lists, as pairs (x, y).
fn pairs(line: &str, key: &str) -> Vec<(i64, i64)> {
    let start = line
        .find(&format!("\"{key}\":"))
        .unwrap_or_else(|| panic!("no {key}"))
        + key.len()
        + 3;
    let rest = &line[start..];
    let open = rest.find('[').unwrap();
    let mut depth = 0;
    let mut end = open;
    for (i, ch) in rest[open..].char_indices() {
        match ch {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    end = open + i;
                    break;
                }
            }
            _ => {}
        }
    }
    let body = &rest[open + 1..end];
    let mut out = Vec::new();
    for inner in body.split('[').skip(1) {
        let nums: Vec<i64> = inner
            .split(']')
            .next()
            .unwrap()
            .split(',')
            .map(|s| s.trim().parse::<i64>().unwrap())
            .collect();
        out.push((nums[0], nums[1]));
    }
    out
}

fn flag(line: &str, key: &str) -> bool {
    let start = line.find(&format!("\"{key}\":")).unwrap() + key.len() + 3;
    line[start..].trim_start().starts_with("true")
}

fn puzzles() -> Vec<Puzzle> {
    include_str!("testdata/vcf-15.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let id_start = l.find("\"id\": \"").unwrap() + 7;
            let id = l[id_start..].split('"').next().unwrap().to_string();
            let ans = l.find("\"answer\":").unwrap();
            let answer_nums: Vec<i64> = l[ans + 9..]
                .trim_start()
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap()
                .split(',')
                .map(|s| s.trim().parse().unwrap())
                .collect();
            Puzzle {
                id,
                black: pairs(l, "black"),
                white: pairs(l, "white"),
                answer: (answer_nums[0], answer_nums[1]),
                valid_freestyle: flag(l, "valid_freestyle"),
                valid_standard: flag(l, "valid_standard"),
            }
        })
        .collect()
}

/// A board with the given stones; the side to move is the opposite of the colour placed last (`last`).
fn setup(rule: Rule, black: &[(i64, i64)], white: &[(i64, i64)], to_move: Color) -> Board {
    let mut b = Board::new(15, 15, rule).unwrap();
    let (first, first_c, second, second_c) = if to_move == Color::Black {
        (black, Color::Black, white, Color::White)
    } else {
        (white, Color::White, black, Color::Black)
    };
    for &(x, y) in first {
        b.try_place(x, y, first_c).unwrap();
    }
    for &(x, y) in second {
        b.try_place(x, y, second_c).unwrap();
    }
    assert_eq!(b.side_to_move(), to_move);
    b
}

/// Cells where `c` would win at once, found by trying every empty cell with `winner()` (rules from the core).
fn immediate_wins(board: &mut Board, c: Color) -> Vec<Pos> {
    let mut out = Vec::new();
    for y in 0..board.height() as i64 {
        for x in 0..board.width() as i64 {
            let p = board.pos(x, y).unwrap();
            if !board.is_empty(p) {
                continue;
            }
            if c == Color::Black && board.is_forbidden(p) {
                continue;
            }
            board.try_place(x, y, c).unwrap();
            if board.winner() == Some(c) {
                out.push(p);
            }
            board.undo();
        }
    }
    out
}

/// Replay a claimed VCF line and check that it is a forced win: every attacker move is legal and answers the
/// defender's four if there is one, makes a new five point (a four) and leaves the defender no five; every defender
/// move blocks a five point; the line ends with the attacker's five (or with a four the defender may not block).
fn verify_vcf_line(board: &mut Board, line: &[Pos]) -> Result<(), String> {
    let att = board.side_to_move();
    let def = att.opp();
    let renju = matches!(board.rule(), Rule::Renju);
    let mut played = 0;
    let mut result = Err("line ended without a five".to_string());
    for (i, &m) in line.iter().enumerate() {
        if !board.is_empty(m) {
            result = Err(format!("move {i} on an occupied cell"));
            break;
        }
        if i % 2 == 0 {
            let dw = immediate_wins(board, def);
            let five = immediate_wins(board, att).contains(&m);
            if !five && (dw.len() > 1 || (dw.len() == 1 && dw[0] != m)) {
                result = Err(format!("move {i} ignores the defender's five point"));
                break;
            }
            if renju && att == Color::Black && board.is_forbidden(m) {
                result = Err(format!("move {i} is forbidden for black"));
                break;
            }
            board.play(m);
            played += 1;
            if board.winner() == Some(att) {
                result = if i + 1 == line.len() {
                    Ok(())
                } else {
                    Err("moves after the five".into())
                };
                break;
            }
            let aw = immediate_wins(board, att);
            if aw.is_empty() {
                result = Err(format!("attacker move {i} is not a four"));
                break;
            }
            if !immediate_wins(board, def).is_empty() {
                result = Err(format!("defender can make five after move {i}"));
                break;
            }
            // Every block other than the line's reply (all of them after the last move) must leave a five.
            let reply = line.get(i + 1).copied();
            if reply.is_some_and(|r| !aw.contains(&r)) {
                result = Err(format!("defender move {} is not a block", i + 1));
                break;
            }
            let mut holding_block = None;
            for &f in aw.iter().filter(|&&f| Some(f) != reply) {
                if renju && def == Color::Black && board.is_forbidden(f) {
                    continue;
                }
                board.play(f);
                // Caro: one block can close the other five too; then the attacker must still win by fours.
                let still = !immediate_wins(board, att).is_empty()
                    || match vcf(board, PUZZLE_BUDGET, &AtomicBool::new(false)) {
                        VcfOutcome::Win(l) => verify_vcf_line(board, &l).is_ok(),
                        _ => false,
                    };
                board.undo();
                if !still {
                    holding_block = Some(f);
                    break;
                }
            }
            if let Some(f) = holding_block {
                result = Err(format!(
                    "after move {i} the block at {:?} holds",
                    board.xy(f)
                ));
                break;
            }
            if reply.is_none() {
                result = Ok(());
                break;
            }
        } else {
            if renju && def == Color::Black && board.is_forbidden(m) {
                result = Err(format!("defender move {i} is forbidden"));
                break;
            }
            board.play(m);
            played += 1;
        }
    }
    for _ in 0..played {
        board.undo();
    }
    result
}

fn solve_puzzles(rule: Rule, wanted: impl Fn(&Puzzle) -> bool) -> (usize, u64) {
    let never = AtomicBool::new(false);
    let mut solved = 0;
    let mut nodes = 0;
    let mut solver = ThreatSolver::with_table_bits(ROOT_TABLE_BITS);
    for p in puzzles().iter().filter(|p| wanted(p)) {
        let mut b = setup(rule, &p.black, &p.white, Color::Black);
        let h = b.hash();
        solver.clear();
        match solver.vcf(&mut b, PUZZLE_BUDGET, &never) {
            VcfOutcome::Win(line) => {
                if let Err(e) = verify_vcf_line(&mut b, &line) {
                    panic!("{} under {rule:?}: bad line {line:?}: {e}", p.id);
                }
            }
            other => panic!(
                "{} under {rule:?}: {other:?} (known answer {:?})",
                p.id, p.answer
            ),
        }
        assert_eq!(b.hash(), h, "board not restored");
        nodes += solver.nodes();
        solved += 1;
    }
    (solved, nodes)
}

#[test]
fn puzzles_freestyle() {
    let (n, _) = solve_puzzles(Rule::Freestyle, |p| p.valid_freestyle);
    assert!(n >= 39);
}

#[test]
fn puzzles_standard() {
    let (n, _) = solve_puzzles(Rule::Standard, |p| p.valid_standard);
    assert!(n >= 39);
}

#[test]
fn puzzles_quick_vcf_agrees() {
    let mut solver = ThreatSolver::new();
    for p in puzzles().iter().filter(|p| p.valid_freestyle) {
        let mut b = setup(Rule::Freestyle, &p.black, &p.white, Color::Black);
        match solver.quick_vcf(&mut b, PUZZLE_BUDGET) {
            QuickVcf::Win { first, plies } => {
                assert!(plies >= 3, "{}: {plies}", p.id);
                // After the first move the attacker still wins: the defender's block leaves a VCF.
                b.play(first);
                let blocks = immediate_wins(&mut b, Color::Black);
                assert!(!blocks.is_empty(), "{}: first move is not a four", p.id);
                if blocks.len() == 1 {
                    b.play(blocks[0]);
                    assert!(
                        matches!(
                            solver.quick_vcf(&mut b, PUZZLE_BUDGET),
                            QuickVcf::Win { .. }
                        ),
                        "{}",
                        p.id
                    );
                    b.undo();
                }
                b.undo();
            }
            other => panic!("{}: {other:?}", p.id),
        }
    }
}

/// Under renju the puzzles are not all wins, but whatever the solver claims must replay as a legal forced win.
#[test]
fn puzzles_renju_claims_are_sound() {
    let never = AtomicBool::new(false);
    for p in puzzles() {
        let mut b = setup(Rule::Renju, &p.black, &p.white, Color::Black);
        if let VcfOutcome::Win(line) = vcf(&mut b, PUZZLE_BUDGET, &never) {
            if let Err(e) = verify_vcf_line(&mut b, &line) {
                panic!("{} under renju: bad line {line:?}: {e}", p.id);
            }
        }
    }
}

#[test]
fn budget_and_stop_give_unknown() {
    let p = &puzzles()[1];
    let mut b = setup(Rule::Freestyle, &p.black, &p.white, Color::Black);
    let h = b.hash();
    let never = AtomicBool::new(false);
    assert_eq!(vcf(&mut b, 3, &never), VcfOutcome::Unknown);
    let stopped = AtomicBool::new(true);
    // The flag is polled every POLL_NODES nodes; a budget above that must still end on the flag.
    let mut s = ThreatSolver::new();
    let r = s.vcf(&mut b, u64::MAX, &stopped);
    assert!(r == VcfOutcome::Unknown || matches!(r, VcfOutcome::Win(_)));
    assert!(s.nodes() <= POLL_NODES + 64);
    assert_eq!(b.hash(), h);
}

#[test]
fn no_threat_no_win() {
    let never = AtomicBool::new(false);
    let mut b = setup(
        Rule::Freestyle,
        &[(7, 7), (8, 8)],
        &[(7, 8), (0, 0)],
        Color::Black,
    );
    assert_eq!(vcf(&mut b, 100_000, &never), VcfOutcome::NoWin);
    // A solver that just searched reports 0 nodes for an O(1) answer.
    let mut s = ThreatSolver::new();
    let p = &puzzles()[0];
    let mut won = setup(Rule::Freestyle, &p.black, &p.white, Color::Black);
    assert!(matches!(
        s.quick_vcf(&mut won, 100_000),
        QuickVcf::Win { .. }
    ));
    assert!(s.nodes() > 0);
    assert_eq!(s.quick_vcf(&mut b, 100_000), QuickVcf::NoWin);
    assert_eq!(s.nodes(), 0);
}

#[test]
fn defender_five_beats_a_four() {
    // Black could make a four, but white already has four stones in a row with an open end: black must block, and
    // the block makes nothing, so there is no VCF.
    let black = [(7, 7), (8, 7), (9, 7), (3, 3)];
    let white = [(2, 10), (3, 10), (4, 10), (5, 10)];
    let never = AtomicBool::new(false);
    let mut b = setup(Rule::Freestyle, &black, &white, Color::White);
    b.try_place(14, 14, Color::White).unwrap();
    // White (2..5,10) with both ends open is an open four: black cannot stop it.
    assert_eq!(vcf(&mut b, 100_000, &never), VcfOutcome::NoWin);
    // With one end closed black blocks at (6,10); the block makes nothing, and an open three is no VCF.
    let black = [(7, 7), (8, 7), (9, 7), (1, 10), (3, 3)];
    let white = [(2, 10), (3, 10), (4, 10), (5, 10), (14, 14)];
    let mut b = setup(Rule::Freestyle, &black, &white, Color::Black);
    assert_eq!(vcf(&mut b, 100_000, &never), VcfOutcome::NoWin);
}

#[test]
fn overline_and_exact_five() {
    // Black X X X X _ X on row 7 with white at (2,7): (7,7) makes six stones in a row.
    let black = [(3, 7), (4, 7), (5, 7), (6, 7), (8, 7)];
    let white = [(2, 7), (0, 0), (14, 0), (0, 14), (14, 14)];
    let never = AtomicBool::new(false);
    let p77 = |b: &Board| b.pos(7, 7).unwrap();
    for (rule, wins) in [
        (Rule::Freestyle, true),
        (Rule::Standard, false),
        (Rule::Renju, false),
        (Rule::Caro, true),
        (Rule::CaroExact, false),
    ] {
        let mut b = setup(rule, &black, &white, Color::Black);
        let r = vcf(&mut b, 100_000, &never);
        if wins {
            assert_eq!(r, VcfOutcome::Win(vec![p77(&b)]), "{rule:?}");
        } else {
            assert_eq!(r, VcfOutcome::NoWin, "{rule:?}");
        }
    }
}

#[test]
fn caro_five_blocked_at_both_ends_is_no_win() {
    let black = [(3, 7), (4, 7), (5, 7), (6, 7)];
    let white = [(2, 7), (8, 7), (0, 0), (14, 14)];
    let never = AtomicBool::new(false);
    let mut b = setup(Rule::Freestyle, &black, &white, Color::Black);
    assert!(matches!(vcf(&mut b, 100_000, &never), VcfOutcome::Win(_)));
    let mut b = setup(Rule::Caro, &black, &white, Color::Black);
    assert_eq!(vcf(&mut b, 100_000, &never), VcfOutcome::NoWin);
}

#[test]
fn renju_double_four_is_not_a_vcf_for_black() {
    // Two closed threes crossing at (7,7): a double four there wins freestyle, is forbidden in renju; any other four
    // is answered at (7,7), which kills both.
    let black = [(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)];
    let white = [(3, 7), (7, 3), (0, 0), (14, 0), (0, 14), (14, 14)];
    let never = AtomicBool::new(false);
    let mut b = setup(Rule::Freestyle, &black, &white, Color::Black);
    match vcf(&mut b, 100_000, &never) {
        VcfOutcome::Win(line) => verify_vcf_line(&mut b, &line).unwrap(),
        other => panic!("{other:?}"),
    }
    let mut b = setup(Rule::Renju, &black, &white, Color::Black);
    assert!(b.is_forbidden(b.pos(7, 7).unwrap()));
    assert_eq!(vcf(&mut b, 100_000, &never), VcfOutcome::NoWin);
    if let VcfOutcome::Win(line) = vct(&mut b, 200_000, &never) {
        assert_ne!(line[0], b.pos(7, 7).unwrap());
        verify_vct_first_move(&mut b, line[0]);
    }
}

#[test]
fn renju_white_wins_through_a_forbidden_block() {
    // White B W W W _ f on row 10: the four's five point f = (6,10) is a black double three (open threes on the
    // column and on the diagonal), so black cannot block it under renju.
    let white = [(2, 10), (3, 10), (4, 10), (0, 0)];
    let black = [(1, 10), (6, 11), (6, 12), (7, 11), (8, 12)];
    let never = AtomicBool::new(false);
    let mut b = setup(Rule::Renju, &black, &white, Color::White);
    let f = b.pos(6, 10).unwrap();
    assert!(b.is_forbidden(f));
    match vcf(&mut b, 100_000, &never) {
        VcfOutcome::Win(line) => {
            assert_eq!(line[0], b.pos(5, 10).unwrap());
            verify_vcf_line(&mut b, &line).unwrap();
        }
        other => panic!("{other:?}"),
    }
    let mut b = setup(Rule::Freestyle, &black, &white, Color::White);
    assert_eq!(vcf(&mut b, 100_000, &never), VcfOutcome::NoWin);
}

/// A claimed VCT win must survive every reply: after the first move, each defender reply (every empty cell, or the
/// five if he has one) leaves the attacker a win (immediate five, or a VCT found again with a fresh solver).
fn verify_vct_first_move(board: &mut Board, first: Pos) {
    let att = board.side_to_move();
    let def = att.opp();
    let never = AtomicBool::new(false);
    board.play(first);
    assert_ne!(board.winner(), Some(def));
    if board.winner() != Some(att) {
        assert!(
            immediate_wins(board, def).is_empty(),
            "defender has a five after the first move"
        );
        for y in 0..board.height() as i64 {
            for x in 0..board.width() as i64 {
                let q = board.pos(x, y).unwrap();
                if !board.is_empty(q) || (def == Color::Black && board.is_forbidden(q)) {
                    continue;
                }
                board.play(q);
                // A sound proof covers every reply within one depth less, so "no win" here means a wrong claim;
                // running out of budget proves nothing either way.
                let refuted = immediate_wins(board, att).is_empty()
                    && vct(board, VERIFY_BUDGET, &never) == VcfOutcome::NoWin;
                board.undo();
                assert!(
                    !refuted,
                    "reply ({x},{y}) to {:?} refutes the claimed VCT",
                    board.xy(first)
                );
            }
        }
    }
    board.undo();
}

#[test]
fn vct_double_three() {
    // Black (5,7),(6,7) and (7,5),(7,6): (7,7) makes two open threes.
    let black = [(5, 7), (6, 7), (7, 5), (7, 6)];
    let white = [(0, 0), (14, 0), (0, 14), (14, 14)];
    let never = AtomicBool::new(false);
    let mut b = setup(Rule::Freestyle, &black, &white, Color::Black);
    assert_eq!(vcf(&mut b, 100_000, &never), VcfOutcome::NoWin);
    match vct(&mut b, 1_000_000, &never) {
        VcfOutcome::Win(line) => {
            assert!(line.len() >= 5, "{line:?}");
            verify_vct_first_move(&mut b, line[0]);
        }
        other => panic!("{other:?}"),
    }
    // Renju: (7,7) is forbidden for black; whatever else is claimed must hold.
    let mut b = setup(Rule::Renju, &black, &white, Color::Black);
    if let VcfOutcome::Win(line) = vct(&mut b, 1_000_000, &never) {
        assert_ne!(line[0], b.pos(7, 7).unwrap());
        verify_vct_first_move(&mut b, line[0]);
    }
    // White may make a double three in renju.
    let mut b = setup(Rule::Renju, &white, &black, Color::White);
    match vct(&mut b, 1_000_000, &never) {
        VcfOutcome::Win(line) => verify_vct_first_move(&mut b, line[0]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn vct_single_two_is_no_win() {
    let black = [(7, 7), (8, 7)];
    let white = [(0, 0), (14, 14)];
    let never = AtomicBool::new(false);
    let mut b = setup(Rule::Freestyle, &black, &white, Color::Black);
    // Two stones make threes but no forced win; the search may also run out of budget, never claim a win.
    assert!(!matches!(vct(&mut b, 200_000, &never), VcfOutcome::Win(_)));
}

#[test]
fn vct_three_three_refuted_by_counter_four() {
    // The double three of `vct_double_three`, but white has a closed three on column 8 whose four at (8,7) also
    // blocks the row three. Whatever the solver claims here must survive every reply.
    let black = [(5, 7), (6, 7), (7, 5), (7, 6), (8, 3), (0, 14)];
    let white = [(8, 4), (8, 5), (8, 6), (0, 0), (14, 0), (14, 14)];
    let never = AtomicBool::new(false);
    let mut b = setup(Rule::Freestyle, &black, &white, Color::Black);
    if let VcfOutcome::Win(line) = vct(&mut b, 1_000_000, &never) {
        verify_vct_first_move(&mut b, line[0]);
    }
}

/// Measurement, not a check: `cargo test --release --lib threat::tests::measure -- --ignored --nocapture`.
/// Times only the solver calls (board set-up and table clearing are outside the clock).
#[test]
#[ignore]
fn measure_vcf_set() {
    let never = AtomicBool::new(false);
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro] {
        let mut solver = ThreatSolver::with_table_bits(ROOT_TABLE_BITS);
        for vct_too in [false, true] {
            let mut time = std::time::Duration::ZERO;
            let (mut wins, mut nodes, mut n) = (0, 0, 0);
            for p in puzzles() {
                let mut b = setup(rule, &p.black, &p.white, Color::Black);
                solver.clear();
                n += 1;
                let start = std::time::Instant::now();
                let r = if vct_too {
                    solver.vct(&mut b, PUZZLE_BUDGET, &never)
                } else {
                    solver.vcf(&mut b, PUZZLE_BUDGET, &never)
                };
                time += start.elapsed();
                wins += matches!(r, VcfOutcome::Win(_)) as u32;
                nodes += solver.nodes();
            }
            let what = if vct_too { "VCT" } else { "VCF" };
            println!(
                "{rule:?} {what}: {wins}/{n} wins, {nodes} nodes, {:.2} ms",
                time.as_secs_f64() * 1e3
            );
        }
    }
}

/// Measurement, not a check: the threat solver against a depth-limited alpha-beta on the same VCF set.
/// `cargo test --release --lib threat::tests::measure_vs -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_vs_search() {
    use crate::search::{score_is_win, Control, Limits, Searcher};
    let never = AtomicBool::new(false);
    let rule = Rule::Freestyle;
    let mut solver = ThreatSolver::with_table_bits(ROOT_TABLE_BITS);
    let mut time = std::time::Duration::ZERO;
    let mut solved = 0;
    for p in puzzles() {
        let mut b = setup(rule, &p.black, &p.white, Color::Black);
        solver.clear();
        let start = std::time::Instant::now();
        let r = solver.vcf(&mut b, PUZZLE_BUDGET, &never);
        time += start.elapsed();
        solved += matches!(r, VcfOutcome::Win(_)) as u32;
    }
    println!(
        "VCF solver: {solved}/40 in {:.1} ms",
        time.as_secs_f64() * 1e3
    );
    for depth in [2, 4, 6] {
        let mut time = std::time::Duration::ZERO;
        let (mut wins, mut good, mut nodes) = (0, 0, 0);
        for p in puzzles() {
            let mut b = setup(rule, &p.black, &p.white, Color::Black);
            let mut s = Searcher::new();
            s.set_hash_bytes(16 << 20);
            let limits = Limits {
                max_depth: Some(depth),
                ..Default::default()
            };
            let start = std::time::Instant::now();
            let res = s.search(&b, &limits, &never, &mut |_| Control::Continue);
            time += start.elapsed();
            nodes += res.nodes;
            wins += score_is_win(res.score) as u32;
            // Is the chosen move a winning one? After it (and the forced block, if any) a VCF must remain.
            if let Some(m) = res.best {
                b.play(m);
                let ok = if b.winner() == Some(Color::Black) {
                    true
                } else {
                    let blocks = immediate_wins(&mut b, Color::Black);
                    if blocks.len() >= 2 {
                        true
                    } else if blocks.len() == 1 {
                        b.play(blocks[0]);
                        let w = matches!(
                            solver.quick_vcf(&mut b, PUZZLE_BUDGET),
                            QuickVcf::Win { .. }
                        );
                        b.undo();
                        w
                    } else {
                        false
                    }
                };
                b.undo();
                good += ok as u32;
            }
        }
        println!(
            "search depth {depth}: {:.1} ms, {nodes} nodes, win score {wins}/40, VCF-winning move {good}/40",
            time.as_secs_f64() * 1e3
        );
    }
}

/// Random positions (deterministic LCG): games of 8..40 random stones near earlier ones, no five, renju black
/// never on a forbidden point.
fn random_positions(rule: Rule, count: usize, seed: u64) -> Vec<Board> {
    let mut state = seed;
    let mut next = move |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % n
    };
    let mut out = Vec::new();
    while out.len() < count {
        let mut b = Board::new(15, 15, rule).unwrap();
        b.try_play(7, 7).unwrap();
        let stones = 8 + next(33);
        while b.move_count() < stones {
            let black = b.side_to_move() == Color::Black;
            let cands: Vec<Pos> = b
                .candidates()
                .filter(|&p| !(black && b.is_forbidden(p)))
                .collect();
            if cands.is_empty() {
                break;
            }
            b.play(cands[next(cands.len())]);
            if b.winner().is_some() {
                b.undo();
                break;
            }
        }
        out.push(b);
    }
    out
}

/// Whatever VCF the solver claims in random positions (all rules, either side to move) replays as a forced win.
#[test]
fn random_vcf_claims_are_sound() {
    let never = AtomicBool::new(false);
    let mut solver = ThreatSolver::new();
    for (k, rule) in Rule::ALL.into_iter().enumerate() {
        let mut wins = 0;
        for mut b in random_positions(rule, 60, 1 + k as u64) {
            if let VcfOutcome::Win(line) = solver.vcf(&mut b, 200_000, &never) {
                wins += 1;
                if let Err(e) = verify_vcf_line(&mut b, &line) {
                    panic!("{rule:?}: bad line {line:?} after {:?}: {e}", b.moves());
                }
            }
        }
        assert!(
            wins > 0,
            "{rule:?}: no VCF in any random position, the test checks nothing"
        );
    }
}

/// Whatever VCT the solver claims in random positions (where there is no VCF) survives every reply.
#[test]
fn random_vct_claims_are_sound() {
    let never = AtomicBool::new(false);
    let mut total = 0;
    for (k, rule) in Rule::ALL.into_iter().enumerate() {
        let mut checked = 0;
        for mut b in random_positions(rule, 40, 100 + k as u64) {
            if checked >= 2 {
                break;
            }
            if vcf(&mut b, 200_000, &never) != VcfOutcome::NoWin {
                continue;
            }
            if let VcfOutcome::Win(line) = vct(&mut b, 200_000, &never) {
                checked += 1;
                verify_vct_first_move(&mut b, line[0]);
            }
        }
        total += checked;
    }
    println!("{total} VCT claims checked");
    assert!(total >= 5, "only {total} VCT claims checked");
}

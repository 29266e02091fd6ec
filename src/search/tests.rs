//! Search behaviour tests: forced blocks, keeping wins, renju forbidden points, reproducibility.

use std::sync::atomic::AtomicBool;

use super::*;
use crate::board::{Board, Color, Pos, Rule};
use crate::pattern::Threat;

/// Builds a board from rows of `X` (black), `O` (white) and `.`; `to_move` is the side to move afterwards.
/// The diagram's top row is y = 0.
fn diagram(rule: Rule, rows: &[&str], to_move: Color) -> Board {
    let h = rows.len();
    let w = rows[0].len();
    let mut board = Board::new(w, h, rule).expect("board size");
    let mut stones = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        for (x, ch) in row.chars().enumerate() {
            match ch {
                'X' => stones.push((x as i64, y as i64, Color::Black)),
                'O' => stones.push((x as i64, y as i64, Color::White)),
                _ => {}
            }
        }
    }
    // The side to move is the opposite of the last stone's colour: place the side to move's stones first.
    stones.sort_by_key(|&(x, y, c)| (c != to_move, y, x));
    for (x, y, c) in stones {
        board.try_place(x, y, c).expect("diagram stone");
    }
    assert_eq!(board.side_to_move(), to_move, "diagram side to move");
    board
}

/// Runs a search with the given limits.
fn run(s: &mut Searcher, board: &Board, limits: &Limits) -> SearchResult {
    let stop = AtomicBool::new(false);
    s.search(board, limits, &stop, &mut |_| Control::Continue)
}

/// One search with a fresh searcher (1 MB table).
fn search_fresh(board: &Board, limits: Limits) -> SearchResult {
    let mut s = Searcher::new();
    s.set_hash_bytes(1 << 20);
    run(&mut s, board, &limits)
}

/// Depth-limited search with a fresh searcher.
fn search_depth(board: &Board, depth: i32) -> SearchResult {
    search_fresh(
        board,
        Limits {
            max_depth: Some(depth),
            ..Limits::default()
        },
    )
}

const EMPTY15: &str = "...............";

#[test]
fn empty_board_gets_the_centre() {
    let board = Board::new(15, 15, Rule::Freestyle).unwrap();
    let r = search_depth(&board, 4);
    assert_eq!(r.best, board.pos(7, 7));
}

#[test]
fn stopped_search_still_returns_a_legal_move() {
    let mut board = Board::new(15, 15, Rule::Renju).unwrap();
    for (x, y) in [(7, 7), (8, 8), (7, 8), (8, 7)] {
        board.try_play(x, y).unwrap();
    }
    let stop = AtomicBool::new(true);
    let mut s = Searcher::new();
    let r = s.search(&board, &Limits::default(), &stop, &mut |_| {
        Control::Continue
    });
    let best = r.best.expect("a move");
    assert!(board.is_empty(best));
    assert!(!board.is_forbidden(best));
}

#[test]
fn blocks_the_only_four() {
    // White threatens five at (7,3); black has nothing better than the block.
    let rows = [
        EMPTY15,
        EMPTY15,
        EMPTY15,
        "..XOOOO........",
        EMPTY15,
        ".....X.X.......",
        "......X........",
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
    ];
    for rule in [
        Rule::Freestyle,
        Rule::Standard,
        Rule::Renju,
        Rule::Caro,
        Rule::CaroExact,
    ] {
        let board = diagram(rule, &rows, Color::Black);
        let r = search_depth(&board, 6);
        assert_eq!(r.best, board.pos(7, 3), "rule {rule:?}");
    }
}

#[test]
fn blocks_an_open_three() {
    // White has an open three on row 7 and black has no four: black must take an end (or a far end).
    let rows = [
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        ".......X.......",
        "........X......",
        "....OOO........",
        EMPTY15,
        "..........X....",
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
    ];
    let board = diagram(Rule::Freestyle, &rows, Color::Black);
    let r = search_depth(&board, 6);
    let ok: Vec<_> = [(3, 7), (7, 7), (2, 7), (8, 7)]
        .iter()
        .map(|&(x, y)| board.pos(x, y))
        .collect();
    assert!(
        ok.contains(&r.best),
        "got {:?}",
        r.best.map(|b| board.xy(b))
    );
    assert!(!score_is_loss(r.score));
}

#[test]
fn plays_the_five() {
    let rows = [
        EMPTY15,
        EMPTY15,
        EMPTY15,
        "...XXXX........",
        "...OOOO........",
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
    ];
    let board = diagram(Rule::Freestyle, &rows, Color::Black);
    let r = search_depth(&board, 5);
    assert!(r.best == board.pos(2, 3) || r.best == board.pos(7, 3));
    assert!(score_is_win(r.score));
}

/// Plays `board` out with the searcher on both sides at a fixed depth and returns the winner.
fn play_out(mut board: Board, depth: i32, max_moves: usize) -> Option<Color> {
    let mut s = Searcher::new();
    s.set_hash_bytes(1 << 20);
    for _ in 0..max_moves {
        let r = run(
            &mut s,
            &board,
            &Limits {
                max_depth: Some(depth),
                ..Limits::default()
            },
        );
        let best = r.best?;
        assert!(board.is_empty(best));
        if board.side_to_move() == Color::Black {
            assert!(!board.is_forbidden(best), "black played a forbidden point");
        }
        board.play(best);
        if let Some(w) = board.winner() {
            return Some(w);
        }
    }
    None
}

#[test]
fn won_position_is_never_thrown_away() {
    // Black makes an open four from its open three; white's own four only delays, so it must be searched.
    let rows = [
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        ".......XXX.....",
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        "..XOOO.........",
        EMPTY15,
        EMPTY15,
    ];
    for rule in [Rule::Freestyle, Rule::Standard, Rule::Renju] {
        let board = diagram(rule, &rows, Color::Black);
        let r = search_depth(&board, 5);
        assert!(score_is_win(r.score), "rule {rule:?}: score {}", r.score);
        assert_eq!(play_out(board, 5, 30), Some(Color::Black), "rule {rule:?}");
    }
}

#[test]
fn black_never_plays_a_forbidden_point_in_renju() {
    // (7,7) would give black a double three (row 7 and column 7): forbidden, although it is the natural move.
    let rows = [
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
        ".......X.......",
        ".......X.......",
        ".....XX........",
        EMPTY15,
        "....O....O.....",
        "...........O...",
        EMPTY15,
        EMPTY15,
        EMPTY15,
        EMPTY15,
    ];
    let board = diagram(Rule::Renju, &rows, Color::Black);
    let forbidden = board.pos(7, 7).unwrap();
    assert!(board.is_forbidden(forbidden));
    for depth in 1..=5 {
        let r = search_depth(&board, depth);
        let best = r.best.unwrap();
        assert!(!board.is_forbidden(best), "depth {depth}");
    }
    // `play_out` asserts legality on every move; who wins is not the point here.
    let _ = play_out(board, 3, 20);
}

/// A middle-game position for reproducibility tests.
fn middle_game() -> Board {
    let mut board = Board::new(15, 15, Rule::Standard).unwrap();
    for (x, y) in crate::manager::openings::parse_pos_moves("h8i9j10i8i7h9g10j8").unwrap() {
        board.try_play(x, y).unwrap();
    }
    board
}

#[test]
fn reprosearch_same_nodes_after_new_game() {
    let board = middle_game();
    let limits = Limits {
        max_nodes: Some(30_000),
        ..Limits::default()
    };
    let mut s = Searcher::new();
    s.set_hash_bytes(1 << 20);
    let a = run(&mut s, &board, &limits);
    // Search something else in between so the table and history hold different data.
    let other = Board::new(15, 15, Rule::Freestyle).unwrap();
    let _ = run(&mut s, &other, &limits);
    s.new_game();
    let b = run(&mut s, &board, &limits);
    assert_eq!((a.best, a.score, a.nodes), (b.best, b.score, b.nodes));
    // The node limit is exact: the horizon VCF probe's budget is capped by the nodes left.
    assert_eq!(a.nodes, 30_000, "{a:?}");
}

#[test]
fn depth_limited_search_is_deterministic() {
    let board = middle_game();
    let a = search_depth(&board, 5);
    let b = search_depth(&board, 5);
    assert_eq!(a, b);
}

#[test]
fn excluded_moves_are_not_played() {
    let board = middle_game();
    let first = search_depth(&board, 3).best.unwrap();
    let r = search_fresh(
        &board,
        Limits {
            max_depth: Some(3),
            exclude: vec![first],
            ..Limits::default()
        },
    );
    assert_ne!(r.best, Some(first));
    assert!(r.best.is_some());
}

/// The `[x, y]` pairs of the JSON array that follows `"key": ` in `line` (a tiny parser for the puzzle file).
fn json_pairs(line: &str, key: &str) -> Vec<(i64, i64)> {
    let start = line.find(&format!("\"{key}\": [")).expect("key") + key.len() + 5;
    let mut depth = 0;
    let mut end = start;
    for (i, ch) in line[start..].char_indices() {
        match ch {
            '[' => depth += 1,
            ']' if depth == 0 => {
                end = start + i;
                break;
            }
            ']' => depth -= 1,
            _ => {}
        }
    }
    let nums: Vec<i64> = line[start..end]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    nums.chunks(2).map(|c| (c[0], c[1])).collect()
}

#[test]
fn vcf_puzzles_are_won_within_a_node_budget() {
    // The shared VCF set (copied next to the threat solver, see its README): black to move wins by fours.
    let data = include_str!("threat/testdata/vcf-15.jsonl");
    let mut solved = 0;
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let rule = if line.contains("\"valid_standard\": true") {
            Rule::Standard
        } else {
            Rule::Freestyle
        };
        let mut board = Board::new(15, 15, rule).unwrap();
        let black = json_pairs(line, "black");
        let white = json_pairs(line, "white");
        for (b, w) in black.iter().zip(white.iter()) {
            board.try_place(b.0, b.1, Color::Black).unwrap();
            board.try_place(w.0, w.1, Color::White).unwrap();
        }
        assert_eq!(board.side_to_move(), Color::Black);
        assert_eq!(board.move_count(), black.len() + white.len(), "{black:?}");
        let r = search_fresh(
            &board,
            Limits {
                max_nodes: Some(300_000),
                ..Limits::default()
            },
        );
        assert!(score_is_win(r.score), "{line}: {r:?}");
        // The move must keep the win. A VCF move is a four: white's only answer is the block (unless the four
        // is already unstoppable), after which black must still have a VCF.
        let best = r.best.unwrap();
        board.play(best);
        let fives: Vec<Pos> = board
            .candidates()
            .filter(|&p| board.threat(p, Color::Black) == Threat::Five)
            .collect();
        assert!(!fives.is_empty(), "{line}: first move is not a four");
        if fives.len() == 1 && board.threat_count(Color::White, Threat::Five) == 0 {
            board.play(fives[0]);
            let stop = AtomicBool::new(false);
            let again = threat::ThreatSolver::new().vcf(&mut board, 1_000_000, &stop);
            assert!(
                matches!(again, threat::VcfOutcome::Win(_)),
                "{line}: win not kept"
            );
        }
        solved += 1;
    }
    assert_eq!(solved, 40);
}

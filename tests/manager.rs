//! The match runner and its parts: games judged against fake brains (tiny `/bin/sh` scripts run as real child
//! processes), statistics against hand-computed values, openings, records, and the `match` command end to end.

use pentad::board::{Color, Rule};
use pentad::manager::client::{parse_move, Fault};
use pentad::manager::game::{
    play_game, EndReason, EngineKind, EngineSpec, GameResult, GameSettings,
};
use pentad::manager::openings::{parse_openings, parse_pos_moves, Opening, OpeningFormat};
use pentad::manager::record::{parse_psq, psq_string, sgf_string, GameInfo, RecMove};
use pentad::manager::runner::{parse_match_args, parse_sprt, schedule};
use pentad::manager::stats::{
    elo_to_score, gsprt_llr, score_to_elo, Sprt, SprtModel, SprtState, Tally,
};
use std::path::PathBuf;
use std::process::Command;

// ---------------------------------------------------------------------------------------------------------
// Fake brains

/// The fake brain: answers START with OK, and each move request (BEGIN, TURN, the DONE of a BOARD) with the
/// next word of its script. Words: `x,y` answer that move; `msg` print a MESSAGE line first, then the next word;
/// `crash` exit at once; `sleep` go silent (a timeout); `late:x,y` answer after 0.3 s; `say:TEXT` print TEXT
/// (a malformed answer).
const FAKE_BRAIN: &str = r#"
CR=$(printf '\r')
set -- $WORDS
while IFS= read -r line; do
  line=${line%"$CR"}
  case "$line" in
    START*|RECTSTART*|RESTART) echo OK ;;
    BEGIN|TURN*|DONE)
      while :; do
        w=$1; shift
        case "$w" in
          msg) echo "MESSAGE thinking hard"; continue ;;
          crash) exit 3 ;;
          sleep) sleep 3; exit 0 ;;
          late:*) sleep 0.3; echo "${w#late:}" ;;
          say:*) echo "${w#say:}" ;;
          *) echo "$w" ;;
        esac
        break
      done ;;
    END) exit 0 ;;
  esac
done
"#;

/// Writes a fake brain with the given script words; returns its engine spec (run as `/bin/sh FILE`, so no
/// executable bit and no "text file busy" race between parallel tests).
fn fake(name: &str, words: &str) -> EngineSpec {
    let dir = std::env::temp_dir().join(format!("pentad-manager-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.sh"));
    std::fs::write(&path, format!("WORDS='{words}'\n{FAKE_BRAIN}")).unwrap();
    EngineSpec {
        name: name.to_string(),
        kind: EngineKind::Command(vec!["/bin/sh".into(), path.display().to_string()]),
    }
}

fn settings(rule: Rule, size: usize) -> GameSettings {
    GameSettings {
        width: size,
        height: size,
        rule,
        turn_ms: 300,
        match_ms: 0,
        tolerance_ms: 200,
        max_memory: 0,
        draw_after: 0,
        send_delay_ms: 0,
    }
}

fn play(s: &GameSettings, black: &EngineSpec, white: &EngineSpec) -> GameResult {
    play_game(s, black, white, &[], 1, [None, None]).unwrap()
}

// A black five on row 7 (x = 7..=11) against white stones on row 8.
const BLACK_FIVE: &str = "7,7 8,7 9,7 10,7 11,7";
const WHITE_ROW8: &str = "7,8 8,8 9,8 10,8 0,0 2,0";

#[test]
fn normal_win_with_message_lines() {
    let s = settings(Rule::Freestyle, 15);
    let r = play(
        &s,
        &fake("b-win", &format!("msg {BLACK_FIVE}")),
        &fake("w-row8", WHITE_ROW8),
    );
    assert_eq!(r.winner, Some(Color::Black), "{}", r.describe());
    assert_eq!(r.reason, EndReason::Five);
    assert_eq!(r.moves.len(), 9);
    assert_eq!((r.moves[8].x, r.moves[8].y), (11, 7));
    assert_eq!(r.describe(), "black wins (five)");
}

#[test]
fn off_board_and_occupied_moves_lose() {
    let s = settings(Rule::Freestyle, 15);
    let r = play(&s, &fake("b1", BLACK_FIVE), &fake("w-off", "15,3"));
    assert_eq!(
        (r.winner, r.reason),
        (Some(Color::Black), EndReason::OffBoard(15, 3))
    );
    let r = play(&s, &fake("b2", BLACK_FIVE), &fake("w-occ", "7,8 7,7"));
    assert_eq!(
        (r.winner, r.reason),
        (Some(Color::Black), EndReason::Occupied(7, 7))
    );
    assert_eq!(r.moves.len(), 3, "the bad move is not recorded");
    let r = play(&s, &fake("b-neg", "-1,0"), &fake("w3", WHITE_ROW8));
    assert_eq!(
        (r.winner, r.reason),
        (Some(Color::White), EndReason::OffBoard(-1, 0))
    );
}

#[test]
fn crash_loses() {
    let s = settings(Rule::Freestyle, 15);
    let r = play(&s, &fake("b-crash", "7,7 crash"), &fake("w4", WHITE_ROW8));
    assert_eq!(
        (r.winner, r.reason.clone()),
        (Some(Color::White), EndReason::Fault(Fault::Crash))
    );
    assert_eq!(r.moves.len(), 2);
    // Over INFO max_memory after a move (any shell is resident in more than 64 KB) is a loss like a crash.
    let mut s = settings(Rule::Freestyle, 15);
    s.max_memory = 64 * 1024;
    let r = play(&s, &fake("b-mem", BLACK_FIVE), &fake("w-mem", WHITE_ROW8));
    assert_eq!(r.winner, Some(Color::White));
    assert!(
        matches!(r.reason, EndReason::Fault(Fault::Memory(b)) if b > 64 * 1024),
        "{}",
        r.describe()
    );
}

#[test]
fn malformed_answers_lose() {
    let s = settings(Rule::Freestyle, 15);
    let r = play(&s, &fake("b5", BLACK_FIVE), &fake("w-bad", "7,8 say:hello"));
    assert_eq!(r.winner, Some(Color::Black));
    assert_eq!(r.reason, EndReason::Fault(Fault::Malformed("hello".into())));
    // An unsolicited OK while a move is expected loses too (as in Piskvork).
    let r = play(&s, &fake("b-ok", "say:OK"), &fake("w6", WHITE_ROW8));
    assert_eq!(
        (r.winner, r.reason),
        (
            Some(Color::White),
            EndReason::Fault(Fault::Malformed("OK".into()))
        )
    );
    assert_eq!(parse_move("7,7"), Some((7, 7)));
    assert_eq!(parse_move("7 , 8"), Some((7, 8)));
    assert_eq!(parse_move("-1,3"), Some((-1, 3)));
    assert_eq!(
        parse_move("7,7 "),
        None,
        "trailing space (c-gomoku-cli rejects it)"
    );
    assert_eq!(parse_move("7,7,1"), None);
    assert_eq!(parse_move("x,7"), None);
    assert_eq!(parse_move("7"), None);
}

#[test]
fn turn_timeout_and_tolerance() {
    let s = settings(Rule::Freestyle, 15); // 300 ms + 200 ms tolerance
    let r = play(&s, &fake("b7", BLACK_FIVE), &fake("w-sleep", "7,8 sleep"));
    assert_eq!(
        (r.winner, r.reason),
        (Some(Color::Black), EndReason::Fault(Fault::Timeout))
    );
    // Answers 0.3 s late for a 0.1 s turn: within a 1 s tolerance it stands, without tolerance it loses.
    let mut s = settings(Rule::Freestyle, 15);
    s.turn_ms = 100;
    s.tolerance_ms = 1000;
    let r = play(
        &s,
        &fake("b8", BLACK_FIVE),
        &fake("w-late", "late:7,8 8,8 9,8 10,8"),
    );
    assert_eq!((r.winner, r.reason), (Some(Color::Black), EndReason::Five));
    s.tolerance_ms = 0;
    let r = play(
        &s,
        &fake("b9", BLACK_FIVE),
        &fake("w-late2", "late:7,8 8,8 9,8 10,8"),
    );
    assert_eq!(
        (r.winner, r.reason),
        (Some(Color::Black), EndReason::Fault(Fault::Timeout))
    );
}

#[test]
fn match_clock_timeout() {
    // No turn limit, 250 ms for the whole game: a 0.3 s answer spends it (tolerance 0).
    let mut s = settings(Rule::Freestyle, 15);
    s.turn_ms = 0;
    s.match_ms = 250;
    s.tolerance_ms = 0;
    let r = play(&s, &fake("b10", "7,7 late:8,7"), &fake("w11", WHITE_ROW8));
    assert_eq!(
        (r.winner, r.reason),
        (Some(Color::White), EndReason::Fault(Fault::Timeout))
    );
}

/// A brain that drops whatever arrives within 50 ms after its move, answering it with an error line as Rapfi
/// does (`ERROR Unknown command`); it plays the first free point in reading order. Run by bash (`read -t`).
const FRAGILE_BRAIN: &str = r#"
declare -A used
CR=$(printf '\r')
moved=0
next() {
  for ((y = 0; y < 15; y++)); do for ((x = 0; x < 15; x++)); do
    if [[ -z ${used[$x,$y]} ]]; then used[$x,$y]=1; echo "$x,$y"; return; fi
  done; done
}
while :; do
  if ((moved)); then
    moved=0
    if IFS= read -r -t 0.05 line; then echo "ERROR Unknown command: ${line%"$CR"}"; continue; fi
  fi
  IFS= read -r line || exit 0
  line=${line%"$CR"}
  case "$line" in
    START* | RESTART) echo OK ;;
    BEGIN) next; moved=1 ;;
    TURN*) used[${line#TURN }]=1; next; moved=1 ;;
    END) exit 0 ;;
  esac
done
"#;

#[test]
fn send_delay_lets_a_fragile_brain_play() {
    let dir = std::env::temp_dir().join(format!("pentad-manager-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fragile.sh");
    std::fs::write(&path, FRAGILE_BRAIN).unwrap();
    let fragile = EngineSpec {
        name: "fragile".into(),
        kind: EngineKind::Command(vec!["bash".into(), path.display().to_string()]),
    };
    let greedy = EngineSpec {
        name: "greedy".into(),
        kind: EngineKind::Greedy,
    };
    // At once, as Piskvork: the command after the fragile brain's first move is dropped, and its error
    // line loses the game.
    let s = settings(Rule::Freestyle, 15);
    let r = play(&s, &fragile, &greedy);
    assert_eq!(r.winner, Some(Color::White), "{}", r.describe());
    assert!(
        matches!(&r.reason, EndReason::Fault(Fault::Malformed(l)) if l.starts_with("ERROR Unknown command")),
        "{}",
        r.describe()
    );
    assert_eq!(r.moves.len(), 2);
    // With the delay, the game is played out on the board.
    let s = GameSettings {
        send_delay_ms: 150,
        ..s
    };
    let r = play(&s, &fragile, &greedy);
    assert!(r.moves.len() > 2, "{}", r.describe());
    assert!(
        matches!(r.reason, EndReason::Five | EndReason::BoardFull),
        "{}",
        r.describe()
    );
}

#[test]
fn renju_foul_by_black_loses() {
    // Black builds x = 3,4,5 and 7,8,9 on row 7; filling x = 6 makes an overline: forbidden for black.
    let black = "3,7 4,7 5,7 7,7 8,7 9,7 6,7";
    let white = "0,0 2,0 4,0 6,0 8,0 10,0 12,0";
    let r = play(
        &settings(Rule::Renju, 15),
        &fake("b-foul", black),
        &fake("w-far", white),
    );
    assert_eq!(
        (r.winner, r.reason.clone()),
        (Some(Color::White), EndReason::Foul),
        "{}",
        r.describe()
    );
    assert_eq!(r.moves.len(), 13, "the foul stone is recorded");
    // A double three: open threes x = 7..=9 on row 7 and y = 5..=7 on column 9, both made by the stone at 9,7.
    let r = play(
        &settings(Rule::Renju, 15),
        &fake("b-33", "7,7 8,7 9,5 9,6 9,7"),
        &fake("w-far3", white),
    );
    assert_eq!(
        (r.winner, r.reason.clone(), r.moves.len()),
        (Some(Color::White), EndReason::Foul, 9)
    );
    // White may make the same shape.
    let r = play(
        &settings(Rule::Renju, 15),
        &fake("b-far", "0,0 2,0 4,0 6,0 8,0 10,0 12,0"),
        &fake("w-33", "7,7 8,7 9,5 9,6 9,7 10,7 11,7"),
    );
    assert_eq!(
        (r.winner, r.reason.clone()),
        (Some(Color::White), EndReason::Five),
        "{}",
        r.describe()
    );
    // The same overline wins in freestyle.
    let r = play(
        &settings(Rule::Freestyle, 15),
        &fake("b-over", black),
        &fake("w-far2", white),
    );
    assert_eq!((r.winner, r.reason), (Some(Color::Black), EndReason::Five));
}

#[test]
fn caro_five_blocked_at_both_ends_does_not_win() {
    // Black x = 3..=7 on row 7, white at x = 2 and x = 8: blocked at both ends.
    let black = "3,7 4,7 5,7 6,7 7,7";
    let white = "2,7 8,7 0,0 2,0 4,0";
    let mut s = settings(Rule::Caro, 15);
    s.draw_after = 10;
    let r = play(&s, &fake("b-caro", black), &fake("w-caro", white));
    assert_eq!(
        (r.winner, r.reason.clone()),
        (None, EndReason::MoveLimit),
        "{}",
        r.describe()
    );
    assert_eq!(r.moves.len(), 10);
    // The same five wins in freestyle at move 9.
    s.rule = Rule::Freestyle;
    let r = play(&s, &fake("b-caro2", black), &fake("w-caro2", white));
    assert_eq!(
        (r.winner, r.reason, r.moves.len()),
        (Some(Color::Black), EndReason::Five, 9)
    );
}

#[test]
fn full_board_is_a_draw() {
    // 5x5 filled as rows BBWWB / WWBBW / BBWWB / WWBBW / BBWWB: no line of five for either colour.
    let black = "0,0 1,0 4,0 2,1 3,1 0,2 1,2 4,2 2,3 3,3 0,4 1,4 4,4";
    let white = "2,0 3,0 0,1 1,1 4,1 2,2 3,2 0,3 1,3 4,3 2,4 3,4";
    let r = play(
        &settings(Rule::Freestyle, 5),
        &fake("b-full", black),
        &fake("w-full", white),
    );
    assert_eq!(
        (r.winner, r.reason.clone(), r.moves.len()),
        (None, EndReason::BoardFull, 25),
        "{}",
        r.describe()
    );
}

#[test]
fn opening_is_sent_as_board_and_start_failure_loses() {
    // Black owns the opening's black stones; white to move after three stones gets a BOARD.
    let s = settings(Rule::Freestyle, 15);
    let opening = [(0, 14), (14, 14), (1, 14)];
    let r = play_game(
        &s,
        &fake("b-op", "8,7 9,7 10,7 11,7"),
        &fake("w-op", "7,7 7,8 8,8 9,8 10,8"),
        &opening,
        1,
        [None, None],
    )
    .unwrap();
    assert_eq!(r.opening_len, 3);
    // White answers 7,7 first (BOARD), black then 8,7 ...; white's 8,8-row four never completes before black's?
    // Black stones 8,7..11,7 plus nothing at 7,7 (white took it): no black five; white plays 7,8..10,8 = four.
    assert!(r.moves.len() > 3);
    let missing = EngineSpec {
        name: "nope".into(),
        kind: EngineKind::Command(vec!["/nonexistent/pbrain".into()]),
    };
    let r = play(&s, &missing, &fake("w-ok", WHITE_ROW8));
    assert_eq!(r.winner, Some(Color::White));
    assert!(matches!(r.reason, EndReason::Fault(Fault::StartFailed(_))));
}

// ---------------------------------------------------------------------------------------------------------
// Statistics

#[test]
fn elo_interval_and_los_from_known_counts() {
    // 30 wins, 20 losses, 50 draws: score (30 + 25) / 100 = 0.55, Elo = -400 log10(1/0.55 - 1) = 34.860.
    // Per-game variance (30·0.45² + 50·0.05² + 20·0.55²) / 100 = 0.1225, standard error sqrt(0.1225/100) = 0.035;
    // the 95% interval 0.55 ± 1.96·0.035 = [0.48140, 0.61860] is [-12.930, +84.011] Elo: half-width 48.470.
    // LOS = ½(1 + erf((30 - 20) / sqrt(2·50))) = ½(1 + erf(1)) = 0.92135.
    let t = Tally {
        wins: 30,
        losses: 20,
        draws: 50,
        penta: [0; 5],
    };
    let s = t.summary();
    assert_eq!(s.games, 100);
    assert!((s.score - 0.55).abs() < 1e-12);
    assert!((s.elo - 34.860).abs() < 1e-3, "{}", s.elo);
    assert!((s.elo_error - 48.470).abs() < 1e-3, "{}", s.elo_error);
    assert!((s.los - 0.92135).abs() < 1e-5, "{}", s.los);
    // Even results: 0 Elo, LOS one half.
    let even = Tally {
        wins: 10,
        losses: 10,
        draws: 0,
        penta: [0; 5],
    }
    .summary();
    assert!(even.elo.abs() < 1e-9 && (even.los - 0.5).abs() < 1e-9);
    // 3 wins in 4 games: 0.75 is +190.85 Elo.
    assert!((score_to_elo(0.75) - 190.849).abs() < 1e-3);
    assert!((elo_to_score(score_to_elo(0.3)) - 0.3).abs() < 1e-12);
}

#[test]
fn sprt_llr_and_bounds_from_known_counts() {
    let sprt = parse_sprt(&[
        "elo0=0".into(),
        "elo1=5".into(),
        "alpha=0.05".into(),
        "beta=0.05".into(),
    ])
    .unwrap();
    // ln(0.05 / 0.95) and ln(0.95 / 0.05).
    let (lo, hi) = sprt.bounds();
    assert!((lo + 2.944_439).abs() < 1e-6 && (hi - 2.944_439).abs() < 1e-6);
    // Trinomial 30 W, 50 D, 20 L against H0 0 / H1 5 Elo (s0 = 0.5, s1 = 0.507195): the constrained maximum-
    // likelihood distributions give LLR 0.26747 (the normal approximation N(s1-s0)(2m-s0-s1)/(2σ²) gives 0.2725).
    let t = Tally {
        wins: 30,
        losses: 20,
        draws: 50,
        penta: [0; 5],
    };
    let tri = Sprt {
        model: SprtModel::Trinomial,
        ..sprt
    };
    assert!((tri.llr(&t) - 0.267_472).abs() < 1e-4, "{}", tri.llr(&t));
    let wide = Sprt { elo0: -5.0, ..tri };
    assert!((wide.llr(&t) - 0.575_532).abs() < 1e-4, "{}", wide.llr(&t));
    // Pentanomial pairs [LL 5, LD 20, WL+DD 50, WD 15, WW 10]: LLR 0.108945.
    let p = Tally {
        wins: 0,
        losses: 0,
        draws: 0,
        penta: [5, 20, 50, 15, 10],
    };
    assert!((sprt.llr(&p) - 0.108_945).abs() < 1e-4, "{}", sprt.llr(&p));
    // Decisions.
    assert_eq!(sprt.state(3.0), SprtState::AcceptH1);
    assert_eq!(sprt.state(-3.0), SprtState::AcceptH0);
    assert_eq!(sprt.state(0.0), SprtState::Continue);
    // A lopsided result decides; no games give zero.
    let won = Tally {
        wins: 400,
        losses: 100,
        draws: 0,
        penta: [0, 0, 0, 0, 0],
    };
    assert_eq!(tri.state(tri.llr(&won)), SprtState::AcceptH1);
    let lost = Tally {
        wins: 100,
        losses: 400,
        draws: 0,
        penta: [0, 0, 0, 0, 0],
    };
    assert_eq!(tri.state(tri.llr(&lost)), SprtState::AcceptH0);
    assert_eq!(
        gsprt_llr(&[0.0, 0.0, 0.0], &[0.0, 0.5, 1.0], 0.5, 0.51),
        0.0
    );
}

#[test]
fn pairs_are_tallied_pentanomially() {
    let mut t = Tally::default();
    for (a, b) in [(2, 0), (1, 1), (2, 2), (0, 0), (2, 1)] {
        t.add_game(a);
        t.add_game(b);
        t.add_pair(a + b);
    }
    assert_eq!((t.wins, t.losses, t.draws), (4, 3, 3));
    assert_eq!(t.penta, [1, 0, 2, 1, 1]);
    assert_eq!(t.pairs(), 5);
}

// ---------------------------------------------------------------------------------------------------------
// Openings, schedule, records, options

#[test]
fn openings_in_both_formats() {
    assert_eq!(
        parse_pos_moves("h8i9j10").unwrap(),
        vec![(7, 7), (8, 8), (9, 9)]
    );
    let ops = parse_openings("0,0, 1,0, 1,3\n\n# comment\n-1,-1, 2,2\n", None).unwrap();
    assert_eq!(ops.len(), 2);
    assert_eq!(ops[0].stones(15, 15), vec![(7, 7), (8, 7), (8, 10)]);
    assert_eq!(ops[1].stones(20, 20), vec![(9, 9), (12, 12)]);
    let pos = parse_openings("f6g2d1e6\n", Some(OpeningFormat::Pos)).unwrap();
    assert_eq!(
        pos[0],
        Opening::Absolute(vec![(5, 5), (6, 1), (3, 0), (4, 5)])
    );
    assert!(parse_openings("0,0, 1\n", None).is_err());
    assert!(parse_openings("h8i\n", None).is_err());
    // The suites in the repository parse and fit their boards (the Piskvork offsets reach -8: 20x20 only).
    for (text, size, count) in [
        (include_str!("../openings/freestyle-15.txt"), 15, 62),
        (include_str!("../openings/standard-15.txt"), 15, 40),
        (include_str!("../openings/renju-15.txt"), 15, 40),
        (include_str!("../openings/freestyle-20.txt"), 20, 30),
        (include_str!("../openings/piskvork-offset.txt"), 20, 41),
    ] {
        let ops = parse_openings(text, None).unwrap();
        assert_eq!(ops.len(), count);
        for o in &ops {
            for (x, y) in o.stones(size, size) {
                assert!((0..size as i64).contains(&x) && (0..size as i64).contains(&y));
            }
        }
    }
}

#[test]
fn each_opening_twice_with_colours_swapped() {
    let pairs = [(0, 1)];
    let g: Vec<_> = (0..6).map(|k| schedule(k, &pairs, 3)).collect();
    assert_eq!((g[0].black, g[0].white, g[0].opening), (0, 1, 0));
    assert_eq!((g[1].black, g[1].white, g[1].opening), (1, 0, 0));
    assert_eq!((g[2].black, g[2].opening), (0, 1));
    assert_eq!((g[3].black, g[3].opening), (1, 1));
    assert_eq!(g[5].opening, 2);
    assert_eq!(g[4].block, g[5].block);
    let rr = [(0, 1), (0, 2), (1, 2)];
    let s: Vec<_> = (0..6).map(|k| schedule(k, &rr, 2)).collect();
    assert_eq!(
        (s[4].black, s[4].white, s[5].black, s[5].white),
        (1, 2, 2, 1)
    );
}

#[test]
fn psq_and_sgf_records() {
    let moves = [
        RecMove { x: 7, y: 7, ms: 0 },
        RecMove {
            x: 8,
            y: 8,
            ms: 120,
        },
        RecMove { x: 26, y: 0, ms: 5 },
    ];
    let info = GameInfo {
        width: 30,
        height: 20,
        rule_code: 4,
        black: "a",
        white: "b]",
        moves: &moves,
        opening_len: 1,
        black_won: Some(false),
        reason: "white wins (five)",
    };
    let psq = psq_string(&info);
    assert!(psq.starts_with("Piskvorky 30x20, 11:11, 0\n8,8,0\n9,9,120\n27,1,5\na\n"));
    let g = parse_psq(&psq).unwrap();
    assert_eq!(
        (g.width, g.height, g.moves),
        (30, 20, vec![(7, 7), (8, 8), (26, 0)])
    );
    let sgf = sgf_string(&info);
    assert!(sgf.starts_with("(;GM[4]FF[4]"));
    assert!(sgf.contains("SZ[30:20]") && sgf.contains("RU[renju]") && sgf.contains("PW[b\\]]"));
    assert!(sgf.contains(";B[hh]C[end of opening];W[ii];B[Aa])"));
    assert!(sgf.contains("RE[W+]"));
}

#[test]
fn match_options() {
    let args: Vec<String> =
        "--rule renju --size 15 --tc 100 --games 7 --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 \
                             --concurrency 2 --seed 3 ./a ./a greedy"
            .split_whitespace()
            .map(String::from)
            .collect();
    let err = parse_match_args(&args).unwrap_err().to_string();
    assert!(err.contains("exactly two engines"), "{err}");
    let args: Vec<String> =
        "--rule 4 --size 20x15 --tc 100 --draw-after 200 --sprt elo0=-1,elo1=4 model=trinomial \
                             --send-delay 25 new=./a old=./b"
            .split_whitespace()
            .map(String::from)
            .collect();
    let cfg = parse_match_args(&args).unwrap();
    assert_eq!(cfg.settings.rule, Rule::Renju);
    assert_eq!(
        (
            cfg.settings.width,
            cfg.settings.height,
            cfg.settings.draw_after
        ),
        (20, 15, 200)
    );
    assert_eq!(cfg.settings.send_delay_ms, 25);
    let sprt = cfg.sprt.unwrap();
    assert_eq!(
        (sprt.elo0, sprt.elo1, sprt.model),
        (-1.0, 4.0, SprtModel::Trinomial)
    );
    assert_eq!(cfg.engines[0].name, "new");
    assert_eq!(cfg.engines[1].kind, EngineKind::Command(vec!["./b".into()]));
    let cfg = parse_match_args(&["greedy".into(), "greedy".into()]).unwrap();
    assert_eq!(cfg.engines[1].name, "greedy#2");
    assert!(parse_match_args(&[
        "--rule".into(),
        "3".into(),
        "random".into(),
        "greedy".into()
    ])
    .is_err());
}

// ---------------------------------------------------------------------------------------------------------
// The command end to end

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_pbrain-pentad"))
}

#[test]
fn match_command_end_to_end() {
    let dir = std::env::temp_dir().join(format!("pentad-manager-e2e-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let openings = dir.join("ops.txt");
    std::fs::write(&openings, "0,0, 1,1, 3,3\n-2,-2, 4,4, 5,-3\n").unwrap();
    // A fake brain that always answers a bad move next to nothing: loses every game it has to move in.
    let bad = fake("e2e-bad", "say:oops say:oops say:oops say:oops");
    let EngineKind::Command(argv) = &bad.kind else {
        unreachable!()
    };
    let out = Command::new(bin())
        .args([
            "match",
            "--tc",
            "200",
            "--tolerance",
            "200",
            "--games",
            "4",
            "--concurrency",
            "2",
            "--seed",
            "7",
        ])
        .args([
            "--openings",
            openings.to_str().unwrap(),
            "--log",
            "--out",
            dir.join("rec").to_str().unwrap(),
        ])
        .arg("greedy")
        .arg(format!("bad={}", argv.join(" ")))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Score of greedy vs bad: 4 - 0 - 0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Losses by fault, bad: malformed answer 4"),
        "{stdout}"
    );
    let json = stdout.lines().last().unwrap();
    assert!(
        json.starts_with("{\"engines\":[\"greedy\",\"bad\"]"),
        "{json}"
    );
    assert!(json.contains("\"wins\":4,\"losses\":0,\"draws\":0"));
    let rec = dir.join("rec");
    for g in 1..=4 {
        assert!(rec.join(format!("game-{g:04}.psq")).is_file());
        assert!(rec.join(format!("game-{g:04}.sgf")).is_file());
        assert!(rec.join(format!("game-{g:04}-bad.log")).is_file());
    }
    let log = std::fs::read_to_string(rec.join("game-0001-bad.log")).unwrap();
    assert!(
        log.contains("> START 15") && log.contains("> INFO rule 0") && log.contains("< oops"),
        "{log}"
    );
    // Game 1: greedy black, opening of 3 stones, so bad (white) receives the position as a BOARD.
    assert!(
        log.contains("> BOARD") && log.contains("> 7,7,2") && log.contains("> DONE"),
        "{log}"
    );
    assert_eq!(
        std::fs::read_to_string(rec.join("summary.json"))
            .unwrap()
            .trim(),
        json
    );
}

#[test]
fn sprt_stops_the_match_when_decided() {
    // greedy against random wins every game: with wide bounds the SPRT accepts H1 long before 200 games.
    let out = Command::new(bin())
        .args([
            "match",
            "--tc",
            "1000",
            "--games",
            "200",
            "--seed",
            "1",
            "--no-records",
            "--quiet",
        ])
        .args([
            "--sprt",
            "elo0=0",
            "elo1=200",
            "alpha=0.1",
            "beta=0.1",
            "greedy",
            "random",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("-> H1 accepted"), "{stdout}");
    let json = stdout.lines().last().unwrap();
    // The first value of `key` in the summary JSON (the match's own game count comes before the pairs').
    let field = |key: &str| -> f64 {
        json.split(&format!("\"{key}\":"))
            .nth(1)
            .unwrap()
            .split([',', '}'])
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let games = field("games");
    assert!(games < 200.0, "{json}");
    // The verdict's own game count and LLR (a game already handed out when it came still finishes).
    let decided = field("decided_games");
    assert!(decided > 0.0 && decided <= games, "{json}");
    assert!(field("decided_llr") >= field("upper"), "{json}");
}

// ---------------------------------------------------------------------------------------------------------
// play

#[test]
fn play_inputs_parse() {
    use pentad::manager::play::{parse_input, Input};
    assert_eq!(parse_input("h8").unwrap(), Input::Move(7, 7));
    assert_eq!(parse_input(" H10 ").unwrap(), Input::Move(7, 9));
    assert_eq!(parse_input("7,7").unwrap(), Input::Move(7, 7));
    assert_eq!(parse_input("3 4").unwrap(), Input::Move(3, 4));
    assert_eq!(parse_input("undo").unwrap(), Input::Undo);
    assert_eq!(
        parse_input("save my game.psq").unwrap(),
        Input::Save("my game.psq".into())
    );
    assert_eq!(
        parse_input("load g.psq").unwrap(),
        Input::Load("g.psq".into())
    );
    assert!(parse_input("save").is_err());
    assert!(parse_input("h0").is_err());
    assert!(parse_input("hello").is_err());
    assert_eq!(parse_input("").unwrap(), Input::Empty);
}

#[test]
fn play_session_with_undo_save_and_load() {
    let dir = std::env::temp_dir().join(format!("pentad-manager-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("g.psq");
    let f = file.display().to_string();
    let script = format!("h8\nz9\nh8\nundo\nh8\nsave {f}\ni9\nload {f}\nquit\n");
    let args: Vec<String> = ["--engine", "greedy", "--size", "9", "--rule", "standard"]
        .map(String::from)
        .to_vec();
    let mut out = Vec::new();
    pentad::manager::play::play_session(&args, &mut script.as_bytes(), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("you are black (X)"), "{out}");
    assert!(out.contains("z9 is off the board."), "{out}");
    assert!(out.contains("h8 is taken."), "{out}");
    assert!(out.contains("Took back 2 move(s)."), "{out}");
    assert!(out.contains("Saved 2 moves to"), "{out}");
    assert!(out.contains("Loaded 2 moves from"), "{out}");
    assert!(out.contains("     a  b  c  d  e  f  g  h  i"), "{out}");
    let saved =
        pentad::manager::record::parse_psq(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved.moves.len(), 2);
    assert_eq!(saved.moves[0], (7, 7));
}

#[test]
fn play_shows_the_principal_variation_in_board_coordinates() {
    let b = pentad::board::Board::new(15, 15, Rule::Freestyle).unwrap();
    assert_eq!(
        pentad::manager::play::coords_as_names(
            &b,
            "depth 3 eval -12 time 5 pv 7,7 8,6 14,14 15,0 a,b"
        ),
        "depth 3 eval -12 time 5 pv h8 i7 o15 15,0 a,b"
    );
    // Through a real brain: the line it shows after its move names its PV like the board does.
    let args: Vec<String> = ["--engine", &bin().display().to_string(), "--time", "200"]
        .map(String::from)
        .to_vec();
    let mut out = Vec::new();
    pentad::manager::play::play_session(&args, &mut "h8\nquit\n".as_bytes(), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let line = out
        .lines()
        .find(|l| l.contains(" pv "))
        .unwrap_or_else(|| panic!("no PV shown: {out}"));
    let pv: Vec<&str> = line.split(" pv ").nth(1).unwrap().split(' ').collect();
    assert!(!pv.is_empty(), "{line}");
    for m in pv {
        let (col, row) = m.split_at(1);
        assert!(
            col.chars().all(|c| c.is_ascii_lowercase()) && row.parse::<u32>().is_ok(),
            "{line}"
        );
    }
}

#[test]
fn match_stops_when_an_engine_never_starts() {
    let out = Command::new(bin())
        .args([
            "match",
            "--tc",
            "100",
            "--games",
            "40",
            "--no-records",
            "--quiet",
            "greedy",
            "/bin/false",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("engine `false` fails to start"), "{stderr}");
    let out = Command::new(bin())
        .args(["match", "greedy", "./no-such-pbrain"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("engine `./no-such-pbrain` not found"));
}

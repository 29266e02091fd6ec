//! One game between two players, judged like the real managers: brains are fresh child processes (START, the
//! INFO lines, BEGIN/BOARD/TURN, END then kill); a move must arrive within min(turn time, time left) plus the
//! tolerance, be exactly `x,y`, on the board and on an empty point; black's renju fouls lose; a five under the
//! game's rule wins (the board core decides); a full board or the move limit is a draw.

use super::client::{BrainProcess, Fault};
use super::players::{greedy_move, random_move, Rng};
use super::record::RecMove;
use crate::board::{Board, Color, Rule};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// `time_left` sent when there is no match clock (the protocol's "unlimited").
const UNLIMITED_TIME_LEFT: i64 = 2_147_483_647;

/// The minimum time a brain gets to answer `START` (the answer is not charged to its clock).
const START_TIMEOUT_MS: u64 = 5_000;

/// What plays: a brain command line or a built-in baseline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// A pbrain executable and its arguments.
    Command(Vec<String>),
    /// Built-in: a random candidate move.
    Random,
    /// Built-in: the one-ply greedy player.
    Greedy,
}

/// An engine taking part in a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// Display name (unique within a match).
    pub name: String,
    /// What it is.
    pub kind: EngineKind,
}

/// The rules and clocks of every game of a match.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// Board width.
    pub width: usize,
    /// Board height.
    pub height: usize,
    /// The rule.
    pub rule: Rule,
    /// Time per move in ms (0 = no turn limit; then `INFO timeout_turn` is not sent, as c-gomoku-cli does).
    pub turn_ms: u64,
    /// Time per game per player in ms (0 = no limit).
    pub match_ms: u64,
    /// Grace added to every deadline, in ms (Piskvork's default is 1000).
    pub tolerance_ms: u64,
    /// `INFO max_memory` in bytes (0 = no limit); a brain resident above it after a move loses.
    pub max_memory: u64,
    /// Draw when this many stones are on the board (0 = only a full board draws).
    pub draw_after: usize,
    /// Least time in ms between a brain's move and the next command sent to it (0 = at once, as Piskvork).
    pub send_delay_ms: u64,
}

impl Default for GameSettings {
    /// 15x15 freestyle, 1 s per move, no match clock, Piskvork's 1 s tolerance, no memory limit, no early draw.
    fn default() -> Self {
        GameSettings {
            width: 15,
            height: 15,
            rule: Rule::Freestyle,
            turn_ms: 1000,
            match_ms: 0,
            tolerance_ms: 1000,
            max_memory: 0,
            draw_after: 0,
            send_delay_ms: 0,
        }
    }
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// The winner made a five (as the rule counts fives).
    Five,
    /// Black played a renju-forbidden point.
    Foul,
    /// A move off the board.
    OffBoard(i64, i64),
    /// A move on an occupied point.
    Occupied(i64, i64),
    /// The brain itself failed: timeout, crash, malformed answer, failed start.
    Fault(Fault),
    /// No empty point left.
    BoardFull,
    /// The move limit (`draw_after`) was reached.
    MoveLimit,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameResult {
    /// The winner's colour; `None` for a draw.
    pub winner: Option<Color>,
    /// Why it ended.
    pub reason: EndReason,
    /// All moves, opening included.
    pub moves: Vec<RecMove>,
    /// How many of `moves` were the opening.
    pub opening_len: usize,
    /// Whether each player (black, white) started; false = failed to start (only the first failure is scored).
    pub started: [bool; 2],
}

fn colour_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

impl GameResult {
    /// A short human description: "black wins (five)", "white wins (black: timeout)", "draw (board full)".
    pub fn describe(&self) -> String {
        let loser = self.winner.map(|c| colour_name(c.opp()));
        let why = match &self.reason {
            EndReason::Five => "five".to_string(),
            EndReason::Foul => format!("{}: renju foul", loser.unwrap_or("?")),
            EndReason::OffBoard(x, y) => {
                format!("{}: move {x},{y} off the board", loser.unwrap_or("?"))
            }
            EndReason::Occupied(x, y) => format!(
                "{}: move {x},{y} on an occupied point",
                loser.unwrap_or("?")
            ),
            EndReason::Fault(f) => format!("{}: {f}", loser.unwrap_or("?")),
            EndReason::BoardFull => "board full".to_string(),
            EndReason::MoveLimit => "move limit".to_string(),
        };
        match self.winner {
            Some(c) => format!("{} wins ({why})", colour_name(c)),
            None => format!("draw ({why})"),
        }
    }
}

/// A player seated at the board for one game: a brain process spoken to over the protocol, or a built-in.
pub enum Player {
    /// A brain process.
    Process {
        /// The process.
        proc: BrainProcess,
        /// How many of the board's moves the brain knows (its own answers included); `None` after an undo or
        /// a load, so that the next request sends the whole position as a BOARD.
        known: Option<usize>,
        /// Match clock left, in ms.
        time_left_ms: i64,
    },
    /// The built-in random player.
    Random(Rng),
    /// The built-in greedy player.
    Greedy(Rng),
}

/// Deadline for an answer: min(turn time, match time left) + tolerance, from `start`.
pub fn answer_deadline(s: &GameSettings, time_left_ms: i64, start: Instant) -> Option<Instant> {
    let mut limit: Option<i64> = None;
    if s.turn_ms > 0 {
        limit = Some(s.turn_ms as i64);
    }
    if s.match_ms > 0 {
        limit = Some(limit.map_or(time_left_ms, |l| l.min(time_left_ms)));
    }
    limit.map(|l| {
        let ms = l.saturating_add(s.tolerance_ms as i64).max(0) as u64;
        start + Duration::from_millis(ms)
    })
}

impl Player {
    /// Starts a player: for a brain, spawn it, START (or RECTSTART) and wait for OK, then the INFO lines.
    pub fn start(
        spec: &EngineSpec,
        s: &GameSettings,
        seed: u64,
        log: Option<&PathBuf>,
    ) -> Result<Player, Fault> {
        match &spec.kind {
            EngineKind::Random => Ok(Player::Random(Rng::new(seed))),
            EngineKind::Greedy => Ok(Player::Greedy(Rng::new(seed))),
            EngineKind::Command(argv) => {
                let mut proc = BrainProcess::spawn(argv, log.map(|p| p.as_path()))?;
                proc.set_send_delay(Duration::from_millis(s.send_delay_ms));
                let start = if s.width == s.height {
                    format!("START {}", s.width)
                } else {
                    format!("RECTSTART {},{}", s.width, s.height)
                };
                // A brain that exits at once shows up as a broken pipe here: that is a failed start too.
                proc.send(&start)
                    .map_err(|_| Fault::StartFailed("exited before START".into()))?;
                let wait = START_TIMEOUT_MS.max(s.turn_ms) + s.tolerance_ms;
                proc.recv_ok(Some(Instant::now() + Duration::from_millis(wait)))?;
                if s.turn_ms > 0 {
                    proc.send(&format!("INFO timeout_turn {}", s.turn_ms))?;
                }
                proc.send(&format!("INFO timeout_match {}", s.match_ms))?;
                proc.send(&format!("INFO max_memory {}", s.max_memory))?;
                proc.send("INFO game_type 1")?;
                proc.send(&format!("INFO rule {}", s.rule.gomocup_code()))?;
                Ok(Player::Process {
                    proc,
                    known: Some(0),
                    time_left_ms: s.match_ms as i64,
                })
            }
        }
    }

    /// Forgets what the brain knows: the next request sends the whole position (after an undo or a load).
    pub fn resync(&mut self) {
        if let Player::Process { known, .. } = self {
            *known = None;
        }
    }

    /// Asks for a move on `board` (this player's colour is to move). Returns the raw coordinates and the time
    /// used in ms. MESSAGE/DEBUG lines of a brain go to `on_info`.
    pub fn ask(
        &mut self,
        board: &Board,
        s: &GameSettings,
        on_info: &mut dyn FnMut(&str),
    ) -> Result<((i64, i64), u64), Fault> {
        let t0 = Instant::now();
        let greedy = matches!(self, Player::Greedy(_));
        match self {
            Player::Random(rng) | Player::Greedy(rng) => {
                let p = if greedy {
                    greedy_move(board, rng)
                } else {
                    random_move(board, rng)
                };
                let (x, y) = board.xy(p.ok_or(Fault::Crash)?);
                Ok(((x as i64, y as i64), t0.elapsed().as_millis() as u64))
            }
            Player::Process {
                proc,
                known,
                time_left_ms,
            } => {
                let left = if s.match_ms > 0 {
                    *time_left_ms
                } else {
                    UNLIMITED_TIME_LEFT
                };
                proc.send(&format!("INFO time_left {left}"))?;
                let n = board.move_count();
                let me = board.side_to_move();
                if n == 0 && *known == Some(0) {
                    proc.send("BEGIN")?;
                } else if n > 0 && *known == Some(n - 1) {
                    let (x, y) = board.xy(board.moves()[n - 1]);
                    proc.send(&format!("TURN {x},{y}"))?;
                } else {
                    let mut lines = vec!["BOARD".to_string()];
                    for &p in board.moves() {
                        let (x, y) = board.xy(p);
                        let f = if board.stone(p) == Some(me) { 1 } else { 2 };
                        lines.push(format!("{x},{y},{f}"));
                    }
                    lines.push("DONE".to_string());
                    proc.send_block(&lines)?;
                }
                let start = Instant::now();
                let deadline = answer_deadline(s, *time_left_ms, start);
                let mv = proc.recv_move(deadline, on_info)?;
                let used = start.elapsed().as_millis() as u64;
                if s.max_memory > 0 {
                    if let Some(rss) = proc.resident_bytes().filter(|&b| b > s.max_memory) {
                        return Err(Fault::Memory(rss));
                    }
                }
                if s.match_ms > 0 {
                    *time_left_ms = time_left_ms.saturating_sub(used as i64);
                }
                *known = Some(n + 1);
                Ok((mv, used))
            }
        }
    }

    /// Ends the player: END then kill for a brain that behaved, an immediate kill after a fault.
    pub fn finish(self, faulted: bool) {
        if let Player::Process { proc, .. } = self {
            if faulted {
                proc.kill();
            } else {
                proc.quit();
            }
        }
    }
}

/// Places the opening on a fresh board, checking that every stone is on the board, on an empty point, and that
/// the opening does not already contain a five. Used to validate suites before a match.
pub fn opening_board(s: &GameSettings, opening: &[(i64, i64)]) -> anyhow::Result<Board> {
    let mut board = Board::new(s.width, s.height, s.rule)?;
    for &(x, y) in opening {
        board
            .try_play(x, y)
            .map_err(|e| anyhow::anyhow!("opening stone {x},{y}: {e}"))?;
        if board.winner().is_some() {
            anyhow::bail!("opening already contains a five");
        }
    }
    Ok(board)
}

/// Plays one game. `seed` seeds the built-in players; `logs` are the protocol log paths (black, white).
pub fn play_game(
    s: &GameSettings,
    black: &EngineSpec,
    white: &EngineSpec,
    opening: &[(i64, i64)],
    seed: u64,
    logs: [Option<PathBuf>; 2],
) -> anyhow::Result<GameResult> {
    let mut board = opening_board(s, opening)?;
    let mut moves: Vec<RecMove> = board
        .moves()
        .iter()
        .map(|&p| {
            let (x, y) = board.xy(p);
            RecMove { x, y, ms: 0 }
        })
        .collect();
    let opening_len = moves.len();
    let result = |winner, reason, moves: Vec<RecMove>| GameResult {
        winner,
        reason,
        moves,
        opening_len,
        started: [true, true],
    };

    // Both players start before the first move, black first (as Piskvork does).
    let b = Player::start(black, s, seed, logs[0].as_ref());
    let w = Player::start(white, s, seed ^ 0x5555_5555_5555_5555, logs[1].as_ref());
    let started = [b.is_ok(), w.is_ok()];
    let (b, w) = match (b, w) {
        (Ok(b), Ok(w)) => (b, w),
        (Err(f), other) => {
            if let Ok(w) = other {
                w.finish(false);
            }
            let mut r = result(Some(Color::White), EndReason::Fault(f), moves);
            r.started = started;
            return Ok(r);
        }
        (Ok(b), Err(f)) => {
            b.finish(false);
            let mut r = result(Some(Color::Black), EndReason::Fault(f), moves);
            r.started = started;
            return Ok(r);
        }
    };
    let mut seats = [Some(b), Some(w)];
    let mut faulted = [false, false];

    let (winner, reason) = loop {
        if board.is_full() {
            break (None, EndReason::BoardFull);
        }
        if s.draw_after > 0 && board.move_count() >= s.draw_after {
            break (None, EndReason::MoveLimit);
        }
        let me = board.side_to_move();
        let seat = seats[me.index()]
            .as_mut()
            .expect("seat present during the game");
        let ((x, y), ms) = match seat.ask(&board, s, &mut |_| {}) {
            Ok(a) => a,
            Err(f) => {
                faulted[me.index()] = true;
                break (Some(me.opp()), EndReason::Fault(f));
            }
        };
        let Some(p) = board.pos(x, y) else {
            break (Some(me.opp()), EndReason::OffBoard(x, y));
        };
        if !board.is_empty(p) {
            break (Some(me.opp()), EndReason::Occupied(x, y));
        }
        let forbidden = board.rule() == Rule::Renju && me == Color::Black && board.is_forbidden(p);
        board.play(p);
        moves.push(RecMove {
            x: x as usize,
            y: y as usize,
            ms,
        });
        // A five takes precedence over a forbidden pattern made by the same stone (renju rule).
        if board.winner() == Some(me) {
            break (Some(me), EndReason::Five);
        }
        if forbidden {
            break (Some(Color::White), EndReason::Foul);
        }
    };
    for c in [Color::Black, Color::White] {
        if let Some(seat) = seats[c.index()].take() {
            seat.finish(faulted[c.index()]);
        }
    }
    Ok(result(winner, reason, moves))
}

//! The reference model of a brain session: what the answer to each command must be.
//!
//! It keeps its own game state (size, rule, stones with their colours, pending `INFO` problems)
//! and, for each command, checks the brain's answer lines (`MESSAGE`/`DEBUG` removed): the
//! number of lines, their kind (`OK`, `ERROR`, `UNKNOWN`, the `ABOUT` line, a move, ...), and for
//! moves that they are legal `x,y` points (on the board, empty, not a renju foul for black). It
//! then applies the brain's move, so the next command is judged against the real game. Bad input
//! must leave the state as it was, which the model checks by simply not changing its own.
//!
//! The rules are the protocol's (docs/gomocup-protocol.md) plus the session's documented choices:
//! `BOARD` makes the brain black when both sides have as many stones (else white), walls
//! (field 3) count as occupied, an `INFO` problem is reported as `ERROR` before the answer to the
//! next non-`INFO` command, `TAKEBACK` may remove any stone.

use crate::board::{Board, Color, Rule};
use crate::engine::MIN_MEMORY_BYTES;
use crate::protocol::command::{BoardStone, Command, Field, Info};

/// Board sides the brain accepts.
const SIDES: std::ops::RangeInclusive<i64> = 5..=32;

/// What the model knows of the session.
#[derive(Clone, Debug)]
pub struct Model {
    dims: Option<(i64, i64)>,
    rule: Rule,
    /// Stones in placement order, with colours (walls as the colour the session gives them).
    stones: Vec<(i64, i64, Color)>,
    /// An INFO problem that must be reported (as ERROR) before the next answer.
    info_pending: bool,
    /// Over pipes the model cannot know whether a STOP was absorbed by a search: be lenient
    /// about when a pending INFO problem shows up.
    lenient: bool,
    /// The session ended (END): nothing may follow.
    ended: bool,
}

/// One command's verdict.
pub type Verdict = Result<(), String>;

impl Model {
    /// A fresh session (no game yet). `lenient`: see the field.
    pub fn new(lenient: bool) -> Model {
        Model {
            dims: None,
            rule: Rule::Freestyle,
            stones: Vec::new(),
            info_pending: false,
            lenient,
            ended: false,
        }
    }

    /// Board size, if a game was started.
    pub fn dims(&self) -> Option<(i64, i64)> {
        self.dims
    }

    /// The stones, in order, without colours (for the generator's hints).
    pub fn stone_points(&self) -> Vec<(i64, i64)> {
        self.stones.iter().map(|&(x, y, _)| (x, y)).collect()
    }

    /// Whether END was seen.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The model's board (a fresh core board with the stones placed in order).
    pub fn board(&self) -> Option<Board> {
        let (w, h) = self.dims?;
        let mut b = Board::new(w as usize, h as usize, self.rule).ok()?;
        for &(x, y, c) in &self.stones {
            b.try_place(x, y, c).ok()?;
        }
        Some(b)
    }

    fn on_board(&self, x: i64, y: i64) -> bool {
        self.dims
            .is_some_and(|(w, h)| (0..w).contains(&x) && (0..h).contains(&y))
    }

    fn occupied(&self, x: i64, y: i64) -> bool {
        self.stones.iter().any(|&(sx, sy, _)| sx == x && sy == y)
    }

    fn side_to_move(&self) -> Color {
        self.stones.last().map_or(Color::Black, |s| s.2.opp())
    }

    fn full(&self) -> bool {
        self.dims
            .is_some_and(|(w, h)| self.stones.len() as i64 >= w * h)
    }

    /// The effect of an INFO line (no answer).
    fn info(&mut self, info: &Info) {
        match *info {
            Info::Rule(code) => match Rule::from_gomocup(code) {
                Some(r) => self.rule = r,
                None => self.info_pending = true,
            },
            Info::MaxMemory(m) if m < 0 || (m > 0 && m < MIN_MEMORY_BYTES) => {
                self.info_pending = true
            }
            _ => {}
        }
    }

    /// Checks the answer `lines` (MESSAGE/DEBUG already removed) to `cmd`, which the session
    /// executed (not absorbed), and updates the state. `lines` must hold at least the answer;
    /// returns how many lines it used.
    pub fn check(&mut self, cmd: &Command, lines: &[String]) -> Result<usize, String> {
        if self.ended {
            return Err(format!("{cmd:?} after END"));
        }
        let mut used = 0;
        match cmd {
            Command::Info(info) => {
                self.info(info);
                return Ok(0);
            }
            Command::BadInfo(_) => {
                self.info_pending = true;
                return Ok(0);
            }
            Command::End => {
                self.ended = true;
                return Ok(0);
            }
            _ => {}
        }
        // A pending INFO problem is reported first, as an ERROR line of its own.
        if self.info_pending {
            let first_err = lines.first().is_some_and(|l| l.starts_with("ERROR "));
            if !self.lenient {
                if !first_err {
                    return Err(format!(
                        "a pending INFO problem was not reported before the answer to {cmd:?}: {:?}",
                        lines.first()
                    ));
                }
                used = 1;
                self.info_pending = false;
            } else {
                // Over pipes a STOP may or may not have been absorbed by a search: the report
                // may come at any later command; tell it from the command's own ERROR. Every other
                // command, silent ones (YXHASHCLEAR, YXBOARD) included, is executed and reports it.
                let own_err =
                    self.expected_error(cmd) == Some(true) && !matches!(cmd, Command::Unknown(_));
                let second_err = lines.get(1).is_some_and(|l| l.starts_with("ERROR "));
                let may_be_absorbed = matches!(cmd, Command::Stop | Command::YxStop);
                if first_err && !may_be_absorbed && (!own_err || second_err) {
                    used = 1;
                    self.info_pending = false;
                }
            }
        }
        let rest = &lines[used..];
        let n = self.answer(cmd, rest)?;
        Ok(used + n)
    }

    /// Commands answered with nothing at all.
    fn is_silent(&self, cmd: &Command) -> bool {
        match cmd {
            Command::Stop | Command::YxStop | Command::YxHashClear => true,
            Command::YxBoard(_) => self.expected_error(cmd) == Some(false),
            _ => false,
        }
    }

    /// Some(true) if `cmd` must be answered with ERROR/UNKNOWN, Some(false) if it must not be,
    /// None if either may happen. Silent commands are Some(false).
    fn expected_error(&self, cmd: &Command) -> Option<bool> {
        let game = self.dims.is_some();
        Some(match cmd {
            Command::Invalid(_) | Command::Unknown(_) => true,
            Command::Start(n) => !SIDES.contains(n),
            Command::RectStart(w, h) => !(SIDES.contains(w) && SIDES.contains(h)),
            Command::Restart => !game,
            Command::Begin => !game || !self.stones.is_empty(),
            Command::Turn(x, y) | Command::Play(x, y) => {
                !game || !self.on_board(*x, *y) || self.occupied(*x, *y) || {
                    // A TURN that fills the board leaves nothing to answer.
                    matches!(cmd, Command::Turn(..)) && self.stones.len() as i64 + 1 >= self.area()
                }
            }
            Command::Takeback(x, y) => !game || !self.occupied(*x, *y),
            Command::Board(s) => {
                !game || self.position(s).is_err() || {
                    let n = s.len() as i64;
                    n >= self.area()
                }
            }
            Command::YxBoard(s) => !game || self.position(s).is_err(),
            Command::Swap2Board(s) => {
                !game || !matches!(s.len(), 0 | 3 | 5) || self.swap2(s).is_err()
            }
            Command::YxNbest(_) => !game || self.full(),
            Command::YxShowForbid => !game,
            _ => false,
        })
    }

    fn area(&self) -> i64 {
        self.dims.map_or(0, |(w, h)| w * h)
    }

    /// The stones of a BOARD block with the colours the session gives them, in placing order;
    /// Err if the block cannot be a position.
    fn position(&self, stones: &[BoardStone]) -> Result<Vec<(i64, i64, Color)>, String> {
        let own_n = stones.iter().filter(|s| s.field == Field::Own).count();
        let opp_n = stones.iter().filter(|s| s.field == Field::Opponent).count();
        let own = if own_n == opp_n {
            Color::Black
        } else {
            Color::White
        };
        let mut order: Vec<(i64, i64, Color)> = Vec::new();
        for s in stones.iter().filter(|s| s.field == Field::Wall) {
            order.push((s.x, s.y, own.opp()));
        }
        for s in stones.iter().filter(|s| s.field != Field::Wall) {
            order.push((
                s.x,
                s.y,
                if s.field == Field::Own {
                    own
                } else {
                    own.opp()
                },
            ));
        }
        match order.iter().rposition(|s| s.2 != own) {
            Some(i) => {
                let last = order.remove(i);
                order.push(last);
            }
            None if !order.is_empty() => return Err("only own stones".into()),
            None => {}
        }
        for (i, &(x, y, _)) in order.iter().enumerate() {
            if !self.on_board(x, y) {
                return Err(format!("{x},{y} off the board"));
            }
            if order[..i].iter().any(|&(a, b, _)| a == x && b == y) {
                return Err(format!("{x},{y} twice"));
            }
        }
        Ok(order)
    }

    fn swap2(&self, stones: &[(i64, i64)]) -> Result<Vec<(i64, i64, Color)>, String> {
        let mut out: Vec<(i64, i64, Color)> = Vec::new();
        for (i, &(x, y)) in stones.iter().enumerate() {
            if !self.on_board(x, y) || out.iter().any(|&(a, b, _)| a == x && b == y) {
                return Err(format!("bad swap2 stone {x},{y}"));
            }
            out.push((
                x,
                y,
                if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                },
            ));
        }
        Ok(out)
    }

    /// Checks a move line against the current position and plays it (as the side to move).
    fn take_move(&mut self, line: &str) -> Verdict {
        let (x, y) =
            parse_move(line).ok_or_else(|| format!("answer {line:?} is not a move x,y"))?;
        if !self.on_board(x, y) {
            return Err(format!("move {line} is off the {:?} board", self.dims));
        }
        if self.occupied(x, y) {
            return Err(format!("move {line} is on an occupied point"));
        }
        let c = self.side_to_move();
        if self.rule == Rule::Renju && c == Color::Black {
            if let Some(b) = self.board() {
                let p = b.pos(x, y).ok_or("off board")?;
                if b.is_forbidden(p) {
                    return Err(format!("move {line} is a renju foul for black"));
                }
            }
        }
        self.stones.push((x, y, c));
        Ok(())
    }

    /// Whether the side to move has any legal point (renju fouls excluded).
    fn has_legal_point(&self) -> bool {
        let Some(b) = self.board() else {
            return false;
        };
        let black = b.side_to_move() == Color::Black && self.rule == Rule::Renju;
        (0..b.height() as i64).any(|y| {
            (0..b.width() as i64).any(|x| {
                b.pos(x, y)
                    .is_some_and(|p| b.is_empty(p) && !(black && b.is_forbidden(p)))
            })
        })
    }

    /// A think's answer: a legal move (or, only when no legal point exists, an ERROR).
    fn think_answer(&mut self, line: &str) -> Verdict {
        if line.starts_with("ERROR ") && !self.has_legal_point() {
            return Ok(());
        }
        self.take_move(line)
    }

    fn answer(&mut self, cmd: &Command, lines: &[String]) -> Result<usize, String> {
        if self.is_silent(cmd) {
            if let Command::YxBoard(s) = cmd {
                self.stones = self.position(s)?;
            }
            return Ok(0);
        }
        let line = lines
            .first()
            .ok_or_else(|| format!("no answer to {cmd:?}"))?
            .as_str();
        let err = line.starts_with("ERROR ");
        match self.expected_error(cmd) {
            Some(true) => {
                let want = if matches!(cmd, Command::Unknown(_)) {
                    "UNKNOWN "
                } else {
                    "ERROR "
                };
                if !line.starts_with(want) {
                    return Err(format!("{cmd:?} must be answered {want}..., got {line:?}"));
                }
                // Bad input changes nothing, except a TURN or BOARD that filled the board: the
                // position stands, there is just no move to answer.
                match cmd {
                    Command::Turn(x, y) if self.on_board(*x, *y) && !self.occupied(*x, *y) => {
                        let c = self.side_to_move();
                        self.stones.push((*x, *y, c));
                    }
                    Command::Board(s) if self.dims.is_some() => {
                        if let Ok(p) = self.position(s) {
                            self.stones = p;
                        }
                    }
                    _ => {}
                }
                return Ok(1);
            }
            Some(false) | None => {
                if err
                    && !matches!(
                        cmd,
                        Command::Begin
                            | Command::Turn(..)
                            | Command::Board(_)
                            | Command::YxNbest(_)
                            | Command::Swap2Board(_)
                    )
                {
                    return Err(format!("{cmd:?} must not be an error, got {line:?}"));
                }
            }
        }
        match cmd {
            Command::Start(n) => self.expect_ok(line, || (*n, *n)),
            Command::RectStart(w, h) => self.expect_ok(line, || (*w, *h)),
            Command::Restart => {
                let d = self.dims.unwrap_or((15, 15));
                self.expect_ok(line, || d)
            }
            Command::Takeback(x, y) => {
                if line != "OK" {
                    return Err(format!("TAKEBACK {x},{y} answered {line:?}"));
                }
                self.stones.retain(|&(sx, sy, _)| !(sx == *x && sy == *y));
                Ok(1)
            }
            Command::Play(x, y) => {
                if *line != format!("{x},{y}") {
                    return Err(format!("PLAY {x},{y} answered {line:?}"));
                }
                let c = self.side_to_move();
                self.stones.push((*x, *y, c));
                Ok(1)
            }
            Command::About => {
                if !line.starts_with("name=\"") {
                    return Err(format!("ABOUT answered {line:?}"));
                }
                Ok(1)
            }
            Command::YxShowForbid => {
                if !(line.starts_with("FORBID ") && line.ends_with('.')) {
                    return Err(format!("YXSHOWFORBID answered {line:?}"));
                }
                Ok(1)
            }
            Command::Begin | Command::YxNbest(_) => self.think_answer(line).map(|_| 1),
            Command::Turn(x, y) => {
                let c = self.side_to_move();
                self.stones.push((*x, *y, c));
                self.think_answer(line).map(|_| 1)
            }
            Command::Board(s) => {
                self.stones = self.position(s)?;
                self.think_answer(line).map(|_| 1)
            }
            Command::Swap2Board(s) if s.is_empty() => {
                let moves: Vec<(i64, i64)> = line.split(' ').filter_map(parse_move).collect();
                if moves.len() != 3 || line.split(' ').count() != 3 {
                    return Err(format!("SWAP2BOARD (empty) answered {line:?}"));
                }
                for (i, &(x, y)) in moves.iter().enumerate() {
                    if !self.on_board(x, y) || moves[..i].contains(&(x, y)) {
                        return Err(format!(
                            "SWAP2BOARD opening {line:?} is not 3 distinct points on the board"
                        ));
                    }
                }
                Ok(1)
            }
            Command::Swap2Board(s) => {
                self.stones = self.swap2(s)?;
                if line == "SWAP" {
                    return Ok(1);
                }
                let words: Vec<&str> = line.split(' ').collect();
                if words.len() > 2 {
                    return Err(format!("SWAP2BOARD answered {line:?}"));
                }
                for w in words {
                    self.think_answer(w)?;
                }
                Ok(1)
            }
            other => Err(format!(
                "the model has no rule for {other:?} (answered {line:?})"
            )),
        }
    }

    fn expect_ok(
        &mut self,
        line: &str,
        dims: impl FnOnce() -> (i64, i64),
    ) -> Result<usize, String> {
        if line != "OK" {
            return Err(format!("expected OK, got {line:?}"));
        }
        self.dims = Some(dims());
        self.stones.clear();
        Ok(1)
    }
}

/// Parses an answer that must be exactly `x,y` (two unsigned decimal numbers, nothing else).
pub fn parse_move(s: &str) -> Option<(i64, i64)> {
    let (a, b) = s.split_once(',')?;
    let ok = |t: &str| !t.is_empty() && t.len() <= 4 && t.bytes().all(|c| c.is_ascii_digit());
    if !ok(a) || !ok(b) {
        return None;
    }
    Some((a.parse().ok()?, b.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// The model must catch what the fuzzer hunts for, or a quiet run would prove nothing.
    #[test]
    fn model_rejects_wrong_answers() {
        let mut m = Model::new(false);
        assert!(m
            .check(&Command::Turn(7, 7), &lines(&["ERROR no game"]))
            .is_ok());
        assert!(m.check(&Command::Turn(7, 7), &lines(&["7,7"])).is_err());
        let mut m = Model::new(false);
        assert_eq!(m.check(&Command::Start(15), &lines(&["OK"])), Ok(1));
        // A move on the opponent's stone, off the board, or not exactly x,y.
        for bad in [
            "7,7", "15,3", "7,7 ", " 8,8", "8, 8", "-1,3", "OK", "ERROR x",
        ] {
            let mut m2 = m.clone();
            assert!(
                m2.check(&Command::Turn(7, 7), &lines(&[bad])).is_err(),
                "{bad}"
            );
        }
        assert_eq!(m.check(&Command::Turn(7, 7), &lines(&["8,8"])), Ok(1));
        // Our own stone is occupied too; bad input must be an ERROR, not silence or a move.
        assert!(m
            .clone()
            .check(&Command::Turn(8, 8), &lines(&["9,9"]))
            .is_err());
        assert!(m.clone().check(&Command::Turn(8, 8), &lines(&[])).is_err());
        assert_eq!(
            m.check(&Command::Turn(8, 8), &lines(&["ERROR occupied"])),
            Ok(1)
        );
        assert!(m
            .clone()
            .check(&Command::Unknown("x".into()), &lines(&["ERROR x"]))
            .is_err());
        assert!(m
            .clone()
            .check(&Command::Invalid("x".into()), &lines(&["OK"]))
            .is_err());
        // A deferred INFO problem must come before the next answer.
        assert_eq!(m.check(&Command::BadInfo("x".into()), &lines(&[])), Ok(0));
        assert!(m
            .clone()
            .check(&Command::About, &lines(&["name=\"P\""]))
            .is_err());
        assert_eq!(
            m.check(&Command::About, &lines(&["ERROR x", "name=\"P\""])),
            Ok(2)
        );
        // TAKEBACK of an older stone, then that point is free again.
        assert_eq!(m.check(&Command::Takeback(7, 7), &lines(&["OK"])), Ok(1));
        assert_eq!(m.check(&Command::Turn(7, 7), &lines(&["9,9"])), Ok(1));
        assert_eq!(m.stone_points(), vec![(8, 8), (7, 7), (9, 9)]);
    }

    #[test]
    fn model_knows_renju_fouls() {
        let mut m = Model::new(false);
        m.check(&Command::Start(15), &lines(&["OK"])).unwrap();
        m.check(&Command::Info(Info::Rule(4)), &[]).unwrap();
        // Black (own, to move with equal counts) has two open twos crossing at 7,7: a double three.
        let s = |x, y, f| BoardStone { x, y, field: f };
        let pos = vec![
            s(5, 7, Field::Own),
            s(0, 0, Field::Opponent),
            s(6, 7, Field::Own),
            s(0, 14, Field::Opponent),
            s(7, 5, Field::Own),
            s(14, 0, Field::Opponent),
            s(7, 6, Field::Own),
            s(14, 14, Field::Opponent),
        ];
        assert!(m
            .clone()
            .check(&Command::Board(pos.clone()), &lines(&["7,7"]))
            .is_err());
        assert_eq!(m.check(&Command::Board(pos), &lines(&["4,7"])), Ok(1));
    }
}

//! The self-play game file: a header, then one self-checking record per game.
//!
//! ```text
//! header   "PNTDGAME" u8 version (1)
//! record   u8 0xA5, u8 rule (Gomocup code), u8 width, u8 height, u8 result (0 black won, 1 white won, 2 draw),
//!          u16 moves, u16 opening plies (random, not searched), then per move u8 x, u8 y, i16 score (the
//!          search's, for the side that played it; 0 for opening plies), then u32 FNV-1a of the record's
//!          bytes before it
//! ```
//! All numbers little-endian. A record is written with one `write_all` of its whole bytes, so a file cut short
//! by an interrupted `selfplay` holds every record reported as written; the reader names the file and the
//! record of anything it cannot read.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{bail, Context};

use crate::board::{Board, Color, Rule};

/// File header.
pub const MAGIC: &[u8; 8] = b"PNTDGAME";
/// Format version after the header.
pub const VERSION: u8 = 1;
/// First byte of every record.
const RECORD_TAG: u8 = 0xA5;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// This colour made five.
    Won(Color),
    /// The board filled up (or the move cap was reached) without a five.
    Draw,
}

impl Outcome {
    /// The score of the game for `c`: 1 won, 0 lost, 0.5 drawn.
    pub fn score_for(self, c: Color) -> f64 {
        match self {
            Outcome::Won(w) if w == c => 1.0,
            Outcome::Won(_) => 0.0,
            Outcome::Draw => 0.5,
        }
    }
}

/// One self-play game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The rule it was played under.
    pub rule: Rule,
    /// Board width.
    pub width: u8,
    /// Board height.
    pub height: u8,
    /// The result.
    pub outcome: Outcome,
    /// Moves in play order, black first: `(x, y, score)` with the search's score for the mover.
    pub moves: Vec<(u8, u8, i16)>,
    /// How many of the first moves were the random opening (not searched).
    pub opening: u16,
}

/// FNV-1a, 32 bits.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811C_9DC5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

impl GameRecord {
    /// The record's bytes, checksum included.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(13 + 4 * self.moves.len());
        v.push(RECORD_TAG);
        v.push(self.rule.gomocup_code());
        v.push(self.width);
        v.push(self.height);
        v.push(match self.outcome {
            Outcome::Won(Color::Black) => 0,
            Outcome::Won(Color::White) => 1,
            Outcome::Draw => 2,
        });
        v.extend_from_slice(&(self.moves.len() as u16).to_le_bytes());
        v.extend_from_slice(&self.opening.to_le_bytes());
        for &(x, y, s) in &self.moves {
            v.push(x);
            v.push(y);
            v.extend_from_slice(&s.to_le_bytes());
        }
        let h = fnv1a(&v);
        v.extend_from_slice(&h.to_le_bytes());
        v
    }

    /// Replays the game on a new board, calling `at` with the board before each move and the move's index.
    /// Fails if a move is off the board or on a stone.
    pub fn replay(&self, mut at: impl FnMut(&Board, usize)) -> anyhow::Result<()> {
        let mut board = Board::new(self.width.into(), self.height.into(), self.rule)?;
        for (i, &(x, y, _)) in self.moves.iter().enumerate() {
            at(&board, i);
            board
                .try_play(x.into(), y.into())
                .map_err(|e| anyhow::anyhow!("move {} ({x},{y}): {e:?}", i + 1))?;
        }
        Ok(())
    }
}

/// Writes a new game file's header.
pub fn write_header(out: &mut impl Write) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    out.write_all(&[VERSION])
}

/// Reads every record of the game file at `path`; any fault is an error naming the file and the record.
pub fn read_games(path: &Path) -> anyhow::Result<Vec<GameRecord>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .with_context(|| format!("{}: cannot read", path.display()))?;
    parse_games(&bytes).with_context(|| format!("{}", path.display()))
}

/// Parses a whole game file (see the module docs).
pub fn parse_games(bytes: &[u8]) -> anyhow::Result<Vec<GameRecord>> {
    if bytes.is_empty() {
        bail!("empty file: not a Pentad game file");
    }
    if bytes.len() < 9 || &bytes[..8] != MAGIC {
        bail!("not a Pentad game file (no PNTDGAME header)");
    }
    if bytes[8] != VERSION {
        bail!(
            "game file version {} (this build reads {VERSION})",
            bytes[8]
        );
    }
    let mut games = Vec::new();
    let mut at = 9;
    while at < bytes.len() {
        let n = games.len() + 1;
        let rest = &bytes[at..];
        let (g, len) = parse_record(rest).with_context(|| format!("record {n} (byte {at})"))?;
        games.push(g);
        at += len;
    }
    if games.is_empty() {
        bail!("no games in the file");
    }
    Ok(games)
}

/// Parses one record at the start of `b`; returns it and its length in bytes.
fn parse_record(b: &[u8]) -> anyhow::Result<(GameRecord, usize)> {
    if b.len() < 9 {
        bail!("truncated: {} bytes where a record starts", b.len());
    }
    if b[0] != RECORD_TAG {
        bail!("no record tag (corrupt file)");
    }
    let rule = Rule::from_gomocup(b[1].into()).with_context(|| format!("unknown rule {}", b[1]))?;
    let (width, height) = (b[2], b[3]);
    if !(5..=32).contains(&width) || !(5..=32).contains(&height) {
        bail!("board {width}x{height} out of range");
    }
    let outcome = match b[4] {
        0 => Outcome::Won(Color::Black),
        1 => Outcome::Won(Color::White),
        2 => Outcome::Draw,
        r => bail!("unknown result {r}"),
    };
    let n = u16::from_le_bytes([b[5], b[6]]) as usize;
    let opening = u16::from_le_bytes([b[7], b[8]]);
    let len = 9 + 4 * n + 4;
    if b.len() < len {
        bail!("truncated: {} of {len} bytes", b.len());
    }
    let sum = u32::from_le_bytes([b[len - 4], b[len - 3], b[len - 2], b[len - 1]]);
    if fnv1a(&b[..len - 4]) != sum {
        bail!("checksum mismatch (corrupt record)");
    }
    let moves = b[9..len - 4]
        .chunks_exact(4)
        .map(|m| (m[0], m[1], i16::from_le_bytes([m[2], m[3]])))
        .collect();
    let g = GameRecord {
        rule,
        width,
        height,
        outcome,
        moves,
        opening,
    };
    Ok((g, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GameRecord {
        GameRecord {
            rule: Rule::Renju,
            width: 15,
            height: 15,
            outcome: Outcome::Won(Color::White),
            moves: vec![(7, 7, 0), (8, 8, 0), (9, 9, -120), (6, 6, 300)],
            opening: 2,
        }
    }

    fn file(games: &[GameRecord]) -> Vec<u8> {
        let mut v = Vec::new();
        write_header(&mut v).expect("in memory");
        for g in games {
            v.extend(g.to_bytes());
        }
        v
    }

    #[test]
    fn records_round_trip() {
        let mut b = sample();
        b.outcome = Outcome::Draw;
        b.rule = Rule::CaroExact;
        let games = vec![sample(), b];
        assert_eq!(parse_games(&file(&games)).expect("reads"), games);
    }

    #[test]
    fn truncated_foreign_and_empty_files_are_named_errors() {
        let games = vec![sample(), sample(), sample()];
        let bytes = file(&games);
        let cut = &bytes[..bytes.len() - 3];
        let e = format!("{:#}", parse_games(cut).unwrap_err());
        assert!(e.contains("record 3") && e.contains("truncated"), "{e}");
        let mut flipped = bytes.clone();
        flipped[9 + 12] ^= 1;
        let e = format!("{:#}", parse_games(&flipped).unwrap_err());
        assert!(e.contains("record 1") && e.contains("checksum"), "{e}");
        let e = format!("{:#}", parse_games(b"").unwrap_err());
        assert!(e.contains("empty"), "{e}");
        let e = format!("{:#}", parse_games(b"PK\x03\x04 a zip file").unwrap_err());
        assert!(e.contains("not a Pentad game file"), "{e}");
        let e = format!("{:#}", parse_games(&bytes[..9]).unwrap_err());
        assert!(e.contains("no games"), "{e}");
        let dir = std::env::temp_dir().join(format!("pentad-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("cut.bin");
        std::fs::write(&path, cut).expect("write");
        let e = format!("{:#}", read_games(&path).unwrap_err());
        assert!(e.contains("cut.bin") && e.contains("record 3"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn replay_reports_illegal_moves() {
        let mut g = sample();
        let mut seen = 0;
        g.replay(|_, _| seen += 1).expect("legal game");
        assert_eq!(seen, 4);
        g.moves[3] = (7, 7, 0);
        let e = format!("{:#}", g.replay(|_, _| {}).unwrap_err());
        assert!(e.contains("move 4"), "{e}");
    }
}

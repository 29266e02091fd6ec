//! Game records: Piskvork `.psq` (written and read) and SGF (written).
//!
//! `.psq` as Piskvork saves it: a header `Piskvorky WxH, 11:11, 0`, then one `x,y,ms` line per move with
//! 1-based coordinates and the thinking time, then the players' names. SGF uses `GM[4]` (Gomoku) with
//! letter coordinates from the top-left corner (a = 0; after z come A–Z, as `FF[4]` allows).

use anyhow::{bail, Context};

/// One move of a record: 0-based coordinates and the time spent on it in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecMove {
    /// Column, 0-based.
    pub x: usize,
    /// Row, 0-based (0 = top).
    pub y: usize,
    /// Thinking time in ms (0 for opening stones and built-in players).
    pub ms: u64,
}

/// Everything a record file needs to know about a game.
#[derive(Clone, Debug)]
pub struct GameInfo<'a> {
    /// Board width.
    pub width: usize,
    /// Board height.
    pub height: usize,
    /// Gomocup rule code (0, 1, 4, 8, 9).
    pub rule_code: u8,
    /// Name of the player with black.
    pub black: &'a str,
    /// Name of the player with white.
    pub white: &'a str,
    /// All moves, opening stones included, black first.
    pub moves: &'a [RecMove],
    /// Number of leading moves that were the opening.
    pub opening_len: usize,
    /// `Some(true)` black won, `Some(false)` white won, `None` draw or unfinished.
    pub black_won: Option<bool>,
    /// Why the game ended, in words.
    pub reason: &'a str,
}

/// The Piskvork `.psq` text of a game.
pub fn psq_string(g: &GameInfo) -> String {
    let mut s = format!("Piskvorky {}x{}, 11:11, 0\n", g.width, g.height);
    for m in g.moves {
        s.push_str(&format!("{},{},{}\n", m.x + 1, m.y + 1, m.ms));
    }
    s.push_str(&format!("{}\n{}\n", g.black, g.white));
    s.push_str(&format!("-1\n; {}\n", g.reason));
    s
}

/// A game read back from a `.psq` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PsqGame {
    /// Board width.
    pub width: usize,
    /// Board height.
    pub height: usize,
    /// Moves, 0-based, black first.
    pub moves: Vec<(usize, usize)>,
}

/// Reads a `.psq` text: the board size and the moves (0-based). Reading stops at the first line that is not a
/// move, so Piskvork's trailer lines are skipped.
pub fn parse_psq(text: &str) -> anyhow::Result<PsqGame> {
    let mut lines = text.lines();
    let header = lines.next().context("empty .psq file")?;
    let size = header
        .split(|c: char| c.is_whitespace() || c == ',')
        .find(|t| t.contains('x'))
        .context("no WxH size in the .psq header")?;
    let (w, h) = size.split_once('x').context("bad size")?;
    let (w, h): (usize, usize) = (w.trim().parse()?, h.trim().parse()?);
    let mut moves = Vec::new();
    for line in lines {
        let parts: Vec<&str> = line.trim().split(',').collect();
        if parts.len() < 2 || parts.len() > 3 {
            break;
        }
        let (Ok(x), Ok(y)) = (
            parts[0].trim().parse::<usize>(),
            parts[1].trim().parse::<usize>(),
        ) else {
            break;
        };
        if x == 0 || y == 0 || x > w || y > h {
            bail!("move {x},{y} is off the {w}x{h} board");
        }
        moves.push((x - 1, y - 1));
    }
    Ok(PsqGame {
        width: w,
        height: h,
        moves,
    })
}

/// An SGF coordinate letter: a–z, then A–Z.
fn sgf_letter(v: usize) -> char {
    if v < 26 {
        (b'a' + v as u8) as char
    } else {
        (b'A' + (v - 26) as u8) as char
    }
}

/// Escapes `]` and `\` in an SGF text value.
fn sgf_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace(']', "\\]")
}

/// Rule name for SGF's RU property and the summaries.
pub fn rule_name(code: u8) -> &'static str {
    match code {
        0 => "freestyle",
        1 => "standard",
        4 => "renju",
        8 => "caro",
        9 => "caro-exact",
        _ => "unknown",
    }
}

/// The SGF text of a game.
pub fn sgf_string(g: &GameInfo) -> String {
    let size = if g.width == g.height {
        format!("{}", g.width)
    } else {
        format!("{}:{}", g.width, g.height)
    };
    let re = match g.black_won {
        Some(true) => "B+".to_string(),
        Some(false) => "W+".to_string(),
        None => "0".to_string(),
    };
    let mut s = format!(
        "(;GM[4]FF[4]CA[UTF-8]AP[Pentad]SZ[{size}]RU[{}]PB[{}]PW[{}]RE[{re}]C[{}]",
        rule_name(g.rule_code),
        sgf_escape(g.black),
        sgf_escape(g.white),
        sgf_escape(g.reason)
    );
    for (i, m) in g.moves.iter().enumerate() {
        let colour = if i % 2 == 0 { 'B' } else { 'W' };
        s.push_str(&format!(
            ";{colour}[{}{}]",
            sgf_letter(m.x),
            sgf_letter(m.y)
        ));
        if i + 1 == g.opening_len {
            s.push_str("C[end of opening]");
        }
    }
    s.push_str(")\n");
    s
}

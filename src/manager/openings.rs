//! Opening suites: the "offset" format (`dx,dy, dx,dy, …` relative to the centre, Piskvork and Gomocup) and the
//! "pos" format (`h8i9j10`: a letter for x, a = 0, then the row number y + 1). Black moves first in both.

use anyhow::{bail, Context};

/// One opening: stones in play order, black first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opening {
    /// Offsets from the centre (width/2, height/2).
    Offset(Vec<(i64, i64)>),
    /// Absolute coordinates.
    Absolute(Vec<(i64, i64)>),
}

impl Opening {
    /// The stones' absolute coordinates on a `width`×`height` board (not checked against the board).
    pub fn stones(&self, width: usize, height: usize) -> Vec<(i64, i64)> {
        match self {
            Opening::Offset(v) => {
                let (cx, cy) = ((width / 2) as i64, (height / 2) as i64);
                v.iter().map(|&(dx, dy)| (cx + dx, cy + dy)).collect()
            }
            Opening::Absolute(v) => v.clone(),
        }
    }

    /// Number of stones.
    pub fn len(&self) -> usize {
        match self {
            Opening::Offset(v) | Opening::Absolute(v) => v.len(),
        }
    }

    /// True for an opening without stones.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Which text format an openings file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningFormat {
    /// `dx,dy, dx,dy, …`
    Offset,
    /// `h8i9j10`
    Pos,
}

/// Parses one line in the offset format: an even number of integers separated by commas and/or spaces.
pub fn parse_offset_line(line: &str) -> anyhow::Result<Opening> {
    let nums: Vec<i64> = line
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| {
            t.parse::<i64>()
                .with_context(|| format!("bad number `{t}`"))
        })
        .collect::<anyhow::Result<_>>()?;
    if !nums.len().is_multiple_of(2) {
        bail!("odd number of coordinates");
    }
    Ok(Opening::Offset(
        nums.chunks(2).map(|c| (c[0], c[1])).collect(),
    ))
}

/// Parses one move list in the pos format (`h8i9j10`, letters case-insensitive; spaces allowed between moves).
pub fn parse_pos_line(line: &str) -> anyhow::Result<Opening> {
    Ok(Opening::Absolute(parse_pos_moves(line)?))
}

/// Parses a pos-format move list into 0-based (x, y) pairs.
pub fn parse_pos_moves(s: &str) -> anyhow::Result<Vec<(i64, i64)>> {
    let chars: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i].to_ascii_lowercase();
        if !c.is_ascii_lowercase() {
            bail!(
                "expected a column letter at `{}`",
                chars[i..].iter().collect::<String>()
            );
        }
        let x = i64::from(c as u8 - b'a');
        i += 1;
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        if start == i {
            bail!("column `{c}` has no row number");
        }
        let row: i64 = chars[start..i].iter().collect::<String>().parse()?;
        if row < 1 {
            bail!("row numbers start at 1");
        }
        out.push((x, row - 1));
    }
    Ok(out)
}

/// Guesses the format of a file's text: offset if its first opening line has a comma.
pub fn detect_format(text: &str) -> OpeningFormat {
    match text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
    {
        Some(l) if l.contains(',') => OpeningFormat::Offset,
        _ => OpeningFormat::Pos,
    }
}

/// Parses a whole openings file (one opening a line; empty lines and `#` comments skipped).
pub fn parse_openings(text: &str, format: Option<OpeningFormat>) -> anyhow::Result<Vec<Opening>> {
    let format = format.unwrap_or_else(|| detect_format(text));
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let op = match format {
            OpeningFormat::Offset => parse_offset_line(line),
            OpeningFormat::Pos => parse_pos_line(line),
        }
        .with_context(|| format!("openings line {}: `{line}`", n + 1))?;
        out.push(op);
    }
    Ok(out)
}

/// Formats a move as in the pos format and in `play` (`h8`).
pub fn move_name(x: usize, y: usize) -> String {
    if x < 26 {
        format!("{}{}", (b'a' + x as u8) as char, y + 1)
    } else {
        format!("{x},{y}")
    }
}

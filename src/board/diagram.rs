//! ASCII board diagrams: `X`/`x` black, `O`/`o` white, anything else an empty cell (`.`, `+`, or a letter used
//! as a mark). Whitespace separates nothing: every other character on a non-blank line is one cell.

use super::{Board, Color, Rule};

/// Parses the non-blank lines of a diagram into rows of cell characters.
fn rows(text: &str) -> Vec<Vec<char>> {
    text.lines()
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
        .filter(|r| !r.is_empty())
        .collect()
}

/// Marked cells of a diagram: every character other than `X x O o . + -`, with its (x, y).
pub fn diagram_marks(text: &str) -> Vec<(char, usize, usize)> {
    let mut out = Vec::new();
    for (y, row) in rows(text).iter().enumerate() {
        for (x, &ch) in row.iter().enumerate() {
            if !matches!(ch, 'X' | 'x' | 'O' | 'o' | '.' | '+' | '-') {
                out.push((ch, x, y));
            }
        }
    }
    out
}

impl Board {
    /// Builds a board from an ASCII diagram (size from the diagram). Stones are placed alternately black,
    /// white, … in reading order (the surplus colour last), so black is to move when the counts are equal.
    pub fn from_diagram(text: &str, rule: Rule) -> anyhow::Result<Board> {
        let rows = rows(text);
        let h = rows.len();
        let w = rows.first().map_or(0, Vec::len);
        if rows.iter().any(|r| r.len() != w) {
            anyhow::bail!("diagram rows differ in length");
        }
        let mut b = Board::new(w, h, rule)?;
        let mut blacks = Vec::new();
        let mut whites = Vec::new();
        for (y, row) in rows.iter().enumerate() {
            for (x, &ch) in row.iter().enumerate() {
                match ch {
                    'X' | 'x' => blacks.push((x, y)),
                    'O' | 'o' => whites.push((x, y)),
                    _ => {}
                }
            }
        }
        for i in 0..blacks.len().max(whites.len()) {
            for (list, c) in [(&blacks, Color::Black), (&whites, Color::White)] {
                if let Some(&(x, y)) = list.get(i) {
                    b.try_place(x as i64, y as i64, c)?;
                }
            }
        }
        Ok(b)
    }

    /// The board as a diagram (`X` black, `O` white, `.` empty), one row per line.
    pub fn to_diagram(&self) -> String {
        let mut s = String::new();
        for y in 0..self.height {
            for x in 0..self.width {
                let p = self.idx(x, y) as super::Pos;
                s.push(match self.stone(p) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                });
                s.push(' ');
            }
            s.pop();
            s.push('\n');
        }
        s
    }
}

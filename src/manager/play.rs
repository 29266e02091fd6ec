//! `pbrain-pentad play`: a person plays a brain in the terminal. The brain is driven through the same protocol
//! client as in matches (so any pbrain can be the opponent); the human types moves as `h8` or `7,7`.

use super::game::{EngineKind, EngineSpec, GameSettings, Player};
use super::openings::move_name;
use super::record::{parse_psq, psq_string, rule_name, GameInfo, RecMove};
use super::runner::{parse_engine, parse_rule, parse_size};
use crate::board::{Board, Color, Pos, Rule};
use anyhow::{bail, Context};
use std::io::{BufRead, Write};

/// Usage text of `pbrain-pentad play`.
pub const PLAY_USAGE: &str = "\
usage: pbrain-pentad play [options]

  --engine CMD     the opponent: a pbrain command (default: this binary as a brain), or greedy / random
  --color C        black or white: the colour you play (default black; black moves first)
  --rule R         0 freestyle, 1 standard, 4 renju, 8 caro, 9 caro exact (or the names); default 0
  --size N | WxH   board size, default 15
  --time MS        the brain's time per move in ms, default 1000
  --load FILE      start from a saved game (.psq)

While playing, type a move as h8 (column letter, row number) or 7,7 (x,y from 0), or a command:
  undo             take back your last move and the brain's reply
  save FILE        save the game as a Piskvork .psq file
  load FILE        load a .psq game (the brain gets the position as a BOARD)
  new              start a new game
  help             this list
  quit             leave
";

/// A parsed human input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A move, 0-based.
    Move(i64, i64),
    /// Take back a move pair.
    Undo,
    /// Save to a file.
    Save(String),
    /// Load from a file.
    Load(String),
    /// A new game.
    New,
    /// Show the commands.
    Help,
    /// Leave.
    Quit,
    /// Nothing (empty line).
    Empty,
}

/// Parses one line typed by the player: `h8`, `H8`, `7,7`, `7 7`, or a command.
pub fn parse_input(line: &str) -> anyhow::Result<Input> {
    let t = line.trim();
    let (word, rest) = t
        .split_once(char::is_whitespace)
        .map_or((t, ""), |(w, r)| (w, r.trim()));
    let file = |what: &str| -> anyhow::Result<String> {
        if rest.is_empty() {
            bail!("{what} needs a file name, e.g. `{what} game.psq`");
        }
        Ok(rest.to_string())
    };
    Ok(match word.to_ascii_lowercase().as_str() {
        "" => Input::Empty,
        "undo" | "u" | "takeback" => Input::Undo,
        "save" => Input::Save(file("save")?),
        "load" => Input::Load(file("load")?),
        "new" => Input::New,
        "help" | "h" | "?" => Input::Help,
        "quit" | "q" | "exit" => Input::Quit,
        _ => {
            let nums: Vec<&str> = t.split([',', ' ']).filter(|s| !s.is_empty()).collect();
            if nums.len() == 2 {
                let (x, y) = (nums[0].parse::<i64>(), nums[1].parse::<i64>());
                if let (Ok(x), Ok(y)) = (x, y) {
                    return Ok(Input::Move(x, y));
                }
            }
            let mut chars = t.chars();
            let c = chars.next().unwrap_or(' ').to_ascii_lowercase();
            let row: String = chars.collect();
            match (c.is_ascii_lowercase(), row.parse::<i64>()) {
                (true, Ok(r)) if r >= 1 => Input::Move(i64::from(c as u8 - b'a'), r - 1),
                _ => bail!("not a move or command: `{t}` (type help)"),
            }
        }
    })
}

/// The board as text: column letters on top, row numbers on the left, the last stone in brackets.
pub fn render(board: &Board) -> String {
    let (w, h) = (board.width(), board.height());
    let col = |x: usize| -> char {
        if x < 26 {
            (b'a' + x as u8) as char
        } else {
            (b'A' + (x - 26) as u8) as char
        }
    };
    let mut s = String::from("    ");
    for x in 0..w {
        s.push_str(&format!(" {} ", col(x)));
    }
    s.push('\n');
    let last = board.last_move();
    for y in 0..h {
        s.push_str(&format!("{:>3} ", y + 1));
        for x in 0..w {
            let p = board.pos(x as i64, y as i64).expect("on board");
            let c = match board.stone(p) {
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
                None => '.',
            };
            if Some(p) == last {
                s.push_str(&format!("[{c}]"));
            } else {
                s.push_str(&format!(" {c} "));
            }
        }
        s.push_str(&format!(" {}\n", y + 1));
    }
    s
}

fn colour_word(c: Color) -> &'static str {
    match c {
        Color::Black => "black (X)",
        Color::White => "white (O)",
    }
}

fn name_of(board: &Board, p: Pos) -> String {
    let (x, y) = board.xy(p);
    move_name(x, y)
}

/// `text` with every word that is a point `x,y` of the board written as on the board (`h8`), so that a
/// brain's principal variation reads in the board's coordinates.
pub fn coords_as_names(board: &Board, text: &str) -> String {
    text.split(' ')
        .map(|w| {
            let p = w
                .split_once(',')
                .and_then(|(x, y)| board.pos(x.parse().ok()?, y.parse().ok()?));
            match p {
                Some(p) if w.bytes().all(|b| b.is_ascii_digit() || b == b',') => name_of(board, p),
                _ => w.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The state of a `play` session.
struct Session {
    settings: GameSettings,
    engine: EngineSpec,
    human: Color,
    board: Board,
    player: Option<Player>,
    times: Vec<u64>,
    over: bool,
}

impl Session {
    fn start_player(&mut self) -> anyhow::Result<()> {
        if let Some(p) = self.player.take() {
            p.finish(false);
        }
        let p = Player::start(&self.engine, &self.settings, 1, None)
            .map_err(|f| anyhow::anyhow!("could not start the brain: {f}"))?;
        self.player = Some(p);
        Ok(())
    }

    fn new_board(&mut self) -> anyhow::Result<()> {
        self.board = Board::new(
            self.settings.width,
            self.settings.height,
            self.settings.rule,
        )?;
        self.times.clear();
        self.over = false;
        Ok(())
    }

    /// Checks the end of the game after a move; prints and returns true if it is over.
    fn check_end(&mut self, out: &mut dyn Write) -> anyhow::Result<bool> {
        if let Some(w) = self.board.winner() {
            let who = if w == self.human {
                "You win"
            } else {
                "The brain wins"
            };
            writeln!(out, "{who}: five for {}.", colour_word(w))?;
            self.over = true;
        } else if self.board.is_full() {
            writeln!(out, "Draw: the board is full.")?;
            self.over = true;
        }
        Ok(self.over)
    }

    /// Lets the brain move and judges its answer (a fault, an illegal move or a renju foul ends the game).
    fn brain_move(&mut self, out: &mut dyn Write) -> anyhow::Result<()> {
        writeln!(out, "{} is thinking ...", self.engine.name)?;
        out.flush()?;
        let player = self.player.as_mut().context("no brain")?;
        let mut messages = Vec::new();
        let answer = player.ask(&self.board, &self.settings, &mut |m| {
            messages.push(m.to_string())
        });
        // Brains send a MESSAGE per search iteration: the last one is the summary worth showing.
        if let Some(m) = messages
            .iter()
            .rev()
            .find(|m| m.to_ascii_uppercase().starts_with("MESSAGE"))
        {
            let text = coords_as_names(&self.board, m[7..].trim());
            writeln!(out, "  {}: {text}", self.engine.name)?;
        }
        let ((x, y), ms) = match answer {
            Ok(a) => a,
            Err(f) => {
                writeln!(out, "The brain lost by fault: {f}. You win.")?;
                self.over = true;
                if let Some(p) = self.player.take() {
                    p.finish(true);
                }
                return Ok(());
            }
        };
        let me = self.board.side_to_move();
        let Some(p) = self.board.pos(x, y).filter(|&p| self.board.is_empty(p)) else {
            writeln!(out, "The brain played an illegal move {x},{y}. You win.")?;
            self.over = true;
            return Ok(());
        };
        let forbidden =
            self.board.rule() == Rule::Renju && me == Color::Black && self.board.is_forbidden(p);
        self.board.play(p);
        self.times.push(ms);
        writeln!(
            out,
            "{} plays {} ({x},{y}) in {:.1} s",
            self.engine.name,
            name_of(&self.board, p),
            ms as f64 / 1000.0
        )?;
        if self.board.winner().is_none() && forbidden {
            writeln!(
                out,
                "That is a renju foul (forbidden point for black). You win."
            )?;
            self.over = true;
            return Ok(());
        }
        self.check_end(out)?;
        Ok(())
    }
}

/// Runs `pbrain-pentad play` on the terminal.
pub fn run_play(args: &[String]) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout();
    play_session(args, &mut input, &mut out)
}

/// The `play` session over any input and output (tests drive it with text).
pub fn play_session(
    args: &[String],
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    crate::cli::check_flags(args, PLAY_USAGE)?;
    let mut settings = GameSettings::default();
    let mut engine: Option<EngineSpec> = None;
    let mut human = Color::Black;
    let mut load: Option<String> = None;
    let mut i = 0;
    let mut parse = || -> anyhow::Result<()> {
        while i < args.len() {
            let a = args[i].as_str();
            let mut val = || -> anyhow::Result<String> {
                i += 1;
                args.get(i)
                    .cloned()
                    .with_context(|| format!("{a} needs a value"))
            };
            match a {
                "--engine" => engine = Some(parse_engine(&val()?)?),
                "--color" | "--colour" => {
                    human = match val()?.to_ascii_lowercase().as_str() {
                        "black" | "b" | "x" => Color::Black,
                        "white" | "w" | "o" => Color::White,
                        c => bail!("--color must be black or white, not `{c}`"),
                    }
                }
                "--rule" => settings.rule = parse_rule(&val()?)?,
                "--size" => (settings.width, settings.height) = parse_size(&val()?)?,
                "--time" => settings.turn_ms = val()?.parse()?,
                "--load" => load = Some(val()?),
                _ => bail!("unknown option `{a}`"),
            }
            i += 1;
        }
        Ok(())
    };
    parse().map_err(|e| crate::cli::usage_error(format!("{e:#}"), PLAY_USAGE))?;
    let engine = match engine {
        Some(e) => e,
        None => {
            let me = std::env::current_exe().context("locating this binary")?;
            EngineSpec {
                name: "Pentad".into(),
                kind: EngineKind::Command(vec![me.display().to_string()]),
            }
        }
    };
    let board = Board::new(settings.width, settings.height, settings.rule)?;
    let mut s = Session {
        settings,
        engine,
        human,
        board,
        player: None,
        times: Vec::new(),
        over: false,
    };
    s.start_player()?;
    writeln!(
        out,
        "Pentad play: {} {}x{}, you are {}, {} has {} ms per move. Type help for commands.",
        rule_name(s.settings.rule.gomocup_code()),
        s.settings.width,
        s.settings.height,
        colour_word(s.human),
        s.engine.name,
        s.settings.turn_ms
    )?;
    if let Some(f) = load {
        load_game(&mut s, &f, out)?;
    }
    loop {
        if !s.over && s.board.side_to_move() != s.human {
            s.brain_move(out)?;
            continue;
        }
        write!(out, "{}", render(&s.board))?;
        if s.over {
            write!(out, "Game over. undo, save FILE, new or quit> ")?;
        } else {
            write!(
                out,
                "Move {}: you are {} > ",
                s.board.move_count() + 1,
                colour_word(s.human)
            )?;
        }
        out.flush()?;
        let mut line = String::new();
        let asked = std::time::Instant::now();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            break;
        }
        let cmd = match parse_input(&line) {
            Ok(c) => c,
            Err(e) => {
                writeln!(out, "{e}")?;
                continue;
            }
        };
        match cmd {
            Input::Empty => {}
            Input::Help => write!(out, "{PLAY_USAGE}")?,
            Input::Quit => break,
            Input::New => {
                s.new_board()?;
                s.start_player()?;
                writeln!(out, "New game.")?;
            }
            Input::Undo => undo(&mut s, out)?,
            Input::Save(f) => match std::fs::write(&f, psq_text(&s)) {
                Ok(()) => writeln!(out, "Saved {} moves to {f}.", s.board.move_count())?,
                Err(e) => writeln!(out, "Could not save {f}: {e}")?,
            },
            Input::Load(f) => {
                if let Err(e) = load_game(&mut s, &f, out) {
                    writeln!(out, "Could not load {f}: {e:#}")?;
                }
            }
            Input::Move(x, y) => {
                if s.over {
                    writeln!(out, "The game is over: undo, new or quit.")?;
                    continue;
                }
                let Some(p) = s.board.pos(x, y) else {
                    writeln!(out, "{} is off the board.", line.trim())?;
                    continue;
                };
                if !s.board.is_empty(p) {
                    writeln!(out, "{} is taken.", name_of(&s.board, p))?;
                    continue;
                }
                if s.board.rule() == Rule::Renju
                    && s.human == Color::Black
                    && s.board.is_forbidden(p)
                {
                    s.board.play(p);
                    let five = s.board.winner().is_some();
                    s.board.undo();
                    if !five {
                        writeln!(out, "{} is forbidden for black under renju (double three, double four or overline).", name_of(&s.board, p))?;
                        continue;
                    }
                }
                s.board.play(p);
                s.times.push(asked.elapsed().as_millis() as u64);
                s.check_end(out)?;
            }
        }
    }
    if let Some(p) = s.player.take() {
        p.finish(false);
    }
    Ok(())
}

/// Takes back moves until it is the human's turn again with one human move fewer.
fn undo(s: &mut Session, out: &mut dyn Write) -> anyhow::Result<()> {
    let n = s.board.move_count();
    // The human's most recent stone: the last move if it is theirs, else the one before.
    let last_human = (0..n).rev().find(|&i| {
        let colour = if i % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        colour == s.human
    });
    let Some(k) = last_human else {
        writeln!(out, "Nothing of yours to take back.")?;
        return Ok(());
    };
    while s.board.move_count() > k {
        s.board.undo();
        s.times.pop();
    }
    s.over = false;
    if s.player.is_none() {
        s.start_player()?;
    }
    if let Some(p) = s.player.as_mut() {
        p.resync();
    }
    writeln!(out, "Took back {} move(s).", n - k)?;
    Ok(())
}

fn psq_text(s: &Session) -> String {
    let moves: Vec<RecMove> = s
        .board
        .moves()
        .iter()
        .zip(s.times.iter().chain(std::iter::repeat(&0)))
        .map(|(&p, &ms)| {
            let (x, y) = s.board.xy(p);
            RecMove { x, y, ms }
        })
        .collect();
    let (b, w) = if s.human == Color::Black {
        ("human", s.engine.name.as_str())
    } else {
        (s.engine.name.as_str(), "human")
    };
    let black_won = s.board.winner().map(|c| c == Color::Black);
    psq_string(&GameInfo {
        width: s.board.width(),
        height: s.board.height(),
        rule_code: s.board.rule().gomocup_code(),
        black: b,
        white: w,
        moves: &moves,
        opening_len: 0,
        black_won,
        reason: "saved by pbrain-pentad play",
    })
}

fn load_game(s: &mut Session, file: &str, out: &mut dyn Write) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file)?;
    let g = parse_psq(&text)?;
    let mut board = Board::new(g.width, g.height, s.settings.rule)?;
    for &(x, y) in &g.moves {
        board
            .try_play(x as i64, y as i64)
            .map_err(|e| anyhow::anyhow!("move {}: {e}", move_name(x, y)))?;
    }
    let resize = (g.width, g.height) != (s.settings.width, s.settings.height);
    s.settings.width = g.width;
    s.settings.height = g.height;
    s.board = board;
    s.times = vec![0; g.moves.len()];
    s.over = false;
    if resize || s.player.is_none() {
        s.start_player()?;
    }
    if let Some(p) = s.player.as_mut() {
        p.resync();
    }
    writeln!(out, "Loaded {} moves from {file}.", g.moves.len())?;
    s.check_end(out)?;
    Ok(())
}

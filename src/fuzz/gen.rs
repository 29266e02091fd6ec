//! The structure-aware input generator: protocol lines as a careless user or a broken manager
//! would send them.
//!
//! Each call to [`Generator::item`] makes one *item*: a command line, a whole block
//! (`BOARD` … `DONE`), or a deliberately broken variant of one. Well-formed items carry the
//! commands the parser must turn them into ([`Expect::Exact`]); items broken in a way whose outcome
//! is certain carry [`Expect::Bad`]; random byte damage carries [`Expect::Any`] (only the
//! robustness properties apply). Coordinates are drawn near the stones the session already has
//! (from [`Hints`]) so that occupied points, takebacks of old stones and full boards really happen.

use crate::manager::players::Rng;
use crate::protocol::command::{BoardStone, Command, Field, Info, MAX_BLOCK_LINES};

/// What the parser must make of an item's lines.
#[derive(Clone, Debug)]
pub enum Expect {
    /// Exactly these commands (`Invalid`/`Unknown`/`BadInfo` match by kind, not by message).
    Exact(Vec<Command>),
    /// Exactly one command, and it is `Invalid`, `Unknown` or `BadInfo`.
    Bad,
    /// Anything, as long as nothing panics and everything stays bounded.
    Any,
}

/// One generated unit of input.
#[derive(Clone, Debug)]
pub struct Item {
    /// Raw input lines without their `\n` (they may hold `\r`, invalid UTF-8, anything).
    pub lines: Vec<Vec<u8>>,
    /// What the parser must make of them.
    pub expect: Expect,
}

/// What the generator knows about the game it is talking to (empty for the parser target).
#[derive(Clone, Debug, Default)]
pub struct Hints {
    /// Board size of the running game, if any.
    pub size: Option<(i64, i64)>,
    /// Stones on the board, in the order they were placed.
    pub stones: Vec<(i64, i64)>,
}

/// Board sides worth trying: the real ones, the limits, and nonsense.
const SIZES: [i64; 16] = [
    15,
    20,
    15,
    20,
    5,
    32,
    6,
    19,
    0,
    1,
    4,
    33,
    100_000,
    -1,
    i64::MAX,
    i64::MIN,
];

/// Numbers that break careless arithmetic.
const EVIL: [i64; 12] = [
    0,
    -1,
    1,
    i64::MAX,
    i64::MIN,
    i64::MAX - 1,
    i64::MIN + 1,
    i32::MAX as i64,
    i32::MIN as i64,
    u32::MAX as i64,
    65_535,
    65_536,
];

/// INFO keys a manager sends, plus extensions and made-up ones.
const INFO_KEYS: [&str; 16] = [
    "timeout_turn",
    "timeout_match",
    "time_left",
    "max_memory",
    "game_type",
    "rule",
    "evaluate",
    "folder",
    "thread_num",
    "max_depth",
    "max_node",
    "hash_size",
    "show_detail",
    "pondering",
    "strength",
    "caution_factor",
];

/// Words that are no command at all.
const JUNK_WORDS: [&str; 10] = [
    "SUGGEST",
    "HELLO",
    "7,7",
    "BOARDS",
    "TURNX",
    "ST",
    "",
    "ÄBOUT",
    "INF0",
    "B\u{0}EGIN",
];

/// The generator: seeded, deterministic.
pub struct Generator {
    rng: Rng,
    /// Whether megabyte lines and oversized blocks may be made (slow targets turn them down).
    big: bool,
}

impl Generator {
    /// A generator from a seed. `big` allows megabyte lines and blocks past the size limit.
    pub fn new(seed: u64, big: bool) -> Generator {
        Generator {
            rng: Rng::new(seed),
            big,
        }
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.rng.below(n)
    }

    /// Any byte but `\n` (a line never holds its own terminator).
    fn byte(&mut self) -> u8 {
        match self.rng.below(256) as u8 {
            b'\n' => b'\r',
            b => b,
        }
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.rng.below(100) < percent
    }

    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.rng.below(v.len() as u64) as usize]
    }

    /// One item.
    pub fn item(&mut self, h: &Hints) -> Item {
        // Without a game most commands only meet "no game": start one more often than not.
        if h.size.is_none() && self.chance(50) {
            let n = *self.pick(&[15, 20, 15, 20, 5, 32]);
            return Self::line(format!("START {n}"), Command::Start(n));
        }
        let mut it = match self.rng.below(100) {
            0..=44 => self.game_command(h),
            45..=57 => self.info(),
            58..=69 => self.block(h),
            70..=76 => self.broken_block(h),
            77..=84 => self.bad_args(h),
            85..=92 => self.mangled(h),
            93..=97 => self.junk(),
            _ => self.empty_lines(),
        };
        if !matches!(it.expect, Expect::Any) && self.chance(40) {
            self.decorate(&mut it);
        }
        if self.big && self.rng.below(400) == 0 {
            it = self.megabyte_line();
        }
        it
    }

    fn megabyte_line(&mut self) -> Item {
        let len = 1_000_000 + self.rng.below(1_000_000) as usize;
        let fill = *self.pick(&[b'x', b'7', b',', b' ', 0xff]);
        let mut line = match self.rng.below(3) {
            0 => b"TURN ".to_vec(),
            1 => b"INFO folder ".to_vec(),
            _ => Vec::new(),
        };
        line.resize(len, fill);
        Item {
            lines: vec![line],
            expect: Expect::Any,
        }
    }

    /// A coordinate pair: mostly near existing stones or the centre, sometimes on the edge or off it.
    fn coord(&mut self, h: &Hints) -> (i64, i64) {
        let (w, ht) = h.size.unwrap_or((15, 15));
        let (w, ht) = (w.clamp(1, 64), ht.clamp(1, 64));
        match self.rng.below(100) {
            0..=29 if !h.stones.is_empty() => *self.pick(&h.stones),
            0..=64 => {
                let (cx, cy) = (w / 2, ht / 2);
                (
                    cx + self.rng.below(7) as i64 - 3,
                    cy + self.rng.below(7) as i64 - 3,
                )
            }
            65..=84 => (
                self.rng.below(w as u64) as i64,
                self.rng.below(ht as u64) as i64,
            ),
            85..=92 => {
                let edge = [-1, 0, w - 1, w, ht - 1, ht];
                (*self.pick(&edge), *self.pick(&edge))
            }
            _ => (*self.pick(&EVIL), *self.pick(&EVIL)),
        }
    }

    fn num_text(&mut self, v: i64) -> String {
        match self.rng.below(20) {
            0 if v >= 0 => format!("+{v}"),
            1 if v >= 0 => format!("00{v}"),
            _ => v.to_string(),
        }
    }

    fn pair_text(&mut self, a: i64, b: i64) -> String {
        let (a, b) = (self.num_text(a), self.num_text(b));
        format!("{a},{b}")
    }

    fn line(s: String, cmd: Command) -> Item {
        Item {
            lines: vec![s.into_bytes()],
            expect: Expect::Exact(vec![cmd]),
        }
    }

    fn game_command(&mut self, h: &Hints) -> Item {
        match self.rng.below(100) {
            0..=7 => {
                let n = *self.pick(&SIZES);
                let t = self.num_text(n);
                Self::line(format!("START {t}"), Command::Start(n))
            }
            8..=10 => {
                let (w, ht) = (*self.pick(&SIZES), *self.pick(&SIZES));
                let t = self.pair_text(w, ht);
                Self::line(format!("RECTSTART {t}"), Command::RectStart(w, ht))
            }
            11..=40 => {
                let (x, y) = self.coord(h);
                let t = self.pair_text(x, y);
                Self::line(format!("TURN {t}"), Command::Turn(x, y))
            }
            41..=50 => {
                // Usually the last stone (Piskvork's undo), often an older one.
                let (x, y) = match h.stones.last() {
                    Some(&last) if self.chance(50) => last,
                    _ => self.coord(h),
                };
                let t = self.pair_text(x, y);
                Self::line(format!("TAKEBACK {t}"), Command::Takeback(x, y))
            }
            51..=55 => {
                let (x, y) = self.coord(h);
                let t = self.pair_text(x, y);
                Self::line(format!("PLAY {t}"), Command::Play(x, y))
            }
            56..=63 => Self::line("BEGIN".into(), Command::Begin),
            64..=67 => Self::line("RESTART".into(), Command::Restart),
            68..=71 => Self::line("ABOUT".into(), Command::About),
            72..=76 => {
                let w = *self.pick(&["STOP", "YXSTOP"]);
                let cmd = if w == "STOP" {
                    Command::Stop
                } else {
                    Command::YxStop
                };
                Self::line(w.into(), cmd)
            }
            77..=80 => {
                let top = if self.chance(90) { 4 } else { 1000 };
                let n = 1 + self.rng.below(top) as i64;
                Self::line(format!("YXNBEST {n}"), Command::YxNbest(n))
            }
            81..=84 => Self::line("YXSHOWFORBID".into(), Command::YxShowForbid),
            85..=87 => Self::line("YXHASHCLEAR".into(), Command::YxHashClear),
            88..=89 => Self::line("DONE".into(), Command::Invalid("DONE without BOARD".into())),
            _ => {
                let w = *self.pick(&JUNK_WORDS[..2]);
                Self::line(
                    format!("{w} {}", self.pair_text(7, 7)),
                    Command::Unknown(String::new()),
                )
            }
        }
    }

    fn info(&mut self) -> Item {
        let key = *self.pick(&INFO_KEYS);
        // Time keys get values that keep searches short most of the time.
        let v: i64 = match (key, self.rng.below(10)) {
            ("timeout_turn", 0..=6) => self.rng.below(60) as i64,
            ("timeout_match" | "time_left", 0..=5) => self.rng.below(5000) as i64,
            ("max_memory", 0..=5) => *self.pick(&[0, 367_001_600, 8 << 20, 1, 100, 1 << 40]),
            ("rule", 0..=7) => self.rng.below(17) as i64,
            ("thread_num", 0..=7) => self.rng.below(5) as i64,
            ("hash_size", 0..=7) => *self.pick(&[0, 1, 1024, 65_536, 1 << 30]),
            ("max_depth" | "max_node", 0..=5) => self.rng.below(1000) as i64,
            _ => *self.pick(&EVIL),
        };
        let text = self.num_text(v);
        let info = match key {
            "timeout_turn" => Info::TimeoutTurn(v),
            "timeout_match" => Info::TimeoutMatch(v),
            "time_left" => Info::TimeLeft(v),
            "max_memory" => Info::MaxMemory(v),
            "game_type" => Info::GameType(v),
            "rule" => Info::Rule(v),
            "thread_num" => Info::ThreadNum(v),
            "max_depth" => Info::MaxDepth(v),
            "max_node" => Info::MaxNode(v),
            "hash_size" => Info::HashSize(v),
            "show_detail" => Info::ShowDetail(v),
            "evaluate" => Info::Evaluate,
            "folder" => {
                let path = *self.pick(&["C:\\My Files\\brains", "/tmp/x", "a b  c"]);
                return Self::line(
                    format!("INFO folder {path}"),
                    Command::Info(Info::Folder(path.to_string())),
                );
            }
            other => Info::Other(other.to_string()),
        };
        Self::line(format!("INFO {key} {text}"), Command::Info(info))
    }

    /// A whole block; well-formed unless a stone line is deliberately bad (then rejected at DONE).
    fn block(&mut self, h: &Hints) -> Item {
        let kind = self.rng.below(10);
        let n = match self.rng.below(10) {
            0..=2 => self.rng.below(4),
            3..=7 => self.rng.below(12),
            8 => 3 + 2 * self.rng.below(2), // the swap2 counts
            _ => self.rng.below(60),
        } as usize;
        let (head, swap2) = match kind {
            0..=5 => ("BOARD", false),
            6..=7 => ("YXBOARD", false),
            _ => ("SWAP2BOARD", true),
        };
        let mut lines = vec![head.as_bytes().to_vec()];
        let mut stones = Vec::new();
        let mut bad = false;
        for i in 0..n {
            let (x, y) = self.coord(h);
            if swap2 {
                lines.push(self.pair_text(x, y).into_bytes());
                stones.push(BoardStone {
                    x,
                    y,
                    field: Field::Wall,
                });
            } else {
                // Alternate own/opponent so that both colours appear; sometimes walls or a bad field.
                let f = match self.rng.below(40) {
                    0 => 3,
                    1 => *self.pick(&[0, 4, -1, 12]),
                    _ => 1 + ((i as i64 + n as i64) % 2),
                };
                let field = match f {
                    1 => Field::Own,
                    2 => Field::Opponent,
                    3 => Field::Wall,
                    _ => {
                        bad = true;
                        Field::Wall
                    }
                };
                lines.push(format!("{},{}", self.pair_text(x, y), f).into_bytes());
                stones.push(BoardStone { x, y, field });
            }
        }
        lines.push(b"DONE".to_vec());
        let cmd = if bad {
            Command::Invalid(String::new())
        } else {
            match kind {
                0..=5 => Command::Board(stones),
                6..=7 => Command::YxBoard(stones),
                _ => Command::Swap2Board(stones.iter().map(|s| (s.x, s.y)).collect()),
            }
        };
        Item {
            lines,
            expect: Expect::Exact(vec![cmd]),
        }
    }

    /// Blocks that go wrong: no DONE, nested, oversized, arguments where none belong.
    fn broken_block(&mut self, h: &Hints) -> Item {
        let (x, y) = self.coord(h);
        let stone = format!("{x},{y},1").into_bytes();
        match self.rng.below(6) {
            // BOARD without DONE, interrupted by a command that must still run.
            0 | 1 => Item {
                lines: vec![b"BOARD".to_vec(), stone, b"ABOUT".to_vec()],
                expect: Expect::Exact(vec![Command::Invalid(String::new()), Command::About]),
            },
            // A second BOARD inside the first: the first is rejected, the second is read.
            2 => Item {
                lines: vec![
                    b"BOARD".to_vec(),
                    b"BOARD".to_vec(),
                    stone.clone(),
                    b"DONE".to_vec(),
                ],
                expect: Expect::Exact(vec![
                    Command::Invalid(String::new()),
                    Command::Board(vec![BoardStone {
                        x,
                        y,
                        field: Field::Own,
                    }]),
                ]),
            },
            3 => Item {
                lines: vec![b"BOARD now".to_vec(), stone, b"DONE".to_vec()],
                expect: Expect::Exact(vec![Command::Invalid(String::new())]),
            },
            4 => Item {
                lines: vec![b"BOARD".to_vec(), stone, b"DONE please".to_vec()],
                expect: Expect::Exact(vec![Command::Invalid(String::new())]),
            },
            _ => {
                // More stone lines than any board holds.
                let n = if self.big {
                    MAX_BLOCK_LINES + 1 + self.rng.below(100) as usize
                } else {
                    40
                };
                let mut lines = vec![b"YXBOARD".to_vec()];
                for i in 0..n {
                    lines.push(format!("{},{},{}", i % 32, i / 32, 1 + i % 2).into_bytes());
                }
                lines.push(b"DONE".to_vec());
                let expect = if n > MAX_BLOCK_LINES {
                    Expect::Exact(vec![Command::Invalid(String::new())])
                } else {
                    Expect::Any
                };
                Item { lines, expect }
            }
        }
    }

    /// Known commands with arguments that cannot be right.
    fn bad_args(&mut self, h: &Hints) -> Item {
        let (x, y) = self.coord(h);
        let word = *self.pick(&["TURN", "TAKEBACK", "PLAY", "START", "RECTSTART", "YXNBEST"]);
        let args = match self.rng.below(12) {
            0 => String::new(),
            1 => format!("{x}"),
            2 => format!("{x},"),
            3 => format!(",{y}"),
            4 => format!("{x},{y},{x}"),
            5 => format!("{x};{y}"),
            6 => format!("{x}.5,{y}"),
            7 => "99999999999999999999999,1".to_string(),
            8 => format!("-{},{y}", "9".repeat(30)),
            9 => "a,b".to_string(),
            10 => format!("{x} {y}"),
            _ => "0x10,0x10".to_string(),
        };
        // Some of these are fine for a one-number command (START 7 is a size); only the
        // two-number commands are sure to fail on every variant, START and YXNBEST only on some.
        let sure = match word {
            "START" => !matches!(args.as_str(), s if parse_i64(s).is_some()),
            "YXNBEST" => parse_i64(&args).is_none_or(|n| n < 1),
            _ => true,
        };
        Item {
            lines: vec![format!("{word} {args}").trim_end().as_bytes().to_vec()],
            expect: if sure { Expect::Bad } else { Expect::Any },
        }
    }

    /// A good line, then damaged at the byte level.
    fn mangled(&mut self, h: &Hints) -> Item {
        let mut it = self.game_command(h);
        if it.lines.is_empty() {
            return it;
        }
        let n = 1 + self.rng.below(4);
        let li = self.rng.below(it.lines.len() as u64) as usize;
        for _ in 0..n {
            let line = &mut it.lines[li];
            let pos = self.rng.below(line.len() as u64 + 1) as usize;
            match self.rng.below(7) {
                0 if pos < line.len() => {
                    line.remove(pos);
                }
                1 => line.insert(
                    pos,
                    *self.pick(&[0xff, 0xc3, 0x80, 0xe2, 0x00, b'\r', b'\t']),
                ),
                2 if pos < line.len() => line[pos] = self.byte(),
                3 => {
                    let s = *self.pick(&["\u{a0}", "\u{3000}", "\u{200b}", "\u{feff}", "é"]);
                    let tail = line.split_off(pos);
                    line.extend_from_slice(s.as_bytes());
                    line.extend_from_slice(&tail);
                }
                4 => {
                    let tail = line.split_off(pos);
                    line.extend_from_slice(self.pick(&EVIL).to_string().as_bytes());
                    line.extend_from_slice(&tail);
                }
                5 => line.extend_from_slice(b"\r\r"),
                _ => line.make_ascii_lowercase(),
            }
        }
        it.expect = Expect::Any;
        it
    }

    fn junk(&mut self) -> Item {
        let len = self.rng.below(60) as usize;
        let line: Vec<u8> = match self.rng.below(3) {
            0 => (0..len).map(|_| self.byte()).collect(),
            1 => (0..len).map(|_| b' ' + self.rng.below(95) as u8).collect(),
            _ => self.pick(&JUNK_WORDS).as_bytes().to_vec(),
        };
        Item {
            lines: vec![line],
            expect: Expect::Any,
        }
    }

    fn empty_lines(&mut self) -> Item {
        let n = 1 + self.rng.below(3) as usize;
        let lines = (0..n)
            .map(|_| self.pick(&[&b""[..], b"\r", b"  \t ", b" \r"]).to_vec())
            .collect();
        Item {
            lines,
            expect: Expect::Exact(vec![]),
        }
    }

    /// Changes that must not change the meaning: keyword case, CR, spaces around the line and commas.
    fn decorate(&mut self, it: &mut Item) {
        for line in &mut it.lines {
            let Ok(text) = std::str::from_utf8(line) else {
                continue;
            };
            let mut s = String::new();
            if self.chance(30) {
                s.push_str(self.pick::<&str>(&[" ", "\t", "  "]));
            }
            let (word, rest) = match text.split_once(' ') {
                Some((w, r)) => (w, Some(r)),
                None => (text, None),
            };
            // Only keywords change case: INFO folder values and stone lines keep theirs.
            if word.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_') {
                for c in word.chars() {
                    s.push(if self.chance(50) {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    });
                }
            } else {
                s.push_str(word);
            }
            if let Some(rest) = rest {
                s.push_str(self.pick::<&str>(&[" ", "  ", "\t", " \t "]));
                let folder = word.eq_ignore_ascii_case("INFO") && rest.starts_with("folder");
                if !folder && self.chance(50) {
                    let sep = *self.pick(&[" ,", ", ", " , ", "\t,"]);
                    s.push_str(&rest.replace(',', sep));
                } else {
                    s.push_str(rest);
                }
            }
            if self.chance(30) {
                s.push_str(self.pick::<&str>(&[" ", "\t"]));
            }
            if self.chance(40) {
                s.push('\r');
            }
            *line = s.into_bytes();
        }
    }
}

/// The parser's notion of a number, restated simply: optional sign, ASCII digits, fits i64.
fn parse_i64(s: &str) -> Option<i64> {
    let s = s.trim();
    let d = s.strip_prefix(['+', '-']).unwrap_or(s);
    if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

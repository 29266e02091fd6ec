//! Gomocup commands as a typed enum, and a pure line-by-line parser.
//!
//! The parser never panics and never allocates without bound: every line is either a
//! [`Command`], a part of a block (`BOARD`/`YXBOARD`/`SWAP2BOARD` … `DONE`), or an
//! [`Command::Invalid`] / [`Command::Unknown`] that the session answers with `ERROR` / `UNKNOWN`.
//! Keywords are case-insensitive (Yixin-Board sends lower case), a trailing `\r` is stripped,
//! blank lines are ignored and whitespace around commas is tolerated.

use std::fmt;

/// Most stones a block may carry: a 32×32 board plus slack. More lines are counted, not stored.
pub const MAX_BLOCK_LINES: usize = 32 * 32 + 16;

/// The third field of a `BOARD`/`YXBOARD` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `1`: the brain's own stone.
    Own,
    /// `2`: the opponent's stone.
    Opponent,
    /// `3`: a stone of continuous-game mode; only "occupied" matters.
    Wall,
}

/// One stone line of a `BOARD`/`YXBOARD` block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardStone {
    /// Column (0-based).
    pub x: i64,
    /// Row (0-based).
    pub y: i64,
    /// Whose stone it is.
    pub field: Field,
}

/// An `INFO key value` line. Values are i64 (`time_left` may be negative).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Info {
    /// `timeout_turn` ms per move; 0 = as fast as possible.
    TimeoutTurn(i64),
    /// `timeout_match` ms per game; 0 = no limit.
    TimeoutMatch(i64),
    /// `time_left` ms left in the game; 2147483647 = unlimited.
    TimeLeft(i64),
    /// `max_memory` bytes; 0 = no limit.
    MaxMemory(i64),
    /// `game_type` (0 human, 1 brain, 2 tournament, 3 network tournament).
    GameType(i64),
    /// `rule` bitmask (1 exactly five, 2 continuous, 4 renju, 8 caro).
    Rule(i64),
    /// `evaluate x,y`: a debug cursor; ignored.
    Evaluate,
    /// `folder path` (the rest of the line, spaces included).
    Folder(String),
    /// `thread_num n` (Yixin/Rapfi extension).
    ThreadNum(i64),
    /// `max_depth n` (Yixin/Rapfi extension).
    MaxDepth(i64),
    /// `max_node n` (Yixin/Rapfi extension).
    MaxNode(i64),
    /// `hash_size kb` (Yixin-Board extension, kilobytes).
    HashSize(i64),
    /// `show_detail n`: 0 turns the per-iteration `MESSAGE` lines off.
    ShowDetail(i64),
    /// Any other key: ignored silently.
    Other(String),
}

/// One command from the manager, fully parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `START n`.
    Start(i64),
    /// `RECTSTART w,h`.
    RectStart(i64, i64),
    /// `RESTART`.
    Restart,
    /// `BEGIN`.
    Begin,
    /// `TURN x,y`: the opponent's move.
    Turn(i64, i64),
    /// `BOARD` … `DONE`: a position, then our move.
    Board(Vec<BoardStone>),
    /// `YXBOARD` … `DONE`: a position, no move.
    YxBoard(Vec<BoardStone>),
    /// `SWAP2BOARD` … `DONE`: the stones so far, in move order.
    Swap2Board(Vec<(i64, i64)>),
    /// `INFO key value`.
    Info(Info),
    /// `END`.
    End,
    /// `ABOUT`.
    About,
    /// `TAKEBACK x,y`.
    Takeback(i64, i64),
    /// `PLAY x,y`: the manager imposes our move.
    Play(i64, i64),
    /// `STOP`: answer the best move so far.
    Stop,
    /// `YXSTOP`: same as `STOP`.
    YxStop,
    /// `YXNBEST n`: search the n best moves, then answer the best.
    YxNbest(i64),
    /// `YXSHOWFORBID`: list renju forbidden points.
    YxShowForbid,
    /// `YXHASHCLEAR`: clear the hash table.
    YxHashClear,
    /// An unknown command word: answer `UNKNOWN …`.
    Unknown(String),
    /// A known command with bad arguments: answer `ERROR …`.
    Invalid(String),
    /// An `INFO` whose value is malformed: reported at the next non-INFO command.
    BadInfo(String),
}

impl Command {
    /// Whether the brain answers this command with a move (or a swap2 choice), i.e. starts thinking.
    pub fn is_think(&self) -> bool {
        matches!(
            self,
            Command::Begin
                | Command::Turn(..)
                | Command::Board(_)
                | Command::Swap2Board(_)
                | Command::YxNbest(_)
        )
    }
}

/// Which block is being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockKind {
    Board,
    YxBoard,
    Swap2,
}

impl fmt::Display for BlockKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BlockKind::Board => "BOARD",
            BlockKind::YxBoard => "YXBOARD",
            BlockKind::Swap2 => "SWAP2BOARD",
        })
    }
}

/// A block being collected.
#[derive(Debug)]
struct Block {
    kind: BlockKind,
    stones: Vec<BoardStone>,
    /// The first problem seen in the block; the whole block is rejected at `DONE`.
    error: Option<String>,
}

/// Line-by-line parser: keeps the state of an open block, nothing else.
#[derive(Debug, Default)]
pub struct Parser {
    block: Option<Block>,
}

impl Parser {
    /// A parser outside any block.
    pub fn new() -> Parser {
        Parser::default()
    }

    /// Whether a block (`BOARD` etc.) is open and waiting for `DONE`.
    pub fn in_block(&self) -> bool {
        self.block.is_some()
    }

    /// A line longer than the reader keeps (`max` bytes) was read and thrown away: outside a block it is an
    /// invalid command at once; inside a block it spoils the block, which is then rejected at `DONE` (a
    /// position with a line missing must not be played on).
    pub fn too_long(&mut self, max: usize) -> Vec<Command> {
        let problem = format!("line longer than {max} bytes ignored");
        match self.block.as_mut() {
            Some(block) => {
                block.error.get_or_insert(problem);
                Vec::new()
            }
            None => vec![Command::Invalid(problem)],
        }
    }

    /// Feeds one input line (with or without its line ending) and returns the finished commands:
    /// none (blank line, or a line inside a block), one, or two (an unterminated block that a
    /// command word interrupts is rejected, then the command itself).
    pub fn feed(&mut self, raw: &str) -> Vec<Command> {
        let line = raw.trim_end_matches(['\n', '\r']).trim();
        if line.is_empty() {
            return Vec::new();
        }
        if let Some(block) = self.block.as_mut() {
            let word = first_word(line);
            if word.eq_ignore_ascii_case("DONE") {
                let block = self.block.take().expect("block checked above");
                return vec![finish_block(block, line)];
            }
            // A line starting with a letter is a command: the block was never closed. Reject it
            // and carry on with the command, so that e.g. END still ends the brain.
            if line.starts_with(|c: char| c.is_ascii_alphabetic()) {
                let kind = block.kind;
                self.block = None;
                let mut out = vec![Command::Invalid(format!("{kind} block not closed by DONE"))];
                out.extend(self.feed(line));
                return out;
            }
            block_line(block, line);
            return Vec::new();
        }
        let (word, rest) = split_word(line);
        let upper = word.to_ascii_uppercase();
        let cmd = match upper.as_str() {
            "START" => match parse_int(rest) {
                Some(n) => Command::Start(n),
                None => invalid("START", "expects one number, e.g. START 15", rest),
            },
            "RECTSTART" => match parse_pair(rest) {
                Some((w, h)) => Command::RectStart(w, h),
                None => invalid(
                    "RECTSTART",
                    "expects width,height, e.g. RECTSTART 20,15",
                    rest,
                ),
            },
            "RESTART" => no_args(Command::Restart, "RESTART", rest),
            "BEGIN" => no_args(Command::Begin, "BEGIN", rest),
            "END" => Command::End,
            "ABOUT" => no_args(Command::About, "ABOUT", rest),
            "STOP" => Command::Stop,
            "YXSTOP" => Command::YxStop,
            "YXSHOWFORBID" => no_args(Command::YxShowForbid, "YXSHOWFORBID", rest),
            "YXHASHCLEAR" => no_args(Command::YxHashClear, "YXHASHCLEAR", rest),
            "TURN" => move_cmd(Command::Turn, "TURN", rest),
            "TAKEBACK" => move_cmd(Command::Takeback, "TAKEBACK", rest),
            "PLAY" => move_cmd(Command::Play, "PLAY", rest),
            "YXNBEST" => match parse_int(rest) {
                Some(n) if n >= 1 => Command::YxNbest(n),
                _ => invalid("YXNBEST", "expects a count >= 1, e.g. YXNBEST 3", rest),
            },
            "INFO" => parse_info(rest),
            "BOARD" | "YXBOARD" | "SWAP2BOARD" => {
                let kind = match upper.as_str() {
                    "BOARD" => BlockKind::Board,
                    "YXBOARD" => BlockKind::YxBoard,
                    _ => BlockKind::Swap2,
                };
                let error = (!rest.is_empty()).then(|| format!("{kind} takes no arguments"));
                self.block = Some(Block {
                    kind,
                    stones: Vec::new(),
                    error,
                });
                return Vec::new();
            }
            "DONE" => Command::Invalid("DONE without BOARD, YXBOARD or SWAP2BOARD".to_string()),
            _ => Command::Unknown(format!("unknown command {}", clip(word))),
        };
        vec![cmd]
    }
}

/// The first whitespace-separated word of a non-empty trimmed line.
fn first_word(line: &str) -> &str {
    split_word(line).0
}

/// Splits a trimmed line into its first word and the trimmed rest.
fn split_word(line: &str) -> (&str, &str) {
    match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim()),
        None => (line, ""),
    }
}

/// Shortens untrusted text quoted back in an answer (answers stay one short line).
fn clip(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(MAX).collect();
        out.push('…');
        out
    }
}

fn invalid(cmd: &str, expects: &str, got: &str) -> Command {
    if got.is_empty() {
        Command::Invalid(format!("{cmd} {expects}"))
    } else {
        Command::Invalid(format!("{cmd} {expects}, got '{}'", clip(got)))
    }
}

fn no_args(cmd: Command, name: &str, rest: &str) -> Command {
    if rest.is_empty() {
        cmd
    } else {
        Command::Invalid(format!("{name} takes no arguments, got '{}'", clip(rest)))
    }
}

fn move_cmd(make: fn(i64, i64) -> Command, name: &str, rest: &str) -> Command {
    match parse_pair(rest) {
        Some((x, y)) => make(x, y),
        None => invalid(name, "expects x,y, e.g. 7,7", rest),
    }
}

/// Parses a decimal i64 with optional sign; nothing else on the string.
pub fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses `a,b` (whitespace around the comma tolerated).
pub fn parse_pair(s: &str) -> Option<(i64, i64)> {
    let mut it = s.split(',');
    let a = parse_int(it.next()?)?;
    let b = parse_int(it.next()?)?;
    if it.next().is_some() {
        return None;
    }
    Some((a, b))
}

/// Parses `a,b,c`.
fn parse_triple(s: &str) -> Option<(i64, i64, i64)> {
    let mut it = s.split(',');
    let a = parse_int(it.next()?)?;
    let b = parse_int(it.next()?)?;
    let c = parse_int(it.next()?)?;
    if it.next().is_some() {
        return None;
    }
    Some((a, b, c))
}

/// Records one line inside an open block (or the first problem with it).
fn block_line(block: &mut Block, line: &str) {
    if block.error.is_some() {
        return;
    }
    if block.stones.len() >= MAX_BLOCK_LINES {
        block.error = Some(format!("{} block has too many lines", block.kind));
        return;
    }
    match block.kind {
        BlockKind::Board | BlockKind::YxBoard => match parse_triple(line) {
            Some((x, y, f)) => {
                let field = match f {
                    1 => Field::Own,
                    2 => Field::Opponent,
                    3 => Field::Wall,
                    _ => {
                        block.error = Some(format!(
                            "{} line '{}': field must be 1, 2 or 3",
                            block.kind,
                            clip(line)
                        ));
                        return;
                    }
                };
                block.stones.push(BoardStone { x, y, field });
            }
            None => {
                block.error = Some(format!(
                    "{} line '{}' is not x,y,field",
                    block.kind,
                    clip(line)
                ))
            }
        },
        BlockKind::Swap2 => match parse_pair(line) {
            Some((x, y)) => block.stones.push(BoardStone {
                x,
                y,
                field: Field::Wall,
            }),
            None => block.error = Some(format!("{} line '{}' is not x,y", block.kind, clip(line))),
        },
    }
}

/// Turns a closed block into its command.
fn finish_block(block: Block, done_line: &str) -> Command {
    if let Some(e) = block.error {
        return Command::Invalid(e);
    }
    if !done_line.eq_ignore_ascii_case("DONE") {
        return Command::Invalid(format!(
            "DONE takes no arguments, got '{}'",
            clip(done_line)
        ));
    }
    match block.kind {
        BlockKind::Board => Command::Board(block.stones),
        BlockKind::YxBoard => Command::YxBoard(block.stones),
        BlockKind::Swap2 => Command::Swap2Board(block.stones.iter().map(|s| (s.x, s.y)).collect()),
    }
}

/// Parses the part after `INFO`.
fn parse_info(rest: &str) -> Command {
    let (key, value) = split_word(rest);
    if key.is_empty() {
        return Command::BadInfo("INFO without a key".to_string());
    }
    let lower = key.to_ascii_lowercase();
    let num = |make: fn(i64) -> Info| match parse_int(value) {
        Some(v) => Command::Info(make(v)),
        None => Command::BadInfo(format!(
            "INFO {lower} expects a whole number, got '{}'",
            clip(value)
        )),
    };
    match lower.as_str() {
        "timeout_turn" => num(Info::TimeoutTurn),
        "timeout_match" => num(Info::TimeoutMatch),
        "time_left" => num(Info::TimeLeft),
        "max_memory" => num(Info::MaxMemory),
        "game_type" => num(Info::GameType),
        "rule" => num(Info::Rule),
        "thread_num" => num(Info::ThreadNum),
        "max_depth" => num(Info::MaxDepth),
        "max_node" => num(Info::MaxNode),
        "hash_size" => num(Info::HashSize),
        "show_detail" => num(Info::ShowDetail),
        "evaluate" => Command::Info(Info::Evaluate),
        "folder" => Command::Info(Info::Folder(value.to_string())),
        _ => Command::Info(Info::Other(lower)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Command {
        let mut p = Parser::new();
        let mut v = p.feed(line);
        assert_eq!(v.len(), 1, "{line:?} gave {v:?}");
        assert!(!p.in_block());
        v.remove(0)
    }

    fn lines(input: &[&str]) -> Vec<Command> {
        let mut p = Parser::new();
        input.iter().flat_map(|l| p.feed(l)).collect()
    }

    #[test]
    fn simple_commands_any_case_and_line_ending() {
        assert_eq!(one("START 20\r\n"), Command::Start(20));
        assert_eq!(one("start 15"), Command::Start(15));
        assert_eq!(one("  Start   15  "), Command::Start(15));
        assert_eq!(one("RECTSTART 30,20"), Command::RectStart(30, 20));
        assert_eq!(one("rectstart 30 , 20"), Command::RectStart(30, 20));
        assert_eq!(one("RESTART\r"), Command::Restart);
        assert_eq!(one("begin"), Command::Begin);
        assert_eq!(one("END"), Command::End);
        assert_eq!(one("about"), Command::About);
        assert_eq!(one("STOP"), Command::Stop);
        assert_eq!(one("yxstop"), Command::YxStop);
        assert_eq!(one("YXSHOWFORBID"), Command::YxShowForbid);
        assert_eq!(one("YXHASHCLEAR"), Command::YxHashClear);
        assert_eq!(one("YXNBEST 3"), Command::YxNbest(3));
    }

    #[test]
    fn moves_tolerate_whitespace_around_commas() {
        assert_eq!(one("TURN 10,10"), Command::Turn(10, 10));
        assert_eq!(one("turn 10 , 11\r"), Command::Turn(10, 11));
        assert_eq!(one("TURN\t3,\t4"), Command::Turn(3, 4));
        assert_eq!(one("TAKEBACK 9,10"), Command::Takeback(9, 10));
        assert_eq!(one("PLAY 12,10"), Command::Play(12, 10));
        // Off-board numbers parse; the board rejects them later.
        assert_eq!(one("TURN -1,99"), Command::Turn(-1, 99));
    }

    #[test]
    fn blank_lines_are_ignored() {
        let mut p = Parser::new();
        assert!(p.feed("").is_empty());
        assert!(p.feed("\r\n").is_empty());
        assert!(p.feed("   \t ").is_empty());
    }

    #[test]
    fn malformed_arguments_are_invalid() {
        for line in [
            "START",
            "START abc",
            "START 15 15",
            "START 1.5",
            "TURN",
            "TURN 7",
            "TURN 7,",
            "TURN a,b",
            "TURN 7,7,7",
            "TURN 7;7",
            "TURN 99999999999999999999,1",
            "RECTSTART 20",
            "TAKEBACK",
            "PLAY x",
            "YXNBEST",
            "YXNBEST 0",
            "BEGIN now",
            "ABOUT me",
            "DONE",
        ] {
            assert!(matches!(one(line), Command::Invalid(_)), "{line}");
        }
    }

    #[test]
    fn unknown_commands() {
        assert!(matches!(one("HELLO"), Command::Unknown(m) if m.contains("HELLO")));
        assert!(matches!(one("SUGGEST 7,7"), Command::Unknown(_)));
        assert!(matches!(one("7,7"), Command::Unknown(_)));
        let long = "X".repeat(10_000);
        match one(&long) {
            Command::Unknown(m) => assert!(m.len() < 100),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn info_keys() {
        use Info::*;
        assert_eq!(
            one("INFO timeout_turn 1000"),
            Command::Info(TimeoutTurn(1000))
        );
        assert_eq!(one("info TIMEOUT_MATCH 0"), Command::Info(TimeoutMatch(0)));
        assert_eq!(one("INFO time_left -250"), Command::Info(TimeLeft(-250)));
        assert_eq!(
            one("INFO time_left 2147483647"),
            Command::Info(TimeLeft(2147483647))
        );
        assert_eq!(
            one("INFO max_memory 367001600"),
            Command::Info(MaxMemory(367001600))
        );
        assert_eq!(one("INFO game_type 1"), Command::Info(GameType(1)));
        assert_eq!(one("INFO rule 4"), Command::Info(Rule(4)));
        assert_eq!(one("INFO evaluate 3,4"), Command::Info(Evaluate));
        assert_eq!(
            one("INFO folder C:\\My Files\\brains"),
            Command::Info(Folder("C:\\My Files\\brains".into()))
        );
        assert_eq!(one("INFO thread_num 2"), Command::Info(ThreadNum(2)));
        assert_eq!(one("INFO max_depth 10"), Command::Info(MaxDepth(10)));
        assert_eq!(one("INFO max_node 100000"), Command::Info(MaxNode(100000)));
        assert_eq!(one("INFO hash_size 65536"), Command::Info(HashSize(65536)));
        assert_eq!(one("INFO show_detail 0"), Command::Info(ShowDetail(0)));
        assert_eq!(
            one("INFO pondering 1"),
            Command::Info(Other("pondering".into()))
        );
        assert!(matches!(one("INFO timeout_turn fast"), Command::BadInfo(_)));
        assert!(matches!(one("INFO timeout_turn"), Command::BadInfo(_)));
        assert!(matches!(one("INFO"), Command::BadInfo(_)));
    }

    #[test]
    fn board_block() {
        let cmds = lines(&["BOARD", "10,10,1", "10, 11 ,2\r", "", "11,11,3", "done"]);
        assert_eq!(
            cmds,
            vec![Command::Board(vec![
                BoardStone {
                    x: 10,
                    y: 10,
                    field: Field::Own
                },
                BoardStone {
                    x: 10,
                    y: 11,
                    field: Field::Opponent
                },
                BoardStone {
                    x: 11,
                    y: 11,
                    field: Field::Wall
                },
            ])]
        );
        assert_eq!(lines(&["BOARD", "DONE"]), vec![Command::Board(vec![])]);
        assert_eq!(
            lines(&["yxboard", "1,2,2", "DONE"]),
            vec![Command::YxBoard(vec![BoardStone {
                x: 1,
                y: 2,
                field: Field::Opponent
            }])]
        );
    }

    #[test]
    fn swap2_block() {
        assert_eq!(
            lines(&["SWAP2BOARD", "DONE"]),
            vec![Command::Swap2Board(vec![])]
        );
        assert_eq!(
            lines(&["SWAP2BOARD", "7,7", "8,7", "9,9", "DONE"]),
            vec![Command::Swap2Board(vec![(7, 7), (8, 7), (9, 9)])]
        );
        assert!(matches!(
            lines(&["SWAP2BOARD", "7,7,1", "DONE"]).as_slice(),
            [Command::Invalid(_)]
        ));
    }

    #[test]
    fn bad_block_lines_reject_the_whole_block_at_done() {
        for bad in ["10,10", "10,10,4", "1,b,3", "1,2,1,1", "-"] {
            let mut p = Parser::new();
            assert!(p.feed("BOARD").is_empty());
            assert!(p.feed("1,1,1").is_empty());
            assert!(p.feed(bad).is_empty(), "{bad}");
            assert!(p.feed("2,2,2").is_empty());
            let out = p.feed("DONE");
            assert!(
                matches!(out.as_slice(), [Command::Invalid(_)]),
                "{bad}: {out:?}"
            );
            assert!(!p.in_block());
        }
        assert!(matches!(
            lines(&["BOARD x", "DONE"]).as_slice(),
            [Command::Invalid(_)]
        ));
        assert!(matches!(
            lines(&["BOARD", "DONE now"]).as_slice(),
            [Command::Invalid(_)]
        ));
    }

    #[test]
    fn command_inside_block_aborts_it() {
        let cmds = lines(&["BOARD", "1,1,1", "END"]);
        assert!(matches!(
            cmds.as_slice(),
            [Command::Invalid(_), Command::End]
        ));
        let cmds = lines(&["BOARD", "BOARD", "1,1,1", "DONE"]);
        assert!(
            matches!(cmds.as_slice(), [Command::Invalid(_), Command::Board(v)] if v.len() == 1)
        );
    }

    #[test]
    fn huge_blocks_are_bounded() {
        let mut p = Parser::new();
        p.feed("BOARD");
        for i in 0..(MAX_BLOCK_LINES + 100) {
            assert!(p.feed(&format!("{},{},1", i % 20, i / 20)).is_empty());
        }
        assert!(p.block.as_ref().unwrap().stones.len() <= MAX_BLOCK_LINES);
        assert!(matches!(p.feed("DONE").as_slice(), [Command::Invalid(_)]));
    }

    #[test]
    fn think_commands() {
        assert!(Command::Begin.is_think());
        assert!(Command::Turn(1, 1).is_think());
        assert!(Command::Board(vec![]).is_think());
        assert!(!Command::YxBoard(vec![]).is_think());
        assert!(!Command::About.is_think());
    }
}

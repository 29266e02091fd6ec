//! The Gomocup protocol front end: command parsing, session state, the only writer of stdout.
//!
//! Threads: this function's thread runs the [`session::Session`]; a reader thread turns stdin
//! lines into commands (it never waits for anything but input); the engine's worker thread
//! searches. All three meet on one channel of [`session::Event`]s, so commands are handled in
//! the order they were read and a finished search is answered the moment it ends.

pub mod command;
pub mod output;
pub mod session;

use std::io::{BufRead, Read};
use std::sync::mpsc::{channel, Sender};
use std::time::Instant;

use command::{Command, Parser};
use output::Output;
use session::{Event, Flow, Session};

/// Longest input line kept; the rest of a longer line is read and thrown away (no line of the
/// protocol comes close, and memory must stay bounded whatever the input).
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Runs the brain on stdin/stdout until `END` or end of input.
pub fn run_stdio() -> anyhow::Result<()> {
    let out = Output::stdout();
    let (tx, rx) = channel::<Event>();
    let done_tx = tx.clone();
    let engine = crate::engine::Engine::new(
        out.clone(),
        Box::new(move |r| {
            let _ = done_tx.send(Event::Done(r));
        }),
    );
    let mut session = Session::new(engine, out);
    std::thread::Builder::new()
        .name("pentad-stdin".into())
        .spawn(move || read_commands(std::io::stdin().lock(), &tx))?;
    while let Ok(ev) = rx.recv() {
        if session.handle(ev) == Flow::Exit {
            break;
        }
    }
    // Returning from main ends the process at once, search thread and all.
    Ok(())
}

/// Reads lines until end of input, sending each finished command with the time its first line
/// was read (the manager's clock for that command starts then).
pub fn read_commands(mut input: impl BufRead, tx: &Sender<Event>) {
    let mut parser = Parser::new();
    let mut buf = Vec::new();
    let mut block_start: Option<Instant> = None;
    loop {
        let (got, truncated) = match read_line_bounded(&mut input, &mut buf, MAX_LINE_BYTES) {
            Ok(r) => r,
            Err(e) => {
                log::warn!("reading stdin failed: {e}");
                (false, false)
            }
        };
        if !got {
            let _ = tx.send(Event::Eof);
            return;
        }
        let now = Instant::now();
        let commands = if truncated {
            parser.too_long(MAX_LINE_BYTES)
        } else {
            let line = String::from_utf8_lossy(&buf);
            let was_in_block = parser.in_block();
            let cmds = parser.feed(&line);
            if !was_in_block && parser.in_block() {
                block_start = Some(now);
            }
            cmds
        };
        for cmd in commands {
            // A block's clock starts at its first line (BOARD), not at DONE.
            let at = match cmd {
                Command::Board(_) | Command::YxBoard(_) | Command::Swap2Board(_) => {
                    block_start.take().unwrap_or(now)
                }
                _ => now,
            };
            if tx.send(Event::Command(cmd, at)).is_err() {
                return;
            }
        }
    }
}

/// Reads one line (without its `\n`) into `buf`, keeping at most `max` bytes. Returns
/// `(false, _)` at end of input with nothing read, and `truncated = true` if the line was longer.
pub fn read_line_bounded(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(bool, bool)> {
    buf.clear();
    let mut any = false;
    let mut truncated = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok((any, truncated));
        }
        any = true;
        let (part, used, end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        let room = max.saturating_sub(buf.len());
        if part.len() > room {
            truncated = true;
        }
        buf.extend_from_slice(&part[..part.len().min(room)]);
        input.consume(used);
        if end {
            return Ok((true, truncated));
        }
    }
}

/// Feeds a whole input to a parser (for tests and tools): the commands in order.
pub fn parse_all(input: impl Read) -> Vec<Command> {
    let mut r = std::io::BufReader::new(input);
    let mut parser = Parser::new();
    let mut buf = Vec::new();
    let mut out = Vec::new();
    while let Ok((true, truncated)) = read_line_bounded(&mut r, &mut buf, MAX_LINE_BYTES) {
        if truncated {
            out.extend(parser.too_long(MAX_LINE_BYTES));
        } else {
            out.extend(parser.feed(&String::from_utf8_lossy(&buf)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_lines() {
        let data = b"START 15\r\nABOUT\nEND";
        let mut r = std::io::BufReader::with_capacity(4, &data[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_line_bounded(&mut r, &mut buf, 100).unwrap(),
            (true, false)
        );
        assert_eq!(buf, b"START 15\r");
        assert_eq!(
            read_line_bounded(&mut r, &mut buf, 100).unwrap(),
            (true, false)
        );
        assert_eq!(buf, b"ABOUT");
        assert_eq!(
            read_line_bounded(&mut r, &mut buf, 100).unwrap(),
            (true, false)
        );
        assert_eq!(buf, b"END");
        assert_eq!(
            read_line_bounded(&mut r, &mut buf, 100).unwrap(),
            (false, false)
        );
    }

    #[test]
    fn long_lines_are_cut_not_stored() {
        let mut data = vec![b'x'; 1_000_000];
        data.extend_from_slice(b"\nABOUT\n");
        let mut r = std::io::BufReader::new(&data[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_line_bounded(&mut r, &mut buf, 1000).unwrap(),
            (true, true)
        );
        assert_eq!(buf.len(), 1000);
        assert_eq!(
            read_line_bounded(&mut r, &mut buf, 1000).unwrap(),
            (true, false)
        );
        assert_eq!(buf, b"ABOUT");
    }

    #[test]
    fn a_too_long_line_spoils_its_block_only() {
        let long = "7".repeat(MAX_LINE_BYTES + 10);
        let input =
            format!("START 15\nBOARD\n7,7,1\n{long}\n8,8,2\nDONE\n{long}\nBOARD\n7,7,1\nDONE\n");
        let cmds = parse_all(input.as_bytes());
        assert_eq!(cmds.len(), 4, "{:?}", &cmds);
        assert_eq!(cmds[0], Command::Start(15));
        // The block with the long line is rejected whole, at DONE.
        assert!(matches!(&cmds[1], Command::Invalid(e) if e.contains("longer than")));
        // A long line outside a block is one invalid command; the next block is fine.
        assert!(matches!(&cmds[2], Command::Invalid(e) if e.contains("longer than")));
        assert!(matches!(&cmds[3], Command::Board(v) if v.len() == 1));
    }

    #[test]
    fn invalid_utf8_is_survived() {
        let cmds = parse_all(&b"\xff\xfe START\nSTART 15\n"[..]);
        assert!(matches!(cmds[0], Command::Unknown(_)));
        assert_eq!(cmds[1], Command::Start(15));
    }

    #[test]
    fn reader_sends_commands_then_eof() {
        let (tx, rx) = channel();
        read_commands(&b"START 15\nBOARD\n7,7,1\nDONE\n"[..], &tx);
        let evs: Vec<Event> = rx.try_iter().collect();
        assert!(matches!(evs[0], Event::Command(Command::Start(15), _)));
        assert!(matches!(&evs[1], Event::Command(Command::Board(v), _) if v.len() == 1));
        assert!(matches!(evs[2], Event::Eof));
        assert_eq!(evs.len(), 3);
    }
}

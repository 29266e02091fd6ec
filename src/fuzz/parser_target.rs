//! Fuzz target (a): the command parser alone, fed generated items line by line.
//!
//! Properties: no panic; at most two commands per line; messages quoted back stay short (control
//! characters in them are the output module's job: it blanks them); blocks
//! stay within [`MAX_BLOCK_LINES`]; every well-formed item parses to exactly the commands it was
//! built from, every surely-broken one to one `Invalid`/`Unknown`/`BadInfo`; and the same bytes
//! cut into lines by the brain's bounded line reader give the same commands.

use super::gen::{Expect, Generator, Hints};
use super::{CaseStats, Finding};
use crate::protocol::command::{Command, Parser, MAX_BLOCK_LINES};

/// Longest `ERROR`/`UNKNOWN` text the parser may produce from any input: one short line.
pub const MAX_MESSAGE_BYTES: usize = 400;

/// Whether two commands agree, comparing error kinds (not their wording).
pub fn same_command(a: &Command, b: &Command) -> bool {
    match (a, b) {
        (Command::Invalid(_), Command::Invalid(_))
        | (Command::Unknown(_), Command::Unknown(_))
        | (Command::BadInfo(_), Command::BadInfo(_)) => true,
        _ => a == b,
    }
}

/// Whether a command is one of the error kinds.
pub fn is_bad(c: &Command) -> bool {
    matches!(
        c,
        Command::Invalid(_) | Command::Unknown(_) | Command::BadInfo(_)
    )
}

/// Checks one parser output against the bounds every output must respect.
pub fn check_bounds(cmds: &[Command]) -> Result<(), String> {
    if cmds.len() > 2 {
        return Err(format!("{} commands from one line", cmds.len()));
    }
    for c in cmds {
        match c {
            Command::Invalid(m) | Command::Unknown(m) | Command::BadInfo(m)
                if m.len() > MAX_MESSAGE_BYTES =>
            {
                return Err(format!("message of {} bytes", m.len()));
            }
            Command::Board(v) | Command::YxBoard(v) if v.len() > MAX_BLOCK_LINES => {
                return Err(format!("block of {} stones", v.len()));
            }
            Command::Swap2Board(v) if v.len() > MAX_BLOCK_LINES => {
                return Err(format!("swap2 block of {} stones", v.len()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Runs one case: `items` generated items from `seed`. Returns the input it made.
pub fn run_case(seed: u64, items: usize, big: bool, st: &mut CaseStats) -> Result<(), Finding> {
    let mut gen = Generator::new(seed, big);
    let hints = Hints {
        size: Some((15, 15)),
        stones: vec![(7, 7), (8, 8), (0, 0)],
    };
    let mut parser = Parser::new();
    let mut input: Vec<u8> = Vec::new();
    let mut all: Vec<Command> = Vec::new();
    let mut long_line = false;
    let fail = |what: String, input: &[u8]| Finding {
        target: "parser",
        seed,
        what,
        input: input.to_vec(),
    };
    for _ in 0..items {
        let item = gen.item(&hints);
        let was_in_block = parser.in_block();
        let mut got = Vec::new();
        for line in &item.lines {
            input.extend_from_slice(line);
            input.push(b'\n');
            long_line |= line.len() > crate::protocol::MAX_LINE_BYTES;
            st.lines += 1;
            st.bytes += line.len() as u64 + 1;
            let text = String::from_utf8_lossy(line);
            let cmds = parser.feed(&text);
            check_bounds(&cmds).map_err(|e| fail(e, &input))?;
            got.extend(cmds);
        }
        st.commands += got.len() as u64;
        if was_in_block {
            // A damaged earlier item left a block open: this item's lines mean something else.
            all.extend(got);
            continue;
        }
        match &item.expect {
            Expect::Exact(want) => {
                st.checked += 1;
                let ok = want.len() == got.len()
                    && want.iter().zip(&got).all(|(a, b)| same_command(a, b));
                if !ok {
                    return Err(fail(format!("expected {want:?}, parsed {got:?}"), &input));
                }
                if parser.in_block() {
                    return Err(fail("a complete item left a block open".into(), &input));
                }
            }
            Expect::Bad => {
                st.checked += 1;
                if !(got.len() == 1 && is_bad(&got[0])) {
                    return Err(fail(format!("expected an error, parsed {got:?}"), &input));
                }
            }
            Expect::Any => {}
        }
        all.extend(got);
    }
    // The same bytes through the brain's bounded line reader give the same commands (unless a
    // line was longer than the reader keeps: then it is thrown away there, by design).
    if long_line {
        st.cases += 1;
        return Ok(());
    }
    let again = crate::fuzz::reader_parse(&input);
    let n = again.len().min(all.len());
    if again.len() != all.len() || !again.iter().zip(&all).all(|(a, b)| same_command(a, b)) {
        let at = (0..n)
            .find(|&i| !same_command(&again[i], &all[i]))
            .unwrap_or(n);
        return Err(fail(
            format!(
                "line reader disagrees at command {at}: {:?} vs {:?}",
                again.get(at),
                all.get(at)
            ),
            &input,
        ));
    }
    st.cases += 1;
    Ok(())
}

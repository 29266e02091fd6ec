//! The only writer of stdout: one protocol line at a time, flushed at once.
//!
//! Managers read whole lines and judge them strictly (Piskvork scores any unexpected line while it
//! waits for a move as a loss; c-gomoku-cli rejects `7,7 ` with a trailing space), so every line is
//! sanitised here: control characters become spaces, trailing whitespace is dropped, and nothing
//! at all is written once [`Output::close`] has been called (after `END`).

use std::io::Write;
use std::sync::Arc;

use parking_lot::Mutex;

struct Inner {
    sink: Box<dyn Write + Send>,
    closed: bool,
}

/// A cloneable handle to the protocol output (stdout, or a buffer in tests).
#[derive(Clone)]
pub struct Output {
    inner: Arc<Mutex<Inner>>,
}

/// What a write-failure does: the manager is gone, so the brain has nothing left to do.
fn on_write_error(e: std::io::Error) {
    log::warn!("stdout is gone ({e}); exiting");
    std::process::exit(0);
}

impl Output {
    /// Output to the process's stdout.
    pub fn stdout() -> Output {
        Output::to_writer(Box::new(std::io::stdout()))
    }

    /// Output to any writer (tests capture answers this way).
    pub fn to_writer(sink: Box<dyn Write + Send>) -> Output {
        Output {
            inner: Arc::new(Mutex::new(Inner {
                sink,
                closed: false,
            })),
        }
    }

    /// Output into a shared buffer; returns the handle and the buffer.
    pub fn capture() -> (Output, Arc<Mutex<Vec<u8>>>) {
        let buf = Arc::new(Mutex::new(Vec::new()));
        (Output::to_writer(Box::new(SharedBuf(buf.clone()))), buf)
    }

    /// Writes one line (sanitised) and flushes. Does nothing after [`Output::close`].
    pub fn line(&self, text: &str) {
        let clean = sanitize(text);
        let mut inner = self.inner.lock();
        if inner.closed {
            return;
        }
        let res = inner
            .sink
            .write_all(clean.as_bytes())
            .and_then(|_| inner.sink.write_all(b"\n"))
            .and_then(|_| inner.sink.flush());
        if let Err(e) = res {
            inner.closed = true;
            drop(inner);
            on_write_error(e);
        }
    }

    /// `OK`.
    pub fn ok(&self) {
        self.line("OK");
    }

    /// A move: exactly `x,y`.
    pub fn mv(&self, x: usize, y: usize) {
        self.line(&format!("{x},{y}"));
    }

    /// `ERROR msg`.
    pub fn error(&self, msg: &str) {
        self.line(&format!("ERROR {msg}"));
    }

    /// `UNKNOWN msg`.
    pub fn unknown(&self, msg: &str) {
        self.line(&format!("UNKNOWN {msg}"));
    }

    /// `MESSAGE text` (shown to the user by managers; skipped while they wait for a move).
    pub fn message(&self, msg: &str) {
        self.line(&format!("MESSAGE {msg}"));
    }

    /// Stops all further output for good (after `END` nothing may be written).
    pub fn close(&self) {
        self.inner.lock().closed = true;
    }

    /// Whether [`Output::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.inner.lock().closed
    }
}

/// One line, no control characters, no trailing whitespace.
fn sanitize(text: &str) -> String {
    let mut s: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let end = s.trim_end().len();
    s.truncate(end);
    s
}

/// A `Write` into a shared byte buffer.
struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl Write for SharedBuf {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0.lock().extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(buf: &Arc<Mutex<Vec<u8>>>) -> String {
        String::from_utf8(buf.lock().clone()).unwrap()
    }

    #[test]
    fn lines_are_exact() {
        let (out, buf) = Output::capture();
        out.ok();
        out.mv(7, 12);
        out.error("bad move");
        out.unknown("what");
        out.message("depth 3");
        assert_eq!(
            text(&buf),
            "OK\n7,12\nERROR bad move\nUNKNOWN what\nMESSAGE depth 3\n"
        );
    }

    #[test]
    fn sanitised() {
        let (out, buf) = Output::capture();
        out.line("7,7 \t ");
        out.message("two\nlines\r");
        assert_eq!(text(&buf), "7,7\nMESSAGE two lines\n");
    }

    #[test]
    fn nothing_after_close() {
        let (out, buf) = Output::capture();
        out.ok();
        out.close();
        assert!(out.is_closed());
        out.mv(1, 1);
        assert_eq!(text(&buf), "OK\n");
    }
}

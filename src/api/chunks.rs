//! An answer handed on in pieces ([`Answer::write_chunks`]).

use super::{Answer, Piece};

impl Answer<'_> {
    /// Whether the answer is ASCII throughout (a caller building a Python `str` in pieces
    /// then never widens it).
    pub fn is_ascii(&self) -> bool {
        !self.wide_report
            && self.buf.is_ascii()
            && self.pieces.iter().all(|piece| match piece {
                Piece::Borrowed(s) => s.is_ascii(),
                Piece::Owned(b) => b.is_ascii(),
                Piece::Report(..) => true,
            })
    }

    /// Hands the answer to `out` in order, in pieces of at most `chunk` bytes (each whole
    /// characters), so that a caller building its own copy (a Python `str`) never holds a
    /// whole second one: the caller's bytes are handed as they lie in the request, the rest
    /// goes through one buffer of `chunk` bytes. The first error `out` returns stops the
    /// writing and is returned.
    pub fn write_chunks<E>(
        mut self,
        chunk: usize,
        out: impl FnMut(&str) -> Result<(), E>,
    ) -> Result<(), E> {
        self.flush();
        let mut sink = Chunks {
            buf: String::with_capacity(chunk.min(self.len).max(1)),
            chunk: chunk.max(4),
            out,
            failed: None,
        };
        for piece in &self.pieces {
            match piece {
                Piece::Borrowed(s) => sink.push(s),
                // Written by this module from strings: UTF-8.
                Piece::Owned(b) => {
                    sink.push(std::str::from_utf8(b).expect("the answer is made of UTF-8 pieces"))
                }
                Piece::Report(report, style) => report.write(&mut sink, *style),
            }
        }
        sink.emit_buffer();
        sink.failed.map_or(Ok(()), Err)
    }
}

/// The length of a report written here, and whether it has characters beyond ASCII.
#[derive(Default)]
pub(super) struct Measure {
    pub len: usize,
    pub wide: bool,
}

impl std::fmt::Write for Measure {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.len += s.len();
        self.wide |= !s.is_ascii();
        Ok(())
    }
}

impl crate::report::Sink for Measure {}

/// What [`Answer::write_chunks`] writes through: short texts gather in `buf`, long ones are
/// handed on in place.
struct Chunks<F, E> {
    buf: String,
    chunk: usize,
    out: F,
    failed: Option<E>,
}

impl<F: FnMut(&str) -> Result<(), E>, E> Chunks<F, E> {
    fn emit(&mut self, s: &str) {
        if self.failed.is_none() && !s.is_empty() {
            if let Err(e) = (self.out)(s) {
                self.failed = Some(e);
            }
        }
    }

    fn emit_buffer(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        self.emit(&buf);
        self.buf = buf;
        self.buf.clear();
    }

    fn push(&mut self, mut s: &str) {
        if self.buf.len() + s.len() <= self.chunk {
            self.buf.push_str(s);
            return;
        }
        self.emit_buffer();
        // A long text goes on as it lies, cut between characters.
        while s.len() > self.chunk {
            let mut at = self.chunk;
            while !s.is_char_boundary(at) {
                at -= 1;
            }
            self.emit(&s[..at]);
            s = &s[at..];
        }
        self.buf.push_str(s);
    }
}

impl<F: FnMut(&str) -> Result<(), E>, E> std::fmt::Write for Chunks<F, E> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.push(s);
        Ok(())
    }
}

impl<F: FnMut(&str) -> Result<(), E>, E> crate::report::Sink for Chunks<F, E> {}

#[cfg(test)]
mod tests {
    use super::super::{sanitize_answer, trim_answer, LARGE_REPORT, SPLICE};

    /// The pieces, joined, are the answer; each is at most `chunk` bytes and whole characters.
    fn pieces_join(text: &str, answer: impl Fn(&str) -> super::Answer<'_>, chunk: usize) {
        let whole = answer(text).into_string();
        let mut joined = String::new();
        let mut count = 0;
        answer(text)
            .write_chunks(chunk, |piece| {
                assert!(
                    !piece.is_empty() && piece.len() <= chunk.max(4),
                    "{piece:?}"
                );
                joined.push_str(piece);
                count += 1;
                Ok::<(), ()>(())
            })
            .unwrap();
        assert_eq!(joined, whole, "chunk {chunk}");
        assert_eq!(answer(text).is_ascii(), whole.is_ascii());
        assert!(
            count >= whole.len() / chunk.max(4),
            "chunk {chunk}: {count} pieces"
        );
    }

    #[test]
    fn an_answer_handed_on_in_pieces_is_the_answer() {
        let long = "é 世界 🦀 ".repeat(SPLICE);
        for n in [3, LARGE_REPORT + 1] {
            let broken = vec![r#"{"role":"x"}"#; n].join(",");
            let text = format!(
                r#"{{"messages":[{broken},{{"role":"user","content":"{long}"}},{{"role":"assistant","content":"ok"}}],"max_messages":40}}"#
            );
            for chunk in [0, 1, 5, 64, 1000, 1 << 20] {
                pieces_join(&text, |t| trim_answer(t).unwrap(), chunk);
            }
            let messages = format!("[{broken}]");
            pieces_join(&messages, |t| sanitize_answer(t).unwrap(), 100);
            // ASCII throughout, and a report beyond ASCII (an unknown role's as written).
            let ascii = text.replace(&long, "plain");
            pieces_join(&ascii, |t| trim_answer(t).unwrap(), 64);
            let wide_role = ascii.replace(r#""x""#, r#""é""#);
            pieces_join(&wide_role, |t| trim_answer(t).unwrap(), 64);
        }
    }

    #[test]
    fn the_first_error_stops_the_pieces() {
        let text = format!(
            r#"{{"messages":[{{"role":"user","content":"{}"}}]}}"#,
            "a".repeat(5000)
        );
        let mut calls = 0;
        let result = trim_answer(&text).unwrap().write_chunks(100, |_| {
            calls += 1;
            if calls == 3 {
                Err(calls)
            } else {
                Ok(())
            }
        });
        assert_eq!((result, calls), (Err(3), 3));
    }
}

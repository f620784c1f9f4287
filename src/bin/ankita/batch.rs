//! `trim --jsonl`: one request per input line, one answer per output line in input order,
//! trimmed on every core (`--threads N`). A reader thread reads ahead; each chunk of lines is
//! answered by the core's batch ([`ankita::batch`]: scoped threads taking lines one at a time,
//! as lines differ wildly in size), then written in order.

use crate::{outcome_of_code, write_failure, Failure, Outcome};
use ankita::batch;
use ankita::splice::Key;
use ankita::{Error, ErrorCode};
use std::io::{BufRead, IsTerminal, Write};

/// At most this many lines are held at once…
const CHUNK_LINES: usize = 4096;
/// …or about this many bytes of them.
const CHUNK_BYTES: usize = 64 << 20;

/// How a batch went.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub lines: u64,
    pub ok: u64,
    /// Lines whose budget cannot be met (exit code 1 of a single request).
    pub budget: u64,
    /// Lines that are not a valid request (exit code 3 of a single request).
    pub invalid: u64,
}

impl Tally {
    fn add(&mut self, outcome: Outcome) {
        self.lines += 1;
        match outcome {
            Outcome::Ok => self.ok += 1,
            Outcome::Budget => self.budget += 1,
            Outcome::Invalid => self.invalid += 1,
        }
    }

    fn line(&self) -> String {
        format!(
            "{} lines: {} ok, {} errors ({} invalid, {} budget)",
            self.lines,
            self.ok,
            self.budget + self.invalid,
            self.invalid,
            self.budget
        )
    }
}

/// Where the requests come from.
pub enum Source {
    Stdin,
    File(std::fs::File),
}

/// Answers every line of `source` on stdout; `flags` fill in the keys a request lacks.
///
/// A reader thread reads ahead while a chunk is trimmed. A chunk is whatever lines are ready
/// (up to [`CHUNK_LINES`]), so a producer that waits for each answer before sending the next
/// request gets it at once, and a file is trimmed in full chunks.
pub fn run(source: Source, flags: &[Key], threads: usize) -> Result<Tally, Failure> {
    let progress = std::io::stderr().is_terminal();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let mut tally = Tally::default();
    let mut last_drawn = std::time::Instant::now();
    let (lines, received) = std::sync::mpsc::sync_channel(CHUNK_LINES);
    std::thread::scope(|scope| {
        scope.spawn(move || match source {
            Source::Stdin => read_lines(&mut std::io::stdin().lock(), &lines),
            Source::File(file) => read_lines(
                &mut std::io::BufReader::with_capacity(1 << 20, file),
                &lines,
            ),
        });
        while let Some((chunk, error)) = next_chunk(&received) {
            for answer in answer_all(&chunk, flags, threads) {
                write_answer(&mut out, answer.text.as_bytes())?;
                tally.add(answer.outcome);
            }
            out.flush().map_err(write_failure)?;
            // Redrawn at most ten times a second: chunks can be a line each.
            if progress && last_drawn.elapsed() >= std::time::Duration::from_millis(100) {
                eprint!("\rankita: {}", tally.line());
                last_drawn = std::time::Instant::now();
            }
            if let Some(e) = error {
                return Err(Failure::Input(format!(
                    "reading the requests after line {}: {e}",
                    tally.lines
                )));
            }
        }
        Ok::<(), Failure>(())
    })?;
    if progress {
        eprint!("\r\x1b[K");
    }
    eprintln!("ankita: {}", tally.line());
    Ok(tally)
}

fn write_answer(out: &mut impl Write, text: &[u8]) -> Result<(), Failure> {
    out.write_all(text)
        .and_then(|()| out.write_all(b"\n"))
        .map_err(write_failure)
}

type Line = std::io::Result<Vec<u8>>;

/// Sends each line of `input`, without its line end, until the input or the receiver ends.
fn read_lines(input: &mut impl BufRead, lines: &std::sync::mpsc::SyncSender<Line>) {
    loop {
        let mut line = Vec::new();
        let read = match input.read_until(b'\n', &mut line) {
            Ok(0) => return,
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                    if line.last() == Some(&b'\r') {
                        line.pop();
                    }
                }
                Ok(line)
            }
            Err(e) => Err(e),
        };
        let failed = read.is_err();
        if lines.send(read).is_err() || failed {
            return;
        }
    }
}

/// The lines ready now (waiting for the first one), and the read error that ended them, if
/// any; `None` at the end of the input.
fn next_chunk(
    received: &std::sync::mpsc::Receiver<Line>,
) -> Option<(Vec<Vec<u8>>, Option<std::io::Error>)> {
    let mut chunk = Vec::new();
    let mut bytes = 0;
    let mut next = received.recv().ok()?;
    loop {
        match next {
            Ok(line) => {
                bytes += line.len();
                chunk.push(line);
            }
            Err(e) => return Some((chunk, Some(e))),
        }
        if chunk.len() >= CHUNK_LINES || bytes >= CHUNK_BYTES {
            return Some((chunk, None));
        }
        match received.try_recv() {
            Ok(line) => next = line,
            Err(_) => return Some((chunk, None)),
        }
    }
}

/// One line's answer.
pub struct Answer {
    pub text: String,
    pub outcome: Outcome,
}

/// Answers `lines` on up to `threads` threads, in input order.
fn answer_all(lines: &[Vec<u8>], flags: &[Key], threads: usize) -> Vec<Answer> {
    batch::map_in_order(lines, threads, |_, line| answer_line(line, flags))
}

/// The answer to one line: the core's answer for the line with `flags` filling in the keys it
/// lacks ([`batch::trim_one`]), or an error naming what is wrong with the line.
pub fn answer_line(line: &[u8], flags: &[Key]) -> Answer {
    let Ok(text) = std::str::from_utf8(line) else {
        return error_answer(ErrorCode::InvalidJson, "the line is not valid UTF-8");
    };
    if text.trim().is_empty() {
        return error_answer(
            ErrorCode::InvalidJson,
            "the line is empty; each line must hold one request",
        );
    }
    let answer = batch::trim_one(text, flags);
    Answer {
        outcome: answer
            .error
            .map_or(Outcome::Ok, |code| outcome_of_code(code.as_str())),
        text: answer.text,
    }
}

fn error_answer(code: ErrorCode, message: &str) -> Answer {
    Answer {
        text: Error::new(code, message).to_response().to_string(),
        outcome: outcome_of_code(code.as_str()),
    }
}

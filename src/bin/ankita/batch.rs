//! `trim --jsonl`: one request per input line, one answer per output line in input order,
//! trimmed on every core. Lines are read in chunks; each chunk is answered by a scoped pool of
//! threads taking lines one at a time (lines differ wildly in size), then written in order.

use crate::{merge_flags, outcome_of, outcome_of_code, write_failure, Failure, Outcome};
use ankita::{api, Error, ErrorCode};
use serde_json::{Map, Value};
use std::io::{BufRead, IsTerminal, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// Answers every line of `input` on stdout; `flags` fill in the keys a request lacks.
pub fn run(
    input: &mut dyn BufRead,
    flags: &Map<String, Value>,
    threads: usize,
) -> Result<Tally, Failure> {
    let progress = std::io::stderr().is_terminal();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let mut tally = Tally::default();
    loop {
        let chunk = read_chunk(input)?;
        if chunk.is_empty() {
            break;
        }
        for answer in answer_all(&chunk, flags, threads) {
            write_answer(&mut out, answer.text.as_bytes())?;
            tally.add(answer.outcome);
        }
        out.flush().map_err(write_failure)?;
        if progress {
            eprint!("\rankita: {}", tally.line());
        }
    }
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

/// The next lines, without their line ends; empty at the end of the input.
fn read_chunk(input: &mut dyn BufRead) -> Result<Vec<Vec<u8>>, Failure> {
    let mut lines = Vec::new();
    let mut bytes = 0;
    while lines.len() < CHUNK_LINES && bytes < CHUNK_BYTES {
        let mut line = Vec::new();
        let n = input
            .read_until(b'\n', &mut line)
            .map_err(|e| Failure::Input(format!("reading the requests: {e}")))?;
        if n == 0 {
            break;
        }
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        bytes += line.len();
        lines.push(line);
    }
    Ok(lines)
}

/// One line's answer.
pub struct Answer {
    pub text: String,
    pub outcome: Outcome,
}

/// Answers `lines` on up to `threads` threads, in input order.
fn answer_all(lines: &[Vec<u8>], flags: &Map<String, Value>, threads: usize) -> Vec<Answer> {
    let threads = threads.clamp(1, lines.len().max(1));
    if threads == 1 {
        return lines.iter().map(|line| answer_line(line, flags)).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut mine = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(line) = lines.get(i) else {
                return mine;
            };
            mine.push((i, answer_line(line, flags)));
        }
    };
    let mut slots: Vec<Option<Answer>> =
        std::iter::repeat_with(|| None).take(lines.len()).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
        for worker in workers {
            // answer_line catches panics, so a worker always returns.
            for (i, answer) in worker.join().unwrap_or_default() {
                slots[i] = Some(answer);
            }
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.unwrap_or_else(|| error_answer(ErrorCode::Internal, "no answer")))
        .collect()
}

/// The answer to one line: the core's response, or an error naming what is wrong with it.
pub fn answer_line(line: &[u8], flags: &Map<String, Value>) -> Answer {
    let Ok(text) = std::str::from_utf8(line) else {
        return error_answer(ErrorCode::InvalidJson, "the line is not valid UTF-8");
    };
    if text.trim().is_empty() {
        return error_answer(
            ErrorCode::InvalidJson,
            "the line is empty; each line must hold one request",
        );
    }
    let answered = catch_unwind(AssertUnwindSafe(|| {
        let bare_array = text.trim_start().starts_with('[');
        if flags.is_empty() && !bare_array {
            return api::trim_json(text);
        }
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(request)) => {
                api::trim_json(&Value::Object(merge_flags(request, flags, false)).to_string())
            }
            Ok(Value::Array(messages)) => {
                let mut request = Map::new();
                request.insert("messages".into(), Value::Array(messages));
                api::trim_json(&Value::Object(merge_flags(request, flags, false)).to_string())
            }
            // Not a request: the core says what is wrong with it.
            _ => api::trim_json(text),
        }
    }));
    match answered {
        Ok(text) => Answer {
            outcome: outcome_of(&text),
            text,
        },
        Err(_) => error_answer(ErrorCode::Internal, "trimming this line panicked"),
    }
}

fn error_answer(code: ErrorCode, message: &str) -> Answer {
    Answer {
        text: Error::new(code, message).to_response().to_string(),
        outcome: outcome_of_code(code.as_str()),
    }
}

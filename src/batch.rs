//! Many requests at once (a dataset): each answered as [`api::trim_json`] answers it, with
//! defaults filling in the keys a request lacks, on many threads, in input order.
//!
//! The threads are scoped ([`std::thread::scope`]) and take requests one at a time from a
//! shared counter, since requests differ wildly in size (a text chat beside a session of
//! screenshots). A request's failure is its own answer (`{"ok": false, "error": ...}`), never
//! the batch's: a bad row cannot stop a dataset. Every front end calls this: the C ABI
//! (`ankita_trim_many`), the command line's `trim --jsonl --threads N`, Python's
//! `ankita.trim_many` and Node's `trimMany`.

use crate::api;
use crate::error::{Error, ErrorCode};
use crate::request::TrimOptions;
use crate::splice::{self, Key, Precedence, Splice};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

/// One request's answer: the JSON text [`api::trim_json`] answers, and its error code when it
/// is a failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub text: String,
    pub error: Option<ErrorCode>,
}

impl Answer {
    /// The answer of a failure.
    pub fn failure(error: &Error) -> Self {
        Answer {
            text: error.to_response().to_string(),
            error: Some(error.code),
        }
    }

    /// Whether the request was trimmed.
    pub fn is_ok(&self) -> bool {
        self.error.is_none()
    }
}

/// The number of threads a batch uses when none is asked for: every core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Defaults for a batch from a JSON object of request keys (`{"context_tokens": 8000, "model":
/// "gpt-4o"}`): each value as JSON text. The keys and values are checked once, as a request's
/// options are (an unknown key or a bad value is an `invalid_request` error naming it), so a
/// typo fails the batch at once rather than every row; `messages` belongs to each request and
/// is refused.
pub fn defaults_from_map(map: &Map<String, Value>) -> Result<Vec<Key>, Error> {
    if map.contains_key("messages") {
        return Err(Error::invalid_request(
            "messages is each request's own, not a default of the batch",
            "messages",
        ));
    }
    TrimOptions::from_map(map)?;
    Ok(map
        .iter()
        .map(|(k, v)| (Cow::Owned(k.clone()), v.to_string()))
        .collect())
}

/// [`defaults_from_map`] for JSON text: an object, or `null` for no defaults.
pub fn defaults_from_json(text: &str) -> Result<Vec<Key>, Error> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        Error::new(
            ErrorCode::InvalidJson,
            format!("the defaults are not valid JSON: {e}"),
        )
    })?;
    match value {
        Value::Null => Ok(Vec::new()),
        Value::Object(map) => defaults_from_map(&map),
        other => Err(Error::new(
            ErrorCode::InvalidRequest,
            format!("the defaults must be a JSON object of request keys, not {other}"),
        )),
    }
}

/// The answer to one request text with `defaults` filling in the keys it lacks (a `null` is
/// lacking, but for `max_messages`): what [`api::trim_json`] answers for the request with
/// those keys added. A bare messages array is the request `{"messages": ARRAY}`. A panic is
/// answered as an `internal` error.
pub fn trim_one(request: &str, defaults: &[Key]) -> Answer {
    let answered = catch_unwind(AssertUnwindSafe(|| {
        let bare_array = request.trim_start().starts_with('[');
        if defaults.is_empty() && !bare_array {
            // The request as it is: nothing to splice, nothing to copy.
            return api::trim_answer(request).map(|a| a.into_string());
        }
        let splice = Splice {
            keys: defaults,
            precedence: Some(Precedence::FillIn),
            ..Splice::default()
        };
        splice::answer(request.to_string(), &splice, |t| {
            api::trim_answer(t).map(|a| a.into_string())
        })
    }));
    match answered {
        Ok(Ok(text)) => Answer { text, error: None },
        Ok(Err(error)) => Answer::failure(&error),
        Err(panic) => Answer::failure(&Error::from_panic(&*panic)),
    }
}

/// [`trim_one`] for bytes: a text that is not UTF-8 is answered with an `invalid_json` error
/// naming `requests[index]` and the offset of its first bad byte.
pub fn trim_one_bytes(request: &[u8], index: usize, defaults: &[Key]) -> Answer {
    match simdutf8::basic::from_utf8(request) {
        Ok(text) => trim_one(text, defaults),
        Err(_) => {
            let offset = std::str::from_utf8(request)
                .err()
                .map_or(0, |e| e.valid_up_to());
            Answer::failure(&Error::new(
                ErrorCode::InvalidJson,
                format!("requests[{index}] is not valid UTF-8 (invalid byte at offset {offset})"),
            ))
        }
    }
}

/// Answers every request with [`trim_one_bytes`] on up to `threads` threads (0: every core),
/// in input order.
pub fn trim_many<R: AsRef<[u8]> + Sync>(
    requests: &[R],
    defaults: &[Key],
    threads: usize,
) -> Vec<Answer> {
    map_in_order(requests, threads, |i, request| {
        trim_one_bytes(request.as_ref(), i, defaults)
    })
}

/// `f(i, item)` for every item, on up to `threads` threads (0: every core; never more than
/// there are items), answered in input order. The calling thread is one of the workers. `f`
/// should not panic ([`trim_one`] does not); a panic is raised again here once every thread
/// has stopped.
pub fn map_in_order<T: Sync, A: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(usize, &T) -> A + Sync,
) -> Vec<A> {
    let threads = if threads == 0 {
        default_threads()
    } else {
        threads
    };
    // WebAssembly has no threads (docs/wasm.md): one request at a time, on the caller's.
    let threads = if cfg!(target_arch = "wasm32") {
        1
    } else {
        threads.clamp(1, items.len().max(1))
    };
    if threads == 1 {
        return items.iter().enumerate().map(|(i, x)| f(i, x)).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut mine = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return mine;
            };
            mine.push((i, f(i, item)));
        }
    };
    let mut slots: Vec<Option<A>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mine = catch_unwind(AssertUnwindSafe(work));
        let mut panic = None;
        let theirs = helpers.into_iter().map(|h| h.join());
        for done in std::iter::once(mine).chain(theirs) {
            match done {
                Ok(answers) => {
                    for (i, answer) in answers {
                        slots[i] = Some(answer);
                    }
                }
                Err(p) => panic = Some(p),
            }
        }
        if let Some(p) = panic {
            resume_unwind(p);
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.expect("every item was answered by the thread that took it"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_stay_in_order_on_many_threads() {
        let items: Vec<usize> = (0..1000).collect();
        for threads in [0, 1, 2, 7, 5000] {
            let out = map_in_order(&items, threads, |i, x| {
                assert_eq!(i, *x);
                x * 2
            });
            assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        }
        assert!(map_in_order(&[] as &[u8], 4, |_, x| *x).is_empty());
    }

    #[test]
    fn a_row_answers_what_trim_json_answers() {
        let requests = [
            r#"{"messages":[{"role":"user","content":"hi"}]}"#.as_bytes(),
            b"{not json",
            b"\xff\xfe",
            br#"[{"role":"user","content":"hello"}]"#,
            br#"{"messages":[{"role":"user","content":"hi"}],"max_bytes":"x"}"#,
        ];
        let answers = trim_many(&requests, &[], 2);
        assert_eq!(
            answers[0].text,
            api::trim_json(std::str::from_utf8(requests[0]).unwrap())
        );
        assert!(answers[0].is_ok());
        assert_eq!(answers[1].text, api::trim_json("{not json"));
        assert_eq!(answers[1].error, Some(ErrorCode::InvalidJson));
        assert!(answers[2].text.contains("requests[2] is not valid UTF-8"));
        assert_eq!(
            answers[3].text,
            api::trim_json(r#"{"messages":[{"role":"user","content":"hello"}]}"#)
        );
        assert_eq!(answers[4].error, Some(ErrorCode::InvalidRequest));
    }

    #[test]
    fn defaults_fill_in_what_a_request_lacks() {
        let defaults = defaults_from_json(r#"{"max_bytes": 100000, "max_messages": 1}"#).unwrap();
        let own = r#"{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}],"max_messages":2}"#;
        let answer = trim_one(own, &defaults);
        let expected = api::trim_json(&format!(
            "{},\"max_bytes\":100000}}",
            own.trim_end_matches('}')
        ));
        assert_eq!(answer.text, expected);
        for bad in [
            r#"{"max_byte": 1}"#,
            r#"{"max_bytes": "x"}"#,
            r#"{"messages": []}"#,
            "[1]",
            "{",
        ] {
            assert!(defaults_from_json(bad).is_err(), "{bad}");
        }
        assert!(defaults_from_json("null").unwrap().is_empty());
    }

    #[test]
    fn a_bare_arrays_json_error_is_placed_in_the_callers_text() {
        let bad = r#"[{"role": "user", "content": }]"#;
        let answer = trim_one(bad, &[]);
        assert_eq!(answer.error, Some(ErrorCode::InvalidJson));
        // As the array alone reads: the column is the caller's, not the wrapped request's.
        assert_eq!(answer.text, api::trim_json(bad), "{}", answer.text);
        // Valid alone, one level too deep once wrapped: the depth error stands.
        let deep = format!("{}{}", "[".repeat(127), "]".repeat(127));
        assert!(api::trim_json(&deep).contains("invalid_request"));
        let answer = trim_one(&deep, &[]);
        assert_eq!(
            answer.error,
            Some(ErrorCode::InvalidJson),
            "{}",
            answer.text
        );
    }
}

//! The C ABI. Every export runs inside `boundary`: arguments are checked for NULL and UTF-8,
//! panics are caught and reported as `internal`, and the answer is always a JSON string that
//! the caller releases with [`ankita_string_free`]. Nothing here holds global mutable state, so
//! every function may be called from many threads at once.

use crate::api::Answer;
use crate::error::{Error, ErrorCode};
use crate::session::TrimSession;
use serde_json::Value;
use std::cell::UnsafeCell;
use std::ffi::c_char;
use std::mem::{size_of, ManuallyDrop};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

mod args;
mod batch;
mod contract;
mod tail;
use args::{bytes_arg, doc_arg, null_error, str_arg};
pub use batch::ankita_trim_many;
pub use contract::{ankita_formats, ankita_options};

/// Every string the library returns is `[capacity: usize][text][NUL]` in one allocation of the
/// text's exact size; the caller holds a pointer to the text, and [`ankita_string_free`] finds
/// the allocation's size in the header instead of scanning the text.
const HEADER: usize = size_of::<usize>();

/// Copies an answer of `len` bytes, written by `write`, into a new library string.
fn c_string(len: usize, write: impl FnOnce(&mut Vec<u8>)) -> *mut c_char {
    let mut buf: Vec<u8> = Vec::with_capacity(HEADER + len + 1);
    buf.extend_from_slice(&[0; HEADER]);
    write(&mut buf);
    buf.push(0);
    let capacity = buf.capacity();
    buf[..HEADER].copy_from_slice(&capacity.to_ne_bytes());
    let mut buf = ManuallyDrop::new(buf);
    // SAFETY: HEADER < buf.len(), so the pointer stays inside the allocation.
    unsafe { buf.as_mut_ptr().add(HEADER) }.cast()
}

pub(crate) fn text_string(text: &str) -> *mut c_char {
    c_string(text.len(), |buf| buf.extend_from_slice(text.as_bytes()))
}

/// Runs `body` and turns its outcome, or its panic, into a library string.
fn boundary(body: impl FnOnce() -> Result<Value, Error>) -> *mut c_char {
    boundary_answer(|| body().map(|value| Reply::Text(value.to_string())))
}

/// What an export answers on success.
enum Reply<'a> {
    Text(String),
    Answer(Answer<'a>),
}

/// Like `boundary` for bodies that assemble an [`Answer`] or produce JSON text.
fn boundary_answer<'a>(body: impl FnOnce() -> Result<Reply<'a>, Error>) -> *mut c_char {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(Reply::Answer(answer))) => c_string(answer.len(), |buf| answer.write_into(buf)),
        Ok(Ok(Reply::Text(text))) => text_string(&text),
        Ok(Err(error)) => text_string(&error.to_response().to_string()),
        Err(panic) => text_string(&Error::from_panic(&*panic).to_response().to_string()),
    }
}

/// Probes an image given as a data URL or bare base64 text, reading only its header.
///
/// Answers `{"ok": true, "format": "png", "width": 1700, "height": 2200, "tokens": 765,
/// "budget_bytes": 3060}`; `format`, `width`, `height` and `tokens` are null when the image
/// cannot be decoded (it then costs its text's byte length). A NULL or non-UTF-8 `image` gets
/// `{"ok": false, "error": {"code": "invalid_argument", ...}}`.
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `image` is NULL or a NUL-terminated string valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_probe_image(image: *const c_char) -> *mut c_char {
    boundary(|| {
        // SAFETY: forwarded from this function's contract.
        let image = unsafe { str_arg(image, "image") }?;
        Ok(crate::api::probe_response(
            image,
            crate::pricing::ImageProfile::default(),
        ))
    })
}

/// `ankita_probe_image` for a string of `len` bytes (no NUL needed): a caller that knows the
/// length spares a scan of a megabyte data URL.
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `image` is NULL or points to `len` readable bytes valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_probe_image_n(image: *const c_char, len: usize) -> *mut c_char {
    boundary(|| {
        // SAFETY: forwarded from this function's contract.
        let image = unsafe { bytes_arg(image, len, "image") }?;
        Ok(crate::api::probe_response(
            image,
            crate::pricing::ImageProfile::default(),
        ))
    })
}

/// Trims a chat history to its budget: the JSON contract of DESIGN §8.
///
/// `request_json` is `{"messages": [...], "max_bytes"?, "context_tokens"?, ...}`. The answer is
/// `{"ok": true, "messages": [...], "report": {...}}` or `{"ok": false, "error": {"code",
/// "message", "path"?}}` with codes `invalid_json`, `invalid_request`,
/// `context_budget_exceeded`, `history_budget_too_small`, `image_overflow`,
/// `invalid_argument` (NULL or non-UTF-8 argument) and `internal`.
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `request_json` is NULL or a NUL-terminated string valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_trim(request_json: *const c_char) -> *mut c_char {
    boundary_answer(|| {
        // SAFETY: forwarded from this function's contract.
        let doc = unsafe { doc_arg(request_json, None, "request_json") }?;
        crate::api::request_answer(crate::api::Request::read(doc)?).map(Reply::Answer)
    })
}

/// `ankita_trim` for a request of `len` bytes (no NUL needed): a caller that knows the length
/// (a Node `Buffer`, a Python `bytes`, a `std::string`) spares a scan of the whole request.
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `request_json` is NULL or points to `len` readable bytes valid for the duration of the
/// call.
#[no_mangle]
pub unsafe extern "C" fn ankita_trim_n(request_json: *const c_char, len: usize) -> *mut c_char {
    boundary_answer(|| {
        // SAFETY: forwarded from this function's contract.
        let doc = unsafe { doc_arg(request_json, Some(len), "request_json") }?;
        crate::api::request_answer(crate::api::Request::read(doc)?).map(Reply::Answer)
    })
}

/// Trims a long history from its newest messages: `request_json` is a trim request whose
/// `messages` are the caller's messages from index `window.from` on, with
/// `"window": {"from": <index>, "earlier": [[<start>, [<messages>]], ...]}` giving the older
/// messages the answer may depend on (a plain message — role and non-empty text only — may be
/// left out when plain messages bound it; see `ankita::tail` and docs/long-histories.md).
/// Without `window`, `messages` is the whole history.
///
/// The answer is the whole history's trim as a plan, `{"ok": true, "plan": [...], "report":
/// {...}}` (each item of `plan` the index of a message returned as given, or a changed message;
/// the report's dropped messages as `dropped_ranges`, `[start, end)` pairs), or
/// `{"ok": true, "widen": true}` when the messages given may not give that answer (send a
/// longer tail, or the whole history; with `"scale"` when every message given fit: how many
/// times more the limits hold; `"scale": null`: send the whole history, when nothing limits the
/// trim, when the messages given fail (the whole history answers the error) or when no tail can
/// give its answer), or an error JSON as for `ankita_trim` (for a malformed request or window).
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `request_json` is NULL or points to `len` readable bytes valid for the duration of the
/// call.
#[no_mangle]
pub unsafe extern "C" fn ankita_trim_tail_n(
    request_json: *const c_char,
    len: usize,
) -> *mut c_char {
    boundary_answer(|| {
        // SAFETY: forwarded from this function's contract.
        let doc = unsafe { doc_arg(request_json, Some(len), "request_json") }?;
        crate::tail::tail_answer(crate::tail::TailRequest::read(doc)?).map(Reply::Answer)
    })
}

/// `ankita_trim_tail_n` for a NUL-terminated request.
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `request_json` is NULL or a NUL-terminated string valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_trim_tail(request_json: *const c_char) -> *mut c_char {
    boundary_answer(|| {
        // SAFETY: forwarded from this function's contract.
        let doc = unsafe { doc_arg(request_json, None, "request_json") }?;
        crate::tail::tail_answer(crate::tail::TailRequest::read(doc)?).map(Reply::Answer)
    })
}

/// Repairs a history given as its newest messages and the older ones the answer may depend on
/// (see `ankita_trim_tail`): `request_json` is `{"messages": [...], "format"?, "window"?:
/// {"from", "earlier"}}`. The answer is `{"ok": true, "plan": [index or changed message, ...],
/// "report": {"repaired": [...]}}` (every message, the left-out ones as their indices), or
/// `{"ok": true, "widen": true}` when the messages given may not give the whole history's
/// answer (formats that merge turns: send the whole history, without `window`), or an error
/// JSON as for `ankita_trim`.
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `request_json` is NULL or a NUL-terminated string valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_sanitize_tail(request_json: *const c_char) -> *mut c_char {
    boundary_answer(|| {
        // SAFETY: forwarded from this function's contract.
        let request = unsafe { str_arg(request_json, "request_json") }?;
        crate::tail::sanitize_tail_answer(request).map(Reply::Answer)
    })
}

/// Counts a chat history the way `ankita_trim` prices it: in the model's tokens when its
/// tokenizer is known (`"model"` or `"tokenizer"`), else in bytes.
///
/// `request_json` is `{"messages": [...], "model"? | "tokenizer"?, "token_factor"?, "format"?,
/// "system"?, "tools"?, "image_profile"?}`. The answer is `{"ok": true, "unit": "tokens" |
/// "bytes", "tokenizer", "exact", "total", "messages": [cost of each message], "system"?,
/// "tools"?}` (`total` includes the system prompt and the tool schemas) or an error JSON as for
/// `ankita_trim`.
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `request_json` is NULL or a NUL-terminated string valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_count_tokens(request_json: *const c_char) -> *mut c_char {
    boundary(|| {
        // SAFETY: forwarded from this function's contract.
        let request = unsafe { str_arg(request_json, "request_json") }?;
        crate::api::count_value(request)
    })
}

/// `ankita_count_tokens` for a request of `len` bytes (no NUL needed).
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `request_json` is NULL or points to `len` readable bytes valid for the duration of the
/// call.
#[no_mangle]
pub unsafe extern "C" fn ankita_count_tokens_n(
    request_json: *const c_char,
    len: usize,
) -> *mut c_char {
    boundary(|| {
        // SAFETY: forwarded from this function's contract.
        let request = unsafe { bytes_arg(request_json, len, "request_json") }?;
        crate::api::count_value(request)
    })
}

/// Repairs a restored session: orphan tool messages, broken or unanswered tool calls, unknown
/// roles and empty messages (DESIGN §5).
///
/// `messages_json` is the messages array, or `{"messages": [...], "format"?: "anthropic" | "gemini"}`.
/// The answer is `{"ok": true, "messages": [...],
/// "report": {"repaired": [...]}}` or an error JSON as for `ankita_trim`.
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `messages_json` is NULL or a NUL-terminated string valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_sanitize(messages_json: *const c_char) -> *mut c_char {
    boundary_answer(|| {
        // SAFETY: forwarded from this function's contract.
        let messages = unsafe { str_arg(messages_json, "messages_json") }?;
        crate::api::sanitize_answer(messages).map(Reply::Answer)
    })
}

/// `ankita_sanitize` for a text of `len` bytes (no NUL needed).
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `messages_json` is NULL or points to `len` readable bytes valid for the duration of the
/// call.
#[no_mangle]
pub unsafe extern "C" fn ankita_sanitize_n(
    messages_json: *const c_char,
    len: usize,
) -> *mut c_char {
    boundary_answer(|| {
        // SAFETY: forwarded from this function's contract.
        let messages = unsafe { bytes_arg(messages_json, len, "messages_json") }?;
        crate::api::sanitize_answer(messages).map(Reply::Answer)
    })
}

/// Vision tokens of an image of `width` × `height` pixels under a pricing profile.
///
/// `options_json` may be NULL (the default `ankita` profile) or `{"image_profile"?: "...",
/// "model"?: "...", "detail"?: "low" | "high" | "auto", "bytes_per_token"?: 4}`. Answers `{"ok": true,
/// "tokens": 765, "budget_bytes": 3060}`, or an error JSON (`invalid_argument` for a zero side,
/// `invalid_request` for a bad option).
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `options_json` is NULL or a NUL-terminated string valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_estimate_image_tokens(
    width: u32,
    height: u32,
    options_json: *const c_char,
) -> *mut c_char {
    boundary(|| {
        let options = if options_json.is_null() {
            Value::Object(Default::default())
        } else {
            // SAFETY: non-NULL and NUL-terminated per this function's contract.
            let text = unsafe { str_arg(options_json, "options_json") }?;
            serde_json::from_str(text).map_err(|e| {
                Error::new(
                    ErrorCode::InvalidJson,
                    format!("options_json: invalid JSON: {e}"),
                )
            })?
        };
        crate::api::estimate_image_tokens(width, height, &options)
    })
}

/// Probes an image like `ankita_probe_image`, priced with options: `options_json` may be NULL
/// or `{"image_profile"?: "openai", "model"?: "gpt-4o", "detail"?: "low" | "high" | "auto",
/// "bytes_per_token"?: 4}` (give `image_profile` or `model`, not both).
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `image` and `options_json` are NULL or NUL-terminated strings valid for the duration of
/// the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_probe_image_with(
    image: *const c_char,
    options_json: *const c_char,
) -> *mut c_char {
    boundary(|| {
        // SAFETY: forwarded from this function's contract.
        let image = unsafe { str_arg(image, "image") }?;
        // SAFETY: forwarded from this function's contract.
        let options = unsafe { options_arg(options_json) }?;
        crate::api::probe_image(image, &options)
    })
}

/// Reads a document's or audio file's structure: a PDF's page count and page size, an audio
/// file's duration (WAV, FLAC, MP3, Ogg Vorbis/Opus, MP4), priced with options as for
/// `ankita_probe_image_with` (`options_json` may be NULL). `file` is a data URL or bare base64.
/// Answers `{"ok": true, "kind", "format", "pages", "page_width", "page_height", "seconds",
/// "millis", "tokens", "budget_bytes", "exact"}`, with nulls and an `error` when the file
/// cannot be read.
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `file` and `options_json` are NULL or NUL-terminated strings valid for the duration of the
/// call.
#[no_mangle]
pub unsafe extern "C" fn ankita_probe_file(
    file: *const c_char,
    options_json: *const c_char,
) -> *mut c_char {
    boundary(|| {
        // SAFETY: forwarded from this function's contract.
        let file = unsafe { str_arg(file, "file") }?;
        // SAFETY: forwarded from this function's contract.
        let options = unsafe { options_arg(options_json) }?;
        crate::api::probe_file(file, &options)
    })
}

/// Parses an optional JSON options argument (NULL means none).
///
/// # Safety
/// `ptr` is NULL or a NUL-terminated string valid for the duration of the call.
unsafe fn options_arg(ptr: *const c_char) -> Result<Value, Error> {
    if ptr.is_null() {
        return Ok(Value::Null);
    }
    // SAFETY: non-NULL and NUL-terminated per the caller's contract.
    let text = unsafe { str_arg(ptr, "options_json") }?;
    serde_json::from_str(text).map_err(|e| {
        Error::new(
            ErrorCode::InvalidJson,
            format!("options_json: invalid JSON: {e}"),
        )
    })
}

/// Where a binding may cut a long data URL before handing it over (DESIGN §10): the length in
/// bytes of the URL's beginning that the probe reads as the same image, or 0 when the whole URL
/// must be handed over. `head` is the URL's beginning (`head_len` bytes, at least 263,169 or
/// the whole URL), `total_len` the whole URL's length. Policy: URLs of at least 65,536
/// characters, base64 data URLs only, cut after 16,384 or 262,144 payload characters.
///
/// Thread safety: may be called from any thread concurrently. Returns 0 for a NULL or
/// non-UTF-8 `head`.
///
/// # Safety
/// `head` is NULL or points to `head_len` readable bytes valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_stand_in_len(
    head: *const c_char,
    head_len: usize,
    total_len: usize,
) -> usize {
    let policy = crate::probe::stand_in::PAYLOAD_CHARS;
    // SAFETY: forwarded from this function's contract.
    unsafe {
        stand_in(
            head,
            head_len,
            total_len,
            crate::probe::stand_in::MIN_CHARS,
            &policy,
        )
    }
}

/// `ankita_stand_in_len` with other thresholds: URLs of at least `min_chars`, cut after one of
/// the `count` payload lengths at `payload_chars` (tests use small ones).
///
/// # Safety
/// `head` is NULL or points to `head_len` readable bytes; `payload_chars` is NULL or points to
/// `count` values; both valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_stand_in_len_with(
    head: *const c_char,
    head_len: usize,
    total_len: usize,
    min_chars: usize,
    payload_chars: *const usize,
    count: usize,
) -> usize {
    if payload_chars.is_null() {
        return 0;
    }
    // SAFETY: non-NULL and `count` values per this function's contract.
    let policy = unsafe { std::slice::from_raw_parts(payload_chars, count) };
    // SAFETY: forwarded from this function's contract.
    unsafe { stand_in(head, head_len, total_len, min_chars, policy) }
}

/// # Safety
/// As [`ankita_stand_in_len`].
unsafe fn stand_in(
    head: *const c_char,
    head_len: usize,
    total_len: usize,
    min_chars: usize,
    policy: &[usize],
) -> usize {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: forwarded from the caller's contract.
        let head = unsafe { bytes_arg(head, head_len, "head") }.ok()?;
        crate::probe::stand_in::stand_in_len_with(head, total_len, min_chars, policy)
    }))
    .ok()
    .flatten()
    .unwrap_or(0)
}

/// Releases a string returned by any `ankita_*` function. NULL is accepted and ignored.
///
/// Never pass a string from another allocator, and never release a string twice. The pointer
/// from `ankita_version` is static and must not be passed here.
///
/// # Safety
/// `s` is NULL or a pointer returned by an `ankita_*` function and not yet released.
#[no_mangle]
pub unsafe extern "C" fn ankita_string_free(s: *mut c_char) {
    if s.is_null() {
        return;
    }
    // SAFETY: `s` came from `c_string`, per the caller's contract: HEADER bytes before it hold
    // the capacity of the allocation that starts there.
    unsafe {
        let base = s.cast::<u8>().sub(HEADER);
        let capacity = usize::from_ne_bytes(*base.cast::<[u8; HEADER]>());
        drop(Vec::from_raw_parts(base, 0, capacity));
    }
}

/// The library version, e.g. `"0.1.0"`. The string is static: never release it.
#[no_mangle]
pub extern "C" fn ankita_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// An incremental session (`ankita_session_new`): opaque to C.
///
/// Thread rules: a handle is used by one thread at a time (calls on one handle from two
/// threads at once are a misuse, answered with an `invalid_argument` error rather than a
/// data race when they overlap); any number of handles may be used in parallel.
pub struct AnkitaSession {
    busy: AtomicBool,
    inner: UnsafeCell<TrimSession>,
}

/// Runs `body` on the session behind `s`, or answers why it cannot (NULL, in use by another
/// thread).
///
/// # Safety
/// `s` is NULL or a live handle from `ankita_session_new`.
unsafe fn with_session<'s>(
    s: *mut AnkitaSession,
    body: impl FnOnce(&'s mut TrimSession) -> Result<Reply<'s>, Error>,
) -> *mut c_char {
    if s.is_null() {
        return text_string(&null_error("session").to_response().to_string());
    }
    // SAFETY: a live handle, per the caller's contract.
    let session: &'s AnkitaSession = unsafe { &*s };
    if session
        .busy
        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        let error = Error::new(
            ErrorCode::InvalidArgument,
            "the session is in use by another thread (a handle is used by one thread at a time)",
        );
        return text_string(&error.to_response().to_string());
    }
    // SAFETY: the flag gives this call the only access to the session until it is cleared.
    let inner = unsafe { &mut *session.inner.get() };
    let answer = boundary_answer(|| body(inner));
    session.busy.store(false, Ordering::Release);
    answer
}

fn count_reply(len: usize) -> Result<Reply<'static>, Error> {
    Ok(Reply::Text(format!("{{\"ok\":true,\"messages\":{len}}}")))
}

/// Creates an incremental session: a chat history held by the library, fed message by message
/// and trimmed at any time, each turn costing what changed rather than the whole history.
///
/// `options_json` is a trim request without its messages (`{"max_bytes": ...}`,
/// `{"context_tokens": ..., "model": ..., "format": ..., "system": ...}`; `messages` may be
/// given too, as the first messages). Returns the handle, or NULL when the options are not
/// valid; then, when `error` is not NULL, `*error` receives the error JSON (as `ankita_trim`
/// answers it; release it with `ankita_string_free`); otherwise `*error` is set to NULL.
///
/// Release the handle with `ankita_session_free`. Thread safety: a handle is used by one
/// thread at a time (overlapping calls on one handle answer an `invalid_argument` error);
/// distinct handles may be used from any threads at once.
///
/// # Safety
/// `options_json` is NULL or a NUL-terminated string valid for the duration of the call;
/// `error` is NULL or points to writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn ankita_session_new(
    options_json: *const c_char,
    error: *mut *mut c_char,
) -> *mut AnkitaSession {
    let made = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: forwarded from this function's contract.
        let options = unsafe { str_arg(options_json, "options_json") }?;
        TrimSession::new(options)
    }))
    .unwrap_or_else(|panic| Err(Error::from_panic(&*panic)));
    let (handle, message) = match made {
        Ok(session) => (
            Box::into_raw(Box::new(AnkitaSession {
                busy: AtomicBool::new(false),
                inner: UnsafeCell::new(session),
            })),
            std::ptr::null_mut(),
        ),
        Err(e) => (
            std::ptr::null_mut(),
            text_string(&e.to_response().to_string()),
        ),
    };
    if error.is_null() {
        // SAFETY: a string from `text_string`, not handed out.
        unsafe { ankita_string_free(message) };
    } else {
        // SAFETY: writable per the caller's contract.
        unsafe { *error = message };
    }
    handle
}

/// Appends messages to a session: `messages_json` is a JSON array of messages in the
/// session's format (validated here, once). Answers `{"ok": true, "messages": N}` (how many
/// messages the session holds) or an error JSON. A message that cannot be trimmed (a wrong
/// shape) is accepted here; `ankita_session_trim` then answers the error a stateless trim of
/// the same history answers.
///
/// Ownership: the returned string is owned by the caller (`ankita_string_free`). Thread
/// safety: see `ankita_session_new`.
///
/// # Safety
/// `s` is NULL or a live handle; `messages_json` is NULL or a NUL-terminated string valid for
/// the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_session_append(
    s: *mut AnkitaSession,
    messages_json: *const c_char,
) -> *mut c_char {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        with_session(s, |session| {
            let messages = str_arg(messages_json, "messages_json")?;
            count_reply(session.append(messages)?)
        })
    }
}

/// `ankita_session_append` for `len` bytes of JSON (no NUL needed).
///
/// # Safety
/// `s` is NULL or a live handle; `messages_json` is NULL or points to `len` readable bytes
/// valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_session_append_n(
    s: *mut AnkitaSession,
    messages_json: *const c_char,
    len: usize,
) -> *mut c_char {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        with_session(s, |session| {
            let messages = bytes_arg(messages_json, len, "messages_json")?;
            count_reply(session.append(messages)?)
        })
    }
}

/// Keeps the first `len` messages of a session (an edit or a regeneration then appends the new
/// tail); a `len` past the end changes nothing. Answers `{"ok": true, "messages": N}`.
///
/// Ownership: the returned string is owned by the caller (`ankita_string_free`). Thread
/// safety: see `ankita_session_new`.
///
/// # Safety
/// `s` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ankita_session_truncate(s: *mut AnkitaSession, len: usize) -> *mut c_char {
    // SAFETY: forwarded from this function's contract.
    unsafe { with_session(s, |session| count_reply(session.truncate(len))) }
}

/// Trims the session's history: the answer `ankita_trim` gives for a request made of the
/// session's options and messages (`{"ok": true, "messages": [...], "report": {...}}` or an
/// error JSON), computed from what the session keeps.
///
/// Ownership: the returned string is owned by the caller (`ankita_string_free`). Thread
/// safety: see `ankita_session_new`.
///
/// # Safety
/// `s` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ankita_session_trim(s: *mut AnkitaSession) -> *mut c_char {
    // SAFETY: forwarded from this function's contract.
    unsafe { with_session(s, |session| session.trim_answer().map(Reply::Answer)) }
}

/// Trims the session's history, answering a plan for callers that hold the messages
/// themselves: `{"ok": true, "plan": [...], "report": {...}}`, each item of `plan` the index
/// of a message returned as given (a number) or a message that changed (an object, the
/// message to send). The report is `ankita_session_trim`'s, but for `dropped_messages`,
/// given as `dropped_ranges`: `[start, end)` pairs of the caller's indices (a long session
/// drops thousands of messages in a few runs; the answer stays the size of what is kept).
///
/// Ownership: the returned string is owned by the caller (`ankita_string_free`). Thread
/// safety: see `ankita_session_new`.
///
/// # Safety
/// `s` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ankita_session_plan(s: *mut AnkitaSession) -> *mut c_char {
    // SAFETY: forwarded from this function's contract.
    unsafe { with_session(s, |session| session.plan_answer().map(Reply::Answer)) }
}

/// Pairs the provider's count of the input tokens of the request that sent the session's
/// last trim answer (the response's `usage.input_tokens`: the whole prompt, system prompt,
/// tools and framing included) with the session's own count of it, and sets the token factor
/// of a model counted with a margin (Claude, Gemini) from the evidence; the next trims count
/// with it. Answers `{"ok": true, "token_factor": {"value", "source", "observations"}}` (the
/// factor the next trim uses, as its report will say; `source` is `"fixed_margin"`,
/// `"observed"`, `"caller"` or `"tokenizer"`), or an `invalid_argument` error: a session
/// counting bytes, no trim yet, 0, or a count no factor from 0.1 to 10 explains.
///
/// Ownership: the returned string is owned by the caller (`ankita_string_free`). Thread
/// safety: see `ankita_session_new`.
///
/// # Safety
/// `s` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ankita_session_observe_usage(
    s: *mut AnkitaSession,
    input_tokens: u64,
) -> *mut c_char {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        with_session(s, |session| {
            let factor = session.observe_usage(input_tokens)?;
            Ok(Reply::Text(format!(
                "{{\"ok\":true,\"token_factor\":{}}}",
                factor.json()
            )))
        })
    }
}

/// The session's messages as given, for an application that persists sessions:
/// `{"ok": true, "messages": [...]}`. To restore, create a session with the same options and
/// append the `messages` array.
///
/// Ownership: the returned string is owned by the caller (`ankita_string_free`). Thread
/// safety: see `ankita_session_new`.
///
/// # Safety
/// `s` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn ankita_session_snapshot(s: *mut AnkitaSession) -> *mut c_char {
    // SAFETY: forwarded from this function's contract.
    unsafe {
        with_session(s, |session| {
            let messages = session.messages_json();
            let mut text = String::with_capacity(messages.len() + 24);
            text.push_str("{\"ok\":true,\"messages\":");
            text.push_str(messages);
            text.push('}');
            Ok(Reply::Text(text))
        })
    }
}

/// Releases a session. NULL is accepted and ignored. The handle must not be in use by
/// another thread, and must not be used again.
///
/// # Safety
/// `s` is NULL or a live handle from `ankita_session_new`, not in use.
#[no_mangle]
pub unsafe extern "C" fn ankita_session_free(s: *mut AnkitaSession) {
    if !s.is_null() {
        // SAFETY: a handle from `Box::into_raw`, per the caller's contract.
        drop(unsafe { Box::from_raw(s) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn call(f: impl FnOnce() -> *mut c_char) -> Value {
        let p = f();
        assert!(!p.is_null());
        let text = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
        unsafe { ankita_string_free(p) };
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn null_and_invalid_utf8_are_errors() {
        let v = call(|| unsafe { ankita_probe_image(std::ptr::null()) });
        assert_eq!(v["error"]["code"], "invalid_argument");
        assert_eq!(v["error"]["message"], "image is NULL");
        let bad = b"data:\xff\xfe\0";
        let v = call(|| unsafe { ankita_probe_image(bad.as_ptr().cast()) });
        assert_eq!(v["error"]["code"], "invalid_argument");
        assert!(v["error"]["message"].as_str().unwrap().contains("offset 5"));
    }

    #[test]
    fn panics_become_internal_errors() {
        let v = call(|| boundary(|| panic!("boom")));
        assert_eq!(v["ok"], false);
        assert_eq!(v["error"]["code"], "internal");
        assert_eq!(v["error"]["message"], "internal error: boom");
    }

    #[test]
    fn a_session_in_use_answers_an_error_instead_of_racing() {
        let options = c"{\"max_bytes\": 4096}";
        // SAFETY: a valid string; the handle is freed below.
        let s = unsafe { ankita_session_new(options.as_ptr(), std::ptr::null_mut()) };
        assert!(!s.is_null());
        // SAFETY: a live handle.
        unsafe { &*s }.busy.store(true, Ordering::SeqCst);
        let messages = c"[]";
        // SAFETY: a live handle and a valid string.
        let v = call(|| unsafe { ankita_session_append(s, messages.as_ptr()) });
        assert_eq!(v["error"]["code"], "invalid_argument");
        assert!(v["error"]["message"].as_str().unwrap().contains("in use"));
        // SAFETY: a live handle.
        unsafe { &*s }.busy.store(false, Ordering::SeqCst);
        // SAFETY: a live handle and a valid string.
        let v = call(|| unsafe { ankita_session_append(s, messages.as_ptr()) });
        assert_eq!(v, serde_json::json!({"ok": true, "messages": 0}));
        // SAFETY: a live handle, not in use, not used again.
        unsafe { ankita_session_free(s) };
    }

    #[test]
    fn a_session_observes_the_providers_usage() {
        let options = c"{\"model\": \"claude-sonnet-4-5\", \"context_tokens\": 2000}";
        // SAFETY: a valid string; the handle is freed below.
        let s = unsafe { ankita_session_new(options.as_ptr(), std::ptr::null_mut()) };
        // SAFETY: a live handle.
        let v = call(|| unsafe { ankita_session_observe_usage(s, 100) });
        assert_eq!(v["error"]["code"], "invalid_argument");
        assert!(v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("trim first"));
        let text = format!(
            "[{{\"role\": \"user\", \"content\": \"{}\"}}]",
            "word ".repeat(1000)
        );
        let messages = std::ffi::CString::new(text).unwrap();
        // SAFETY: a live handle and valid strings.
        call(|| unsafe { ankita_session_append(s, messages.as_ptr()) });
        // SAFETY: a live handle.
        let v = call(|| unsafe { ankita_session_trim(s) });
        let factor = &v["report"]["token_factor"];
        assert_eq!(factor["value"], 1.35, "{v}");
        assert_eq!(factor["source"], "fixed_margin");
        // The provider counted 10% over o200k_base: the factor follows, with its margin.
        let counted = factor["counted"].as_f64().unwrap();
        // SAFETY: a live handle.
        let v = call(|| unsafe { ankita_session_observe_usage(s, (counted * 1.1) as u64) });
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["token_factor"]["source"], "observed");
        assert_eq!(v["token_factor"]["observations"], 1);
        let value = v["token_factor"]["value"].as_f64().unwrap();
        assert!((1.1..1.15).contains(&value), "{v}");
        // SAFETY: a live handle.
        let v = call(|| unsafe { ankita_session_trim(s) });
        assert_eq!(v["report"]["token_factor"]["value"], value);
        // SAFETY: NULL is answered as an error.
        let v = call(|| unsafe { ankita_session_observe_usage(std::ptr::null_mut(), 1) });
        assert_eq!(v["error"]["code"], "invalid_argument");
        // SAFETY: a live handle, not in use, not used again.
        unsafe { ankita_session_free(s) };
    }

    #[test]
    fn version_is_the_package_version() {
        let v = unsafe { CStr::from_ptr(ankita_version()) };
        assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }
}

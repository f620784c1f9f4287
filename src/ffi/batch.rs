//! The C entry of a batch: many requests answered at once on many threads
//! ([`crate::batch`]).

use super::{boundary, null_error, text_string};
use crate::batch::{defaults_from_json, map_in_order, trim_one_bytes, Answer};
use crate::error::{Error, ErrorCode};
use serde_json::json;
use std::ffi::{c_char, CStr};

/// Trims `count` requests at once, on `threads` threads (0: every core), each answered as
/// `ankita_trim_n` answers it.
///
/// `requests` holds `count` request texts (JSON objects, or bare messages arrays read as
/// `{"messages": [...]}`); `lens` is NULL when each is NUL-terminated, else their `count`
/// lengths in bytes. `defaults_json` is NULL or a JSON object of request keys (`{"model":
/// "gpt-4o", "context_tokens": 8000}`) that fill in the keys a request lacks, as
/// `ankita trim --jsonl` does with its flags; it is checked once, so an unknown key or a bad
/// value fails the call rather than every request.
///
/// On return `answers[i]` is the answer to `requests[i]`: `{"ok": true, ...}` or its own
/// `{"ok": false, "error": ...}` (a NULL request is an `invalid_argument` error, a text that is
/// not UTF-8 an `invalid_json` one naming `requests[i]`): a bad request never fails the batch.
/// The call answers `{"ok": true, "requests": count, "failed": N}`, or an error (`answers` then
/// all NULL) when `requests` or `answers` is NULL with a nonzero `count`, or `defaults_json`
/// is not a valid object of request keys.
///
/// Ownership: the returned string and every `answers[i]` are owned by the caller and must be
/// released with `ankita_string_free`. Thread safety: may be called from any thread
/// concurrently; the requests and `answers` must not be touched by other threads meanwhile.
///
/// # Safety
/// `requests` is NULL or points to `count` pointers, each NULL or a string of `lens[i]` bytes
/// (NUL-terminated when `lens` is NULL); `lens` is NULL or points to `count` lengths;
/// `defaults_json` is NULL or a NUL-terminated string; `answers` is NULL or points to `count`
/// writable pointers. All stay valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_trim_many(
    requests: *const *const c_char,
    lens: *const usize,
    count: usize,
    defaults_json: *const c_char,
    threads: usize,
    answers: *mut *mut c_char,
) -> *mut c_char {
    if !answers.is_null() {
        for i in 0..count {
            // SAFETY: `answers` points to `count` writable pointers.
            unsafe { *answers.add(i) = std::ptr::null_mut() };
        }
    }
    boundary(|| {
        if count > 0 && requests.is_null() {
            return Err(null_error("requests"));
        }
        if count > 0 && answers.is_null() {
            return Err(null_error("answers"));
        }
        let defaults = if defaults_json.is_null() {
            Vec::new()
        } else {
            // SAFETY: a NUL-terminated string per the contract.
            let text = unsafe { super::str_arg(defaults_json, "defaults_json") }?;
            defaults_from_json(text)?
        };
        let texts: Vec<Option<&[u8]>> = (0..count)
            .map(|i| {
                // SAFETY: `requests` points to `count` pointers; each is NULL or valid for
                // `lens[i]` bytes (NUL-terminated when `lens` is NULL).
                unsafe {
                    let ptr = *requests.add(i);
                    if ptr.is_null() {
                        None
                    } else if lens.is_null() {
                        Some(CStr::from_ptr(ptr).to_bytes())
                    } else {
                        Some(std::slice::from_raw_parts(ptr.cast::<u8>(), *lens.add(i)))
                    }
                }
            })
            .collect();
        let rows: Vec<Answer> = map_in_order(&texts, threads, |i, text| match text {
            Some(bytes) => trim_one_bytes(bytes, i, &defaults),
            None => Answer::failure(&Error::new(
                ErrorCode::InvalidArgument,
                format!("requests[{i}] is NULL"),
            )),
        });
        let failed = rows.iter().filter(|a| !a.is_ok()).count();
        for (i, row) in rows.iter().enumerate() {
            // SAFETY: `answers` points to `count` writable pointers.
            unsafe { *answers.add(i) = text_string(&row.text) };
        }
        Ok(json!({"ok": true, "requests": count, "failed": failed}))
    })
}

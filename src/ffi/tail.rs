//! The C entry of the tail's selection ([`crate::tail::select`]): which messages of a long
//! history a front end sends to `ankita_trim_tail` and `ankita_sanitize_tail`.

use super::{boundary, str_arg};
use crate::error::Error;
use std::ffi::c_char;

/// Which messages of a long history to send, and how (DESIGN §13; docs/long-histories.md):
/// the rules of a stateless trim's or sanitize's tails, for a front end that reads its own
/// objects. `request_json` is `{"call": "trim" | "sanitize", "messages": <the history's
/// length>, "options": {the trim's options, or {"format"?}}, "after"?: {"size": <the tail's
/// size>, "widen": <the answer of ankita_trim_tail that asked for more>}}`. `shape` is NULL
/// (the messages not read yet) or `shape_len` bytes of native-endian `uint32_t` words, one
/// record a message, in order: `0` (any other message), `1, role, len` (a plain message:
/// role 0 the user's, 1 the model's, 2 + k the format's k-th other role; `len` its text's
/// UTF-8 length when it holds its role and text alone, else `0xFFFFFFFF`), `2` (the user's
/// text parts), `3, alone, n, id, name, ...` (a message of `n` tool calls; `alone`: it is one
/// call itself), `4, n, id, name, ...` (`n` replies); an id or name is any number standing for
/// its string (the same string, the same number; a name 0: none) — each format's facts of
/// `ankita_formats` (`plain`, `turns`) say what each kind is.
///
/// The answer: `{"ok": true, "send": "whole"}` (send the history whole, to `ankita_trim` or
/// `ankita_sanitize`), `{"ok": true, "send": "shapes", "lengths": <bool>}` (read the shapes, the
/// plain messages' lengths when `lengths`, and ask again), or `{"ok": true, "send": "tail",
/// "size", "earlier": [[start, end], ...], "stand_ins": "none" | "replace" | "note", "window":
/// {"from", "gaps"?, "sizes"?}}`: the request of `ankita_trim_tail` (or `ankita_sanitize_tail`)
/// is the options, the messages from `window.from` on, and `window` with `earlier`'s runs of
/// messages (as stand-ins but message 0, for `replace` and `note`; `note` adds `stood_in`).
/// When that answers `widen`, ask again with `after`. An error JSON as for `ankita_trim` for a
/// malformed request or shape.
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
///
/// # Safety
/// `request_json` is NULL or a NUL-terminated string valid for the duration of the call;
/// `shape` is NULL or points to `shape_len` readable bytes valid for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn ankita_tail_select(
    request_json: *const c_char,
    shape: *const u8,
    shape_len: usize,
) -> *mut c_char {
    boundary(|| {
        // SAFETY: forwarded from this function's contract.
        let request = unsafe { str_arg(request_json, "request_json") }?;
        let words = if shape.is_null() {
            None
        } else {
            if shape_len % 4 != 0 {
                return Err(Error::invalid_request(
                    "the shape is uint32_t words: its length is a multiple of 4",
                    "shape",
                ));
            }
            // SAFETY: non-NULL and `shape_len` readable bytes per the caller's contract.
            let bytes = unsafe { std::slice::from_raw_parts(shape, shape_len) };
            Some(
                bytes
                    .chunks_exact(4)
                    .map(|w| u32::from_ne_bytes([w[0], w[1], w[2], w[3]]))
                    .collect::<Vec<u32>>(),
            )
        };
        crate::tail::select::select_answer(request, words.as_deref())
    })
}

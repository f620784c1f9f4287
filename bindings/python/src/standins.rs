//! Header-only stand-ins for large data-URL images (DESIGN §10).
//!
//! A pasted screenshot is a data URL of a megabyte or more, and the core reads only its header:
//! a decodable image is priced by its pixels, whatever the URL's length. So when the messages
//! are read for planning, the URL of a large `image_url` part is replaced by its first
//! kilobytes where the core's stand-in policy (`ankita::probe::stand_in`, the one every binding
//! follows) says they read as the same image: the core then prices the image exactly as it
//! would the whole URL, and the megabytes are never copied. Otherwise the URL is read whole
//! (an undecodable image costs its full length), and so is text that is not ASCII (a lone
//! surrogate further on must be reported as it would be).
//!
//! Stand-ins never reach the caller: the result is built from the caller's own objects.

use ankita::probe::stand_in::{stand_in_len, HEAD_CHARS, MIN_CHARS};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PySlice, PyString};

/// True when `part` is an `image_url` part.
pub fn is_image_part(part: &Bound<'_, PyDict>) -> bool {
    matches!(part.get_item("type"), Ok(Some(t)) if t.cast::<PyString>().is_ok_and(|t| t == "image_url"))
}

/// The beginning of `url` that stands for it, when the core's policy
/// ([`ankita::probe::stand_in`]) says a long data URL may be cut; `None` when the whole URL
/// must be read. Only ASCII text is cut (a lone surrogate further on must be reported as it
/// would be); for it, characters are bytes.
pub fn stand_in(url: &Bound<'_, PyString>) -> Option<String> {
    let len = url.len().ok()?;
    if len < MIN_CHARS || !is_ascii(url) {
        return None;
    }
    let head = if len > HEAD_CHARS {
        let slice = PySlice::new(url.py(), 0, isize::try_from(HEAD_CHARS).ok()?, 1);
        url.get_item(slice).ok()?.cast_into::<PyString>().ok()?
    } else {
        url.clone()
    };
    let head = head.to_cow().ok()?;
    let cut = stand_in_len(&head, len)?;
    Some(head[..cut].to_owned())
}

/// `str.isascii()`: constant time in CPython (a flag of the string object).
fn is_ascii(text: &Bound<'_, PyString>) -> bool {
    text.call_method0("isascii")
        .and_then(|r| r.is_truthy())
        .unwrap_or(false)
}

//! Header-only stand-ins for large data-URL images (DESIGN §10).
//!
//! A pasted screenshot is a data URL of a megabyte or more, and the core reads only its header:
//! a decodable image is priced by its pixels, whatever the URL's length. So when the messages
//! are read for planning, the URL of a large `image_url` part is replaced by its first
//! kilobytes, if the core's own probe decodes them: the core then prices the image exactly as
//! it would the whole URL, and the megabytes are never copied. An image that a prefix does not
//! decode is read whole (an undecodable image costs its full length), and so is text that is
//! not ASCII (a lone surrogate further on must be reported as it would be).
//!
//! Stand-ins never reach the caller: the result is built from the caller's own objects.

use ankita::probe::probe_data_url;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PySlice, PyString};

/// URLs shorter than this are read whole: copying them costs less than looking for a prefix.
pub const MIN_CHARS: usize = 64 * 1024;
/// Prefix lengths tried, in characters. The longer one covers JPEGs with large metadata
/// segments before the frame header.
pub const PREFIX_CHARS: [usize; 2] = [16 * 1024, 256 * 1024];

/// True when `part` is an `image_url` part.
pub fn is_image_part(part: &Bound<'_, PyDict>) -> bool {
    matches!(part.get_item("type"), Ok(Some(t)) if t.cast::<PyString>().is_ok_and(|t| t == "image_url"))
}

/// The first characters of `url` when it is a long ASCII data URL whose prefix the probe
/// decodes; `None` when the whole URL must be read.
pub fn stand_in(url: &Bound<'_, PyString>) -> Option<String> {
    let len = url.len().ok()?;
    if len < MIN_CHARS || !is_ascii(url) {
        return None;
    }
    for chars in PREFIX_CHARS {
        if chars >= len {
            break;
        }
        let slice = PySlice::new(url.py(), 0, isize::try_from(chars).ok()?, 1);
        let prefix = url.get_item(slice).ok()?;
        let prefix = prefix.cast::<PyString>().ok()?.to_cow().ok()?.into_owned();
        if probe_data_url(&prefix).is_ok() {
            return Some(prefix);
        }
    }
    None
}

/// `str.isascii()`: constant time in CPython (a flag of the string object).
fn is_ascii(text: &Bound<'_, PyString>) -> bool {
    text.call_method0("isascii")
        .and_then(|r| r.is_truthy())
        .unwrap_or(false)
}

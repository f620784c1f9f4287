//! Header-only stand-ins for long data URLs: the policy every binding follows (DESIGN §10).
//!
//! A pasted screenshot is a data URL of a megabyte or more, and the probe reads only its
//! header. So a binding that must hand the core a copy of its host's strings (Python `str`,
//! JavaScript strings) may hand it the URL's beginning instead, when that beginning already
//! decodes to the image's header: the core then prices the image exactly as it would the whole
//! URL, and the megabytes are never copied. This module decides where that beginning ends; the
//! binding only cuts its string there and puts the caller's URL back in the answer.
//!
//! ```
//! use ankita::probe::stand_in::{stand_in_len, MIN_CHARS};
//! // A PNG header (1700 × 2200) followed by a long payload.
//! let png = "iVBORw0KGgoAAAANSUhEUgAABqQAAAiYCAIAAAAi4bz4";
//! let url = format!("data:image/png;base64,{png}{}", "A".repeat(MIN_CHARS));
//! let cut = stand_in_len(&url, url.len()).unwrap();
//! assert!(cut < url.len());
//! assert_eq!(
//!     ankita::probe::probe_data_url(&url[..cut]),
//!     ankita::probe::probe_data_url(&url)
//! );
//! ```

use super::{is_data_url, probe_data_url};

/// URLs shorter than this are handed over whole: copying them costs less than looking.
pub const MIN_CHARS: usize = 64 * 1024;
/// The payload lengths tried, in characters: the first whose prefix decodes is used. The
/// longer one covers JPEGs with large metadata segments before their frame header.
pub const PAYLOAD_CHARS: [usize; 2] = [16 * 1024, 256 * 1024];
/// A data URL's header (`data:image/png;base64`) is within this many bytes.
const MAX_HEADER: usize = 1024;
/// How much of a URL's beginning [`stand_in_len`] may read: pass at least this much (or the
/// whole URL when it is shorter).
pub const HEAD_CHARS: usize = MAX_HEADER + 1 + PAYLOAD_CHARS[1];

/// The length of the beginning of a data URL that stands for the whole of it, or `None` when
/// the whole URL must be handed over. `head` is the URL's beginning (at least [`HEAD_CHARS`]
/// bytes of it, or all of it), `total_len` the whole URL's length.
///
/// A stand-in is a prefix of at least [`MIN_CHARS`]-long base64 data URLs cut at one of
/// [`PAYLOAD_CHARS`] payload characters, and only when the probe reads the same image from it:
/// a prefix that does not decode, or text that is not ASCII where it would be cut, means the
/// whole URL (an undecodable image costs its full length); so does a header that would be
/// implausible for the prefix's length ([`super::plausible::is_implausible`]), which may be
/// plausible for the whole payload.
pub fn stand_in_len(head: &str, total_len: usize) -> Option<usize> {
    stand_in_len_with(head, total_len, MIN_CHARS, &PAYLOAD_CHARS)
}

/// [`stand_in_len`] with other thresholds (tests use small ones to send every image through a
/// stand-in).
pub fn stand_in_len_with(
    head: &str,
    total_len: usize,
    min_chars: usize,
    payload_chars: &[usize],
) -> Option<usize> {
    if total_len < min_chars || head.len() > total_len || !is_data_url(head) {
        return None;
    }
    let comma = head
        .as_bytes()
        .iter()
        .take(MAX_HEADER)
        .position(|&b| b == b',')?;
    let header = &head.as_bytes()[..comma];
    if header.len() < 7 || !header[header.len() - 7..].eq_ignore_ascii_case(b";base64") {
        return None;
    }
    for &chars in payload_chars {
        let end = comma + 1 + chars;
        if end >= total_len || end > head.len() {
            break;
        }
        if !head.is_char_boundary(end) || !head.as_bytes()[comma + 1..end].is_ascii() {
            return None;
        }
        if let Ok(info) = probe_data_url(&head[..end]) {
            // The prefix must be priced as the whole URL: a header implausible for the
            // prefix's length (though maybe not for the whole payload) means the whole URL.
            if super::plausible::is_implausible(&info, end) {
                return None;
            }
            return Some(end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAABqQAAAiYCAIAAAAi4bz4";

    #[test]
    fn cuts_only_where_the_header_reads_the_same() {
        let url = format!("data:image/png;base64,{PNG}{}", "A".repeat(100_000));
        assert_eq!(
            stand_in_len(&url, url.len()),
            Some("data:image/png;base64,".len() + PAYLOAD_CHARS[0])
        );
        // Short URLs, remote URLs, non-base64 and undecodable data go whole.
        let short = format!("data:image/png;base64,{PNG}");
        assert_eq!(stand_in_len(&short, short.len()), None);
        let remote = format!("https://example.com/{}", "a".repeat(100_000));
        assert_eq!(stand_in_len(&remote, remote.len()), None);
        let junk = format!("data:image/png;base64,{}", "A".repeat(100_000));
        assert_eq!(stand_in_len(&junk, junk.len()), None);
        let plain = format!("data:image/png,{PNG}{}", "A".repeat(100_000));
        assert_eq!(stand_in_len(&plain, plain.len()), None);
        // A head shorter than the cut: nothing to decide from.
        assert_eq!(stand_in_len(&url[..1000], url.len()), None);
        // Small thresholds: a 1700 × 2200 PNG header cannot stand for an image in 24 bytes of
        // payload (implausible), so it goes whole; a GIF header (no payload bound) is cut.
        assert_eq!(stand_in_len_with(&short, short.len(), 0, &[8, 32]), None);
        let gif = format!("data:image/gif;base64,R0lGODlhpAaYCPcAAA{}", "A".repeat(40));
        assert_eq!(
            stand_in_len_with(&gif, gif.len(), 0, &[8, 32]),
            Some("data:image/gif;base64,".len() + 32)
        );
        // A PNG whose prefix is long enough to hold its pixels is cut.
        let long = format!("data:image/png;base64,{PNG}{}", "A".repeat(1000));
        assert_eq!(
            stand_in_len_with(&long, long.len(), 0, &[8, 800]),
            Some("data:image/png;base64,".len() + 800)
        );
    }
}

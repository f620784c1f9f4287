//! Byte-level helpers of the in-place reader: white space, string ends, escapes, and the
//! check that an object's noted keys can be taken as they are.

use super::{scan, NOTE};

/// Whether the keys of `spans` (an object's fields noted by the scanner) are few, without
/// escapes and all different: compared as written, by length first.
#[inline]
pub(super) fn plain_distinct_keys(text: &[u8], spans: &[scan::FieldSpan]) -> bool {
    if spans.len() > 16 {
        return false;
    }
    let key = |f: &scan::FieldSpan| &text[f.key as usize..f.key_end as usize];
    for (n, f) in spans.iter().enumerate() {
        if f.key_end & scan::FLAG != 0 {
            return false;
        }
        let k = key(f);
        if spans[..n]
            .iter()
            .any(|g| key(g).len() == k.len() && key(g) == k)
        {
            return false;
        }
    }
    true
}

/// The end of the value that ends before `i`, white space skipped backwards.
#[inline]
pub(super) fn skip_ws_back(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'\r') {
        i -= 1;
    }
    i
}

/// The end of the string token starting at `i` when it ends within [`NOTE`] bytes.
#[inline]
pub(super) fn short_string_end(bytes: &[u8], i: usize) -> Option<usize> {
    let near = bytes.len().min(i + NOTE);
    let mut j = i + 1;
    while let Some(k) = quote_or_backslash(bytes, j, near) {
        if bytes[k] == b'"' {
            return Some(k + 1);
        }
        j = k + 2; // past the escaped character
    }
    None
}

/// The index of the first `"` or `\` in `bytes[from..to]`, eight bytes at a time (a vector
/// scan costs more to start than these short spans take).
#[inline]
pub(super) fn quote_or_backslash(bytes: &[u8], mut from: usize, to: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    while from + 8 <= to {
        let word = u64::from_le_bytes(bytes[from..from + 8].try_into().expect("eight bytes"));
        // High bit set in each byte equal to `b`; a false one can only sit above a true one,
        // so the lowest is exact.
        let equal = |b: u8| {
            let v = word ^ (ONES * u64::from(b));
            v.wrapping_sub(ONES) & !v & HIGHS
        };
        let found = equal(b'"') | equal(b'\\');
        if found != 0 {
            return Some(from + (found.trailing_zeros() / 8) as usize);
        }
        from += 8;
    }
    (from..to).find(|&j| matches!(bytes[j], b'"' | b'\\'))
}

#[inline]
pub(super) fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The end (after the closing quote) of the valid string token starting at `i`.
#[inline]
pub(super) fn string_end(bytes: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    // Keys and short values end within a few bytes: a plain loop beats setting up a scan.
    let near = bytes.len().min(j + 32);
    while j < near {
        match bytes[j] {
            b'"' => return j + 1,
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
    loop {
        match memchr::memchr2(b'"', b'\\', &bytes[j.min(bytes.len())..]) {
            Some(k) if bytes[j + k] == b'"' => return j + k + 1,
            Some(k) => j += k + 2,
            None => return bytes.len(),
        }
    }
}

/// The index of the first `\` in `bytes`, if any.
#[inline]
pub(super) fn find_backslash(bytes: &[u8]) -> Option<usize> {
    // Setting up a vector scan costs more than looking at a key's few bytes one by one.
    if bytes.len() < 16 {
        return bytes.iter().position(|&b| b == b'\\');
    }
    memchr::memchr(b'\\', bytes)
}

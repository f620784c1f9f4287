//! Byte-level helpers of the in-place reader: white space, string ends, escapes, and the
//! check that an object's noted keys can be taken as they are.

use super::scan::{self, HIGHS, ONES};
use super::NOTE;

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
    // Setting up a vector scan costs more than looking at a key's few bytes: from 8 bytes on,
    // two words (overlapping) tell whether there is one at all.
    let n = bytes.len();
    if n < 16 {
        if n >= 8 && !short_words_any(bytes, |w| has_byte(w, b'\\')) {
            return None;
        }
        return bytes.iter().position(|&b| b == b'\\');
    }
    memchr::memchr(b'\\', bytes)
}

/// Whether a byte of `word` is `b` (exact: a borrow can only set bits above a true match).
#[inline(always)]
pub(super) fn has_byte(word: u64, b: u8) -> bool {
    let v = word ^ (ONES * u64::from(b));
    v.wrapping_sub(ONES) & !v & HIGHS != 0
}

/// Whether a byte of `word` is below `n` (`n` ≤ 128; exact as [`has_byte`]).
#[inline(always)]
pub(super) fn has_below(word: u64, n: u8) -> bool {
    word.wrapping_sub(ONES * u64::from(n)) & !word & HIGHS != 0
}

/// Whether `test` holds for one of the two words that cover `bytes` (8 to 16 bytes long): its
/// first eight and its last eight, which overlap unless it is 16 long.
#[inline(always)]
pub(super) fn short_words_any(bytes: &[u8], test: impl Fn(u64) -> bool) -> bool {
    let n = bytes.len();
    debug_assert!((8..=16).contains(&n));
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"));
    test(word(0)) || test(word(n - 8))
}

#[cfg(test)]
mod tests {
    use super::find_backslash;

    #[test]
    fn the_first_backslash_is_found_wherever_it_falls() {
        for len in 0..40 {
            let plain = "k".repeat(len);
            assert_eq!(find_backslash(plain.as_bytes()), None, "{len}");
            for at in 0..len {
                let mut bytes = plain.clone().into_bytes();
                bytes[at] = b'\\';
                if at + 1 < len {
                    bytes[len - 1] = b'\\';
                }
                assert_eq!(find_backslash(&bytes), Some(at), "{len} {at}");
            }
        }
    }
}

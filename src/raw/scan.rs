//! A one-pass validating scanner for the common shape of a request, which also indexes it.
//!
//! [`scan`] accepts a subset of what serde_json accepts and, on what it accepts, notes what
//! [`Doc`](super::Doc) needs: the long strings without escapes, the root object's keys and
//! array lengths (as the serde_json pass does), and where each container of at least
//! [`CONTAINER_NOTE`] bytes ends, so reading a message's fields later never scans a nested
//! value twice. On anything it does not accept — invalid JSON, but also what it leaves to
//! serde_json to judge exactly: surrogate escapes, nesting past 100 levels, texts of 2 GiB
//! or more — it answers `None` and the text goes through serde_json, whose verdict and error
//! message are the contract's. Numbers are checked against JSON's grammar only: one past
//! `f64::MAX` (`1E400`) is valid and passes as written, as it does through the serde_json pass
//! ([`super::wide`]). So an answer of `Some` is always one that pass agrees with (a property test
//! compares the two on mutated JSON).

use super::NOTE;

/// Containers at least this long are noted (and their fields): a shorter one is read again
/// quickly, and on a text made of tiny messages the index would outweigh the text.
pub(super) const CONTAINER_NOTE: usize = 48;

/// What a successful scan notes down.
pub(super) struct Scan {
    /// (start, end) of the strings without escapes of at least [`NOTE`] bytes, in order.
    pub noted: Vec<(usize, usize)>,
    /// Where the root object's keys start; `None` when the root is not an object or a key
    /// has escapes.
    pub root_keys: Option<Vec<usize>>,
    /// (key index, items) of the root object's array values.
    pub root_arrays: Vec<(usize, usize)>,
    /// The objects and arrays of at least [`CONTAINER_NOTE`] bytes, by start.
    pub containers: Vec<Container>,
    /// The fields of those objects, each object's together (see [`Container::fields`]).
    pub fields: Vec<FieldSpan>,
    /// Whether a string holds a byte past ASCII: the text must then still be checked as UTF-8.
    /// When none does, the text is ASCII throughout (outside strings the scanner accepts
    /// ASCII only), so valid UTF-8.
    pub wide: bool,
}

/// An object or array of the text, as offsets.
#[derive(Clone, Copy, Debug)]
pub(super) struct Container {
    pub start: u32,
    /// Where it ends; the top bit is set when its compact JSON is itself (no white space
    /// between tokens, no `\/` or `\u` escape), so its canonical length is its length.
    pub end: u32,
    /// Where its fields start in [`Scan::fields`].
    pub fields: u32,
    /// How many fields it has there; [`NOT_NOTED`] for an array, or an object past the cap.
    pub count: u32,
}

/// A field of an object, as offsets: the key token (the top bit of `key_end` is set when
/// it has escapes) and the value.
#[derive(Clone, Copy, Debug)]
pub(super) struct FieldSpan {
    pub key: u32,
    pub key_end: u32,
    pub value: u32,
    pub value_end: u32,
}

/// The top bit of an offset, used as a flag (texts are shorter than 2 GiB here).
pub(super) const FLAG: u32 = 1 << 31;
/// [`Container::count`] when the fields are not noted.
pub(super) const NOT_NOTED: u32 = u32::MAX;

/// Deepest nesting the scanner follows; deeper texts go to serde_json (limit 128).
const MAX_DEPTH: usize = 100;
/// Scans `text`, which need not be UTF-8 ([`Scan::wide`] says whether it must still be
/// checked); `None` when serde_json must judge it.
pub(super) fn scan(text: &[u8]) -> Option<Scan> {
    if text.len() >= FLAG as usize {
        return None;
    }
    let mut s = Scanner {
        b: text,
        i: 0,
        depth: 0,
        // Room for a plain chat's worth (a noted string or container per 64 bytes, a field
        // per 32) so the lists rarely grow; capacity never touched is never resident.
        noted: Vec::with_capacity(text.len() / 64),
        containers: Vec::with_capacity(text.len() / 64),
        fields: Vec::with_capacity(text.len() / 32),
        pending: Vec::new(),
        // Field spans are 16 bytes: at most half the text's size in all.
        field_cap: text.len() / 32,
        loose: 0,
        root_keys: None,
        root_arrays: Vec::new(),
        wide: false,
        #[cfg(target_arch = "x86_64")]
        avx2: std::is_x86_feature_detected!("avx2"),
    };
    s.ws();
    if s.peek() == b'{' {
        s.root_keys = Some(Vec::new());
        s.object(true).ok()?;
    } else {
        s.value().ok()?;
    }
    s.ws();
    if s.i != s.b.len() {
        return None;
    }
    Some(Scan {
        noted: s.noted,
        root_keys: s.root_keys,
        root_arrays: s.root_arrays,
        containers: s.containers,
        fields: s.fields,
        wide: s.wide,
    })
}

/// What [`Scanner::open`] hands to [`Scanner::close`].
struct Open {
    slot: usize,
    loose: u32,
    pending: usize,
}

/// Not accepted here (serde_json decides).
struct Refused;

struct Scanner<'t> {
    b: &'t [u8],
    i: usize,
    depth: usize,
    noted: Vec<(usize, usize)>,
    containers: Vec<Container>,
    fields: Vec<FieldSpan>,
    /// The fields of the objects still open, innermost last.
    pending: Vec<FieldSpan>,
    field_cap: usize,
    /// How many white space runs inside values and `\/` or `\u` escapes were seen so far.
    loose: u32,
    root_keys: Option<Vec<usize>>,
    root_arrays: Vec<(usize, usize)>,
    /// Whether a string held a byte past ASCII. Until one does, strings are read to their
    /// first such byte too ([`special`] and its kin with `wide` false), which costs nothing
    /// more on ASCII; after, to their special characters only.
    wide: bool,
    /// Whether the processor has AVX2 (long strings are then scanned 64 bytes at a time).
    #[cfg(target_arch = "x86_64")]
    avx2: bool,
}

/// One in each byte of a word, and each byte's high bit (the word-at-a-time tests here and in
/// raw/bytes.rs).
pub(super) const ONES: u64 = 0x0101_0101_0101_0101;
pub(super) const HIGHS: u64 = 0x8080_8080_8080_8080;

/// High bit set in the lowest byte of `word` that is `"`, `\`, a control character or, unless
/// `wide`, a byte past ASCII (and perhaps in bytes above it, never below).
#[inline(always)]
fn special(word: u64, wide: bool) -> u64 {
    let equal = |b: u8| {
        let v = word ^ (ONES * u64::from(b));
        v.wrapping_sub(ONES) & !v
    };
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let past_ascii = if wide { 0 } else { word };
    (equal(b'"') | equal(b'\\') | below_space | past_ascii) & HIGHS
}

/// The index of the first `"`, `\`, control character or, unless `wide`, byte past ASCII in
/// `b[j..j + 32]` (SSE2, which every x86-64 processor has).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn special_in_32(b: &[u8], j: usize, wide: bool) -> Option<usize> {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8,
    };
    let bytes = &b[j..j + 32];
    // SAFETY: SSE2 is part of x86-64; the two unaligned 16-byte loads read `bytes`, 32 bytes.
    unsafe {
        let mask = |v: __m128i| {
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            let other = if wide {
                // v ≤ 0x1F, unsigned: the minimum of the two is v.
                _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v)
            } else {
                // v < 0x20 as a signed byte: a control character, or past ASCII.
                _mm_cmplt_epi8(v, _mm_set1_epi8(0x20))
            };
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), other)) as u32
        };
        let low = mask(_mm_loadu_si128(bytes.as_ptr().cast::<__m128i>()));
        let high = mask(_mm_loadu_si128(bytes.as_ptr().add(16).cast::<__m128i>()));
        let found = low | (high << 16);
        (found != 0).then(|| j + found.trailing_zeros() as usize)
    }
}

/// The first `"`, `\`, control character or, unless `wide`, byte past ASCII at or after `j`,
/// 64 bytes at a time (AVX2): `(its index, true)`, or `(where the last whole 64 bytes end,
/// false)`.
///
/// # Safety
/// The processor must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn special_from_avx2(b: &[u8], mut j: usize, wide: bool) -> (usize, bool) {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256, _mm256_min_epu8,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    };
    let mask = |v: __m256i| {
        let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        let other = if wide {
            _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1F)), v)
        } else {
            // v < 0x20 as a signed byte: a control character, or past ASCII.
            _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), v)
        };
        u64::from(
            _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(quote, backslash), other)) as u32,
        )
    };
    while j + 64 <= b.len() {
        let block = &b[j..j + 64];
        // SAFETY: the two unaligned 32-byte loads read `block`, 64 bytes.
        let found = unsafe {
            let low = mask(_mm256_loadu_si256(block.as_ptr().cast::<__m256i>()));
            let high = mask(_mm256_loadu_si256(block.as_ptr().add(32).cast::<__m256i>()));
            low | (high << 32)
        };
        if found != 0 {
            return (j + found.trailing_zeros() as usize, true);
        }
        j += 64;
    }
    (j, false)
}

/// The index of the first `"`, `\`, control character or, unless `wide`, byte past ASCII in
/// `b[j..j + 32]`.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn special_in_32(b: &[u8], j: usize, wide: bool) -> Option<usize> {
    (0..4).find_map(|w| {
        let at = j + 8 * w;
        let found = special(
            u64::from_le_bytes(b[at..at + 8].try_into().expect("eight bytes")),
            wide,
        );
        (found != 0).then(|| at + (found.trailing_zeros() / 8) as usize)
    })
}

impl Scanner<'_> {
    /// The byte at the cursor; 0 past the end (never valid where a byte is expected).
    #[inline(always)]
    fn peek(&self) -> u8 {
        self.b.get(self.i).copied().unwrap_or(0)
    }

    #[inline(always)]
    fn ws(&mut self) {
        if matches!(self.peek(), b' ' | b'\t' | b'\n' | b'\r') {
            self.loose += 1;
            self.i += 1;
            while matches!(self.peek(), b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            }
        }
    }

    fn value(&mut self) -> Result<(), Refused> {
        match self.peek() {
            b'"' => self.string().map(|_| ()),
            b'{' => self.object(false),
            b'[' => self.array().map(|_| ()),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(Refused),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), Refused> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(Refused)
        }
    }

    fn number(&mut self) -> Result<(), Refused> {
        if self.peek() == b'-' {
            self.i += 1;
        }
        match self.peek() {
            b'0' => self.i += 1,
            b'1'..=b'9' => self.digits(),
            _ => return Err(Refused),
        }
        if self.peek() == b'.' {
            self.i += 1;
            if !self.peek().is_ascii_digit() {
                return Err(Refused);
            }
            self.digits();
        }
        if matches!(self.peek(), b'e' | b'E') {
            self.i += 1;
            if matches!(self.peek(), b'+' | b'-') {
                self.i += 1;
            }
            if !self.peek().is_ascii_digit() {
                return Err(Refused);
            }
            self.digits();
        }
        // No range: a number past f64 is valid JSON (see `super::wide`).
        Ok(())
    }

    fn digits(&mut self) {
        while self.peek().is_ascii_digit() {
            self.i += 1;
        }
    }

    /// A string token at the cursor; true when it has escapes. One without escapes of at
    /// least [`NOTE`] bytes is noted.
    fn string(&mut self) -> Result<bool, Refused> {
        let b = self.b;
        let start = self.i;
        let mut j = start + 1;
        let mut escaped = false;
        loop {
            // The next `"`, `\`, control character or (until one is seen) byte past ASCII,
            // 32 or eight bytes at a time.
            let wide = self.wide;
            let c = loop {
                if j + 32 <= b.len() {
                    match special_in_32(b, j, wide) {
                        Some(k) => {
                            j = k;
                            break b[j];
                        }
                        None => j += 32,
                    }
                    // A long string: the rest 64 bytes at a time where the processor can.
                    #[cfg(target_arch = "x86_64")]
                    if self.avx2 && j + 64 <= b.len() {
                        // SAFETY: `avx2` says the processor has AVX2.
                        let (k, found) = unsafe { special_from_avx2(b, j, wide) };
                        j = k;
                        if found {
                            break b[j];
                        }
                    }
                } else if j + 8 <= b.len() {
                    let word = u64::from_le_bytes(b[j..j + 8].try_into().expect("eight bytes"));
                    let found = special(word, wide);
                    if found != 0 {
                        j += (found.trailing_zeros() / 8) as usize;
                        break b[j];
                    }
                    j += 8;
                } else {
                    match b.get(j) {
                        None => return Err(Refused),
                        Some(&c) if c == b'"' || c == b'\\' || c < 0x20 || (c >= 0x80 && !wide) => {
                            break c
                        }
                        Some(_) => j += 1,
                    }
                }
            };
            match c {
                b'"' => {
                    self.i = j + 1;
                    if !escaped && self.i - start >= NOTE {
                        self.noted.push((start, self.i));
                    }
                    return Ok(escaped);
                }
                b'\\' => {
                    escaped = true;
                    match b.get(j + 1) {
                        Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => j += 2,
                        Some(b'/') => {
                            self.loose += 1;
                            j += 2;
                        }
                        Some(b'u') => {
                            self.loose += 1;
                            let hex = b.get(j + 2..j + 6).ok_or(Refused)?;
                            let mut n = 0u32;
                            for &h in hex {
                                n = n * 16 + (h as char).to_digit(16).ok_or(Refused)?;
                            }
                            // Surrogates: serde_json judges pairs and lone halves.
                            if (0xD800..0xE000).contains(&n) {
                                return Err(Refused);
                            }
                            j += 6;
                        }
                        _ => return Err(Refused),
                    }
                }
                // The first byte past ASCII: the text is to be checked as UTF-8 (by the
                // caller); strings are read on to their special characters only.
                0x80.. => {
                    self.wide = true;
                    j += 1;
                }
                _ => return Err(Refused),
            }
        }
    }

    /// Opens a container at the cursor: its slot in `containers`, what `loose` and
    /// `pending` were.
    fn open(&mut self) -> Result<Open, Refused> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Refused);
        }
        let open = Open {
            slot: self.containers.len(),
            loose: self.loose,
            pending: self.pending.len(),
        };
        self.containers.push(Container {
            start: self.i as u32,
            end: 0,
            fields: 0,
            count: NOT_NOTED,
        });
        self.i += 1;
        self.ws();
        Ok(open)
    }

    /// Closes a container (the cursor is past its closing bracket): kept in the index when
    /// long enough (what it holds is shorter still, so already gone if it is not), with its
    /// fields when it is an object and the cap allows.
    fn close(&mut self, open: Open, object: bool) {
        self.depth -= 1;
        let start = self.containers[open.slot].start as usize;
        if self.i - start < CONTAINER_NOTE {
            self.containers.truncate(open.slot);
            self.pending.truncate(open.pending);
            return;
        }
        let canonical = if self.loose == open.loose { FLAG } else { 0 };
        let c = &mut self.containers[open.slot];
        c.end = self.i as u32 | canonical;
        if object {
            let count = self.pending.len() - open.pending;
            if self.fields.len() + count <= self.field_cap {
                c.fields = self.fields.len() as u32;
                c.count = count as u32;
                self.fields.extend(self.pending.drain(open.pending..));
            } else {
                self.pending.truncate(open.pending);
            }
        }
    }

    /// After an item or field: a comma (false: another follows) or the closing `close`
    /// (true: the container ends), white space skipped around it.
    fn comma_or(&mut self, close: u8) -> Result<bool, Refused> {
        self.ws();
        match self.peek() {
            b',' => {
                self.i += 1;
                self.ws();
                Ok(false)
            }
            b if b == close => {
                self.i += 1;
                Ok(true)
            }
            _ => Err(Refused),
        }
    }

    /// An array at the cursor; how many items it holds.
    fn array(&mut self) -> Result<usize, Refused> {
        let open = self.open()?;
        let mut items = 0;
        if self.peek() == b']' {
            self.i += 1;
        } else {
            loop {
                self.value()?;
                items += 1;
                if self.comma_or(b']')? {
                    break;
                }
            }
        }
        self.close(open, false);
        Ok(items)
    }

    /// An object at the cursor; `root` notes its keys and array lengths.
    fn object(&mut self, root: bool) -> Result<(), Refused> {
        let open = self.open()?;
        if self.peek() == b'}' {
            self.i += 1;
        } else {
            loop {
                if self.peek() != b'"' {
                    return Err(Refused);
                }
                let key = self.i;
                let escaped = self.string()?;
                let key_end = self.i;
                if root {
                    match (&mut self.root_keys, escaped) {
                        (Some(keys), false) => keys.push(key),
                        (keys, _) => *keys = None,
                    }
                }
                self.ws();
                if self.peek() != b':' {
                    return Err(Refused);
                }
                self.i += 1;
                self.ws();
                let value = self.i;
                if root && self.peek() == b'[' {
                    let items = self.array()?;
                    if let Some(keys) = &self.root_keys {
                        self.root_arrays.push((keys.len() - 1, items));
                    }
                } else {
                    self.value()?;
                }
                self.pending.push(FieldSpan {
                    key: key as u32,
                    key_end: key_end as u32 | if escaped { FLAG } else { 0 },
                    value: value as u32,
                    value_end: self.i as u32,
                });
                if self.comma_or(b'}')? {
                    break;
                }
            }
        }
        self.close(open, true);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{add_field, canonical_len, decode, BytesError, Doc};
    use super::scan;
    use proptest::prelude::*;
    use serde::de::IgnoredAny;

    /// The scanner's verdict and notes against serde_json's pass on `text`: it may refuse
    /// what serde_json accepts, never accept what serde_json refuses, and notes the same.
    fn agrees(text: &str) {
        let by_serde = Doc::parse_by_serde(text);
        let Some(scan) = scan(text.as_bytes()) else {
            return;
        };
        let doc = by_serde.unwrap_or_else(|e| panic!("accepted {text:?}, serde_json: {e}"));
        // Past ASCII only inside strings, and the first such byte always seen.
        assert_eq!(scan.wide, !text.is_ascii(), "{text:?}");
        assert_eq!(scan.noted, doc.noted, "{text:?}");
        assert_eq!(scan.root_keys, doc.root_keys, "{text:?}");
        if scan.root_keys.is_some() {
            assert_eq!(scan.root_arrays, doc.root_arrays, "{text:?}");
        }
        let mut last = None;
        for c in &scan.containers {
            let (start, end) = (c.start as usize, (c.end & !super::FLAG) as usize);
            assert!(last.is_none_or(|l| l < start), "in order: {text:?}");
            last = Some(start);
            assert!(end - start >= super::CONTAINER_NOTE);
            let value = &text[start..end];
            assert!(value.starts_with(['{', '[']) && value.ends_with(['}', ']']));
            assert!(
                serde_json::from_str::<IgnoredAny>(value).is_ok(),
                "{value:?}"
            );
            if c.end & super::FLAG != 0 {
                assert_eq!(canonical_len(value), value.len() as u64, "{value:?}");
            }
            if c.count != super::NOT_NOTED {
                // The noted fields are the ones found by reading the object.
                let from = c.fields as usize;
                let spans = &scan.fields[from..from + c.count as usize];
                let mut fields = Vec::new();
                let mut index = None;
                for f in spans {
                    let key = &text[f.key as usize..(f.key_end & !super::FLAG) as usize];
                    assert_eq!(f.key_end & super::FLAG != 0, key.contains('\\'));
                    let value = &text[f.value as usize..f.value_end as usize];
                    add_field(&mut fields, &mut index, decode(key), value);
                }
                assert_eq!(Some(fields), doc.fields(value), "{value:?}");
            }
        }
    }

    #[test]
    fn edges_agree_with_serde_json() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let cases = [
            "",
            " ",
            "{",
            "}",
            "[",
            "]",
            "[]",
            "{}",
            "null",
            "nul",
            "nulll",
            "true",
            "tru",
            "false",
            "0",
            "-0",
            "-",
            "01",
            "1.",
            "1.5",
            ".5",
            "1e5",
            "1E+5",
            "-1e-5",
            "1x",
            "[1,]",
            "[,1]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{a:1}",
            "{\"a\":1 \"b\":2}",
            "\"\\u00e9\"",
            "\"\\ud83e\\udd80\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\u12g4\"",
            "\"a\nb\"",
            "\"a\tb\"",
            "\"\u{7f}\"",
            "\"\\\"",
            "\"abc",
            "[\"a\"]]",
            "{} {}",
            " [1, 2 , 3 ] ",
            "\"\\/\\b\\f\\n\\r\\t\\\\\\\"\"",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"hello there, a long string\"}]}",
            "{\"a\\u0062\":[1,2,3],\"messages\":[{},{}]}",
            "{\"m\":[1,2],\"n\":{\"x\":[3,4,5,6,7,8,9,10,11,12,13,14]}}",
        ];
        for case in cases {
            agrees(case);
        }
        let long_number = format!("[{}]", "9".repeat(400));
        agrees(&long_number);
        agrees(&format!("[1{}]", "0".repeat(299)));
        for n in [99, 100, 101, 127, 128, 129] {
            agrees(&deep(n));
        }
        assert!(scan(deep(100).as_bytes()).is_some());
        assert!(scan(b"[1.5e308, -2E-5, 1e+3]").is_some());
        // Past f64: valid JSON, accepted by both passes.
        assert!(scan(b"[1.8e308, 1E400, -1e999999]").is_some());
        assert!(Doc::parse_by_serde("[1.8e308, 1E400, -1e999999]").is_ok());
        assert!(scan(b"{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}").is_some());
    }

    /// JSON texts: serde_json's writing of generated values, compact or pretty.
    fn json_text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(serde_json::Value::from),
            "[a-z \\\\\"\u{e9}\u{1}\u{1f980}]{0,200}".prop_map(serde_json::Value::from),
        ];
        let value = leaf.prop_recursive(5, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
                prop::collection::vec(("[a-z\"]{0,30}", inner), 0..6)
                    .prop_map(|f| serde_json::Value::Object(f.into_iter().collect())),
            ]
        });
        (value, any::<bool>()).prop_map(|(v, pretty)| {
            if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                v.to_string()
            }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn valid_json_is_scanned_as_serde_json_reads_it(text in json_text()) {
            agrees(&text);
            // Written by serde_json without surrogates or deep nesting: accepted.
            prop_assert!(scan(text.as_bytes()).is_some(), "{}", text);
        }

        #[test]
        fn mutated_json_is_never_accepted_where_serde_json_refuses_it(
            text in json_text(),
            edits in prop::collection::vec(
                (any::<prop::sample::Index>(), 0..3u8, prop::sample::select(
                    &[b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b' ', b'1', b'-', b'.',
                      b'e', b'u', b'n', b'x', b'\n', 0x01][..])),
                1..4),
        ) {
            let mut bytes = text.into_bytes();
            for (at, op, byte) in edits {
                let at = at.index(bytes.len() + 1);
                match op {
                    0 => bytes.insert(at, byte),
                    1 if at < bytes.len() => { bytes.remove(at); }
                    _ if at < bytes.len() => bytes[at] = byte,
                    _ => bytes.push(byte),
                }
            }
            if let Ok(text) = String::from_utf8(bytes) {
                agrees(&text);
            }
        }

        /// Bytes that may not be UTF-8 (bytes past ASCII put anywhere, inside strings or not,
        /// each alone or where a character of several bytes is cut): read as bytes, a text has
        /// the verdict of the UTF-8 check followed by the reading of the text.
        #[test]
        fn bytes_are_read_as_their_utf8_check_and_text_are(
            text in json_text(),
            edits in prop::collection::vec(
                (any::<prop::sample::Index>(), any::<bool>(), prop::sample::select(
                    &[0x80u8, 0xBF, 0xC3, 0xA9, 0xE2, 0xF0, 0x9F, 0xFF, b'"', b'\\'][..])),
                0..4),
        ) {
            let mut bytes = text.into_bytes();
            for (at, insert, byte) in edits {
                let at = at.index(bytes.len() + 1);
                if insert || at == bytes.len() {
                    bytes.insert(at, byte);
                } else {
                    bytes[at] = byte;
                }
            }
            match (Doc::parse_bytes(&bytes), std::str::from_utf8(&bytes)) {
                (Err(BytesError::Utf8 { valid_up_to }), Err(e)) => {
                    prop_assert_eq!(valid_up_to, e.valid_up_to());
                }
                (Ok(doc), Ok(text)) => {
                    prop_assert_eq!(doc.text, text);
                    let by_text = Doc::parse(text).expect("the text is read as the bytes were");
                    prop_assert_eq!(doc.noted, by_text.noted);
                }
                (Err(BytesError::Json(e)), Ok(text)) => {
                    let by_text = Doc::parse(text).err().expect("the text is refused too");
                    prop_assert_eq!(e.to_string(), by_text.to_string());
                }
                (bytes, text) => prop_assert!(
                    false,
                    "bytes: {:?}, text: {:?}",
                    bytes.map(|_| ()),
                    text.map(|_| ())
                ),
            }
        }
    }
}

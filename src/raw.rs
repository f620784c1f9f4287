//! The caller's JSON, read in place.
//!
//! The text is validated once by serde_json (its error messages and nesting limit are the
//! contract's); after that, values are *spans* of the text (`&str` slices), read lazily: an
//! object's fields, an array's items, a string decoded only when something needs its
//! characters (borrowed when it has no escapes). Lengths — a string's UTF-8 length, a value's
//! canonical compact length — are counted from the span without building anything.
//!
//! A long string (a screenshot's base64) is scanned once: where it ends is remembered, so
//! reading the object around it again, one level deeper, skips it at once.
//!
//! ```
//! use ankita::raw::{canonical_len, str_len, Doc};
//! let doc = Doc::parse(r#"{ "a" : [1, "x\n"] }"#).unwrap();
//! let root = doc.root();
//! assert_eq!(canonical_len(root), r#"{"a":[1,"x\n"]}"#.len() as u64);
//! let fields = doc.fields(root).unwrap();
//! assert_eq!(fields[0].0, "a");
//! assert_eq!(doc.items(fields[0].1).unwrap().len(), 2);
//! assert_eq!(str_len(r#""x\n\u00e9""#), 4);
//! ```

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

/// A JSON value as the caller wrote it: a slice of the request text.
pub type Raw<'a> = &'a str;

/// An object's fields in order. A key given twice keeps its first place and its last value,
/// as a JSON object read into a map would.
pub type Fields<'a> = Vec<(Cow<'a, str>, Raw<'a>)>;

/// Strings at least this long have their end remembered.
const REMEMBER: usize = 512;

/// What kind of value a raw value is, from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

/// The kind of a raw value.
pub fn kind(raw: Raw<'_>) -> Kind {
    match raw.as_bytes().first() {
        Some(b'{') => Kind::Object,
        Some(b'[') => Kind::Array,
        Some(b'"') => Kind::String,
        Some(b'n') => Kind::Null,
        Some(b't' | b'f') => Kind::Bool,
        _ => Kind::Number,
    }
}

/// A validated JSON text.
pub struct Doc<'a> {
    text: &'a str,
    /// (start, end) offsets of the long strings scanned so far, by start.
    long_strings: RefCell<Vec<(usize, usize)>>,
}

impl<'a> Doc<'a> {
    /// Validates `text` (serde_json's rules, messages and nesting limit).
    pub fn parse(text: &'a str) -> Result<Doc<'a>, ParseError> {
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(ParseError::Serde)?;
        check_depth_and_escapes(text.as_bytes())?;
        Ok(Doc {
            text,
            long_strings: RefCell::new(Vec::new()),
        })
    }

    /// The whole value, without the white space around it.
    pub fn root(&self) -> Raw<'a> {
        self.text
            .trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r'))
    }

    fn offset(&self, raw: Raw<'a>) -> usize {
        raw.as_ptr() as usize - self.text.as_ptr() as usize
    }

    /// The fields of an object, or `None` when the value is not an object.
    pub fn fields(&self, raw: Raw<'a>) -> Option<Fields<'a>> {
        if kind(raw) != Kind::Object {
            return None;
        }
        let bytes = self.text.as_bytes();
        let mut i = self.offset(raw) + 1;
        let mut fields: Fields<'a> = Vec::new();
        // Objects of a few keys are searched; a hostile one of thousands is indexed.
        let mut index: Option<HashMap<Cow<'a, str>, usize>> = None;
        loop {
            i = skip_ws(bytes, i);
            if bytes[i] == b'}' {
                return Some(fields);
            }
            if bytes[i] == b',' {
                i = skip_ws(bytes, i + 1);
            }
            let key_end = self.skip_string(i);
            let key = decode(&self.text[i..key_end]);
            i = skip_ws(bytes, key_end) + 1; // the colon
            let start = skip_ws(bytes, i);
            let end = self.skip_value(start);
            let value = &self.text[start..end];
            i = end;
            if fields.len() >= 16 && index.is_none() {
                index = Some(
                    fields
                        .iter()
                        .enumerate()
                        .map(|(n, (k, _))| (k.clone(), n))
                        .collect(),
                );
            }
            let seen = match &index {
                Some(index) => index.get(&key).copied(),
                None => fields.iter().position(|(k, _)| *k == key),
            };
            match seen {
                Some(n) => fields[n].1 = value,
                None => {
                    if let Some(index) = &mut index {
                        index.insert(key.clone(), fields.len());
                    }
                    fields.push((key, value));
                }
            }
        }
    }

    /// The items of an array, or `None` when the value is not an array.
    pub fn items(&self, raw: Raw<'a>) -> Option<Vec<Raw<'a>>> {
        if kind(raw) != Kind::Array {
            return None;
        }
        let bytes = self.text.as_bytes();
        let mut i = self.offset(raw) + 1;
        let mut items = Vec::new();
        loop {
            i = skip_ws(bytes, i);
            match bytes[i] {
                b']' => return Some(items),
                b',' => i += 1,
                _ => {
                    let end = self.skip_value(i);
                    items.push(&self.text[i..end]);
                    i = end;
                }
            }
        }
    }

    /// The end of the value starting at `i`.
    fn skip_value(&self, i: usize) -> usize {
        let bytes = self.text.as_bytes();
        match bytes[i] {
            b'"' => self.skip_string(i),
            b'{' | b'[' => {
                let mut depth = 0usize;
                let mut j = i;
                loop {
                    match bytes[j] {
                        b'"' => {
                            j = self.skip_string(j);
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return j + 1;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            _ => {
                let mut j = i;
                while j < bytes.len()
                    && !matches!(bytes[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                {
                    j += 1;
                }
                j
            }
        }
    }

    /// The end (after the closing quote) of the string starting at `i`.
    fn skip_string(&self, i: usize) -> usize {
        {
            let known = self.long_strings.borrow();
            if let Some(last) = known.last() {
                if i <= last.0 {
                    if let Ok(k) = known.binary_search_by_key(&i, |&(s, _)| s) {
                        return known[k].1;
                    }
                }
            }
        }
        let end = string_end(self.text.as_bytes(), i);
        if end - i >= REMEMBER {
            let mut known = self.long_strings.borrow_mut();
            match known.binary_search_by_key(&i, |&(s, _)| s) {
                Ok(_) => {}
                Err(at) => known.insert(at, (i, end)),
            }
        }
        end
    }
}

/// Why a text is not JSON the library takes.
#[derive(Debug)]
pub enum ParseError {
    /// serde_json's own message.
    Serde(serde_json::Error),
    /// What serde_json's reading into values refuses beyond its grammar check: nesting deeper
    /// than 127 levels, a lone UTF-16 surrogate in a `\u` escape.
    Other(String),
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Serde(e) => e.fmt(f),
            ParseError::Other(message) => f.write_str(message),
        }
    }
}

/// The nesting limit of serde_json's reader (values nested deeper are refused).
const MAX_DEPTH: usize = 127;

/// Checks what a grammar pass lets through: nesting no deeper than serde_json reads, and
/// `\u` escapes that are whole UTF-16 characters. One pass, strings eight bytes at a time.
fn check_depth_and_escapes(bytes: &[u8]) -> Result<(), ParseError> {
    let at = |i: usize, what: &str| {
        let line = 1 + bytes[..i].iter().filter(|&&b| b == b'\n').count();
        let column = i - bytes[..i]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1)
            + 1;
        ParseError::Other(format!("{what} at line {line} column {column}"))
    };
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(at(i + 1, "recursion limit exceeded"));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let mut j = i + 1;
                loop {
                    while j + 8 <= bytes.len() {
                        let word = u64::from_le_bytes(bytes[j..j + 8].try_into().expect("8"));
                        if has_quote_or_backslash(word) {
                            break;
                        }
                        j += 8;
                    }
                    match bytes[j] {
                        b'"' => break,
                        b'\\' if bytes[j + 1] == b'u' => {
                            let (c, used) = escape(&bytes[j..]);
                            if c.is_none() || (used == 6 && is_surrogate(&bytes[j..])) {
                                return Err(at(j + used, "lone surrogate in hex escape"));
                            }
                            j += used;
                        }
                        b'\\' => j += 2,
                        _ => j += 1,
                    }
                }
                i = j;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// Whether the `\uXXXX` escape at the start of `bytes` is a UTF-16 surrogate.
fn is_surrogate(bytes: &[u8]) -> bool {
    std::str::from_utf8(&bytes[2..6])
        .ok()
        .and_then(|h| u32::from_str_radix(h, 16).ok())
        .is_some_and(|c| (0xD800..0xE000).contains(&c))
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// True when some byte of `word` is `"` or `\`.
#[inline]
fn has_quote_or_backslash(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS != 0;
    has_zero(word ^ (ONES * u64::from(b'"'))) || has_zero(word ^ (ONES * u64::from(b'\\')))
}

/// The end (after the closing quote) of the valid string token starting at `i`.
fn string_end(bytes: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    loop {
        while j + 8 <= bytes.len() {
            let word = u64::from_le_bytes(bytes[j..j + 8].try_into().expect("8 bytes"));
            if has_quote_or_backslash(word) {
                break;
            }
            j += 8;
        }
        match bytes[j] {
            b'"' => return j + 1,
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
}

/// The index of the first `\` in `bytes`, if any, eight bytes at a time.
fn find_backslash(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut j = 0;
    while j + 8 <= bytes.len() {
        let word = u64::from_le_bytes(bytes[j..j + 8].try_into().expect("8 bytes"));
        let x = word ^ (ONES * u64::from(b'\\'));
        if x.wrapping_sub(ONES) & !x & HIGHS != 0 {
            break;
        }
        j += 8;
    }
    bytes[j..].iter().position(|&b| b == b'\\').map(|k| j + k)
}

/// The value of `key` among `fields`.
pub fn get<'a>(fields: &[(Cow<'a, str>, Raw<'a>)], key: &str) -> Option<Raw<'a>> {
    fields.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
}

/// A string value decoded (borrowed when it has no escapes), or `None` for other kinds.
pub fn string(raw: Raw<'_>) -> Option<Cow<'_, str>> {
    (kind(raw) == Kind::String).then(|| decode(raw))
}

/// A string value, `null` (or absent) as `Ok(None)`, anything else `Err(())`.
#[allow(clippy::result_unit_err)]
pub fn optional_string(raw: Option<Raw<'_>>) -> Result<Option<Cow<'_, str>>, ()> {
    match raw {
        None => Ok(None),
        Some(r) => match kind(r) {
            Kind::Null => Ok(None),
            Kind::String => Ok(Some(decode(r))),
            _ => Err(()),
        },
    }
}

/// Decodes a valid JSON string token (quotes included): borrowed when it has no escapes.
pub fn decode(token: &str) -> Cow<'_, str> {
    let inner = &token[1..token.len() - 1];
    let Some(first) = find_backslash(inner.as_bytes()) else {
        return Cow::Borrowed(inner);
    };
    let bytes = inner.as_bytes();
    let mut out = String::with_capacity(inner.len());
    out.push_str(&inner[..first]);
    let mut i = first;
    let mut run = first;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        out.push_str(&inner[run..i]);
        let (c, used) = escape(&bytes[i..]);
        out.push(c.unwrap_or('\u{FFFD}'));
        i += used;
        run = i;
    }
    out.push_str(&inner[run..]);
    Cow::Owned(out)
}

/// The UTF-8 length of a valid JSON string token (quotes included) once decoded.
pub fn str_len(token: &str) -> u64 {
    let inner = &token.as_bytes()[1..token.len() - 1];
    let Some(first) = find_backslash(inner) else {
        return inner.len() as u64;
    };
    let mut len = first as u64;
    let mut i = first;
    while i < inner.len() {
        if inner[i] != b'\\' {
            len += 1;
            i += 1;
            continue;
        }
        let (code, used) = escape(&inner[i..]);
        len += code.map_or(3, |c| c.len_utf8() as u64);
        i += used;
    }
    len
}

/// The length of `value` written as compact JSON the way serde_json writes it (no white space;
/// strings with only `"`, `\` and control characters escaped). Numbers count as written.
pub fn canonical_len(raw: &str) -> u64 {
    let bytes = raw.as_bytes();
    let mut len = 0u64;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'"' => {
                let end = string_end(bytes, i);
                len += canonical_string_len(&bytes[i..end]);
                i = end;
            }
            _ => {
                len += 1;
                i += 1;
            }
        }
    }
    len
}

/// The canonical length of a valid string token.
fn canonical_string_len(token: &[u8]) -> u64 {
    let inner = &token[1..token.len() - 1];
    let Some(first) = find_backslash(inner) else {
        return token.len() as u64;
    };
    let mut len = 2 + first as u64;
    let mut i = first;
    while i < inner.len() {
        if inner[i] != b'\\' {
            len += 1;
            i += 1;
            continue;
        }
        let (code, used) = escape(&inner[i..]);
        len += match code {
            Some('"' | '\\' | '\u{8}' | '\t' | '\n' | '\u{c}' | '\r') => 2,
            Some(c) if (c as u32) < 0x20 => 6,
            Some(c) => c.len_utf8() as u64,
            None => 3,
        };
        i += used;
    }
    len
}

/// The character of the escape at the start of `bytes` (`\n`, `\uXXXX`, a surrogate pair) and
/// the bytes it takes; `None` for a lone surrogate.
fn escape(bytes: &[u8]) -> (Option<char>, usize) {
    let simple = |c: char| (Some(c), 2);
    match bytes.get(1) {
        Some(b'b') => simple('\u{8}'),
        Some(b'f') => simple('\u{c}'),
        Some(b'n') => simple('\n'),
        Some(b'r') => simple('\r'),
        Some(b't') => simple('\t'),
        Some(b'u') => {
            let hex = |at: usize| -> Option<u32> {
                let digits = bytes.get(at..at + 4)?;
                u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
            };
            let Some(high) = hex(2) else {
                return (None, bytes.len().min(6));
            };
            if (0xD800..0xDC00).contains(&high) && bytes.get(6..8) == Some(b"\\u") {
                if let Some(low) = hex(8).filter(|l| (0xDC00..0xE000).contains(l)) {
                    let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                    return (char::from_u32(c), 12);
                }
            }
            (char::from_u32(high), 6)
        }
        Some(&other) => simple(char::from(other)),
        None => (None, 1),
    }
}

/// The compact length of an object made of `fields` without the keys in `skip`: braces,
/// colons and commas included.
pub fn object_len_without(fields: &[(Cow<'_, str>, Raw<'_>)], skip: &[&str]) -> u64 {
    let mut meta = MetaLen::default();
    for (key, value) in fields {
        if !skip.contains(&key.as_ref()) {
            meta.field(key, canonical_len(value));
        }
    }
    meta.total()
}

/// Adds up the compact length of an object field by field.
#[derive(Debug, Default, Clone, Copy)]
pub struct MetaLen {
    bytes: u64,
    fields: u64,
}

impl MetaLen {
    /// One more field: its key (decoded) and its value's compact length.
    pub fn field(&mut self, key: &str, value_len: u64) {
        self.bytes += string_len_as_json(key) + value_len;
        self.fields += 1;
    }

    /// `{…}`: the fields, a colon each, commas between.
    pub fn total(self) -> u64 {
        self.bytes + 2 + self.fields + self.fields.saturating_sub(1)
    }
}

/// The compact JSON length of a decoded string (quotes and escapes included).
pub fn string_len_as_json(s: &str) -> u64 {
    let mut len = 2 + s.len() as u64;
    for &b in s.as_bytes() {
        if b < 0x20 || b == b'"' || b == b'\\' {
            len += match b {
                b'"' | b'\\' | 0x08 | b'\t' | b'\n' | 0x0C | b'\r' => 1,
                _ => 5,
            };
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn lengths_match_serde_json() {
        for text in [
            r#"{"a": 1, "b": [true, false, null], "c": {"d": "e\"f\\g"}}"#,
            r#"  "tab\there \u00e9 \ud83d\ude00 \u0001 \/ \b\f\r\n"  "#,
            r#"[ 1 , -2.5 , "x" , { } , [ ] ]"#,
            r#""plain""#,
            r#""\u001f\u007f\u0022 and a longer run of plain text after the escapes""#,
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            let doc = Doc::parse(text).unwrap();
            let r = doc.root();
            assert_eq!(
                canonical_len(r),
                serde_json::to_string(&v).unwrap().len() as u64,
                "{text}"
            );
            if let Value::String(s) = &v {
                assert_eq!(str_len(r), s.len() as u64, "{text}");
                assert_eq!(string(r).unwrap(), s.as_str());
                assert_eq!(string_len_as_json(s), canonical_len(r));
            }
        }
    }

    #[test]
    fn fields_keep_order_and_the_last_duplicate() {
        let doc = Doc::parse(r#" {"b": 1, "a" :2, "b": 3} "#).unwrap();
        let f = doc.fields(doc.root()).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!((f[0].0.as_ref(), f[0].1), ("b", "3"));
        assert_eq!(f[1].0, "a");
        let many: String = (0..40)
            .map(|i| format!("\"k{}\": {i}", i % 20))
            .collect::<Vec<_>>()
            .join(",");
        let text = format!("{{{many}}}");
        let doc = Doc::parse(&text).unwrap();
        let f = doc.fields(doc.root()).unwrap();
        assert_eq!(f.len(), 20);
        assert_eq!(f[3].1, "23");
        let doc = Doc::parse("[1, {\"x\": [\"]\\\"\"]}, \"s\"]").unwrap();
        assert!(doc.fields(doc.root()).is_none());
        assert_eq!(
            doc.items(doc.root()).unwrap(),
            vec!["1", "{\"x\": [\"]\\\"\"]}", "\"s\""]
        );
    }

    #[test]
    fn long_strings_are_remembered_and_read_the_same() {
        let long = "A".repeat(5000);
        let text = format!(r#"[{{"u": "{long}", "v": "x\"y"}}, "{long}"]"#);
        let doc = Doc::parse(&text).unwrap();
        for _ in 0..3 {
            let items = doc.items(doc.root()).unwrap();
            let f = doc.fields(items[0]).unwrap();
            assert_eq!(str_len(f[0].1), 5000);
            assert_eq!(decode(f[1].1), "x\"y");
            assert_eq!(items[1].len(), 5002);
        }
        assert_eq!(doc.long_strings.borrow().len(), 2);
        let doc = Doc::parse(r#"{"role": "user", "content": "x"}"#).unwrap();
        assert_eq!(
            object_len_without(&doc.fields(doc.root()).unwrap(), &["content"]),
            r#"{"role":"user"}"#.len() as u64
        );
    }
}

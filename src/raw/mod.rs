//! The caller's JSON, read in place.
//!
//! The text is validated once, by the crate's own scanner where it can (noting where
//! containers and objects' fields lie as it goes, scan.rs) and otherwise by serde_json (whose error
//! messages and nesting limit are the contract's; validate.rs); after that, values are *spans* of the text
//! (`&str` slices), read lazily: an
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

mod bytes;
mod scan;
mod validate;
mod value;
mod wide;

use bytes::*;

pub use value::*;

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A JSON value as the caller wrote it: a slice of the request text.
pub type Raw<'a> = &'a str;

/// An object's fields in order. A key given twice keeps its first place and its last value,
/// as a JSON object read into a map would.
pub type Fields<'a> = Vec<(Cow<'a, str>, Raw<'a>)>;

/// Strings without escapes at least this long (quotes included) are noted while validating.
const NOTE: usize = 24;
/// Strings with escapes at least this long have their end remembered once scanned.
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

/// Why bytes are not a JSON text ([`Doc::parse_bytes`]).
#[derive(Debug)]
pub enum BytesError {
    /// Not UTF-8: the bytes before `valid_up_to` are.
    Utf8 {
        valid_up_to: usize,
    },
    Json(serde_json::Error),
}

/// Checks UTF-8 with a SIMD validator; where the first bad byte is on failure.
pub fn utf8(bytes: &[u8]) -> Result<&str, BytesError> {
    simdutf8::basic::from_utf8(bytes).map_err(|_| BytesError::Utf8 {
        valid_up_to: simdutf8::compat::from_utf8(bytes)
            .err()
            .map_or(0, |e| e.valid_up_to()),
    })
}

/// A validated JSON text.
pub struct Doc<'a> {
    text: &'a str,
    /// (start, end) offsets of the long strings scanned so far, by start.
    /// (start, end) of the strings without escapes of at least [`NOTE`] bytes, in order.
    noted: Vec<(usize, usize)>,
    /// Where the last lookup in `noted` ended: reading goes forward, so the next one is
    /// usually right there.
    hint: Cell<usize>,
    /// Where each key of the root object starts, when the root is an object whose keys have no
    /// escapes: its values are then found between the keys, without being read.
    root_keys: Option<Vec<usize>>,
    /// (key, items) of the arrays among the root object's values: how many items the caller's
    /// messages are, known before reading them.
    root_arrays: Vec<(usize, usize)>,
    /// start → end of the long strings with escapes scanned so far.
    scanned: RefCell<HashMap<usize, usize, BuildHasherDefault<OffsetHasher>>>,
    /// The objects and arrays of at least [`scan::CONTAINER_NOTE`] bytes, by start, when the text was
    /// validated by the scanner (empty otherwise), and their fields.
    containers: Vec<scan::Container>,
    fields: Vec<scan::FieldSpan>,
    /// Where the last lookup in `containers` ended.
    container_hint: Cell<usize>,
}

/// Hashes a byte offset (a multiply-rotate: offsets are distinct integers).
#[derive(Default)]
struct OffsetHasher(u64);

impl Hasher for OffsetHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl<'a> Doc<'a> {
    /// Validates `text` as serde_json reads it into values (its grammar, nesting limit,
    /// escapes and error messages; but a number past f64, such as `1E400`, is valid JSON and
    /// passes as written), in one pass that notes where each long string without
    /// escapes, each container of [`scan::CONTAINER_NOTE`] bytes or more and its fields lie, so reading the
    /// text later scans none of them again. The pass is the crate's own scanner; what it
    /// leaves to serde_json (invalid JSON, surrogate escapes, deep nesting) takes serde_json's.
    pub fn parse(text: &'a str) -> Result<Doc<'a>, serde_json::Error> {
        match scan::scan(text.as_bytes()) {
            Some(scan) => Ok(Self::scanned(text, scan)),
            None => Self::parse_by_serde(text),
        }
    }

    /// [`Doc::parse`] over bytes not yet known to be UTF-8, with the verdict of checking them
    /// first: the scanner reads bytes and tells whether a string holds a byte past ASCII, so a
    /// text of ASCII it accepts is not read a second time to be checked.
    pub fn parse_bytes(bytes: &'a [u8]) -> Result<Doc<'a>, BytesError> {
        match scan::scan(bytes) {
            Some(scan) if !scan.wide => {
                debug_assert!(bytes.is_ascii());
                // SAFETY: the scanner accepts bytes past ASCII inside strings only, and saw
                // none there (`wide`): the text is ASCII, so UTF-8.
                let text = unsafe { std::str::from_utf8_unchecked(bytes) };
                Ok(Self::scanned(text, scan))
            }
            Some(scan) => Ok(Self::scanned(utf8(bytes)?, scan)),
            None => Self::parse_by_serde(utf8(bytes)?).map_err(BytesError::Json),
        }
    }

    fn scanned(text: &'a str, scan: scan::Scan) -> Doc<'a> {
        Doc {
            text,
            noted: scan.noted,
            root_keys: scan.root_keys,
            root_arrays: scan.root_arrays,
            hint: Cell::new(0),
            scanned: RefCell::new(HashMap::default()),
            containers: scan.containers,
            fields: scan.fields,
            container_hint: Cell::new(0),
        }
    }

    /// [`Doc::parse`] by serde_json's own pass: what the scanner leaves to it. A number past
    /// f64, valid JSON that serde_json cannot read into a float, is read in a copy where it is
    /// in range ([`wide`]).
    fn parse_by_serde(text: &'a str) -> Result<Doc<'a>, serde_json::Error> {
        match Self::parse_by_serde_as(text, text) {
            Err(e) if wide::is_out_of_range(&e) => {
                Self::parse_by_serde_as(text, &wide::in_range(text))
            }
            parsed => parsed,
        }
    }

    /// serde_json's pass over `validated`, a text of the same length and shape as `text`.
    fn parse_by_serde_as(text: &'a str, validated: &str) -> Result<Doc<'a>, serde_json::Error> {
        let notes = validate::validate(validated)?;
        let root_keys = notes
            .root_keys
            .filter(|_| kind(text.trim_start()) == Kind::Object);
        Ok(Doc {
            text,
            noted: notes.noted,
            root_keys,
            root_arrays: notes.root_arrays,
            hint: Cell::new(0),
            scanned: RefCell::new(HashMap::default()),
            containers: Vec::new(),
            fields: Vec::new(),
            container_hint: Cell::new(0),
        })
    }

    /// A document over `text` that was validated before, in pieces (a session's messages,
    /// each validated by [`Doc::parse`] when it was given): `noted` are the long strings without
    /// escapes of those pieces ([`Doc::noted`]), moved to their offsets in `text`, in order.
    /// Nothing is validated again: `text` must be the pieces as they were validated, joined
    /// with JSON punctuation and white space only.
    pub fn from_validated(text: &'a str, noted: Vec<(usize, usize)>) -> Doc<'a> {
        Doc {
            text,
            noted,
            root_keys: None,
            root_arrays: Vec::new(),
            hint: Cell::new(0),
            scanned: RefCell::new(HashMap::default()),
            containers: Vec::new(),
            fields: Vec::new(),
            container_hint: Cell::new(0),
        }
    }

    /// The (start, end) offsets of the long strings without escapes noted while validating,
    /// in order (see [`Doc::from_validated`]).
    pub fn noted(&self) -> &[(usize, usize)] {
        &self.noted
    }

    /// Where `raw` (a value of this text) starts in it.
    pub fn offset_of(&self, raw: Raw<'a>) -> usize {
        self.offset(raw)
    }

    /// The whole value, without the white space around it.
    pub fn root(&self) -> Raw<'a> {
        self.text
            .trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r'))
    }

    fn offset(&self, raw: Raw<'a>) -> usize {
        raw.as_ptr() as usize - self.text.as_ptr() as usize
    }

    /// How many items the array `raw` holds, when it is a value of the root object (counted
    /// while validating); 0 when unknown.
    pub fn len_hint(&self, raw: Raw<'a>) -> usize {
        let Some(keys) = &self.root_keys else {
            return 0;
        };
        let at = self.offset(raw);
        let Some(key) = keys.partition_point(|&k| k < at).checked_sub(1) else {
            return 0;
        };
        self.root_arrays
            .iter()
            .find(|&&(k, _)| k == key)
            .map_or(0, |&(_, items)| items)
    }

    /// The text from the start of `first` to the end of `last` (values of this text, in order).
    pub fn span(&self, first: Raw<'a>, last: Raw<'a>) -> Raw<'a> {
        &self.text[self.offset(first)..self.offset(last) + last.len()]
    }

    /// The fields of an object, or `None` when the value is not an object.
    pub fn fields(&self, raw: Raw<'a>) -> Option<Fields<'a>> {
        if kind(raw) != Kind::Object {
            return None;
        }
        let mut fields = Vec::new();
        match &self.root_keys {
            Some(keys) if std::ptr::eq(raw, self.root()) => self.root_fields(keys, &mut fields),
            _ => {
                self.fields_into(self.offset(raw), &mut fields);
            }
        }
        Some(fields)
    }

    /// Reads the fields of an object into `fields` (cleared first); false when the value is
    /// not an object.
    pub fn read_fields(&self, raw: Raw<'a>, fields: &mut Fields<'a>) -> bool {
        fields.clear();
        if kind(raw) != Kind::Object {
            return false;
        }
        self.fields_into(self.offset(raw), fields);
        true
    }

    /// The fields of the root object, its values found between the keys noted while
    /// validating (the value before a key ends at the comma before it).
    fn root_fields(&self, keys: &[usize], fields: &mut Fields<'a>) {
        let bytes = self.text.as_bytes();
        let root = self.root();
        // The closing brace.
        let close = self.offset(root) + root.len() - 1;
        let mut index = None;
        for (n, &key_start) in keys.iter().enumerate() {
            let (key, key_end) = self.key_at(key_start);
            let start = skip_ws(bytes, skip_ws(bytes, key_end) + 1);
            let end = match keys.get(n + 1) {
                Some(&next) => skip_ws_back(bytes, skip_ws_back(bytes, next) - 1),
                None => skip_ws_back(bytes, close),
            };
            add_field(fields, &mut index, key, &self.text[start..end]);
        }
    }

    /// Reads the fields of the object starting at `i` into `fields`; returns where it ends.
    #[inline]
    fn fields_into(&self, i: usize, fields: &mut Fields<'a>) -> usize {
        fields.clear();
        if let Some(c) = self.container(i).filter(|c| c.count != scan::NOT_NOTED) {
            // Noted by the scanner: keys and values are where it saw them.
            let from = c.fields as usize;
            let spans = &self.fields[from..from + c.count as usize];
            if plain_distinct_keys(self.text.as_bytes(), spans) {
                // The common case, taken as it is: no key to decode or to look for twice.
                fields.reserve(spans.len());
                for f in spans {
                    fields.push((
                        Cow::Borrowed(self.noted_span(f.key as usize + 1, f.key_end as usize - 1)),
                        self.noted_span(f.value as usize, f.value_end as usize),
                    ));
                }
            } else {
                self.noted_fields_into(spans, fields);
            }
            return (c.end & !scan::FLAG) as usize;
        }
        self.unnoted_fields_into(i, fields)
    }

    /// `text[start..end]` for offsets the scanner noted: each lies at an ASCII byte (a quote,
    /// a bracket, the first byte of a value or past its last), so on a character boundary.
    #[inline(always)]
    fn noted_span(&self, start: usize, end: usize) -> &'a str {
        debug_assert!(self.text.is_char_boundary(start) && self.text.is_char_boundary(end));
        // SAFETY: `start <= end <= text.len()` (a token's bounds as the scanner read it) and
        // both are character boundaries (above).
        unsafe { self.text.get_unchecked(start..end) }
    }

    /// The fields the scanner noted, when keys have escapes or repeat.
    #[inline(never)]
    fn noted_fields_into(&self, spans: &[scan::FieldSpan], fields: &mut Fields<'a>) {
        let mut index = None;
        for f in spans {
            let key_end = (f.key_end & !scan::FLAG) as usize;
            let key = if f.key_end & scan::FLAG == 0 {
                Cow::Borrowed(&self.text[f.key as usize + 1..key_end - 1])
            } else {
                decode(&self.text[f.key as usize..key_end])
            };
            let value = &self.text[f.value as usize..f.value_end as usize];
            add_field(fields, &mut index, key, value);
        }
    }

    /// The fields of an object the scanner did not note, read from the text.
    #[inline(never)]
    fn unnoted_fields_into(&self, mut i: usize, fields: &mut Fields<'a>) -> usize {
        let mut index = None;
        let bytes = self.text.as_bytes();
        i += 1;
        loop {
            i = skip_ws(bytes, i);
            if bytes[i] == b'}' {
                return i + 1;
            }
            if bytes[i] == b',' {
                i = skip_ws(bytes, i + 1);
            }
            let (key, key_end) = self.key_at(i);
            i = skip_ws(bytes, key_end) + 1; // the colon
            let start = skip_ws(bytes, i);
            let end = self.skip_value(start);
            add_field(fields, &mut index, key, &self.text[start..end]);
            i = end;
        }
    }

    /// The items of an array, each object among them read into its fields in the same pass
    /// (so the array is scanned once, not once for the items and again for their fields);
    /// `None` when the value is not an array.
    pub fn object_items(&self, raw: Raw<'a>) -> Option<ObjectItems<'_, 'a>> {
        (kind(raw) == Kind::Array).then(|| ObjectItems {
            doc: self,
            at: self.offset(raw) + 1,
        })
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

    /// The key (a string token) starting at `i`, decoded, and where it ends. A key without
    /// escapes is read in one look at its bytes.
    fn key_at(&self, i: usize) -> (Cow<'a, str>, usize) {
        let bytes = self.text.as_bytes();
        let near = bytes.len().min(i + NOTE);
        if let Some(k) = quote_or_backslash(bytes, i + 1, near) {
            if bytes[k] == b'"' {
                return (Cow::Borrowed(&self.text[i + 1..k]), k + 1);
            }
        }
        let end = self.skip_string(i);
        (decode(&self.text[i..end]), end)
    }

    /// The end of the value starting at `i`.
    fn skip_value(&self, i: usize) -> usize {
        let bytes = self.text.as_bytes();
        match bytes[i] {
            b'"' => self.skip_string(i),
            open @ (b'{' | b'[') => {
                if let Some(c) = self.container(i) {
                    return (c.end & !scan::FLAG) as usize;
                }
                // Only brackets of this kind (and strings) change where it ends. Values inside
                // are mostly short: a byte loop beats starting a vector scan at each string.
                let close = if open == b'{' { b'}' } else { b']' };
                let mut depth = 0usize;
                let mut j = i;
                while j < bytes.len() {
                    match bytes[j] {
                        b'"' => {
                            j = short_string_end(bytes, j).unwrap_or_else(|| self.skip_string(j));
                            continue;
                        }
                        b if b == open => depth += 1,
                        b if b == close => {
                            depth -= 1;
                            if depth == 0 {
                                return j + 1;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                bytes.len()
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
        // Reading goes forward: the next noted string is usually the one asked for.
        let k = self.hint.get();
        if let Some(&(start, end)) = self.noted.get(k) {
            if start == i {
                self.hint.set(k + 1);
                return end;
            }
        }
        // Keys and short values end within a few bytes: scanning them costs less than looking
        // them up (a string ending here is never noted nor remembered anyway).
        let bytes = self.text.as_bytes();
        if let Some(end) = short_string_end(bytes, i) {
            return end;
        }
        if let Some(end) = self.noted_end(i) {
            return end;
        }
        if !self.scanned.borrow().is_empty() {
            if let Some(&end) = self.scanned.borrow().get(&i) {
                return end;
            }
        }
        let end = string_end(self.text.as_bytes(), i);
        if end - i >= REMEMBER {
            self.scanned.borrow_mut().insert(i, end);
        }
        end
    }

    /// The indexed container starting at `i`, if it is one.
    fn container(&self, i: usize) -> Option<&scan::Container> {
        let index = &self.containers;
        let at = i as u32;
        // Reading goes forward: the container asked for is usually a few entries past the
        // last one found (the ones between hold it and are never asked for).
        let mut k = self.container_hint.get();
        if k == 0 || index.get(k - 1).is_some_and(|c| c.start < at) {
            for _ in 0..4 {
                match index.get(k) {
                    Some(c) if c.start == at => {
                        self.container_hint.set(k + 1);
                        return Some(c);
                    }
                    Some(c) if c.start < at => k += 1,
                    _ => return None,
                }
            }
        }
        match index.binary_search_by_key(&at, |c| c.start) {
            Ok(k) => {
                self.container_hint.set(k + 1);
                Some(&index[k])
            }
            Err(k) => {
                self.container_hint.set(k);
                None
            }
        }
    }

    /// The length of `raw`'s compact JSON (see [`canonical_len`]), known at once for an
    /// indexed container written compactly.
    pub fn canonical_len(&self, raw: Raw<'a>) -> u64 {
        match kind(raw) {
            Kind::Object | Kind::Array => {
                if let Some(c) = self.container(self.offset(raw)) {
                    if c.end & scan::FLAG != 0 {
                        return raw.len() as u64;
                    }
                }
            }
            // A valid string token without escapes holds no control character: it is written
            // as it is.
            Kind::String if find_backslash(raw.as_bytes()).is_none() => return raw.len() as u64,
            _ => {}
        }
        canonical_len(raw)
    }

    /// The UTF-8 length of the string token `raw` (a value of this text) once decoded (see
    /// [`str_len`]), known at once for a long string noted without escapes: its characters are
    /// not read again.
    pub fn str_len(&self, raw: Raw<'a>) -> u64 {
        if raw.len() >= NOTE && self.noted_end(self.offset(raw)).is_some() {
            return raw.len() as u64 - 2;
        }
        str_len(raw)
    }

    /// The end of the noted string starting at `i`, if it is one.
    fn noted_end(&self, i: usize) -> Option<usize> {
        let noted = &self.noted;
        let k = self.hint.get();
        let found = match noted.get(k) {
            Some(&(start, end)) if start == i => Some((k, end)),
            // Between the one before and this one: not noted.
            Some(&(start, _)) if start > i && (k == 0 || noted[k - 1].0 < i) => return None,
            None if noted.last().is_none_or(|&(start, _)| start < i) => return None,
            _ => match noted.binary_search_by_key(&i, |&(start, _)| start) {
                Ok(k) => Some((k, noted[k].1)),
                Err(k) => {
                    self.hint.set(k);
                    return None;
                }
            },
        };
        found.map(|(k, end)| {
            self.hint.set(k + 1);
            end
        })
    }
}

/// The items of an array: each as written, with its fields when it is an object.
pub struct ObjectItems<'d, 'a> {
    doc: &'d Doc<'a>,
    at: usize,
}

impl<'a> ObjectItems<'_, 'a> {
    /// The next item, its fields read into `fields` (cleared) when it is an object: one buffer
    /// serves every item. `Some((item, is_object))`.
    pub fn next_into(&mut self, fields: &mut Fields<'a>) -> Option<(Raw<'a>, bool)> {
        let bytes = self.doc.text.as_bytes();
        let mut i = skip_ws(bytes, self.at);
        if bytes[i] == b',' {
            i = skip_ws(bytes, i + 1);
        }
        if bytes[i] == b']' {
            self.at = i;
            return None;
        }
        let object = bytes[i] == b'{';
        let end = if object {
            self.doc.fields_into(i, fields)
        } else {
            fields.clear();
            self.doc.skip_value(i)
        };
        self.at = end;
        Some((&self.doc.text[i..end], object))
    }
}

impl<'a> Iterator for ObjectItems<'_, 'a> {
    type Item = (Raw<'a>, Option<Fields<'a>>);

    fn next(&mut self) -> Option<Self::Item> {
        let mut fields = Vec::new();
        let (item, object) = self.next_into(&mut fields)?;
        Some((item, object.then_some(fields)))
    }
}

/// Adds a field read from an object: a key given again keeps its first place and takes the
/// new value. Objects of a few keys are searched; a hostile one of thousands is indexed.
fn add_field<'a>(
    fields: &mut Fields<'a>,
    index: &mut Option<HashMap<Cow<'a, str>, usize>>,
    key: Cow<'a, str>,
    value: Raw<'a>,
) {
    if fields.len() >= 16 && index.is_none() {
        *index = Some(
            fields
                .iter()
                .enumerate()
                .map(|(n, (k, _))| (k.clone(), n))
                .collect(),
        );
    }
    let seen = match index {
        Some(index) => index.get(&key).copied(),
        None => fields.iter().position(|(k, _)| same_key(k, &key)),
    };
    match seen {
        Some(n) => fields[n].1 = value,
        None => {
            if let Some(index) = index {
                index.insert(key.clone(), fields.len());
            }
            fields.push((key, value));
        }
    }
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
                assert_eq!(doc.str_len(r), s.len() as u64, "{text}");
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
    fn value_lengths_match_serde_json_or_are_refused() {
        for text in [
            r#"{"path": "src/a.rs", "n": 12, "neg": -3, "zero": 0, "ok": true, "x": null}"#,
            r#"{"q": "say \"hi\"\n\u0001 \\ \u00e9", "a": [1, {"b": []}, "c"], "a": {}}"#,
            r#"[ "plain" , [ ] , { "k\"ey" : "v" } ]"#,
            r#""\ud83d\ude00 and \t tab""#,
            "123456789012345678",
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            let doc = Doc::parse(text).unwrap();
            let got = value_len(&doc, doc.root()).expect(text);
            let written = serde_json::to_string(&v).unwrap();
            assert_eq!(got.len, written.len() as u64, "{text}");
            let as_string = serde_json::to_string(&Value::String(written)).unwrap();
            assert_eq!(got.as_string(), as_string.len() as u64, "{text}");
        }
        for text in [
            "1.0",
            "-0",
            "1e5",
            "1234567890123456789",
            "[0.5]",
            "{\"a\": 01.5}",
        ] {
            if let Ok(doc) = Doc::parse(text) {
                assert_eq!(value_len(&doc, doc.root()), None, "{text}");
            }
        }
    }

    #[test]
    fn quotes_and_backslashes_are_found_eight_bytes_at_a_time() {
        let text = br#"abcdefgh"ijklmnop\qrstuvwxyz0123456789"#;
        for from in 0..text.len() {
            for to in from..=text.len() {
                let slow = (from..to).find(|&j| matches!(text[j], b'"' | b'\\'));
                assert_eq!(quote_or_backslash(text, from, to), slow, "{from}..{to}");
            }
        }
        assert_eq!(short_string_end(br#""ab\"c"x"#, 0), Some(7));
        assert_eq!(
            short_string_end(br#""0123456789012345678901234567""#, 0),
            None
        );
    }

    #[test]
    fn root_fields_are_found_between_the_keys() {
        for text in [
            " { \"a\" : [1, {\"b\": \"}\"}] ,\n\"c\":\"x\" , \"a\": null\t} ",
            r#"{"a":1,"c":"x","a":2}"#,
            r#"{"\u0061":[],"c":{"d":"e"}}"#,
            "{}",
        ] {
            let doc = Doc::parse(text).unwrap();
            let mut slow = Vec::new();
            doc.fields_into(doc.offset(doc.root()), &mut slow);
            assert_eq!(doc.fields(doc.root()).unwrap(), slow, "{text}");
        }
        let doc = Doc::parse(r#"{"a": [1,2] , "b":{}}"#).unwrap();
        assert!(doc.root_keys.is_some());
        let f = doc.fields(doc.root()).unwrap();
        assert_eq!((f[0].1, f[1].1), ("[1,2]", "{}"));
        assert!(Doc::parse(r#"{"\u0061":1}"#).unwrap().root_keys.is_none());
        let doc =
            Doc::parse(r#"{"m": [1, [2, 3], {"a": [4]}], "n": {"b": [5, 6]}, "m": []}"#).unwrap();
        let f = doc.fields(doc.root()).unwrap();
        assert_eq!(doc.len_hint(f[0].1), 0); // the second "m"
        let doc = Doc::parse(r#"{"m": [1, [2, 3], {"a": [4]}], "n": {"b": [5, 6]}}"#).unwrap();
        let f = doc.fields(doc.root()).unwrap();
        assert_eq!((doc.len_hint(f[0].1), doc.len_hint(f[1].1)), (3, 0));
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
            assert_eq!(doc.str_len(f[0].1), 5000);
            assert_eq!(decode(f[1].1), "x\"y");
            assert_eq!(doc.str_len(f[1].1), 3);
            assert_eq!(items[1].len(), 5002);
        }
        assert_eq!(doc.noted.len(), 2);
        let doc = Doc::parse(r#"{"role": "user", "content": "x"}"#).unwrap();
        assert_eq!(
            object_len_without(&doc.fields(doc.root()).unwrap(), &["content"]),
            r#"{"role":"user"}"#.len() as u64
        );
    }
}

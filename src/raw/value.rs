//! Reading a value in place (a key's value, a string's text) and measuring values as compact
//! JSON without writing them.

use super::*;

/// The value of `key` among `fields`.
pub fn get<'a>(fields: &[(Cow<'a, str>, Raw<'a>)], key: &str) -> Option<Raw<'a>> {
    fields
        .iter()
        .find(|(k, _)| same_key(k, key))
        .map(|(_, v)| *v)
}

/// Whether two keys (or ids) are equal: they are short ([`same_bytes`]).
#[inline]
pub fn same_key(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

/// `a == b`, inline for short strings (keys, ids, a vocabulary's tokens), where a call to
/// `memcmp` costs more: up to 16 bytes as two words, or three bytes, that overlap.
#[inline(always)]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let half = |s: &[u8], i: usize| u32::from_le_bytes(s[i..i + 4].try_into().expect("4 bytes"));
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
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
    first as u64
        + escaped_len(&inner[first..], |code| {
            code.map_or(3, |c| c.len_utf8() as u64)
        })
}

/// The length of a string's inside from its first escape on: a plain byte counts 1, an escape
/// what `weight` says of the character it stands for (`None`: a lone surrogate).
fn escaped_len(inner: &[u8], weight: impl Fn(Option<char>) -> u64) -> u64 {
    let mut len = 0;
    let mut i = 0;
    while i < inner.len() {
        if inner[i] != b'\\' {
            len += 1;
            i += 1;
            continue;
        }
        let (code, used) = escape(&inner[i..]);
        len += weight(code);
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
                // A short string without escapes counts as written: found by its closing quote.
                let plain = quote_or_backslash(bytes, i + 1, bytes.len().min(i + 33))
                    .filter(|&k| bytes[k] == b'"');
                if let Some(k) = plain {
                    len += (k + 1 - i) as u64;
                    i = k + 1;
                    continue;
                }
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
    2 + first as u64
        + escaped_len(&inner[first..], |code| match code {
            Some('"' | '\\' | '\u{8}' | '\t' | '\n' | '\u{c}' | '\r') => 2,
            Some(c) if (c as u32) < 0x20 => 6,
            Some(c) => c.len_utf8() as u64,
            None => 3,
        })
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

/// The length of a value as serde_json writes it back once parsed (compact, duplicate keys
/// once), and how many `"` and `\\` that text holds (what writing it as a JSON string adds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueLen {
    pub len: u64,
    pub specials: u64,
}

impl ValueLen {
    pub const NULL: ValueLen = ValueLen {
        len: 4,
        specials: 0,
    };

    /// The length of the text written as a JSON string.
    pub fn as_string(self) -> u64 {
        2 + self.len + self.specials
    }
}

/// The [`ValueLen`] of a value, or `None` when it holds a number that serde_json might write
/// back otherwise (anything but a plain integer of at most 18 digits, or `-0`).
pub fn value_len(doc: &Doc<'_>, raw: Raw<'_>) -> Option<ValueLen> {
    Some(match kind(raw) {
        Kind::String => string_value_len(raw),
        Kind::Null | Kind::Bool => ValueLen {
            len: raw.len() as u64,
            specials: 0,
        },
        Kind::Number => {
            let digits = raw.strip_prefix('-').unwrap_or(raw);
            let plain = digits.len() <= 18
                && digits.bytes().all(|b| b.is_ascii_digit())
                && (digits == "0" && digits.len() == raw.len() || !digits.starts_with('0'));
            if !plain {
                return None;
            }
            ValueLen {
                len: raw.len() as u64,
                specials: 0,
            }
        }
        Kind::Array => {
            let items = doc.items(raw)?;
            let mut total = ValueLen {
                len: 2 + items.len().saturating_sub(1) as u64,
                specials: 0,
            };
            for item in items {
                let v = value_len(doc, item)?;
                total.len += v.len;
                total.specials += v.specials;
            }
            total
        }
        Kind::Object => {
            let fields = doc.fields(raw)?;
            let mut total = ValueLen {
                len: 2 + fields.len().saturating_sub(1) as u64,
                specials: 0,
            };
            for (key, value) in &fields {
                let k = key_value_len(key);
                let v = value_len(doc, value)?;
                total.len += k.len + 1 + v.len;
                total.specials += k.specials + v.specials;
            }
            total
        }
    })
}

/// The [`ValueLen`] of a string token.
fn string_value_len(token: Raw<'_>) -> ValueLen {
    if find_backslash(&token.as_bytes()[1..token.len() - 1]).is_none() {
        // No escapes: no quote, backslash or control character inside.
        return ValueLen {
            len: token.len() as u64,
            specials: 2,
        };
    }
    key_value_len(&decode(token))
}

/// The [`ValueLen`] of a decoded string once written.
fn key_value_len(s: &str) -> ValueLen {
    let specials = 2 + s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' => 2,
            0..=0x1F => 1,
            _ => 0,
        })
        .sum::<u64>();
    ValueLen {
        len: string_len_as_json(s),
        specials,
    }
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
        self.field_len(string_len_as_json(key), value_len);
    }

    /// One more field, its key's compact length known ([`string_len_as_json`]).
    pub fn field_len(&mut self, key_len: u64, value_len: u64) {
        self.bytes += key_len + value_len;
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
    // A key's few bytes: two words tell that none is escaped.
    if (8..=16).contains(&s.len())
        && !short_words_any(s.as_bytes(), |w| {
            has_byte(w, b'"') || has_byte(w, b'\\') || has_below(w, 0x20)
        })
    {
        return len;
    }
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
    use super::{same_key, string_len_as_json};

    #[test]
    fn keys_are_the_same_exactly_when_their_bytes_are() {
        for len in 0..40 {
            let key: String = (0..len).map(|k| (b'a' + (k % 26) as u8) as char).collect();
            assert!(same_key(&key, &key.clone()), "{key}");
            // One byte different, wherever it falls (every word, both ends, the overlap).
            for at in 0..len {
                let mut other = key.clone().into_bytes();
                other[at] = b'_';
                let other = String::from_utf8(other).unwrap();
                assert!(!same_key(&key, &other), "{key} {other}");
                assert!(!same_key(&other, &key), "{other} {key}");
            }
            // A prefix, or a longer key.
            if len > 0 {
                assert!(!same_key(&key, &key[..len - 1]), "{key}");
            }
            assert!(!same_key(&key, &format!("{key}a")), "{key}");
        }
    }

    #[test]
    fn a_string_is_measured_as_serde_json_writes_it_wherever_its_escapes_fall() {
        let pieces = [
            "a", "é", "\"", "\\", "\n", "\u{1}", "\u{1f}", "\u{7f}", "🦀", " ",
        ];
        for len in 0..24 {
            for (p, piece) in pieces.iter().enumerate() {
                for at in [0, len / 2, len] {
                    let mut s: String = (0..len).map(|k| pieces[(k + p) % 2]).collect();
                    s.insert_str(s.char_indices().nth(at).map_or(s.len(), |(i, _)| i), piece);
                    let written = serde_json::to_string(&s).unwrap();
                    assert_eq!(string_len_as_json(&s), written.len() as u64, "{s:?}");
                }
            }
        }
    }
}

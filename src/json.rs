//! Small JSON helpers: byte lengths of compact JSON without building the text.

use serde_json::Value;
use std::io;

/// Counts bytes written, keeping none.
struct ByteCounter(u64);

impl io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The length of `serde_json::to_string(value)` without allocating it.
pub(crate) fn compact_len(value: &Value) -> u64 {
    let mut counter = ByteCounter(0);
    serde_json::to_writer(&mut counter, value).expect("writing JSON to a counter cannot fail");
    counter.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lengths_match_serialisation() {
        let v = json!({"role": "tool", "tool_call_id": "c\"1", "content": "x", "n": [1, 2]});
        assert_eq!(compact_len(&v), v.to_string().len() as u64);
    }
}

/// Compact JSON text of `value`, byte-for-byte what `serde_json::to_string` writes, but
/// copying long clean runs of string bytes at once: a kept screenshot is megabytes of base64
/// with nothing to escape, and checking it eight bytes at a time is several times faster
/// than one at a time.
pub fn to_json_string(value: &Value) -> String {
    to_json_string_with_capacity(value, 256)
}

/// [`to_json_string`] into a buffer of `capacity` bytes to start with. Reserving an upper bound
/// (say, the request's length) costs nothing for the pages never written, and saves the
/// copies of a buffer that doubles its way up to megabytes.
pub fn to_json_string_with_capacity(value: &Value, capacity: usize) -> String {
    let mut out = Vec::with_capacity(capacity);
    write_value(value, &mut out);
    String::from_utf8(out).expect("JSON text built from str is UTF-8")
}

fn write_value(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::String(s) => write_str(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(key, out);
                out.push(b':');
                write_value(item, out);
            }
            out.push(b'}');
        }
    }
}

/// True when some byte of `word` is a control character, `"` or `\`.
fn needs_escape(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS != 0;
    // Bytes below 0x20 (the high bit excludes bytes ≥ 0x80, which borrow differently).
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGHS != 0;
    below_space
        || has_zero(word ^ (ONES * u64::from(b'"')))
        || has_zero(word ^ (ONES * u64::from(b'\\')))
}

pub(crate) fn write_str(s: &str, out: &mut Vec<u8>) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if i + 8 <= bytes.len() {
            let word = u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
            if !needs_escape(word) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        let escape: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            0x08 => Some(b"\\b"),
            0x0C => Some(b"\\f"),
            0x00..=0x1F => None,
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(&bytes[start..i]);
        match escape {
            Some(e) => out.extend_from_slice(e),
            None => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xF)]);
            }
        }
        i += 1;
        start = i;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod writer_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_what_serde_json_writes() {
        let every_byte: String = (0u8..128).map(char::from).collect();
        let v = json!({
            "a": [1, -2, 3.5, true, false, null, u64::MAX, i64::MIN],
            "s": every_byte,
            "u": "héllo \u{1F600} \"quoted\" back\\slash\u{7f}",
            "long": "x".repeat(1000) + "\"" + &"y".repeat(13),
            "nested": {"k": [[], {}, ""]},
        });
        assert_eq!(to_json_string(&v), serde_json::to_string(&v).unwrap());
        for n in 0..40 {
            let s = Value::String("ab\u{1}\"cé".repeat(n) + &"z".repeat(n));
            assert_eq!(to_json_string(&s), serde_json::to_string(&s).unwrap());
        }
    }
}

/// Standard base64 with padding (new Gemini blobs; the Python binding's `bytes` blob data).
///
/// ```
/// assert_eq!(ankita::json::base64(b"\x89PNG"), "iVBORw==");
/// ```
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

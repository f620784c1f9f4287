//! Numbers past f64. JSON's grammar gives numbers no range, so `1E400` or a 400-digit integer is
//! valid JSON, and a request passes it through as written (numbers count as written, too).
//! serde_json refuses such a number when it reads it into a float ("number out of range"); its
//! pass then reads a copy in which each number with an exponent or of over [`LONG`] characters
//! is an in-range number of the same length (`0.000`), so every offset it notes and every other
//! error it finds are the text's own.

/// Numbers at least this long without an exponent may be past f64 (`f64::MAX` has 309 digits).
pub(super) const LONG: usize = 300;

/// Whether serde_json's error is a number past f64.
pub(super) fn is_out_of_range(error: &serde_json::Error) -> bool {
    error.to_string().starts_with("number out of range")
}

/// `text` with each number that may be past f64 written as `0.000…` of the same length (a sign
/// kept). Strings are left alone; only whole numbers of JSON's grammar are rewritten.
pub(super) fn in_range(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(&bytes, i),
            b'-' | b'0'..=b'9' => {
                let (end, exponent) = number_end(&bytes, i);
                let digits = i + usize::from(bytes[i] == b'-');
                if (exponent || end - i > LONG) && end - digits >= 3 {
                    bytes[digits] = b'0';
                    bytes[digits + 1] = b'.';
                    bytes[digits + 2..end].fill(b'0');
                }
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    // Only ASCII digits, signs, points and exponents were replaced, by ASCII.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

/// Where the string token starting at `i` ends (after its closing quote, or the text's end).
fn string_end(b: &[u8], i: usize) -> usize {
    let mut i = i + 1;
    while let Some(k) = memchr::memchr2(b'"', b'\\', &b[i..]) {
        if b[i + k] == b'"' {
            return i + k + 1;
        }
        i += k + 2;
        if i >= b.len() {
            break;
        }
    }
    b.len()
}

/// The end of the number of JSON's grammar starting at `i` (where its longest valid prefix
/// ends), and whether it has an exponent.
fn number_end(b: &[u8], mut i: usize) -> (usize, bool) {
    let digits = |b: &[u8], mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let start = i;
    if b[i] == b'-' {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(b, i),
        _ => return (start, false),
    }
    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i = digits(b, i + 1);
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
        if b.get(i + 1 + sign).is_some_and(u8::is_ascii_digit) {
            return (digits(b, i + 1 + sign), true);
        }
    }
    (i, false)
}

#[cfg(test)]
mod tests {
    use super::in_range;

    #[test]
    fn numbers_past_f64_are_rewritten_in_range_and_nothing_else() {
        let long = "9".repeat(400);
        let cases = [
            ("[1E400]", "[0.000]"),
            ("[-1e+400, 2.5e-3]", "[-0.0000, 0.0000]"),
            (
                "{\"1e400\":\"1e400 \\\" 1e400\"}",
                "{\"1e400\":\"1e400 \\\" 1e400\"}",
            ),
            ("[1.e5, 01e5, 7]", "[1.e5, 00.0, 7]"),
            ("[12, -0, 1e]", "[12, -0, 1e]"),
        ];
        for (text, expected) in cases {
            assert_eq!(in_range(text), expected, "{text}");
        }
        let rewritten = in_range(&format!("[{long}]"));
        assert_eq!(rewritten, format!("[0.{}]", "0".repeat(398)));
        for text in ["[1E400]", &format!("[{long}]"), "[1.7976931348623157e309]"] {
            assert!(serde_json::from_str::<serde_json::Value>(text).is_err());
            assert!(serde_json::from_str::<serde_json::Value>(&in_range(text)).is_ok());
        }
    }
}

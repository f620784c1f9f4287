//! JSON writers of the adapters' answers: the caller's objects with a field replaced, strings,
//! and the text parts that stand in for what trimming removed or changed.

use crate::json::write_str;
use crate::raw::Raw;
use std::borrow::Cow;

/// A string as JSON text.
pub(crate) fn json_string(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    write_str(s, &mut out);
    into_string(out)
}

/// `{"type": ty, "text": s}`.
pub(crate) fn typed_text(ty: &str, s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + ty.len() + 20);
    out.extend_from_slice(b"{\"type\":");
    write_str(ty, &mut out);
    out.extend_from_slice(b",\"text\":");
    write_str(s, &mut out);
    out.push(b'}');
    into_string(out)
}

/// `{"text": s}` (a Gemini part).
pub(crate) fn bare_text(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 12);
    out.extend_from_slice(b"{\"text\":");
    write_str(s, &mut out);
    out.push(b'}');
    into_string(out)
}

/// The items as a JSON array.
pub(crate) fn array(items: &[String]) -> String {
    format!("[{}]", items.join(","))
}

/// Writes an object made of `fields` with the value of `key` replaced by `value` (JSON text;
/// appended when the object had none; left out when `None`), every other field as written. A
/// key given twice is read as its first: the first takes the value, the others go.
pub(crate) fn object_with(
    fields: &[(Cow<'_, str>, Raw<'_>)],
    key: &str,
    value: Option<&str>,
) -> String {
    let mut out = Vec::new();
    out.push(b'{');
    let mut first = true;
    let mut field = |out: &mut Vec<u8>, k: &str, v: &str| {
        if !first {
            out.push(b',');
        }
        first = false;
        write_str(k, out);
        out.push(b':');
        out.extend_from_slice(v.as_bytes());
    };
    let mut value = value;
    let mut seen = false;
    for (k, v) in fields {
        if k == key {
            if let Some(new) = value.take() {
                field(&mut out, k, new);
            }
            seen = true;
        } else {
            field(&mut out, k, v);
        }
    }
    if let (Some(new), false) = (value, seen) {
        field(&mut out, key, new);
    }
    out.push(b'}');
    into_string(out)
}

/// Writes an object made of `fields` with the values of the keys in `replaced` replaced, every
/// other field as written.
pub(crate) fn object_with_all(
    fields: &[(Cow<'_, str>, Raw<'_>)],
    replaced: &[(&str, String)],
) -> String {
    let mut out = Vec::new();
    out.push(b'{');
    for (n, (k, v)) in fields.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        write_str(k, &mut out);
        out.push(b':');
        let value = replaced
            .iter()
            .find(|(key, _)| key == k)
            .map_or(*v, |(_, new)| new.as_str());
        out.extend_from_slice(value.as_bytes());
    }
    out.push(b'}');
    into_string(out)
}

fn into_string(out: Vec<u8>) -> String {
    String::from_utf8(out).expect("JSON text of str values is UTF-8")
}

//! JSON writers of the adapters' answers: the caller's objects with a field replaced, strings,
//! and the text parts that stand in for what trimming removed or changed.

use super::{Edit, NewContent, NewPart};
use crate::json::write_str;
use crate::raw::{Doc, Raw};
use std::borrow::Cow;

/// Where JSON text is written: a message with its edit goes into an answer being assembled
/// (the caller's bytes spliced in) or into a text of its own.
pub(crate) trait Sink<'a> {
    fn push_str(&mut self, s: &str);
    /// The caller's bytes, as written.
    fn push_raw(&mut self, raw: &'a str);
    /// A string, as JSON.
    fn push_json_str(&mut self, s: &str);
    fn push_key(&mut self, key: &str) {
        self.push_json_str(key);
        self.push_str(":");
    }
}

impl<'a> Sink<'a> for Vec<u8> {
    fn push_str(&mut self, s: &str) {
        self.extend_from_slice(s.as_bytes());
    }

    fn push_raw(&mut self, raw: &'a str) {
        self.extend_from_slice(raw.as_bytes());
    }

    fn push_json_str(&mut self, s: &str) {
        write_str(s, self);
    }
}

/// The caller's message with its edit, as its own JSON text.
pub(crate) fn edited_text<'a>(doc: &Doc<'a>, message: Raw<'a>, edit: &Edit) -> String {
    let mut out = Vec::with_capacity(message.len());
    write_edited(&mut out, doc, message, edit);
    into_string(out)
}

/// The caller's message with its edit: fields in their order, the content replaced, the tool
/// calls left out when repair removed them.
pub(crate) fn write_edited<'a>(
    w: &mut impl Sink<'a>,
    doc: &Doc<'a>,
    message: Raw<'a>,
    edit: &Edit,
) {
    let fields = doc.fields(message).unwrap_or_default();
    w.push_str("{");
    let mut first = true;
    let mut content_written = false;
    for (key, value) in &fields {
        if edit.remove_tool_calls && key == "tool_calls" {
            continue;
        }
        if !first {
            w.push_str(",");
        }
        first = false;
        w.push_key(key);
        match (&edit.content, key.as_ref()) {
            (Some(content), "content") => {
                write_content(w, doc, value, content);
                content_written = true;
            }
            _ => w.push_raw(value),
        }
    }
    if let (Some(content), false) = (&edit.content, content_written) {
        if !first {
            w.push_str(",");
        }
        w.push_key("content");
        write_content(w, doc, "null", content);
    }
    w.push_str("}");
}

fn write_content<'a>(w: &mut impl Sink<'a>, doc: &Doc<'a>, old: Raw<'a>, content: &NewContent) {
    match content {
        NewContent::Text(text) => w.push_json_str(text),
        NewContent::Parts(parts) => {
            let old = doc.items(old).unwrap_or_default();
            w.push_str("[");
            for (k, part) in parts.iter().enumerate() {
                if k > 0 {
                    w.push_str(",");
                }
                match part {
                    NewPart::Keep(p) => w.push_raw(old[*p]),
                    NewPart::Text {
                        from: Some(p),
                        text,
                    } => {
                        // The part keeps its other fields; `text` is replaced (or added).
                        let fields = doc.fields(old[*p]).unwrap_or_default();
                        w.push_str("{");
                        let mut replaced = false;
                        for (n, (key, value)) in fields.iter().enumerate() {
                            if n > 0 {
                                w.push_str(",");
                            }
                            w.push_key(key);
                            if key == "text" {
                                w.push_json_str(text);
                                replaced = true;
                            } else {
                                w.push_raw(value);
                            }
                        }
                        if !replaced {
                            w.push_str(if fields.is_empty() { "" } else { "," });
                            w.push_key("text");
                            w.push_json_str(text);
                        }
                        w.push_str("}");
                    }
                    NewPart::Text { from: None, text } => {
                        w.push_str("{\"type\":\"text\",\"text\":");
                        w.push_json_str(text);
                        w.push_str("}");
                    }
                }
            }
            w.push_str("]");
        }
    }
}

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

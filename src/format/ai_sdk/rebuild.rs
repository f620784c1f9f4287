//! The answer of the AI SDK format: each returned message from its logical messages, the
//! caller's parts where nothing changed.

use super::part_type;
use crate::format::Out;
use crate::json::write_str;
use crate::model::{Change, Origin, Session, Unit};
use crate::raw::{get, Doc, Raw};
use std::borrow::Cow;

/// The returned form of physical message `message` from its logical messages `range`.
pub(super) fn rebuilt<'r>(
    doc: &Doc<'r>,
    message: Raw<'r>,
    session: &Session<'_>,
    kept: &[bool],
    range: std::ops::Range<usize>,
) -> Out {
    let first = &session.messages[range.start];
    let index = first.physical.unwrap_or(0) as usize;
    let unchanged = range.clone().all(|m| {
        kept[m]
            && session.messages[m].note.is_none()
            && !session.messages[m].remove_tool_calls
            && session.units_of(m).iter().all(|u| u.change == Change::Keep)
    });
    if unchanged {
        return Out::Same(index);
    }
    let fields = doc.fields(message).unwrap_or_default();
    if first.origin == Origin::Whole {
        let content = match (session.units_of(range.start).first(), &first.note) {
            (
                Some(Unit {
                    change: Change::Text(s),
                    ..
                }),
                _,
            ) => json_string(s),
            (_, Some(note)) => json_string(note),
            _ => return Out::Same(index),
        };
        return Out::New(object_with(&fields, "content", &content));
    }
    let parts = get(&fields, "content")
        .and_then(|c| doc.items(c))
        .unwrap_or_default();
    // Part → the logical reply it is, and the unit it is of the message's other parts.
    let mut reply_of = vec![None; parts.len()];
    let mut unit_of = vec![None; parts.len()];
    let mut own = None;
    for m in range {
        match session.messages[m].origin {
            Origin::ToolResult { block } => reply_of[block as usize] = Some(m),
            Origin::Blocks => {
                own = Some(m);
                for u in session.messages[m].unit_range() {
                    if let Some(part) = session.units[u].part {
                        unit_of[part as usize] = Some(u);
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(parts.len());
    for (b, part) in parts.iter().enumerate() {
        if let Some(m) = reply_of[b] {
            if kept[m] {
                out.push(tool_result_part(doc, part, session, m));
            }
            continue;
        }
        let Some(own) = own.filter(|&own| kept[own]) else {
            continue;
        };
        match unit_of[b] {
            // A call: it goes with the message's calls.
            None => {
                if !session.messages[own].remove_tool_calls {
                    out.push((*part).to_owned());
                }
            }
            Some(u) => out.extend(changed_part(doc, part, &session.units[u])),
        }
    }
    if let Some(note) = own.and_then(|own| session.messages[own].note.as_ref()) {
        out.push(text_part(note));
    }
    Out::New(object_with(
        &fields,
        "content",
        &format!("[{}]", out.join(",")),
    ))
}

/// A part after its unit's change: the caller's part, its text replaced, a text part in its
/// place, or nothing.
fn changed_part(doc: &Doc<'_>, part: Raw<'_>, unit: &Unit<'_>) -> Option<String> {
    match &unit.change {
        Change::Keep => Some(part.to_owned()),
        Change::Text(s) => {
            let fields = doc.fields(part).unwrap_or_default();
            Some(if part_type(&fields).as_deref() == Some("text") {
                object_with(&fields, "text", &json_string(s))
            } else {
                text_part(s)
            })
        }
        Change::Placeholder(s) => Some(text_part(s)),
        Change::Removed => None,
    }
}

/// A kept `tool-result` part: as written, or with its output's text shrunk and the media that
/// did not fit replaced by text items (or left out).
fn tool_result_part(doc: &Doc<'_>, part: Raw<'_>, session: &Session<'_>, m: usize) -> String {
    let units = session.units_of(m);
    if units.iter().all(|u| u.change == Change::Keep) {
        return part.to_owned();
    }
    let fields = doc.fields(part).unwrap_or_default();
    let Some(output_raw) = get(&fields, "output") else {
        return part.to_owned();
    };
    let output = doc.fields(output_raw).unwrap_or_default();
    let value = match part_type(&output).as_deref() {
        Some("content") => {
            let items = get(&output, "value")
                .and_then(|v| doc.items(v))
                .unwrap_or_default();
            let kept: Vec<String> = items
                .iter()
                .enumerate()
                .filter_map(
                    |(k, item)| match units.iter().find(|u| u.sub == Some(k as u32)) {
                        Some(u) => changed_part(doc, item, u),
                        None => Some((*item).to_owned()),
                    },
                )
                .collect();
            format!("[{}]", kept.join(","))
        }
        _ => match units.iter().find_map(|u| match &u.change {
            Change::Text(s) => Some(s),
            _ => None,
        }) {
            Some(s) => json_string(s),
            None => return part.to_owned(),
        },
    };
    let output = object_with(&output, "value", &value);
    object_with(&fields, "output", &output)
}

fn text_part(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 24);
    out.extend_from_slice(b"{\"type\":\"text\",\"text\":");
    write_str(s, &mut out);
    out.push(b'}');
    String::from_utf8(out).expect("JSON text of a str is UTF-8")
}

fn json_string(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    write_str(s, &mut out);
    String::from_utf8(out).expect("JSON text of a str is UTF-8")
}

/// Writes an object made of `fields` with the value of `key` replaced by `value` (appended when
/// the object had none), every other field as written.
fn object_with(fields: &[(Cow<'_, str>, Raw<'_>)], key: &str, value: &str) -> String {
    let mut out = Vec::new();
    out.push(b'{');
    let mut done = false;
    for (n, (k, v)) in fields.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        write_str(k, &mut out);
        out.push(b':');
        if k == key && !done {
            done = true;
            out.extend_from_slice(value.as_bytes());
        } else {
            out.extend_from_slice(v.as_bytes());
        }
    }
    if !done {
        if !fields.is_empty() {
            out.push(b',');
        }
        write_str(key, &mut out);
        out.push(b':');
        out.extend_from_slice(value.as_bytes());
    }
    out.push(b'}');
    String::from_utf8(out).expect("JSON text")
}

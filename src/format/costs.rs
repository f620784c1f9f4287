//! What a message's fields cost, as every adapter counts them: keys and values (a string's
//! characters, other values' compact JSON), with and without the parts a split takes apart.

use crate::raw::{self, get, Doc, Raw};
use crate::tokens::Measure;
use std::borrow::Cow;

/// The cost of an object's fields but those in `skip`: each key (but `role`'s) and each
/// value's text (a string's characters; other values' JSON), counted with `measure`. Also returns
/// the cost of the field `split` alone, when present.
pub(crate) fn fields_cost(
    fields: &[(Cow<'_, str>, Raw<'_>)],
    skip: &[&str],
    split: &str,
    measure: &Measure,
) -> (u64, u64) {
    let (mut all, mut part) = (0, 0);
    for (key, value) in fields {
        if skip.contains(&key.as_ref()) {
            continue;
        }
        // The role is rendered as itself, without its key.
        let key_cost = if key == "role" { 0 } else { measure.text(key) };
        let cost = key_cost + value_cost(value, measure);
        all += cost;
        if key == split {
            part += cost;
        }
    }
    (all, part)
}

/// The cost of a message whose calls are items of its content array (Anthropic `tool_use`
/// blocks, Gemini `functionCall` parts), with and without them: its fields but `content_key`,
/// and each item `is_call` picks, whole.
pub(crate) fn blocks_meta_cost(
    doc: &Doc<'_>,
    message: Raw<'_>,
    content_key: &str,
    is_call: impl Fn(&[(Cow<'_, str>, Raw<'_>)]) -> bool,
    measure: &Measure,
) -> (u64, u64) {
    let fields = doc.fields(message).unwrap_or_default();
    let (base, _) = fields_cost(&fields, &[content_key], "", measure);
    let items = get(&fields, content_key).and_then(|c| doc.items(c));
    let calls: u64 = items
        .unwrap_or_default()
        .iter()
        .filter_map(|&item| doc.fields(item))
        .filter(|f| is_call(f))
        .map(|f| fields_cost(&f, &[], "", measure).0)
        .sum();
    (base + calls, base)
}

/// A JSON value's cost: a string's characters, or other values' compact JSON (as serde_json
/// writes it, whatever the caller's white space and escapes, so that every front end counts
/// the same).
fn value_cost(value: Raw<'_>, measure: &Measure) -> u64 {
    if let Some(s) = raw::string(value) {
        return measure.text(&s);
    }
    if raw::canonical_len(value) == value.len() as u64 {
        // Compact already (the common case): canonical text is never longer than the caller's,
        // so equal lengths mean equal text.
        return measure.text(value);
    }
    match serde_json::from_str::<serde_json::Value>(value) {
        Ok(v) => measure.text(&v.to_string()),
        Err(_) => measure.text(value),
    }
}

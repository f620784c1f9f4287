//! Anthropic prompt caching: the `cache_control` breakpoint of `cache_breakpoint: true`
//! ([`crate::stable`]).
//!
//! The breakpoint goes on the last block of the last message before the newest user message
//! (the prefix a cache-stable trim keeps from call to call), never making more than
//! [`MAX_BREAKPOINTS`] in the request: the caller's own breakpoints (in `system` and in the
//! returned messages) count. A string content becomes one text block carrying the breakpoint;
//! thinking blocks (signed) and empty texts cannot carry one, so the last block that can does.
//! The message is spliced, not re-serialized: every other byte stays the caller's.

use super::Placed;
use crate::raw::{self, get, kind, Doc, Kind};
use serde_json::Value;
use std::borrow::Cow;

/// The most `cache_control` breakpoints Anthropic accepts in one request.
pub const MAX_BREAKPOINTS: usize = 4;

/// What the breakpoint adds to a block.
const CACHE_CONTROL: &str = "\"cache_control\":{\"type\":\"ephemeral\"}";

/// Places the breakpoint in `messages` (the answer's, as JSON texts); `None` when there is no
/// message before the newest user message, no block of it can carry one, or the request holds
/// [`MAX_BREAKPOINTS`] already.
pub(crate) fn place(system: Option<&str>, messages: &[Cow<'_, str>]) -> Option<Placed> {
    let user = (0..messages.len())
        .rev()
        .find(|&k| role(&messages[k]).as_deref() == Some("user"))?;
    let index = user.checked_sub(1)?;
    let text: &str = &messages[index];
    let doc = Doc::parse(text).ok()?;
    let fields = doc.fields(doc.root())?;
    let content = get(&fields, "content")?;
    let offset = |raw: &str| raw.as_ptr() as usize - text.as_ptr() as usize;
    let (part, insert) = match kind(content) {
        Kind::String => {
            if raw::string(content).is_none_or(|s| s.is_empty()) {
                return None;
            }
            let block = format!("[{{\"type\":\"text\",\"text\":{content},{CACHE_CONTROL}}}]");
            (0, Splice::Replace(offset(content), content.len(), block))
        }
        Kind::Array => {
            let blocks = doc.items(content)?;
            let (part, block) = blocks
                .iter()
                .enumerate()
                .rev()
                .find(|(_, b)| can_carry(&doc, b))?;
            let block_fields = doc.fields(block)?;
            if get(&block_fields, "cache_control").is_some_and(|c| kind(c) != Kind::Null) {
                return Some(Placed {
                    index,
                    part,
                    message: None,
                });
            }
            // Before the block's closing brace.
            let end = offset(block) + block.len() - 1;
            (part, Splice::Insert(end, format!(",{CACHE_CONTROL}")))
        }
        _ => return None,
    };
    let given = system.map_or(0, count) + messages.iter().map(|m| count(m)).sum::<usize>();
    if given >= MAX_BREAKPOINTS {
        return None;
    }
    let message = match insert {
        Splice::Replace(at, len, with) => format!("{}{with}{}", &text[..at], &text[at + len..]),
        Splice::Insert(at, with) => format!("{}{with}{}", &text[..at], &text[at..]),
    };
    Some(Placed {
        index,
        part,
        message: Some(message),
    })
}

enum Splice {
    Replace(usize, usize, String),
    Insert(usize, String),
}

fn role(message: &str) -> Option<String> {
    let doc = Doc::parse(message).ok()?;
    let fields = doc.fields(doc.root())?;
    raw::string(get(&fields, "role")?).map(Cow::into_owned)
}

/// A block that can carry a breakpoint: an object that is neither a thinking block (signed)
/// nor an empty text.
fn can_carry(doc: &Doc<'_>, block: &str) -> bool {
    let Some(fields) = doc.fields(block) else {
        return false;
    };
    let kind_of = get(&fields, "type").and_then(raw::string);
    match kind_of.as_deref() {
        Some("thinking" | "redacted_thinking") | None => false,
        Some("text") => get(&fields, "text")
            .and_then(raw::string)
            .is_some_and(|t| !t.is_empty()),
        Some(_) => true,
    }
}

/// The `cache_control` keys (not `null`) in a JSON text.
fn count(text: &str) -> usize {
    if !text.contains("\"cache_control\"") {
        return 0;
    }
    fn walk(value: &Value) -> usize {
        match value {
            Value::Object(map) => {
                usize::from(map.get("cache_control").is_some_and(|c| !c.is_null()))
                    + map.values().map(walk).sum::<usize>()
            }
            Value::Array(items) => items.iter().map(walk).sum(),
            _ => 0,
        }
    }
    serde_json::from_str::<Value>(text).map_or(0, |v| walk(&v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(messages: &[&'static str]) -> Vec<Cow<'static, str>> {
        messages.iter().map(|m| Cow::Borrowed(*m)).collect()
    }

    #[test]
    fn the_breakpoint_goes_on_the_last_block_before_the_newest_user_message() {
        let messages = texts(&[
            r#"{"role":"user","content":"Look"}"#,
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"Done."} ]}"#,
            r#"{"role":"user","content":"Next"}"#,
        ]);
        let placed = place(None, &messages).unwrap();
        assert_eq!((placed.index, placed.part), (1, 1));
        let message: Value = serde_json::from_str(placed.message.as_deref().unwrap()).unwrap();
        assert_eq!(
            message["content"][1]["cache_control"],
            serde_json::json!({"type": "ephemeral"})
        );
        assert!(message["content"][0].get("cache_control").is_none());
    }

    #[test]
    fn a_string_content_becomes_a_text_block_and_a_fifth_breakpoint_is_not_made() {
        let messages = texts(&[
            r#"{"role":"assistant","content":"Hi \"there\""}"#,
            r#"{"role":"user","content":"Next"}"#,
        ]);
        let placed = place(None, &messages).unwrap();
        let message: Value = serde_json::from_str(placed.message.as_deref().unwrap()).unwrap();
        assert_eq!(message["content"][0]["text"], "Hi \"there\"");
        let system = r#"[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}},{"type":"text","text":"c","cache_control":{"type":"ephemeral"}},{"type":"text","text":"d","cache_control":{"type":"ephemeral"}}]"#;
        assert_eq!(place(Some(system), &messages), None);
    }
}

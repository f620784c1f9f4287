//! OpenAI prompt caching: the explicit breakpoint of `cache_breakpoint: true` in the chat,
//! Responses and AI SDK formats ([`crate::stable`]).
//!
//! From the GPT-5.6 family on, OpenAI takes `"prompt_cache_breakpoint": {"mode": "explicit"}`
//! on a content block: the prompt up to the end of that block is written to the cache (its
//! API reference, `prompt_cache_options`; the `openai` SDKs' content part types). Only input
//! blocks carry one — chat `text`, `image_url`, `input_audio` and `file` parts, Responses
//! `input_text`, `input_image` and `input_file` (in a message or a tool output) — never the
//! assistant's output. The AI SDK writes it from `providerOptions.openai.promptCacheBreakpoint`
//! on a system message, a user message's `text`, `image` or `file` part, or a part of a tool
//! result's `content` output (the only tool output both of its OpenAI providers read it from).
//!
//! The breakpoint goes on the last block that may carry one before the newest message of the
//! user's turn (a user message, or a tool result: the user's turn in the Anthropic format too):
//! the prefix a cache-stable trim keeps from call to call. A request writes at most
//! [`MAX_BREAKPOINTS`] (in OpenAI's default `implicit` mode, one of them is its own, near the
//! newest message, and the latest three explicit ones are written): the caller's own explicit
//! breakpoints count, and none is added past four. A string content becomes one text block
//! carrying it. The message is spliced, not re-serialized: every other byte stays the caller's.
//!
//! Older models and names the library does not read as GPT-5.6 or later take none: the request
//! then says so with a warning and nothing is placed ([`refused`]).

use super::Placed;
use crate::raw::{self, get, kind, Doc, Fields, Kind, Raw};
use serde_json::Value;
use std::borrow::Cow;

/// The most breakpoints OpenAI writes for one request.
pub const MAX_BREAKPOINTS: usize = 4;

/// The breakpoint's value, on a chat or Responses block.
const BREAKPOINT: &str = "{\"mode\":\"explicit\"}";

/// Which wire format's blocks carry the breakpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    Chat,
    Responses,
    AiSdk,
}

/// Why `model` takes no explicit breakpoint (the warning's message); `None` for GPT-5.6 and
/// later (`gpt-5.6`, `gpt-5.6-mini`, `openai/gpt-5.7`, `gpt-6`…).
pub(crate) fn refused(model: Option<&str>) -> Option<String> {
    let Some(model) = model else {
        return Some(
            "cache_breakpoint: no model is given, and OpenAI takes explicit prompt-cache \
             breakpoints from GPT-5.6 on: nothing is placed (give model)"
                .to_owned(),
        );
    };
    if takes_breakpoints(model) {
        return None;
    }
    Some(format!(
        "cache_breakpoint: model {model:?} is not read as GPT-5.6 or later, the models OpenAI \
         takes explicit prompt-cache breakpoints for: nothing is placed"
    ))
}

/// Whether a model name reads as GPT-5.6 or later.
fn takes_breakpoints(model: &str) -> bool {
    let Some(name) = crate::names::read(model) else {
        return false;
    };
    let Some(rest) = name.base.strip_prefix("gpt-") else {
        return false;
    };
    let version: &str = rest.split('-').next().unwrap_or("");
    let mut numbers = version.split('.');
    let major = numbers.next().and_then(|n| n.parse::<u32>().ok());
    let minor = match numbers.next() {
        None => Some(0),
        Some(n) => n.parse::<u32>().ok(),
    };
    match (major, minor, numbers.next()) {
        (Some(major), Some(minor), None) => (major, minor) >= (5, 6),
        _ => false,
    }
}

/// Places the breakpoint in `messages` (the answer's, as JSON texts); `None` when no block
/// before the newest message of the user's turn can carry one, or the request holds
/// [`MAX_BREAKPOINTS`] already. `system` is the Responses `instructions` (its breakpoints
/// count).
pub(crate) fn place(wire: Wire, system: Option<&str>, messages: &[Cow<'_, str>]) -> Option<Placed> {
    let newest = (0..messages.len())
        .rev()
        .find(|&k| users_turn(wire, &messages[k]))?;
    for index in (0..newest).rev() {
        let text: &str = &messages[index];
        let Ok(doc) = Doc::parse(text) else {
            continue;
        };
        let Some(target) = carrier(wire, &doc) else {
            continue;
        };
        let offset = |raw: &str| raw.as_ptr() as usize - text.as_ptr() as usize;
        let (part, splice) = match target {
            Target::Given(part) => {
                return Some(Placed {
                    index,
                    part,
                    message: None,
                })
            }
            Target::Wrap { content, part } => {
                let block = match wire {
                    Wire::Chat => format!(
                        "[{{\"type\":\"text\",\"text\":{content},\"prompt_cache_breakpoint\":{BREAKPOINT}}}]"
                    ),
                    Wire::Responses => format!(
                        "[{{\"type\":\"input_text\",\"text\":{content},\"prompt_cache_breakpoint\":{BREAKPOINT}}}]"
                    ),
                    Wire::AiSdk => format!(
                        "[{{\"type\":\"text\",\"text\":{content},\"providerOptions\":{}}}]",
                        ai_sdk_options()
                    ),
                };
                (part, (offset(content), content.len(), block))
            }
            Target::Insert { object, part } => {
                let (at, with) = insert_field(object, "prompt_cache_breakpoint", BREAKPOINT);
                (part, (offset(object) + at, 0, with))
            }
            Target::Options { object, part } => {
                let (at, with) = ai_sdk_insert(&doc, object);
                (part, (offset(object) + at, 0, with))
            }
        };
        let given = system.map_or(0, |s| count(wire, s))
            + messages.iter().map(|m| count(wire, m)).sum::<usize>();
        if given >= MAX_BREAKPOINTS {
            return None;
        }
        let (at, len, with) = splice;
        let message = format!("{}{with}{}", &text[..at], &text[at + len..]);
        return Some(Placed {
            index,
            part,
            message: Some(message),
        });
    }
    None
}

/// Where the breakpoint goes in a message, if it can carry one.
enum Target<'a> {
    /// The block has one already.
    Given(usize),
    /// A string content (or tool output) becomes one text block carrying it.
    Wrap { content: Raw<'a>, part: usize },
    /// The block (an object) takes the `prompt_cache_breakpoint` field.
    Insert { object: Raw<'a>, part: usize },
    /// The AI SDK object takes `providerOptions.openai.promptCacheBreakpoint`.
    Options { object: Raw<'a>, part: usize },
}

/// Whether a message is of the user's turn: a user message or a tool result.
fn users_turn(wire: Wire, message: &str) -> bool {
    let Ok(doc) = Doc::parse(message) else {
        return false;
    };
    let Some(fields) = doc.fields(doc.root()) else {
        return false;
    };
    let string = |key: &str| get(&fields, key).and_then(raw::string);
    match wire {
        Wire::Chat | Wire::AiSdk => matches!(string("role").as_deref(), Some("user" | "tool")),
        Wire::Responses => match string("type").as_deref() {
            None | Some("message") => string("role").as_deref() == Some("user"),
            Some(t) => t.ends_with("_output"),
        },
    }
}

/// The block of a message that takes the breakpoint: its last one that may carry one.
fn carrier<'a>(wire: Wire, doc: &Doc<'a>) -> Option<Target<'a>> {
    let fields = doc.fields(doc.root())?;
    let string = |key: &str| get(&fields, key).and_then(raw::string);
    let role = string("role");
    match wire {
        Wire::Chat => match role.as_deref() {
            Some("system" | "developer" | "user" | "tool") => {
                blocks(wire, doc, get(&fields, "content")?)
            }
            _ => None,
        },
        Wire::Responses => match string("type").as_deref() {
            None | Some("message") => match role.as_deref() {
                Some("system" | "developer" | "user") => {
                    blocks(wire, doc, get(&fields, "content")?)
                }
                _ => None,
            },
            Some("function_call_output" | "custom_tool_call_output") => {
                blocks(wire, doc, get(&fields, "output")?)
            }
            _ => None,
        },
        Wire::AiSdk => match role.as_deref() {
            Some("system") => {
                let content = get(&fields, "content")?;
                if raw::string(content).is_none_or(|s| s.is_empty()) {
                    return None;
                }
                options_target(doc, &fields, doc.root(), 0)
            }
            Some("user") => blocks(wire, doc, get(&fields, "content")?),
            Some("tool") => tool_result(doc, get(&fields, "content")?),
            _ => None,
        },
    }
}

/// The last block of a content (or tool output) that may carry the breakpoint.
fn blocks<'a>(wire: Wire, doc: &Doc<'a>, content: Raw<'a>) -> Option<Target<'a>> {
    match kind(content) {
        Kind::String => {
            let text = raw::string(content)?;
            (!text.is_empty()).then_some(Target::Wrap { content, part: 0 })
        }
        Kind::Array => {
            let items = doc.items(content)?;
            let (part, block, fields) = items.iter().enumerate().rev().find_map(|(k, b)| {
                let fields = doc.fields(b)?;
                can_carry(wire, &fields).then_some((k, *b, fields))
            })?;
            if wire == Wire::AiSdk {
                return options_target(doc, &fields, block, part);
            }
            if get(&fields, "prompt_cache_breakpoint").is_some_and(|c| kind(c) != Kind::Null) {
                return Some(Target::Given(part));
            }
            Some(Target::Insert {
                object: block,
                part,
            })
        }
        _ => None,
    }
}

/// The AI SDK's breakpoint on the last part of the last `tool-result` whose output is
/// `content` (its parts carry provider options).
fn tool_result<'a>(doc: &Doc<'a>, content: Raw<'a>) -> Option<Target<'a>> {
    let parts = doc.items(content)?;
    parts.iter().enumerate().rev().find_map(|(part, p)| {
        let fields = doc.fields(p)?;
        if get(&fields, "type").and_then(raw::string).as_deref() != Some("tool-result") {
            return None;
        }
        let output = doc.fields(get(&fields, "output")?)?;
        if get(&output, "type").and_then(raw::string).as_deref() != Some("content") {
            return None;
        }
        let value = doc.items(get(&output, "value")?)?;
        let (item, item_fields) = value.iter().rev().find_map(|v| {
            let f = doc.fields(v)?;
            can_carry(Wire::AiSdk, &f).then_some((*v, f))
        })?;
        options_target(doc, &item_fields, item, part)
    })
}

/// The AI SDK target for `object`: given when its `providerOptions.openai` holds a breakpoint.
fn options_target<'a>(
    doc: &Doc<'a>,
    fields: &Fields<'a>,
    object: Raw<'a>,
    part: usize,
) -> Option<Target<'a>> {
    let given = (|| {
        let options = doc.fields(get(fields, "providerOptions")?)?;
        let openai = doc.fields(get(&options, "openai")?)?;
        Some(get(&openai, "promptCacheBreakpoint").is_some_and(|c| kind(c) != Kind::Null))
    })();
    if given == Some(true) {
        return Some(Target::Given(part));
    }
    Some(Target::Options { object, part })
}

/// A block that can carry a breakpoint: an input block, a text one only when not empty.
fn can_carry(wire: Wire, fields: &Fields<'_>) -> bool {
    let ty = get(fields, "type").and_then(raw::string);
    let text_key = match (wire, ty.as_deref()) {
        (Wire::Chat, Some("text")) | (Wire::AiSdk, Some("text")) => "text",
        (Wire::Responses, Some("input_text")) => "text",
        (Wire::Chat, Some("image_url" | "input_audio" | "file")) => return true,
        (Wire::Responses, Some("input_image" | "input_file")) => return true,
        // The AI SDK's media parts and tool-output items (`image`, `file`, `image-data`,
        // `file-data`, `media`…).
        (Wire::AiSdk, Some(t)) => return t != "reasoning" && !t.starts_with("tool-"),
        _ => return false,
    };
    get(fields, text_key)
        .and_then(raw::string)
        .is_some_and(|t| !t.is_empty())
}

/// `providerOptions` for the AI SDK: `{"openai":{"promptCacheBreakpoint":{...}}}`.
fn ai_sdk_options() -> String {
    format!("{{\"openai\":{{\"promptCacheBreakpoint\":{BREAKPOINT}}}}}")
}

/// Where in `object` (an offset in it) and what to insert so that it holds
/// `providerOptions.openai.promptCacheBreakpoint`, adding the objects it lacks.
fn ai_sdk_insert(doc: &Doc<'_>, object: Raw<'_>) -> (usize, String) {
    let inner = |outer: Raw<'_>, raw: Raw<'_>| raw.as_ptr() as usize - outer.as_ptr() as usize;
    let fields = doc.fields(object).unwrap_or_default();
    let Some(options) = get(&fields, "providerOptions").filter(|o| kind(o) == Kind::Object) else {
        return insert_field(object, "providerOptions", &ai_sdk_options());
    };
    let options_fields = doc.fields(options).unwrap_or_default();
    let Some(openai) = get(&options_fields, "openai").filter(|o| kind(o) == Kind::Object) else {
        let value = format!("{{\"promptCacheBreakpoint\":{BREAKPOINT}}}");
        let (at, with) = insert_field(options, "openai", &value);
        return (inner(object, options) + at, with);
    };
    let (at, with) = insert_field(openai, "promptCacheBreakpoint", BREAKPOINT);
    (inner(object, openai) + at, with)
}

/// Where in `object` (its closing brace) and what to insert to add `"key": value`.
fn insert_field(object: Raw<'_>, key: &str, value: &str) -> (usize, String) {
    let end = object.len() - 1;
    let empty = object[1..end].trim().is_empty();
    let comma = if empty { "" } else { "," };
    (end, format!("{comma}\"{key}\":{value}"))
}

/// The explicit breakpoints (keys not `null`) in a JSON text.
fn count(wire: Wire, text: &str) -> usize {
    let key = match wire {
        Wire::AiSdk => "promptCacheBreakpoint",
        Wire::Chat | Wire::Responses => "prompt_cache_breakpoint",
    };
    if !text.contains(key) {
        return 0;
    }
    fn walk(value: &Value, key: &str) -> usize {
        match value {
            Value::Object(map) => {
                usize::from(map.get(key).is_some_and(|c| !c.is_null()))
                    + map.values().map(|v| walk(v, key)).sum::<usize>()
            }
            Value::Array(items) => items.iter().map(|v| walk(v, key)).sum(),
            _ => 0,
        }
    }
    serde_json::from_str::<Value>(text).map_or(0, |v| walk(&v, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(messages: &[&'static str]) -> Vec<Cow<'static, str>> {
        messages.iter().map(|m| Cow::Borrowed(*m)).collect()
    }

    #[test]
    fn gpt_5_6_and_later_take_breakpoints() {
        for name in [
            "gpt-5.6",
            "gpt-5.6-mini",
            "openai/gpt-5.7",
            "gpt-6",
            "GPT-5.10",
        ] {
            assert!(takes_breakpoints(name), "{name}");
        }
        for name in [
            "gpt-5.5",
            "gpt-5",
            "gpt-4o",
            "gpt-oss-120b",
            "claude-sonnet-4-6",
            "o3",
        ] {
            assert!(!takes_breakpoints(name), "{name}");
        }
    }

    #[test]
    fn the_breakpoint_skips_the_assistant_and_lands_on_the_tool_result_before() {
        let messages = texts(&[
            r#"{"role":"system","content":"Be brief."}"#,
            r#"{"role":"user","content":"Look"}"#,
            r#"{"role":"assistant","content":null,"tool_calls":[]}"#,
            r#"{"role":"tool","tool_call_id":"c0","content":"ok"}"#,
            r#"{"role":"assistant","content":"Done."}"#,
            r#"{"role":"user","content":"Next"}"#,
        ]);
        let placed = place(Wire::Chat, None, &messages).unwrap();
        assert_eq!((placed.index, placed.part), (3, 0));
        let message: Value = serde_json::from_str(placed.message.as_deref().unwrap()).unwrap();
        assert_eq!(
            message["content"],
            serde_json::json!([{"type": "text", "text": "ok",
                "prompt_cache_breakpoint": {"mode": "explicit"}}])
        );
    }

    #[test]
    fn the_ai_sdk_part_gets_provider_options_beside_its_own() {
        let messages = texts(&[
            r#"{"role":"user","content":[{"type":"text","text":"a","providerOptions":{"anthropic":{}}}]}"#,
            r#"{"role":"assistant","content":"b"}"#,
            r#"{"role":"user","content":"c"}"#,
        ]);
        let placed = place(Wire::AiSdk, None, &messages).unwrap();
        let message: Value = serde_json::from_str(placed.message.as_deref().unwrap()).unwrap();
        assert_eq!(
            message["content"][0]["providerOptions"],
            serde_json::json!({"anthropic": {}, "openai": {"promptCacheBreakpoint": {"mode": "explicit"}}})
        );
    }
}

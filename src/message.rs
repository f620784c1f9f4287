//! One chat message as the budget sees it: its role, its content split into priced units, the
//! bytes of its other fields, and its tool-call bookkeeping. Shape errors are reported with the
//! JSON path of the offending value.

use crate::error::Error;
use crate::json::{compact_len, compact_len_without};
use crate::pricing::{price_image_url_with_size, ImagePrice, ImageProfile};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::collections::HashSet;

/// A text part whose text starts with this is an attachment body (DESIGN §4).
pub const ATTACHMENT_PREFIX: &str = "Attached file:";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    Developer,
    User,
    Assistant,
    Tool,
}

impl Role {
    fn parse(s: &str) -> Option<Role> {
        Some(match s {
            "system" => Role::System,
            "developer" => Role::Developer,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => return None,
        })
    }
}

/// How the message's `content` was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContentShape {
    Absent,
    Null,
    Text,
    Parts,
}

/// What a unit of content is, for the shedding order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum UnitKind {
    Text,
    Attachment,
    Image(ImagePrice),
    Other,
}

/// What trimming or repair did to a unit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Change {
    Keep,
    /// The text is replaced (shrunk, attachment body dropped, repair note appended); the part
    /// keeps its other fields.
    Text(String),
    /// An image part replaced by a text part.
    Placeholder(String),
    Removed,
    /// A text part appended to array content.
    Added(String),
}

/// A priced piece of content: the whole string content, or one part of an array.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unit {
    /// Index in the input content array; `None` for string content and added parts.
    pub part: Option<usize>,
    pub kind: UnitKind,
    /// Current cost in budget bytes.
    pub bytes: u64,
    pub change: Change,
}

/// The state of a message's `tool_calls`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ToolCalls {
    None,
    Empty,
    Valid(Vec<String>),
    Malformed { reason: String, path: String },
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MessageInfo {
    /// `None` for a role the library does not know.
    pub role: Option<Role>,
    pub shape: ContentShape,
    pub units: Vec<Unit>,
    /// Compact JSON bytes of every field but `content`.
    pub meta_bytes: u64,
    pub tool_calls: ToolCalls,
    pub tool_call_id: Option<String>,
    pub has_refusal: bool,
}

impl MessageInfo {
    pub fn cost(&self) -> u64 {
        // Saturating: an image may cost up to u64::MAX (tokens × bytes_per_token).
        let units = self
            .units
            .iter()
            .fold(0u64, |sum, u| sum.saturating_add(u.bytes));
        self.meta_bytes.saturating_add(units)
    }

    /// True when the message says something: non-empty text, any part, or a refusal.
    pub fn has_content(&self) -> bool {
        self.has_refusal
            || self
                .units
                .iter()
                .any(|u| u.change != Change::Removed && (u.part.is_some() || u.bytes > 0))
    }
}

/// How images are priced while parsing.
#[derive(Clone, Copy)]
pub(crate) struct Pricing<'a> {
    pub profile: ImageProfile,
    pub bytes_per_token: u64,
    /// Caller-given sizes of remote images, by URL.
    pub image_sizes: &'a HashMap<String, (u32, u32)>,
}

/// Parses `messages[index]`.
pub(crate) fn parse_message(
    index: usize,
    message: &Value,
    pricing: Pricing<'_>,
) -> Result<MessageInfo, Error> {
    let at = |rest: &str| format!("messages[{index}]{rest}");
    let obj = message
        .as_object()
        .ok_or_else(|| Error::invalid_request("each message must be a JSON object", at("")))?;
    let role = match obj.get("role") {
        None => return Err(Error::invalid_request("role is missing", at(".role"))),
        Some(Value::String(s)) => Role::parse(s),
        Some(_) => return Err(Error::invalid_request("role must be a string", at(".role"))),
    };
    let (shape, units) = match obj.get("content") {
        None => (ContentShape::Absent, Vec::new()),
        Some(Value::Null) => (ContentShape::Null, Vec::new()),
        Some(Value::String(s)) => (
            ContentShape::Text,
            vec![Unit {
                part: None,
                kind: UnitKind::Text,
                bytes: s.len() as u64,
                change: Change::Keep,
            }],
        ),
        Some(Value::Array(parts)) => {
            let mut units = Vec::with_capacity(parts.len());
            for (p, part) in parts.iter().enumerate() {
                units.push(parse_part(
                    part,
                    &at(&format!(".content[{p}]")),
                    p,
                    pricing,
                )?);
            }
            (ContentShape::Parts, units)
        }
        Some(_) => {
            return Err(Error::invalid_request(
                "content must be a string, an array of parts or null",
                at(".content"),
            ))
        }
    };
    let tool_calls = match obj.get("tool_calls") {
        None | Some(Value::Null) => ToolCalls::None,
        Some(Value::Array(calls)) if calls.is_empty() => ToolCalls::Empty,
        Some(Value::Array(calls)) => check_tool_calls(calls, &at(".tool_calls")),
        Some(_) => {
            return Err(Error::invalid_request(
                "tool_calls must be an array",
                at(".tool_calls"),
            ))
        }
    };
    let tool_call_id = match obj.get("tool_call_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            return Err(Error::invalid_request(
                "tool_call_id must be a string",
                at(".tool_call_id"),
            ))
        }
    };
    let has_refusal = obj
        .get("refusal")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty());
    Ok(MessageInfo {
        role,
        shape,
        units,
        meta_bytes: compact_len_without(obj, &["content"]),
        tool_calls,
        tool_call_id,
        has_refusal,
    })
}

fn parse_part(part: &Value, path: &str, index: usize, pricing: Pricing<'_>) -> Result<Unit, Error> {
    let obj = part
        .as_object()
        .ok_or_else(|| Error::invalid_request("each content part must be a JSON object", path))?;
    let kind = match obj.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(_) => {
            return Err(Error::invalid_request(
                "type must be a string",
                format!("{path}.type"),
            ))
        }
        None => {
            return Err(Error::invalid_request(
                "type is missing",
                format!("{path}.type"),
            ))
        }
    };
    let (kind, bytes) = match kind {
        "text" => {
            let text = obj.get("text").and_then(Value::as_str).ok_or_else(|| {
                Error::invalid_request("a text part needs a string text", format!("{path}.text"))
            })?;
            let kind = if text.starts_with(ATTACHMENT_PREFIX) {
                UnitKind::Attachment
            } else {
                UnitKind::Text
            };
            (kind, text.len() as u64)
        }
        "image_url" => {
            let (url, detail) = image_url_of(obj).ok_or_else(|| {
                Error::invalid_request(
                    "an image_url part needs image_url.url as a string",
                    format!("{path}.image_url"),
                )
            })?;
            let size = pricing.image_sizes.get(url).copied();
            let price = price_image_url_with_size(
                url,
                size,
                pricing.profile,
                detail,
                pricing.bytes_per_token,
            );
            (UnitKind::Image(price), price.budget_bytes)
        }
        _ => (UnitKind::Other, compact_len(part)),
    };
    Ok(Unit {
        part: Some(index),
        kind,
        bytes,
        change: Change::Keep,
    })
}

/// `image_url.url` and `image_url.detail`; the URL may also be given as a bare string.
pub fn image_url_of(part: &Map<String, Value>) -> Option<(&str, Option<&str>)> {
    match part.get("image_url")? {
        Value::String(url) => Some((url, None)),
        Value::Object(o) => Some((
            o.get("url")?.as_str()?,
            o.get("detail").and_then(Value::as_str),
        )),
        _ => None,
    }
}

/// Checks each call's shape (DESIGN §5): a unique non-empty string `id`, `type` "function",
/// string `function.name` and `function.arguments`.
fn check_tool_calls(calls: &[Value], path: &str) -> ToolCalls {
    let mut ids = Vec::with_capacity(calls.len());
    let mut seen = HashSet::new();
    for (c, call) in calls.iter().enumerate() {
        let here = format!("{path}[{c}]");
        let bad = |reason: &str, at: String| ToolCalls::Malformed {
            reason: reason.to_owned(),
            path: at,
        };
        let Some(obj) = call.as_object() else {
            return bad("tool call is not an object", here);
        };
        let id = match obj.get("id") {
            Some(Value::String(id)) if !id.is_empty() => id,
            _ => {
                return bad(
                    "tool call id is missing or not a string",
                    format!("{here}.id"),
                )
            }
        };
        if !seen.insert(id.as_str()) {
            return bad("duplicate tool call id", format!("{here}.id"));
        }
        if obj.get("type").and_then(Value::as_str) != Some("function") {
            return bad("tool call type is not \"function\"", format!("{here}.type"));
        }
        let Some(function) = obj.get("function").and_then(Value::as_object) else {
            return bad("tool call function is missing", format!("{here}.function"));
        };
        if !function.get("name").is_some_and(Value::is_string) {
            return bad(
                "function.name is not a string",
                format!("{here}.function.name"),
            );
        }
        if !function.get("arguments").is_some_and(Value::is_string) {
            return bad(
                "function.arguments is not a string",
                format!("{here}.function.arguments"),
            );
        }
        ids.push(id.clone());
    }
    ToolCalls::Valid(ids)
}

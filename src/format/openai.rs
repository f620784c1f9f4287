//! OpenAI Chat Completions messages (DESIGN §4): one logical message per message.

use super::calls::CallIds;
use super::split::{split_all, Input, Step};
use super::units::{self, opaque, priced, text_unit, Content};
use super::{
    fields_cost, message_path, reply_fields, role_token, Adapter, Edit, Logical, NewContent,
    NewPart, Out, Pricing, Rebuilt, Traits, Words,
};
use crate::error::Error;
use crate::model::{
    Change, ContentShape, Malformed, Message, Origin, Role, Session, ToolCalls, Unit,
};
use crate::raw::{self, canonical_len, get, kind, Doc, Fields, Kind, MetaLen, Raw};
use crate::tokens::Measure;
use std::borrow::Cow;

pub struct OpenAi;

static TRAITS: Traits = Traits {
    name: "openai",
    outside_system: None,
    merges_turns: false,
    user_turn_first: false,
    trims_newest_alone: true,
    content_key: "content",
    reply_items: None,
    words: Words {
        call: "tool call",
        reply: "tool message",
        orphan_removed: "orphan_tool_removed",
        incomplete_calls_removed: "incomplete_tool_calls_removed",
        incomplete_reply_removed: "incomplete_tool_reply_removed",
        reply_of_incomplete: "reply to the incomplete tool calls of",
    },
    tool_inputs: super::ToolInputs {
        list: Some("tool_calls"),
        call_type: None,
        holder: &["function"],
        key: "arguments",
        empty: "\"{}\"",
    },
    user_text: [r#"{"role":"user","content":"#, "}"],
    part_types: &["image_url", "input_audio"],
    part_keys: &[],
    rebuilds_messages: false,
    plain: super::Plain {
        user: "user",
        model: "assistant",
        other_roles: &["system", "developer"],
        text_key: "content",
        text_parts: false,
        extra: Some(("name", None)),
    },
    stand_in: super::StandIn {
        text_keys: &["content", "text", "arguments", "refusal"],
        data_keys: &[],
    },
    breakpoints: super::Breakpoints::OpenAi(super::openai_cache::Wire::Chat),
    turns: super::turns::OPENAI,
};

impl Adapter for OpenAi {
    fn traits(&self) -> &'static Traits {
        &TRAITS
    }

    fn split<'a>(&self, input: &Input<'a, '_>) -> Result<Session<'a>, Error> {
        split_all(input, "message", input.session(), split_message)
    }

    /// Every field but `content`: role, name, `tool_calls` (ids, names and arguments as
    /// written), `tool_call_id`, refusal, unknown fields.
    fn meta_cost(&self, doc: &Doc<'_>, at: Logical<'_, '_>, measure: &Measure) -> (u64, u64) {
        let fields = at.input.and_then(|m| doc.fields(m)).unwrap_or_default();
        let (all, calls) = fields_cost(&fields, &["content"], "tool_calls", measure);
        (all, all - calls)
    }

    fn call_names(&self, doc: &Doc<'_>, session: &Session<'_>, m: usize) -> Vec<String> {
        let Some(p) = session.messages[m].physical else {
            return Vec::new();
        };
        let fields = doc.fields(session.inputs[p as usize]).unwrap_or_default();
        super::calls::names_in(doc, get(&fields, "tool_calls"), "name", |_, call| {
            get(call, "function")
        })
    }

    fn rebuild<'a>(&self, _doc: &Doc<'a>, session: &Session<'a>, kept: &[bool]) -> Rebuilt {
        let mut messages = Vec::with_capacity(kept.iter().filter(|&&k| k).count());
        messages.extend(
            (0..session.messages.len())
                .filter(|&m| kept[m])
                .map(|m| edit_of(session, m)),
        );
        messages.into()
    }
}

/// Buffers for the fields of the objects inside a message, reused from message to message.
#[derive(Default)]
struct Scratch<'a> {
    part: Fields<'a>,
    call: Fields<'a>,
    function: Fields<'a>,
}

fn split_message<'a>(
    step: Step<'a, '_, Scratch<'a>>,
    session: &mut Session<'a>,
) -> Result<(), Error> {
    let (doc, pricing, i, fields) = (step.doc, step.pricing, step.i, step.fields);
    let scratch = step.scratch;
    let role_raw = role_token(fields, i)?;
    let role = Role::of_token(role_raw);
    let start = session.units.len() as u32;
    let content = get(fields, "content");
    if content.is_none() && get(fields, "parts").is_some() {
        return Err(Error::invalid_request(
            "a message holds content, not parts (this message is shaped like Gemini contents: \
             pass format=\"gemini\")",
            message_path(i, ".parts"),
        ));
    }
    let shape = match units::content(doc, content, session) {
        Content::Read(shape) => shape,
        Content::Parts(c) => {
            if let Some(mut parts) = doc.object_items(c) {
                let mut p = 0;
                while let Some((part, object)) = parts.next_into(&mut scratch.part) {
                    let fields = object.then_some(&scratch.part);
                    session
                        .units
                        .push(split_part(doc, i, p, part, fields, pricing)?);
                    p += 1;
                }
            }
            ContentShape::Parts
        }
        Content::Other(_) => {
            return Err(Error::invalid_request(
                "content must be a string, an array of parts or null",
                message_path(i, ".content"),
            ))
        }
    };
    // Before the tool calls are read: their array is then the next container the index is
    // asked for.
    let (meta_bytes, meta_without_calls) = meta_lens(doc, fields);
    let tool_calls = match get(fields, "tool_calls").map(|c| (kind(c), c)) {
        None | Some((Kind::Null, _)) => ToolCalls::None,
        Some((Kind::Array, calls)) => {
            check_tool_calls(doc, i, calls, &mut scratch.call, &mut scratch.function)
        }
        Some(_) => {
            return Err(Error::invalid_request(
                "tool_calls must be an array",
                message_path(i, ".tool_calls"),
            ))
        }
    };
    let (tool_call_id, has_refusal) = reply_fields(fields, i)?;
    session.messages.push(Message {
        physical: Some(i as u32),
        origin: Origin::Whole,
        role,
        shape,
        units: (start, session.units.len() as u32),
        meta_bytes,
        meta_without_calls,
        tool_calls,
        tool_call_id: tool_call_id.map(Box::new),
        has_refusal,
        has_note: false,
        remove_tool_calls: false,
        compaction: false,
    });
    Ok(())
}

/// The compact JSON bytes of a message's fields but its content, with and without its tool
/// calls, in one pass.
fn meta_lens<'a>(doc: &Doc<'a>, fields: &Fields<'a>) -> (u64, u64) {
    let (mut all, mut without_calls) = (MetaLen::default(), MetaLen::default());
    for (key, value) in fields {
        if key == "content" {
            continue;
        }
        let (key_len, len) = (raw::string_len_as_json(key), doc.canonical_len(value));
        all.field_len(key_len, len);
        if key != "tool_calls" {
            without_calls.field_len(key_len, len);
        }
    }
    (all.total(), without_calls.total())
}

fn split_part<'a>(
    doc: &Doc<'a>,
    i: usize,
    p: usize,
    part: Raw<'a>,
    fields: Option<&Fields<'a>>,
    pricing: &Pricing<'_>,
) -> Result<Unit<'a>, Error> {
    let here = || message_path(i, &format!(".content[{p}]"));
    let fields = fields
        .ok_or_else(|| Error::invalid_request("each content part must be a JSON object", here()))?;
    let part_type = match get(fields, "type") {
        Some(t) if kind(t) == Kind::String => raw::decode(t),
        Some(_) => {
            return Err(Error::invalid_request(
                "type must be a string",
                format!("{}.type", here()),
            ))
        }
        None => {
            let gemini = super::meant_for_keys(fields, "openai") == Some("gemini");
            let message = if gemini {
                "type is missing (this part is shaped like Gemini contents: pass \
                 format=\"gemini\")"
            } else {
                "type is missing"
            };
            return Err(Error::invalid_request(message, format!("{}.type", here())));
        }
    };
    let part_index = Some(p as u32);
    match part_type.as_ref() {
        "text" => match get(fields, "text") {
            Some(t) if kind(t) == Kind::String => Ok(text_unit(part_index, t)),
            _ => Err(Error::invalid_request(
                "a text part needs a string text",
                format!("{}.text", here()),
            )),
        },
        "image_url" => {
            let (url, detail) = image_url_of(doc, fields).ok_or_else(|| {
                Error::invalid_request(
                    "an image_url part needs image_url.url as a string",
                    format!("{}.image_url", here()),
                )
            })?;
            let kind = pricing.url(&url, detail.as_deref());
            Ok(priced(part_index, None, kind))
        }
        "file" | "input_audio" => {
            let inner = get(fields, part_type.as_ref()).and_then(|f| doc.fields(f));
            let inner = inner.unwrap_or_default();
            let string = |key: &str| get(&inner, key).and_then(raw::string);
            let (data, name, filename) = (
                string(if part_type == "file" {
                    "file_data"
                } else {
                    "data"
                }),
                string("file_id"),
                string("filename"),
            );
            // `input_audio` is audio whatever its `format` (`wav`, `mp3`) says.
            let media_type = (part_type == "input_audio").then_some("audio/*");
            let file = super::FilePart {
                data: data.as_deref(),
                name: name.as_deref(),
                media_type,
                filename: filename.as_deref(),
                default_kind: Some(crate::probe::file::FileKind::Document),
                detail: None,
            };
            let Some(kind) = file.price(pricing) else {
                // Not a PDF or audio (a text file): priced as written.
                return Ok(opaque(part_index, None, canonical_len(part)));
            };
            Ok(priced(part_index, None, kind))
        }
        other => {
            if let Some(format) = super::meant_for(other, "openai") {
                return Err(Error::invalid_request(
                    format!(
                        "a {other:?} part belongs to the {format:?} format, not to OpenAI chat \
                         messages: pass format={format:?}"
                    ),
                    format!("{}.type", here()),
                ));
            }
            Ok(opaque(part_index, None, canonical_len(part)))
        }
    }
}

/// `image_url.url` and `image_url.detail`; the URL may also be given as a bare string.
pub(crate) fn image_url_of<'a>(
    doc: &Doc<'a>,
    part: &[(Cow<'a, str>, Raw<'a>)],
) -> Option<(Cow<'a, str>, Option<Cow<'a, str>>)> {
    let image = get(part, "image_url")?;
    match kind(image) {
        Kind::String => Some((raw::string(image)?, None)),
        Kind::Object => {
            let fields = doc.fields(image)?;
            let url = raw::string(get(&fields, "url")?)?;
            let detail = get(&fields, "detail").and_then(raw::string);
            Some((url, detail))
        }
        _ => None,
    }
}

/// Checks each call's shape (DESIGN §5): a unique non-empty string `id`, `type` "function",
/// string `function.name` and `function.arguments`; no calls at all is `Empty`.
fn check_tool_calls<'a>(
    doc: &Doc<'a>,
    i: usize,
    calls: Raw<'a>,
    call: &mut Fields<'a>,
    function: &mut Fields<'a>,
) -> ToolCalls<'a> {
    // Room for one call, the common case: the ids are then boxed without a reallocation.
    let mut ids = CallIds::with_capacity(1);
    let Some(mut items) = doc.object_items(calls) else {
        return ToolCalls::Empty;
    };
    let mut c = 0;
    while let Some((_, object)) = items.next_into(call) {
        let fields = &*call;
        let bad = |why: Malformed, rest: &str| ToolCalls::Malformed {
            why,
            path: Box::new(message_path(i, &format!(".tool_calls[{c}]{rest}")).into()),
        };
        if !object {
            return bad(Malformed::NotObject, "");
        }
        let id = match get(fields, "id").and_then(raw::string) {
            Some(id) if !id.is_empty() => id,
            _ => return bad(Malformed::IdMissing, ".id"),
        };
        if !ids.add(id) {
            return bad(Malformed::DuplicateId, ".id");
        }
        // Written without escapes, the common case, the token itself tells.
        let is_function = match get(fields, "type") {
            Some("\"function\"") => true,
            other => other.and_then(raw::string).as_deref() == Some("function"),
        };
        if !is_function {
            return bad(Malformed::TypeNotFunction, ".type");
        }
        if !get(fields, "function").is_some_and(|f| doc.read_fields(f, function)) {
            return bad(Malformed::FunctionMissing, ".function");
        }
        let is_string = |key: &str| get(function, key).is_some_and(|v| kind(v) == Kind::String);
        if !is_string("name") {
            return bad(Malformed::NameNotString, ".function.name");
        }
        if !is_string("arguments") {
            return bad(Malformed::ArgumentsNotString, ".function.arguments");
        }
        c += 1;
    }
    if ids.is_empty() {
        ToolCalls::Empty
    } else {
        ToolCalls::Valid(Box::new(ids.into_vec().into()))
    }
}

/// The returned form of logical message `m`: the caller's own, or what changed in it.
fn edit_of(session: &Session<'_>, m: usize) -> Out {
    let msg = &session.messages[m];
    let index = msg.physical.expect("chat messages are physical") as usize;
    let units = session.units_of(m);
    let content = new_content(msg, units);
    if content.is_none() && !msg.remove_tool_calls {
        return Out::Same(index);
    }
    Out::Edited(Box::new(Edit {
        index,
        remove_tool_calls: msg.remove_tool_calls,
        content,
    }))
}

/// The new content of a message, when something in it changed.
pub(crate) fn new_content(msg: &Message<'_>, units: &[Unit<'_>]) -> Option<NewContent> {
    if !msg.has_note && units.iter().all(|u| u.change == Change::Keep) {
        return None;
    }
    if msg.shape != ContentShape::Parts {
        return match (units.first().map(|u| &u.change), msg.note()) {
            (Some(Change::Text(s)), _) => Some(NewContent::Text(s.to_string())),
            (_, Some(note)) => Some(NewContent::Text(note.to_string())),
            _ => None,
        };
    }
    let mut parts: Vec<NewPart> = units
        .iter()
        .filter_map(|u| {
            let p = u.part.map(|p| p as usize);
            match &u.change {
                Change::Keep => p.map(NewPart::Keep),
                Change::Text(s) => Some(NewPart::Text {
                    from: p,
                    text: s.to_string(),
                }),
                Change::Placeholder(s) => Some(NewPart::Text {
                    from: None,
                    text: s.to_string(),
                }),
                Change::Removed => None,
            }
        })
        .collect();
    if let Some(note) = msg.note() {
        parts.push(NewPart::Text {
            from: None,
            text: note.to_string(),
        });
    }
    Some(NewContent::Parts(parts))
}

/// `image_url.url` and `image_url.detail` of a part held as a `serde_json` object (for callers
/// that hold parsed values, such as the command line's summary).
pub fn image_url_of_value(
    part: &serde_json::Map<String, serde_json::Value>,
) -> Option<(&str, Option<&str>)> {
    use serde_json::Value;
    match part.get("image_url")? {
        Value::String(url) => Some((url, None)),
        Value::Object(o) => Some((
            o.get("url")?.as_str()?,
            o.get("detail").and_then(Value::as_str),
        )),
        _ => None,
    }
}

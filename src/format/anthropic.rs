//! Anthropic Messages histories.
//!
//! An Anthropic message can hold several things the neutral model keeps apart: an assistant
//! message carries its `tool_use` blocks among its content, and the user message after it
//! carries the `tool_result` blocks (besides, possibly, the user's next words). So each message
//! is split into logical messages — the top-level `system` is a pinned system message,
//! `tool_use` blocks are the tool calls of the message's other blocks, each `tool_result` is a
//! tool reply, the rest of a user message a user message — and the plan is mapped back onto the
//! caller's blocks, in the caller's order:
//!
//! ```text
//! messages → logical messages → pipeline → kept blocks per message → first message a user
//!          message, roles alternate (adjacent same-role messages merge)
//! ```
//!
//! Costs are those of the OpenAI-shaped equivalent (a `tool_use` as a tool call with its
//! `input` as a JSON string, a `tool_result` as a tool message). Thinking blocks
//! (`thinking`, `redacted_thinking`) are opaque: priced as JSON, kept with their message, never
//! edited (they are signed). A `document` block is an attachment: when the budget forces it, its
//! body goes last, leaving a text block that names it.
//!
//! A `compaction` block (server compaction, `context_management` edit `compact_20260112`) is
//! the conversation before it: the API ignores every block before it. Its message is a server
//! compaction ([`Message::compaction`]): what stands before it goes first, it is kept while
//! anything after it is, and the answer may start with it (an assistant message). The block is
//! opaque like a thinking block: priced as its JSON (its summary and `encrypted_content` by
//! their bytes, as the byte rule prices opaque data), never edited.

use super::calls::{part_call_names, CallIds};
use super::parts::PartWriter;
use super::split::{split_all, Input, Step};
use super::units::{string_unit, text_unit};
use super::write::{array, json_string, object_with, typed_text};
use super::{
    fields_cost, message_path, reply_fields, role_token, Adapter, Logical, Pricing, Rebuilt,
    Traits, Words,
};
use crate::error::Error;
use crate::json::compact_len;
use crate::model::{
    Change, ContentShape, Malformed, Message, Origin, Role, Session, TextSource, ToolCalls, Unit,
    UnitKind,
};
use crate::pricing::ImageProfile;
use crate::raw::{
    self, canonical_len, get, kind, object_len_without, str_len, string_len_as_json, Doc, Fields,
    Kind, MetaLen, Raw,
};
use crate::tokens::Measure;
use serde_json::{json, Value};
use std::borrow::Cow;

pub struct Anthropic;

static TRAITS: Traits = Traits {
    name: "anthropic",
    outside_system: Some("the system"),
    merges_turns: true,
    user_turn_first: true,
    trims_newest_alone: true,
    content_key: "content",
    reply_items: Some(".content"),
    words: Words {
        call: "tool_use",
        reply: "tool_result",
        orphan_removed: "orphan_tool_result_removed",
        incomplete_calls_removed: "incomplete_tool_use_removed",
        incomplete_reply_removed: "incomplete_tool_result_removed",
        reply_of_incomplete: "result of the incomplete tool_use blocks of",
    },
    tool_inputs: super::ToolInputs {
        list: Some("content"),
        call_type: Some("tool_use"),
        holder: &[],
        key: "input",
        empty: "{}",
    },
    user_text: [r#"{"role":"user","content":"#, "}"],
    part_types: &[
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "document",
        "image",
    ],
    part_keys: &[],
    rebuilds_messages: true,
    plain: super::Plain {
        user: "user",
        model: "assistant",
        other_roles: &[],
        text_key: "content",
        text_parts: false,
        extra: None,
    },
    stand_in: super::StandIn {
        text_keys: &["content", "text", "thinking"],
        data_keys: &["input"],
    },
    breakpoints: super::Breakpoints::Anthropic,
    turns: super::turns::ANTHROPIC,
};

impl Adapter for Anthropic {
    fn traits(&self) -> &'static Traits {
        &TRAITS
    }

    /// Claude's rule (standard tier): a screenshot costs what Anthropic bills for it.
    fn default_profile(&self) -> ImageProfile {
        ImageProfile::Anthropic(crate::profiles::claude::Anthropic::standard())
    }

    fn split<'a>(&self, input: &Input<'a, '_>) -> Result<Session<'a>, Error> {
        let mut s = input.session();
        if let Some(system) = input.system() {
            split_system(input.doc, system, input.pricing, &mut s)?;
        }
        split_all(input, "message", s, split_message)
    }

    fn settle(&self, session: &Session<'_>, kept: &mut [bool]) -> Vec<usize> {
        super::drop_before_first_user(session, kept)
    }

    /// A message's fields but `content`; its `tool_use` blocks (ids, names, inputs as
    /// written) as its tool calls; a `tool_result`'s fields but its content, as its reply's.
    fn meta_cost(&self, doc: &Doc<'_>, at: Logical<'_, '_>, measure: &Measure) -> (u64, u64) {
        let Some(message) = at.input else {
            return (0, 0); // the top-level system: only its text
        };
        match at.msg.origin {
            // A few short fields (the id): their bytes, an upper bound, without reading the
            // message's blocks again for each of its tool results.
            Origin::Reply { .. } => (at.msg.meta_bytes, at.msg.meta_without_calls),
            Origin::Parts => super::blocks_meta_cost(
                doc,
                message,
                "content",
                |f| get(f, "type").and_then(raw::string).as_deref() == Some("tool_use"),
                measure,
            ),
            Origin::Whole | Origin::System | Origin::Item(_) => {
                let fields = doc.fields(message).unwrap_or_default();
                let (base, _) = fields_cost(&fields, &["content"], "", measure);
                (base, base)
            }
        }
    }

    fn call_names(&self, doc: &Doc<'_>, session: &Session<'_>, m: usize) -> Vec<String> {
        part_call_names(doc, session, m, "content", "name", |block, f| {
            let tool_use = get(f, "type").and_then(raw::string).as_deref() == Some("tool_use");
            tool_use.then_some(block)
        })
    }

    /// Adjacent messages of the same role merge, so roles alternate.
    fn rebuild<'a>(&self, doc: &Doc<'a>, session: &Session<'a>, kept: &[bool]) -> Rebuilt {
        super::merge::rebuild_merged(doc, session, kept, &Blocks, false)
    }
}

/// Where a content block is, for error paths (built only when there is an error).
#[derive(Debug, Clone, Copy)]
struct Loc {
    /// `None` for a block of the top-level `system`.
    message: Option<usize>,
    block: usize,
    /// A block inside a `tool_result`'s content.
    inner: Option<usize>,
}

impl Loc {
    fn block(message: usize, block: usize) -> Loc {
        Loc {
            message: Some(message),
            block,
            inner: None,
        }
    }

    fn system(block: usize) -> Loc {
        Loc {
            message: None,
            block,
            inner: None,
        }
    }

    /// The JSON path of the block followed by `rest`.
    fn at(self, rest: &str) -> String {
        let mut path = match self.message {
            Some(i) => format!("messages[{i}].content[{}]", self.block),
            None => format!("system[{}]", self.block),
        };
        if let Some(k) = self.inner {
            path.push_str(&format!(".content[{k}]"));
        }
        path.push_str(rest);
        path
    }
}

fn split_system<'a>(
    doc: &Doc<'a>,
    system: Raw<'a>,
    pricing: &Pricing<'_>,
    s: &mut Session<'a>,
) -> Result<(), Error> {
    let start = s.units.len() as u32;
    let shape = match kind(system) {
        Kind::Null => return Ok(()),
        Kind::String => {
            s.units.push(string_unit(None, system));
            ContentShape::Text
        }
        Kind::Array => {
            let mut fields = Fields::new();
            if let Some(mut items) = doc.object_items(system) {
                let mut b = 0;
                while let Some((block, object)) = items.next_into(&mut fields) {
                    let loc = Loc::system(b);
                    block_fields(object, loc)?;
                    let ty = block_type(&fields, loc)?;
                    let unit = block_unit(doc, block, &fields, &ty, loc, b as u32, None, pricing)?;
                    s.units.push(unit);
                    b += 1;
                }
            }
            ContentShape::Parts
        }
        _ => {
            return Err(Error::invalid_request(
                "system must be a string or an array of text blocks",
                "system",
            ))
        }
    };
    s.messages.push(super::units::system_message(
        shape,
        (start, s.units.len() as u32),
        super::SYSTEM_META,
    ));
    Ok(())
}

/// Buffers for the fields of the blocks inside a message, reused from message to message (the
/// message's own fields come in its [`Step`]).
#[derive(Default)]
struct Scratch<'a> {
    block: Fields<'a>,
    inner: Fields<'a>,
    /// The fields of the message's tool_use blocks, one after the other.
    calls: Fields<'a>,
    /// (block index, its fields in `calls`) of each tool_use block.
    call_at: Vec<(usize, std::ops::Range<usize>)>,
    /// The units of the message's other blocks.
    parts: Vec<Unit<'a>>,
}

fn split_message<'a>(step: Step<'a, '_, Scratch<'a>>, s: &mut Session<'a>) -> Result<(), Error> {
    let (doc, pricing, i, fields) = (step.doc, step.pricing, step.i, step.fields);
    let scratch = step.scratch;
    let role_raw = role_token(fields, i)?;
    let role = match Role::of_token(role_raw) {
        Some(role @ (Role::User | Role::Assistant)) => role,
        // The Messages API has two roles: a `tool` or `system` message here is a mix-up of
        // formats, and guessing what it meant would hide it.
        _ => {
            let other = raw::decode(role_raw);
            return Err(Error::invalid_request(
                format!(
                    "in the Anthropic format a role is \"user\" or \"assistant\", not {other:?} \
                     (tool results are tool_result blocks; the system prompt is the top-level system)"
                ),
                message_path(i, ".role"),
            ));
        }
    };
    // An OpenAI `tool_calls` field would be read as tool calls, but repair could not remove it
    // from the returned message: refused, not guessed at.
    if get(fields, "tool_calls").is_some() {
        return Err(Error::invalid_request(
            "tool_calls is not part of the Anthropic format: tool calls are tool_use content \
             blocks",
            message_path(i, ".tool_calls"),
        ));
    }
    let (tool_call_id, has_refusal) = reply_fields(fields, i)?;
    let base_meta = object_len_without(fields, &["content"]);
    let logical = |shape, units, meta_bytes, tool_calls| Message {
        physical: Some(i as u32),
        origin: Origin::Whole,
        role: Some(role),
        shape,
        units,
        meta_bytes,
        meta_without_calls: base_meta,
        tool_calls,
        tool_call_id: tool_call_id.clone().map(Box::new),
        has_refusal,
        has_note: false,
        remove_tool_calls: false,
        compaction: false,
    };
    let start = s.units.len() as u32;
    let blocks = match get(fields, "content").map(|c| (kind(c), c)) {
        None => {
            s.messages.push(logical(
                ContentShape::Absent,
                (start, start),
                base_meta,
                ToolCalls::None,
            ));
            return Ok(());
        }
        Some((Kind::Null, _)) => {
            s.messages.push(logical(
                ContentShape::Null,
                (start, start),
                base_meta,
                ToolCalls::None,
            ));
            return Ok(());
        }
        Some((Kind::String, c)) => {
            s.units.push(string_unit(None, c));
            s.messages.push(logical(
                ContentShape::Text,
                (start, start + 1),
                base_meta,
                ToolCalls::None,
            ));
            return Ok(());
        }
        Some((Kind::Array, c)) => c,
        Some(_) => {
            return Err(Error::invalid_request(
                "content must be a string or an array of content blocks",
                message_path(i, ".content"),
            ))
        }
    };
    scratch.parts.clear();
    scratch.call_at.clear();
    scratch.calls.clear();
    let mut b = 0;
    let mut compaction = false;
    if let Some(mut items) = doc.object_items(blocks) {
        while let Some((block, object)) = items.next_into(&mut scratch.block) {
            let here = Loc::block(i, b);
            block_fields(object, here)?;
            let fields = &scratch.block;
            match block_type(fields, here)?.as_ref() {
                "tool_result" => {
                    split_tool_result(doc, fields, here, pricing, &mut scratch.inner, s)?
                }
                "tool_use" => {
                    let start = scratch.calls.len();
                    scratch.calls.extend_from_slice(fields);
                    scratch.call_at.push((b, start..scratch.calls.len()));
                }
                ty => {
                    compaction |= ty == "compaction" && compaction_summary(fields, here)?;
                    scratch.parts.push(block_unit(
                        doc, block, fields, ty, here, b as u32, None, pricing,
                    )?)
                }
            }
            b += 1;
        }
    }
    let no_blocks = b == 0;
    if !scratch.parts.is_empty() || !scratch.call_at.is_empty() || no_blocks {
        let start = s.units.len() as u32;
        s.units.append(&mut scratch.parts);
        let calls = scratch
            .call_at
            .iter()
            .map(|(b, at)| (*b, &scratch.calls[at.clone()]));
        let (tool_calls, meta) = tool_calls_of(doc, i, calls, base_meta, fields);
        let mut msg = logical(
            ContentShape::Parts,
            (start, s.units.len() as u32),
            meta,
            tool_calls,
        );
        msg.origin = Origin::Parts;
        msg.compaction = compaction;
        s.messages.push(msg);
    }
    Ok(())
}

/// Whether a `compaction` block (server compaction, `compact_20260112`) holds a summary: the
/// API then ignores every block before it. One whose `content` is null is a compaction that
/// failed, which the API treats as a no-op.
fn compaction_summary(fields: &Fields<'_>, here: Loc) -> Result<bool, Error> {
    match get(fields, "content").map(kind) {
        Some(Kind::String) => Ok(true),
        None | Some(Kind::Null) => Ok(false),
        Some(_) => Err(Error::invalid_request(
            "a compaction block's content must be a string (its summary) or null",
            here.at(".content"),
        )),
    }
}

/// Refuses a content block that is not an object.
fn block_fields(object: bool, loc: Loc) -> Result<(), Error> {
    if object {
        return Ok(());
    }
    Err(Error::invalid_request(
        "each content block must be a JSON object",
        loc.at(""),
    ))
}

fn block_type<'a>(fields: &Fields<'a>, path: Loc) -> Result<Cow<'a, str>, Error> {
    match get(fields, "type") {
        Some(t) if kind(t) == Kind::String => Ok(raw::decode(t)),
        Some(_) => Err(Error::invalid_request(
            "type must be a string",
            path.at(".type"),
        )),
        None => Err(Error::invalid_request("type is missing", path.at(".type"))),
    }
}

/// One `tool_result` block as a tool reply.
fn split_tool_result<'a>(
    doc: &Doc<'a>,
    fields: &Fields<'a>,
    here: Loc,
    pricing: &Pricing<'_>,
    inner_fields: &mut Fields<'a>,
    s: &mut Session<'a>,
) -> Result<(), Error> {
    let (i, b) = (here.message.unwrap_or(0), here.block);
    let id = match get(fields, "tool_use_id") {
        Some(id) if kind(id) == Kind::String => raw::decode(id),
        _ => {
            return Err(Error::invalid_request(
                "a tool_result needs a string tool_use_id",
                here.at(".tool_use_id"),
            ))
        }
    };
    let block = Some(b as u32);
    let start = s.units.len() as u32;
    let shape = match get(fields, "content").map(|c| (kind(c), c)) {
        None | Some((Kind::Null, _)) => {
            s.units.push(string_unit(block, "\"\""));
            ContentShape::Text
        }
        Some((Kind::String, c)) => {
            s.units.push(string_unit(block, c));
            ContentShape::Text
        }
        Some((Kind::Array, c)) => {
            if let Some(mut items) = doc.object_items(c) {
                let mut k = 0;
                while let Some((inner, object)) = items.next_into(inner_fields) {
                    let loc = Loc {
                        inner: Some(k),
                        ..here
                    };
                    block_fields(object, loc)?;
                    let sub = Some(k as u32);
                    let ty = block_type(inner_fields, loc)?;
                    let unit =
                        block_unit(doc, inner, inner_fields, &ty, loc, b as u32, sub, pricing)?;
                    s.units.push(unit);
                    k += 1;
                }
            }
            ContentShape::Parts
        }
        Some(_) => {
            return Err(Error::invalid_request(
                "tool_result content must be a string or an array of blocks",
                here.at(".content"),
            ))
        }
    };
    // Priced as the tool message it stands for: role, tool_call_id and the block's other fields.
    let mut meta = MetaLen::default();
    meta.field("role", string_len_as_json("tool"));
    meta.field("tool_call_id", string_len_as_json(&id));
    for (key, value) in fields {
        if !matches!(key.as_ref(), "type" | "tool_use_id" | "content") {
            meta.field(key, doc.canonical_len(value));
        }
    }
    let meta = meta.total();
    let origin = Origin::Reply { part: b as u32 };
    let units = (start, s.units.len() as u32);
    let mut msg =
        super::units::logical(Some(i as u32), origin, Some(Role::Tool), shape, units, meta);
    msg.tool_call_id = Some(Box::new(id));
    s.messages.push(msg);
    Ok(())
}

/// The tool calls of a message's `tool_use` blocks, and its meta bytes with them (priced as
/// OpenAI `tool_calls`: `input` as a JSON string).
fn tool_calls_of<'a: 'c, 'c>(
    doc: &Doc<'a>,
    i: usize,
    calls: impl ExactSizeIterator<Item = (usize, &'c [(Cow<'a, str>, Raw<'a>)])>,
    base_meta: u64,
    fields: &Fields<'a>,
) -> (ToolCalls<'a>, u64) {
    if calls.len() == 0 {
        return (ToolCalls::None, base_meta);
    }
    let mut ids = CallIds::with_capacity(calls.len());
    let mut malformed = None;
    let mut array_len = 2 + calls.len() as u64 - 1;
    for (b, call) in calls {
        array_len += synthetic_call_len(doc, call);
        if malformed.is_some() {
            continue;
        }
        let bad =
            |why: Malformed, rest: &str| (why, message_path(i, &format!(".content[{b}]{rest}")));
        let id = get(call, "id").and_then(raw::string);
        let name_is_string = get(call, "name").is_some_and(|n| kind(n) == Kind::String);
        // `input` stands for OpenAI's `arguments`: an object is written as a JSON string.
        let arguments_is_string =
            get(call, "input").is_some_and(|v| matches!(kind(v), Kind::Object | Kind::String));
        match id {
            Some(id) if !id.is_empty() => {
                // A later defect makes the calls malformed: the ids added then do not count.
                if !ids.add(id) {
                    malformed = Some(bad(Malformed::DuplicateId, ".id"));
                } else if !name_is_string {
                    malformed = Some(bad(Malformed::NameNotString, ".name"));
                } else if !arguments_is_string {
                    malformed = Some(bad(Malformed::ArgumentsNotString, ".input"));
                }
            }
            _ => malformed = Some(bad(Malformed::IdMissing, ".id")),
        }
    }
    let mut meta = MetaLen::default();
    for (key, value) in fields {
        if key != "content" {
            meta.field(key, doc.canonical_len(value));
        }
    }
    meta.field("tool_calls", array_len);
    let tool_calls = match malformed {
        Some((why, path)) => ToolCalls::Malformed {
            why,
            path: Box::new(path.into()),
        },
        None => ToolCalls::Valid(Box::new(ids.into_vec().into())),
    };
    (tool_calls, meta.total())
}

/// The compact length of the OpenAI tool call a `tool_use` block stands for:
/// `{"id", "type": "function", "function": {"name", "arguments"}}`, `input` written as a JSON
/// string when it is an object. Counted from the block's bytes when every value in it is
/// written the way serde_json writes it back; else built and measured.
fn synthetic_call_len(doc: &Doc<'_>, call: &[(Cow<'_, str>, Raw<'_>)]) -> u64 {
    let len_of = |key: &str| match get(call, key) {
        None => Some(raw::ValueLen::NULL),
        Some(v) => raw::value_len(doc, v),
    };
    let counted = (|| {
        let (id, name, input) = (len_of("id")?, len_of("name")?, len_of("input")?);
        let is_object = get(call, "input").is_some_and(|v| kind(v) == Kind::Object);
        let arguments = if is_object {
            input.as_string()
        } else {
            input.len
        };
        let mut function = MetaLen::default();
        function.field("name", name.len);
        function.field("arguments", arguments);
        let mut synthetic = MetaLen::default();
        synthetic.field("id", id.len);
        synthetic.field("type", string_len_as_json("function"));
        synthetic.field("function", function.total());
        Some(synthetic.total())
    })();
    counted.unwrap_or_else(|| {
        let value = |key: &str| -> Value {
            get(call, key)
                .and_then(|v| serde_json::from_str(v).ok())
                .unwrap_or(Value::Null)
        };
        let input = value("input");
        let arguments = match &input {
            Value::Object(_) => Value::String(input.to_string()),
            other => other.clone(),
        };
        compact_len(&json!({
            "id": value("id"),
            "type": "function",
            "function": {"name": value("name"), "arguments": arguments},
        }))
    })
}

/// One content block as a unit: text is text, an image is priced by its header, a document
/// is an attachment, anything else an opaque part priced as JSON. `ty` is the block's type, as
/// its caller read it ([`block_type`]: read once a block).
#[allow(clippy::too_many_arguments)]
fn block_unit<'a>(
    doc: &Doc<'a>,
    block: Raw<'a>,
    fields: &Fields<'a>,
    ty: &str,
    path: Loc,
    part: u32,
    sub: Option<u32>,
    pricing: &Pricing<'_>,
) -> Result<Unit<'a>, Error> {
    // The path is written only when there is an error.
    let string_at = |v: Option<Raw<'a>>, what: &str, rest: &str| -> Result<Raw<'a>, Error> {
        v.filter(|v| kind(v) == Kind::String).ok_or_else(|| {
            Error::invalid_request(format!("{what} must be a string"), path.at(rest))
        })
    };
    let unit = |kind: UnitKind, text: TextSource<'a>, bytes: u64| Unit {
        part: Some(part),
        sub,
        kind,
        text,
        bytes,
        change: Change::Keep,
    };
    Ok(match ty {
        "text" => {
            let text = string_at(get(fields, "text"), "text", ".text")?;
            let mut u = text_unit(Some(part), text);
            u.sub = sub;
            u
        }
        "image" => {
            let source = get(fields, "source").ok_or_else(|| {
                Error::invalid_request("an image needs a source", path.at(".source"))
            })?;
            let source = doc.fields(source).unwrap_or_default();
            let kind = match get(&source, "type").and_then(raw::string).as_deref() {
                Some("base64") => {
                    let data = string_at(get(&source, "data"), "source.data", ".source.data")?;
                    let media = get(&source, "media_type").and_then(raw::string);
                    let data = raw::decode(data);
                    // What the data URL it stands for would cost when unreadable.
                    let url_len = "data:".len()
                        + media.as_deref().unwrap_or("image/*").len()
                        + ";base64,".len()
                        + data.len();
                    pricing.base64(&data, url_len)
                }
                Some("url") => {
                    let url = string_at(get(&source, "url"), "source.url", ".source.url")?;
                    pricing.url(&raw::decode(url), None)
                }
                _ => {
                    return Err(Error::invalid_request(
                        "image source type must be \"base64\" or \"url\"",
                        path.at(".source.type"),
                    ))
                }
            };
            let bytes = super::image_price(&kind).map_or(0, |p| p.budget_bytes);
            unit(kind, TextSource::NONE, bytes)
        }
        "document" => {
            if let Some(kind) = document_file(doc, fields, pricing) {
                let bytes = super::image_price(&kind).map_or(0, |p| p.budget_bytes);
                return Ok(unit(kind, TextSource::NONE, bytes));
            }
            let title = get(fields, "title")
                .and_then(raw::string)
                .unwrap_or(Cow::Borrowed("document"));
            let source: Option<Raw<'a>> = get(fields, "source");
            let source_fields: Fields<'a> = source.and_then(|s| doc.fields(s)).unwrap_or_default();
            let body: Raw<'a> =
                match get(&source_fields, "data").or_else(|| get(&source_fields, "url")) {
                    Some(b) if kind(b) == Kind::String => b,
                    _ => source.unwrap_or(EMPTY_STRING),
                };
            let body_len = if kind(body) == Kind::String {
                str_len(body)
            } else {
                canonical_len(body)
            };
            let bytes =
                (crate::model::ATTACHMENT_PREFIX.len() + 1 + title.len() + 1) as u64 + body_len;
            unit(
                UnitKind::Attachment,
                TextSource::Document(Box::new(crate::model::Document { title, body })),
                bytes,
            )
        }
        _ => unit(UnitKind::Other, TextSource::NONE, canonical_len(block)),
    })
}

/// A `document` block holding a PDF (a `base64` source, or a `url` or `file` source like a
/// remote image), priced by its pages; `None` for text documents, which stay attachments.
fn document_file<'a>(
    doc: &Doc<'a>,
    fields: &Fields<'a>,
    pricing: &Pricing<'_>,
) -> Option<UnitKind> {
    let source = doc.fields(get(fields, "source")?)?;
    let string = |key: &str| get(&source, key).and_then(raw::string);
    let title = get(fields, "title").and_then(raw::string);
    let (data, name, media);
    let part = match string("type").as_deref() {
        Some("base64") => {
            (data, media) = (string("data")?, string("media_type"));
            super::FilePart {
                data: Some(&data),
                media_type: media.as_deref(),
                filename: title.as_deref(),
                ..Default::default()
            }
        }
        Some("url") | Some("file") => {
            name = string("url").or_else(|| string("file_id"))?;
            super::FilePart {
                name: Some(&name),
                filename: title.as_deref(),
                default_kind: Some(crate::probe::file::FileKind::Document),
                ..Default::default()
            }
        }
        _ => return None,
    };
    part.price(pricing)
}

/// The body of a document without a source.
const EMPTY_STRING: Raw<'static> = "\"\"";

/// Anthropic's blocks, for the shared mapping of the answer ([`super::parts`]).
struct Blocks;

impl PartWriter for Blocks {
    fn text(&self, s: &str) -> String {
        typed_text("text", s)
    }

    fn text_key(&self, fields: &Fields<'_>) -> Option<&'static str> {
        (get(fields, "type").and_then(raw::string).as_deref() == Some("text")).then_some("text")
    }

    /// A kept `tool_result` block, its content rebuilt when something in it changed.
    fn reply(&self, doc: &Doc<'_>, block: Raw<'_>, session: &Session<'_>, m: usize) -> String {
        let units = session.units_of(m);
        if units.iter().all(|u| u.change == Change::Keep) {
            return block.to_owned();
        }
        let fields = doc.fields(block).unwrap_or_default();
        let content = if session.messages[m].shape == ContentShape::Parts {
            let inner = get(&fields, "content")
                .and_then(|c| doc.items(c))
                .unwrap_or_default();
            let blocks: Vec<String> = units
                .iter()
                .filter_map(|u| self.changed(doc, inner[u.sub? as usize], u))
                .collect();
            array(&blocks)
        } else {
            match &units[0].change {
                Change::Text(s) => json_string(s),
                _ => "\"\"".to_owned(),
            }
        };
        object_with(&fields, "content", Some(&content))
    }
}

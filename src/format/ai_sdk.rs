//! The Vercel AI SDK's `ModelMessage[]` (AI SDK 5 and 6: what `generateText` and `streamText`
//! take as `messages` and answer in `response.messages`).
//!
//! Roles `system` (string content), `user` (text, `image` and `file` parts), `assistant` (text,
//! `file`, `reasoning`, `tool-call`, `tool-approval-request` parts, and the `tool-result` parts
//! of provider-executed tools) and `tool` (`tool-result` and `tool-approval-response` parts).
//! Like an Anthropic message, a message can hold several things the neutral model keeps apart:
//! an assistant message's `tool-call` parts are the tool calls of its other parts, and each part
//! of a tool message is a tool reply of its own. So each message is split into logical
//! messages and the plan is mapped back onto the caller's parts, in the caller's order:
//!
//! ```text
//! messages → logical messages → pipeline → kept parts per message → first message (after the
//!          system messages) a user message
//! ```
//!
//! A `tool-approval-request` is paired like a call: its `approvalId` is answered by the
//! `tool-approval-response` of a later tool message, and the two are kept or dropped together
//! with the call they gate. A call whose approval is answered but whose result has not come yet
//! (the SDK runs it on the next call) is complete; so is a call whose result came without its
//! approval's response.
//!
//! Costs (bytes): a message costs the compact JSON of its fields other than `content`, plus its
//! content — string content its text; a text part its text; an image (an `image` part, or a
//! `file` part with an `image/*` type) its price by its pixels; a PDF or audio `file` part by its
//! pages or seconds; another `file` part is an attachment (`Attached file: {filename}\n` and its
//! data); `tool-call` and `tool-approval-request` parts their compact JSON, counted with the
//! message's calls; every other part (`reasoning`, provider-executed calls and results) its
//! compact JSON. A tool message costs its own fields once per part; a `tool-result` its compact
//! JSON with the text of a `text` or `error-text` output, and the texts and media of a `content`
//! output, counted as their text and priced by their pixels (pages, seconds) instead. Reasoning
//! parts are never edited and stay with their message.
//!
//! A server compaction written back by the SDK's providers (an Anthropic `compaction` block as
//! a `text` part with `providerOptions.anthropic.type: "compaction"`, an OpenAI `compaction`
//! item as a `custom` part of kind `openai.compaction`) is the conversation before it
//! ([`Message::compaction`]): priced as its JSON, never edited, and the answer may start with
//! its assistant message.

use super::calls::{part_call_names, CallIds};
use super::split::{split_all, Input, Step};
use super::units::{opaque, priced, string_unit, text_unit};
use super::{message_path, role_token, Adapter, Logical, Pricing, Rebuilt, Traits, Words};
use crate::error::Error;
use crate::model::{
    ContentShape, Malformed, Message, Origin, Role, Session, TextSource, ToolCalls, Unit, UnitKind,
    ATTACHMENT_PREFIX,
};
use crate::raw::{
    self, canonical_len, get, kind, object_len_without, str_len, Doc, Fields, Kind, Raw,
};
use crate::repair::Repaired;
use crate::tokens::Measure;

mod approvals;
mod rebuild;
use std::borrow::Cow;

pub struct AiSdk;

static TRAITS: Traits = Traits {
    name: "ai-sdk",
    outside_system: None,
    merges_turns: true,
    user_turn_first: true,
    trims_newest_alone: true,
    content_key: "content",
    reply_items: Some(".output.value"),
    words: Words {
        call: "tool-call",
        reply: "tool-result",
        orphan_removed: "orphan_tool_result_removed",
        incomplete_calls_removed: "incomplete_tool_calls_removed",
        incomplete_reply_removed: "incomplete_tool_result_removed",
        reply_of_incomplete: "result of the incomplete tool calls of",
    },
    tool_inputs: super::ToolInputs {
        list: Some("content"),
        call_type: Some("tool-call"),
        holder: &[],
        key: "input",
        empty: "{}",
    },
    user_text: [r#"{"role":"user","content":[{"type":"text","text":"#, "}]}"],
    part_types: &[
        "tool-call",
        "tool-result",
        "tool-approval-request",
        "tool-approval-response",
        "reasoning",
    ],
    part_keys: &[],
    rebuilds_messages: true,
    plain: super::Plain {
        user: "user",
        model: "assistant",
        other_roles: &["system"],
        text_key: "content",
        text_parts: false,
        extra: None,
    },
    stand_in: super::StandIn {
        text_keys: &["content", "text", "value"],
        data_keys: &["input"],
    },
    breakpoints: super::Breakpoints::OpenAi(super::openai_cache::Wire::AiSdk),
    turns: super::turns::AI_SDK,
};

impl Adapter for AiSdk {
    fn traits(&self) -> &'static Traits {
        &TRAITS
    }

    fn split<'a>(&self, input: &Input<'a, '_>) -> Result<Session<'a>, Error> {
        split_all(input, "message", input.session(), split_message)
    }

    fn repair<'a>(&self, session: &mut Session<'a>) -> Repaired<'a> {
        approvals::settle_approvals(session);
        crate::repair::repair(session)
    }

    fn settle(&self, session: &Session<'_>, kept: &mut [bool]) -> Vec<usize> {
        super::drop_before_first_user(session, kept)
    }

    /// A message's fields but `content`, with its `tool-call` and `tool-approval-request`
    /// parts (whole) as its calls; a tool reply's few fields cost their bytes, an upper bound.
    fn meta_cost(&self, doc: &Doc<'_>, at: Logical<'_, '_>, measure: &Measure) -> (u64, u64) {
        let msg = at.msg;
        match (msg.origin, at.input) {
            (Origin::Parts, Some(m)) => {
                super::blocks_meta_cost(doc, m, "content", is_call_part, measure)
            }
            (Origin::Whole, Some(m)) => {
                let fields = doc.fields(m).unwrap_or_default();
                let (base, _) = super::fields_cost(&fields, &["content"], "", measure);
                (base, base)
            }
            _ => (msg.meta_bytes, msg.meta_without_calls),
        }
    }

    fn call_names(&self, doc: &Doc<'_>, session: &Session<'_>, m: usize) -> Vec<String> {
        part_call_names(doc, session, m, "content", "toolName", |part, f| {
            (part_type(f).as_deref() == Some("tool-call")).then_some(part)
        })
    }

    fn rebuild<'a>(&self, doc: &Doc<'a>, session: &Session<'a>, kept: &[bool]) -> Rebuilt {
        rebuild::rebuild(doc, session, kept)
    }
}

/// Buffers for the fields of the parts inside a message, reused from message to message (the
/// message's own fields come in its [`Step`]).
#[derive(Default)]
struct Scratch<'a> {
    part: Fields<'a>,
    /// The units of the message's parts other than calls and replies.
    units: Vec<Unit<'a>>,
}

fn part_type<'a>(fields: &[(Cow<'a, str>, Raw<'a>)]) -> Option<Cow<'a, str>> {
    get(fields, "type").and_then(raw::string)
}

/// Whether a part is one of its message's calls: a `tool-call` the client runs, or a
/// `tool-approval-request`.
fn is_call_part(fields: &[(Cow<'_, str>, Raw<'_>)]) -> bool {
    match part_type(fields).as_deref() {
        Some("tool-call") => !provider_executed(fields),
        Some("tool-approval-request") => true,
        _ => false,
    }
}

fn provider_executed(fields: &[(Cow<'_, str>, Raw<'_>)]) -> bool {
    get(fields, "providerExecuted").is_some_and(|v| v == "true")
}

/// The format a part type that is not the SDK's was meant for.
fn meant_for_another(part_type: &str) -> Option<&'static str> {
    // The SDK's parts: its own, and those it shares with other formats.
    const SDK: &[&str] = &["text", "image", "file", "custom", "reasoning-file"];
    if SDK.contains(&part_type) || TRAITS.part_types.contains(&part_type) {
        return None;
    }
    super::meant_for(part_type, TRAITS.name)
}

fn split_message<'a>(step: Step<'a, '_, Scratch<'a>>, s: &mut Session<'a>) -> Result<(), Error> {
    let (doc, pricing, i, fields) = (step.doc, step.pricing, step.i, step.fields);
    let scratch = step.scratch;
    let role_raw = role_token(fields, i)?;
    let role = match raw::decode(role_raw).as_ref() {
        "system" => Some(Role::System),
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        "tool" => Some(Role::Tool),
        // Repair removes a message of a role the SDK does not know.
        _ => None,
    };
    if get(fields, "tool_calls").is_some() {
        return Err(Error::invalid_request(
            "tool_calls is not part of the AI SDK format: tool calls are tool-call parts of the \
             assistant's content (is this an OpenAI chat message? pass format=\"openai\")",
            message_path(i, ".tool_calls"),
        ));
    }
    if get(fields, "content").is_none() && get(fields, "parts").is_some() {
        return Err(Error::invalid_request(
            "a message holds content, not parts (this message is shaped like Gemini contents \
             or an AI SDK UIMessage: pass format=\"gemini\", or convertToModelMessages first)",
            message_path(i, ".parts"),
        ));
    }
    let base_meta = object_len_without(fields, &["content"]);
    let logical = |origin, shape, units, meta_bytes, tool_calls| Message {
        meta_without_calls: base_meta,
        tool_calls,
        ..super::units::logical(Some(i as u32), origin, role, shape, units, meta_bytes)
    };
    let start = s.units.len() as u32;
    let whole = |shape| {
        (
            Origin::Whole,
            shape,
            (start, start),
            base_meta,
            ToolCalls::None,
        )
    };
    let parts = match get(fields, "content").map(|c| (kind(c), c)) {
        None => {
            let (o, sh, u, m, c) = whole(ContentShape::Absent);
            s.messages.push(logical(o, sh, u, m, c));
            return Ok(());
        }
        Some((Kind::Null, _)) => {
            let (o, sh, u, m, c) = whole(ContentShape::Null);
            s.messages.push(logical(o, sh, u, m, c));
            return Ok(());
        }
        Some((Kind::String, c)) if role != Some(Role::Tool) => {
            s.units.push(string_unit(None, c));
            let units = (start, start + 1);
            let msg = logical(
                Origin::Whole,
                ContentShape::Text,
                units,
                base_meta,
                ToolCalls::None,
            );
            s.messages.push(msg);
            return Ok(());
        }
        Some((Kind::Array, c)) => c,
        Some(_) => {
            let what = if role == Some(Role::Tool) {
                "a tool message's content must be an array of tool-result and \
                 tool-approval-response parts"
            } else {
                "content must be a string or an array of parts"
            };
            return Err(Error::invalid_request(what, message_path(i, ".content")));
        }
    };
    scratch.units.clear();
    // The message's calls: (part index, the part, its fields) of each, checked below.
    let mut calls: Vec<(usize, Raw<'a>, Fields<'a>)> = Vec::new();
    let mut b = 0;
    let mut compaction = false;
    if let Some(mut items) = doc.object_items(parts) {
        while let Some((part, object)) = items.next_into(&mut scratch.part) {
            let here = |rest: &str| message_path(i, &format!(".content[{b}]{rest}"));
            if !object {
                return Err(Error::invalid_request(
                    "each content part must be a JSON object",
                    here(""),
                ));
            }
            let fields = &scratch.part;
            let ty = match get(fields, "type") {
                Some(t) if kind(t) == Kind::String => raw::decode(t),
                Some(_) => {
                    return Err(Error::invalid_request(
                        "type must be a string",
                        here(".type"),
                    ))
                }
                None => return Err(Error::invalid_request("type is missing", here(".type"))),
            };
            if let Some(format) = meant_for_another(&ty) {
                return Err(Error::invalid_request(
                    format!(
                        "a {ty:?} part belongs to the {format:?} format, not to AI SDK model \
                         messages: pass format={format:?}"
                    ),
                    here(".type"),
                ));
            }
            match (role, ty.as_ref()) {
                // A message of a role the SDK does not know goes whole in repair.
                (None, _) => scratch
                    .units
                    .push(part_unit(doc, i, b, part, fields, &ty, pricing)?),
                (Some(Role::Tool), "tool-result") => {
                    let reply = ToolPart {
                        i,
                        b,
                        part,
                        fields,
                        base_meta,
                    };
                    reply.split_result(doc, pricing, s)?
                }
                (Some(Role::Tool), "tool-approval-response") => {
                    let reply = ToolPart {
                        i,
                        b,
                        part,
                        fields,
                        base_meta,
                    };
                    reply.split_approval_response(s)?
                }
                (Some(Role::Tool), other) => {
                    return Err(Error::invalid_request(
                        format!(
                            "a tool message holds tool-result and tool-approval-response parts, \
                             not {other:?}"
                        ),
                        here(".type"),
                    ))
                }
                (_, "tool-result" | "tool-approval-response")
                    if role != Some(Role::Assistant) || ty == "tool-approval-response" =>
                {
                    return Err(Error::invalid_request(
                        format!("a {ty:?} part belongs to a tool message"),
                        here(".type"),
                    ))
                }
                (_, "tool-call" | "tool-approval-request") if role != Some(Role::Assistant) => {
                    return Err(Error::invalid_request(
                        format!("a {ty:?} part belongs to an assistant message"),
                        here(".type"),
                    ))
                }
                _ if is_call_part(fields) => calls.push((b, part, fields.clone())),
                _ if is_compaction(doc, fields, &ty) => {
                    // The provider's own summary: kept as written, priced as its JSON.
                    compaction = true;
                    scratch
                        .units
                        .push(opaque(Some(b as u32), None, canonical_len(part)));
                }
                _ => scratch
                    .units
                    .push(part_unit(doc, i, b, part, fields, &ty, pricing)?),
            }
            b += 1;
        }
    }
    if role == Some(Role::Tool) {
        if b == 0 {
            // No replies: an empty message, which repair removes.
            let msg = logical(
                Origin::Whole,
                ContentShape::Parts,
                (start, start),
                base_meta,
                ToolCalls::None,
            );
            s.messages.push(msg);
        }
        return Ok(());
    }
    let start = s.units.len() as u32;
    s.units.append(&mut scratch.units);
    let (tool_calls, meta) = tool_calls_of(i, &calls, base_meta);
    let units = (start, s.units.len() as u32);
    let mut msg = logical(Origin::Parts, ContentShape::Parts, units, meta, tool_calls);
    msg.compaction = compaction;
    s.messages.push(msg);
    Ok(())
}

/// A server compaction as the SDK's providers write it back: an Anthropic `compaction` block
/// is a `text` part with `providerOptions.anthropic.type` `"compaction"`; an OpenAI Responses
/// `compaction` item a `custom` part of kind `"openai.compaction"`.
fn is_compaction(doc: &Doc<'_>, fields: &Fields<'_>, ty: &str) -> bool {
    match ty {
        "custom" => {
            get(fields, "kind").and_then(raw::string).as_deref() == Some("openai.compaction")
        }
        "text" => (|| {
            let options = doc.fields(get(fields, "providerOptions")?)?;
            let anthropic = doc.fields(get(&options, "anthropic")?)?;
            Some(get(&anthropic, "type").and_then(raw::string)? == "compaction")
        })()
        .unwrap_or(false),
        _ => false,
    }
}

/// The calls of an assistant message (its `tool-call` and `tool-approval-request` parts), and
/// its meta bytes with them: each call's compact JSON. A call needs a non-empty string
/// `toolCallId` and a string `toolName`; an approval request a non-empty string `approvalId`
/// and a string `toolCallId`; ids are unique.
fn tool_calls_of<'a>(
    i: usize,
    calls: &[(usize, Raw<'a>, Fields<'a>)],
    base_meta: u64,
) -> (ToolCalls<'a>, u64) {
    if calls.is_empty() {
        return (ToolCalls::None, base_meta);
    }
    let mut ids = CallIds::with_capacity(calls.len());
    let mut malformed = None;
    let mut meta = base_meta;
    for (b, part, fields) in calls {
        meta += canonical_len(part);
        if malformed.is_some() {
            continue;
        }
        let bad = |why, rest: &str| (why, message_path(i, &format!(".content[{b}]{rest}")));
        let request = part_type(fields).as_deref() == Some("tool-approval-request");
        let (id_key, name_key) = if request {
            ("approvalId", "toolCallId")
        } else {
            ("toolCallId", "toolName")
        };
        let id = match get(fields, id_key).and_then(raw::string) {
            Some(id) if !id.is_empty() => id,
            _ => {
                malformed = Some(bad(Malformed::IdMissing, &format!(".{id_key}")));
                continue;
            }
        };
        if !get(fields, name_key).is_some_and(|n| kind(n) == Kind::String) {
            malformed = Some(bad(Malformed::NameNotString, &format!(".{name_key}")));
            continue;
        }
        if !ids.add(id) {
            malformed = Some(bad(Malformed::DuplicateId, &format!(".{id_key}")));
        }
    }
    let tool_calls = match malformed {
        Some((why, path)) => ToolCalls::Malformed {
            why,
            path: Box::new(path.into()),
        },
        None => ToolCalls::Valid(Box::new(ids.into_vec().into())),
    };
    (tool_calls, meta)
}

/// A reply part of a tool message (`tool-result`, `tool-approval-response`): part `b` of the
/// caller's message `i`, its fields, and what its logical message shares with the message.
struct ToolPart<'a, 'f> {
    i: usize,
    b: usize,
    part: Raw<'a>,
    fields: &'f Fields<'a>,
    base_meta: u64,
}

impl<'a> ToolPart<'a, '_> {
    /// The part's string field `key`, or an error naming it (`what` names the part).
    fn string(&self, key: &str, what: &str) -> Result<Cow<'a, str>, Error> {
        get(self.fields, key)
            .filter(|v| kind(v) == Kind::String)
            .map(raw::decode)
            .ok_or_else(|| {
                Error::invalid_request(
                    format!("{what} needs a string {key}"),
                    message_path(self.i, &format!(".content[{}].{key}", self.b)),
                )
            })
    }

    /// The reply's logical message (`Origin::Reply { part: b }`) over `units`, answering `id`.
    fn reply(&self, units: (u32, u32), id: Cow<'a, str>) -> Message<'a> {
        let origin = Origin::Reply {
            part: self.b as u32,
        };
        let mut msg = super::units::logical(
            Some(self.i as u32),
            origin,
            Some(Role::Tool),
            ContentShape::Parts,
            units,
            self.base_meta,
        );
        msg.tool_call_id = Some(Box::new(id));
        msg
    }

    /// A `tool-approval-response` part as the reply to its `tool-approval-request`.
    fn split_approval_response(&self, s: &mut Session<'a>) -> Result<(), Error> {
        let id = self.string("approvalId", "a tool-approval-response")?;
        let start = s.units.len() as u32;
        s.units
            .push(opaque(Some(self.b as u32), None, canonical_len(self.part)));
        s.messages.push(self.reply((start, start + 1), id));
        Ok(())
    }

    /// A `tool-result` part as a tool reply: its JSON is one opaque unit, the text of a `text`
    /// or `error-text` output a text unit, and each text and medium of a `content` output a unit
    /// of its own (texts shrinkable, images priced by their pixels).
    fn split_result(
        &self,
        doc: &Doc<'a>,
        pricing: &Pricing<'_>,
        s: &mut Session<'a>,
    ) -> Result<(), Error> {
        let (b, fields, part) = (self.b, self.fields, self.part);
        let id = self.string("toolCallId", "a tool-result")?;
        let start = s.units.len() as u32;
        s.units.push(opaque(Some(b as u32), None, 0));
        // The JSON of what has a unit of its own, and what those units cost instead.
        let mut taken = 0u64;
        let output = get(fields, "output")
            .and_then(|o| doc.fields(o))
            .unwrap_or_default();
        let value = get(&output, "value");
        match part_type(&output).as_deref() {
            Some("text" | "error-text") => {
                if let Some(v) = value.filter(|v| kind(v) == Kind::String) {
                    taken += canonical_len(v);
                    s.units.push(text_unit(Some(b as u32), v));
                }
            }
            Some("content") => {
                let items = value.and_then(|v| doc.items(v)).unwrap_or_default();
                for (k, item) in items.into_iter().enumerate() {
                    let Some(f) = doc.fields(item) else { continue };
                    let sub = Some(k as u32);
                    let unit =
                        match part_type(&f).as_deref() {
                            Some("text") => get(&f, "text")
                                .filter(|t| kind(t) == Kind::String)
                                .map(|t| {
                                    let mut u = text_unit(Some(b as u32), t);
                                    u.sub = sub;
                                    u
                                }),
                            Some(ty) => media_of(ty, &f, pricing)
                                .map(|kind| priced(Some(b as u32), sub, kind)),
                            None => None,
                        };
                    if let Some(unit) = unit {
                        taken += canonical_len(item);
                        s.units.push(unit);
                    }
                }
            }
            _ => {}
        }
        s.units[start as usize].bytes = canonical_len(part).saturating_sub(taken);
        let end = s.units.len() as u32;
        s.messages.push(self.reply((start, end), id));
        Ok(())
    }
}

/// The price of a medium of a tool result's `content` output (`media` and `image-data` with
/// base64 `data`, `image-url`, `file-data`, `file-url`): an image by its pixels, a PDF or audio
/// by its pages or seconds; `None` for anything else (priced with the result's JSON).
fn media_of<'a>(ty: &str, f: &Fields<'a>, pricing: &Pricing<'_>) -> Option<UnitKind> {
    let string = |key: &str| get(f, key).and_then(raw::string);
    let media = string("mediaType");
    let is_image = |m: &Option<Cow<'_, str>>| {
        m.as_deref()
            .is_some_and(|m| m.get(..5).is_some_and(|t| t.eq_ignore_ascii_case("image")))
    };
    match ty {
        "media" | "image-data" | "file-data" => {
            let data = string("data")?;
            if ty == "image-data" || is_image(&media) {
                return Some(price_image_data(&data, media.as_deref(), None, pricing));
            }
            super::FilePart {
                data: Some(&data),
                media_type: media.as_deref(),
                filename: string("filename").as_deref(),
                ..Default::default()
            }
            .price(pricing)
        }
        "image-url" => Some(pricing.url(&string("url")?, None)),
        "file-url" => {
            let url = string("url")?;
            if is_image(&media) {
                return Some(pricing.url(&url, None));
            }
            super::FilePart {
                name: Some(&url),
                media_type: media.as_deref(),
                ..Default::default()
            }
            .price(pricing)
        }
        _ => None,
    }
}

/// An image given as a string: a data URL or an http(s) URL, else bare base64 (what the data
/// URL it stands for costs when unreadable); `detail` is OpenAI's image detail.
fn price_image_data(
    data: &str,
    media: Option<&str>,
    detail: Option<&str>,
    pricing: &Pricing<'_>,
) -> UnitKind {
    if crate::probe::is_data_url(data) || crate::pricing::is_remote_url(data) {
        return pricing.url(data, detail);
    }
    let url_len = "data:".len() + media.unwrap_or("image/*").len() + ";base64,".len() + data.len();
    pricing.base64_with(data, url_len, detail)
}

/// The OpenAI image detail of an `image` or `file` part (`providerOptions.openai.imageDetail`,
/// which the SDK's OpenAI provider sends as the image's `detail`), when images are priced by an
/// OpenAI rule: another provider never sees it.
fn openai_detail<'a>(
    doc: &Doc<'a>,
    fields: &Fields<'a>,
    pricing: &Pricing<'_>,
) -> Option<Cow<'a, str>> {
    if !matches!(pricing.profile, crate::ImageProfile::OpenAi(_)) {
        return None;
    }
    let options = doc.fields(get(fields, "providerOptions")?)?;
    let openai = doc.fields(get(&options, "openai")?)?;
    get(&openai, "imageDetail").and_then(raw::string)
}

/// One part of a user, system or assistant message (not a call) as a unit.
fn part_unit<'a>(
    doc: &Doc<'a>,
    i: usize,
    b: usize,
    part: Raw<'a>,
    fields: &Fields<'a>,
    ty: &str,
    pricing: &Pricing<'_>,
) -> Result<Unit<'a>, Error> {
    let priced = |kind| priced(Some(b as u32), None, kind);
    let string = |key: &str| get(fields, key).and_then(raw::string);
    Ok(match ty {
        "text" => {
            let t = get(fields, "text")
                .filter(|t| kind(t) == Kind::String)
                .ok_or_else(|| {
                    Error::invalid_request(
                        "a text part needs a string text",
                        message_path(i, &format!(".content[{b}].text")),
                    )
                })?;
            text_unit(Some(b as u32), t)
        }
        "image" => match get(fields, "image").filter(|v| kind(v) == Kind::String) {
            Some(image) => priced(price_image_data(
                &raw::decode(image),
                string("mediaType").as_deref(),
                openai_detail(doc, fields, pricing).as_deref(),
                pricing,
            )),
            // A provider reference, or bytes the caller's binding did not turn into base64.
            None => opaque(Some(b as u32), None, canonical_len(part)),
        },
        "file" => file_unit(doc, b, part, fields, pricing),
        _ => opaque(Some(b as u32), None, canonical_len(part)),
    })
}

/// A `file` part: an image (an `image/*` media type) priced by its pixels, a PDF or audio by its
/// pages or seconds, any other file an attachment (its data its body).
fn file_unit<'a>(
    doc: &Doc<'a>,
    b: usize,
    part: Raw<'a>,
    fields: &Fields<'a>,
    pricing: &Pricing<'_>,
) -> Unit<'a> {
    let string = |key: &str| get(fields, key).and_then(raw::string);
    let media = string("mediaType");
    let filename = string("filename");
    let data_raw = get(fields, "data");
    // AI SDK 7 tags the data: {"type": "data", "data": ...} or {"type": "url", "url": ...}.
    let tagged = data_raw
        .filter(|d| kind(d) == Kind::Object)
        .and_then(|d| doc.fields(d));
    let data_raw = match &tagged {
        Some(t) => get(t, "data")
            .or_else(|| get(t, "url"))
            .or_else(|| get(t, "text")),
        None => data_raw,
    };
    let data = data_raw.and_then(raw::string);
    let priced = |kind| priced(Some(b as u32), None, kind);
    let is_image = media
        .as_deref()
        .is_some_and(|m| m.get(..5).is_some_and(|t| t.eq_ignore_ascii_case("image")));
    if let Some(data) = &data {
        if is_image {
            let detail = openai_detail(doc, fields, pricing);
            return priced(price_image_data(
                data,
                media.as_deref(),
                detail.as_deref(),
                pricing,
            ));
        }
        let remote = crate::pricing::is_remote_url(data);
        let file = super::FilePart {
            data: (!remote).then_some(data.as_ref()),
            name: remote.then_some(data.as_ref()),
            media_type: media.as_deref(),
            filename: filename.as_deref(),
            ..Default::default()
        };
        if let Some(kind) = file.price(pricing) {
            return priced(kind);
        }
    }
    let title = filename.unwrap_or(Cow::Borrowed("file"));
    let body = data_raw.unwrap_or(part);
    let body_len = if kind(body) == Kind::String {
        str_len(body)
    } else {
        canonical_len(body)
    };
    let bytes = (ATTACHMENT_PREFIX.len() + 1 + title.len() + 1) as u64 + body_len;
    Unit {
        kind: UnitKind::Attachment,
        text: TextSource::Document(Box::new(crate::model::Document { title, body })),
        bytes,
        ..opaque(Some(b as u32), None, 0)
    }
}

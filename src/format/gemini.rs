//! Gemini `contents`: `{"role": "user" | "model", "parts": [...]}`, in both spellings the SDKs
//! produce (REST camelCase `inlineData`, `functionCall`, `thoughtSignature`, …, and the Python
//! SDK's snake_case `inline_data`, `function_call`, `thought_signature`, …).
//!
//! Like an Anthropic message, a content holds several things the neutral model keeps apart: a
//! `model` content carries its `functionCall` parts among its other parts, and the `user`
//! content after it carries the `functionResponse` parts (besides, possibly, the user's next
//! words). So each content is split into logical messages — the `system_instruction` (request
//! key `system`: a string, a `Content`, a part or parts) is a pinned system message, `functionCall` parts are the tool calls of the
//! model content's other parts, each `functionResponse` is a tool reply, the rest of a user
//! content a user message — and the plan is mapped back onto the caller's parts, in the
//! caller's order:
//!
//! ```text
//! contents → logical messages → pipeline → kept parts per content → first content a user
//!          content, roles alternate (adjacent same-role contents merge)
//! ```
//!
//! Calls and responses are matched by `id` when a response has one, else by order and name
//! (the k-th response without an id answers the k-th call no id claims, and must carry its
//! name). Calls without an id get one made from their path (`messages[1].parts[0]`): it is only
//! the pipeline's, never written to the answer.
//!
//! Costs (bytes): a content costs the compact JSON of its fields other than `parts`, plus its
//! parts: a text part its text's UTF-8 length; an image (`inlineData` with an `image/*` type,
//! priced by its header; `fileData` with an `image/*` or no type, priced like a remote image)
//! its price; any other part its compact JSON — a `functionCall` (counted with the model
//! content's calls), a thought, a signed part, a PDF or audio clip (whose base64 is far more
//! than the 258 tokens per page or 32 per second Gemini bills, but cannot be read from a
//! header), a `functionResponse` (its images priced and the strings of its `response` counted as
//! their text — shrinkable like a tool message's — not as JSON). A user content split
//! into function responses and other parts costs its own fields once per piece.
//!
//! Thought parts (`thought: true`) and every part that carries a thought signature are opaque:
//! kept with their content byte for byte, never edited. New parts (a placeholder, the repair
//! note) are `{"text": ...}`, the same in both spellings.

use super::calls::part_call_names;
use super::split::{split_each, Input, Step};
use super::units::{opaque, priced, string_unit};
use super::{message_path, Adapter, Logical, Pricing, Rebuilt, Traits, Words};
use crate::error::Error;
use crate::model::{ContentShape, Malformed, Message, Origin, Role, Session, ToolCalls};
use crate::pricing::ImageProfile;
use crate::raw::{self, canonical_len, get, kind, object_len_without, Doc, Fields, Kind, Raw};
use crate::tokens::Measure;
use std::borrow::Cow;
use std::collections::HashSet;

mod media;
mod rebuild;

use media::{file_of, image_of, part_unit, plain_text_len};

pub struct Gemini;

static TRAITS: Traits = Traits {
    name: "gemini",
    outside_system: Some("the system instruction"),
    merges_turns: true,
    user_turn_first: true,
    trims_newest_alone: true,
    content_key: "parts",
    reply_items: Some(".functionResponse.parts"),
    words: Words {
        call: "function_call",
        reply: "function_response",
        orphan_removed: "orphan_function_response_removed",
        incomplete_calls_removed: "incomplete_function_calls_removed",
        incomplete_reply_removed: "incomplete_function_response_removed",
        reply_of_incomplete: "response to the incomplete function calls of",
    },
    tool_inputs: super::ToolInputs {
        list: Some("parts"),
        call_type: None,
        holder: &["functionCall", "function_call"],
        key: "args",
        empty: "{}",
    },
    user_text: [r#"{"role":"user","parts":[{"text":"#, "}]}"],
    part_types: &[],
    part_keys: &[
        "inline_data",
        "inlineData",
        "file_data",
        "fileData",
        "function_call",
        "functionCall",
        "function_response",
        "functionResponse",
    ],
    rebuilds_messages: true,
    plain: super::Plain {
        user: "user",
        model: "model",
        other_roles: &[],
        text_key: "parts",
        text_parts: true,
        extra: None,
    },
    stand_in: super::StandIn {
        text_keys: &["text"],
        data_keys: &["args", "response"],
    },
    breakpoints: super::Breakpoints::None,
    turns: super::turns::GEMINI,
};

impl Adapter for Gemini {
    fn traits(&self) -> &'static Traits {
        &TRAITS
    }

    fn call_names(&self, doc: &Doc<'_>, session: &Session<'_>, m: usize) -> Vec<String> {
        part_call_names(doc, session, m, "parts", "name", |_, part| call_of(part))
    }

    /// A content's fields but its parts (its role), with its `functionCall` parts (whole: name,
    /// args, id, signature) as its calls. A function response's and the system instruction's
    /// few fields cost their bytes, an upper bound.
    fn meta_cost(&self, doc: &Doc<'_>, at: Logical<'_, '_>, measure: &Measure) -> (u64, u64) {
        let (Origin::Parts, Some(message)) = (at.msg.origin, at.input) else {
            return (at.msg.meta_bytes, at.msg.meta_without_calls);
        };
        super::blocks_meta_cost(doc, message, "parts", |f| call_of(f).is_some(), measure)
    }

    /// `.function_response.parts` for a response part the caller wrote in snake_case (the
    /// Python SDK's `model_dump()`), read again from the caller's content (only when a report
    /// names an item inside a response).
    fn reply_items(&self, at: Logical<'_, '_>) -> Option<&'static str> {
        let camel = TRAITS.reply_items;
        let (Origin::Reply { part }, Some(message)) = (at.msg.origin, at.input) else {
            return camel;
        };
        let doc = Doc::from_validated(message, Vec::new());
        let fields = doc
            .fields(doc.root())
            .and_then(|content| get(&content, "parts"))
            .and_then(|parts| doc.items(parts))
            .and_then(|parts| parts.get(part as usize).and_then(|&p| doc.fields(p)));
        match fields {
            Some(f) => Some(media::spelled(
                &f,
                ".functionResponse.parts",
                ".function_response.parts",
            )),
            None => camel,
        }
    }

    /// Gemini 2.0 / 2.5 crop-unit tiles; `model` selects 1.5 or 3's `media_resolution`.
    fn default_profile(&self) -> ImageProfile {
        ImageProfile::Gemini
    }

    /// Responses without ids are matched to the calls of the content before them; for
    /// contents appended to a history, those are read from a split of the content before them
    /// alone (thrown away).
    fn split<'a>(&self, input: &Input<'a, '_>) -> Result<Session<'a>, Error> {
        let mut s = input.session();
        let mut scratch = Scratch::default();
        if let Some(system) = input.system() {
            split_system(input.doc, system, input.pricing, &mut scratch, &mut s)?;
        }
        let mut calls = match (input.previous(), input.first().checked_sub(1)) {
            (Some(previous), Some(p)) => calls_before(input, previous, p, &mut scratch)?,
            _ => Vec::new(),
        };
        split_each(input, "content", &mut scratch, &mut s, |step, s| {
            calls = split_content(step, &calls, s)?;
            Ok(())
        })?;
        Ok(s)
    }

    fn settle(&self, session: &Session<'_>, kept: &mut [bool]) -> Vec<usize> {
        super::drop_before_first_user(session, kept)
    }

    /// Contents of the same role that a drop left side by side merge, so roles alternate;
    /// those the caller wrote side by side stay as they are (Gemini takes them).
    fn rebuild<'a>(&self, doc: &Doc<'a>, session: &Session<'a>, kept: &[bool]) -> Rebuilt {
        super::merge::rebuild_merged(doc, session, kept, &rebuild::Parts, true)
    }
}

/// The value of a field given in either spelling (REST camelCase or snake_case).
fn pick<'a>(fields: &[(Cow<'a, str>, Raw<'a>)], camel: &str, snake: &str) -> Option<Raw<'a>> {
    get(fields, camel).or_else(|| get(fields, snake))
}

/// Whether a part carries a thought signature (in either spelling).
fn is_signed(fields: &[(Cow<'_, str>, Raw<'_>)]) -> bool {
    pick(fields, "thoughtSignature", "thought_signature").is_some_and(|v| kind(v) != Kind::Null)
}

/// Where a part is, for error paths (built only when there is an error).
#[derive(Debug, Clone, Copy)]
enum Loc {
    /// `messages[i].parts[p]`.
    Part(usize, usize),
    /// `system.parts[p]` (a `Content`) or `system[p]` (an array of parts).
    System { content: bool, part: usize },
    /// `system`, a single part.
    SystemPart,
}

impl Loc {
    fn at(self, rest: &str) -> String {
        match self {
            Loc::Part(i, p) => message_path(i, &format!(".parts[{p}]{rest}")),
            Loc::System {
                content: true,
                part,
            } => format!("system.parts[{part}]{rest}"),
            Loc::System {
                content: false,
                part,
            } => format!("system[{part}]{rest}"),
            Loc::SystemPart => format!("system{rest}"),
        }
    }
}

/// Buffers for the fields of the parts inside a content, reused from content to content (the
/// content's own fields come in its [`Step`]).
#[derive(Default)]
struct Scratch<'a> {
    part: Fields<'a>,
    inner: Fields<'a>,
}

/// A function call of a model content, for matching the responses of the next content.
#[derive(Debug, Clone)]
struct Call<'a> {
    /// The caller's id, when the call has one.
    id: Option<Cow<'a, str>>,
    name: Option<Cow<'a, str>>,
    /// The id the pipeline knows it by: the caller's, or one made from its path.
    key: Cow<'a, str>,
}

/// The system instruction: a string, a `Content` (`{"parts": [...]}`) or an array of parts.
fn split_system<'a>(
    doc: &Doc<'a>,
    system: Raw<'a>,
    pricing: &Pricing<'_>,
    scratch: &mut Scratch<'a>,
    s: &mut Session<'a>,
) -> Result<(), Error> {
    let start = s.units.len() as u32;
    // google-genai also takes a single Part as the system instruction.
    let single_part = kind(system) == Kind::Object
        && doc
            .fields(system)
            .is_some_and(|f| get(&f, "parts").is_none() && get(&f, "role").is_none());
    let (shape, meta) = match kind(system) {
        Kind::Null => return Ok(()),
        Kind::String => {
            s.units.push(string_unit(None, system));
            (ContentShape::Text, 0)
        }
        Kind::Object if single_part => {
            let fields = doc.fields(system).unwrap_or_default();
            if call_of(&fields).is_some() || response_of(&fields).is_some() {
                return Err(Error::invalid_request(
                    "a system instruction holds no function calls or responses",
                    "system",
                ));
            }
            let unit = part_unit(doc, system, &fields, Loc::SystemPart, 0, pricing)?;
            s.units.push(unit);
            (ContentShape::Parts, 0)
        }
        Kind::Object | Kind::Array => {
            let (parts, content) = if kind(system) == Kind::Object {
                let fields = doc.fields(system).unwrap_or_default();
                let parts = match get(&fields, "parts") {
                    None => None,
                    Some(p) if matches!(kind(p), Kind::Array | Kind::Null) => Some(p),
                    Some(_) => {
                        return Err(Error::invalid_request(
                            "system.parts must be an array of parts",
                            "system.parts",
                        ))
                    }
                };
                (parts, Some(object_len_without(&fields, &["parts"])))
            } else {
                (Some(system), None)
            };
            if let Some(mut items) = parts.and_then(|p| doc.object_items(p)) {
                let mut p = 0;
                while let Some((part, object)) = items.next_into(&mut scratch.part) {
                    let loc = Loc::System {
                        content: content.is_some(),
                        part: p,
                    };
                    if !object {
                        return Err(Error::invalid_request(
                            "each part must be a JSON object",
                            loc.at(""),
                        ));
                    }
                    if call_of(&scratch.part).is_some() || response_of(&scratch.part).is_some() {
                        return Err(Error::invalid_request(
                            "a system instruction holds no function calls or responses",
                            loc.at(""),
                        ));
                    }
                    let unit = part_unit(doc, part, &scratch.part, loc, p as u32, pricing)?;
                    s.units.push(unit);
                    p += 1;
                }
            }
            (ContentShape::Parts, content.unwrap_or(0))
        }
        _ => return Err(Error::invalid_request(
            "system must be a string, a Content ({\"parts\": [...]}), a part or an array of parts",
            "system",
        )),
    };
    s.messages.push(super::units::system_message(
        shape,
        (start, s.units.len() as u32),
        meta,
    ));
    Ok(())
}

fn call_of<'a>(fields: &[(Cow<'a, str>, Raw<'a>)]) -> Option<Raw<'a>> {
    pick(fields, "functionCall", "function_call")
}

fn response_of<'a>(fields: &[(Cow<'a, str>, Raw<'a>)]) -> Option<Raw<'a>> {
    pick(fields, "functionResponse", "function_response")
}

/// The calls of content `p`, `previous`, which comes right before the contents split (a
/// response without an id answers one of them).
fn calls_before<'a>(
    input: &Input<'a, '_>,
    previous: Raw<'a>,
    p: usize,
    scratch: &mut Scratch<'a>,
) -> Result<Vec<Call<'a>>, Error> {
    let mut fields = Fields::new();
    if !input.doc.read_fields(previous, &mut fields) {
        return Err(super::split::not_object("content", p));
    }
    let step = Step {
        doc: input.doc,
        pricing: input.pricing,
        i: p,
        message: previous,
        fields: &fields,
        scratch,
    };
    split_content(step, &[], &mut Session::default())
}

/// Splits content `i`; returns its calls when it is a model content (for the next content).
fn split_content<'a>(
    step: Step<'a, '_, Scratch<'a>>,
    previous: &[Call<'a>],
    s: &mut Session<'a>,
) -> Result<Vec<Call<'a>>, Error> {
    let (doc, pricing, i, fields) = (step.doc, step.pricing, step.i, step.fields);
    let scratch = step.scratch;
    let role_raw = match get(fields, "role") {
        Some(r) if kind(r) == Kind::String => r,
        Some(_) => {
            return Err(Error::invalid_request(
                "role must be a string",
                message_path(i, ".role"),
            ))
        }
        None => {
            return Err(Error::invalid_request(
                "role is missing (each content of a history needs role \"user\" or \"model\")",
                message_path(i, ".role"),
            ))
        }
    };
    let role = match raw::decode(role_raw).as_ref() {
        "user" => Role::User,
        "model" => Role::Assistant,
        other => {
            return Err(Error::invalid_request(
                format!(
                    "in the Gemini format a role is \"user\" or \"model\", not {other:?} (function \
                     responses are functionResponse parts of a user content; the system prompt is \
                     the system instruction, request key system)"
                ),
                message_path(i, ".role"),
            ))
        }
    };
    if get(fields, "content").is_some() && get(fields, "parts").is_none() {
        return Err(Error::invalid_request(
            "a Gemini content holds parts, not content (is this a chat message? pass its format)",
            message_path(i, ".content"),
        ));
    }
    let base_meta = object_len_without(fields, &["parts"]);
    let parts = match get(fields, "parts").map(|p| (kind(p), p)) {
        None | Some((Kind::Null, _)) => None,
        Some((Kind::Array, p)) => Some(p),
        Some(_) => {
            return Err(Error::invalid_request(
                "parts must be an array of parts",
                message_path(i, ".parts"),
            ))
        }
    };
    let logical = |units, meta_bytes, tool_calls| Message {
        physical: Some(i as u32),
        origin: Origin::Parts,
        role: Some(role),
        shape: ContentShape::Parts,
        units,
        meta_bytes,
        meta_without_calls: base_meta,
        tool_calls,
        tool_call_id: None,
        has_refusal: false,
        has_note: false,
        remove_tool_calls: false,
        compaction: false,
    };
    // The parts go straight to the split's units until a function response (a message of its
    // own, with units of its own) comes between; those after it wait in `units`. A list
    // gathered apart and then appended was held twice: 14× the input for one content of
    // 770,000 `{"text":"a"}` parts.
    let entry = s.units.len();
    let mut units = Vec::new();
    let mut direct = true;
    let mut calls: Vec<Call<'a>> = Vec::new();
    let mut calls_bytes = 0u64;
    let mut malformed: Option<(Malformed, String)> = None;
    // (logical message, name, path) of each response without an id, matched below.
    let mut unnamed: Vec<(usize, Option<Cow<'a, str>>, String)> = Vec::new();
    let mut response_ids: Vec<Cow<'a, str>> = Vec::new();
    let mut p = 0;
    if let Some(mut items) = parts.and_then(|parts| doc.object_items(parts)) {
        while let Some((part, object)) = items.next_into(&mut scratch.part) {
            let here = Loc::Part(i, p);
            if !object {
                return Err(Error::invalid_request(
                    "each part must be a JSON object",
                    here.at(""),
                ));
            }
            let fields = &scratch.part;
            if let Some(call) = call_of(fields) {
                if role != Role::Assistant {
                    return Err(Error::invalid_request(
                        "a functionCall part belongs to a model content",
                        here.at(""),
                    ));
                }
                calls_bytes += canonical_len(part);
                let key = if get(fields, "functionCall").is_some() {
                    ".functionCall"
                } else {
                    ".function_call"
                };
                let checked = check_call(doc, call, &calls, here, key);
                match checked {
                    Ok(c) => calls.push(c),
                    Err(bad) => {
                        malformed.get_or_insert(bad);
                    }
                }
            } else if let Some(response) = response_of(fields) {
                if role != Role::User {
                    return Err(Error::invalid_request(
                        "a functionResponse part belongs to a user content",
                        here.at(""),
                    ));
                }
                if direct {
                    units = s.units.split_off(entry);
                    direct = false;
                }
                let (id, name) = split_response(
                    doc,
                    part,
                    response,
                    here,
                    base_meta,
                    pricing,
                    &mut scratch.inner,
                    s,
                )?;
                let m = s.messages.len() - 1;
                match id {
                    Some(id) => {
                        response_ids.push(id.clone());
                        s.messages[m].tool_call_id = Some(Box::new(id));
                    }
                    None => unnamed.push((m, name, here.at(""))),
                }
            } else {
                let unit = part_unit(doc, part, fields, here, p as u32, pricing)?;
                if direct {
                    s.units.push(unit);
                } else {
                    units.push(unit);
                }
            }
            p += 1;
        }
    }
    if !unnamed.is_empty() {
        // The k-th response without an id answers the k-th call no response claims by id,
        // when it carries that call's name.
        let mut pool = previous.iter().filter(|c| {
            c.id.as_ref()
                .is_none_or(|id| !response_ids.iter().any(|r| r == id))
        });
        for (m, name, path) in unnamed {
            let key = match pool.next() {
                Some(call) if call.name.is_some() && call.name == name => call.key.clone(),
                _ => Cow::Owned(path),
            };
            s.messages[m].tool_call_id = Some(Box::new(key));
        }
    }
    let start = if direct { entry } else { s.units.len() } as u32;
    match role {
        Role::Assistant => {
            s.units.extend(units);
            let tool_calls = match (malformed, calls.is_empty()) {
                (Some((why, path)), _) => ToolCalls::Malformed {
                    why,
                    path: Box::new(path.into()),
                },
                (None, true) => ToolCalls::None,
                (None, false) => {
                    ToolCalls::Valid(Box::new(calls.iter().map(|c| c.key.clone()).collect()))
                }
            };
            let meta = if tool_calls == ToolCalls::None {
                base_meta
            } else {
                base_meta + calls_bytes
            };
            s.messages
                .push(logical((start, s.units.len() as u32), meta, tool_calls));
            Ok(calls)
        }
        _ => {
            // The user's own parts, unless the content is only function responses.
            if s.units.len() as u32 > start || !units.is_empty() || p == 0 {
                s.units.extend(units);
                s.messages.push(logical(
                    (start, s.units.len() as u32),
                    base_meta,
                    ToolCalls::None,
                ));
            }
            Ok(Vec::new())
        }
    }
}

/// Checks one `functionCall` (DESIGN §5 in Gemini's terms: an object, a string `name`, `args`
/// an object when given, a unique `id` when given) and names it for matching.
fn check_call<'a>(
    doc: &Doc<'a>,
    call: Raw<'a>,
    calls: &[Call<'a>],
    here: Loc,
    key: &str,
) -> Result<Call<'a>, (Malformed, String)> {
    let bad = |why: Malformed, rest: &str| (why, here.at(&format!("{key}{rest}")));
    let Some(fields) = doc.fields(call) else {
        return Err(bad(Malformed::NotObject, ""));
    };
    let id = match get(&fields, "id") {
        None => None,
        Some(v) if kind(v) == Kind::Null => None,
        Some(v) if kind(v) == Kind::String => Some(raw::decode(v)).filter(|id| !id.is_empty()),
        Some(_) => return Err(bad(Malformed::IdMissing, ".id")),
    };
    let name = match get(&fields, "name") {
        Some(n) if kind(n) == Kind::String => raw::decode(n),
        _ => return Err(bad(Malformed::NameNotString, ".name")),
    };
    if get(&fields, "args").is_some_and(|a| !matches!(kind(a), Kind::Object | Kind::Null)) {
        return Err(bad(Malformed::ArgumentsNotObject, ".args"));
    }
    if let Some(id) = &id {
        // A few calls are compared; a hostile content of thousands is rare enough.
        if calls.len() < 64 {
            if calls.iter().any(|c| c.id.as_ref() == Some(id)) {
                return Err(bad(Malformed::DuplicateId, ".id"));
            }
        } else {
            let seen: HashSet<&str> = calls.iter().filter_map(|c| c.id.as_deref()).collect();
            if seen.contains(id.as_ref()) {
                return Err(bad(Malformed::DuplicateId, ".id"));
            }
        }
    }
    let key = match &id {
        Some(id) => id.clone(),
        None => Cow::Owned(here.at("")),
    };
    Ok(Call {
        id,
        name: Some(name),
        key,
    })
}

/// A function response's `id` and `name`, when given.
type IdAndName<'a> = (Option<Cow<'a, str>>, Option<Cow<'a, str>>);

/// One `functionResponse` part as a tool reply: its JSON is one opaque unit, each string of its
/// `response` a text unit and each image among its `parts` a priced unit of its own. Returns the response's id and name.
#[allow(clippy::too_many_arguments)]
fn split_response<'a>(
    doc: &Doc<'a>,
    part: Raw<'a>,
    response: Raw<'a>,
    here: Loc,
    base_meta: u64,
    pricing: &Pricing<'_>,
    inner: &mut Fields<'a>,
    s: &mut Session<'a>,
) -> Result<IdAndName<'a>, Error> {
    let Loc::Part(i, p) = here else {
        unreachable!("responses are parts of contents")
    };
    let fields = doc
        .fields(response)
        .ok_or_else(|| Error::invalid_request("functionResponse must be an object", here.at("")))?;
    let id = match get(&fields, "id") {
        Some(v) if kind(v) == Kind::String => Some(raw::decode(v)).filter(|id| !id.is_empty()),
        _ => None,
    };
    let name = get(&fields, "name").and_then(raw::string);
    let start = s.units.len() as u32;
    s.units.push(opaque(Some(p as u32), None, 0));
    let mut images_json = 0u64;
    let mut text_bytes_total = 0u64;
    if let Some(mut items) = get(&fields, "parts").and_then(|parts| doc.object_items(parts)) {
        let mut k = 0u32;
        while let Some((item, object)) = items.next_into(inner) {
            if object {
                if let Some(text_bytes) = plain_text_len(doc, inner) {
                    // A text blob (the placeholder of an image that did not fit, written where
                    // a response's parts hold only media) costs its text.
                    images_json += canonical_len(item);
                    text_bytes_total += text_bytes;
                } else if let Some(kind) = file_of(doc, inner, pricing, None) {
                    // A PDF or audio blob: priced by its pages or seconds, like an image.
                    images_json += canonical_len(item);
                    s.units.push(priced(Some(p as u32), Some(k), kind));
                } else if let Some(kind) = image_of(doc, inner, pricing, None) {
                    let kind = kind.map_err(|(what, rest)| {
                        let fields = doc.fields(part).unwrap_or_default();
                        let key =
                            media::spelled(&fields, ".functionResponse", ".function_response");
                        Error::invalid_request(what, here.at(&format!("{key}.parts[{k}]{rest}")))
                    })?;
                    images_json += canonical_len(item);
                    s.units.push(priced(Some(p as u32), Some(k), kind));
                }
            }
            k += 1;
        }
    }
    // The strings of `response` (an `output`, a `result`, …) are its text: shrinkable like a
    // tool message's, and costed as their text.
    if let Some(response) = get(&fields, "response").and_then(|r| doc.fields(r)) {
        for (_, value) in response {
            if kind(value) == Kind::String {
                // The unit carries the text's bytes; the body, the rest of the JSON.
                images_json += canonical_len(value);
                s.units.push(string_unit(Some(p as u32), value));
            }
        }
    }
    s.units[start as usize].bytes =
        canonical_len(part).saturating_sub(images_json) + text_bytes_total;
    s.messages.push(super::units::logical(
        Some(i as u32),
        Origin::Reply { part: p as u32 },
        Some(Role::Tool),
        ContentShape::Parts,
        (start, s.units.len() as u32),
        base_meta,
    ));
    Ok((id, name))
}

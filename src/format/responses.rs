//! OpenAI Responses API input items (`format: "responses"`).
//!
//! The `input` list of a Responses request mixes messages with other items: the model's
//! `reasoning`, its calls (`function_call`, `custom_tool_call`, `computer_call`,
//! `local_shell_call`, `shell_call`, `apply_patch_call`, `mcp_approval_request`), their outputs
//! (`…_output`, `mcp_approval_response`), and items kept as written (`mcp_call`, hosted tool
//! calls, `compaction`, `item_reference`, unknown types). Each item is one logical message
//! (a message item keeps its role; the other items of the model's side are assistant messages,
//! outputs are tool replies), so every report entry is the caller's item index.
//!
//! What an item is to its *step* is the unit of atomicity: a step is a run of the model's items
//! (its reasoning, an assistant message, calls, hosted items) with the outputs of its calls,
//! up to the next user, system or developer message. After an output, the model's next item
//! starts a new step, unless the step has a reasoning item and the new item is not one (the
//! items one reasoning item led to stay together, even when a caller interleaves outputs). A
//! step is kept or dropped whole, so a reasoning item never loses the item after it and a call
//! never loses its output.
//!
//! Repair (this adapter's, [`Adapter::repair`]): an output that answers no call of its step is
//! removed; a call without an output is removed; then a reasoning item with nothing left after
//! it in its step is removed (named with the removed item that followed it, if any).
//!
//! Costs: a message item costs the compact JSON of its fields but `content` plus its content
//! (text parts their text, images their price, an `input_file` with `file_data` is an
//! attachment `Attached file: {filename}\n{file_data}`, other parts their JSON); an output item
//! the JSON of its fields but `output` plus its output (a string, parts as above, or a
//! computer screenshot's price); every other item its compact JSON. `instructions` (request key
//! `system`) costs `{"role":"system"}` plus its text.

use super::split::{split_all, Input, Step};
use super::units::{self, opaque, priced, string_unit, text_unit, Content};
use super::write::{array, json_string, object_with, typed_text};
use super::{
    fields_cost, message_path, role_token, Adapter, Logical, Out, Pricing, Rebuilt, Traits, Words,
};
use crate::error::Error;
use crate::model::{
    Change, ContentShape, ItemKind, Malformed, Message, Origin, Role, Session, TextSource,
    ToolCalls, Unit, UnitKind,
};
use crate::raw::Raw;
use crate::raw::{self, canonical_len, get, kind, object_len_without, str_len, Doc, Fields, Kind};
use crate::repair::{Repair, RepairAction, RepairReason, Repaired};
use crate::tokens::Measure;
use std::borrow::Cow;
use std::collections::HashMap;

mod repair;

use repair::{class, Class};

pub struct Responses;

static TRAITS: Traits = Traits {
    name: "responses",
    outside_system: Some("the instructions"),
    merges_turns: false,
    user_turn_first: false,
    trims_newest_alone: true,
    content_key: "content",
    reply_items: None,
    words: Words {
        call: "call",
        reply: "call output",
        orphan_removed: "orphan_call_output_removed",
        incomplete_calls_removed: "incomplete_call_removed",
        incomplete_reply_removed: "incomplete_call_output_removed",
        reply_of_incomplete: "output of the incomplete call",
    },
    tool_inputs: super::ToolInputs {
        list: None,
        call_type: Some("function_call"),
        holder: &[],
        key: "arguments",
        empty: "\"{}\"",
    },
    user_text: [
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"#,
        "}]}",
    ],
    part_types: &["input_text", "input_image", "input_file", "output_text"],
    part_keys: &[],
    rebuilds_messages: true,
    plain: super::Plain {
        user: "user",
        model: "assistant",
        other_roles: &["system", "developer"],
        text_key: "content",
        text_parts: false,
        extra: Some(("type", Some("message"))),
    },
    stand_in: super::StandIn {
        text_keys: &["content", "text", "arguments", "output", "refusal", "input"],
        data_keys: &[],
    },
    breakpoints: super::Breakpoints::OpenAi(super::openai_cache::Wire::Responses),
    turns: super::turns::RESPONSES,
};

/// Call item types, each answered by the output type of the same index in [`OUTPUTS`].
const CALLS: &[&str] = &[
    "function_call",
    "custom_tool_call",
    "computer_call",
    "local_shell_call",
    "shell_call",
    "apply_patch_call",
    "mcp_approval_request",
];

const OUTPUTS: &[&str] = &[
    "function_call_output",
    "custom_tool_call_output",
    "computer_call_output",
    "local_shell_call_output",
    "shell_call_output",
    "apply_patch_call_output",
    "mcp_approval_response",
];

/// The family of a call's output whose `output` is a computer screenshot.
const COMPUTER: u8 = 2;

impl Adapter for Responses {
    fn traits(&self) -> &'static Traits {
        &TRAITS
    }

    /// An output item's parts are its `output`.
    fn parts_key(&self, msg: &Message<'_>) -> &'static str {
        match msg.origin {
            Origin::Item(ItemKind::Output { .. }) => "output",
            _ => "content",
        }
    }

    fn call_names(&self, doc: &Doc<'_>, session: &Session<'_>, m: usize) -> Vec<String> {
        let msg = &session.messages[m];
        let (Origin::Item(ItemKind::Call { .. }), Some(p)) = (msg.origin, msg.physical) else {
            return Vec::new();
        };
        let fields = doc.fields(session.inputs[p as usize]).unwrap_or_default();
        get(&fields, "name")
            .and_then(raw::string)
            .map(|n| vec![n.into_owned()])
            .unwrap_or_default()
    }

    /// A message item's fields but its content, an output's but its output, and every other
    /// item whole (a call, a reasoning item: never edited, they cost what they say).
    fn meta_cost(&self, doc: &Doc<'_>, at: Logical<'_, '_>, measure: &Measure) -> (u64, u64) {
        let Some(item) = at.input else {
            return (0, 0); // the instructions: only their text
        };
        let fields = doc.fields(item).unwrap_or_default();
        let skip: &[&str] = match at.msg.origin {
            Origin::Item(ItemKind::Output { .. }) => &["output"],
            Origin::Item(_) => &[],
            _ => &["content"],
        };
        let (all, _) = fields_cost(&fields, skip, "", measure);
        (all, all)
    }

    fn split<'a>(&self, input: &Input<'a, '_>) -> Result<Session<'a>, Error> {
        let mut s = input.session();
        if let Some(system) = input.system() {
            split_instructions(system, &mut s)?;
        }
        split_all(input, "input item", s, split_item)
    }

    fn repair<'a>(&self, session: &mut Session<'a>) -> Repaired<'a> {
        repair::repair(session)
    }

    /// A step runs until the next message that is not the model's: only such a message
    /// closes the steps before it.
    fn closes_exchanges(&self, logicals: &[Message<'_>]) -> bool {
        !logicals.is_empty() && logicals.iter().all(|m| class(m) == Class::Turn)
    }

    fn rebuild<'a>(&self, doc: &Doc<'a>, session: &Session<'a>, kept: &[bool]) -> Rebuilt {
        (0..session.messages.len())
            .filter(|&m| kept[m])
            .filter_map(|m| rebuild_item(doc, session, m))
            .collect::<Vec<_>>()
            .into()
    }
}

/// Buffers for the fields of the parts inside an item, reused from item to item (the item's own
/// fields come in its [`Step`]).
#[derive(Default)]
struct Scratch<'a> {
    part: Fields<'a>,
}

fn split_instructions<'a>(system: Raw<'a>, s: &mut Session<'a>) -> Result<(), Error> {
    let start = s.units.len() as u32;
    match kind(system) {
        Kind::Null => return Ok(()),
        Kind::String => s.units.push(string_unit(None, system)),
        _ => {
            return Err(Error::invalid_request(
                "system (the Responses instructions) must be a string",
                "system",
            ))
        }
    }
    s.messages.push(super::units::system_message(
        ContentShape::Text,
        (start, s.units.len() as u32),
        super::SYSTEM_META,
    ));
    Ok(())
}

/// A logical message for item `i` with no content units yet.
fn item_message<'a>(i: usize, origin: Origin, role: Option<Role>) -> Message<'a> {
    let shape = ContentShape::Absent;
    units::logical(Some(i as u32), origin, role, shape, (0, 0), 0)
}

fn split_item<'a>(step: Step<'a, '_, Scratch<'a>>, s: &mut Session<'a>) -> Result<(), Error> {
    let (doc, i, item, fields) = (step.doc, step.i, step.message, step.fields);
    let item_type = match get(fields, "type") {
        None => None,
        Some(t) if kind(t) == Kind::String => Some(raw::decode(t)),
        Some(_) => {
            return Err(Error::invalid_request(
                "type must be a string",
                message_path(i, ".type"),
            ))
        }
    };
    let item_type = match item_type.as_deref() {
        // A bare `{"role", "content"}` is a message.
        None if get(fields, "role").is_some() => "message",
        None => {
            return Err(Error::invalid_request(
                "an input item needs a type (only a message may leave it out)",
                message_path(i, ".type"),
            ))
        }
        Some(t) => t,
    };
    if item_type == "message" {
        return split_message(step, s);
    }
    let (kind_, id_key) = if let Some(f) = CALLS.iter().position(|&c| c == item_type) {
        let id_key = if item_type == "mcp_approval_request" {
            "id"
        } else {
            "call_id"
        };
        (ItemKind::Call { family: f as u8 }, id_key)
    } else if let Some(f) = OUTPUTS.iter().position(|&c| c == item_type) {
        return split_output(step, f as u8, s);
    } else if item_type == "reasoning" {
        (ItemKind::Reasoning, "")
    } else if item_type == "item_reference" {
        (ItemKind::Reference, "")
    } else if item_type == "compaction" {
        (ItemKind::Compaction, "")
    } else {
        (ItemKind::Opaque, "")
    };
    let mut msg = item_message(i, Origin::Item(kind_), Some(Role::Assistant));
    msg.compaction = kind_ == ItemKind::Compaction;
    let start = s.units.len() as u32;
    msg.units = (start, start);
    // Never edited: the whole item is what it costs.
    msg.meta_bytes = doc.canonical_len(item);
    msg.meta_without_calls = msg.meta_bytes;
    if let ItemKind::Call { .. } = kind_ {
        msg.tool_calls = match get(fields, id_key).and_then(raw::string) {
            Some(id) if !id.is_empty() => ToolCalls::Valid(Box::new(Box::new([id]))),
            _ => ToolCalls::Malformed {
                why: Malformed::IdMissing,
                path: Box::new(message_path(i, &format!(".{id_key}")).into()),
            },
        };
    }
    s.messages.push(msg);
    Ok(())
}

fn split_message<'a>(step: Step<'a, '_, Scratch<'a>>, s: &mut Session<'a>) -> Result<(), Error> {
    let (doc, pricing, i, fields) = (step.doc, step.pricing, step.i, step.fields);
    let scratch = step.scratch;
    let role_raw = role_token(fields, i)?;
    let role = match raw::decode(role_raw).as_ref() {
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        "system" => Some(Role::System),
        "developer" => Some(Role::Developer),
        "tool" => {
            return Err(Error::invalid_request(
                "in the Responses format a tool's answer is an output item \
                 (function_call_output, …), not a message with role \"tool\"",
                message_path(i, ".role"),
            ))
        }
        _ => None,
    };
    if get(fields, "tool_calls").is_some() {
        return Err(Error::invalid_request(
            "tool_calls is not part of the Responses format: calls are function_call items",
            message_path(i, ".tool_calls"),
        ));
    }
    let mut msg = item_message(i, Origin::Whole, role);
    msg.meta_bytes = object_len_without(fields, &["content"]);
    msg.meta_without_calls = msg.meta_bytes;
    let start = s.units.len() as u32;
    let content = get(fields, "content");
    msg.shape = match units::content(doc, content, s) {
        Content::Read(shape) => shape,
        Content::Parts(c) => {
            split_parts(doc, i, "content", c, true, pricing, &mut scratch.part, s)?;
            ContentShape::Parts
        }
        Content::Other(_) => {
            return Err(Error::invalid_request(
                "content must be a string or an array of content parts",
                message_path(i, ".content"),
            ))
        }
    };
    msg.units = (start, s.units.len() as u32);
    s.messages.push(msg);
    Ok(())
}

/// An output item: a tool reply tied to its call by id, its `output` priced as content.
fn split_output<'a>(
    step: Step<'a, '_, Scratch<'a>>,
    family: u8,
    s: &mut Session<'a>,
) -> Result<(), Error> {
    let (doc, pricing, i, fields) = (step.doc, step.pricing, step.i, step.fields);
    let scratch = step.scratch;
    let id_key = match OUTPUTS[family as usize] {
        "mcp_approval_response" => "approval_request_id",
        // The SDK types name the call's id `id` here; the API's examples `call_id`.
        "local_shell_call_output" if get(fields, "call_id").is_none() => "id",
        _ => "call_id",
    };
    let id = raw::optional_string(get(fields, id_key)).map_err(|()| {
        Error::invalid_request(
            format!("{id_key} must be a string"),
            message_path(i, &format!(".{id_key}")),
        )
    })?;
    let mut msg = item_message(
        i,
        Origin::Item(ItemKind::Output { family }),
        Some(Role::Tool),
    );
    msg.tool_call_id = id.map(Box::new);
    msg.meta_bytes = object_len_without(fields, &["output"]);
    msg.meta_without_calls = msg.meta_bytes;
    let start = s.units.len() as u32;
    let output = get(fields, "output");
    msg.shape = match units::content(doc, output, s) {
        Content::Read(shape) => shape,
        Content::Parts(o) => {
            split_parts(doc, i, "output", o, false, pricing, &mut scratch.part, s)?;
            ContentShape::Parts
        }
        Content::Other(o) => {
            // A computer screenshot cannot become text: priced by its pixels, it goes only
            // with its step.
            let bytes = if family == COMPUTER {
                let screenshot = doc.fields(o).unwrap_or_default();
                let price = image_of(&screenshot, pricing)
                    .and_then(|k| super::image_price(&k))
                    .map(|p| p.budget_bytes);
                price.unwrap_or_else(|| canonical_len(o))
            } else {
                canonical_len(o)
            };
            s.units.push(opaque(None, None, bytes));
            ContentShape::Text
        }
    };
    msg.units = (start, s.units.len() as u32);
    s.messages.push(msg);
    Ok(())
}

/// The image an `input_image` part or a computer screenshot shows: `image_url` (a data URL
/// priced by its header, an http(s) URL like a remote image) or `file_id` (like a remote
/// image, or at its size in `image_sizes`).
fn image_of(fields: &Fields<'_>, pricing: &Pricing<'_>) -> Option<UnitKind> {
    let detail = get(fields, "detail").and_then(raw::string);
    if let Some(url) = get(fields, "image_url").and_then(raw::string) {
        return Some(pricing.url(&url, detail.as_deref()));
    }
    let file_id = get(fields, "file_id").and_then(raw::string)?;
    Some(pricing.remote(&file_id, detail.as_deref()))
}

/// The parts of `content` (a message) or `output` (an output item) as units. `strict`: a part
/// must say its type (message content); in an output a part without one is opaque.
#[allow(clippy::too_many_arguments)]
fn split_parts<'a>(
    doc: &Doc<'a>,
    i: usize,
    key: &str,
    parts: Raw<'a>,
    strict: bool,
    pricing: &Pricing<'_>,
    fields: &mut Fields<'a>,
    s: &mut Session<'a>,
) -> Result<(), Error> {
    let Some(mut items) = doc.object_items(parts) else {
        return Ok(());
    };
    let mut p = 0;
    while let Some((part, object)) = items.next_into(fields) {
        let here = |rest: &str| message_path(i, &format!(".{key}[{p}]{rest}"));
        if !object {
            return Err(Error::invalid_request(
                "each content part must be a JSON object",
                here(""),
            ));
        }
        let part_index = Some(p as u32);
        let part_type = match get(fields, "type") {
            Some(t) if kind(t) == Kind::String => raw::decode(t),
            Some(_) => {
                return Err(Error::invalid_request(
                    "type must be a string",
                    here(".type"),
                ))
            }
            None if strict => return Err(Error::invalid_request("type is missing", here(".type"))),
            None => {
                s.units.push(opaque(part_index, None, canonical_len(part)));
                p += 1;
                continue;
            }
        };
        let string_at = |key: &str| -> Result<Raw<'a>, Error> {
            get(fields, key)
                .filter(|v| kind(v) == Kind::String)
                .ok_or_else(|| {
                    Error::invalid_request(
                        format!("a {part_type} part needs a string {key}"),
                        here(&format!(".{key}")),
                    )
                })
        };
        let file_kind = match part_type.as_ref() {
            "input_file" | "input_audio" => file_unit(doc, fields, &part_type, pricing),
            _ => None,
        };
        let unit = match part_type.as_ref() {
            "input_text" | "output_text" => text_unit(part_index, string_at("text")?),
            "refusal" => string_unit(part_index, string_at("refusal")?),
            "input_image" => {
                let kind = image_of(fields, pricing).ok_or_else(|| {
                    Error::invalid_request(
                        "an input_image part needs a string image_url or file_id",
                        here(".image_url"),
                    )
                })?;
                priced(part_index, None, kind)
            }
            "input_file" | "input_audio" if file_kind.is_some() => {
                let kind = file_kind.expect("checked");
                priced(part_index, None, kind)
            }
            "input_file" => match get(fields, "file_data").filter(|v| kind(v) == Kind::String) {
                Some(body) => {
                    let title = get(fields, "filename")
                        .and_then(raw::string)
                        .unwrap_or(Cow::Borrowed("file"));
                    let bytes = (crate::model::ATTACHMENT_PREFIX.len() + 1 + title.len() + 1)
                        as u64
                        + str_len(body);
                    Unit {
                        part: part_index,
                        sub: None,
                        kind: UnitKind::Attachment,
                        text: TextSource::Document(Box::new(crate::model::Document {
                            title,
                            body,
                        })),
                        bytes,
                        change: Change::Keep,
                    }
                }
                // A file known by id or URL: what the provider reads is not here.
                None => opaque(part_index, None, canonical_len(part)),
            },
            other => {
                if let Some(format) = super::meant_for(other, "responses") {
                    return Err(Error::invalid_request(
                        format!(
                            "a {other:?} part belongs to the {format:?} format, not to Responses \
                             input items: pass format={format:?} (Responses parts are \
                             input_text, input_image, input_file, output_text, …)"
                        ),
                        here(".type"),
                    ));
                }
                if other == "text" {
                    return Err(Error::invalid_request(
                        "a \"text\" part belongs to the chat formats (\"openai\", \"anthropic\"); \
                         Responses text parts are input_text or output_text",
                        here(".type"),
                    ));
                }
                opaque(part_index, None, canonical_len(part))
            }
        };
        s.units.push(unit);
        p += 1;
    }
    Ok(())
}

/// An `input_file` holding a PDF or audio (`file_data`, `file_url`, `file_id`), or an
/// `input_audio` part (`input_audio.data`, or `data` on the part), priced by its pages or
/// seconds; `None` for other files (text files stay attachments).
fn file_unit<'a>(
    doc: &Doc<'a>,
    fields: &Fields<'a>,
    part_type: &str,
    pricing: &Pricing<'_>,
) -> Option<UnitKind> {
    let string = |f: &Fields<'a>, key: &str| get(f, key).and_then(raw::string);
    if part_type == "input_audio" {
        let inner = get(fields, "input_audio").and_then(|v| doc.fields(v));
        let data = inner
            .as_ref()
            .and_then(|f| string(f, "data"))
            .or_else(|| string(fields, "data"))?;
        let file = super::FilePart {
            data: Some(&data),
            media_type: Some("audio/*"),
            ..Default::default()
        };
        return file.price(pricing);
    }
    let (data, url, id, filename) = (
        string(fields, "file_data"),
        string(fields, "file_url"),
        string(fields, "file_id"),
        string(fields, "filename"),
    );
    let file = super::FilePart {
        data: data.as_deref(),
        name: url.as_deref().or(id.as_deref()),
        filename: filename.as_deref(),
        ..Default::default()
    };
    file.price(pricing)
}

/// The returned form of kept logical message `m`: the caller's item, or the item with what
/// changed in its content or output.
fn rebuild_item(doc: &Doc<'_>, session: &Session<'_>, m: usize) -> Option<Out> {
    let msg = &session.messages[m];
    let index = msg.physical? as usize;
    let units = session.units_of(m);
    if units.iter().all(|u| u.change == Change::Keep) {
        return Some(Out::Same(index));
    }
    let item = session.inputs[index];
    let fields = doc.fields(item).unwrap_or_default();
    let key = if matches!(msg.origin, Origin::Item(ItemKind::Output { .. })) {
        "output"
    } else {
        "content"
    };
    // Text parts of the assistant's messages are output_text; everything else is input.
    let text_type = if msg.role == Some(Role::Assistant) && key == "content" {
        "output_text"
    } else {
        "input_text"
    };
    let content = if msg.shape == ContentShape::Parts {
        let old = get(&fields, key)
            .and_then(|c| doc.items(c))
            .unwrap_or_default();
        let mut parts = Vec::with_capacity(units.len());
        for u in units {
            let Some(p) = u.part else { continue };
            let part = old[p as usize];
            match &u.change {
                Change::Keep => parts.push(part.to_owned()),
                Change::Removed => {}
                Change::Placeholder(s) => parts.push(typed_text(text_type, s)),
                Change::Text(s) => {
                    let part_fields = doc.fields(part).unwrap_or_default();
                    let field = match get(&part_fields, "type").and_then(raw::string).as_deref() {
                        Some("input_text" | "output_text") => Some("text"),
                        Some("refusal") => Some("refusal"),
                        _ => None,
                    };
                    parts.push(match field {
                        Some(field) => object_with(&part_fields, field, Some(&json_string(s))),
                        // An attachment: a text part names the file in its place.
                        None => typed_text(text_type, s),
                    });
                }
            }
        }
        array(&parts)
    } else {
        match &units[0].change {
            Change::Text(s) | Change::Placeholder(s) => json_string(s),
            _ => "\"\"".to_owned(),
        }
    };
    Some(Out::New(object_with(&fields, key, Some(&content)).into()))
}

//! Anthropic Messages histories, trimmed by the same rules.
//!
//! An Anthropic message can hold several things the OpenAI shape keeps apart: an assistant
//! message carries its `tool_use` blocks among its content, and the user message after it
//! carries the `tool_result` blocks (besides, possibly, the user's next words). So each
//! physical message is split into *logical* OpenAI-shaped messages — the top-level `system`
//! becomes a system message, `tool_use` blocks become `tool_calls`, each `tool_result` becomes a
//! `tool` message, the rest of a user message a user message — the ordinary pipeline plans on
//! those, and the plan is mapped back onto the caller's blocks:
//!
//! ```text
//! physical → logical → repair / groups / selection / shedding → plan → physical blocks
//!          → first message a user message, roles alternate (adjacent same-role messages merge)
//! ```
//!
//! Thinking blocks (`thinking`, `redacted_thinking`) are opaque parts: priced as JSON, kept with
//! their message, never edited (they are signed). A `document` block is an attachment: when the
//! budget forces it, its body goes last, leaving a text block that names it.

use crate::error::Error;
use crate::message::{parse_message, Pricing};
use crate::repair::RepairEntry;
use crate::report::{DroppedBlock, Merge, Report};
use crate::request::{MessageFormat, TrimOptions};
use crate::trim::{plan_trim, NewContent, NewPart, Plan, PlannedMessage};
use serde_json::{json, Map, Value};
use std::collections::HashSet;

/// Where a logical message came from.
#[derive(Debug, Clone)]
enum Origin {
    /// The top-level `system`.
    System,
    /// A message whose content is a string (or absent).
    Whole,
    /// Content blocks of the message; logical part `p` is block `blocks[p]`. Assistant
    /// `tool_use` blocks are in `tool_uses` (they became `tool_calls`).
    Blocks {
        blocks: Vec<usize>,
        tool_uses: Vec<usize>,
    },
    /// One `tool_result` block.
    ToolResult { block: usize },
}

#[derive(Debug, Clone)]
struct Logical {
    /// Index in the caller's `messages`; unused for the system.
    physical: usize,
    origin: Origin,
}

/// The request split into logical messages.
struct Translation {
    values: Vec<Value>,
    logicals: Vec<Logical>,
}

/// Trims an Anthropic-format request (`format: "anthropic"`, optional top-level `system`).
pub fn trim_value(mut request: Map<String, Value>) -> Result<Value, Error> {
    let messages = crate::api::take_messages(&mut request)?;
    let options = TrimOptions::from_map(&request)?;
    let system = request.remove("system");
    let translation = translate(system.as_ref(), &messages)?;
    let mut plan = plan_trim(&translation.values, &options)?;
    keep_first_message_a_user(&translation, &mut plan);
    let (out, report) = rebuild(&translation, &messages, plan, &options)?;
    let mut response = Map::new();
    response.insert("ok".into(), true.into());
    if let Some(system) = system {
        response.insert("system".into(), system);
    }
    response.insert("messages".into(), Value::Array(out));
    response.insert("report".into(), report.to_json());
    Ok(Value::Object(response))
}

/// Repairs an Anthropic-format history (no budget).
pub fn sanitize_value(messages: Vec<Value>) -> Result<Value, Error> {
    let options = TrimOptions {
        max_messages: usize::MAX,
        format: MessageFormat::Anthropic,
        ..TrimOptions::default()
    };
    let translation = translate(None, &messages)?;
    let mut plan = plan_trim(&translation.values, &options)?;
    keep_first_message_a_user(&translation, &mut plan);
    let (out, report) = rebuild(&translation, &messages, plan, &options)?;
    Ok(json!({"ok": true, "messages": out, "report": {
        "format": "anthropic",
        "repaired": report.to_json()["repaired"].take(),
        "merged": report.to_json()["merged"].take(),
    }}))
}

fn translate(system: Option<&Value>, messages: &[Value]) -> Result<Translation, Error> {
    let mut t = Translation {
        values: Vec::with_capacity(messages.len() + 1),
        logicals: Vec::with_capacity(messages.len() + 1),
    };
    match system {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => {
            t.push(json!({"role": "system", "content": s}), 0, Origin::System)
        }
        Some(Value::Array(blocks)) => {
            let parts = blocks
                .iter()
                .enumerate()
                .map(|(b, block)| logical_part(block, &format!("system[{b}]")))
                .collect::<Result<Vec<_>, _>>()?;
            t.push(
                json!({"role": "system", "content": parts}),
                0,
                Origin::System,
            );
        }
        Some(_) => {
            return Err(Error::invalid_request(
                "system must be a string or an array of text blocks",
                "system",
            ))
        }
    }
    for (i, message) in messages.iter().enumerate() {
        let at = format!("messages[{i}]");
        let obj = message
            .as_object()
            .ok_or_else(|| Error::invalid_request("each message must be a JSON object", &at))?;
        match obj.get("role") {
            Some(Value::String(role)) if role == "user" || role == "assistant" => {}
            // The Messages API has two roles: a `tool` or `system` message here is a mix-up of
            // formats, and guessing what it meant would hide it.
            Some(Value::String(role)) => {
                return Err(Error::invalid_request(
                    format!(
                        "in the Anthropic format a role is \"user\" or \"assistant\", not {role:?} \
                         (tool results are tool_result blocks; the system prompt is the top-level system)"
                    ),
                    format!("{at}.role"),
                ))
            }
            Some(_) => {
                return Err(Error::invalid_request(
                    "role must be a string",
                    format!("{at}.role"),
                ))
            }
            None => {
                return Err(Error::invalid_request(
                    "role is missing",
                    format!("{at}.role"),
                ))
            }
        };
        // An OpenAI `tool_calls` field would be read as tool calls of the logical message, but
        // repair cannot remove it from the returned one, and a tool_use block overwrites it
        // unpriced: either way the answer could exceed its budget. Refused, not guessed at.
        if obj.contains_key("tool_calls") {
            return Err(Error::invalid_request(
                "tool_calls is not part of the Anthropic format: tool calls are tool_use content \
                 blocks",
                format!("{at}.tool_calls"),
            ));
        }
        // Fields other than role and content ride along, so they are priced and kept.
        let mut base = obj.clone();
        base.remove("content");
        let blocks = match obj.get("content") {
            None | Some(Value::Null) | Some(Value::String(_)) => {
                t.push(Value::Object(obj.clone()), i, Origin::Whole);
                continue;
            }
            Some(Value::Array(blocks)) => blocks,
            Some(_) => {
                return Err(Error::invalid_request(
                    "content must be a string or an array of content blocks",
                    format!("{at}.content"),
                ))
            }
        };
        let mut parts = Vec::new();
        let mut part_blocks = Vec::new();
        let mut tool_calls = Vec::new();
        let mut tool_uses = Vec::new();
        for (b, block) in blocks.iter().enumerate() {
            let here = format!("{at}.content[{b}]");
            match block_type(block, &here)? {
                "tool_result" => {
                    let id = block
                        .get("tool_use_id")
                        .and_then(Value::as_str)
                        .ok_or_else(|| {
                            Error::invalid_request(
                                "a tool_result needs a string tool_use_id",
                                format!("{here}.tool_use_id"),
                            )
                        })?;
                    let content = match block.get("content") {
                        None | Some(Value::Null) => Value::String(String::new()),
                        Some(Value::String(s)) => Value::String(s.clone()),
                        Some(Value::Array(inner)) => Value::Array(
                            inner
                                .iter()
                                .enumerate()
                                .map(|(k, b)| logical_part(b, &format!("{here}.content[{k}]")))
                                .collect::<Result<_, _>>()?,
                        ),
                        Some(_) => {
                            return Err(Error::invalid_request(
                                "tool_result content must be a string or an array of blocks",
                                format!("{here}.content"),
                            ))
                        }
                    };
                    let mut tool = Map::new();
                    tool.insert("role".into(), "tool".into());
                    tool.insert("tool_call_id".into(), id.into());
                    for (k, v) in block.as_object().into_iter().flatten() {
                        if !matches!(k.as_str(), "type" | "tool_use_id" | "content") {
                            tool.insert(k.clone(), v.clone());
                        }
                    }
                    tool.insert("content".into(), content);
                    t.push(Value::Object(tool), i, Origin::ToolResult { block: b });
                }
                "tool_use" => {
                    // Malformed calls stay malformed here, so repair removes them with the note.
                    let arguments = match block.get("input") {
                        Some(input @ Value::Object(_)) => Value::String(input.to_string()),
                        other => other.cloned().unwrap_or(Value::Null),
                    };
                    tool_calls.push(json!({
                        "id": block.get("id").cloned().unwrap_or(Value::Null),
                        "type": "function",
                        "function": {
                            "name": block.get("name").cloned().unwrap_or(Value::Null),
                            "arguments": arguments,
                        },
                    }));
                    tool_uses.push(b);
                }
                _ => {
                    parts.push(logical_part(block, &here)?);
                    part_blocks.push(b);
                }
            }
        }
        if !parts.is_empty() || !tool_calls.is_empty() || blocks.is_empty() {
            let mut logical = base;
            logical.insert("content".into(), Value::Array(parts));
            if !tool_calls.is_empty() {
                logical.insert("tool_calls".into(), Value::Array(tool_calls));
            }
            t.push(
                Value::Object(logical),
                i,
                Origin::Blocks {
                    blocks: part_blocks,
                    tool_uses,
                },
            );
        }
    }
    Ok(t)
}

impl Translation {
    fn push(&mut self, value: Value, physical: usize, origin: Origin) {
        self.values.push(value);
        self.logicals.push(Logical { physical, origin });
    }
}

fn block_type<'a>(block: &'a Value, path: &str) -> Result<&'a str, Error> {
    let obj = block
        .as_object()
        .ok_or_else(|| Error::invalid_request("each content block must be a JSON object", path))?;
    match obj.get("type") {
        Some(Value::String(t)) => Ok(t),
        Some(_) => Err(Error::invalid_request(
            "type must be a string",
            format!("{path}.type"),
        )),
        None => Err(Error::invalid_request(
            "type is missing",
            format!("{path}.type"),
        )),
    }
}

/// One content block as an OpenAI-shaped part: text stays text, an image becomes an
/// `image_url` part priced by its header, a document an attachment, anything else an opaque
/// part priced as JSON.
fn logical_part(block: &Value, path: &str) -> Result<Value, Error> {
    let string_at = |v: Option<&Value>, what: &str, at: String| -> Result<String, Error> {
        v.and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| Error::invalid_request(format!("{what} must be a string"), at))
    };
    match block_type(block, path)? {
        "text" => {
            let mut part = block.as_object().cloned().unwrap_or_default();
            string_at(block.get("text"), "text", format!("{path}.text"))?;
            part.insert("type".into(), "text".into());
            Ok(Value::Object(part))
        }
        "image" => {
            let source = block.get("source").ok_or_else(|| {
                Error::invalid_request("an image needs a source", format!("{path}.source"))
            })?;
            let url = match source.get("type").and_then(Value::as_str) {
                Some("base64") => format!(
                    "data:{};base64,{}",
                    source
                        .get("media_type")
                        .and_then(Value::as_str)
                        .unwrap_or("image/*"),
                    string_at(
                        source.get("data"),
                        "source.data",
                        format!("{path}.source.data")
                    )?
                ),
                Some("url") => string_at(
                    source.get("url"),
                    "source.url",
                    format!("{path}.source.url"),
                )?,
                _ => {
                    return Err(Error::invalid_request(
                        "image source type must be \"base64\" or \"url\"",
                        format!("{path}.source.type"),
                    ))
                }
            };
            Ok(json!({"type": "image_url", "image_url": {"url": url}}))
        }
        "document" => {
            let title = block
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("document");
            let body = match block
                .pointer("/source/data")
                .or_else(|| block.pointer("/source/url"))
            {
                Some(Value::String(s)) => s.clone(),
                _ => block
                    .get("source")
                    .map(Value::to_string)
                    .unwrap_or_default(),
            };
            let text = format!("{} {title}\n{body}", crate::message::ATTACHMENT_PREFIX);
            Ok(json!({"type": "text", "text": text}))
        }
        _ => Ok(block.clone()),
    }
}

/// The Messages API wants a user message first: every logical message before the first user
/// one goes (an assistant turn, or an exchange with its tool replies), in one pass.
fn keep_first_message_a_user(t: &Translation, plan: &mut Plan) {
    let is_system = |m: &PlannedMessage| matches!(t.logicals[m.index].origin, Origin::System);
    let first_user = plan
        .messages
        .iter()
        .position(|m| !is_system(m) && t.values[m.index]["role"] == "user")
        .unwrap_or(plan.messages.len());
    // Plan messages are in input order, so `removed` comes out ascending.
    let mut removed = Vec::new();
    let mut position = 0;
    plan.messages.retain(|m| {
        let keep = position >= first_user || is_system(m);
        position += 1;
        if !keep {
            removed.push(m.index);
        }
        keep
    });
    if removed.is_empty() {
        return;
    }
    plan.report.forget_messages(&removed);
    plan.report.dropped_messages.extend(removed);
    plan.report.dropped_messages.sort_unstable();
}

/// Maps the logical plan back onto the caller's messages and blocks, merges adjacent same-role
/// messages, and rewrites the report in physical indices.
fn rebuild(
    t: &Translation,
    messages: &[Value],
    plan: Plan,
    options: &TrimOptions,
) -> Result<(Vec<Value>, Report), Error> {
    // Physical message → its kept logical messages, in order.
    let mut kept: Vec<Vec<&PlannedMessage>> = vec![Vec::new(); messages.len()];
    for planned in &plan.messages {
        let logical = &t.logicals[planned.index];
        if !matches!(logical.origin, Origin::System) {
            kept[logical.physical].push(planned);
        }
    }
    let mut out: Vec<(usize, Value)> = Vec::new();
    for (i, planned) in kept.iter().enumerate() {
        if planned.is_empty() {
            continue;
        }
        let message = &messages[i];
        if let [only] = planned.as_slice() {
            if only.is_unchanged() && matches!(t.logicals[only.index].origin, Origin::Whole) {
                out.push((i, message.clone()));
                continue;
            }
        }
        let original = message.get("content").and_then(Value::as_array);
        let mut content = Vec::new();
        let mut string_content = None;
        for p in planned {
            match &t.logicals[p.index].origin {
                Origin::System => {}
                Origin::Whole => match &p.content {
                    Some(NewContent::Text(s)) => string_content = Some(Value::String(s.clone())),
                    _ => {
                        string_content =
                            Some(message.get("content").cloned().unwrap_or(Value::Null))
                    }
                },
                Origin::ToolResult { block } => {
                    let mut result = original.map(|o| o[*block].clone()).unwrap_or(Value::Null);
                    match &p.content {
                        None => {}
                        Some(NewContent::Text(s)) => result["content"] = Value::String(s.clone()),
                        Some(NewContent::Parts(parts)) => {
                            let inner = result["content"].as_array().cloned().unwrap_or_default();
                            result["content"] =
                                Value::Array(map_parts(parts, |k| inner[k].clone()));
                        }
                    }
                    content.push(result);
                }
                Origin::Blocks { blocks, tool_uses } => {
                    let original = original.expect("block origins come from array content");
                    match &p.content {
                        None => content.extend(blocks.iter().map(|&b| original[b].clone())),
                        Some(NewContent::Text(s)) => {
                            content.push(json!({"type": "text", "text": s}))
                        }
                        Some(NewContent::Parts(parts)) => {
                            content.extend(map_parts(parts, |k| original[blocks[k]].clone()))
                        }
                    }
                    if !p.remove_tool_calls {
                        content.extend(tool_uses.iter().map(|&b| original[b].clone()));
                    }
                }
            }
        }
        let mut rebuilt = message.as_object().cloned().unwrap_or_default();
        let new_content = match string_content {
            Some(s) => s,
            None => Value::Array(content),
        };
        rebuilt.insert("content".into(), new_content);
        out.push((i, Value::Object(rebuilt)));
    }

    let mut report = physical_report(t, messages, &plan, &kept);
    let merged = merge_same_roles(out, &mut report.merged);
    // The cost of what is returned, in the same model the budget used.
    let again = translate(
        None,
        &merged.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(),
    )?;
    let pricing = Pricing {
        profile: options.image_profile,
        bytes_per_token: options.bytes_per_token,
        image_sizes: &options.image_sizes,
    };
    // Saturating: an image may cost up to u64::MAX (tokens × bytes_per_token).
    let mut cost = 0u64;
    for m in &plan.messages {
        if matches!(t.logicals[m.index].origin, Origin::System) {
            cost = cost.saturating_add(parse_message(0, &t.values[m.index], pricing)?.cost());
        }
    }
    for (k, value) in again.values.iter().enumerate() {
        cost = cost.saturating_add(parse_message(k, value, pricing)?.cost());
    }
    report.cost_bytes = cost;
    report.output_messages = merged.len();
    Ok((merged.into_iter().map(|(_, v)| v).collect(), report))
}

/// Builds parts from a logical part plan: kept parts come from `original(k)`, replaced text
/// keeps the block's other fields (a document becomes a text block), new parts are text blocks.
fn map_parts(parts: &[NewPart], original: impl Fn(usize) -> Value) -> Vec<Value> {
    parts
        .iter()
        .map(|part| match part {
            NewPart::Keep(k) => original(*k),
            NewPart::Text {
                from: Some(k),
                text,
            } => {
                let mut block = original(*k);
                if block["type"] == "text" {
                    block["text"] = Value::String(text.clone());
                    block
                } else {
                    json!({"type": "text", "text": text})
                }
            }
            NewPart::Text { from: None, text } => json!({"type": "text", "text": text}),
        })
        .collect()
}

/// Merges each message into the one before it when both have the same role, so roles
/// alternate as the Messages API requires.
fn merge_same_roles(out: Vec<(usize, Value)>, merged: &mut Vec<Merge>) -> Vec<(usize, Value)> {
    let mut result: Vec<(usize, Value)> = Vec::with_capacity(out.len());
    for (i, message) in out {
        match result.last_mut() {
            Some((into, previous)) if previous["role"] == message["role"] => {
                let mut blocks = as_blocks(previous["content"].take());
                blocks.extend(as_blocks(message["content"].clone()));
                previous["content"] = Value::Array(blocks);
                merged.push(Merge {
                    index: i,
                    into: *into,
                });
            }
            _ => result.push((i, message)),
        }
    }
    result
}

fn as_blocks(content: Value) -> Vec<Value> {
    match content {
        Value::Array(blocks) => blocks,
        Value::String(s) if s.is_empty() => Vec::new(),
        Value::String(s) => vec![json!({"type": "text", "text": s})],
        _ => Vec::new(),
    }
}

/// The report in the caller's indices: message index, block index (`part`), and for content
/// inside a `tool_result`, `part` is the tool_result block and `subpart` the inner block.
fn physical_report(
    t: &Translation,
    messages: &[Value],
    plan: &Plan,
    kept: &[Vec<&PlannedMessage>],
) -> Report {
    let logical = &plan.report;
    let phys = |index: usize| t.logicals[index].physical;
    // (block, subpart) of logical part `part` of logical message `index`.
    let block_of = |index: usize, part: Option<usize>| -> (Option<usize>, Option<usize>) {
        match (&t.logicals[index].origin, part) {
            (Origin::Blocks { blocks, .. }, Some(p)) => (blocks.get(p).copied(), None),
            (Origin::ToolResult { block }, p) => (Some(*block), p),
            _ => (None, None),
        }
    };
    let is_system = |index: usize| matches!(t.logicals[index].origin, Origin::System);
    let mut report = Report {
        format: MessageFormat::Anthropic,
        budget_bytes: logical.budget_bytes,
        bytes_per_token: logical.bytes_per_token,
        input_messages: messages.len(),
        ..Report::default()
    };
    let kept_physical: HashSet<usize> = (0..messages.len())
        .filter(|&i| !kept[i].is_empty())
        .collect();
    // A physical message split into many logical ones is dropped once; a set, not a scan of
    // the list, keeps this linear (100,000 dropped messages took seconds).
    let mut dropped_physical = HashSet::new();
    for &index in &logical.dropped_messages {
        if is_system(index) {
            continue;
        }
        let i = phys(index);
        if kept_physical.contains(&i) {
            if let (Some(block), _) = block_of(index, None) {
                report.dropped_blocks.push(DroppedBlock {
                    index: i,
                    part: block,
                });
            }
        } else if dropped_physical.insert(i) {
            report.dropped_messages.push(i);
        }
    }
    report.dropped_messages.sort_unstable();
    for tr in &logical.truncated {
        let (part, subpart) = block_of(tr.index, tr.part);
        let mut tr = tr.clone();
        tr.index = phys(tr.index);
        tr.part = part.or(subpart);
        report.truncated.push(tr);
    }
    for d in &logical.dropped_images {
        let mut d = d.clone();
        let (block, _) = block_of(d.index, Some(d.part));
        d.index = phys(d.index);
        d.part = block.unwrap_or(d.part);
        report.dropped_images.push(d);
    }
    for d in &logical.dropped_attachments {
        let mut d = d.clone();
        let (block, _) = block_of(d.index, Some(d.part));
        d.index = phys(d.index);
        d.part = block.unwrap_or(d.part);
        report.dropped_attachments.push(d);
    }
    // The nearest assistant message before a logical message, found by one scan over the
    // repairs (they come in input order): the replies of one incomplete exchange share it,
    // and scanning back from each of 40,000 replies took half a minute.
    let mut scanned = (0usize, None::<usize>);
    for entry in &logical.repaired {
        let (block, _) = block_of(entry.index, None);
        let action = match entry.action {
            "orphan_tool_removed" => "orphan_tool_result_removed",
            "incomplete_tool_calls_removed" => "incomplete_tool_use_removed",
            "incomplete_tool_reply_removed" => "incomplete_tool_result_removed",
            other => other,
        };
        let reason = if entry.action == "incomplete_tool_reply_removed" {
            // The assistant message is the nearest logical message before the reply.
            if entry.index < scanned.0 {
                scanned = (0, None);
            }
            let nearest = (scanned.0..entry.index)
                .rev()
                .find(|&k| t.values[k]["role"] == "assistant")
                .or(scanned.1);
            scanned = (entry.index, nearest);
            let assistant = nearest.map_or(0, phys);
            format!("result of the incomplete tool_use blocks of messages[{assistant}]")
        } else {
            entry
                .reason
                .replace("tool message", "tool_result")
                .replace("tool call", "tool_use")
        };
        report.repaired.push(RepairEntry {
            index: phys(entry.index),
            action,
            reason,
            path: block.map(|b| format!("messages[{}].content[{b}]", phys(entry.index))),
        });
    }
    report
}

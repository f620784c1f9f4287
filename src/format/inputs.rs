//! `clear_tool_inputs` (DESIGN §6.6): the caller's message with its tool calls' arguments
//! replaced by a small placeholder that still validates. Each format says where it writes them
//! ([`ToolInputs`], among its traits): OpenAI chat `tool_calls[].function.arguments` and
//! Responses `function_call.arguments` become the JSON string `"{}"`; Anthropic
//! `tool_use.input`, Gemini `functionCall.args` and AI SDK `tool-call.input` become `{}`.

use super::write::object_with;
use crate::raw::{self, get, Doc, Raw};

/// One call's arguments in a caller's message: the object holding them, their key, and the
/// JSON text that replaces them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CallInput<'a> {
    pub object: Raw<'a>,
    pub key: &'static str,
    pub empty: &'static str,
}

impl CallInput<'_> {
    /// The object with its arguments replaced by the placeholder.
    pub(crate) fn cleared(&self, doc: &Doc<'_>) -> String {
        let fields = doc.fields(self.object).unwrap_or_default();
        object_with(&fields, self.key, Some(self.empty))
    }
}

/// Where a format writes its tool calls' arguments, as data ([`super::Traits::tool_inputs`]).
#[derive(Debug)]
pub struct ToolInputs {
    /// The message's array that holds the calls (`tool_calls`, `content`, `parts`); `None`
    /// where the message is the call (a Responses `function_call` item).
    pub list: Option<&'static str>,
    /// The `type` of a call among the list's items (`tool_use`); `None`: every item is one.
    pub call_type: Option<&'static str>,
    /// The key, in each of its spellings, of the object inside a call that holds its
    /// arguments (OpenAI chat's `function`, Gemini's `functionCall`); none: the call holds
    /// them.
    pub holder: &'static [&'static str],
    /// The arguments' key.
    pub key: &'static str,
    /// The JSON text that replaces the arguments: the smallest that still validates.
    pub empty: &'static str,
}

/// The calls of the caller's message `message` in `adapter`'s format whose arguments are not
/// the placeholder already.
pub(crate) fn call_inputs<'a>(
    adapter: &dyn super::Adapter,
    doc: &Doc<'a>,
    message: Raw<'a>,
) -> Vec<CallInput<'a>> {
    let ToolInputs {
        list,
        call_type,
        holder,
        key,
        empty,
    } = adapter.traits().tool_inputs;
    let items = match list {
        Some(list) => doc
            .fields(message)
            .and_then(|fields| get(&fields, list))
            .and_then(|v| doc.items(v))
            .unwrap_or_default(),
        None => vec![message],
    };
    let mut calls = Vec::new();
    for item in items {
        let fields = doc.fields(item).unwrap_or_default();
        if let Some(ty) = call_type {
            if get(&fields, "type").and_then(raw::string).as_deref() != Some(ty) {
                continue;
            }
        }
        let object = match holder {
            [] => Some(item),
            keys => keys.iter().find_map(|k| get(&fields, k)),
        };
        let Some(object) = object else {
            continue;
        };
        let holds = doc
            .fields(object)
            .and_then(|f| get(&f, key))
            .is_some_and(|v| v != empty);
        if holds {
            calls.push(CallInput { object, key, empty });
        }
    }
    calls
}

/// `message` with the arguments of `calls` (objects inside it, in order) replaced.
pub(crate) fn rewrite(doc: &Doc<'_>, message: Raw<'_>, calls: &[CallInput<'_>]) -> String {
    let base = message.as_ptr() as usize;
    let mut out = String::with_capacity(message.len());
    let mut at = 0;
    for call in calls {
        let start = call.object.as_ptr() as usize - base;
        out.push_str(&message[at..start]);
        out.push_str(&call.cleared(doc));
        at = start + call.object.len();
    }
    out.push_str(&message[at..]);
    out
}

/// What clearing the arguments of `calls` in the caller's message `message` frees of its cost
/// (its fields but the content: where the calls are priced), in `measure`'s unit: the message
/// split and priced alone as written, less the same for the rewritten message; 0 when
/// nothing is freed.
pub(crate) fn freed(
    adapter: &dyn super::Adapter,
    doc: &Doc<'_>,
    message: Raw<'_>,
    calls: &[CallInput<'_>],
    measure: &crate::tokens::Measure,
    pricing: &super::Pricing<'_>,
) -> u64 {
    let cost = |message: &str| -> Option<u64> {
        let text = format!("[{message}]");
        let doc = Doc::parse(&text).ok()?;
        let session = adapter
            .split(&super::Input {
                doc: &doc,
                messages: &text,
                start: super::split::Start::Whole(None),
                pricing,
            })
            .ok()?;
        let k = session
            .messages
            .iter()
            .position(|m| matches!(m.tool_calls, crate::model::ToolCalls::Valid(_)))?;
        Some(if measure.in_tokens() {
            adapter
                .meta_cost(&doc, super::Logical::of(&session, k), measure)
                .0
        } else {
            session.messages[k].meta_bytes
        })
    };
    match (cost(message), cost(&rewrite(doc, message, calls))) {
        (Some(before), Some(after)) => before.saturating_sub(after),
        _ => 0,
    }
}

/// Rewrites the answer's messages that hold calls whose arguments were cleared: the caller's
/// messages `cleared` (indices of `inputs`) had theirs cleared, and every answer message that
/// came from one of them (as written, edited by `render`, or rebuilt from several) gets the
/// cleared calls in their place (a rebuilt message keeps a kept call's object as written).
pub(crate) fn rewrite_answer(
    adapter: &dyn super::Adapter,
    doc: &Doc<'_>,
    inputs: &[Raw<'_>],
    cleared: &[usize],
    messages: &mut [super::Out],
    render: impl Fn(&super::Edit) -> String,
) {
    use super::Out;
    let mut by_input: std::collections::HashMap<usize, Vec<(&str, String)>> =
        std::collections::HashMap::new();
    for &p in cleared {
        let calls = call_inputs(adapter, doc, inputs[p]);
        let pairs = calls.iter().map(|c| (c.object, c.cleared(doc)));
        by_input.entry(p).or_default().extend(pairs);
    }
    if by_input.is_empty() {
        return;
    }
    let all: Vec<&(&str, String)> = by_input.values().flatten().collect();
    for out in messages.iter_mut() {
        let (text, pairs): (std::borrow::Cow<'_, str>, Vec<&(&str, String)>) = match out {
            Out::Same(i) => match by_input.get(i) {
                Some(pairs) => (inputs[*i].into(), pairs.iter().collect()),
                None => continue,
            },
            Out::Edited(edit) => match by_input.get(&edit.index) {
                Some(pairs) => (render(edit).into(), pairs.iter().collect()),
                None => continue,
            },
            Out::New(text) => ((&**text).into(), all.clone()),
        };
        let mut new = None::<String>;
        for (old, cleared) in pairs {
            let now = new.as_deref().unwrap_or(&text);
            if now.contains(old) {
                new = Some(now.replace(old, cleared));
            }
        }
        if let Some(new) = new {
            *out = Out::New(new.into());
        }
    }
}

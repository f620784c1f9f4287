//! `clear_tool_inputs` (DESIGN §6.6): where each format writes a tool call's arguments, and the
//! caller's message with them replaced by a small placeholder that still validates — OpenAI
//! chat `tool_calls[].function.arguments` and Responses `function_call.arguments` become the
//! JSON string `"{}"`; Anthropic `tool_use.input`, Gemini `functionCall.args` and AI SDK
//! `tool-call.input` become `{}`.

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

/// The calls of the caller's message `message` in format `format` whose arguments are not the
/// placeholder already.
pub(crate) fn call_inputs<'a>(format: &str, doc: &Doc<'a>, message: Raw<'a>) -> Vec<CallInput<'a>> {
    let fields = doc.fields(message).unwrap_or_default();
    let type_is = |f: &[(std::borrow::Cow<'_, str>, Raw<'_>)], t: &str| {
        get(f, "type").and_then(raw::string).as_deref() == Some(t)
    };
    let items = |key: &str| {
        get(&fields, key)
            .and_then(|v| doc.items(v))
            .unwrap_or_default()
    };
    let mut calls = Vec::new();
    let mut push = |object: Raw<'a>, key: &'static str, empty: &'static str| {
        let holds = doc
            .fields(object)
            .and_then(|f| get(&f, key))
            .is_some_and(|v| v != empty);
        if holds {
            calls.push(CallInput { object, key, empty });
        }
    };
    match format {
        "openai" => {
            for call in items("tool_calls") {
                let function = doc.fields(call).and_then(|f| get(&f, "function"));
                if let Some(function) = function.filter(|f| doc.fields(f).is_some()) {
                    push(function, "arguments", "\"{}\"");
                }
            }
        }
        "responses" if type_is(&fields, "function_call") => {
            push(message, "arguments", "\"{}\"");
        }
        "anthropic" | "ai-sdk" => {
            let ty = if format == "anthropic" {
                "tool_use"
            } else {
                "tool-call"
            };
            for block in items("content") {
                if doc.fields(block).is_some_and(|f| type_is(&f, ty)) {
                    push(block, "input", "{}");
                }
            }
        }
        "gemini" => {
            for part in items("parts") {
                let f = doc.fields(part).unwrap_or_default();
                let call = get(&f, "functionCall").or_else(|| get(&f, "function_call"));
                if let Some(call) = call.filter(|c| doc.fields(c).is_some()) {
                    push(call, "args", "{}");
                }
            }
        }
        _ => {}
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
    format: &str,
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
        let calls = call_inputs(format, doc, inputs[p]);
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

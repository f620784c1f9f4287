//! The crate's calls for Rust programs, re-exported at the crate root: a history as
//! `serde_json::Value` messages in one of the five wire formats, the options as a JSON object of
//! the trim request's keys (docs/options.md), the answer in the same format.

use super::{count_value, probe_response, sanitize_value, trim_value};
use crate::error::{Error, ErrorCode};
use crate::pricing::ImageProfile;
use serde_json::{Map, Value};

/// What [`trim`](crate::trim) returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Trimmed {
    /// The messages to send, in the caller's format: the unchanged ones as given, in order.
    pub messages: Vec<Value>,
    /// What the trim did: every dropped, shrunk, repaired or replaced message by its index,
    /// the budget and what it went to, warnings (the JSON contract's `report`, DESIGN §8).
    pub report: Value,
    /// The system prompt, for formats that send it beside the messages (`anthropic`'s
    /// `system`, `gemini`'s `systemInstruction`), when the options gave one.
    pub system: Option<Value>,
}

/// What [`sanitize`](crate::sanitize) returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Sanitized {
    /// Every message, repaired: orphan tool replies and broken calls removed or mended.
    pub messages: Vec<Value>,
    /// What was repaired, by the caller's index (`{"repaired": [...]}`).
    pub report: Value,
}

/// A request object: the options' keys and `messages`.
fn request(messages: &[Value], options: &Value) -> Result<Value, Error> {
    let mut request = match options {
        Value::Object(map) => map.clone(),
        Value::Null => Map::new(),
        _ => {
            return Err(Error::invalid_request(
                "options must be a JSON object of the request's keys",
                "options",
            ))
        }
    };
    if request.contains_key("messages") {
        return Err(Error::invalid_request(
            "the messages go in their own argument, not in the options",
            "options.messages",
        ));
    }
    request.insert("messages".into(), Value::Array(messages.to_vec()));
    Ok(Value::Object(request))
}

/// Takes `key` out of an answer object.
fn take(answer: &mut Value, key: &str) -> Value {
    answer
        .as_object_mut()
        .and_then(|a| a.remove(key))
        .unwrap_or(Value::Null)
}

fn list(value: Value) -> Vec<Value> {
    match value {
        Value::Array(items) => items,
        _ => Vec::new(),
    }
}

/// Trims `messages` to fit the budget the options give (`max_messages`, `max_bytes`,
/// `context_tokens`, `model`, ...: docs/options.md), in the fixed order of DESIGN §6: the
/// current request and the user's goal kept, tool exchanges never split, whole old groups
/// dropped first, the largest text shrunk, images and attachments dropped last; an error when
/// even the current request cannot fit. Images are priced by their pixels, read from their
/// headers.
///
/// ```
/// use serde_json::json;
///
/// let history: Vec<serde_json::Value> = (0..100)
///     .map(|i| json!({"role": if i % 2 == 0 { "user" } else { "assistant" },
///                     "content": format!("message {i}")}))
///     .collect();
/// let trimmed = ankita::trim(&history, &json!({"max_messages": 10})).unwrap();
/// assert_eq!(trimmed.messages.len(), 10);
/// assert_eq!(trimmed.messages.last(), history.last());
/// assert_eq!(trimmed.report["dropped_messages"].as_array().unwrap().len(), 90);
/// ```
///
/// An option the trim does not know is an error naming it:
///
/// ```
/// use serde_json::json;
///
/// let error = ankita::trim(&[json!({"role": "user", "content": "hi"})], &json!({"max_byts": 10}))
///     .unwrap_err();
/// assert_eq!(error.code, ankita::ErrorCode::InvalidRequest);
/// assert_eq!(error.path.as_deref(), Some("max_byts"));
/// ```
pub fn trim(messages: &[Value], options: &Value) -> Result<Trimmed, Error> {
    let mut answer = trim_value(request(messages, options)?)?;
    let system = match take(&mut answer, "system") {
        Value::Null => None,
        system => Some(system),
    };
    Ok(Trimmed {
        messages: list(take(&mut answer, "messages")),
        report: take(&mut answer, "report"),
        system,
    })
}

/// Repairs a history restored from disk (DESIGN §5): tool replies whose call is gone, calls
/// left unanswered or broken, empty and unknown messages; `format` names the wire format
/// (`None`: OpenAI chat).
///
/// ```
/// use serde_json::json;
///
/// let restored = vec![
///     json!({"role": "tool", "tool_call_id": "call_1", "content": "42"}),
///     json!({"role": "user", "content": "What is 6 × 7?"}),
/// ];
/// let sanitized = ankita::sanitize(&restored, None).unwrap();
/// assert_eq!(sanitized.messages, vec![restored[1].clone()]);
/// assert_eq!(sanitized.report["repaired"][0]["index"], 0);
/// ```
pub fn sanitize(messages: &[Value], format: Option<&str>) -> Result<Sanitized, Error> {
    let mut call = Map::new();
    if let Some(format) = format {
        call.insert("format".into(), Value::from(format));
    }
    call.insert("messages".into(), Value::Array(messages.to_vec()));
    let mut answer = sanitize_value(Value::Object(call))?;
    Ok(Sanitized {
        messages: list(take(&mut answer, "messages")),
        report: take(&mut answer, "report"),
    })
}

/// Counts a history as [`trim`] prices it: in the model's tokens when its tokenizer is known
/// (`model`, `tokenizer`), else in bytes. The answer is `{"unit", "tokenizer", "exact",
/// "total", "messages": [the cost of each message], ...}`.
///
/// ```
/// use serde_json::json;
///
/// let history = [json!({"role": "user", "content": "Hello, world"})];
/// let count = ankita::count_tokens(&history, &json!({"tokenizer": "o200k_base"})).unwrap();
/// assert_eq!(count["unit"], "tokens");
/// assert_eq!(count["messages"].as_array().unwrap().len(), 1);
/// ```
pub fn count_tokens(messages: &[Value], options: &Value) -> Result<Value, Error> {
    let text = crate::json::to_json_string(&request(messages, options)?);
    let mut answer = count_value(&text)?;
    if let Some(map) = answer.as_object_mut() {
        map.remove("ok");
    }
    Ok(answer)
}

/// What an image costs, read from its header alone (a data URL or bare base64 of PNG, JPEG,
/// GIF or WebP): `{"format", "width", "height", "tokens", "budget_bytes"}` under `profile`'s
/// rule; `format`, `width`, `height` and `tokens` are null when the header cannot be read.
///
/// ```
/// // A 1×1 GIF.
/// let gif = "data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==";
/// let probed = ankita::probe_image(gif, ankita::ImageProfile::default()).unwrap();
/// assert_eq!((probed["width"].as_u64(), probed["height"].as_u64()), (Some(1), Some(1)));
/// ```
pub fn probe_image(image: &str, profile: ImageProfile) -> Result<Value, Error> {
    let mut answer = probe_response(image, profile);
    if answer["ok"] != Value::Bool(true) {
        let message = answer["error"]["message"]
            .as_str()
            .unwrap_or("the image cannot be read")
            .to_owned();
        return Err(Error::new(ErrorCode::InvalidArgument, message));
    }
    if let Some(map) = answer.as_object_mut() {
        map.remove("ok");
    }
    Ok(answer)
}

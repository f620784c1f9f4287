//! The JSON contract (DESIGN §8): what the C ABI and the CLI speak, built on [`crate::trim`].
//!
//! ```
//! let response = ankita::api::trim_json(r#"{"messages": [
//!     {"role": "system", "content": "Be brief."},
//!     {"role": "tool", "tool_call_id": "gone", "content": "orphan"},
//!     {"role": "user", "content": "Hi"}
//! ], "max_bytes": 4096}"#);
//! let v: serde_json::Value = serde_json::from_str(&response).unwrap();
//! assert_eq!(v["ok"], true);
//! assert_eq!(v["messages"].as_array().unwrap().len(), 2);
//! assert_eq!(v["report"]["repaired"][0]["action"], "orphan_tool_removed");
//! ```

use crate::error::{Error, ErrorCode};
use crate::pricing::{ImageProfile, DEFAULT_BYTES_PER_TOKEN};
use crate::request::{MessageFormat, TrimOptions};
use crate::trim::{plan_sanitize, plan_trim, NewContent, NewPart, Plan};
use serde_json::{Map, Value};

/// Trims a request given as JSON text; always answers JSON text (success or error).
pub fn trim_json(request: &str) -> String {
    // The answer is rarely longer than the request: reserve that much once.
    respond(
        parse_json(request).and_then(trim_value),
        request.len() + 4096,
    )
}

/// Repairs a messages array (or `{"messages": [...]}`) given as JSON text.
pub fn sanitize_json(messages: &str) -> String {
    respond(
        parse_json(messages).and_then(sanitize_value),
        messages.len() + 4096,
    )
}

/// Trims a parsed request and returns the whole success response
/// `{"ok": true, "messages": [...], "report": {...}}`.
pub fn trim_value(request: Value) -> Result<Value, Error> {
    if let Value::Object(map) = &request {
        if MessageFormat::of(map)? == MessageFormat::Anthropic {
            let Value::Object(map) = request else {
                unreachable!()
            };
            return crate::anthropic::trim_value(map);
        }
    }
    let (messages, options) = parse_request(request)?;
    let plan = plan_trim(&messages, &options)?;
    Ok(response(apply_plan(messages, &plan), &plan, false))
}

/// Repairs parsed messages and returns `{"ok": true, "messages": [...], "report": {"repaired"}}`.
/// Takes the messages array, or `{"messages": [...], "format"?: "openai" | "anthropic"}`.
pub fn sanitize_value(messages: Value) -> Result<Value, Error> {
    let usage = || {
        Error::invalid_request(
            "sanitize takes the messages array, or {\"messages\": [...], \"format\"?: \"openai\" | \"anthropic\"}",
            "messages",
        )
    };
    let (messages, format) = match messages {
        Value::Array(messages) => (messages, MessageFormat::OpenAi),
        Value::Object(mut request) => {
            let format = MessageFormat::of(&request)?;
            match request.remove("messages") {
                Some(Value::Array(messages)) if request.keys().all(|k| k == "format") => {
                    (messages, format)
                }
                _ => return Err(usage()),
            }
        }
        _ => return Err(usage()),
    };
    if format == MessageFormat::Anthropic {
        return crate::anthropic::sanitize_value(messages);
    }
    let plan = plan_sanitize(&messages)?;
    Ok(response(apply_plan(messages, &plan), &plan, true))
}

/// `{"ok": true, "tokens", "budget_bytes"}` for an image of `width` × `height` pixels.
/// `options` may hold `image_profile` (or `profile`) or `model`, `detail` and `bytes_per_token`.
pub fn estimate_image_tokens(width: u32, height: u32, options: &Value) -> Result<Value, Error> {
    if width == 0 || height == 0 {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("image size {width}×{height} has a zero side"),
        ));
    }
    let (profile, detail, bytes_per_token) = pricing_options(options)?;
    let tokens = profile.tokens(width, height, detail);
    let mut out = Map::new();
    out.insert("ok".into(), true.into());
    out.insert("tokens".into(), tokens.into());
    out.insert(
        "budget_bytes".into(),
        tokens.saturating_mul(bytes_per_token).into(),
    );
    Ok(Value::Object(out))
}

/// The probe answer for a data URL or bare base64, priced with `options` as for
/// [`estimate_image_tokens`].
pub fn probe_image(image: &str, options: &Value) -> Result<Value, Error> {
    let (profile, detail, bytes_per_token) = pricing_options(options)?;
    Ok(crate::probe_response_with(
        image,
        profile,
        detail,
        bytes_per_token,
    ))
}

/// Reads `{"image_profile" | "profile" | "model", "detail", "bytes_per_token"}`.
fn pricing_options(options: &Value) -> Result<(ImageProfile, Option<&str>, u64), Error> {
    let options = match options {
        Value::Null => return Ok((ImageProfile::default(), None, DEFAULT_BYTES_PER_TOKEN)),
        Value::Object(options) => options,
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidRequest,
                "options must be a JSON object",
            ))
        }
    };
    let mut profile_keys = Map::new();
    for key in ["image_profile", "model"] {
        if let Some(v) = options.get(key) {
            profile_keys.insert(key.into(), v.clone());
        }
    }
    if let Some(v) = options.get("profile") {
        profile_keys.insert("image_profile".into(), v.clone());
    }
    let profile = crate::request::profile_of(&profile_keys)?;
    let mut detail = None;
    let mut bytes_per_token = DEFAULT_BYTES_PER_TOKEN;
    for (key, value) in options {
        match (key.as_str(), value) {
            (_, Value::Null) => {}
            ("image_profile" | "profile" | "model", Value::String(_)) => {}
            ("detail", Value::String(d)) => detail = Some(d.as_str()),
            ("bytes_per_token", v) if v.as_u64().is_some_and(|n| n > 0) => {
                bytes_per_token = v.as_u64().unwrap_or(1)
            }
            _ => {
                return Err(Error::invalid_request(
                    format!("unknown or invalid option {key:?} = {value}; known: image_profile or model (string), detail (string), bytes_per_token (integer ≥ 1)"),
                    key.as_str(),
                ))
            }
        }
    }
    Ok((profile, detail, bytes_per_token))
}

/// Splits a request object into its messages and options.
pub fn parse_request(request: Value) -> Result<(Vec<Value>, TrimOptions), Error> {
    let Value::Object(mut request) = request else {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            "the request must be a JSON object",
        ));
    };
    let messages = take_messages(&mut request)?;
    let options = TrimOptions::from_map(&request)?;
    Ok((messages, options))
}

/// Removes and returns the `messages` array of a request object.
pub(crate) fn take_messages(request: &mut Map<String, Value>) -> Result<Vec<Value>, Error> {
    match request.remove("messages") {
        Some(Value::Array(messages)) => Ok(messages),
        Some(_) => Err(Error::invalid_request(
            "messages must be an array",
            "messages",
        )),
        None => Err(Error::invalid_request("messages is missing", "messages")),
    }
}

/// Builds the returned messages from the caller's own, moving (never copying) what is kept.
pub fn apply_plan(mut messages: Vec<Value>, plan: &Plan) -> Vec<Value> {
    plan.messages
        .iter()
        .map(|planned| {
            let mut message = std::mem::take(&mut messages[planned.index]);
            let Value::Object(obj) = &mut message else {
                return message;
            };
            if planned.remove_tool_calls {
                obj.shift_remove("tool_calls");
            }
            match &planned.content {
                None => {}
                Some(NewContent::Text(text)) => {
                    obj.insert("content".into(), Value::String(text.clone()));
                }
                Some(NewContent::Parts(parts)) => {
                    let mut old = match obj.get_mut("content").map(Value::take) {
                        Some(Value::Array(old)) => old,
                        _ => Vec::new(),
                    };
                    let new = parts
                        .iter()
                        .map(|part| match part {
                            NewPart::Keep(p) => std::mem::take(&mut old[*p]),
                            NewPart::Text {
                                from: Some(p),
                                text,
                            } => {
                                let mut part = std::mem::take(&mut old[*p]);
                                part["text"] = Value::String(text.clone());
                                part
                            }
                            NewPart::Text { from: None, text } => {
                                let mut part = Map::new();
                                part.insert("type".into(), "text".into());
                                part.insert("text".into(), Value::String(text.clone()));
                                Value::Object(part)
                            }
                        })
                        .collect();
                    obj.insert("content".into(), Value::Array(new));
                }
            }
            message
        })
        .collect()
}

fn response(messages: Vec<Value>, plan: &Plan, repairs_only: bool) -> Value {
    let report = if repairs_only {
        let mut r = Map::new();
        r.insert("repaired".into(), plan.report.to_json()["repaired"].take());
        Value::Object(r)
    } else {
        plan.report.to_json()
    };
    let mut out = Map::new();
    out.insert("ok".into(), true.into());
    out.insert("messages".into(), Value::Array(messages));
    out.insert("report".into(), report);
    Value::Object(out)
}

fn parse_json(text: &str) -> Result<Value, Error> {
    serde_json::from_str(text)
        .map_err(|e| Error::new(ErrorCode::InvalidJson, format!("invalid JSON: {e}")))
}

fn respond(result: Result<Value, Error>, capacity: usize) -> String {
    match result {
        Ok(value) => crate::json::to_json_string_with_capacity(&value, capacity),
        Err(error) => error.to_response().to_string(),
    }
}

//! Structured: structurally valid random sessions (every role, string / null / absent / array
//! content, text, attachments, images of every format and size, remote and unreadable URLs,
//! other parts, tool exchanges with and without defects, orphans, unknown roles) and random
//! budgets. Every `ok` answer must keep the invariants of tests/properties.rs:
//!
//! - its cost, by an independent cost model, is the report's `cost_bytes` and ≤ the budget;
//! - tool exchanges are whole; input order is kept; the newest user message that survives
//!   repair is there, and its string text is whole; the pinned system message is unchanged;
//! - the report's numbers agree with the messages;
//! - trimming the output again with the same options changes nothing.
//!
//! Errors must be the expected ones: `history_budget_too_small` exactly when the budget is
//! below 512, `image_overflow` only in `error` mode, `context_budget_exceeded`; never
//! `invalid_request` (the sessions are valid) nor `internal`.

#![no_main]

use ankita::api::{sanitize_value, trim_value};
use ankita::pricing::{price_image_url, ImageProfile};
use arbitrary::Arbitrary;
use base64::Engine;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};
use std::collections::HashSet;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Text {
    Empty,
    Short(u8),
    Sized { len: u16, seed: u8 },
}

const UNITS: &[&str] = &[
    "word ",
    "é",
    "世界",
    "🦀",
    "line\n",
    "\"q\\\" ",
    "\u{0}",
    "Attached file: ",
    "\u{2028}",
    "x",
];

fn text(t: Text) -> String {
    let (len, seed) = match t {
        Text::Empty => return String::new(),
        Text::Short(seed) => (usize::from(seed % 40) + 1, seed),
        Text::Sized { len, seed } => (usize::from(len), seed),
    };
    let a = UNITS[usize::from(seed) % UNITS.len()];
    let b = UNITS[usize::from(seed / 16) % UNITS.len()];
    let unit = format!("{a}{b}{seed} ");
    let mut s = unit.repeat(len / unit.len() + 1);
    let mut cut = len.min(s.len());
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.truncate(cut);
    s
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Image {
    Gif(u16, u16),
    Png(u32, u32),
    Jpeg(u16, u16),
    /// 24-bit canvas size minus one.
    WebpVp8x(u32, u32),
    /// 14-bit sizes minus one.
    WebpVp8l(u16, u16),
    Remote(u8),
    /// A data URL whose header cannot be read: costs its length.
    Garbage(u8),
    /// Not a URL at all.
    Word(u8),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Detail {
    Low,
    High,
    Auto,
    Other,
}

#[derive(Arbitrary, Debug, Clone)]
enum Part {
    Text(Text),
    Attachment(Text),
    /// A text part carrying another field that must pass through.
    CachedText(Text),
    Image {
        image: Image,
        detail: Option<Detail>,
        bare_url: bool,
    },
    Other(u8),
}

#[derive(Arbitrary, Debug, Clone)]
enum Content {
    Absent,
    Null,
    Str(Text),
    Parts(Vec<Part>),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Flaw {
    MissingReply,
    ExtraReply,
    DuplicateReply,
    UnknownId,
    DuplicateCallId,
    BadType,
    NameNotString,
    ArgsNotString,
    MissingId,
    EmptyCalls,
    NotObject,
    ReplyAfterUser,
}

#[derive(Arbitrary, Debug, Clone)]
enum Turn {
    System(Content),
    Developer(Content),
    User(Content),
    Assistant {
        content: Content,
        refusal: bool,
    },
    Exchange {
        content: Content,
        calls: u8,
        args: Text,
        replies: Vec<Text>,
        rotate: u8,
        flaw: Option<Flaw>,
    },
    Orphan(Text),
    UnknownRole(Text),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Mode {
    Placeholder,
    Drop,
    Error,
}

/// A number of the budget: mostly ordinary, sometimes anything a u64 holds.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Num {
    Small(u16),
    Medium(u32),
    Any(u64),
}

impl Num {
    fn get(self) -> u64 {
        match self {
            Num::Small(n) => n.into(),
            Num::Medium(n) => n.into(),
            Num::Any(n) => n,
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
struct Context {
    tokens: Num,
    max_output: Num,
    overhead: Option<u16>,
    bytes_per_token: Num,
    tools: u8,
    memory: u16,
}

#[derive(Arbitrary, Debug, Clone)]
struct Session {
    turns: Vec<Turn>,
    /// ×4, so budgets from 0 to 256 KiB.
    max_bytes: Option<u16>,
    context: Option<Context>,
    max_messages: Option<u8>,
    mode: Option<Mode>,
    profile: Option<u8>,
}

fn image_url(image: Image) -> String {
    let (media, bytes): (&str, Vec<u8>) = match image {
        Image::Gif(w, h) => {
            let mut b = b"GIF89a".to_vec();
            b.extend(w.to_le_bytes());
            b.extend(h.to_le_bytes());
            b.extend([0xF7, 0, 0]);
            ("gif", b)
        }
        Image::Png(w, h) => {
            let mut b = vec![
                0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n', 0, 0, 0, 13,
            ];
            b.extend(b"IHDR");
            b.extend(w.to_be_bytes());
            b.extend(h.to_be_bytes());
            b.extend([8, 6, 0, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF]);
            ("png", b)
        }
        Image::Jpeg(w, h) => {
            let mut b = vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC2, 0, 17, 8];
            b.extend(h.to_be_bytes());
            b.extend(w.to_be_bytes());
            b.extend([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
            ("jpeg", b)
        }
        Image::WebpVp8x(w, h) => {
            let mut b = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\x10\0\0\0".to_vec();
            b.extend(&w.to_le_bytes()[..3]);
            b.extend(&h.to_le_bytes()[..3]);
            ("webp", b)
        }
        Image::WebpVp8l(w, h) => {
            let bits = u32::from(w & 0x3FFF) | (u32::from(h & 0x3FFF) << 14);
            let mut b = b"RIFF\0\0\0\0WEBPVP8L\x05\0\0\0\x2f".to_vec();
            b.extend(bits.to_le_bytes());
            ("webp", b)
        }
        Image::Remote(n) => return format!("https://example.com/{n}.png"),
        Image::Garbage(n) => {
            return format!(
                "data:image/png;base64,{}",
                "QUJD".repeat(usize::from(n) + 1)
            )
        }
        Image::Word(n) => return format!("picture-{n}.png"),
    };
    format!(
        "data:image/{media};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    )
}

fn part(p: &Part) -> Value {
    match p {
        Part::Text(t) => json!({"type": "text", "text": text(*t)}),
        Part::Attachment(t) => {
            json!({"type": "text", "text": format!("Attached file: notes.txt\n{}", text(*t))})
        }
        Part::CachedText(t) => {
            json!({"type": "text", "text": text(*t), "cache_control": {"type": "ephemeral"}})
        }
        Part::Image {
            image,
            detail,
            bare_url,
        } => {
            let url = image_url(*image);
            if *bare_url {
                return json!({"type": "image_url", "image_url": url});
            }
            let mut inner = json!({"url": url});
            if let Some(d) = detail {
                inner["detail"] = json!(match d {
                    Detail::Low => "low",
                    Detail::High => "high",
                    Detail::Auto => "auto",
                    Detail::Other => "ultra",
                });
            }
            json!({"type": "image_url", "image_url": inner})
        }
        // A part type of no format: priced by its JSON (input_audio is priced as audio now).
        Part::Other(n) => json!({"type": "x_custom", "x_custom": {"data": "AAAA", "n": n}}),
    }
}

fn message(role: &str, content: &Content) -> Value {
    let mut m = Map::new();
    m.insert("role".into(), role.into());
    match content {
        Content::Absent => {}
        Content::Null => {
            m.insert("content".into(), Value::Null);
        }
        Content::Str(t) => {
            m.insert("content".into(), text(*t).into());
        }
        Content::Parts(parts) => {
            m.insert(
                "content".into(),
                Value::Array(parts.iter().take(6).map(part).collect()),
            );
        }
    }
    Value::Object(m)
}

fn build(turns: &[Turn]) -> Vec<Value> {
    let mut out = Vec::new();
    for (t, turn) in turns.iter().take(80).enumerate() {
        match turn {
            Turn::System(c) => out.push(message("system", c)),
            Turn::Developer(c) => out.push(message("developer", c)),
            Turn::User(c) => out.push(message("user", c)),
            Turn::Assistant { content, refusal } => {
                let mut m = message("assistant", content);
                if *refusal {
                    m["refusal"] = json!("I can't help with that.");
                }
                out.push(m);
            }
            Turn::Exchange {
                content,
                calls,
                args,
                replies,
                rotate,
                flaw,
            } => {
                let n = usize::from(calls % 4) + 1;
                let mut ids: Vec<String> = (0..n).map(|c| format!("call_{t}_{c}")).collect();
                let mut tool_calls: Vec<Value> = ids
                    .iter()
                    .map(|id| {
                        json!({"id": id, "type": "function",
                               "function": {"name": "search", "arguments": text(*args)}})
                    })
                    .collect();
                match flaw {
                    Some(Flaw::DuplicateCallId) if n > 1 => {
                        tool_calls[1]["id"] = json!(ids[0]);
                        ids[1] = ids[0].clone();
                    }
                    Some(Flaw::BadType) => tool_calls[0]["type"] = json!("retrieval"),
                    Some(Flaw::NameNotString) => tool_calls[0]["function"]["name"] = json!(7),
                    Some(Flaw::ArgsNotString) => {
                        tool_calls[0]["function"]["arguments"] = json!({"q": 1})
                    }
                    Some(Flaw::MissingId) => {
                        tool_calls[0].as_object_mut().unwrap().remove("id");
                    }
                    Some(Flaw::EmptyCalls) => tool_calls.clear(),
                    Some(Flaw::NotObject) => tool_calls[0] = json!("call"),
                    _ => {}
                }
                let mut m = message("assistant", content);
                m["tool_calls"] = Value::Array(tool_calls);
                out.push(m);
                let mut reply_ids: Vec<String> = ids.clone();
                match flaw {
                    Some(Flaw::MissingReply) => {
                        reply_ids.pop();
                    }
                    Some(Flaw::ExtraReply) => reply_ids.push(format!("call_{t}_extra")),
                    Some(Flaw::DuplicateReply) => reply_ids.push(ids[0].clone()),
                    Some(Flaw::UnknownId) => reply_ids[0] = "nobody".into(),
                    Some(Flaw::ReplyAfterUser) => {
                        out.push(json!({"role": "user", "content": "wait"}))
                    }
                    _ => {}
                }
                let len = reply_ids.len().max(1);
                reply_ids.rotate_left(usize::from(*rotate) % len);
                for (r, id) in reply_ids.iter().enumerate() {
                    let body = replies.get(r).copied().unwrap_or(Text::Short(r as u8));
                    out.push(json!({"role": "tool", "tool_call_id": id, "content": text(body)}));
                }
            }
            Turn::Orphan(t) => {
                out.push(json!({"role": "tool", "tool_call_id": "orphan", "content": text(*t)}))
            }
            Turn::UnknownRole(t) => out.push(json!({"role": "narrator", "content": text(*t)})),
        }
    }
    for (i, m) in out.iter_mut().enumerate() {
        m["x_id"] = json!(i);
    }
    out
}

struct Pricing {
    profile: ImageProfile,
    bytes_per_token: u64,
}

/// DESIGN §2, computed independently of the trimmer (in u128: an image may cost u64::MAX).
fn cost(message: &Value, pricing: &Pricing) -> u128 {
    let obj = message.as_object().unwrap();
    let meta: Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| *k != "content")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let body: u128 = match obj.get("content") {
        Some(Value::String(s)) => s.len() as u128,
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|p| match p["type"].as_str() {
                Some("text") => p["text"].as_str().unwrap().len() as u128,
                Some("image_url") => {
                    let (url, detail) = match &p["image_url"] {
                        Value::String(url) => (url.as_str(), None),
                        inner => (inner["url"].as_str().unwrap(), inner["detail"].as_str()),
                    };
                    price_image_url(url, pricing.profile, detail, pricing.bytes_per_token)
                        .budget_bytes
                        .into()
                }
                _ => p.to_string().len() as u128,
            })
            .sum(),
        _ => 0,
    };
    Value::Object(meta).to_string().len() as u128 + body
}

fn check_tool_structure(messages: &[Value]) {
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        assert!(m["role"] != "tool", "tool message {i} without its call");
        if let Some(calls) = m.get("tool_calls").and_then(Value::as_array) {
            let ids: HashSet<&str> = calls.iter().map(|c| c["id"].as_str().unwrap()).collect();
            assert_eq!(ids.len(), calls.len(), "duplicate call ids kept at {i}");
            let mut seen = HashSet::new();
            let mut j = i + 1;
            while j < messages.len() && messages[j]["role"] == "tool" {
                let id = messages[j]["tool_call_id"].as_str().unwrap();
                assert!(
                    ids.contains(id) && seen.insert(id),
                    "reply {j} does not match the calls of {i}"
                );
                j += 1;
            }
            assert_eq!(seen.len(), ids.len(), "calls of {i} are missing replies");
            i = j;
        } else {
            i += 1;
        }
    }
}

fn ids(messages: &[Value]) -> Vec<u64> {
    messages
        .iter()
        .map(|m| m["x_id"].as_u64().unwrap())
        .collect()
}

fuzz_target!(|session: Session| {
    let messages = build(&session.turns);
    let mut request = json!({"messages": messages});
    let profile_name = session
        .profile
        .map(|p| ImageProfile::NAMES[usize::from(p) % ImageProfile::NAMES.len()]);
    if let Some(name) = profile_name {
        request["image_profile"] = json!(name);
    }
    let mut bytes_per_token = 4u64;
    let mut budget: Option<i128> = None;
    if let Some(m) = session.max_bytes {
        request["max_bytes"] = json!(u64::from(m) * 4);
        budget = Some(i128::from(m) * 4);
    }
    if let Some(c) = session.context {
        bytes_per_token = c.bytes_per_token.get().max(1);
        let tools: Vec<Value> = (0..c.tools % 4)
            .map(|i| json!({"type": "function", "function": {"name": format!("tool{i}"), "parameters": {}}}))
            .collect();
        let memory = "m".repeat(usize::from(c.memory % 4096));
        request["context_tokens"] = json!(c.tokens.get());
        request["max_output_tokens"] = json!(c.max_output.get());
        request["bytes_per_token"] = json!(bytes_per_token);
        request["tools"] = json!(tools);
        request["memory"] = json!(memory);
        let overhead = c.overhead.map_or(1024, i128::from);
        if let Some(o) = c.overhead {
            request["overhead_bytes"] = json!(o);
        }
        // DESIGN §7 with the products exact: past ±2¹²⁷ the sign is all that matters.
        let window = i128::from(c.tokens.get()) - i128::from(c.max_output.get());
        let from_context = window
            .checked_mul(i128::from(bytes_per_token))
            .unwrap_or(if window > 0 { i128::MAX } else { i128::MIN })
            .saturating_sub(overhead)
            .saturating_sub(request["tools"].to_string().len() as i128)
            .saturating_sub(memory.len() as i128);
        budget = Some(budget.map_or(from_context, |b| b.min(from_context)));
    }
    if let Some(n) = session.max_messages {
        request["max_messages"] = json!(n);
    }
    let mode = session.mode.map(|m| match m {
        Mode::Placeholder => "placeholder",
        Mode::Drop => "drop",
        Mode::Error => "error",
    });
    if let Some(mode) = mode {
        request["on_image_overflow"] = json!(mode);
    }
    let pricing = Pricing {
        profile: profile_name.map_or(ImageProfile::default(), |n| {
            ImageProfile::from_name(n).unwrap()
        }),
        bytes_per_token,
    };

    let response = match trim_value(request.clone()) {
        Ok(response) => response,
        Err(e) => {
            match e.code.as_str() {
                "history_budget_too_small" => {
                    assert!(
                        budget.is_some_and(|b| b < 512),
                        "{e} with budget {budget:?}"
                    )
                }
                "image_overflow" => assert_eq!(mode, Some("error"), "{e}"),
                "context_budget_exceeded" => assert!(budget.is_some(), "{e}"),
                _ => panic!("unexpected error {e}"),
            }
            return;
        }
    };
    assert!(
        budget.is_none_or(|b| b >= 512),
        "a budget of {budget:?} was accepted"
    );
    let out = response["messages"].as_array().unwrap();
    let report = &response["report"];

    // Cost and budget.
    let total: u128 = out.iter().map(|m| cost(m, &pricing)).sum();
    let saturated = u64::try_from(total).unwrap_or(u64::MAX);
    assert_eq!(Some(saturated), report["cost_bytes"].as_u64(), "cost model");
    if let Some(b) = budget {
        let b = b.min(i128::from(u64::MAX));
        assert_eq!(report["budget_bytes"].as_u64().map(i128::from), Some(b));
        assert!(total <= b as u128, "cost {total} over budget {b}");
    }
    // Tool exchanges whole, input order kept.
    check_tool_structure(out);
    let kept = ids(out);
    assert!(kept.windows(2).all(|w| w[0] < w[1]), "order {kept:?}");
    // The report agrees with the messages.
    assert_eq!(
        report["input_messages"].as_u64(),
        Some(messages.len() as u64)
    );
    assert_eq!(report["output_messages"].as_u64(), Some(out.len() as u64));
    let dropped: Vec<u64> = report["dropped_messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect();
    assert!(dropped.windows(2).all(|w| w[0] < w[1]));
    assert!(dropped
        .iter()
        .all(|d| !kept.contains(d) && *d < messages.len() as u64));
    for key in ["truncated", "dropped_images", "dropped_attachments"] {
        for entry in report[key].as_array().unwrap() {
            let index = entry["index"].as_u64().unwrap();
            assert!(kept.contains(&index), "{key} names dropped message {index}");
        }
    }
    for t in report["truncated"].as_array().unwrap() {
        assert!(t["to_bytes"].as_u64() < t["from_bytes"].as_u64(), "{t}");
    }

    // The request and the pinned system message.
    let repaired = sanitize_value(json!(messages)).expect("sanitize accepts what trim accepts");
    let repaired = repaired["messages"].as_array().unwrap();
    if let Some(request_msg) = repaired.iter().rev().find(|m| m["role"] == "user") {
        let original = out
            .iter()
            .find(|m| m["x_id"] == request_msg["x_id"])
            .expect("the newest user message is kept");
        if request_msg["content"].is_string() {
            assert_eq!(
                original["content"], request_msg["content"],
                "request text changed"
            );
        }
    }
    if let Some(first) = repaired.first() {
        if first["role"] == "system" || first["role"] == "developer" {
            assert_eq!(out.first(), Some(first), "pinned message changed");
        }
    }

    // Idempotent.
    request["messages"] = Value::Array(out.clone());
    let again = trim_value(request).unwrap_or_else(|e| panic!("second pass failed: {e}"));
    assert_eq!(
        again["messages"], response["messages"],
        "second pass changed the messages"
    );
});

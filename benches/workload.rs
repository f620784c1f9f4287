//! A realistic long session for benchmarks: 200 messages with a system prompt, user turns with
//! pasted screenshots (real PNG headers padded with incompressible bytes to ~1 MB of base64
//! each), attachments, and tool loops with multi-kilobyte outputs; a text-only agent session;
//! the same sessions in the Anthropic and Gemini formats.
#![allow(dead_code)] // each benchmark uses some of the workloads

use base64::{engine::general_purpose::STANDARD, Engine};
use serde_json::{json, Value};

/// xorshift64*: deterministic filler without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn screenshot(rng: &mut Rng, raw_bytes: usize) -> String {
    let mut png = vec![
        0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n', 0, 0, 0, 13,
    ];
    png.extend(b"IHDR");
    png.extend(1920u32.to_be_bytes());
    png.extend(1080u32.to_be_bytes());
    png.extend([8, 6, 0, 0, 0]);
    while png.len() < raw_bytes {
        png.extend(rng.next().to_le_bytes());
    }
    format!("data:image/png;base64,{}", STANDARD.encode(&png))
}

fn prose(rng: &mut Rng, bytes: usize) -> String {
    const WORDS: [&str; 12] = [
        "build", "failed", "at", "line", "the", "config", "value", "error:", "expected", "token",
        "while", "parsing",
    ];
    let mut s = String::with_capacity(bytes + 16);
    while s.len() < bytes {
        s.push_str(WORDS[(rng.next() % 12) as usize]);
        s.push(' ');
    }
    s
}

/// The messages of the session: `messages` in all, `screenshots` of them pasted images.
pub fn session(messages: usize, screenshots: usize, screenshot_raw_bytes: usize) -> Vec<Value> {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut out = vec![json!({"role": "system", "content": prose(&mut rng, 1500)})];
    // Four messages a turn; screenshots spread evenly over the turns.
    let turns = messages / 4;
    let mut shots_taken = 0;
    let mut turn = 0;
    while out.len() < messages {
        if shots_taken < screenshots && turn * screenshots >= shots_taken * turns {
            shots_taken += 1;
            out.push(json!({"role": "user", "content": [
                {"type": "text", "text": format!("Screenshot {turn}: what is wrong here?")},
                {"type": "image_url", "image_url": {"url": screenshot(&mut rng, screenshot_raw_bytes), "detail": "auto"}},
            ]}));
        } else if turn % 7 == 3 {
            out.push(json!({"role": "user", "content": [
                {"type": "text", "text": "Here is the log."},
                {"type": "text", "text": format!("Attached file: build-{turn}.log\n{}", prose(&mut rng, 6000))},
            ]}));
        } else {
            out.push(json!({"role": "user", "content": prose(&mut rng, 300)}));
        }
        let id = format!("call_{turn}");
        out.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "read_file", "arguments": format!("{{\"path\":\"src/m{turn}.rs\"}}")}},
        ]}));
        let output_bytes = 2000 + (rng.next() % 6000) as usize;
        out.push(
            json!({"role": "tool", "tool_call_id": id, "content": prose(&mut rng, output_bytes)}),
        );
        out.push(json!({"role": "assistant", "content": prose(&mut rng, 600)}));
        turn += 1;
    }
    out.truncate(messages - 1);
    out.push(json!({"role": "user", "content": "Which screenshot showed the parser error?"}));
    out
}

/// A text-only agent session of `messages` messages (~250 bytes each): user turns, tool calls
/// with short results, assistant answers; a system prompt first and a question last.
pub fn chat(messages: usize) -> Vec<Value> {
    let mut rng = Rng(0x5EED_CAFE_0000_0002);
    let mut out = vec![json!({"role": "system", "content": prose(&mut rng, 600)})];
    let mut turn = 0;
    while out.len() < messages {
        let n = 120 + (rng.next() % 160) as usize;
        out.push(json!({"role": "user", "content": prose(&mut rng, n)}));
        let id = format!("call_{turn:08}");
        out.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "grep", "arguments": format!("{{\"pattern\":\"fn m{turn}\"}}")}},
        ]}));
        let n = 200 + (rng.next() % 300) as usize;
        out.push(json!({"role": "tool", "tool_call_id": id, "content": prose(&mut rng, n)}));
        let n = 100 + (rng.next() % 200) as usize;
        out.push(json!({"role": "assistant", "content": prose(&mut rng, n)}));
        turn += 1;
    }
    out.truncate(messages - 1);
    out.push(json!({"role": "user", "content": "So where is the parser defined?"}));
    out
}

/// The same session in the Anthropic Messages format: the system prompt apart, tool calls as
/// `tool_use` blocks, results as `tool_result` blocks of the next user message, images as
/// base64 image blocks.
pub fn to_anthropic(messages: &[Value]) -> (Value, Vec<Value>) {
    let mut system = Value::Null;
    let mut out: Vec<Value> = Vec::new();
    for m in messages {
        let role = m["role"].as_str().unwrap_or("user");
        let block = |part: &Value| -> Value {
            match part["type"].as_str() {
                Some("image_url") => {
                    let url = part["image_url"]["url"].as_str().unwrap_or("");
                    let (head, data) = url.split_once(',').unwrap_or(("", url));
                    let media = head.trim_start_matches("data:").trim_end_matches(";base64");
                    json!({"type": "image", "source": {"type": "base64", "media_type": media, "data": data}})
                }
                _ => part.clone(),
            }
        };
        let content: Vec<Value> = match &m["content"] {
            Value::String(s) => vec![json!({"type": "text", "text": s})],
            Value::Array(parts) => parts.iter().map(block).collect(),
            _ => Vec::new(),
        };
        match role {
            "system" => system = m["content"].clone(),
            "tool" => {
                let result = json!({"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]});
                match out.last_mut() {
                    Some(last) if last["role"] == "user" => {
                        last["content"].as_array_mut().unwrap().push(result)
                    }
                    _ => out.push(json!({"role": "user", "content": [result]})),
                }
            }
            "assistant" => {
                let mut blocks = content;
                for call in m["tool_calls"].as_array().into_iter().flatten() {
                    let input: Value = serde_json::from_str(
                        call["function"]["arguments"].as_str().unwrap_or("{}"),
                    )
                    .unwrap_or(json!({}));
                    blocks.push(json!({"type": "tool_use", "id": call["id"], "name": call["function"]["name"], "input": input}));
                }
                match out.last_mut() {
                    Some(last) if last["role"] == "assistant" => {
                        last["content"].as_array_mut().unwrap().extend(blocks)
                    }
                    _ => out.push(json!({"role": "assistant", "content": blocks})),
                }
            }
            _ => match out.last_mut() {
                Some(last) if last["role"] == "user" => {
                    last["content"].as_array_mut().unwrap().extend(content)
                }
                _ => out.push(json!({"role": "user", "content": content})),
            },
        }
    }
    (system, out)
}

/// The same session as OpenAI Responses input items: the system prompt as the instructions, a
/// tool call as a `function_call` item (after the assistant's words, when it has any), a tool
/// reply as a `function_call_output` item, text parts as `input_text`/`output_text`, images as
/// `input_image` parts.
pub fn to_responses(messages: &[Value]) -> (Value, Vec<Value>) {
    let mut instructions = Value::Null;
    let mut out: Vec<Value> = Vec::new();
    for m in messages {
        let role = m["role"].as_str().unwrap_or("user");
        let text_type = if role == "assistant" {
            "output_text"
        } else {
            "input_text"
        };
        let part = |part: &Value| -> Value {
            match part["type"].as_str() {
                Some("image_url") => {
                    json!({"type": "input_image", "image_url": part["image_url"]["url"], "detail": "auto"})
                }
                Some("text") => json!({"type": text_type, "text": part["text"]}),
                _ => part.clone(),
            }
        };
        let content = match &m["content"] {
            Value::Array(parts) => Value::Array(parts.iter().map(part).collect()),
            other => other.clone(),
        };
        match role {
            "system" => instructions = content,
            "tool" => out.push(json!({"type": "function_call_output", "call_id": m["tool_call_id"], "output": content})),
            _ => {
                if !content.is_null() {
                    out.push(json!({"type": "message", "role": role, "content": content}));
                }
                for call in m["tool_calls"].as_array().into_iter().flatten() {
                    out.push(json!({"type": "function_call", "call_id": call["id"],
                        "name": call["function"]["name"], "arguments": call["function"]["arguments"]}));
                }
            }
        }
    }
    (instructions, out)
}

/// The same session as Gemini contents (REST camelCase): the system prompt apart (a `Content`),
/// tool calls as `functionCall` parts of a `model` content (with their ids), results as
/// `functionResponse` parts of the next user content, images as `inlineData` parts.
pub fn to_gemini(messages: &[Value]) -> (Value, Vec<Value>) {
    let mut system = Value::Null;
    let mut out: Vec<Value> = Vec::new();
    let mut names = std::collections::HashMap::new();
    for m in messages {
        let part = |part: &Value| -> Value {
            match part["type"].as_str() {
                Some("image_url") => {
                    let url = part["image_url"]["url"].as_str().unwrap_or("");
                    let (head, data) = url.split_once(',').unwrap_or(("", url));
                    let media = head.trim_start_matches("data:").trim_end_matches(";base64");
                    json!({"inlineData": {"mimeType": media, "data": data}})
                }
                _ => json!({"text": part["text"]}),
            }
        };
        let parts: Vec<Value> = match &m["content"] {
            Value::String(s) => vec![json!({"text": s})],
            Value::Array(p) => p.iter().map(part).collect(),
            _ => Vec::new(),
        };
        let (role, parts) = match m["role"].as_str().unwrap_or("user") {
            "system" => {
                system = json!({"parts": parts});
                continue;
            }
            "tool" => {
                let id = m["tool_call_id"].as_str().unwrap_or_default();
                let name = names.get(id).cloned().unwrap_or_else(|| "tool".to_owned());
                let response = json!({"functionResponse": {"id": id, "name": name, "response": {"output": m["content"]}}});
                ("user", vec![response])
            }
            "assistant" => {
                let mut parts = parts;
                for call in m["tool_calls"].as_array().into_iter().flatten() {
                    let args: Value = serde_json::from_str(
                        call["function"]["arguments"].as_str().unwrap_or("{}"),
                    )
                    .unwrap_or(json!({}));
                    let name = call["function"]["name"]
                        .as_str()
                        .unwrap_or("tool")
                        .to_owned();
                    names.insert(
                        call["id"].as_str().unwrap_or_default().to_owned(),
                        name.clone(),
                    );
                    parts.push(
                        json!({"functionCall": {"id": call["id"], "name": name, "args": args}}),
                    );
                }
                ("model", parts)
            }
            _ => ("user", parts),
        };
        match out.last_mut() {
            Some(last) if last["role"] == role => {
                last["parts"].as_array_mut().unwrap().extend(parts)
            }
            _ => out.push(json!({"role": role, "parts": parts})),
        }
    }
    (system, out)
}

//! Stand-ins against the whole history: on long agent histories in every format (tool
//! exchanges, part lists, thinking and reasoning, calls whose input holds long text; repairs
//! needed near and far from the cut: orphan replies, unanswered calls, empty messages), a
//! driver that sends tails as the bindings do, each older message but message 0 sent as its
//! stand-in by the format's `stand_in` facts (`ankita_formats`: long strings under its
//! `text_keys`, and every long string inside its `data_keys`, replaced — some left as they are,
//! as a binding may), must get the answer the whole history's trim gives, byte for byte.

#[path = "../examples/agent_loop/mod.rs"]
mod agent_loop;
#[path = "support/tail.rs"]
mod support;

use agent_loop::{write, Rng, Step, FORMATS};
use ankita::format::describe_formats;
use ankita::tail::driver::TAIL_DRIVER;
use ankita::tail::trim_tail_json;
use proptest::prelude::*;
use serde_json::{json, Value};
use support::{facts, older, older_with_turns, plain, runs, stand_in, turns, Facts, Pick};

fn answer(request: &Value) -> String {
    trim_tail_json(&request.to_string())
}

impl Pick for Rng {
    fn keep(&mut self) -> bool {
        self.range(0, 7) == 0
    }
}

/// Long prose of `n` characters or so, some of it not ASCII.
fn prose(rng: &mut Rng, n: usize) -> String {
    const WORDS: &[&str] = &[
        "the", "parser", "fails", "when", "naïve", "input", "→", "is", "\"q\"",
    ];
    let mut s = String::new();
    while s.chars().count() < n {
        s.push_str(WORDS[rng.range(0, WORDS.len() - 1)]);
        s.push(' ');
    }
    s
}

/// A long agent session: tasks and runs of plain chat; tool calls and results lost anywhere
/// (orphan results, unanswered calls).
fn steps(seed: u64, length: usize) -> Vec<Step> {
    let mut rng = Rng::new(seed);
    let tasks = agent_loop::steps(seed, length / 6 + 4);
    let mut out = Vec::new();
    let mut k = 0;
    while out.len() < length && k < tasks.len() {
        if rng.range(0, 3) == 0 {
            for i in 0..rng.range(1, 6) {
                out.push(Step::User(format!(
                    "chat {i}: and the {}?",
                    rng.next() % 97
                )));
                out.push(Step::Answer(format!("It is {} bytes.", rng.next() % 1000)));
            }
        }
        let end = (k + 1..tasks.len())
            .find(|&j| matches!(tasks[j], Step::User(_)))
            .unwrap_or(tasks.len());
        for step in &tasks[k..end] {
            let lose = matches!(step, Step::Call(..) | Step::Result(..)) && rng.range(0, 11) == 0;
            if !lose {
                out.push(step.clone());
            }
        }
        k = end;
    }
    out.push(Step::User("And now?".into()));
    out
}

/// The session's messages with the shapes of agent histories the plain generator does not
/// write: part lists, thinking, reasoning items, long call inputs, refusals, empty messages.
fn decorate(format: &str, messages: Vec<Value>, rng: &mut Rng) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len() + messages.len() / 8);
    for (i, mut m) in messages.into_iter().enumerate() {
        let role = m["role"].as_str().unwrap_or("").to_owned();
        let pick = rng.range(0, 11);
        // Message 0 (the system prompt in some formats) stays as written.
        if i == 0 {
            out.push(m);
            continue;
        }
        // An empty message of the model's, which repair removes.
        if pick == 0 {
            out.push(match format {
                "gemini" => json!({"role": "model", "parts": []}),
                "responses" => json!({"type": "message", "role": "assistant", "content": ""}),
                _ => json!({"role": "assistant", "content": ""}),
            });
        }
        let n = 80 + rng.range(0, 400);
        let long = prose(rng, n);
        let call = m.get("tool_calls").is_some()
            || m["type"] == "function_call"
            || m["content"].as_array().is_some_and(|c| {
                c.iter()
                    .any(|p| p["type"] == "tool_use" || p["type"] == "tool-call")
            })
            || m["parts"]
                .as_array()
                .is_some_and(|p| p.iter().any(|p| p.get("functionCall").is_some()));
        // The replacement as the caller's own text.
        if pick == 10 && rng.range(0, 1) == 0 {
            match format {
                "gemini" => m["parts"][0]["text"] = json!("(stand-in)"),
                "responses" if m.get("output").is_some() => m["output"] = json!("(stand-in)"),
                _ if m["content"].is_string() => m["content"] = json!("(stand-in)"),
                _ => {}
            }
        }
        match (format, role.as_str()) {
            ("openai", "user") if pick < 4 => {
                m["content"] = json!([
                    {"type": "text", "text": long},
                    {"type": "text", "text": format!("Attached file: notes.txt\n{long}")},
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
                ]);
                if pick == 1 {
                    m["name"] = json!("dana");
                }
            }
            ("openai", "assistant") if call && pick < 4 => {
                let args = json!({"path": "src/lib.rs", "patch": long}).to_string();
                m["tool_calls"][0]["function"]["arguments"] = json!(args);
            }
            ("openai", "assistant") if pick == 5 => {
                m = json!({"role": "assistant", "content": null, "refusal": long});
            }
            ("anthropic", "assistant") if call && pick < 5 => {
                let blocks = m["content"].as_array_mut().unwrap();
                blocks.insert(
                    0,
                    json!({"type": "thinking", "thinking": long, "signature": "c2ln"}),
                );
                if pick < 2 {
                    let last = blocks.last_mut().unwrap();
                    last["input"]["notes"] = json!([prose(rng, 100), {"deep": prose(rng, 90)}]);
                }
            }
            ("anthropic", "user") if pick < 3 => {
                let blocks = m["content"].as_array_mut();
                match blocks {
                    Some(blocks) if blocks[0]["type"] == "tool_result" => {
                        let output = blocks[0]["content"].clone();
                        blocks[0]["content"] = json!([
                            {"type": "text", "text": output},
                            {"type": "text", "text": long},
                        ]);
                    }
                    _ => {
                        m["content"] = json!([
                            {"type": "text", "text": long},
                            {"type": "document", "source":
                                {"type": "text", "media_type": "text/plain", "data": prose(rng, 90)},
                             "title": "notes"},
                        ]);
                    }
                }
            }
            ("responses", _) if m["type"] == "function_call" && pick < 4 => {
                out.push(json!({
                    "type": "reasoning", "id": format!("rs_{i}"),
                    "summary": [{"type": "summary_text", "text": long}],
                }));
            }
            ("responses", "user") if pick < 3 => {
                m = json!({"type": "message", "role": "user",
                    "content": [{"type": "input_text", "text": long}]});
            }
            ("responses", "assistant") if pick < 3 => {
                m = json!({"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": long}]});
            }
            ("gemini", "model") if pick < 4 => {
                let parts = m["parts"].as_array_mut().unwrap();
                parts.insert(0, json!({"text": long, "thought": true}));
                if call && pick < 2 {
                    let last = parts.last_mut().unwrap();
                    last["functionCall"]["args"]["notes"] = json!(prose(rng, 120));
                }
            }
            ("gemini", "user") if pick < 3 => {
                let parts = m["parts"].as_array_mut().unwrap();
                if let Some(response) = parts[0].get_mut("functionResponse") {
                    response["response"]["details"] = json!({"log": [long]});
                } else {
                    parts.push(json!({"text": long}));
                }
            }
            ("ai-sdk", "assistant") if pick < 4 => {
                if let Some(parts) = m["content"].as_array_mut() {
                    parts.insert(0, json!({"type": "reasoning", "text": long}));
                    if call && pick < 2 {
                        let last = parts.last_mut().unwrap();
                        last["input"]["notes"] = json!(prose(rng, 120));
                    }
                }
            }
            ("ai-sdk", "tool") if pick < 3 => {
                let output = m["content"][0]["output"]["value"].clone();
                m["content"][0]["output"] = json!({"type": "json", "value": {"log": output}});
            }
            ("ai-sdk", "user") if pick < 3 => {
                m["content"] = json!([{"type": "text", "text": long}]);
            }
            _ => {}
        }
        out.push(m);
    }
    out
}

/// A tail request from `from`, every given older message but message 0 as its stand-in;
/// with `sized` (a trim that nothing limits), the left-out messages' sizes and the stand-ins'
/// lengths; with `turned` (a trim with a limit), the runs of whole turns the format's `turns`
/// facts describe left out too.
#[allow(clippy::too_many_arguments)]
fn window_request(
    base: &Value,
    messages: &[Value],
    from: usize,
    format: &str,
    rng: &mut Rng,
    made: &mut usize,
    sized: bool,
    turned: bool,
) -> Value {
    let facts: Facts = facts(format);
    let (given, kinds) = if turned && !sized {
        older_with_turns(messages, from, &turns(format))
    } else {
        (older(messages, from), Vec::new())
    };
    let mut noted = sized.then(Vec::new);
    let earlier = runs(&given, |i| {
        if i == 0 {
            messages[0].clone()
        } else {
            stand_in(&messages[i], &facts, (false, false), rng, made, &mut noted)
        }
    });
    let mut request = base.clone();
    request["messages"] = Value::Array(messages[from..].to_vec());
    request["window"] = json!({"from": from, "earlier": earlier});
    if !kinds.is_empty() {
        request["window"]["gaps"] = json!(kinds);
    }
    if let Some(noted) = noted {
        let mut sizes = Vec::new();
        for (i, m) in messages[..from].iter().enumerate() {
            if given.binary_search(&i).is_err() {
                sizes.push(m["role"].clone());
                sizes.push(json!(m["content"].as_str().map_or(0, str::len)));
            }
        }
        request["window"]["sizes"] = Value::Array(sizes);
        request["window"]["stood_in"] = json!(noted);
    }
    request
}

/// Trims as the bindings do, with stand-ins (and, with `turned`, runs of whole turns left out
/// of a trim with a limit): the answer, how it was reached, how many strings were stood in.
fn drive(
    base: &Value,
    messages: &[Value],
    format: &str,
    seed: u64,
    turned: bool,
) -> (String, &'static str, usize) {
    let mut rng = Rng::new(seed);
    let mut made = 0;
    let n = messages.len();
    let given = |key: &str| base.get(key).is_some_and(|v| !v.is_null());
    let mut size = TAIL_DRIVER.first_tail(base.get("max_messages"), given);
    if size.is_none() && n > TAIL_DRIVER.min_before && !merges(format) {
        let request = window_request(
            base,
            messages,
            n - 1,
            format,
            &mut rng,
            &mut made,
            true,
            false,
        );
        let text = answer(&request);
        let answer: Value = serde_json::from_str(&text).unwrap();
        if answer.get("plan").is_some() {
            return (text, "sizes", made);
        }
        assert_eq!(answer["widen"], true, "{answer}");
    }
    while let Some(tail) = size.filter(|&s| n >= s.saturating_add(TAIL_DRIVER.min_before)) {
        let lowest = (n - tail).saturating_sub(tail).max(1);
        let mut from = n - tail;
        while from >= lowest && plain(&messages[from]).is_none_or(|r| r != "user") {
            from -= 1;
        }
        if from < lowest {
            size = TAIL_DRIVER.widened(tail, None);
            continue;
        }
        let request = window_request(
            base, messages, from, format, &mut rng, &mut made, false, turned,
        );
        let text = answer(&request);
        let answer: Value = serde_json::from_str(&text).unwrap();
        if answer.get("plan").is_some() {
            return (text, "tail", made);
        }
        if answer["ok"] != true {
            break;
        }
        size = match answer.get("scale") {
            Some(Value::Null) => None,
            scale => TAIL_DRIVER.widened(tail, scale.map(|s| s.as_f64().unwrap())),
        };
    }
    let mut request = base.clone();
    request["messages"] = Value::Array(messages.to_vec());
    (answer(&request), "whole", made)
}

/// Whether the format merges turns (its trims that nothing limits are sent whole).
fn merges(format: &str) -> bool {
    let all = describe_formats();
    let facts = all["formats"].as_array().unwrap();
    facts
        .iter()
        .any(|f| f["name"] == format && f["merges_turns"] == true)
}

/// Trims with a limit, and two that nothing limits (their stand-ins come with their lengths).
const OPTIONS: &[&str] = &[
    r#"{"max_messages": null}"#,
    r#"{"max_messages": null, "bytes_per_token": 3}"#,
    r#"{"max_messages": 40}"#,
    r#"{"max_messages": 12}"#,
    r#"{"max_bytes": 20000, "max_messages": null}"#,
    r#"{"context_tokens": 6000, "model": "gpt-4o"}"#,
    r#"{"max_bytes": 9000, "fill": false}"#,
    r#"{"max_bytes": 60000, "max_messages": 100}"#,
    r#"{}"#,
];

/// The history of `seed` in `format`, and the base request of `options`.
fn case(seed: u64, format: &str, options: &str, length: usize) -> (Vec<Value>, Value) {
    let (messages, system) = write(format, &steps(seed, length));
    let messages = decorate(format, messages, &mut Rng::new(seed ^ 0x5a5a));
    let mut base: Value = serde_json::from_str(options).unwrap();
    base["format"] = json!(format);
    if let Some(system) = system {
        base["system"] = system;
    }
    (messages, base)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn stand_ins_answer_the_whole_historys_trim(
        seed in 0u64..1_000_000,
        format in 0..FORMATS.len(),
        option in 0..OPTIONS.len(),
        length in 300usize..900,
        turned in any::<bool>(),
    ) {
        let format = FORMATS[format];
        let (messages, base) = case(seed, format, OPTIONS[option], length);
        let mut whole = base.clone();
        whole["messages"] = Value::Array(messages.clone());
        let expected = answer(&whole);
        prop_assert!(expected.starts_with(r#"{"ok":true"#), "{}", expected);
        let (got, how, _) = drive(&base, &messages, format, seed, turned);
        prop_assert_eq!(got, expected, "{} {} via {} (turns: {})", format, OPTIONS[option], how, turned);
    }
}

/// The stand-ins do answer: with a count limit every format's trim of a long agent history is
/// answered from a tail whose older messages went as stand-ins, repairs among them included.
#[test]
fn agent_histories_are_answered_from_stand_ins() {
    for format in FORMATS {
        let (messages, base) = case(11, format, r#"{"max_messages": 40}"#, 900);
        let mut whole = base.clone();
        whole["messages"] = Value::Array(messages.clone());
        let expected = answer(&whole);
        for turned in [false, true] {
            let (got, how, made) = drive(&base, &messages, format, 11, turned);
            assert_eq!(got, expected, "{format} {turned}");
            assert_eq!(how, "tail", "{format} {turned}");
            // Left out as whole turns, fewer messages go as stand-ins.
            let least = if turned { 0 } else { 100 };
            assert!(made > least, "{format}: {made} strings stood in");
        }
        let (got, _, _) = drive(&base, &messages, format, 11, false);
        let got: Value = serde_json::from_str(&got).unwrap();
        let repaired = got["report"]["repaired"].as_array().unwrap();
        assert!(
            repaired.iter().any(|r| r["index"].as_u64().unwrap() < 400),
            "{format}: {repaired:?}"
        );
    }
}

/// The facts list no key the trim reads for more than its being a non-empty string or its
/// JSON type.
#[test]
fn no_key_the_trim_reads_is_listed() {
    const READ: &[&str] = &[
        "role",
        "type",
        "id",
        "name",
        "tool_call_id",
        "tool_use_id",
        "call_id",
        "toolCallId",
        "toolName",
        "approvalId",
        "url",
        "image_url",
        "data",
        "file_data",
        "file_id",
        "source",
        "media_type",
        "mimeType",
        "inlineData",
        "fileData",
        "fileUri",
        "detail",
        "parts",
        "tool_calls",
        "function",
        "functionCall",
        "functionResponse",
        "providerOptions",
        "thought",
        "thoughtSignature",
        "mediaType",
        "image",
        "filename",
        "title",
        "encrypted_content",
        "cache_control",
        "kind",
    ];
    for format in FORMATS {
        let facts = facts(format);
        for key in facts.text_keys.iter().chain(&facts.data_keys) {
            assert!(!READ.contains(&key.as_str()), "{format}: {key}");
        }
        assert!(facts.longer_than > facts.replacement.chars().count());
    }
}

/// A trim that nothing limits is answered from stand-ins with their lengths in the formats
/// that merge no turns: every message kept, priced as the caller's (no call left unanswered:
/// repair would change a message given as a stand-in, and the whole history answers that).
#[test]
fn trims_that_keep_everything_are_answered_from_stand_ins_and_their_lengths() {
    for format in FORMATS.iter().filter(|f| !merges(f)) {
        for options in [
            r#"{"max_messages": null}"#,
            r#"{"max_messages": null, "bytes_per_token": 3}"#,
        ] {
            let (messages, _) = write(format, &agent_loop::steps(5, 150));
            let messages = decorate(format, messages, &mut Rng::new(5));
            let mut base: Value = serde_json::from_str(options).unwrap();
            base["format"] = json!(format);
            let mut whole = base.clone();
            whole["messages"] = Value::Array(messages.clone());
            let expected = answer(&whole);
            let (got, how, made) = drive(&base, &messages, format, 5, false);
            assert_eq!(got, expected, "{format} {options}");
            assert_eq!(how, "sizes", "{format} {options}");
            assert!(made > 100, "{format}: {made} strings stood in");
        }
    }
}

/// Lengths that do not match the stand-ins given are refused, naming window.stood_in.
#[test]
fn stand_in_lengths_must_match() {
    let (messages, base) = case(5, "openai", r#"{"max_messages": null}"#, 400);
    let (mut rng, mut made) = (Rng::new(1), 0);
    let n = messages.len();
    let mut request = window_request(
        &base,
        &messages,
        n - 1,
        "openai",
        &mut rng,
        &mut made,
        true,
        false,
    );
    request["window"]["stood_in"]
        .as_array_mut()
        .unwrap()
        .truncate(2);
    let got: Value = serde_json::from_str(&answer(&request)).unwrap();
    assert_eq!(got["error"]["code"], "invalid_request", "{got}");
    assert_eq!(got["error"]["path"], "window.stood_in", "{got}");
    request["window"].as_object_mut().unwrap().remove("sizes");
    let got: Value = serde_json::from_str(&answer(&request)).unwrap();
    assert_eq!(got["error"]["path"], "window.stood_in", "{got}");
}

//! Runs of whole turns left out of a tail against the whole history: on long generated agent
//! histories in every format (plain chat, user messages of text parts and of images, one to
//! three parallel calls, calls left unanswered, results left orphans, empty results, results
//! out of order), a driver that sends tails as the bindings do — the runs of whole turns that
//! each format's `turns` facts describe left out (`"gaps": ["turns", ...]`), the plain rule
//! between them, every other older message but message 0 as its stand-in — must get the answer
//! the whole history's trim gives, byte for byte.

#[path = "../examples/agent_loop/mod.rs"]
mod agent_loop;
#[path = "support/tail.rs"]
mod support;

use agent_loop::{Rng, FORMATS};
use ankita::tail::driver::TAIL_DRIVER;
use ankita::tail::select::select_answer;
use ankita::tail::trim_tail_json;
use proptest::prelude::*;
use serde_json::{json, Value};
use support::{facts, older_with_turns, plain, runs, shape_words, stand_in, turns, Pick};

impl Pick for Rng {
    fn keep(&mut self) -> bool {
        self.range(0, 7) == 0
    }
}

fn answer(request: &Value) -> String {
    trim_tail_json(&request.to_string())
}

/// One event of an agent session, in no format yet.
enum Event {
    User(String),
    /// A user message of text parts, with an image among them or not.
    UserParts(Vec<String>, bool),
    Say(String),
    /// The model's calls (id, tool name, input), with its words or not.
    Calls(Option<String>, Vec<(String, String, Value)>),
    /// Tool results (id, tool name, output), in one message where the format has one.
    Results(Vec<(String, String, String)>),
}

fn words(rng: &mut Rng, n: usize) -> String {
    const WORDS: &[&str] = &[
        "the", "build", "fails", "naïve", "config", "→", "\"x\"", "line",
    ];
    let mut s = String::new();
    while s.len() < n {
        s.push_str(WORDS[rng.range(0, WORDS.len() - 1)]);
        s.push(' ');
    }
    s
}

/// A session of about `length` events; the older three quarters with calls left unanswered,
/// results orphaned, emptied and out of order now and then.
fn events(seed: u64, length: usize) -> Vec<Event> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut t = 0;
    while out.len() < length {
        t += 1;
        let old = out.len() < length * 3 / 4;
        match rng.range(0, 9) {
            0..=2 => out.push(Event::UserParts(
                vec![
                    format!("Turn {t}: {}", words(&mut rng, 90)),
                    words(&mut rng, 30),
                ],
                rng.range(0, 4) == 0,
            )),
            _ => out.push(Event::User(format!("Turn {t}: {}", words(&mut rng, 60)))),
        }
        for s in 0..rng.range(0, 3) {
            if rng.range(0, 2) == 0 {
                out.push(Event::Say(words(&mut rng, 70)));
            }
            let calls: Vec<(String, String, Value)> = (0..rng.range(1, 3))
                .map(|c| {
                    let tool = ["read_file", "grep", "run_tests"][rng.range(0, 2)].to_owned();
                    let input = json!({"path": format!("src/{}.rs", rng.range(0, 40))});
                    (format!("call_{t}_{s}_{c}"), tool, input)
                })
                .collect();
            let mut results: Vec<(String, String, String)> = calls
                .iter()
                .map(|(id, tool, _)| (id.clone(), tool.clone(), words(&mut rng, 300)))
                .collect();
            let said = (rng.range(0, 3) == 0).then(|| words(&mut rng, 40));
            let lose = if old { rng.range(0, 24) } else { 99 };
            match lose {
                // A call left unanswered.
                0 => {
                    results.pop();
                }
                // Results left orphans.
                1 => {
                    out.push(Event::Results(results));
                    continue;
                }
                // An empty result.
                2 => results[0].2 = String::new(),
                // Results out of order.
                3 => results.reverse(),
                _ => {}
            }
            out.push(Event::Calls(said, calls));
            if !results.is_empty() {
                out.push(Event::Results(results));
            }
        }
        out.push(Event::Say(words(&mut rng, 120)));
    }
    out.push(Event::User("And now?".into()));
    out
}

/// The session's messages in `format`, and its system prompt where the format takes it apart.
fn write(format: &str, events: &[Event]) -> (Vec<Value>, Option<Value>) {
    let system = "You are a coding agent.";
    let mut out = Vec::new();
    let outside = match format {
        "openai" | "ai-sdk" => {
            out.push(json!({"role": "system", "content": system}));
            None
        }
        "gemini" => Some(json!({"parts": [{"text": system}]})),
        _ => Some(json!(system)),
    };
    let model = if format == "gemini" {
        "model"
    } else {
        "assistant"
    };
    for event in events {
        match (format, event) {
            ("gemini", Event::User(t)) => out.push(json!({"role": "user", "parts": [{"text": t}]})),
            (_, Event::User(t)) => out.push(json!({"role": "user", "content": t})),
            ("gemini", Event::Say(t)) => out.push(json!({"role": model, "parts": [{"text": t}]})),
            (_, Event::Say(t)) => out.push(json!({"role": model, "content": t})),
            (_, Event::UserParts(texts, image)) => {
                let url = "https://example.com/screen.png";
                let (kind, key) = match format {
                    "responses" => ("input_text", "content"),
                    "gemini" => ("", "parts"),
                    _ => ("text", "content"),
                };
                let mut parts: Vec<Value> = texts
                    .iter()
                    .map(|t| match format {
                        "gemini" => json!({"text": t}),
                        _ => json!({"type": kind, "text": t}),
                    })
                    .collect();
                if *image {
                    parts.push(match format {
                        "openai" => json!({"type": "image_url", "image_url": {"url": url}}),
                        "anthropic" => {
                            json!({"type": "image", "source": {"type": "url", "url": url}})
                        }
                        "responses" => json!({"type": "input_image", "image_url": url}),
                        "gemini" => json!({"fileData": {"mimeType": "image/png", "fileUri": url}}),
                        _ => json!({"type": "image", "image": url}),
                    });
                }
                let mut m = json!({"role": "user"});
                m[key] = Value::Array(parts);
                out.push(m);
            }
            ("openai", Event::Calls(said, calls)) => out.push(json!({
                "role": "assistant", "content": said,
                "tool_calls": calls.iter().map(|(id, name, input)| json!({
                    "id": id, "type": "function",
                    "function": {"name": name, "arguments": input.to_string()},
                })).collect::<Vec<_>>(),
            })),
            ("responses", Event::Calls(said, calls)) => {
                if let Some(said) = said {
                    out.push(json!({"role": "assistant", "content": said}));
                }
                for (id, name, input) in calls {
                    out.push(json!({"type": "function_call", "call_id": id, "name": name,
                        "arguments": input.to_string()}));
                }
            }
            (_, Event::Calls(said, calls)) => {
                let mut parts = Vec::new();
                if let Some(said) = said {
                    parts.push(match format {
                        "gemini" => json!({"text": said}),
                        _ => json!({"type": "text", "text": said}),
                    });
                }
                for (id, name, input) in calls {
                    parts.push(match format {
                        "anthropic" => {
                            json!({"type": "tool_use", "id": id, "name": name, "input": input})
                        }
                        "gemini" => {
                            json!({"functionCall": {"id": id, "name": name, "args": input}})
                        }
                        _ => json!({"type": "tool-call", "toolCallId": id, "toolName": name,
                            "input": input}),
                    });
                }
                let key = if format == "gemini" {
                    "parts"
                } else {
                    "content"
                };
                let mut m = json!({"role": model});
                m[key] = Value::Array(parts);
                out.push(m);
            }
            ("anthropic", Event::Results(results)) => out.push(json!({
                "role": "user",
                "content": results.iter().map(|(id, _, o)| json!({
                    "type": "tool_result", "tool_use_id": id, "content": o,
                })).collect::<Vec<_>>(),
            })),
            ("gemini", Event::Results(results)) => out.push(json!({
                "role": "user",
                "parts": results.iter().map(|(id, name, o)| json!({
                    "functionResponse": {"id": id, "name": name, "response": {"output": o}},
                })).collect::<Vec<_>>(),
            })),
            (_, Event::Results(results)) => {
                for (id, name, o) in results {
                    out.push(match format {
                        "openai" => json!({"role": "tool", "tool_call_id": id, "content": o}),
                        "responses" => {
                            json!({"type": "function_call_output", "call_id": id, "output": o})
                        }
                        _ => json!({"role": "tool", "content": [{
                            "type": "tool-result", "toolCallId": id, "toolName": name,
                            "output": {"type": "text", "value": o},
                        }]}),
                    });
                }
            }
        }
    }
    (out, outside)
}

/// A tail request from `from`: the runs of whole turns left out, the plain rule between them,
/// every given older message but message 0 as its stand-in. Also how many messages were left
/// out in runs of whole turns.
fn window_request(
    base: &Value,
    messages: &[Value],
    from: usize,
    format: &str,
    rng: &mut Rng,
) -> (Value, usize) {
    let facts = facts(format);
    let (given, kinds) = older_with_turns(messages, from, &turns(format));
    let mut made = 0;
    let earlier = runs(&given, |i| {
        if i == 0 {
            messages[0].clone()
        } else {
            stand_in(
                &messages[i],
                &facts,
                (false, false),
                rng,
                &mut made,
                &mut None,
            )
        }
    });
    let mut request = base.clone();
    request["messages"] = Value::Array(messages[from..].to_vec());
    request["window"] = json!({"from": from, "earlier": earlier, "gaps": kinds});
    let turned = turns(format)
        .gaps(messages, from)
        .iter()
        .map(|g| g.len())
        .sum();
    (request, turned)
}

/// Trims with a limit as the bindings do: the answer, how it was reached, how many messages
/// the answering tail left out in runs of whole turns.
fn drive(
    base: &Value,
    messages: &[Value],
    format: &str,
    seed: u64,
) -> (String, &'static str, usize) {
    let mut rng = Rng::new(seed);
    let n = messages.len();
    let given = |key: &str| base.get(key).is_some_and(|v| !v.is_null());
    let mut size = TAIL_DRIVER.first_tail(base.get("max_messages"), given);
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
        let (request, turned) = window_request(base, messages, from, format, &mut rng);
        let text = answer(&request);
        let got: Value = serde_json::from_str(&text).unwrap();
        if got.get("plan").is_some() {
            return (text, "tail", turned);
        }
        assert_eq!(got["ok"], true, "{got}");
        size = match got.get("scale") {
            Some(Value::Null) => None,
            scale => TAIL_DRIVER.widened(tail, scale.map(|s| s.as_f64().unwrap())),
        };
    }
    let mut request = base.clone();
    request["messages"] = Value::Array(messages.to_vec());
    (answer(&request), "whole", 0)
}

const OPTIONS: &[&str] = &[
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
    let (messages, system) = write(format, &events(seed, length));
    let mut base: Value = serde_json::from_str(options).unwrap();
    base["format"] = json!(format);
    if let Some(system) = system {
        base["system"] = system;
    }
    (messages, base)
}

fn whole(base: &Value, messages: &[Value]) -> String {
    let mut whole = base.clone();
    whole["messages"] = Value::Array(messages.to_vec());
    answer(&whole)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn runs_of_whole_turns_answer_the_whole_historys_trim(
        seed in 0u64..1_000_000,
        format in 0..FORMATS.len(),
        option in 0..OPTIONS.len(),
        length in 200usize..700,
    ) {
        let format = FORMATS[format];
        let (messages, base) = case(seed, format, OPTIONS[option], length);
        let expected = whole(&base, &messages);
        prop_assert!(expected.starts_with(r#"{"ok":true"#), "{}", expected);
        let (got, how, _) = drive(&base, &messages, format, seed);
        prop_assert_eq!(got, expected, "{} {} via {}", format, OPTIONS[option], how);
    }
}

/// The runs do answer: in every format a trim with a count limit of a long agent history is
/// answered from a tail that left out most older messages as whole turns, the repairs of the
/// given ones reported as the whole history's.
#[test]
fn agent_histories_are_answered_with_runs_of_whole_turns_left_out() {
    for format in FORMATS {
        for seed in [3, 11] {
            let (messages, base) = case(seed, format, r#"{"max_messages": 40}"#, 900);
            let expected = whole(&base, &messages);
            let (got, how, turned) = drive(&base, &messages, format, seed);
            assert_eq!(got, expected, "{format} {seed}");
            assert_eq!(how, "tail", "{format} {seed}");
            assert!(turned > messages.len() / 3, "{format}: {turned} left out");
            let got: Value = serde_json::from_str(&got).unwrap();
            let repaired = got["report"]["repaired"].as_array().unwrap();
            assert!(
                repaired.iter().any(|r| r["index"].as_u64().unwrap() < 400),
                "{format}: {repaired:?}"
            );
        }
    }
}

/// A run of whole turns must be followed by a given message of the user's that holds no tool
/// reply, before `from`: else the core asks for more. And `window.gaps` must name every gap.
#[test]
fn runs_of_whole_turns_are_checked() {
    for format in FORMATS {
        let (messages, base) = case(5, format, r#"{"max_messages": 40}"#, 600);
        let n = messages.len();
        let mut from = n - 112;
        while plain(&messages[from]).is_none_or(|r| r != "user") {
            from -= 1;
        }
        let (request, turned) = window_request(&base, &messages, from, format, &mut Rng::new(1));
        assert!(turned > 0, "{format}");
        let got: Value = serde_json::from_str(&answer(&request)).unwrap();
        assert!(got.get("plan").is_some(), "{format}: {got}");
        // The given message after the first run of whole turns taken out of the window: the
        // run now ends at a message that is not given.
        let mut cut = request.clone();
        let earlier = cut["window"]["earlier"].as_array_mut().unwrap();
        let gaps = request["window"]["gaps"].as_array().unwrap();
        let k = gaps.iter().position(|g| g == "turns").unwrap();
        let run = earlier[k + 1][1].as_array_mut().unwrap();
        if run.len() > 1 {
            run.remove(0);
            let start = earlier[k + 1][0].as_u64().unwrap();
            earlier[k + 1][0] = json!(start + 1);
            let got: Value = serde_json::from_str(&answer(&cut)).unwrap();
            assert_eq!(got["widen"], true, "{format}: {got}");
        }
        // Named plain: the bounds are no plain messages of which one is not the model's, or
        // the answer is the same.
        let mut plain_named = request.clone();
        plain_named["window"]["gaps"][k] = json!("plain");
        let got: Value = serde_json::from_str(&answer(&plain_named)).unwrap();
        assert!(
            got["widen"] == true || got.get("plan").is_some(),
            "{format}: {got}"
        );
        // Bad names and counts name their path.
        let mut bad = request.clone();
        bad["window"]["gaps"][k] = json!("turn");
        let got: Value = serde_json::from_str(&answer(&bad)).unwrap();
        assert_eq!(got["error"]["path"], format!("window.gaps[{k}]"), "{got}");
        bad["window"]["gaps"].as_array_mut().unwrap().pop();
        let got: Value = serde_json::from_str(&answer(&bad)).unwrap();
        assert_eq!(got["error"]["path"], "window.gaps", "{got}");
        // A trim that nothing limits leaves out plain messages only.
        let mut sized = request.clone();
        sized["max_messages"] = Value::Null;
        sized["window"]["sizes"] = json!([]);
        let got: Value = serde_json::from_str(&answer(&sized)).unwrap();
        assert_eq!(got["error"]["code"], "invalid_request", "{got}");
    }
}

/// Sanitize takes runs of whole turns too: from the last message, the older ones given as the
/// light pass gives them (whole: every message comes back), the answer is the whole history's
/// sanitize (the formats that merge turns answer `widen`, and the whole history answers).
#[test]
fn sanitize_with_runs_of_whole_turns_left_out_is_the_whole_historys() {
    let mut answered = 0;
    for format in FORMATS {
        for seed in [2, 9, 21] {
            let (messages, _) = write(format, &events(seed, 500));
            let whole = json!({"messages": messages, "format": format}).to_string();
            let expected = ankita::api::sanitize_json(&whole);
            let from = messages.len() - 1;
            let (given, kinds) = older_with_turns(&messages, from, &turns(format));
            let earlier = runs(&given, |i| messages[i].clone());
            let request = json!({
                "messages": [messages[from]],
                "format": format,
                "window": {"from": from, "earlier": earlier, "gaps": kinds},
            });
            let got = ankita::tail::sanitize_tail_json(&request.to_string());
            if got == r#"{"ok":true,"widen":true}"# {
                continue;
            }
            // The tail's plan, written out: the caller's messages where it gives an index.
            let plan: Value = serde_json::from_str(&got).unwrap();
            let list: Vec<Value> = plan["plan"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| match m.as_u64() {
                    Some(i) => messages[i as usize].clone(),
                    None => m.clone(),
                })
                .collect();
            let expected: Value = serde_json::from_str(&expected).unwrap();
            assert_eq!(Value::Array(list), expected["messages"], "{format} {seed}");
            assert_eq!(plan["report"], expected["report"], "{format} {seed}");
            assert!(kinds.contains(&"turns"), "{format} {seed}");
            answered += 1;
        }
    }
    assert!(answered >= 6, "{answered}");
}

/// Trims as the bindings do with the core's selection (`ankita_tail_select`): the shapes read
/// from each message, the tails the core selects, widened as it answers. Every tail selected is
/// the one this file's model of the rules gives for the same `from` (`older_with_turns`), and the
/// answer is the whole history's.
fn drive_selected(base: &Value, messages: &[Value], format: &str, seed: u64) -> (String, usize) {
    let mut rng = Rng::new(seed);
    let mut options = base.clone();
    options.as_object_mut().unwrap().remove("messages");
    let words = shape_words(format, messages);
    let mut after = Value::Null;
    let mut tails = 0;
    loop {
        let request =
            json!({"call": "trim", "messages": messages.len(), "options": options, "after": after});
        let first = select_answer(&request.to_string(), None).unwrap();
        let selected = match first["send"].as_str() {
            Some("shapes") => select_answer(&request.to_string(), Some(&words)).unwrap(),
            _ => first,
        };
        if selected["send"] != "tail" {
            assert_eq!(selected["send"], "whole", "{selected}");
            return (whole(base, messages), tails);
        }
        tails += 1;
        let from = selected["window"]["from"].as_u64().unwrap() as usize;
        let (given, kinds) = older_with_turns(messages, from, &turns(format));
        let runs_given: Vec<Value> = runs(&given, |_| json!(null))
            .iter()
            .map(|r| {
                let start = r[0].as_u64().unwrap();
                json!([start, start + r[1].as_array().unwrap().len() as u64])
            })
            .collect();
        assert_eq!(
            selected["earlier"],
            Value::Array(runs_given),
            "{format} from {from}"
        );
        let gaps = selected["window"].get("gaps").cloned();
        if kinds.iter().any(|k| *k != "plain") {
            assert_eq!(gaps, Some(json!(kinds)), "{format} from {from}");
        } else {
            assert_eq!(gaps, None, "{format} from {from}");
        }
        assert_eq!(selected["stand_ins"], "replace");
        let (request, _) = window_request(base, messages, from, format, &mut rng);
        let text = answer(&request);
        let got: Value = serde_json::from_str(&text).unwrap();
        if got.get("plan").is_some() {
            return (text, tails);
        }
        assert_eq!(got["ok"], true, "{got}");
        after = json!({"size": selected["size"], "widen": got});
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn the_cores_selection_answers_the_whole_historys_trim(
        seed in 0u64..1_000_000,
        format in 0..FORMATS.len(),
        option in 0..OPTIONS.len(),
        length in 200usize..700,
    ) {
        let format = FORMATS[format];
        let (messages, base) = case(seed, format, OPTIONS[option], length);
        let expected = whole(&base, &messages);
        let (got, _) = drive_selected(&base, &messages, format, seed);
        prop_assert_eq!(got, expected, "{} {}", format, OPTIONS[option]);
    }
}

/// The core's selection leaves most of a long agent history out, in every format.
#[test]
fn the_cores_selection_leaves_agent_histories_out() {
    for format in FORMATS {
        let (messages, base) = case(5, format, r#"{"max_messages": 40}"#, 900);
        let (got, tails) = drive_selected(&base, &messages, format, 5);
        assert_eq!(got, whole(&base, &messages), "{format}");
        assert!(tails >= 1, "{format}: answered from a tail");
    }
}

/// A malformed shape or request is an error naming where; a short history goes whole.
#[test]
fn the_selection_names_what_is_wrong() {
    let request = json!({"call": "trim", "messages": 2, "options": {}}).to_string();
    let error = select_answer(&request, Some(&[0, 7]))
        .unwrap_err()
        .to_response();
    assert_eq!(error["error"]["path"], "shape[1]", "{error}");
    let error = select_answer(&request, Some(&[0, 1, 0]))
        .unwrap_err()
        .to_response();
    assert_eq!(error["error"]["path"], "shape[3]", "{error}");
    let error = select_answer(&request, Some(&[0]))
        .unwrap_err()
        .to_response();
    assert_eq!(error["error"]["path"], "shape", "{error}");
    let error = select_answer(r#"{"call": "cut", "messages": 2}"#, None)
        .unwrap_err()
        .to_response();
    assert_eq!(error["error"]["path"], "call", "{error}");
    let short = select_answer(&request, None).unwrap();
    assert_eq!(short["send"], "whole");
}

//! `ankita_trim_tail` / `ankita::tail`: a history given as its newest messages and the older
//! ones the answer may depend on answers the whole history's trim, or asks for more; the
//! request's `window` is checked. (Property tests compare long generated histories in every
//! format with the whole history's answer: tests/tail_windows.rs here, and the bindings'
//! bindings/node/test/tail.test.js, bindings/python/tests/test_tail.py.)

use ankita::tail::{sanitize_tail_json, trim_tail_json};
use serde_json::{json, Value};

fn history(n: usize) -> Vec<Value> {
    let mut out = vec![json!({"role": "system", "content": "Be brief."})];
    for i in 1..n {
        let role = if i % 2 == 1 { "user" } else { "assistant" };
        out.push(json!({"role": role, "content": format!("message {i} {}", "x".repeat(i % 50))}));
    }
    out
}

fn answer(request: Value) -> Value {
    serde_json::from_str(&trim_tail_json(&request.to_string())).unwrap()
}

/// The request of a tail from `from`, with the older messages `given` (ascending) as runs.
fn tail_request(messages: &[Value], from: usize, given: &[usize], options: Value) -> Value {
    let mut runs: Vec<(usize, Vec<Value>)> = Vec::new();
    for &i in given {
        match runs.last_mut() {
            Some((start, run)) if *start + run.len() == i => run.push(messages[i].clone()),
            _ => runs.push((i, vec![messages[i].clone()])),
        }
    }
    let mut request = options;
    request["messages"] = Value::Array(messages[from..].to_vec());
    request["window"] = json!({"from": from, "earlier": runs.into_iter().map(|(s, r)| json!([s, r])).collect::<Vec<_>>()});
    request
}

fn whole(messages: &[Value], options: Value) -> Value {
    let mut request = options;
    request["messages"] = Value::Array(messages.to_vec());
    answer(request)
}

#[test]
fn a_tail_with_plain_messages_left_out_answers_the_whole_historys_trim() {
    let mut messages = history(400);
    // Repairs among the older messages: an orphan tool reply, an unanswered call.
    messages[40] = json!({"role": "tool", "tool_call_id": "gone", "content": "stale"});
    messages[41] = json!({"role": "assistant", "content": "x", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]});
    let options = json!({"max_messages": 40});
    let expected = whole(&messages, options.clone());
    assert_eq!(expected["ok"], true, "{expected}");
    // Given: message 0, the non-plain ones, the ends of the plain runs around them.
    let given = [0, 1, 39, 40, 41, 42, 299];
    let got = answer(tail_request(&messages, 300, &given, options));
    assert_eq!(got, expected);
    let repaired: Vec<u64> = got["report"]["repaired"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["index"].as_u64().unwrap())
        .collect();
    assert_eq!(repaired, [40, 41]);
}

#[test]
fn a_gap_the_model_bounds_on_both_sides_asks_for_more() {
    let mut messages = history(400);
    for m in &mut messages[100..110] {
        m["role"] = json!("assistant");
    }
    let got = answer(tail_request(
        &messages,
        300,
        &[0, 1, 100, 109, 110, 299],
        json!({"max_messages": 40}),
    ));
    assert_eq!(got, json!({"ok": true, "widen": true}));
}

#[test]
fn a_gap_next_to_a_message_that_is_not_plain_asks_for_more() {
    let mut messages = history(400);
    messages[50] = json!({"role": "tool", "tool_call_id": "gone", "content": "stale"});
    // Message 49 (plain) is left out: the gap's bound is the tool reply.
    let got = answer(tail_request(
        &messages,
        300,
        &[0, 1, 50, 51, 299],
        json!({"max_messages": 40}),
    ));
    assert_eq!(got, json!({"ok": true, "widen": true}));
}

#[test]
fn a_tail_that_everything_fits_asks_for_more_with_its_scale() {
    let messages = history(400);
    let got = answer(tail_request(
        &messages,
        300,
        &[0, 1, 299],
        json!({"max_messages": 1000}),
    ));
    assert_eq!(got["widen"], true);
    assert!(got["scale"].as_f64().unwrap() > 1.0, "{got}");
    let got = answer(tail_request(
        &messages,
        300,
        &[0, 1, 299],
        json!({"max_messages": null}),
    ));
    assert_eq!(got, json!({"ok": true, "widen": true, "scale": null}));
}

#[test]
fn a_window_is_checked() {
    let messages = history(10);
    let bad = |window: Value| {
        let request = json!({"messages": messages[5..], "window": window});
        let got = answer(request);
        assert_eq!(got["ok"], false, "{got}");
        assert_eq!(got["error"]["code"], "invalid_request", "{got}");
    };
    bad(json!({"earlier": [[0, [messages[0]]]]}));
    bad(json!({"from": 5}));
    bad(json!({"from": 5, "earlier": [[1, [messages[1]]]]}));
    bad(json!({"from": 5, "earlier": [[0, [messages[0]]], [1, [messages[1]]]]}));
    bad(json!({"from": 5, "earlier": [[0, [messages[0], messages[1]]], [1, [messages[1]]]]}));
    bad(json!({"from": 1, "earlier": [[0, [messages[0], messages[1]]]]}));
    bad(json!({"from": 5, "earlier": [[0, []]]}));
    bad(json!({"from": 5, "earlier": [[0, [messages[0]]]], "size": 3}));
    // A window is no trim option.
    let got: Value = serde_json::from_str(&ankita::api::trim_json(
        &json!({"messages": messages, "window": {"from": 0}}).to_string(),
    ))
    .unwrap();
    assert_eq!(got["error"]["code"], "invalid_request");
}

#[test]
fn sanitize_of_a_tail_returns_every_message_in_place() {
    let mut messages = history(300);
    messages[40] = json!({"role": "tool", "tool_call_id": "gone", "content": "stale"});
    let expected: Value = serde_json::from_str(&ankita::api::sanitize_json(
        &Value::Array(messages.clone()).to_string(),
    ))
    .unwrap();
    let request = tail_request(&messages, 299, &[0, 1, 39, 40, 41, 298], json!({}));
    let got: Value = serde_json::from_str(&sanitize_tail_json(&request.to_string())).unwrap();
    assert_eq!(got["report"], expected["report"]);
    let plan: Vec<u64> = got["plan"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let kept: Vec<u64> = (0..300).filter(|&i| i != 40).collect();
    assert_eq!(plan, kept);
    // Formats that merge turns ask for the whole history.
    let mut request = request;
    request["format"] = json!("anthropic");
    let got: Value = serde_json::from_str(&sanitize_tail_json(&request.to_string())).unwrap();
    assert_eq!(got, json!({"ok": true, "widen": true}));
}

#[test]
fn a_malformed_call_in_a_later_run_is_named_by_its_index_in_the_history() {
    // Messages split from an index past 0 (a run of the tail's older messages, a session's
    // append) name a malformed call by the caller's index, as the whole history does.
    let mut messages = history(400);
    messages[120] = json!({"role": "assistant", "content": "calling", "tool_calls": [
        {"id": "", "type": "function", "function": {"name": "f", "arguments": "{}"}}]});
    let options = json!({"max_messages": 40});
    let expected = whole(&messages, options.clone());
    let got = answer(tail_request(
        &messages,
        300,
        &[0, 1, 119, 120, 121, 299],
        options,
    ));
    assert_eq!(got, expected);
    let repair = &got["report"]["repaired"][0];
    assert_eq!(repair["path"], "messages[120].tool_calls[0].id", "{repair}");

    let mut session = ankita::TrimSession::new(r#"{"max_messages": 40, "trim_to": null}"#).unwrap();
    session
        .append(&Value::Array(messages[..100].to_vec()).to_string())
        .unwrap();
    session
        .append(&Value::Array(messages[100..].to_vec()).to_string())
        .unwrap();
    let from_session: Value =
        serde_json::from_str(&session.trim_answer().unwrap().into_string()).unwrap();
    let stateless: Value = serde_json::from_str(&ankita::api::trim_json(
        &json!({"messages": messages, "max_messages": 40}).to_string(),
    ))
    .unwrap();
    assert_eq!(from_session, stateless);
}

/// A tail request whose left-out messages (those before `from` not in `given`) are given by
/// their sizes: role and content's UTF-8 length.
fn sized_request(messages: &[Value], from: usize, given: &[usize], options: Value) -> Value {
    let mut request = tail_request(messages, from, given, options);
    let mut sizes = Vec::new();
    for (i, m) in messages[..from].iter().enumerate() {
        if !given.contains(&i) {
            sizes.push(m["role"].clone());
            sizes.push(json!(m["content"].as_str().unwrap().len()));
        }
    }
    request["window"]["sizes"] = Value::Array(sizes);
    request
}

#[test]
fn a_trim_nothing_limits_keeps_the_messages_given_by_their_sizes() {
    for format in ["openai", "responses"] {
        let mut messages = history(400);
        messages[7]["content"] = json!("déjà vu 😀 \"quoted\"\n");
        messages[9]["role"] = json!("system");
        messages[11]["role"] = json!("developer");
        messages[40] = json!({"role": "tool", "tool_call_id": "gone", "content": "stale"});
        messages[41] = json!({"role": "assistant", "content": "x", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]});
        if format == "responses" {
            messages[40] =
                json!({"type": "function_call_output", "call_id": "gone", "output": "stale"});
            messages[41] =
                json!({"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"});
        }
        let options = json!({"max_messages": null, "format": format});
        let expected = whole(&messages, options.clone());
        assert_eq!(expected["ok"], true, "{expected}");
        assert_eq!(
            expected["report"]["repaired"].as_array().unwrap().len(),
            2,
            "{expected}"
        );
        let given = [0, 1, 39, 40, 41, 42, 397];
        let got = answer(sized_request(&messages, 399, &given, options.clone()));
        assert_eq!(got, expected, "{format}");
        // The sizes are what is priced: a length one more costs one more byte.
        let mut request = sized_request(&messages, 399, &given, options);
        let sizes = request["window"]["sizes"].as_array_mut().unwrap();
        sizes[1] = json!(sizes[1].as_u64().unwrap() + 1);
        let got = answer(request);
        assert_eq!(
            got["report"]["cost_bytes"].as_u64().unwrap(),
            expected["report"]["cost_bytes"].as_u64().unwrap() + 1
        );
    }
}

#[test]
fn sizes_answer_only_a_trim_nothing_limits_in_bytes() {
    let messages = history(200);
    let given = [0, 1, 198];
    // A limit, text in tokens, or a format that merges turns: the whole history is wanted.
    for options in [
        json!({"max_messages": 40}),
        json!({"max_messages": null, "max_bytes": 100000}),
        json!({"max_messages": null, "model": "gpt-4o"}),
        json!({"max_messages": null, "format": "anthropic"}),
    ] {
        let got = answer(sized_request(&messages, 199, &given, options.clone()));
        assert_eq!(
            got,
            json!({"ok": true, "widen": true, "scale": null}),
            "{options}"
        );
    }
}

#[test]
fn sizes_are_checked() {
    let messages = history(200);
    let given = [0, 1, 198];
    let options = json!({"max_messages": null});
    let error = |request: Value, path: &str| {
        let got = answer(request);
        assert_eq!(got["error"]["code"], "invalid_request", "{got}");
        assert_eq!(got["error"]["path"], path, "{got}");
    };
    let mut request = sized_request(&messages, 199, &given, options.clone());
    request["window"]["sizes"]
        .as_array_mut()
        .unwrap()
        .truncate(10);
    error(request, "window.sizes");
    let mut request = sized_request(&messages, 199, &given, options.clone());
    request["window"]["sizes"][4] = json!("tool");
    error(request, "window.sizes[4]");
    let mut request = sized_request(&messages, 199, &given, options.clone());
    request["window"]["sizes"][4] = json!(3);
    error(request, "window.sizes[4]");
    let mut request = sized_request(&messages, 199, &given, options.clone());
    request["window"]["sizes"][5] = json!(-1);
    error(request, "window.sizes[5]");
    let mut request = sized_request(&messages, 199, &given, options);
    request["window"]["sizes"].as_array_mut().unwrap().pop();
    error(request, "window.sizes");
    // Sanitize keeps left-out messages as given: sizes are not its.
    let mut request = sized_request(&messages, 199, &given, json!({}));
    request.as_object_mut().unwrap().remove("max_messages");
    let got: Value = serde_json::from_str(&sanitize_tail_json(&request.to_string())).unwrap();
    assert_eq!(got["error"]["path"], "window.sizes", "{got}");
}

//! The tail path against the whole history, on long generated histories in every format:
//! a driver that sends windows as the bindings do (a tail from a plain user message, of the
//! older messages message 0, every message that is not plain, and the bounds of each run of
//! plain ones; the sizes of the left-out ones when nothing limits the trim; longer tails when
//! asked; the whole history last) must get, whatever window answers, the plan the whole
//! history's trim answers — repairs among the older messages included.

#[path = "../examples/agent_loop/mod.rs"]
mod agent_loop;
#[path = "support/tail.rs"]
mod support;

use agent_loop::{write, Rng, Step, FORMATS};
use ankita::tail::driver::TAIL_DRIVER;
use ankita::tail::trim_tail_json;
use proptest::prelude::*;
use serde_json::{json, Value};
use support::{older, plain};

fn answer(request: &Value) -> Value {
    serde_json::from_str(&trim_tail_json(&request.to_string())).unwrap()
}

/// A long session: agent tasks and runs of plain chat; some old tool results lost (their
/// calls unanswered) and some old calls lost (their results orphans).
fn history(seed: u64, length: usize) -> Vec<Step> {
    let mut rng = Rng::new(seed);
    let tasks = agent_loop::steps(seed, length / 6 + 4);
    let mut out = Vec::new();
    let mut k = 0;
    while out.len() < length && k < tasks.len() {
        if rng.range(0, 2) == 0 {
            for i in 0..rng.range(2, 30) {
                out.push(Step::User(format!(
                    "chat {i}: what about the {}?",
                    rng.next() % 97
                )));
                out.push(Step::Answer(format!("It is {} bytes.", rng.next() % 1000)));
            }
        }
        // One task, its steps up to the next user message.
        let end = (k + 1..tasks.len())
            .find(|&j| matches!(tasks[j], Step::User(_)))
            .unwrap_or(tasks.len());
        let old = out.len() < length * 3 / 4;
        for step in &tasks[k..end] {
            let lose =
                old && matches!(step, Step::Call(..) | Step::Result(..)) && rng.range(0, 9) == 0;
            if !lose {
                out.push(step.clone());
            }
        }
        k = end;
    }
    out.push(Step::User("And now?".into()));
    out
}

fn window_request(base: &Value, messages: &[Value], from: usize, sizes: bool) -> Value {
    let given = older(messages, from);
    let mut runs: Vec<(usize, Vec<Value>)> = Vec::new();
    for &i in &given {
        match runs.last_mut() {
            Some((start, run)) if *start + run.len() == i => run.push(messages[i].clone()),
            _ => runs.push((i, vec![messages[i].clone()])),
        }
    }
    let mut request = base.clone();
    request["messages"] = Value::Array(messages[from..].to_vec());
    let earlier: Vec<Value> = runs.into_iter().map(|(s, r)| json!([s, r])).collect();
    request["window"] = json!({"from": from, "earlier": earlier});
    if sizes {
        let mut list = Vec::new();
        for (i, m) in messages[..from].iter().enumerate() {
            if given.binary_search(&i).is_err() {
                list.push(m["role"].clone());
                list.push(json!(m["content"].as_str().map_or(0, str::len)));
            }
        }
        request["window"]["sizes"] = Value::Array(list);
    }
    request
}

/// Trims as the bindings do; returns the answer and how it was reached.
fn drive(base: &Value, messages: &[Value]) -> (Value, &'static str) {
    let n = messages.len();
    // The bindings' numbers and rules: the core's facts (ankita_formats' "tail").
    let given = |key: &str| base.get(key).is_some_and(|v| !v.is_null());
    let mut size = TAIL_DRIVER.first_tail(base.get("max_messages"), given);
    if size.is_none() && n > TAIL_DRIVER.min_before {
        let answer = answer(&window_request(base, messages, n - 1, true));
        if answer.get("plan").is_some() {
            return (answer, "sizes");
        }
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
        let answer = answer(&window_request(base, messages, from, false));
        if answer.get("plan").is_some() {
            return (answer, "tail");
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
    (answer(&request), "whole")
}

const OPTIONS: &[&str] = &[
    r#"{"max_messages": 40}"#,
    r#"{"max_messages": 12}"#,
    r#"{"max_bytes": 20000, "max_messages": null}"#,
    r#"{"context_tokens": 6000, "model": "gpt-4o"}"#,
    r#"{"max_bytes": 9000, "fill": false}"#,
    r#"{"max_messages": null}"#,
    r#"{}"#,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn windows_answer_the_whole_historys_trim(
        seed in 0u64..1_000_000,
        format in 0..FORMATS.len(),
        option in 0..OPTIONS.len(),
        length in 300usize..900,
    ) {
        let format = FORMATS[format];
        let (messages, system) = write(format, &history(seed, length));
        let mut base: Value = serde_json::from_str(OPTIONS[option]).unwrap();
        base["format"] = json!(format);
        if let Some(system) = system {
            base["system"] = system;
        }
        let mut whole = base.clone();
        whole["messages"] = Value::Array(messages.clone());
        let expected = answer(&whole);
        prop_assert_eq!(&expected["ok"], &json!(true), "{}", expected);
        let (got, how) = drive(&base, &messages);
        prop_assert_eq!(got, expected, "{} {} via {}", format, OPTIONS[option], how);
    }
}

/// The driver does answer from windows: most trims with a count limit, and the trims nothing
/// limits in the formats that merge no turns, are answered without the whole history.
#[test]
fn most_trims_are_answered_from_windows() {
    for format in FORMATS {
        let (messages, system) = write(format, &history(7, 800));
        for (options, want) in [
            (r#"{"max_messages": 40}"#, "tail"),
            (r#"{"max_messages": null}"#, "sizes"),
        ] {
            let mut base: Value = serde_json::from_str(options).unwrap();
            base["format"] = json!(format);
            if let Some(system) = &system {
                base["system"] = system.clone();
            }
            let (got, how) = drive(&base, &messages);
            // Repairs among the older messages, reported as the whole history's.
            let repaired = got["report"]["repaired"].as_array().unwrap();
            assert!(
                repaired.iter().any(|r| r["index"].as_u64().unwrap() < 400),
                "{format}: {repaired:?}"
            );
            let merges = matches!(*format, "anthropic" | "gemini" | "ai-sdk");
            if want == "sizes" && merges {
                assert_eq!(how, "whole", "{format} {options}");
            } else {
                assert_eq!(how, want, "{format} {options}");
            }
        }
    }
}

//! A caller's summary in place of what the cut removes, over the simulated coding agent
//! (`examples/agent_loop`) in every format: each call carries the previous answer's cut and the
//! summary, and when the report asks for a compaction a deterministic stand-in summariser folds
//! the messages it names into a new summary (the caller's part: the library calls no model).
//! Every answer fits, starts on the user's turn, splits no tool exchange, holds the summary
//! right after the pinned message written the same bytes while the cut stands, and the prefix
//! holds from call to call.

#[path = "../examples/agent_loop/mod.rs"]
mod agent_loop;

use agent_loop::{
    calls, common_prefix, request, session_calls, steps, summarise, system_first, FORMATS,
};
use ankita::api::trim_json;
use serde_json::{json, Value};

const MARKER: &str = "[Summary of the earlier conversation]";

fn trim(request: &Value) -> Value {
    let answer: Value = serde_json::from_str(&trim_json(&request.to_string())).unwrap();
    assert_eq!(answer["ok"], true, "{answer}");
    answer
}

/// The calls' ids and the results' ids of a message, in the format's keys.
fn ids(format: &str, m: &Value) -> (Vec<String>, Vec<String>) {
    let s = |v: &Value| v.as_str().unwrap_or("").to_owned();
    let (mut calls, mut results) = (Vec::new(), Vec::new());
    let parts = |key: &str| m[key].as_array().cloned().unwrap_or_default();
    match format {
        "openai" => {
            calls.extend(parts("tool_calls").iter().map(|c| s(&c["id"])));
            if m["role"] == "tool" {
                results.push(s(&m["tool_call_id"]));
            }
        }
        "anthropic" => {
            for b in parts("content") {
                match b["type"].as_str() {
                    Some("tool_use") => calls.push(s(&b["id"])),
                    Some("tool_result") => results.push(s(&b["tool_use_id"])),
                    _ => {}
                }
            }
        }
        "responses" => match m["type"].as_str() {
            Some("function_call") => calls.push(s(&m["call_id"])),
            Some("function_call_output") => results.push(s(&m["call_id"])),
            _ => {}
        },
        "gemini" => {
            for p in parts("parts") {
                if p.get("functionCall").is_some() {
                    calls.push(s(&p["functionCall"]["id"]));
                }
                if p.get("functionResponse").is_some() {
                    results.push(s(&p["functionResponse"]["id"]));
                }
            }
        }
        _ => {
            for p in parts("content") {
                match p["type"].as_str() {
                    Some("tool-call") => calls.push(s(&p["toolCallId"])),
                    Some("tool-result") => results.push(s(&p["toolCallId"])),
                    _ => {}
                }
            }
        }
    }
    (calls, results)
}

/// No tool exchange is split: every result's call is before it, every call's result after it.
fn exchanges_whole(format: &str, messages: &[Value]) {
    let mut open: Vec<String> = Vec::new();
    for m in messages {
        let (calls, results) = ids(format, m);
        for r in results {
            let at = open.iter().position(|c| *c == r);
            assert!(at.is_some(), "{format}: a result without its call: {r}");
            open.remove(at.unwrap());
        }
        open.extend(calls);
    }
    assert!(
        open.is_empty(),
        "{format}: calls without their results: {open:?}"
    );
}

fn summary_text(format: &str, m: &Value) -> Option<String> {
    let text = match format {
        "gemini" => m["parts"][0]["text"].as_str(),
        "responses" | "ai-sdk" => m["content"][0]["text"].as_str(),
        _ => m["content"].as_str(),
    }?;
    text.starts_with(MARKER).then(|| text.to_owned())
}

/// Runs the loop in `format`; returns the prefix share (of the answers' bytes) and how many
/// compactions the summariser made.
fn run(format: &str) -> (f64, usize) {
    let steps = steps(7, 120);
    let base = json!({"model": "gpt-4o", "context_tokens": 32768, "max_output_tokens": 4096,
                      "max_messages": null, "trim_to": 0.75});
    let (mut cut, mut summary) = (Value::Null, Value::Null);
    let mut previous: Vec<Value> = Vec::new();
    let (mut repeated, mut total, mut compactions, mut filled) = (0usize, 0usize, 0, false);
    for len in calls(&steps) {
        let mut options = base.clone();
        options["cut"] = cut.clone();
        options["summary"] = summary.clone();
        let mut answer = trim(&request(format, &steps[..len], &options));
        if let Some(c) = answer["report"].get("compaction").cloned() {
            // What the session's summarize callback does: fold in the messages named, then
            // trim again with the new summary (and the new cut).
            let named: Vec<u64> = c["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_u64().unwrap())
                .collect();
            let text = summarise(summary["text"].as_str(), &named);
            let budget = c["budget_tokens"].as_u64().unwrap();
            assert!(budget > 100, "{format}: a summary may cost {budget} tokens");
            summary = json!({"text": text, "through": c["through"]});
            cut = answer["report"]["cut"].clone();
            options["cut"] = cut.clone();
            options["summary"] = summary.clone();
            answer = trim(&request(format, &steps[..len], &options));
            assert!(
                answer["report"].get("compaction").is_none(),
                "{format}: {answer}"
            );
            compactions += 1;
        }
        let report = &answer["report"];
        assert!(
            report["cost_tokens"].as_u64() <= report["budget_tokens"].as_u64(),
            "{format}: over the budget at {len}: {report}"
        );
        let messages = answer["messages"].as_array().unwrap().clone();
        exchanges_whole(format, &messages);
        let head = usize::from(system_first(format));
        if !summary.is_null() {
            // Right after the pinned message, the caller's text after the marker.
            assert_eq!(
                report["summary"]["output_index"], head,
                "{format}: {report}"
            );
            let text = summary_text(format, &messages[head]).expect("the summary message");
            assert!(
                text.ends_with(summary["text"].as_str().unwrap()),
                "{format}"
            );
            assert_eq!(messages[head]["role"], "user", "{format}");
        }
        if format != "openai" && format != "responses" {
            // The answer starts on the user's turn.
            assert_eq!(messages[head]["role"], "user", "{format} at {len}");
        }
        if !report["cut"].is_null() {
            cut = report["cut"].clone();
        }
        filled |= !report["cut"].is_null();
        if filled {
            let same = common_prefix(&previous, &messages);
            let size = |m: &[Value]| m.iter().map(|m| m.to_string().len()).sum::<usize>();
            repeated += size(&messages[..same]);
            total += size(&messages);
        }
        previous = messages;
    }
    assert!(compactions > 0, "{format}: the cut never moved");
    (repeated as f64 / total as f64, compactions)
}

#[test]
fn a_summary_stands_for_what_the_cut_removed_in_every_format() {
    for format in FORMATS {
        let (share, compactions) = run(format);
        eprintln!("{format}: prefix share {share:.3}, {compactions} compactions");
        assert!(share >= 0.85, "{format}: prefix share {share:.3}");
    }
}

/// A session given no cache option, its summaries written by the stand-in summariser when the
/// cut moves (what `Session(summarize=fn)` does in Python and Node), in the chat and Anthropic
/// formats: the prefix share stays at 0.85 or more with a median use of 0.6 or more, every
/// call fits, no tool exchange is split, the answer starts on the user's turn where the format
/// wants it, and the summary stands right after the pinned message written the same bytes
/// while the cut stands.
#[test]
fn a_session_with_summaries_keeps_the_prefix() {
    let steps = steps(7, 120);
    let options = json!({"model": "gpt-4o", "context_tokens": 32768, "max_output_tokens": 4096,
                         "max_messages": null});
    for format in ["openai", "anthropic"] {
        let head = usize::from(system_first(format));
        let (mut previous, mut filled) = (Vec::<Value>::new(), false);
        let (mut repeated, mut total, mut uses) = (0usize, 0usize, Vec::new());
        let (mut cut, mut placed, mut kept) = (Value::Null, None::<Value>, 0);
        let mut summaries = 0;
        for call in session_calls(format, &steps, &options, true) {
            let (answer, len) = (&call.answer, call.len);
            let report = &answer["report"];
            let (cost, budget) = (
                report["cost_tokens"].as_u64(),
                report["budget_tokens"].as_u64(),
            );
            assert!(cost <= budget, "{format}: over at {len}: {report}");
            let messages = answer["messages"].as_array().unwrap().clone();
            exchanges_whole(format, &messages);
            if format == "anthropic" {
                assert_eq!(messages[0]["role"], "user", "{format} at {len}");
            }
            summaries += usize::from(call.summarised);
            if let Some(summary) = report.get("summary") {
                assert_eq!(summary["output_index"], head, "{format}: {report}");
                assert!(summary_text(format, &messages[head]).is_some(), "{format}");
                // While the cut stands (and no new summary was written), the same bytes.
                let same_cut = report["cut"] == cut;
                if let Some(before) = placed.as_ref().filter(|_| same_cut && !call.summarised) {
                    assert_eq!(before.to_string(), messages[head].to_string(), "{format}");
                    kept += 1;
                }
                placed = Some(messages[head].clone());
            } else {
                assert_eq!(
                    summaries, 0,
                    "{format}: the summary left at {len}: {report}"
                );
            }
            cut = report["cut"].clone();
            filled |= !cut.is_null();
            if filled {
                let same = common_prefix(&previous, &messages);
                let size = |m: &[Value]| m.iter().map(|m| m.to_string().len()).sum::<usize>();
                repeated += size(&messages[..same]);
                total += size(&messages);
                uses.push(cost.unwrap() as f64 / budget.unwrap() as f64);
            }
            previous = messages;
        }
        uses.sort_by(f64::total_cmp);
        let (share, median) = (repeated as f64 / total as f64, uses[uses.len() / 2]);
        eprintln!("{format}: prefix share {share:.3}, median use {median:.3}, {summaries} summaries, kept on {kept} calls");
        assert!(share >= 0.85, "{format}: prefix share {share:.3}");
        assert!(median >= 0.6, "{format}: median use {median:.3}");
        assert!(
            summaries > 10 && kept > 300,
            "{format}: {summaries} summaries, {kept}"
        );
    }
}

/// The summary placed, priced and reported; a `through` past the end is ignored; a summary
/// that does not fit beside the required messages is left out with a warning.
#[test]
fn a_summary_is_placed_priced_or_left_out() {
    let steps = steps(3, 4);
    for format in FORMATS {
        let head = usize::from(system_first(format));
        let plain = trim(&request(format, &steps, &json!({"max_bytes": 200_000})));
        let n = plain["messages"].as_array().unwrap().len();
        let through = head + 3;
        let with = trim(&request(
            format,
            &steps,
            &json!({"max_bytes": 200_000, "summary": {"text": "Earlier.", "through": through}}),
        ));
        let report = &with["report"];
        assert_eq!(
            report["summary"]["output_index"], head,
            "{format}: {report}"
        );
        // The messages up to `through` go, and the rest of a group `through` falls in (a tool
        // exchange is never split), nothing else.
        let dropped: Vec<u64> = report["dropped_messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap())
            .collect();
        let upto: Vec<u64> = (head as u64..=through as u64).collect();
        assert_eq!(dropped[..upto.len()], upto[..], "{format}: {report}");
        assert!(dropped.len() <= upto.len() + 1, "{format}: {report}");
        let messages = with["messages"].as_array().unwrap();
        assert_eq!(
            summary_text(format, &messages[head]).unwrap(),
            format!("{MARKER}\n\nEarlier.")
        );
        assert!(messages.len() < n + 1);
        assert!(report["cost_bytes"].as_u64() > Some(0));
        // Past the end: ignored.
        let past = trim(&request(
            format,
            &steps,
            &json!({"max_bytes": 200_000, "summary": {"text": "Earlier.", "through": 10_000}}),
        ));
        assert_eq!(past["messages"], plain["messages"], "{format}");
        assert!(past["report"].get("summary").is_none());
        // Too long for the budget beside the request: left out, with a warning.
        let long = "word ".repeat(20_000);
        let over = trim(&request(
            format,
            &steps,
            &json!({"max_bytes": 8_000, "summary": {"text": long, "through": through}}),
        ));
        assert!(over["report"].get("summary").is_none(), "{format}");
        let warnings = over["report"]["warnings"].as_array().unwrap();
        assert!(
            warnings.iter().any(|w| w["code"] == "summary_over_budget"),
            "{format}: {warnings:?}"
        );
        // Not an object with a string and an index: invalid.
        for bad in [
            json!("text"),
            json!({"text": 3, "through": 1}),
            json!({"text": "a"}),
        ] {
            let answer: Value = serde_json::from_str(&trim_json(
                &request(format, &steps, &json!({"summary": bad})).to_string(),
            ))
            .unwrap();
            assert_eq!(answer["error"]["code"], "invalid_request", "{format}");
            assert_eq!(answer["error"]["path"], "summary", "{format}");
        }
    }
}

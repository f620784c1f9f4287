//! `clear_tool_results.clear_tool_inputs` in tokens and bytes, in every format (the shared cases
//! cover bytes): the answer fits the budget, its cost is what pricing the answer again counts
//! (the freed arguments are accounted for exactly), and the cleared calls hold the placeholder.
//! The Anthropic history merges the call into the message before it, so a call rebuilt from
//! several messages is rewritten too (the merged answer then costs less than its messages as
//! given: a framing less for each merge).

use ankita::api::trim_json;
use serde_json::{json, Value};

fn trim(request: &Value) -> Value {
    serde_json::from_str(&trim_json(&request.to_string())).unwrap()
}

fn body(seed: usize, words: usize) -> String {
    (0..words)
        .map(|k| format!("w{seed}x{k} lorem ipsum"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Four exchanges of big arguments and results; the answer of each before the next call. Also
/// returns where the first call's arguments are in the answer (a JSON pointer) and their
/// placeholder.
fn history(format: &str) -> (Vec<Value>, &'static str, Value) {
    let mut m = Vec::new();
    match format {
        "openai" | "ai-sdk" => m.push(json!({"role": "system", "content": "You are an agent."})),
        _ => {}
    }
    let user = |text: &str| match format {
        "gemini" => json!({"role": "user", "parts": [{"text": text}]}),
        _ => json!({"role": "user", "content": text}),
    };
    m.push(user("Write the modules."));
    for i in 0..4 {
        let args = json!({"path": format!("src/m{i}.rs"), "content": body(i, 150)});
        let id = format!("call_{i}");
        let result = body(100 + i, 150);
        match format {
            "openai" => {
                m.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": id,
                    "type": "function", "function": {"name": "write", "arguments": args.to_string()}}]}));
                m.push(json!({"role": "tool", "tool_call_id": id, "content": result}));
                m.push(json!({"role": "assistant", "content": format!("Wrote {i}.")}));
            }
            "anthropic" => {
                // The text and the call in two assistant messages: merged in the answer.
                m.push(json!({"role": "assistant", "content": format!("Writing {i}.")}));
                m.push(
                    json!({"role": "assistant", "content": [{"type": "tool_use", "id": id,
                    "name": "write", "input": args}]}),
                );
                m.push(json!({"role": "user", "content": [{"type": "tool_result",
                    "tool_use_id": id, "content": result}]}));
                m.push(json!({"role": "assistant", "content": format!("Wrote {i}.")}));
                if i < 3 {
                    m.push(user("Go on."));
                }
            }
            "responses" => {
                m.push(
                    json!({"type": "function_call", "call_id": id, "name": "write",
                    "arguments": args.to_string()}),
                );
                m.push(json!({"type": "function_call_output", "call_id": id, "output": result}));
                m.push(json!({"role": "assistant", "content": format!("Wrote {i}.")}));
            }
            "gemini" => {
                m.push(
                    json!({"role": "model", "parts": [{"functionCall": {"id": id,
                    "name": "write", "args": args}}]}),
                );
                m.push(
                    json!({"role": "user", "parts": [{"functionResponse": {"id": id,
                    "name": "write", "response": {"output": result}}}]}),
                );
                m.push(json!({"role": "model", "parts": [{"text": format!("Wrote {i}.")}]}));
                if i < 3 {
                    m.push(user("Go on."));
                }
            }
            _ => {
                m.push(
                    json!({"role": "assistant", "content": [{"type": "tool-call",
                    "toolCallId": id, "toolName": "write", "input": args}]}),
                );
                m.push(json!({"role": "tool", "content": [{"type": "tool-result",
                    "toolCallId": id, "toolName": "write",
                    "output": {"type": "text", "value": result}}]}));
                m.push(json!({"role": "assistant", "content": format!("Wrote {i}.")}));
            }
        }
    }
    m.push(user("Run the tests."));
    let (at, empty) = match format {
        "openai" => ("/2/tool_calls/0/function/arguments", json!("{}")),
        // The merged message: the text, then the call.
        "anthropic" => ("/1/content/1/input", json!({})),
        "responses" => ("/1/arguments", json!("{}")),
        "gemini" => ("/1/parts/0/functionCall/args", json!({})),
        _ => ("/2/content/0/input", json!({})),
    };
    (m, at, empty)
}

#[test]
fn cleared_arguments_are_accounted_exactly_in_tokens_and_bytes() {
    for format in ["openai", "anthropic", "responses", "gemini", "ai-sdk"] {
        for tokens in [true, false] {
            let (messages, at, empty) = history(format);
            let mut request = json!({"format": format, "messages": messages,
                "clear_tool_results": {"keep": 1, "clear_tool_inputs": true}});
            if format == "anthropic" || format == "gemini" {
                request["system"] = json!("You are an agent.");
            }
            let (budget_key, cost_key) = if tokens {
                request["model"] = json!("gpt-4o");
                request["context_tokens"] = json!(3_000);
                request["max_output_tokens"] = json!(0);
                request["overhead_tokens"] = json!(0);
                ("budget_tokens", "cost_tokens")
            } else {
                request["max_bytes"] = json!(12_000);
                ("budget_bytes", "cost_bytes")
            };
            let answer = trim(&request);
            let report = &answer["report"];
            let what = format!("{format} tokens={tokens}: {report}");
            assert_eq!(answer["ok"], json!(true), "{what}");
            assert_eq!(report["dropped_messages"], json!([]), "{what}");
            let cost = report[cost_key].as_u64().unwrap();
            assert!(cost <= report[budget_key].as_u64().unwrap(), "{what}");
            assert_eq!(answer["messages"].pointer(at), Some(&empty), "{what}");
            let cleared = report["cleared_tool_results"].as_array().unwrap();
            assert!(cleared.len() >= 2, "{what}");
            // Priced again as a plain history, the answer costs what the report says.
            let mut again = request.clone();
            again["messages"] = answer["messages"].clone();
            if let Some(system) = answer.get("system") {
                again["system"] = system.clone();
            }
            again.as_object_mut().unwrap().remove("clear_tool_results");
            if tokens {
                again["context_tokens"] = json!(1_000_000);
            } else {
                again["max_bytes"] = json!(1_000_000);
            }
            let recount = trim(&again);
            let recounted = recount["report"][cost_key].as_u64().unwrap();
            if format == "anthropic" {
                // Merged messages lose a message's framing each: the answer costs less than
                // its messages as given (as without clear_tool_inputs).
                assert!(recounted <= cost, "{what}: recounted {}", recount["report"]);
            } else {
                assert_eq!(recounted, cost, "{what}: recounted {}", recount["report"]);
            }
            // Without clear_tool_inputs the same budget clears as many exchanges or more (the
            // entries above are a call and a result each), or drops some.
            let mut results_only = request.clone();
            results_only["clear_tool_results"] = json!({"keep": 1});
            let plain = trim(&results_only);
            let r = &plain["report"];
            let results = r["cleared_tool_results"].as_array().unwrap().len();
            assert!(
                2 * results >= cleared.len() || r["dropped_messages"] != json!([]),
                "{what}: results only {r}"
            );
            assert_ne!(
                plain["messages"].pointer(at),
                Some(&empty),
                "{format}: off by default"
            );
        }
    }
}

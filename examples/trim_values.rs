//! A Rust program trimming a history it holds as `serde_json::Value` messages, with the
//! crate's own API (`ankita::trim`): an agent's tool loop in the OpenAI chat format, fitted to
//! ten messages, the tool exchanges whole.
//!
//!     cargo run --release --example trim_values

use serde_json::{json, Value};

fn main() -> Result<(), ankita::Error> {
    let mut history: Vec<Value> =
        vec![json!({"role": "system", "content": "You are a coding agent."})];
    for turn in 0..20 {
        history.push(json!({"role": "user", "content": format!("Step {turn}: run the tests.")}));
        let id = format!("call_{turn}");
        history.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "run_tests", "arguments": "{}"}}
        ]}));
        history.push(
            json!({"role": "tool", "tool_call_id": id, "content": format!("{turn} failures")}),
        );
        history.push(json!({"role": "assistant", "content": format!("Turn {turn} done.")}));
    }
    let trimmed = ankita::trim(&history, &json!({"max_messages": 10}))?;
    println!(
        "{} of {} messages kept, {} dropped",
        trimmed.messages.len(),
        history.len(),
        trimmed.report["dropped_messages"]
            .as_array()
            .map_or(0, Vec::len)
    );
    // No tool reply is kept without its call.
    for (k, message) in trimmed.messages.iter().enumerate() {
        if message["role"] == "tool" {
            let id = &message["tool_call_id"];
            let called = trimmed.messages[..k].iter().any(|m| {
                m["tool_calls"]
                    .as_array()
                    .is_some_and(|c| c.iter().any(|c| &c["id"] == id))
            });
            assert!(called, "the reply {id} kept without its call");
        }
    }
    Ok(())
}

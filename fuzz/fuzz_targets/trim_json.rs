//! `trim_json` and `sanitize_json` over arbitrary text: never panic, always answer a JSON
//! object with a boolean `ok`: `messages` and `report` on success, an `error` with a known
//! code otherwise (never `internal`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const CODES: &[&str] = &[
    "invalid_json",
    "invalid_request",
    "context_budget_exceeded",
    "history_budget_too_small",
    "image_overflow",
];

fn check(answer: &str, sanitize: bool) {
    let v: Value = serde_json::from_str(answer).expect("the answer is JSON");
    match v["ok"] {
        Value::Bool(true) => {
            assert!(v["messages"].is_array(), "{answer}");
            let report = v["report"].as_object().expect("a report");
            assert!(report["repaired"].is_array());
            if !sanitize {
                let out = v["messages"].as_array().unwrap().len() as u64;
                assert_eq!(report["output_messages"].as_u64(), Some(out));
                if let Some(budget) = report["budget_bytes"].as_u64() {
                    assert!(report["cost_bytes"].as_u64().unwrap() <= budget, "{answer}");
                }
            }
        }
        Value::Bool(false) => {
            let code = v["error"]["code"].as_str().expect("an error code");
            assert!(CODES.contains(&code), "{answer}");
            assert!(v["error"]["message"].is_string());
        }
        _ => panic!("no boolean ok: {answer}"),
    }
}

fuzz_target!(|data: &[u8]| {
    // Invalid UTF-8 is replaced, not skipped: every input reaches the parser.
    let text = String::from_utf8_lossy(data);
    check(&ankita::api::trim_json(&text), false);
    check(&ankita::api::sanitize_json(&text), true);
});

//! Runs every shared case in tests/cases/ through the JSON contract (see tests/cases/README.md).

use serde_json::Value;
use std::path::PathBuf;

/// True when every key of `expected` is in `actual` with a matching value (objects recursively).
fn is_subset(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => e
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|got| is_subset(v, got))),
        _ => expected == actual,
    }
}

fn check(case: &Value, response: &Value) -> Result<(), String> {
    let expect = &case["expect"];
    if expect["ok"] != response["ok"] {
        return Err(format!("ok: expected {}, got {}", expect["ok"], response));
    }
    if let Some(messages) = expect.get("messages") {
        if messages != &response["messages"] {
            return Err(format!(
                "messages differ:\n expected {}\n got      {}",
                messages, response["messages"]
            ));
        }
    }
    for key in ["report", "error"] {
        if let Some(e) = expect.get(key) {
            if !is_subset(e, &response[key]) {
                return Err(format!(
                    "{key}:\n expected ⊆ {e}\n got       {}",
                    response[key]
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn shared_cases() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 20, "only {} cases", paths.len());
    let mut failures = Vec::new();
    for path in &paths {
        let case: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let request = serde_json::to_string(&case["request"]).unwrap();
        // Through the text contract, exactly as the C ABI sees it.
        let response = match case["function"].as_str() {
            Some("trim") => ankita::api::trim_json(&request),
            Some("sanitize") => ankita::api::sanitize_json(&request),
            other => panic!("{}: unknown function {other:?}", path.display()),
        };
        let response: Value = serde_json::from_str(&response).unwrap();
        if let Err(why) = check(&case, &response) {
            failures.push(format!("{}: {why}", case["name"].as_str().unwrap()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n\n")
    );
}

/// The Rust API's `ankita::plan_trim` gives every trim case the plan the JSON contract answers
/// from (`Request::plan`): the answer's last steps included — the calls `clear_tool_inputs`
/// cleared written so, the cache breakpoint placed — which the cases that ask for them show.
#[test]
fn plan_trim_is_the_requests_plan() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut compared = 0;
    let mut finishing = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let case: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        if case["function"] != "trim" || case["expect"]["ok"] != true {
            continue;
        }
        let text = serde_json::to_string(&case["request"]).unwrap();
        let request = ankita::Request::parse(&text).unwrap();
        let system = request
            .system
            .filter(|s| ankita::raw::kind(s) != ankita::raw::Kind::Null);
        let planned = ankita::plan_trim(&request.doc, request.messages, system, &request.options);
        assert_eq!(
            planned.unwrap(),
            request.plan().unwrap(),
            "{}",
            path.display()
        );
        compared += 1;
        let asks = &case["request"];
        if asks["clear_tool_inputs"] == true || asks["cache_breakpoint"] == true {
            finishing += 1;
        }
    }
    assert!(compared >= 100, "only {compared} trim cases");
    assert!(
        finishing >= 4,
        "only {finishing} cases ask for the last steps"
    );
}

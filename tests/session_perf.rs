//! Not a test of behaviour: run with `--ignored --nocapture` to print where a session's trim
//! spends its time on a 20,000-message history.

use ankita::session::TrimSession;
use serde_json::json;
use std::time::Instant;

#[test]
#[ignore]
fn session_trim_time_at_20000_messages() {
    let mut s = TrimSession::new(r#"{"max_bytes": 512000, "max_messages": 1000}"#).unwrap();
    let filler = "build failed at line the config value ".repeat(30);
    for t in 0..1000 {
        let mut turn = vec![json!({"role": "user", "content": format!("Turn {t}: {filler}")})];
        for c in 0..9 {
            let id = format!("call_{t}_{c}");
            turn.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}}]}));
            turn.push(json!({"role": "tool", "tool_call_id": id, "content": filler}));
        }
        turn.push(json!({"role": "assistant", "content": filler}));
        s.append(&serde_json::Value::Array(turn).to_string())
            .unwrap();
    }
    for _ in 0..30 {
        let t0 = Instant::now();
        let plan = s.plan().unwrap();
        let n = plan.messages.len();
        let t1 = t0.elapsed();
        let t0 = Instant::now();
        let len = s.plan_answer().unwrap().len();
        eprintln!(
            "plan {t1:?} ({n} kept); plan answer {:?} ({len} bytes)",
            t0.elapsed()
        );
    }
}

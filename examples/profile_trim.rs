//! Runs one trim many times, for a profiler: `perf record target/release/examples/profile_trim`.
//! Workloads: `text` (20,000 messages), `shots` (the screenshot session), `anthropic`.

#[path = "../benches/workload.rs"]
mod workload;

fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "text".into());
    let budget = serde_json::json!({"context_tokens": 32_000, "max_output_tokens": 2_000});
    let text = match which.as_str() {
        "shots" => serde_json::json!({"messages": workload::session(200, 20, 900_000), "context_tokens": 32_000}).to_string(),
        "anthropic" => {
            let (system, messages) = workload::to_anthropic(&workload::chat(20_000));
            serde_json::json!({"format": "anthropic", "system": system, "messages": messages, "context_tokens": 32_000}).to_string()
        }
        _ => serde_json::json!({"messages": workload::chat(20_000), "context_tokens": 32_000}).to_string(),
    };
    let _ = budget;
    let mut total = 0;
    for _ in 0..200 {
        total += ankita::api::trim_json(&text).len();
    }
    println!("{total}");
}

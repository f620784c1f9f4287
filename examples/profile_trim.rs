//! Runs one trim many times, for a profiler: `perf record target/release/examples/profile_trim`.
//! Workloads: `text` (20,000 messages; `text=N` for N), `shots` (the screenshot session), `anthropic`; add
//! `loose` for a budget that keeps everything.

#[path = "../benches/workload.rs"]
mod workload;

fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "text".into());
    // `loose` (a second argument) keeps everything.
    let loose = std::env::args().nth(2).is_some_and(|a| a == "loose");
    let budget = if loose {
        serde_json::json!(1_000_000_000u64)
    } else {
        serde_json::json!(32_000)
    };
    let text = match which.as_str() {
        "shots" => serde_json::json!({"messages": workload::session(200, 20, 900_000), "context_tokens": budget}).to_string(),
        "anthropic" => {
            let (system, messages) = workload::to_anthropic(&workload::chat(20_000));
            serde_json::json!({"format": "anthropic", "system": system, "messages": messages, "context_tokens": budget}).to_string()
        }
        // `text=N`: the text session of N messages.
        other => {
            let n = other.strip_prefix("text=").map_or(20_000, |n| n.parse().expect("a count"));
            serde_json::json!({"messages": workload::chat(n), "context_tokens": budget}).to_string()
        }
    };
    let mut total = 0;
    let mut times = Vec::new();
    for _ in 0..200 {
        let start = std::time::Instant::now();
        total += ankita::api::trim_json(&text).len();
        times.push(start.elapsed());
    }
    times.sort();
    // The median call, for comparing builds.
    eprintln!(
        "median {:.3} ms",
        times[times.len() / 2].as_secs_f64() * 1e3
    );
    println!("{total}");
}

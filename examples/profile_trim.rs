//! Runs one trim many times, for a profiler: `perf record target/release/examples/profile_trim`.
//! Workloads: `text` (20,000 messages; `text=N` for N), `shots` (the screenshot session), `anthropic`; add
//! `loose` for a budget that keeps everything, `loose-bytes` for a byte budget that keeps
//! everything (the ratios bench's "loose in bytes" row). `ROUNDS=N` runs N trims (200); `ABI=c`
//! calls `ankita_trim_n`, as the ratios bench does, instead of `trim_json`.

#[path = "../benches/workload.rs"]
mod workload;

fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "text".into());
    // `loose` or `loose-bytes` (a second argument) keeps everything.
    let budget = match std::env::args().nth(2).as_deref() {
        Some("loose") => serde_json::json!({"context_tokens": 1_000_000_000u64}),
        Some("loose-bytes") => serde_json::json!({
            "max_messages": 1_000_000_000u64, "max_bytes": 1_000_000_000u64
        }),
        _ => serde_json::json!({"context_tokens": 32_000}),
    };
    let mut request = match which.as_str() {
        "shots" => serde_json::json!({"messages": workload::session(200, 20, 900_000)}),
        "anthropic" => {
            let (system, messages) = workload::to_anthropic(&workload::chat(20_000));
            serde_json::json!({"format": "anthropic", "system": system, "messages": messages})
        }
        // `text=N`: the text session of N messages.
        other => {
            let n = other
                .strip_prefix("text=")
                .map_or(20_000, |n| n.parse().expect("a count"));
            serde_json::json!({"messages": workload::chat(n)})
        }
    };
    for (key, value) in budget.as_object().expect("an object") {
        request[key] = value.clone();
    }
    let text = request.to_string();
    let rounds = std::env::var("ROUNDS").map_or(200, |r| r.parse().expect("a round count"));
    let mut total = 0;
    let mut times = Vec::new();
    let through_c = std::env::var("ABI").is_ok_and(|abi| abi == "c");
    for _ in 0..rounds {
        let start = std::time::Instant::now();
        total += if through_c {
            c_trim(&text)
        } else {
            ankita::api::trim_json(&text).len()
        };
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

/// `ankita_trim_n` as a host calls it; the answer's length.
fn c_trim(text: &str) -> usize {
    // SAFETY: a valid buffer of `len` bytes; the answer is NUL-terminated and released below.
    unsafe {
        let p = ankita::ffi::ankita_trim_n(text.as_ptr().cast(), text.len());
        let len = std::ffi::CStr::from_ptr(p).to_bytes().len();
        ankita::ffi::ankita_string_free(p);
        len
    }
}

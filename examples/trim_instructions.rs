//! One step of the trim benchmark, for instruction counting under callgrind, which is
//! repeatable on a busy machine where wall-clock times are not:
//!
//! ```sh
//! cargo build --release --example trim_instructions
//! for step in generate ignored-any value trim; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/trim_instructions $step 2>&1 | grep refs
//! done
//! ```
//! Subtract the `generate` count (building the workload) from the others. The first trim in
//! a process also loads the tokenizer's vocabulary (~110 M instructions of the text session's
//! ~335 M, and its count moves with how the compiler inlines it); `warm` loads it alone and
//! `warm-trim` then trims, so `warm-trim` less `warm` is the trim without the load.

#[path = "../benches/workload.rs"]
mod workload;

fn main() {
    let step = std::env::args().nth(1).unwrap_or_default();
    // The workload: the screenshot session (default), `text` (20,000 messages) or
    // `anthropic` / `responses` / `gemini` (the same in that format), `text=N`, `anthropic=N`,
    // `responses=N` or `gemini=N` for N messages;
    // `refill=N`: N short messages and a request whose image (a 1 × 65,535 GIF, ~1M tokens
    // under the `ankita` profile) alone exceeds the budget, so selection keeps the request
    // only, the image becomes a placeholder and refill brings all N back (the refill pass's
    // scaling target);
    // `loose` keeps everything.
    let workload = std::env::args().nth(2).unwrap_or_default();
    let loose = std::env::args().any(|a| a == "loose");
    let budget = if loose {
        serde_json::json!({"max_messages": 1_000_000_000u64})
    } else {
        serde_json::json!({"context_tokens": 32_000, "max_output_tokens": 2_000})
    };
    // `text=N`: the text session of N messages (for the scaling target).
    let (workload, messages) = match workload.split_once('=') {
        Some((name, n)) => (name.to_owned(), n.parse().expect("a message count")),
        None => (workload, 20_000),
    };
    let mut request = match workload.as_str() {
        "text" => serde_json::json!({"messages": workload::chat(messages)}),
        "anthropic" => {
            let (system, messages) = workload::to_anthropic(&workload::chat(messages));
            serde_json::json!({"format": "anthropic", "system": system, "messages": messages})
        }
        "responses" => {
            let (system, items) = workload::to_responses(&workload::chat(messages));
            serde_json::json!({"format": "responses", "system": system, "messages": items})
        }
        "gemini" => {
            let (system, messages) = workload::to_gemini(&workload::chat(messages));
            serde_json::json!({"format": "gemini", "system": system, "messages": messages})
        }
        "refill" => serde_json::json!({
            "messages": refill_session(messages),
            "max_messages": null,
            "max_bytes": 48 * messages as u64 + 4096,
        }),
        _ => serde_json::json!({"messages": workload::session(200, 20, 750_000)}),
    };
    if workload != "refill" {
        for (k, v) in budget.as_object().unwrap() {
            request[k] = v.clone();
        }
    }
    let text = request.to_string();
    drop(request);
    let out = match step.as_str() {
        "generate" => 0,
        "ignored-any" => {
            serde_json::from_slice::<serde::de::IgnoredAny>(text.as_bytes()).unwrap();
            1
        }
        "value" => serde_json::from_str::<serde_json::Value>(&text)
            .unwrap()
            .as_object()
            .unwrap()
            .len(),
        "trim" => ankita::api::trim_json(&text).len(),
        "warm" => warm(),
        "warm-trim" => warm() + ankita::api::trim_json(&text).len(),
        other => {
            panic!(
                "unknown step {other:?}: generate | ignored-any | value | trim | warm | warm-trim"
            )
        }
    };
    println!("{step}: {} bytes in, {out}", text.len());
}

/// `n` short turns, then a request with a 1 × 65,535 GIF (a plausible header: GIF sides reach
/// 65,535) that costs more than any budget here.
fn refill_session(n: usize) -> Vec<serde_json::Value> {
    use base64::Engine;
    let mut gif = b"GIF89a".to_vec();
    gif.extend(1u16.to_le_bytes());
    gif.extend(65_535u16.to_le_bytes());
    gif.extend([0xF7, 0, 0]);
    let url = format!(
        "data:image/gif;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(gif)
    );
    let mut messages: Vec<serde_json::Value> = (0..n)
        .map(|k| {
            let role = if k % 2 == 0 { "user" } else { "assistant" };
            serde_json::json!({"role": role, "content": format!("turn {k:06}")})
        })
        .collect();
    messages.push(serde_json::json!({"role": "user", "content": [
        {"type": "text", "text": "And this strip?"},
        {"type": "image_url", "image_url": {"url": url}},
    ]}));
    messages
}

/// Loads the vocabulary the workloads count with: a trim of one message in tokens.
fn warm() -> usize {
    let one = r#"{"messages":[{"role":"user","content":"hi"}],"context_tokens":32000}"#;
    ankita::api::trim_json(one).len()
}

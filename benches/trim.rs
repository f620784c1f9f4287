//! Trimming a 200-message session with 20 screenshots (~20 MB of JSON) under a tight budget,
//! side by side with merely parsing the same bytes (`serde_json` into `IgnoredAny`).
//!
//! Run: `cargo bench --bench trim`. The ratio trim / parse is the figure that matters; both run
//! in the same process on the same bytes, so machine noise affects them alike.

#[path = "workload.rs"]
mod workload;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::json;
use std::hint::black_box;

fn bench_trim(c: &mut Criterion) {
    let messages = workload::session(200, 20, 750_000);
    let request =
        json!({"messages": messages, "context_tokens": 32_000, "max_output_tokens": 2_000});
    let text = request.to_string();
    let response = ankita::api::trim_json(&text);
    let parsed: serde_json::Value = serde_json::from_str(&response).unwrap();
    assert_eq!(parsed["ok"], true, "{response:.300}");
    eprintln!(
        "workload: {:.1} MB request, {} messages → {} kept, {:.1} MB response",
        text.len() as f64 / 1e6,
        parsed["report"]["input_messages"],
        parsed["report"]["output_messages"],
        response.len() as f64 / 1e6
    );

    let mut group = c.benchmark_group("session_200_messages_20_screenshots");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(20);
    group.bench_function("serde_json parse (IgnoredAny)", |b| {
        b.iter(|| {
            serde_json::from_slice::<serde::de::IgnoredAny>(black_box(text.as_bytes())).unwrap()
        })
    });
    group.bench_function("serde_json parse (Value)", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(text.as_bytes())).unwrap())
    });
    group.bench_function("ankita trim_json (parse + trim + write)", |b| {
        b.iter(|| ankita::api::trim_json(black_box(&text)))
    });
    group.finish();
}

criterion_group!(benches, bench_trim);
criterion_main!(benches);

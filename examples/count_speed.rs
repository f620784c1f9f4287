//! Counts the real-text corpus (tests/fixtures/text) in gpt-4o's tokens, for a profiler or a
//! quick figure: `cargo run --release --example count_speed [ROUNDS]`.

use ankita::tokens::{Measure, Tokenizer};
use std::time::Instant;

fn main() {
    let rounds: usize = std::env::args().nth(1).map_or(20, |s| s.parse().unwrap());
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/text");
    let mut texts = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n == "SOURCES.md") {
            continue;
        }
        texts.push(std::fs::read_to_string(&path).unwrap());
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    for tokenizer in [Tokenizer::O200kBase, Tokenizer::Cl100kBase] {
        let measure = Measure::exact(tokenizer);
        let mut tokens = 0;
        let t0 = Instant::now();
        measure.text("warm up");
        let first = t0.elapsed().as_secs_f64() * 1e3;
        let t0 = Instant::now();
        for _ in 0..rounds {
            tokens = texts.iter().map(|t| measure.text(t)).sum::<u64>();
        }
        let s = t0.elapsed().as_secs_f64() / rounds as f64;
        println!(
            "{}: {bytes} bytes, {tokens} tokens, {:.1} MB/s (first use {first:.0} ms)",
            tokenizer.name(),
            bytes as f64 / s / 1e6
        );
    }
}

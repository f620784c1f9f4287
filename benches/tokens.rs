//! Counting tokens against tiktoken (the `tiktoken-rs` crate: tiktoken's own byte-pair merge
//! and its regex) on the same ~3 MB mixed text, in one process: the lines of every vendored
//! text (prose in five languages, code, JSON, logs, emoji) shuffled together. Each round counts
//! the text once with each, alternately; the medians of the thread's CPU time are compared.
//! Also the pre-tokenizer alone against the regex it replaces (`bpe-openai`'s split).
//!
//! Run: `cargo bench --bench tokens` (add `-- --quick` for fewer rounds).

use ankita::{Measure, Tokenizer};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The vendored texts' lines, shuffled (a fixed seed) and repeated to about `size` bytes.
fn mixed_text(size: usize) -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/text");
    let mut lines: Vec<String> = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/fixtures/text")
        .map(|e| e.expect("entry").path())
        .filter(|p| !p.ends_with("SOURCES.md"))
        .collect();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).expect("text");
        lines.extend(text.split_inclusive('\n').map(String::from));
    }
    let mut out = String::with_capacity(size + 4096);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    while out.len() < size {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        out.push_str(&lines[(seed % lines.len() as u64) as usize]);
    }
    out
}

/// (ours, theirs) medians over `rounds` alternating runs.
fn race(rounds: usize, mut ours: impl FnMut(), mut theirs: impl FnMut()) -> (Duration, Duration) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = thread_cpu();
        ours();
        a.push(thread_cpu() - t);
        let t = thread_cpu();
        theirs();
        b.push(thread_cpu() - t);
    }
    (median(a), median(b))
}

fn mb_s(bytes: usize, t: Duration) -> f64 {
    bytes as f64 / 1e6 / t.as_secs_f64()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let rounds = if quick { 5 } else { 15 };
    let text = mixed_text(3_000_000);
    let mb = text.len() as f64 / 1e6;
    println!("text: {mb:.2} MB of mixed lines from tests/fixtures/text, {rounds} rounds");

    for (tokenizer, tiktoken, reference) in [
        (
            Tokenizer::O200kBase,
            tiktoken_rs::o200k_base_singleton(),
            bpe_openai::o200k_base(),
        ),
        (
            Tokenizer::Cl100kBase,
            tiktoken_rs::cl100k_base_singleton(),
            bpe_openai::cl100k_base(),
        ),
    ] {
        let name = tokenizer.name();
        let measure = Measure::exact(tokenizer);
        let t = Instant::now();
        let ours = measure.text(&text);
        let first = t.elapsed();
        let theirs = tiktoken.encode_ordinary(&text).len() as u64;
        assert_eq!(ours, theirs, "{name}: the counts differ");

        let (a, b) = race(
            rounds,
            || {
                black_box(measure.text(black_box(&text)));
            },
            || {
                black_box(tiktoken.encode_ordinary(black_box(&text)).len());
            },
        );
        println!(
            "{name}: count_tokens {:.1} ms ({:.1} MB/s; the first call {:.0} ms), tiktoken-rs \
             encode_ordinary {:.1} ms ({:.1} MB/s): {:.2}x tiktoken ({ours} tokens)",
            a.as_secs_f64() * 1e3,
            mb_s(text.len(), a),
            first.as_secs_f64() * 1e3,
            b.as_secs_f64() * 1e3,
            mb_s(text.len(), b),
            b.as_secs_f64() / a.as_secs_f64(),
        );

        let (a, b) = race(
            rounds,
            || {
                black_box(tokenizer.piece_count(black_box(&text)));
            },
            || {
                black_box(reference.split(black_box(&text)).count());
            },
        );
        println!(
            "{name}: pre-tokenizer {:.1} MB/s, the regex (bpe-openai) {:.1} MB/s: {:.2}x",
            mb_s(text.len(), a),
            mb_s(text.len(), b),
            b.as_secs_f64() / a.as_secs_f64(),
        );
    }
}

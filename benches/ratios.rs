//! Speed and memory as ratios measured side by side in one process, on this machine's noise:
//! each workload is parsed by serde_json into `IgnoredAny` (the floor: one pass over the bytes)
//! and trimmed by `ankita_trim`, alternately, and the medians of the threads' CPU times are
//! compared. Peak memory is measured in a child process per input (its `VmHWM`).
//!
//! Run: `cargo bench --bench ratios` (add `-- --quick` for fewer rounds).

#[path = "workload.rs"]
mod workload;

use serde_json::{json, Value};
use std::ffi::{c_char, CStr};
use std::hint::black_box;
use std::time::Duration;

#[path = "support/clock.rs"]
mod clock;
use clock::{median, thread_cpu};

/// `ankita_trim` through the C ABI, as a host calls it (length-taking variant); the answer is
/// checked by its first bytes only (a host that needs its length takes it once, with strlen).
fn c_trim(text: &str) -> usize {
    // SAFETY: a valid buffer of `len` bytes; every answer is longer than 10 bytes; it is
    // released below.
    unsafe {
        let p = ankita::ffi::ankita_trim_n(text.as_ptr().cast::<c_char>(), text.len());
        let head = std::slice::from_raw_parts(p.cast::<u8>(), 10);
        assert_eq!(head, b"{\"ok\":true", "{:?}", CStr::from_ptr(p));
        ankita::ffi::ankita_string_free(p);
        head.len()
    }
}

/// (parse, trim) CPU time medians over `rounds` alternating runs.
fn measure(text: &str, rounds: usize) -> (Duration, Duration) {
    let (mut parse, mut trim) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = thread_cpu();
        serde_json::from_str::<serde::de::IgnoredAny>(black_box(text)).unwrap();
        parse.push(thread_cpu() - t);
        let t = thread_cpu();
        black_box(c_trim(black_box(text)));
        trim.push(thread_cpu() - t);
    }
    (median(parse), median(trim))
}

fn request(messages: Vec<Value>, extra: Value) -> String {
    let mut r = json!({"messages": messages});
    r.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    r.to_string()
}

fn anthropic_request(messages: &[Value], extra: Value) -> String {
    let (system, messages) = workload::to_anthropic(messages);
    let mut r = json!({"format": "anthropic", "system": system, "messages": messages});
    r.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    r.to_string()
}

fn responses_request(messages: &[Value], extra: Value) -> String {
    let (instructions, items) = workload::to_responses(messages);
    let mut r = json!({"format": "responses", "system": instructions, "messages": items});
    r.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    r.to_string()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn peak_rss_child(path: &std::path::Path) -> (u64, u64) {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .arg("--rss-child")
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text
        .split_whitespace()
        .map(|n| n.parse::<u64>().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--rss-child") {
        // Peak memory of one call: read the request, trim it, free the answer.
        let text = std::fs::read_to_string(&args[at + 1]).unwrap();
        let before = vm_hwm_kib();
        c_trim(&text);
        println!("{} {}", before, vm_hwm_kib());
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let rounds = if quick { 5 } else { 15 };

    let chat = workload::chat(20_000);
    let shots = workload::session(200, 20, 900_000);
    let tight = json!({"context_tokens": 32_000, "max_output_tokens": 2_000});
    let loose = json!({"max_messages": null, "context_tokens": 100_000_000});
    let loose = {
        let mut l = loose;
        l.as_object_mut().unwrap().remove("max_messages");
        l["max_messages"] = json!(1_000_000_000u64);
        l
    };
    let cases: Vec<(&str, String, f64)> = vec![
        (
            "20,000-message text session, tight (32k tokens)",
            request(chat.clone(), tight.clone()),
            3.0,
        ),
        (
            "20,000-message text session, loose (keeps all)",
            request(chat.clone(), loose.clone()),
            3.0,
        ),
        (
            "screenshot session, tight",
            request(shots.clone(), tight.clone()),
            1.5,
        ),
        (
            "screenshot session, loose (keeps all)",
            request(shots.clone(), loose.clone()),
            2.5,
        ),
        (
            "the text session in the Anthropic format, tight",
            anthropic_request(&chat, tight.clone()),
            0.0,
        ),
        (
            "the text session in the Anthropic format, loose",
            anthropic_request(&chat, loose.clone()),
            0.0,
        ),
        (
            "the text session as Responses items, tight",
            responses_request(&chat, tight.clone()),
            0.0,
        ),
        (
            "the text session as Responses items, loose",
            responses_request(&chat, loose.clone()),
            0.0,
        ),
        (
            "the screenshot session as Responses items, tight",
            responses_request(&shots, tight.clone()),
            0.0,
        ),
        // Appended (the rows above are compared by place below): the text session with a
        // byte budget, where keeping everything does not count every message in tokens.
        (
            "20,000-message text session, tight in bytes",
            request(chat.clone(), json!({"max_bytes": 128_000})),
            3.0,
        ),
        (
            "20,000-message text session, loose in bytes",
            request(
                chat.clone(),
                json!({"max_messages": 1_000_000_000u64, "max_bytes": 1_000_000_000u64}),
            ),
            3.0,
        ),
    ];
    println!(
        "{:<52} {:>8} {:>10} {:>10} {:>7} {:>7}",
        "workload", "MB", "parse ms", "trim ms", "ratio", "target"
    );
    let mut trim_ms = Vec::new();
    for (name, text, target) in &cases {
        let (parse, trim) = measure(text, rounds);
        let ratio = trim.as_secs_f64() / parse.as_secs_f64();
        trim_ms.push(trim);
        let target = if *target > 0.0 {
            format!("≤{target}")
        } else {
            String::new()
        };
        println!(
            "{name:<52} {:>8.1} {:>10.2} {:>10.2} {:>7.2} {:>7}",
            text.len() as f64 / 1e6,
            ms(parse),
            ms(trim),
            ratio,
            target
        );
    }
    println!(
        "Anthropic / OpenAI on the same session: tight {:.2}, loose {:.2} (target ≤1.3)",
        trim_ms[4].as_secs_f64() / trim_ms[0].as_secs_f64(),
        trim_ms[5].as_secs_f64() / trim_ms[1].as_secs_f64()
    );
    println!(
        "Responses / OpenAI on the same session: text tight {:.2}, text loose {:.2}, \
         screenshots tight {:.2}",
        trim_ms[6].as_secs_f64() / trim_ms[0].as_secs_f64(),
        trim_ms[7].as_secs_f64() / trim_ms[1].as_secs_f64(),
        trim_ms[8].as_secs_f64() / trim_ms[2].as_secs_f64()
    );

    // Token mode: the same calls counting in o200k_base tokens, against the byte rule's.
    let in_tokens = |extra: &Value| {
        let mut e = extra.clone();
        e["tokenizer"] = json!("o200k_base");
        e
    };
    let token_cases = [
        ("screenshot session, tight", &shots, &tight, 2usize, 1.3),
        ("20,000-message text session, loose", &chat, &loose, 1, 2.0),
        ("20,000-message text session, tight", &chat, &tight, 0, 0.0),
    ];
    // A real window without a message cap: counting stops where the budget does.
    let window = json!({"context_tokens": 128_000, "max_output_tokens": 4_000,
        "max_messages": 1_000_000_000u64});
    let (_, bytes_window) = measure(&request(chat.clone(), window.clone()), rounds);
    let token_cases = token_cases
        .into_iter()
        .map(|(n, m, e, row, t)| (n, m, e.clone(), trim_ms[row], t));
    let token_cases = token_cases.chain(std::iter::once((
        "20,000-message text session, 128k window, no message cap",
        &chat,
        window,
        bytes_window,
        2.0,
    )));
    for (name, messages, extra, bytes_time, target) in token_cases {
        let text = request(messages.clone(), in_tokens(&extra));
        let (_, trim) = measure(&text, rounds);
        let target = if target > 0.0 {
            format!(" (target ≤{target})")
        } else {
            String::new()
        };
        println!(
            "tokens / bytes, {name}: {:.2}{target} ({:.2} ms in o200k_base tokens)",
            trim.as_secs_f64() / bytes_time.as_secs_f64(),
            ms(trim)
        );
    }

    // Scaling: 10k vs 100k messages, loose budget.
    let small = request(workload::chat(10_000), loose.clone());
    let big = request(workload::chat(100_000), loose.clone());
    let (_, t_small) = measure(&small, rounds);
    let (_, t_big) = measure(&big, rounds.min(7));
    println!(
        "scaling: 100k messages / 10k messages = {:.2} (target ≤11; input {:.1}×)",
        t_big.as_secs_f64() / t_small.as_secs_f64(),
        big.len() as f64 / small.len() as f64
    );

    // Peak memory, one child process per input.
    let dir = std::env::temp_dir().join(format!("ankita-ratios-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let unknown_roles = {
        let mut s = String::from("{\"messages\":[");
        let n = 10_000_000 / 13;
        for i in 0..n {
            if i > 0 {
                s.push(',');
            }
            s.push_str("{\"role\":\"x\"}");
        }
        s.push_str("],\"max_messages\":40}");
        s
    };
    let deep_fields = {
        let deep = format!("{}1{}", "[".repeat(120), "]".repeat(120));
        let msgs: Vec<String> = (0..36_000)
            .map(|i| format!("{{\"role\":\"user\",\"content\":\"m{i}\",\"x\":{deep}}}"))
            .collect();
        format!("{{\"messages\":[{}],\"max_bytes\":100000}}", msgs.join(","))
    };
    let big_text = {
        let text = "log line: ошибка 世界 ".repeat(13_000_000 / 30);
        request(
            vec![
                json!({"role": "user", "content": "why?"}),
                json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "run", "arguments": "{}"}}]}),
                json!({"role": "tool", "tool_call_id": "c1", "content": text}),
            ],
            json!({"max_bytes": 20_000}),
        )
    };
    let inputs: Vec<(&str, String)> = vec![
        ("10 MB of {\"role\":\"x\"} messages", unknown_roles),
        ("36,000 messages, each with a 120-deep field", deep_fields),
        (
            "100,000 short messages, max_bytes 50,000",
            request(workload::chat(100_000), json!({"max_bytes": 50_000})),
        ),
        ("a 13 MB tool result shrunk to 20,000 bytes", big_text),
        ("screenshot session, loose", cases[3].1.clone()),
        ("20,000-message text session, loose", cases[1].1.clone()),
    ];
    println!(
        "\n{:<52} {:>8} {:>10} {:>7}",
        "input", "MB", "peak MB", "× input"
    );
    for (name, text) in inputs {
        let path = dir.join("request.json");
        std::fs::write(&path, &text).unwrap();
        let (before, peak) = peak_rss_child(&path);
        let _ = before;
        println!(
            "{name:<52} {:>8.1} {:>10.1} {:>7.2}",
            text.len() as f64 / 1e6,
            peak as f64 / 1024.0,
            peak as f64 * 1024.0 / text.len() as f64
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

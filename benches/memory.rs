//! Peak memory on adversarial input, as a ratio to the input's size: each class of
//! docs/robustness.md (and a few more) built at up to ~10 MB, then answered
//!
//! - by the command line, `ankita trim FILE > answer` under `/usr/bin/time -v`: its maximum
//!   resident set size less the answer's size, over the input's size (the process's own
//!   baseline and the input it reads included);
//! - by the C ABI in a child process of this benchmark: `ankita_trim_n` on the request read
//!   into memory, the growth of the process's peak resident size (`VmHWM`) across the call less
//!   the answer's size, over the input's size;
//! - by Python's `ankita.trim_json` the same way, when `ANKITA_PYTHON` names a Python where
//!   the package is installed (`bindings/python/.venv/bin/python` after its tests).
//!
//! Run: `cargo bench --bench memory` (`-- --quick` for inputs of ~2 MB; `-- NAME` for the
//! classes whose name contains NAME; `-- --keep DIR` also writes each input to DIR). The table is copied into docs/performance.md and
//! docs/robustness.md.

use std::ffi::c_char;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Each input is built up to about this many bytes.
const FULL: usize = 10_000_000;

/// A request object over `messages` (already JSON) and `extra` keys (JSON text after a comma).
fn request(messages: &[String], extra: &str) -> String {
    let mut s = String::with_capacity(messages.iter().map(|m| m.len() + 1).sum::<usize>() + 64);
    s.push_str("{\"messages\":[");
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(m);
    }
    s.push(']');
    if !extra.is_empty() {
        s.push(',');
        s.push_str(extra);
    }
    s.push('}');
    s
}

/// Messages made by `make(i)` until they hold `size` bytes, then `last`.
fn fill(size: usize, last: &str, make: impl Fn(usize) -> String) -> Vec<String> {
    let mut out = Vec::new();
    let mut bytes = 0;
    let mut i = 0;
    while bytes < size {
        let m = make(i);
        bytes += m.len() + 1;
        out.push(m);
        i += 1;
    }
    out.push(last.to_string());
    out
}

const ASK: &str = r#"{"role":"user","content":"and now?"}"#;

/// The header of a PNG of `width` × `height`, as a data URL.
fn png_url(width: u32, height: u32) -> String {
    let mut png = vec![
        0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n', 0, 0, 0, 13,
    ];
    png.extend(b"IHDR");
    png.extend(width.to_be_bytes());
    png.extend(height.to_be_bytes());
    png.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    format!("data:image/png;base64,{}", base64(&png))
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Deterministic filler text.
fn words(seed: usize, bytes: usize) -> String {
    const WORDS: [&str; 8] = [
        "build", "failed", "at", "line", "the", "config", "value", "error",
    ];
    let mut s = String::with_capacity(bytes + 8);
    let mut x = seed as u64 | 1;
    while s.len() < bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.push_str(WORDS[(x % 8) as usize]);
        s.push(' ');
    }
    s
}

/// The classes: (name, request text).
fn inputs(size: usize) -> Vec<(&'static str, String)> {
    let budget = "\"max_bytes\":100000";
    let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let deep120 = deep(120);
    let mut v: Vec<(&'static str, String)> = Vec::new();
    v.push((
        "unknown roles ({\"role\":\"x\"})",
        request(
            &fill(size, ASK, |_| r#"{"role":"x"}"#.into()),
            "\"max_messages\":40",
        ),
    ));
    v.push((
        "empty user messages",
        request(
            &fill(size, ASK, |_| r#"{"role":"user","content":""}"#.into()),
            budget,
        ),
    ));
    v.push((
        "messages without content",
        request(
            &fill(size, ASK, |_| r#"{"role":"assistant"}"#.into()),
            budget,
        ),
    ));
    v.push((
        "orphan tool replies",
        request(
            &fill(size, ASK, |i| {
                format!(r#"{{"role":"tool","tool_call_id":"c{i}","content":"x"}}"#)
            }),
            budget,
        ),
    ));
    v.push((
        "broken tool calls (numeric ids)",
        request(
            &fill(size, ASK, |i| {
                format!(
                    r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":{i},"type":"function","function":{{"name":"f","arguments":"{{}}"}}}}]}}"#
                )
            }),
            budget,
        ),
    ));
    v.push((
        "many small messages, tiny parts",
        request(
            &fill(size, ASK, |i| {
                let role = if i % 2 == 0 { "user" } else { "assistant" };
                format!(r#"{{"role":"{role}","content":[{{"type":"text","text":"a"}}]}}"#)
            }),
            budget,
        ),
    ));
    v.push((
        "100,000s of short text messages, tight",
        request(
            &fill(size, ASK, |i| {
                let role = if i % 2 == 0 { "user" } else { "assistant" };
                format!(r#"{{"role":"{role}","content":"m{i}"}}"#)
            }),
            "\"max_bytes\":50000",
        ),
    ));
    let huge = png_url(u32::MAX, u32::MAX);
    v.push((
        "crafted image headers (2^32-1 px)",
        request(
            &fill(size, ASK, |_| {
                format!(r#"{{"role":"user","content":[{{"type":"image_url","image_url":{{"url":"{huge}"}}}}]}}"#)
            }),
            budget,
        ),
    ));
    let small = png_url(64, 64);
    let parts: Vec<String> = (0..size / (small.len() + 50))
        .map(|_| format!(r#"{{"type":"image_url","image_url":{{"url":"{small}"}}}}"#))
        .collect();
    for (name, mode) in [
        ("image parts in one message, drop", "drop"),
        ("image parts in one message, placeholder", "placeholder"),
    ] {
        v.push((
            name,
            request(
                &[format!(
                    r#"{{"role":"user","content":[{}]}}"#,
                    parts.join(",")
                )],
                &format!("\"max_bytes\":20000,\"on_image_overflow\":\"{mode}\""),
            ),
        ));
    }
    v.push((
        "messages each with a 120-deep field",
        request(
            &fill(size, ASK, |i| {
                format!(r#"{{"role":"user","content":"m{i}","x":{deep120}}}"#)
            }),
            budget,
        ),
    ));
    v.push((
        "a nest of arrays past 128 levels",
        request(
            &[format!(
                r#"{{"role":"user","content":"hi","x":{}}}"#,
                deep(size / 2)
            )],
            budget,
        ),
    ));
    v.push((
        "escapes everywhere (pairs, \\u0000)",
        request(
            &fill(size, ASK, |i| {
                let role = if i % 2 == 0 { "user" } else { "assistant" };
                format!(r#"{{"role":"{role}","content":"\ud83e\udd80\u0000\n\u00e9\"\\ {i}"}}"#)
            }),
            budget,
        ),
    ));
    v.push((
        "duplicate keys",
        request(
            &fill(size, ASK, |_| {
                let dup = r#""content":"a","role":"tool","#.repeat(8);
                format!(r#"{{{dup}"content":"b","role":"user"}}"#)
            }),
            budget,
        ),
    ));
    let text = words(1, size);
    v.push((
        "one huge tool result, shrunk",
        request(
            &[
                r#"{"role":"user","content":"why?"}"#.into(),
                r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"run","arguments":"{}"}}]}"#.into(),
                format!(r#"{{"role":"tool","tool_call_id":"c1","content":"{text}"}}"#),
            ],
            "\"max_bytes\":20000",
        ),
    ));
    v.push((
        "tool exchanges with orphans",
        request(
            &fill(size, ASK, |i| {
                let call = format!(
                    r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":"c{i}","type":"function","function":{{"name":"f","arguments":"{{}}"}}}}]}}"#
                );
                let reply = format!(r#"{{"role":"tool","tool_call_id":"c{i}","content":"ok"}}"#);
                let orphan = format!(r#"{{"role":"tool","tool_call_id":"o{i}","content":"lost"}}"#);
                format!("{call},{reply},{orphan}")
            }),
            budget,
        ),
    ));
    let replies = size / 70;
    let calls: Vec<String> = (0..replies)
        .map(|i| {
            format!(
                r#"{{"id":"c{i}","type":"function","function":{{"name":"f","arguments":"{{}}"}}}}"#
            )
        })
        .collect();
    let mut exchange = vec![
        r#"{"role":"user","content":"go"}"#.to_string(),
        format!(
            r#"{{"role":"assistant","content":null,"tool_calls":[{}]}}"#,
            calls.join(",")
        ),
    ];
    exchange.extend(
        (0..replies).map(|i| format!(r#"{{"role":"tool","tool_call_id":"c{i}","content":"r"}}"#)),
    );
    exchange.push(ASK.into());
    v.push((
        "one tool exchange of many replies, yielding",
        request(&exchange, "\"max_bytes\":20000"),
    ));
    let uses: Vec<String> = (0..size / 120)
        .map(|i| format!(r#"{{"type":"tool_use","id":"t{i}","name":"f","input":{{}}}}"#))
        .collect();
    let results: Vec<String> = (1..size / 120)
        .map(|i| format!(r#"{{"type":"tool_result","tool_use_id":"t{i}","content":"r"}}"#))
        .collect();
    v.push((
        "Anthropic: one result missing of many",
        format!(
            r#"{{"format":"anthropic","messages":[{{"role":"user","content":"go"}},{{"role":"assistant","content":[{}]}},{{"role":"user","content":[{}]}},{{"role":"assistant","content":"done"}},{{"role":"user","content":"and now?"}}],"max_bytes":20000}}"#,
            uses.join(","),
            results.join(",")
        ),
    ));
    v.push((
        "Anthropic: same-role runs to merge",
        format!(
            r#"{{"format":"anthropic","messages":[{}],"max_bytes":100000}}"#,
            fill(size, r#"{"role":"user","content":"end"}"#, |i| format!(
                r#"{{"role":"user","content":[{{"type":"text","text":"u{i}"}}]}}"#
            ))
            .join(",")
        ),
    ));
    v.push((
        "Gemini: tiny parts",
        format!(
            r#"{{"format":"gemini","messages":[{}],"max_bytes":100000}}"#,
            fill(size, r#"{"role":"user","parts":[{"text":"end"}]}"#, |i| {
                let role = if i % 2 == 0 { "user" } else { "model" };
                format!(r#"{{"role":"{role}","parts":[{{"text":"a"}},{{"text":"b"}}]}}"#)
            })
            .join(",")
        ),
    ));
    v.push((
        "Responses: orphan outputs",
        format!(
            r#"{{"format":"responses","messages":[{}],"max_bytes":100000}}"#,
            fill(size, r#"{"role":"user","content":"end"}"#, |i| format!(
                r#"{{"type":"function_call_output","call_id":"c{i}","output":"x"}}"#
            ))
            .join(",")
        ),
    ));
    let shot = {
        let mut png = vec![
            0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n', 0, 0, 0, 13,
        ];
        png.extend(b"IHDR");
        png.extend(1920u32.to_be_bytes());
        png.extend(1080u32.to_be_bytes());
        png.extend([8, 6, 0, 0, 0]);
        png.extend((0..size / 27).map(|i| (i * 7919 % 251) as u8));
        format!("data:image/png;base64,{}", base64(&png))
    };
    v.push((
        "20 screenshots, keeping all",
        request(
            &fill(size, ASK, |i| {
                format!(
                    r#"{{"role":"user","content":[{{"type":"text","text":"shot {i}"}},{{"type":"image_url","image_url":{{"url":"{shot}"}}}}]}},{{"role":"assistant","content":"{}"}}"#,
                    words(i, 300)
                )
            }),
            "",
        ),
    ));
    v.push((
        "text session, keeping all",
        request(
            &fill(size, ASK, |i| {
                let role = if i % 2 == 0 { "user" } else { "assistant" };
                format!(
                    r#"{{"role":"{role}","content":"{}"}}"#,
                    words(i, 120 + i % 200)
                )
            }),
            "\"max_messages\":null",
        ),
    ));
    v.push((
        "text session, counted in tokens, tight",
        request(
            &fill(size, ASK, |i| {
                let role = if i % 2 == 0 { "user" } else { "assistant" };
                format!(
                    r#"{{"role":"{role}","content":"{}"}}"#,
                    words(i, 120 + i % 200)
                )
            }),
            "\"context_tokens\":32000,\"model\":\"gpt-4o\"",
        ),
    ));
    v
}

/// The peak resident size of this process so far (`VmHWM`), in bytes. (`getrusage`'s
/// `ru_maxrss` would do too, but a child of this benchmark inherits in it the peak of the
/// benchmark itself, which holds its inputs; `VmHWM` starts afresh at `exec`.)
fn max_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap_or(0)
        * 1024
}

/// In a child: `ankita_trim_n` on the file; prints the peak's growth and the answer's size.
fn c_child(path: &Path) {
    let text = std::fs::read(path).unwrap();
    // The request's pages are resident before the call, as a host's would be.
    let text = std::hint::black_box(text);
    let before = max_rss();
    // SAFETY: a buffer of `len` readable bytes; the answer is released below.
    let answer_len = unsafe {
        let p = ankita::ffi::ankita_trim_n(text.as_ptr().cast::<c_char>(), text.len());
        let len = std::ffi::CStr::from_ptr(p).to_bytes().len();
        ankita::ffi::ankita_string_free(p);
        len
    };
    println!("{} {}", max_rss() - before, answer_len);
}

const PYTHON_CHILD: &str = "
import sys, ankita
def peak():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM:'):
            return int(line.split()[1]) * 1024
text = open(sys.argv[1], encoding='utf-8').read()
before = peak()
answer = ankita.trim_json(text)
after = peak()
print(after - before, len(answer.encode()))
";

/// (peak growth, answer bytes) printed by a child.
fn growth(mut command: Command) -> Option<(u64, u64)> {
    let out = command.output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text.split_whitespace().map(|n| n.parse::<u64>().ok());
    Some((it.next()??, it.next()??))
}

/// The CLI's maximum RSS under `/usr/bin/time -v`, and its answer's size.
fn cli(path: &Path, answer: &Path) -> Option<(u64, u64)> {
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(env!("CARGO_BIN_EXE_ankita"))
        .arg("trim")
        .arg(path)
        .stdout(std::fs::File::create(answer).ok()?)
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kib: u64 = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))?
        .trim()
        .parse()
        .ok()?;
    Some((kib * 1024, std::fs::metadata(answer).ok()?.len()))
}

fn ratio(peak: u64, answer: u64, input: usize) -> f64 {
    peak.saturating_sub(answer) as f64 / input as f64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--c-child") {
        c_child(Path::new(&args[at + 1]));
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let keep = args
        .iter()
        .position(|a| a == "--keep")
        .map(|at| PathBuf::from(&args[at + 1]));
    let filter: Vec<&String> = args[1..]
        .iter()
        .filter(|a| !a.starts_with("--") && keep.as_deref() != Some(Path::new(a)))
        .collect();
    let python = std::env::var_os("ANKITA_PYTHON").map(PathBuf::from);
    let dir = std::env::temp_dir().join(format!("ankita-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (path, answer) = (dir.join("request.json"), dir.join("answer.json"));
    let mut table = String::new();
    let _ = writeln!(
        table,
        "| Input | MB | Answer MB | CLI peak MB | CLI × | C ABI growth MB | C ABI ×{} |",
        if python.is_some() { " | Python ×" } else { "" }
    );
    let _ = writeln!(
        table,
        "|---|---|---|---|---|---|---|{}",
        if python.is_some() { "---|" } else { "" }
    );
    print!("{table}");
    let mut worst: (f64, f64) = (0.0, 0.0);
    for (name, text) in inputs(if quick { FULL / 5 } else { FULL }) {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        std::fs::write(&path, &text).unwrap();
        if let Some(keep) = &keep {
            let slug: String = name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            std::fs::create_dir_all(keep).unwrap();
            std::fs::write(keep.join(format!("{slug}.json")), &text).unwrap();
        }
        let (cli_peak, cli_answer) = cli(&path, &answer).unwrap_or((0, 0));
        let mut child = Command::new(std::env::current_exe().unwrap());
        child.arg("--c-child").arg(&path);
        let (c_growth, c_answer) = growth(child).unwrap_or((0, 0));
        let py = python.as_ref().map(|py| {
            let mut child = Command::new(py);
            child.arg("-c").arg(PYTHON_CHILD).arg(&path);
            growth(child).map_or(f64::NAN, |(g, a)| ratio(g, a, text.len()))
        });
        let (cli_x, c_x) = (
            ratio(cli_peak, cli_answer, text.len()),
            ratio(c_growth, c_answer, text.len()),
        );
        worst = (worst.0.max(cli_x), worst.1.max(c_x));
        let mut row = format!(
            "| {name} | {:.1} | {:.1} | {:.1} | {cli_x:.1} | {:.1} | {c_x:.1} |",
            text.len() as f64 / 1e6,
            c_answer as f64 / 1e6,
            cli_peak as f64 / 1e6,
            c_growth as f64 / 1e6,
        );
        if let Some(py) = py {
            let _ = write!(row, " {py:.1} |");
        }
        println!("{row}");
        // The CLI ends its answer with a line break.
        if cli_answer != c_answer + 1 {
            println!("  (the CLI's answer is {cli_answer} bytes, the C ABI's {c_answer})");
        }
    }
    println!(
        "\nworst: CLI {:.1}× (peak RSS less the answer, over the input), C ABI {:.1}× (growth of the peak across the call less the answer, over the input)",
        worst.0, worst.1
    );
    let _ = std::fs::remove_dir_all(&dir);
}

//! Every export of the C ABI called from 16 threads at once, with different inputs, each
//! answer compared byte for byte with the answer computed single-threaded (DESIGN §9: no
//! global mutable state; koffi's async calls and Python threads call concurrently).

use ankita::ffi::{
    ankita_estimate_image_tokens, ankita_probe_image, ankita_probe_image_with, ankita_sanitize,
    ankita_string_free, ankita_trim, ankita_trim_many, ankita_version,
};
use base64::{engine::general_purpose::STANDARD, Engine};
use serde_json::{json, Value};
use std::ffi::{c_char, CStr, CString};
use std::path::PathBuf;
use std::sync::{Arc, Barrier};

// Under Miri (`cargo +nightly miri test --test concurrency`, which checks every access for
// data races) a few threads over the small calls are enough and affordable.
const THREADS: usize = if cfg!(miri) { 4 } else { 16 };
const ROUNDS: usize = if cfg!(miri) { 1 } else { 4 };

/// One call of an export; `None` arguments are passed as NULL.
enum Call {
    Trim(Option<CString>),
    Sanitize(Option<CString>),
    Probe(Option<CString>),
    ProbeWith(Option<CString>, Option<CString>),
    Estimate(u32, u32, Option<CString>),
    /// Raw bytes (NUL-terminated, possibly not UTF-8) to trim.
    TrimBytes(Vec<u8>),
    Version,
    FreeNull,
    /// A batch of trim requests through `ankita_trim_many` on this many threads.
    Many(Vec<Option<CString>>, usize),
}

fn ptr(arg: &Option<CString>) -> *const c_char {
    arg.as_ref().map_or(std::ptr::null(), |s| s.as_ptr())
}

/// Takes ownership of an answer: copies it and releases it with `ankita_string_free`.
fn take(p: *mut c_char) -> String {
    assert!(!p.is_null(), "an export returned NULL");
    let text = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
    unsafe { ankita_string_free(p) };
    text
}

fn run(call: &Call) -> String {
    unsafe {
        match call {
            Call::Trim(a) => take(ankita_trim(ptr(a))),
            Call::Sanitize(a) => take(ankita_sanitize(ptr(a))),
            Call::Probe(a) => take(ankita_probe_image(ptr(a))),
            Call::ProbeWith(a, o) => take(ankita_probe_image_with(ptr(a), ptr(o))),
            Call::Estimate(w, h, o) => take(ankita_estimate_image_tokens(*w, *h, ptr(o))),
            Call::TrimBytes(bytes) => take(ankita_trim(bytes.as_ptr().cast())),
            Call::Version => {
                let p = ankita_version();
                assert_eq!(p, ankita_version(), "the version pointer is static");
                CStr::from_ptr(p).to_str().unwrap().to_owned()
            }
            Call::Many(requests, threads) => {
                let pointers: Vec<*const c_char> = requests.iter().map(ptr).collect();
                let mut answers = vec![std::ptr::null_mut(); requests.len()];
                let call = take(ankita_trim_many(
                    pointers.as_ptr(),
                    std::ptr::null(),
                    requests.len(),
                    std::ptr::null(),
                    *threads,
                    answers.as_mut_ptr(),
                ));
                let mut out = call;
                for answer in answers {
                    out.push('\n');
                    out.push_str(&take(answer));
                }
                out
            }
            Call::FreeNull => {
                ankita_string_free(std::ptr::null_mut());
                String::new()
            }
        }
    }
}

fn c(text: impl Into<Vec<u8>>) -> Option<CString> {
    Some(CString::new(text).unwrap())
}

fn calls() -> Vec<Call> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut calls = Vec::new();

    // Every shared case, through trim or sanitize as the case says.
    let mut cases: Vec<PathBuf> = std::fs::read_dir(root.join("tests/cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 20);
    for path in &cases {
        let case: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let request = case["request"].to_string();
        match case["function"].as_str() {
            Some("sanitize") => calls.push(Call::Sanitize(c(request))),
            _ => calls.push(Call::Trim(c(request))),
        }
    }

    // Every image fixture's head as a data URL, bare base64, and with pricing options.
    let manifest: Vec<Value> = serde_json::from_slice(
        &std::fs::read(root.join("tests/fixtures/images/manifest.json")).unwrap(),
    )
    .unwrap();
    let profiles = [
        "ankita",
        "openai",
        "anthropic",
        "gemini",
        "qwen2-vl",
        "pixtral",
    ];
    let fixtures = if cfg!(miri) { 6 } else { manifest.len() };
    for (i, entry) in manifest.iter().take(fixtures).enumerate() {
        let file = entry["file"].as_str().unwrap();
        let bytes = std::fs::read(root.join("tests/fixtures/images").join(file)).unwrap();
        let head = STANDARD.encode(&bytes[..bytes.len().min(4096)]);
        calls.push(Call::Probe(c(format!("data:image/png;base64,{head}"))));
        calls.push(Call::Probe(c(head.clone())));
        let options = json!({"image_profile": profiles[i % profiles.len()]}).to_string();
        calls.push(Call::ProbeWith(c(head), c(options)));
    }

    // Estimates over sizes and profiles, with NULL and bad options.
    for (i, (w, h)) in [(1, 1), (1700, 2200), (4096, 4096), (u32::MAX, 1), (0, 10)]
        .into_iter()
        .enumerate()
    {
        calls.push(Call::Estimate(w, h, None));
        let options = json!({"image_profile": profiles[i % profiles.len()], "detail": "high"});
        calls.push(Call::Estimate(w, h, c(options.to_string())));
    }
    calls.push(Call::Estimate(10, 10, c("{\"nope\": 1}")));
    calls.push(Call::Estimate(10, 10, c("not json")));

    // Sessions of different sizes and budgets, so the threads run long and short calls.
    let sessions: &[(usize, u64)] = if cfg!(miri) {
        &[(3, 1_000), (6, 600)]
    } else {
        &[(10, 2_000), (200, 8_000), (2_000, 30_000), (50, 600)]
    };
    for &(n, budget) in sessions {
        let mut messages = vec![json!({"role": "system", "content": "Be brief."})];
        for i in 0..n {
            messages.push(
                json!({"role": "user", "content": format!("question {i} {}", "é".repeat(i % 300))}),
            );
            messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": format!("c{i}"), "type": "function", "function": {"name": "f", "arguments": "{}"}}]}));
            messages.push(json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": "x".repeat(i % 700)}));
        }
        let request = json!({"messages": messages, "max_bytes": budget, "max_messages": 1000});
        calls.push(Call::Trim(c(request.to_string())));
        calls.push(Call::Sanitize(c(json!(messages).to_string())));
    }

    // Errors: NULL, non-UTF-8, invalid JSON, deep nesting, budget too small.
    calls.push(Call::Trim(None));
    calls.push(Call::Sanitize(None));
    calls.push(Call::Probe(None));
    calls.push(Call::ProbeWith(None, None));
    calls.push(Call::TrimBytes(b"{\"messages\": \xff}\0".to_vec()));
    calls.push(Call::Trim(c("{")));
    calls.push(Call::Trim(c("[".repeat(if cfg!(miri) {
        200
    } else {
        10_000
    }))));
    calls.push(Call::Trim(c(
        r#"{"messages": [{"role": "user", "content": "hi"}], "max_bytes": 10}"#,
    )));
    calls.push(Call::Probe(c("https://example.com/cat.png")));
    calls.push(Call::Version);
    calls.push(Call::FreeNull);
    // The trim requests again as batches, on two threads and on every core, from every thread.
    let batch: Vec<Option<CString>> = calls
        .iter()
        .filter_map(|call| match call {
            Call::Trim(a) if a.is_some() => Some(a.clone()),
            _ => None,
        })
        .collect();
    calls.push(Call::Many(batch.clone(), 2));
    calls.push(Call::Many(batch, 0));
    calls
}

#[test]
fn every_export_from_sixteen_threads_gives_the_single_threaded_answer() {
    let mut calls = calls();
    if cfg!(miri) {
        calls.retain(|call| match call {
            Call::Trim(Some(a)) | Call::Sanitize(Some(a)) | Call::Probe(Some(a)) => {
                a.as_bytes().len() < 2_000
            }
            Call::ProbeWith(Some(a), _) => a.as_bytes().len() < 2_000,
            Call::Many(..) => false,
            _ => true,
        });
    }
    let calls = Arc::new(calls);
    let expected: Arc<Vec<String>> = Arc::new(calls.iter().map(run).collect());
    // The single-threaded answers are themselves stable and well-formed.
    for (call, answer) in calls.iter().zip(expected.iter()) {
        assert_eq!(&run(call), answer);
        match call {
            Call::Version => assert_eq!(answer, env!("CARGO_PKG_VERSION")),
            // A batch answers each request as ankita_trim does.
            Call::Many(requests, _) => {
                let mut lines = answer.split('\n');
                let head = lines.next().unwrap();
                assert!(head.starts_with("{\"ok\":true"), "{head}");
                for (request, line) in requests.iter().zip(lines) {
                    assert_eq!(line, run(&Call::Trim(request.clone())));
                }
            }
            Call::FreeNull => {}
            _ => {
                let v: Value = serde_json::from_str(answer).unwrap();
                assert!(v["ok"].is_boolean(), "{answer}");
                assert_ne!(v["error"]["code"], "internal", "{answer}");
            }
        }
    }
    let oks = expected
        .iter()
        .filter(|a| a.starts_with("{\"ok\":true"))
        .count();
    let errors = expected
        .iter()
        .filter(|a| a.starts_with("{\"ok\":false"))
        .count();
    if !cfg!(miri) {
        assert!(oks > 100 && errors > 10, "{oks} ok, {errors} errors");
    }

    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (calls, expected, barrier) = (calls.clone(), expected.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let n = calls.len();
                let mut done = 0;
                for round in 0..ROUNDS {
                    // Each thread walks the calls in its own order: a different start and
                    // stride (coprime with n when possible), so different exports overlap.
                    let stride = [1, 7, 11, 13, 17, 19, 23, 29][(t + round) % 8];
                    let stride = if n % stride == 0 { 1 } else { stride };
                    for k in 0..n {
                        let i = (t * 31 + round * 5 + k * stride) % n;
                        let got = run(&calls[i]);
                        assert_eq!(got, expected[i], "thread {t}, round {round}, call {i}");
                        done += 1;
                    }
                }
                done
            })
        })
        .collect();
    let total: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(total, THREADS * ROUNDS * calls.len());
}

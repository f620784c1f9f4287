//! What fuzzing found, replayed by plain `cargo test` (no nightly, no cargo-fuzz):
//!
//! - every crash a fuzz target found, as a test of its own (fixed in src/); the byte-level
//!   ones are also kept verbatim in fuzz/regressions/<target>/ and replayed through the
//!   target's checks;
//! - the committed, minimized corpora of the byte-level targets (fuzz/corpus/probe_bytes,
//!   probe_text, probe_pdf, probe_audio, trim_json) through the same checks as the targets, so a change that breaks
//!   an input fuzzing once found interesting fails here first.
//!
//! The structured targets (probe_base64, trim_session) decode their corpus with `arbitrary`,
//! which the root crate does not depend on; their crashes are written out here as plain
//! inputs instead. docs/robustness.md says how to rerun the fuzzers.

#[path = "../fuzz/checks.rs"]
mod checks;

use ankita::api::{sanitize_json, trim_json};
use checks::{
    check_answer, check_bytes_request, check_probe_bytes, check_probe_file, check_probe_text,
};
use serde_json::{json, Value};
use std::path::PathBuf;

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut inputs: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 20, "{target}: only {} inputs", inputs.len());
    inputs
}

fn check_trim_json(text: &str) {
    check_answer(&trim_json(text), false);
    check_answer(&sanitize_json(text), true);
}

#[test]
fn probe_bytes_corpus_replays() {
    for (name, data) in corpus("probe_bytes") {
        let result = std::panic::catch_unwind(|| check_probe_bytes(&data));
        assert!(result.is_ok(), "fuzz/corpus/probe_bytes/{name}");
    }
}

#[test]
fn probe_pdf_corpus_replays() {
    for (name, data) in corpus("probe_pdf") {
        // The target makes every input a PDF by a header when it lacks one.
        let mut pdf = data.clone();
        if !data.starts_with(b"%PDF-") {
            pdf = [&b"%PDF-1.7\n"[..], &data].concat();
        }
        let result = std::panic::catch_unwind(|| check_probe_file(&pdf));
        assert!(result.is_ok(), "fuzz/corpus/probe_pdf/{name}");
    }
}

#[test]
fn probe_audio_corpus_replays() {
    for (name, data) in corpus("probe_audio") {
        let result = std::panic::catch_unwind(|| check_probe_file(&data));
        assert!(result.is_ok(), "fuzz/corpus/probe_audio/{name}");
    }
}

#[test]
fn probe_text_corpus_replays() {
    for (name, data) in corpus("probe_text") {
        // libFuzzer hands `&str` targets only valid UTF-8; other inputs are skipped there too.
        let Ok(text) = std::str::from_utf8(&data) else {
            continue;
        };
        let result = std::panic::catch_unwind(|| check_probe_text(text));
        assert!(result.is_ok(), "fuzz/corpus/probe_text/{name}");
    }
}

#[test]
fn trim_json_corpus_replays() {
    let mut ok = 0;
    for (name, data) in corpus("trim_json") {
        let bytes = std::panic::catch_unwind(|| check_bytes_request(&data));
        assert!(bytes.is_ok(), "fuzz/corpus/trim_json/{name} as bytes");
        let text = String::from_utf8_lossy(&data);
        let result = std::panic::catch_unwind(|| check_trim_json(&text));
        assert!(result.is_ok(), "fuzz/corpus/trim_json/{name}");
        ok += usize::from(trim_json(&text).starts_with("{\"ok\":true"));
    }
    // The corpus reaches past the parser: some inputs are whole, valid requests.
    assert!(ok >= 10, "only {ok} successful trims in the corpus");
}

// ---------------------------------------------------------------------------------------------
// Crashes. Each was found by a fuzz target, minimized to the request below, and fixed in src/.

/// trim_session, crash-ec63175c71db11deb24855e3e30a321ccb50d5b2, found on the code before
/// 0f7ce6e: a remote image in the pinned system message at bytes_per_token ≈ 2⁶¹.8 costs
/// 1,445 tokens × that, saturated to u64::MAX; adding the message's other 24 bytes wrapped, so
/// the answer was `ok` with `cost_bytes` 25 under a 262,140-byte budget (and a debug build
/// panicked). The system message cannot shrink, so the right answer is a loud failure.
#[test]
fn crash_remote_image_at_an_astronomic_bytes_per_token_does_not_wrap_the_cost() {
    let request = json!({
        "messages": [{"role": "system", "content": [
            {"type": "image_url", "image_url": "https://example.com/156.png"}], "x_id": 0}],
        "max_bytes": 262_140,
        "context_tokens": 690_563_443u64,
        "max_output_tokens": 36_062,
        "bytes_per_token": 3_979_007_551_331_066_153u64,
        "tools": [{"type": "function", "function": {"name": "tool0", "parameters": {}}}],
        "memory": "m".repeat(2871),
        "max_messages": 0,
    });
    let v: Value = serde_json::from_str(&trim_json(&request.to_string())).unwrap();
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["error"]["code"], "context_budget_exceeded");
    let breakdown = &v["error"]["breakdown"];
    // Saturated, and reported at most 2⁵³ − 1 (a figure JavaScript and Python read exactly).
    const MAX_SAFE: u64 = (1 << 53) - 1;
    assert_eq!(breakdown["system_bytes"].as_u64(), Some(MAX_SAFE));
    assert_eq!(breakdown["required_bytes"].as_u64(), Some(MAX_SAFE));
    assert_eq!(breakdown["history_bytes"].as_u64(), Some(262_140));
    // The same through sanitize (no budget): the message stays, nothing overflows.
    let messages = request["messages"].to_string();
    let v: Value = serde_json::from_str(&sanitize_json(&messages)).unwrap();
    assert_eq!(v["messages"], request["messages"]);
}

fn regressions(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut inputs: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .map(|entry| {
                    let path = entry.unwrap().path();
                    let name = path.file_name().unwrap().to_string_lossy().into_owned();
                    (name, std::fs::read(&path).unwrap())
                })
                .collect()
        })
        .unwrap_or_default();
    inputs.sort();
    inputs
}

#[test]
fn every_saved_trim_json_crash_replays_clean() {
    let crashes = regressions("trim_json");
    assert!(!crashes.is_empty());
    for (name, data) in crashes {
        let text = String::from_utf8_lossy(&data);
        let result = std::panic::catch_unwind(|| check_trim_json(&text));
        assert!(result.is_ok(), "fuzz/regressions/trim_json/{name}");
    }
}

/// trim_json, crash-85161e906de642fb6ba5362a2d8a95a966c270e9 (fuzz/regressions/trim_json):
/// in format anthropic, an OpenAI `tool_calls` array on an assistant message was read as tool
/// calls; repair removed them from the plan and its cost but the rebuilt message kept them,
/// so the answer was `ok` with `cost_bytes` 773 over `max_bytes` 600. Next to a `tool_use`
/// block the field was overwritten in the priced message and returned unpriced (below: 2 KB
/// returned under a report of 179 bytes). The field is now refused.
#[test]
fn crash_anthropic_message_with_openai_tool_calls_is_refused_not_returned_over_budget() {
    let (_, data) = regressions("trim_json")
        .into_iter()
        .find(|(name, _)| name.starts_with("crash-85161e90"))
        .expect("the saved crash");
    let v: Value = serde_json::from_str(&trim_json(&String::from_utf8_lossy(&data))).unwrap();
    assert_eq!(v["error"]["code"], "invalid_request", "{v}");
    assert_eq!(v["error"]["path"], "messages[1].tool_calls");

    let request = json!({"format": "anthropic", "max_bytes": 1000, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
         "tool_calls": ["x".repeat(2000)]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
        {"role": "user", "content": "next"},
    ]});
    let v: Value = serde_json::from_str(&trim_json(&request.to_string())).unwrap();
    assert_eq!(v["error"]["code"], "invalid_request", "{v}");
    assert_eq!(v["error"]["path"], "messages[1].tool_calls");
    // Without the foreign field the same exchange is trimmed within budget as usual.
    let mut request = request;
    request["messages"][1]
        .as_object_mut()
        .unwrap()
        .remove("tool_calls");
    let v: Value = serde_json::from_str(&trim_json(&request.to_string())).unwrap();
    assert_eq!(v["ok"], true, "{v}");
    assert!(v["report"]["cost_bytes"].as_u64().unwrap() <= 1000);
}

/// Files whose structure claims more than their size can hold (fuzz/regressions/probe_pdf and
/// probe_audio, also in the corpora): a PDF whose page tree states 1,000,000,000 pages in 209
/// bytes, an Ogg Opus stream whose last granule position is −2 (12 million years, which priced
/// at 1.2 × 10¹⁶ tokens, past 2⁵³), a WAV of 1 byte a second, a FLAC stream at 1 Hz. Each is
/// priced as an unreadable file of its size, with an `implausible_file` warning naming what it
/// claims, in a trim; no price passes 2⁵³ − 1.
#[test]
fn files_claiming_more_than_their_size_are_priced_within_it_and_warned_about() {
    use base64::Engine;
    let files: Vec<(String, Vec<u8>)> = (regressions("probe_pdf").into_iter())
        .chain(regressions("probe_audio"))
        .filter(|(name, _)| name.starts_with("implausible-"))
        .collect();
    assert_eq!(files.len(), 4);
    for (name, data) in files {
        let result = std::panic::catch_unwind(|| check_probe_file(&data));
        assert!(result.is_ok(), "{name}: the probe's checks");
        let pdf = data.starts_with(b"%PDF");
        let b64 = base64::engine::general_purpose::STANDARD.encode(&data);
        let part = if pdf {
            json!({"type": "file", "file": {"filename": "claims.pdf",
                "file_data": format!("data:application/pdf;base64,{b64}")}})
        } else {
            json!({"type": "input_audio", "input_audio": {"data": b64, "format": "wav"}})
        };
        let request = json!({"messages": [{"role": "user", "content": [
            {"type": "text", "text": "What is in it?"}, part]}],
            "image_profile": "gemini", "max_bytes": 1_000_000});
        let v: Value = serde_json::from_str(&trim_json(&request.to_string())).unwrap();
        assert_eq!(v["ok"], true, "{name}: {v}");
        let warnings = v["report"]["warnings"].as_array().unwrap();
        assert_eq!(warnings.len(), 1, "{name}: {v}");
        let w = &warnings[0];
        assert_eq!(w["code"], "implausible_file", "{name}: {w}");
        assert_eq!(w["path"], "messages[0].content[1]", "{name}");
        let message = w["message"].as_str().unwrap();
        let claim = if pdf {
            "the PDF's page tree states 1,000,000,000 pages"
        } else if name.contains("opus") {
            "the Ogg Opus header states 384,307,168,202,283 s"
        } else if name.contains("wav") {
            "the WAV header states 4,000 s"
        } else {
            "the FLAC header states 68,719,476,735 s"
        };
        assert!(message.starts_with(claim), "{name}: {message}");
        // Priced as an unreadable file of its size: a page per 4 KiB, a second per 1,000
        // bytes, at least one (258 tokens a page, 32 a second under the gemini profile).
        let decoded = b64.len() as u64 / 4 * 3;
        let tokens = if pdf {
            decoded.div_ceil(4096).max(1) * 258
        } else {
            decoded.div_ceil(1000).max(1) * 32
        };
        assert!(
            message.ends_with(&format!("~{tokens} tokens"))
                || message.ends_with(&format!("~{} tokens", group(tokens))),
            "{name}: {message}"
        );
        let cost = v["report"]["cost_bytes"].as_u64().unwrap();
        assert!(cost < 4 * tokens + 200, "{name}: cost {cost}");
    }
}

/// `12345` → `12,345`.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

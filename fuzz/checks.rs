//! The checks the byte-level fuzz targets make on every input, shared with
//! tests/fuzz_regressions.rs, which replays the committed corpora and past crashes through them.
//! Plain Rust (no libFuzzer), so `cargo test` can include it.

#![allow(dead_code)] // each fuzz target uses one of the checks

use ankita::pricing::{price_image_url, price_probe, Header, ImageProfile};
use ankita::probe::{is_data_url, probe_base64, probe_bytes, probe_data_url, probe_text};
use serde_json::Value;

/// fuzz/fuzz_targets/probe_pdf.rs and probe_audio.rs: the file probe never panics; what it
/// reads is sane (at least one page, sides within a PDF's limits) and is priced by every
/// profile without overflow; base64 of the same bytes reads the same.
pub fn check_probe_file(data: &[u8]) {
    use ankita::pricing::{is_implausible_file, price_file_probe, MAX_PRICE};
    use ankita::probe::file::{probe_file_bytes, probe_file_text, FileInfo, FileKind};
    use ankita::probe::plausible::max_millis_per_byte;
    use ankita::profiles::files::{MAX_UNREADABLE_PAGES, MAX_UNREADABLE_SECONDS};
    let result = probe_file_bytes(data);
    match result {
        Ok(FileInfo::Document(d)) => {
            assert!(d.pages >= 1, "{d:?}");
            if let Some((w, h)) = d.page_size {
                assert!(
                    (1..=14_400).contains(&w) && (1..=14_400).contains(&h),
                    "{d:?}"
                );
            }
        }
        Ok(FileInfo::Audio(_)) | Err(_) => {}
    }
    // Checked as trimming prices it, a file's pages or seconds are within what its size can
    // hold, else priced as an unreadable file of its size (at most 100 pages or 9.5 hours); as
    // read, every price is within 2⁵³ − 1.
    let len = data.len() as u64;
    for name in ImageProfile::NAMES {
        let profile = ImageProfile::from_name(name).unwrap();
        for kind in [FileKind::Document, FileKind::Audio] {
            let price = price_file_probe(result, kind, len, profile, None, 4, Header::Checked);
            let tokens = price.tokens.unwrap();
            assert!((1..=MAX_PRICE).contains(&tokens), "{name} {result:?}");
            assert_eq!(price.budget_bytes, tokens.saturating_mul(4).min(MAX_PRICE));
            let file = price.file.unwrap();
            let plausible = match result {
                Ok(FileInfo::Document(_)) => len.max(MAX_UNREADABLE_PAGES),
                Ok(FileInfo::Audio(a)) => (len * max_millis_per_byte(a.format))
                    .div_ceil(1000)
                    .max(MAX_UNREADABLE_SECONDS),
                Err(_) => MAX_UNREADABLE_PAGES.max(MAX_UNREADABLE_SECONDS),
            };
            assert!(file.count <= plausible, "{name} {result:?}: {}", file.count);
            assert_eq!(
                price.implausible,
                result.is_ok_and(|info| is_implausible_file(&info, len)),
                "{name} {result:?}"
            );
            let read = price_file_probe(result, kind, 0, profile, None, u64::MAX, Header::AsRead);
            assert!(read.tokens.unwrap() <= MAX_PRICE && read.budget_bytes <= MAX_PRICE);
        }
    }
    if data.len() <= 4096 {
        use base64::Engine;
        let text = base64::engine::general_purpose::STANDARD.encode(data);
        assert_eq!(probe_file_text(&text), result);
    }
}

/// fuzz/fuzz_targets/probe_bytes.rs: never panics; a decoded size has both sides ≥ 1 and is
/// priced by every profile without overflow.
pub fn check_probe_bytes(data: &[u8]) {
    let result = probe_bytes(data);
    if let Ok(info) = result {
        assert!(info.width > 0 && info.height > 0, "{info:?}");
        for name in ImageProfile::NAMES {
            let profile = ImageProfile::from_name(name).unwrap();
            for detail in [None, Some("low"), Some("high"), Some("auto")] {
                let tokens = profile.tokens(info.width, info.height, detail);
                assert!(tokens >= 1, "{name} {info:?} {tokens}");
                let price = price_probe(result, data.len(), profile, detail, 4, Header::AsRead);
                assert_eq!(price.tokens, Some(tokens));
                assert_eq!(price.budget_bytes, tokens.saturating_mul(4));
            }
        }
    }
}

/// fuzz/fuzz_targets/probe_text.rs: the text paths never panic and agree with each other.
pub fn check_probe_text(text: &str) {
    let via_text = probe_text(text);
    let via_url = probe_data_url(text);
    if is_data_url(text) {
        assert_eq!(via_text, via_url);
    } else {
        assert_eq!(via_text, probe_base64(text.trim_start()));
    }
    if let Ok(info) = via_text {
        assert!(info.width > 0 && info.height > 0, "{info:?}");
    }
    let answer = ankita::probe_response(text, ImageProfile::default());
    assert_eq!(answer["ok"], true);
    assert_eq!(answer["format"].is_null(), via_text.is_err());
    if via_text.is_err() {
        assert_eq!(answer["budget_bytes"].as_u64(), Some(text.len() as u64));
    }
    let price = price_image_url(text, ImageProfile::default(), Some("auto"), 4);
    if via_url.is_err() && !ankita::pricing::is_remote_url(text) {
        assert_eq!(price.budget_bytes, text.len() as u64);
    }
}

const CODES: &[&str] = &[
    "invalid_json",
    "invalid_request",
    "context_budget_exceeded",
    "history_budget_too_small",
    "image_overflow",
];

/// fuzz/fuzz_targets/trim_json.rs: the request's bytes as they are, through the C ABI (the
/// scanner checks UTF-8 as it reads them): bytes that are UTF-8 get the answer the text gets;
/// others, the error that names the first bad byte, where `str::from_utf8` finds it.
pub fn check_bytes_request(data: &[u8]) {
    // SAFETY: a valid buffer of `len` bytes; the answer is a library string, released below.
    let answer = unsafe {
        let p = ankita::ffi::ankita_trim_n(data.as_ptr().cast(), data.len());
        let answer = std::ffi::CStr::from_ptr(p)
            .to_str()
            .expect("UTF-8")
            .to_owned();
        ankita::ffi::ankita_string_free(p);
        answer
    };
    match std::str::from_utf8(data) {
        Ok(text) => assert_eq!(answer, ankita::api::trim_json(text), "{text:?}"),
        Err(e) => {
            let v: Value = serde_json::from_str(&answer).expect("the answer is JSON");
            assert_eq!(v["error"]["code"], "invalid_argument", "{answer}");
            let offset = format!("(invalid byte at offset {})", e.valid_up_to());
            assert!(
                v["error"]["message"].as_str().unwrap().ends_with(&offset),
                "{answer}"
            );
        }
    }
}

/// fuzz/fuzz_targets/trim_json.rs: always a JSON object with a boolean `ok`: `messages` and
/// `report` on success, an `error` with a known code otherwise (never `internal`).
pub fn check_answer(answer: &str, sanitize: bool) {
    let v: Value = serde_json::from_str(answer).expect("the answer is JSON");
    match v["ok"] {
        Value::Bool(true) => {
            assert!(v["messages"].is_array(), "{answer}");
            let report = v["report"].as_object().expect("a report");
            assert!(report["repaired"].is_array());
            if !sanitize {
                let out = v["messages"].as_array().unwrap().len() as u64;
                assert_eq!(report["output_messages"].as_u64(), Some(out));
                if let Some(budget) = report["budget_bytes"].as_u64() {
                    assert!(report["cost_bytes"].as_u64().unwrap() <= budget, "{answer}");
                }
            }
        }
        Value::Bool(false) => {
            let code = v["error"]["code"].as_str().expect("an error code");
            assert!(CODES.contains(&code), "{answer}");
            assert!(v["error"]["message"].is_string());
        }
        _ => panic!("no boolean ok: {answer}"),
    }
}

//! Limits: every hostile input ends in an answer or a clear error, without a crash, a hang or
//! memory out of proportion to the input (docs/robustness.md lists what each gets).
//!
//! Deep nesting, huge header dimensions, astronomic budgets and prices, 50 MB strings,
//! 100,000 messages, many parts and replies in one message, duplicate keys, numbers where
//! strings belong, non-UTF-8 and NUL through the C ABI, invalid UTF-16 escapes.

use ankita::api::{sanitize_json, trim_json};
use ankita::ffi::{
    ankita_estimate_image_tokens, ankita_probe_image, ankita_sanitize, ankita_string_free,
    ankita_trim,
};
use ankita::pricing::ImageProfile;
use ankita::probe::{probe_bytes, probe_text, ImageFormat};
use base64::{engine::general_purpose::STANDARD, Engine};
use serde_json::{json, Value};
use std::ffi::{c_char, CStr};

fn answer(text: &str) -> Value {
    serde_json::from_str(text).expect("every answer is JSON")
}

fn trim(request: &Value) -> Value {
    answer(&trim_json(&request.to_string()))
}

fn code(v: &Value) -> &str {
    assert_eq!(v["ok"], false, "expected an error, got {v}");
    v["error"]["code"].as_str().expect("an error code")
}

/// Calls an export with raw bytes (a NUL is appended) and frees its answer.
fn c_call(f: unsafe extern "C" fn(*const c_char) -> *mut c_char, bytes: &[u8]) -> Value {
    let mut arg = bytes.to_vec();
    arg.push(0);
    let p = unsafe { f(arg.as_ptr().cast()) };
    assert!(!p.is_null());
    let text = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
    unsafe { ankita_string_free(p) };
    answer(&text)
}

fn nested(depth: usize, open: &str, close: &str, inner: &str) -> String {
    let mut s = String::with_capacity(depth * (open.len() + close.len()) + inner.len());
    for _ in 0..depth {
        s.push_str(open);
    }
    s.push_str(inner);
    for _ in 0..depth {
        s.push_str(close);
    }
    s
}

// ---------------------------------------------------------------------------------------------
// Deep nesting

#[test]
fn deep_nesting_anywhere_is_invalid_json_not_a_stack_overflow() {
    let arrays = nested(100_000, "[", "]", "");
    let objects = nested(100_000, "{\"a\":", "}", "1");
    for deep in [&arrays, &objects] {
        let requests = [
            format!(r#"{{"messages": [{{"role": "user", "content": "hi", "x": {deep}}}]}}"#),
            format!(
                r#"{{"messages": [{{"role": "user", "content": [{{"type": "input_audio", "data": {deep}}}]}}]}}"#
            ),
            format!(
                r#"{{"messages": [{{"role": "user", "content": [{{"type": "text", "text": "hi", "meta": {deep}}}]}}]}}"#
            ),
            format!(r#"{{"messages": [], "tools": [{deep}]}}"#),
            format!(r#"{{"messages": {deep}}}"#),
            deep.clone(),
        ];
        for request in &requests {
            let v = answer(&trim_json(request));
            assert_eq!(code(&v), "invalid_json");
            assert!(
                v["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("recursion limit"),
                "{v}"
            );
            assert_eq!(code(&answer(&sanitize_json(request))), "invalid_json");
            assert_eq!(
                code(&c_call(ankita_trim, request.as_bytes())),
                "invalid_json"
            );
            assert_eq!(
                code(&c_call(ankita_sanitize, request.as_bytes())),
                "invalid_json"
            );
        }
        let options = std::ffi::CString::new(deep.as_str()).unwrap();
        let p = unsafe { ankita_estimate_image_tokens(10, 10, options.as_ptr()) };
        let text = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
        unsafe { ankita_string_free(p) };
        assert_eq!(code(&answer(&text)), "invalid_json");
    }
}

/// The deepest nesting serde_json accepts inside a content part of a request.
fn deepest_accepted_part() -> usize {
    let request = |d: usize| {
        format!(
            r#"{{"messages": [{{"role": "user", "content": [{{"type": "input_audio", "data": {}}}]}}]}}"#,
            nested(d, "[", "]", "1")
        )
    };
    let d = (100..200)
        .take_while(|&d| serde_json::from_str::<Value>(&request(d)).is_ok())
        .last()
        .unwrap();
    assert!(d >= 120, "{d}");
    d
}

#[test]
fn deep_nesting_fits_a_small_thread_stack() {
    // Hosts call from their own threads (koffi's workers, Python threads, an Electron main
    // process). Rejecting 100,000 levels and trimming the deepest accepted nesting (parse,
    // price, answer, drop) fit in 64 KiB in a release build (128 KiB here for margin); an
    // unoptimized build needs 512 KiB (1 MiB here). ANKITA_STACK_KIB overrides, to measure.
    let depth = deepest_accepted_part();
    let kib = std::env::var("ANKITA_STACK_KIB")
        .ok()
        .and_then(|v| v.parse().ok());
    let kib = kib.unwrap_or(if cfg!(debug_assertions) { 1024 } else { 128 });
    std::thread::Builder::new()
        .stack_size(kib * 1024)
        .spawn(move || {
            let deep = nested(100_000, "[", "]", "");
            let request =
                format!(r#"{{"messages": [{{"role": "user", "content": "hi", "x": {deep}}}]}}"#);
            assert_eq!(code(&answer(&trim_json(&request))), "invalid_json");
            let deepest = nested(depth, "[", "]", "1");
            let messages = format!(
                r#"[{{"role": "user", "content": [{{"type": "input_audio", "data": {deepest}}}]}}]"#
            );
            let request = format!(r#"{{"messages": {messages}, "max_bytes": 4096}}"#);
            let v = answer(&trim_json(&request));
            assert_eq!(v["ok"], true, "{v}");
            let v = answer(&sanitize_json(&messages));
            assert_eq!(v["ok"], true, "{v}");
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn nesting_below_the_limit_is_kept_and_priced_as_json() {
    let shallow: Value = serde_json::from_str(&nested(120, "[", "]", "1")).unwrap();
    let part = json!({"type": "input_audio", "data": shallow});
    let request =
        json!({"messages": [{"role": "user", "content": [part.clone()]}], "max_bytes": 4096});
    let v = trim(&request);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["messages"][0]["content"][0], part);
    let meta = json!({"role": "user"}).to_string().len();
    assert_eq!(
        v["report"]["cost_bytes"].as_u64().unwrap() as usize,
        meta + part.to_string().len()
    );
}

// ---------------------------------------------------------------------------------------------
// Huge dimensions in image headers

fn png(w: u32, h: u32) -> Vec<u8> {
    let mut b = vec![
        0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n', 0, 0, 0, 13,
    ];
    b.extend(b"IHDR");
    b.extend(w.to_be_bytes());
    b.extend(h.to_be_bytes());
    b.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b
}

fn vp8x(w: u32, h: u32) -> Vec<u8> {
    let mut b = b"RIFF\x24\0\0\0WEBPVP8X\x0a\0\0\0\x10\0\0\0".to_vec();
    b.extend(&(w - 1).to_le_bytes()[..3]);
    b.extend(&(h - 1).to_le_bytes()[..3]);
    b
}

fn vp8l(w: u32, h: u32) -> Vec<u8> {
    let bits = (w - 1) | ((h - 1) << 14);
    let mut b = b"RIFF\x24\0\0\0WEBPVP8L\x05\0\0\0\x2f".to_vec();
    b.extend(bits.to_le_bytes());
    b
}

fn jpeg(w: u16, h: u16) -> Vec<u8> {
    // SOI, an APP0 segment, fill bytes, then a progressive SOF2.
    let mut b = vec![
        0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xFF, 0xFF, 0xC2, 0, 17, 8,
    ];
    b.extend(h.to_be_bytes());
    b.extend(w.to_be_bytes());
    b.extend([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
    b
}

fn gif(w: u16, h: u16) -> Vec<u8> {
    let mut b = b"GIF89a".to_vec();
    b.extend(w.to_le_bytes());
    b.extend(h.to_le_bytes());
    b.extend([0xF7, 0, 0]);
    b
}

fn data_url(media: &str, bytes: &[u8]) -> String {
    format!("data:image/{media};base64,{}", STANDARD.encode(bytes))
}

/// The extreme sizes each header field can state, with the `ankita` profile's price.
/// Header bytes, media type, format, width, height, tokens under the `ankita` profile.
type Extreme = (Vec<u8>, &'static str, ImageFormat, u32, u32, u64);

fn extreme_images() -> Vec<Extreme> {
    let max = u32::MAX;
    let big = (1u32 << 31) - 1;
    vec![
        (png(big, big), "png", ImageFormat::Png, big, big, 765),
        (png(max, max), "png", ImageFormat::Png, max, max, 765),
        // 1 × 2³²: long side fits 2048, the short side is scaled to 768: 3072 × 2 tiles.
        (
            png(max, 1),
            "png",
            ImageFormat::Png,
            max,
            1,
            85 + 170 * 3072 * 2,
        ),
        (
            png(1, max),
            "png",
            ImageFormat::Png,
            1,
            max,
            85 + 170 * 3072 * 2,
        ),
        (
            png(max, big),
            "png",
            ImageFormat::Png,
            max,
            big,
            85 + 170 * 4 * 2,
        ),
        (
            vp8x(1 << 24, 1 << 24),
            "webp",
            ImageFormat::Webp,
            1 << 24,
            1 << 24,
            765,
        ),
        (
            vp8x(1 << 24, 1),
            "webp",
            ImageFormat::Webp,
            1 << 24,
            1,
            85 + 170 * 3072 * 2,
        ),
        (
            vp8l(1 << 14, 1 << 14),
            "webp",
            ImageFormat::Webp,
            1 << 14,
            1 << 14,
            765,
        ),
        (
            jpeg(65535, 65535),
            "jpeg",
            ImageFormat::Jpeg,
            65535,
            65535,
            765,
        ),
        (
            jpeg(65535, 1),
            "jpeg",
            ImageFormat::Jpeg,
            65535,
            1,
            85 + 170 * 3072 * 2,
        ),
        (
            gif(65535, 65535),
            "gif",
            ImageFormat::Gif,
            65535,
            65535,
            765,
        ),
    ]
}

#[test]
fn extreme_header_sizes_are_read_exactly_in_every_spelling() {
    for (bytes, media, format, w, h, _) in extreme_images() {
        let info = probe_bytes(&bytes).unwrap();
        assert_eq!((info.format, info.width, info.height), (format, w, h));
        assert_eq!(probe_text(&data_url(media, &bytes)), Ok(info));
        assert_eq!(probe_text(&STANDARD.encode(&bytes)), Ok(info));
    }
}

#[test]
fn extreme_sizes_price_without_overflow_under_every_profile() {
    for (bytes, media, _, w, h, ankita_tokens) in extreme_images() {
        for name in ImageProfile::NAMES {
            let profile = ImageProfile::from_name(name).unwrap();
            for detail in [None, Some("low"), Some("high"), Some("auto")] {
                let tokens = profile.tokens(w, h, detail);
                // The crop-unit rules have no maximum (gemini-1.5 prices 2³² × 2³² at
                // 8·10¹⁵ tokens), but every price stays exact as a JSON number in
                // JavaScript (≤ 2⁵³) and its budget bytes cannot overflow.
                assert!(
                    (1..=1 << 53).contains(&tokens),
                    "{name} {w}×{h} {detail:?}: {tokens}"
                );
            }
        }
        assert_eq!(ImageProfile::Ankita.tokens(w, h, None), ankita_tokens);
        // Through the C ABI: the probe and the estimate agree, budget bytes are tokens × 4.
        let v = c_call(ankita_probe_image, data_url(media, &bytes).as_bytes());
        assert_eq!(v["ok"], true);
        assert_eq!(
            (v["width"].as_u64(), v["height"].as_u64()),
            (Some(w.into()), Some(h.into()))
        );
        assert_eq!(v["tokens"].as_u64(), Some(ankita_tokens));
        assert_eq!(v["budget_bytes"].as_u64(), Some(ankita_tokens * 4));
        for name in ImageProfile::NAMES {
            let options =
                std::ffi::CString::new(format!(r#"{{"image_profile": "{name}"}}"#)).unwrap();
            let p = unsafe { ankita_estimate_image_tokens(w, h, options.as_ptr()) };
            let text = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
            unsafe { ankita_string_free(p) };
            let v = answer(&text);
            let tokens = ImageProfile::from_name(name).unwrap().tokens(w, h, None);
            assert_eq!(v["tokens"].as_u64(), Some(tokens), "{name}");
            assert_eq!(v["budget_bytes"].as_u64(), Some(tokens * 4), "{name}");
        }
    }
}

#[test]
fn extreme_images_in_a_trim_keep_the_report_numbers_sane() {
    for profile in ["ankita", "gemini", "anthropic-legacy", "qwen2-vl"] {
        let images = extreme_images();
        let parts: Vec<Value> = std::iter::once(json!({"type": "text", "text": "Which is wider?"}))
            .chain(images.iter().map(|(bytes, media, ..)| {
                json!({"type": "image_url", "image_url": {"url": data_url(media, bytes)}})
            }))
            .collect();
        let request = json!({
            "messages": [{"role": "user", "content": parts}],
            "max_bytes": 20_000, "image_profile": profile,
        });
        let v = trim(&request);
        assert_eq!(v["ok"], true, "{v}");
        let report = &v["report"];
        let cost = report["cost_bytes"].as_u64().unwrap();
        assert!(cost <= 20_000, "{profile}: {cost}");
        assert_eq!(report["cost_tokens"].as_u64(), Some(cost.div_ceil(4)));
        for d in report["dropped_images"].as_array().unwrap() {
            let tokens = d["tokens"].as_u64().unwrap();
            assert_eq!(d["budget_bytes"].as_u64(), Some(tokens * 4), "{d}");
            assert!(d["width"].as_u64().unwrap() >= 1 && d["height"].as_u64().unwrap() >= 1);
        }
    }
}

#[test]
fn astronomic_bytes_per_token_saturates_instead_of_wrapping() {
    // Each image costs tokens × 2⁶² bytes, saturated to u64::MAX; their sum used to wrap to a
    // few bytes, so a 100,000-byte budget "fitted" both (and debug builds panicked).
    let url = data_url("gif", &gif(1, 1));
    let image = json!({"type": "image_url", "image_url": {"url": url}});
    let request = json!({
        "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, image, image]}],
        "bytes_per_token": 1u64 << 62, "max_bytes": 100_000,
    });
    let v = trim(&request);
    assert_eq!(v["ok"], true, "{v}");
    let report = &v["report"];
    assert!(report["cost_bytes"].as_u64().unwrap() <= 100_000);
    let dropped = report["dropped_images"].as_array().unwrap();
    assert_eq!(dropped.len(), 2);
    assert_eq!(dropped[0]["budget_bytes"].as_u64(), Some(u64::MAX));
    // Without a budget nothing is dropped and the report's cost saturates, at 2⁵³ − 1 (what a
    // JSON number holds exactly everywhere).
    let request = json!({"messages": request["messages"], "bytes_per_token": 1u64 << 62});
    let v = trim(&request);
    assert_eq!(
        v["report"]["cost_bytes"].as_u64(),
        Some((1 << 53) - 1),
        "{v}"
    );
    // In error mode the overflow is an image_overflow, as for any image that does not fit.
    let request = json!({"messages": request["messages"], "bytes_per_token": 1u64 << 62,
        "max_bytes": 100_000, "on_image_overflow": "error"});
    assert_eq!(code(&trim(&request)), "image_overflow");
}

#[test]
fn a_budget_past_u64_max_is_unlimited_not_wrapped() {
    // 8 × (2⁶¹ + 203) − 1024 = 2⁶⁴ + 600 bytes: an `as u64` cast made that a 600-byte budget.
    let messages = json!([
        {"role": "system", "content": "s".repeat(700)},
        {"role": "user", "content": "hello"},
    ]);
    let request =
        json!({"messages": messages, "context_tokens": (1u64 << 61) + 203, "bytes_per_token": 8});
    let v = trim(&request);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["report"]["budget_bytes"].as_u64(), Some(u64::MAX));
    assert_eq!(v["messages"], messages);
    // (2⁶⁴ − 1)² bytes overflow even i128: unlimited, not a panic or a wrap to "too small".
    for max_bytes in [None, Some(u64::MAX)] {
        let mut request = json!({"messages": messages, "context_tokens": u64::MAX,
            "bytes_per_token": u64::MAX, "max_output_tokens": 0});
        if let Some(m) = max_bytes {
            request["max_bytes"] = json!(m);
        }
        let v = trim(&request);
        assert_eq!(v["report"]["budget_bytes"].as_u64(), Some(u64::MAX), "{v}");
    }
    // Reserving more than the context is too small, however far below zero; the breakdown
    // clamps what JSON cannot hold (building the error used to panic).
    for (tokens, output, bpt) in [
        (1000, u64::MAX, 4),
        (1000, 1 << 63, 1 << 63),
        (0, u64::MAX, u64::MAX),
        (u64::MAX - 1, u64::MAX, u64::MAX),
    ] {
        let request = json!({"messages": messages, "context_tokens": tokens,
            "max_output_tokens": output, "bytes_per_token": bpt});
        let v = trim(&request);
        assert_eq!(code(&v), "history_budget_too_small", "{request}");
        assert!(v["error"]["breakdown"]["history_bytes"].as_i64().unwrap() < 0);
        let text = request.to_string();
        assert_eq!(
            code(&c_call(ankita_trim, text.as_bytes())),
            "history_budget_too_small"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Enormous strings

const FIFTY_MB: usize = 50 << 20;

fn big_text() -> String {
    let unit = "é世🦀x"; // 10 bytes: shrinking must respect every UTF-8 width
    let mut s = String::with_capacity(FIFTY_MB);
    s.push_str("HEAD ");
    while s.len() + unit.len() + 5 <= FIFTY_MB {
        s.push_str(unit);
    }
    while s.len() + 5 < FIFTY_MB {
        s.push('x');
    }
    s.push_str(" TAIL");
    assert_eq!(s.len(), FIFTY_MB);
    s
}

#[test]
fn a_fifty_megabyte_tool_result_is_shrunk_to_fit() {
    let big = big_text();
    let request = json!({"messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Read the log."},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": big},
    ], "max_bytes": 20_000});
    let v = trim(&request);
    assert_eq!(v["ok"], true);
    assert!(v["report"]["cost_bytes"].as_u64().unwrap() <= 20_000);
    let t = &v["report"]["truncated"][0];
    assert_eq!(
        (t["index"].as_u64(), t["from_bytes"].as_u64()),
        (Some(3), Some(FIFTY_MB as u64))
    );
    let text = v["messages"][3]["content"].as_str().unwrap();
    assert_eq!(text.len() as u64, t["to_bytes"].as_u64().unwrap());
    assert!(
        text.starts_with("HEAD é世🦀") && text.ends_with("x TAIL"),
        "{}",
        &text[..40]
    );
    assert!(text.contains("bytes omitted to fit the context budget"));
}

#[test]
fn a_fifty_megabyte_old_message_is_dropped_and_a_fifty_megabyte_request_fails_loudly() {
    let big = big_text();
    let request = json!({"messages": [
        {"role": "user", "content": "Paste incoming."},
        {"role": "assistant", "content": big},
        {"role": "user", "content": "Summarise the paste."},
    ], "max_bytes": 20_000});
    let v = trim(&request);
    assert_eq!(v["ok"], true);
    // Fill: the old message comes back cut head and tail into the room left.
    assert_eq!(v["report"]["dropped_messages"], json!([]));
    assert_eq!(v["report"]["truncated"][0]["from_bytes"], json!(FIFTY_MB));
    assert!(v["report"]["cost_bytes"].as_u64().unwrap() <= 20_000);
    assert!(v["messages"][1]["content"].as_str().unwrap().len() < 20_000);
    let mut whole_groups = request.clone();
    whole_groups["fill"] = json!(false);
    let v = trim(&whole_groups);
    assert_eq!(v["report"]["dropped_messages"], json!([1]));

    let request = json!({"messages": [{"role": "user", "content": big}], "max_bytes": 20_000});
    let v = trim(&request);
    assert_eq!(code(&v), "context_budget_exceeded");
    assert_eq!(
        v["error"]["breakdown"]["request_bytes"].as_u64().unwrap(),
        FIFTY_MB as u64 + json!({"role": "user"}).to_string().len() as u64
    );
    // Without a budget the 50 MB pass through unchanged, and sanitize keeps them too.
    let messages = json!([{"role": "user", "content": big}]);
    let v = answer(&sanitize_json(&messages.to_string()));
    assert_eq!(v["messages"], messages);
}

// ---------------------------------------------------------------------------------------------
// Many messages, parts and replies

#[test]
fn a_hundred_thousand_messages_trim_and_repair_correctly() {
    let n = 100_000;
    let mut messages = vec![json!({"role": "system", "content": "Be brief."})];
    for i in 0..n {
        let m = match i % 10 {
            7 => json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": format!("c{i}"), "type": "function", "function": {"name": "f", "arguments": "{}"}}]}),
            8 => json!({"role": "tool", "tool_call_id": format!("c{}", i - 1), "content": "done"}),
            // After a plain assistant message: an orphan (one after the replies would void
            // the exchange before it).
            5 => json!({"role": "tool", "tool_call_id": "orphan", "content": "stray"}),
            k if k % 2 == 0 => json!({"role": "user", "content": format!("question {i}")}),
            _ => json!({"role": "assistant", "content": format!("answer {i}")}),
        };
        messages.push(m);
    }
    let request = json!({"messages": messages, "max_bytes": 50_000, "max_messages": n});
    let v = trim(&request);
    assert_eq!(v["ok"], true);
    let report = &v["report"];
    let out = v["messages"].as_array().unwrap();
    assert!(report["cost_bytes"].as_u64().unwrap() <= 50_000);
    assert_eq!(report["input_messages"].as_u64(), Some(n as u64 + 1));
    assert_eq!(report["output_messages"].as_u64(), Some(out.len() as u64));
    let orphans = n / 10;
    assert_eq!(report["repaired"].as_array().unwrap().len(), orphans);
    let dropped = report["dropped_messages"].as_array().unwrap().len();
    assert_eq!(out.len() + dropped + orphans, n + 1);
    assert_eq!(out[0]["content"], "Be brief.");
    let last_user = format!("question {}", n - 4);
    assert!(out.iter().any(|m| m["content"] == last_user.as_str()));
    assert_eq!(
        out.last().unwrap()["content"],
        format!("answer {}", n - 1).as_str()
    );

    // Only max_messages: the newest 40.
    let v = trim(&json!({"messages": messages}));
    assert_eq!(v["messages"].as_array().unwrap().len(), 40);
    // Repair alone keeps all but the orphans.
    let v = answer(&sanitize_json(&json!(messages).to_string()));
    assert_eq!(v["messages"].as_array().unwrap().len(), n + 1 - orphans);
}

#[test]
fn dropping_a_hundred_thousand_images_from_one_message_stays_linear() {
    // Used to be quadratic in drop mode (each image scanned the parts already removed).
    let url = data_url("gif", &gif(1, 1));
    let n = 100_000;
    let parts: Vec<Value> = (0..n)
        .map(|_| json!({"type": "image_url", "image_url": {"url": url}}))
        .collect();
    for mode in ["drop", "placeholder"] {
        let request = json!({"messages": [{"role": "user", "content": parts}],
            "max_bytes": 10_000_000, "on_image_overflow": mode});
        let v = trim(&request);
        assert_eq!(v["ok"], true, "{mode}");
        let kept = v["messages"][0]["content"].as_array().unwrap();
        let dropped = v["report"]["dropped_images"].as_array().unwrap().len();
        let cost = v["report"]["cost_bytes"].as_u64().unwrap();
        assert!(cost <= 10_000_000, "{mode}: {cost}");
        if mode == "drop" {
            // 10,000,000 / 3,060 bytes per image: 3,267 images stay.
            assert_eq!((n - dropped, kept.len()), (3267, 3267));
        } else {
            // Each placeholder costs its text: fewer images stay, every part is still there.
            assert_eq!(kept.len(), n);
            let placeholders = kept.iter().filter(|p| p["type"] == "text").count();
            assert_eq!(placeholders, dropped);
            assert!(cost > 10_000_000 - 3060 - 100, "{cost}");
        }
    }
}

#[test]
fn a_tool_exchange_of_fifty_thousand_replies_yields_in_one_pass() {
    // Used to be quadratic: the report forgot the yielding replies one at a time.
    let n = 50_000;
    let calls: Vec<Value> = (0..n)
        .map(|i| json!({"id": format!("c{i}"), "type": "function", "function": {"name": "f", "arguments": "{}"}}))
        .collect();
    let mut messages = vec![
        json!({"role": "user", "content": "go"}),
        json!({"role": "assistant", "content": null, "tool_calls": calls}),
    ];
    messages.extend((0..n).map(
        |i| json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": "r".repeat(300)}),
    ));
    let v = trim(&json!({"messages": messages, "max_bytes": 10_000}));
    assert_eq!(v["ok"], true);
    assert_eq!(v["messages"], json!([{"role": "user", "content": "go"}]));
    assert_eq!(v["report"]["truncated"], json!([]));
    assert_eq!(
        v["report"]["dropped_messages"].as_array().unwrap().len(),
        n + 1
    );
}

// ---------------------------------------------------------------------------------------------
// Duplicate keys, wrong types

#[test]
fn duplicate_keys_keep_the_last_value_at_the_first_position() {
    let v = answer(&trim_json(
        r#"{"messages": [{"content": "first", "role": "tool", "content": "last", "role": "user"}],
            "max_bytes": 100, "max_bytes": 4096}"#,
    ));
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["report"]["budget_bytes"], 4096);
    assert_eq!(v["messages"][0], json!({"content": "last", "role": "user"}));
    let first_key = v["messages"][0]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    assert_eq!(first_key, "content");
    // A duplicated messages key: the last array is the one trimmed.
    let v = answer(&trim_json(
        r#"{"messages": [{"role": "user", "content": "a"}], "messages": [{"role": "user", "content": "b"}]}"#,
    ));
    assert_eq!(v["messages"], json!([{"role": "user", "content": "b"}]));
}

#[test]
fn numbers_where_strings_belong_name_the_path() {
    let cases = [
        (json!({"role": 3, "content": "x"}), "messages[0].role"),
        (json!({"role": "user", "content": 3}), "messages[0].content"),
        (
            json!({"role": "tool", "tool_call_id": 5, "content": "x"}),
            "messages[0].tool_call_id",
        ),
        (
            json!({"role": "user", "content": [{"type": 3}]}),
            "messages[0].content[0].type",
        ),
        (
            json!({"role": "user", "content": [{"type": "text", "text": 3}]}),
            "messages[0].content[0].text",
        ),
        (
            json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": 3}}]}),
            "messages[0].content[0].image_url",
        ),
        (
            json!({"role": "user", "content": [3]}),
            "messages[0].content[0]",
        ),
        (
            json!({"role": "assistant", "content": "x", "tool_calls": 3}),
            "messages[0].tool_calls",
        ),
        (json!(3), "messages[0]"),
    ];
    for (message, path) in cases {
        let v = trim(&json!({"messages": [message]}));
        assert_eq!(code(&v), "invalid_request", "{message}");
        assert_eq!(v["error"]["path"], path, "{message}");
        let v = answer(&sanitize_json(&json!([message]).to_string()));
        assert_eq!(code(&v), "invalid_request", "{message}");
    }
    // Inside a tool call a wrong type is repaired, not refused (DESIGN §5).
    let v = trim(&json!({"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "ok", "tool_calls": [{"id": 5, "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    ]}));
    assert_eq!(
        v["report"]["repaired"][0]["action"],
        "incomplete_tool_calls_removed"
    );
    assert_eq!(
        v["report"]["repaired"][0]["path"],
        "messages[1].tool_calls[0].id"
    );
}

#[test]
fn budget_numbers_must_be_non_negative_integers() {
    let messages = json!([{"role": "user", "content": "hi"}]);
    for bad in [
        r#""100""#,
        "1e3",
        "1000.0",
        "1.5",
        "-1",
        "1180591620717411303424", // 2⁷⁰
        "true",
        "[1000]",
        "{}",
    ] {
        for key in [
            "max_bytes",
            "context_tokens",
            "max_output_tokens",
            "overhead_bytes",
            "bytes_per_token",
            "max_messages",
        ] {
            let v = answer(&trim_json(&format!(
                r#"{{"messages": {messages}, "{key}": {bad}}}"#
            )));
            assert_eq!(code(&v), "invalid_request", "{key}: {bad}");
            assert_eq!(v["error"]["path"], key, "{key}: {bad}");
        }
    }
    // null means "not given"; the largest integer is accepted.
    let v = answer(&trim_json(&format!(
        r#"{{"messages": {messages}, "max_bytes": null}}"#
    )));
    assert_eq!(v["report"]["budget_bytes"], Value::Null);
    let v = answer(&trim_json(&format!(
        r#"{{"messages": {messages}, "max_bytes": 18446744073709551615}}"#
    )));
    assert_eq!(v["report"]["budget_bytes"].as_u64(), Some(u64::MAX));
    let v = answer(&trim_json(&format!(
        r#"{{"messages": {messages}, "bytes_per_token": 0}}"#
    )));
    assert_eq!(code(&v), "invalid_request");
}

#[test]
fn the_wrong_json_shape_at_the_top() {
    for (text, expected) in [
        ("", "invalid_json"),
        ("   ", "invalid_json"),
        ("{", "invalid_json"),
        (r#"{"messages": []} trailing"#, "invalid_json"),
        ("null", "invalid_request"),
        ("[]", "invalid_request"),
        ("3", "invalid_request"),
        (r#""messages""#, "invalid_request"),
        (r#"{"messages": {}}"#, "invalid_request"),
        (r#"{"messages": null}"#, "invalid_request"),
        (r#"{}"#, "invalid_request"),
    ] {
        assert_eq!(code(&answer(&trim_json(text))), expected, "{text:?}");
    }
    assert_eq!(answer(&trim_json(r#"{"messages": []}"#))["ok"], true);
    assert_eq!(answer(&sanitize_json("[]"))["ok"], true);
}

// ---------------------------------------------------------------------------------------------
// Bytes and characters at the C boundary

#[test]
fn non_utf8_through_the_c_abi_is_invalid_argument_with_the_offset() {
    let cases: [(&[u8], usize); 6] = [
        (b"{\"messages\": \xff}", 13),
        (b"\xc0\x80", 0),                                // overlong NUL
        (b"{\"messages\": [\"\xed\xa0\x80\"]}", 15),     // a UTF-16 surrogate in UTF-8
        (b"[\"\xe4\xb8\"]", 2),                          // a character cut short
        (b"\x80", 0),                                    // a lone continuation byte
        (b"{\"messages\": [\"\xf4\x90\x80\x80\"]}", 15), // past U+10FFFF
    ];
    for (bytes, offset) in cases {
        let exports: [(unsafe extern "C" fn(*const c_char) -> *mut c_char, &str); 4] = [
            (ankita_trim, "request_json"),
            (ankita::ffi::ankita_trim_tail, "request_json"),
            (ankita_sanitize, "messages_json"),
            (ankita_probe_image, "image"),
        ];
        for (f, name) in exports {
            let v = c_call(f, bytes);
            assert_eq!(code(&v), "invalid_argument", "{bytes:?}");
            let message = v["error"]["message"].as_str().unwrap();
            assert!(message.starts_with(name), "{message}");
            assert!(
                message.contains(&format!("offset {offset})")),
                "{bytes:?}: {message}"
            );
        }
        let mut arg = bytes.to_vec();
        arg.push(0);
        let p = unsafe { ankita_estimate_image_tokens(1, 1, arg.as_ptr().cast()) };
        let text = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
        unsafe { ankita_string_free(p) };
        assert_eq!(code(&answer(&text)), "invalid_argument");
    }
}

#[test]
fn nul_ends_a_c_string_and_escaped_nul_round_trips() {
    // The C string ends at the first NUL: what follows is never read.
    let v = c_call(ankita_trim, b"{\"messages\": []}\0{garbage");
    assert_eq!(v["ok"], true);
    // A NUL inside the JSON cuts it short: invalid JSON, not a crash.
    let v = c_call(ankita_trim, b"{\"messages\": [\0]}");
    assert_eq!(code(&v), "invalid_json");
    // An escaped NUL is a character like any other, and the answer escapes it again, so the
    // returned C string never holds an interior NUL.
    let request =
        json!({"messages": [{"role": "user", "content": "a\u{0}b", "name\u{0}": "\u{0}"}]});
    let p = unsafe {
        let arg = std::ffi::CString::new(request.to_string()).unwrap();
        ankita_trim(arg.as_ptr())
    };
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes().to_vec();
    unsafe { ankita_string_free(p) };
    let v = answer(std::str::from_utf8(&bytes).unwrap());
    assert_eq!(v["messages"], request["messages"]);
    assert!(std::str::from_utf8(&bytes).unwrap().contains(r"a\u0000b"));
    // In an image URL the NUL is not base64: the image is undecodable and costs its length.
    let v = c_call(ankita_probe_image, b"data:image/png;base64,iVBO\\u0000");
    assert_eq!(v["format"], Value::Null);
}

#[test]
fn invalid_utf16_escapes_are_invalid_json() {
    for escape in [
        r"\ud800",
        r"\udc00",
        r"\udc00\ud800",
        r"\ud800\u0041",
        r"\ud800x",
        r"\ud83e",
    ] {
        let text = format!(r#"{{"messages": [{{"role": "user", "content": "a{escape}b"}}]}}"#);
        let v = answer(&trim_json(&text));
        assert_eq!(code(&v), "invalid_json", "{escape}");
        assert_eq!(code(&c_call(ankita_trim, text.as_bytes())), "invalid_json");
        let text = format!(r#"[{{"role": "user", "content": "a{escape}b"}}]"#);
        assert_eq!(code(&answer(&sanitize_json(&text))), "invalid_json");
    }
    // A valid pair is one 4-byte character.
    let v = answer(&trim_json(
        r#"{"messages": [{"role": "user", "content": "\ud83e\udd80"}], "max_bytes": 4096}"#,
    ));
    assert_eq!(v["messages"][0]["content"], "🦀");
    let meta = json!({"role": "user"}).to_string().len() as u64;
    assert_eq!(v["report"]["cost_bytes"].as_u64(), Some(meta + 4));
}

// ---------------------------------------------------------------------------------------------
// The Anthropic format goes through the same core; its own steps must hold the same limits.

#[test]
fn anthropic_format_astronomic_prices_and_many_messages() {
    // Two images at bytes_per_token 2⁶²: the report's cost used to overflow (debug panic,
    // release cost_bytes 19).
    let image = json!({"type": "image", "source": {"type": "base64", "media_type": "image/gif",
        "data": STANDARD.encode(gif(1, 1))}});
    let messages = json!([
        {"role": "user", "content": [{"type": "text", "text": "a"}, image]},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": [{"type": "text", "text": "c"}, image]},
    ]);
    // Priced by the default recipe (765 tokens each): Claude's rule, the format's default,
    // charges a 1×1 image a single token.
    let v = trim(
        &json!({"format": "anthropic", "messages": messages, "image_profile": "ankita",
        "bytes_per_token": 1u64 << 62}),
    );
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["report"]["cost_bytes"].as_u64(), Some((1 << 53) - 1));
    let v = trim(
        &json!({"format": "anthropic", "messages": messages, "image_profile": "ankita",
        "bytes_per_token": 1u64 << 62, "max_bytes": 100_000}),
    );
    assert_eq!(v["ok"], true, "{v}");
    assert!(
        v["report"]["cost_bytes"].as_u64().unwrap() <= 100_000,
        "{v}"
    );

    // 100,000 messages with tool_use / tool_result exchanges (fewer unoptimized).
    let n = if cfg!(debug_assertions) {
        10_000
    } else {
        100_000
    };
    let mut messages = Vec::with_capacity(n);
    for i in 0..n {
        messages.push(match i % 4 {
            0 => json!({"role": "user", "content": format!("question {i}")}),
            1 => json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": format!("t{i}"), "name": "f", "input": {"i": i}}]}),
            2 => json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("t{}", i - 1), "content": "done"}]}),
            _ => json!({"role": "assistant", "content": format!("answer {i}")}),
        });
    }
    let v = trim(&json!({"format": "anthropic", "messages": messages,
        "max_bytes": 50_000, "max_messages": n}));
    assert_eq!(v["ok"], true);
    assert!(v["report"]["cost_bytes"].as_u64().unwrap() <= 50_000);
    let out = v["messages"].as_array().unwrap();
    assert_eq!(out[0]["role"], "user");
    assert_eq!(
        out.last().unwrap()["content"],
        format!("answer {}", n - 1).as_str()
    );
}

#[test]
fn anthropic_format_forty_thousand_tool_results_of_an_incomplete_exchange_stay_linear() {
    // One tool_result missing voids the exchange: every other result is removed and reported
    // with the assistant message it answered. Finding that message used to scan back from
    // every result (27 s for 40,000); dropped messages were deduplicated by a list scan.
    let n = if cfg!(debug_assertions) {
        4_000
    } else {
        40_000
    };
    let uses: Vec<Value> = (0..n)
        .map(|i| json!({"type": "tool_use", "id": format!("t{i}"), "name": "f", "input": {}}))
        .collect();
    let mut results: Vec<Value> = (0..n - 1)
        .map(|i| json!({"type": "tool_result", "tool_use_id": format!("t{i}"), "content": "r"}))
        .collect();
    results.push(json!({"type": "text", "text": "and?"}));
    let messages = json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": uses},
        {"role": "user", "content": results},
    ]);
    let v = trim(&json!({"format": "anthropic", "messages": messages, "max_bytes": 4096}));
    assert_eq!(v["ok"], true, "{}", &v.to_string()[..300]);
    let out = v["messages"].as_array().unwrap();
    assert_eq!(out.len(), 3);
    assert_eq!(out[2]["content"], json!([{"type": "text", "text": "and?"}]));
    let repaired = v["report"]["repaired"].as_array().unwrap();
    assert_eq!(repaired.len(), n);
    assert_eq!(repaired[0]["action"], "incomplete_tool_use_removed");
    for entry in &repaired[1..] {
        assert_eq!(entry["action"], "incomplete_tool_result_removed");
        assert_eq!(entry["index"], 2);
        let reason = entry["reason"].as_str().unwrap();
        assert!(reason.ends_with("messages[1]"), "{reason}");
    }
}

/// Anthropic format: 50,000 assistant turns before the only user message all go (the first
/// message must be a user message), in one pass rather than one drain per message.
#[test]
fn anthropic_format_fifty_thousand_leading_assistant_turns() {
    let mut messages: Vec<Value> = (0..50_000)
        .map(|i| json!({"role": "assistant", "content": format!("turn {i}")}))
        .collect();
    messages.push(json!({"role": "user", "content": "and now?"}));
    let request = json!({"format": "anthropic", "messages": messages, "max_messages": 1_000_000});
    let v: Value = serde_json::from_str(&trim_json(&request.to_string())).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(
        v["messages"],
        json!([{"role": "user", "content": "and now?"}])
    );
    let dropped = v["report"]["dropped_messages"].as_array().unwrap();
    assert_eq!(dropped.len(), 50_000);
    assert_eq!(dropped[49_999], 49_999);
}

#[test]
fn unknown_fields_pass_through_as_written() {
    // Integers past 64 bits, non-canonical numbers and escapes: the caller's bytes come back,
    // not a re-serialisation (which would turn the integer into 1.2345678901234568e29).
    let message = r#"{"role": "user", "content": "hi", "seq": 123456789012345678901234567890, "x": 1.50e3, "s": "\u00e9\/"}"#;
    let request = format!(r#"{{"messages": [{message}], "max_bytes": 4096}}"#);
    let answer = trim_json(&request);
    assert!(answer.contains(message), "{answer}");
    // A message that changes keeps its other fields as written too.
    let long = "x".repeat(3000);
    let request = format!(
        r#"{{"messages": [{{"role": "user", "content": "{long}", "seq": 123456789012345678901234567890}}, {{"role": "assistant", "content": "ok"}}, {{"role": "user", "content": "and?"}}], "max_bytes": 1000}}"#
    );
    let answer = trim_json(&request);
    assert!(
        answer.contains(r#""seq":123456789012345678901234567890"#),
        "{answer}"
    );
    assert!(answer.contains("bytes omitted"), "{answer}");
}

#[test]
fn string_content_that_starts_like_an_attachment_is_text() {
    // Only a text part is an attachment body (DESIGN §4): a string content that starts with
    // "Attached file:" is shrunk like any text, in both formats.
    let long = format!("Attached file: notes.txt\n{}", "line of notes ".repeat(200));
    for format in ["openai", "anthropic"] {
        let request = json!({"format": format, "max_bytes": 1500, "messages": [
            {"role": "user", "content": long},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "and?"},
        ]});
        let v = trim(&request);
        assert_eq!(v["ok"], true, "{format}: {v}");
        assert_eq!(v["report"]["truncated"][0]["index"], 0, "{format}: {v}");
        assert_eq!(
            v["report"]["dropped_attachments"],
            json!([]),
            "{format}: {v}"
        );
    }
}

#[test]
fn an_empty_tool_reply_beside_a_real_one_goes_as_empty() {
    // Found by the trim_session fuzzer: the empty reply is not an answer, so the exchange is
    // whole with the other one, and the empty one must not be returned with it.
    let v = trim(&json!({"messages": [
        {"role": "user", "content": "ls"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
        {"role": "user", "content": "and?"},
    ]}));
    assert_eq!(v["ok"], true, "{v}");
    let roles: Vec<&str> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "user"], "{v}");
    assert_eq!(v["messages"][2]["content"], "a.txt");
    assert_eq!(v["report"]["repaired"][0]["index"], 2);
    assert_eq!(
        v["report"]["repaired"][0]["action"],
        "empty_message_removed"
    );
}

/// An image that fails the call with `on_image_overflow: "error"` is named by the caller's own
/// path: `parts[p]` in a Gemini content, `output[p]` in a Responses output item.
#[test]
fn image_overflow_errors_name_the_formats_own_path() {
    use base64::Engine as _;
    let png = std::fs::read("tests/fixtures/images/png/rgb_1700x2200.png").unwrap();
    let data = base64::engine::general_purpose::STANDARD.encode(png);
    let url = format!("data:image/png;base64,{data}");
    let gemini = serde_json::json!({
        "format": "gemini", "max_bytes": 600, "on_image_overflow": "error",
        "messages": [{"role": "user", "parts": [
            {"text": "what is this?"}, {"inlineData": {"mimeType": "image/png", "data": data}}]}],
    });
    let responses = serde_json::json!({
        "format": "responses", "max_bytes": 600, "on_image_overflow": "error",
        "messages": [
            {"role": "user", "content": "look"},
            {"type": "function_call", "call_id": "c1", "name": "shot", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": [
                {"type": "input_text", "text": "here"},
                {"type": "input_image", "image_url": url}]},
        ],
    });
    for (request, path) in [
        (gemini, "messages[0].parts[1]"),
        (responses, "messages[2].output[1]"),
    ] {
        let answer: serde_json::Value =
            serde_json::from_str(&ankita::api::trim_json(&request.to_string())).unwrap();
        assert_eq!(answer["error"]["code"], "image_overflow", "{answer}");
        assert_eq!(answer["error"]["path"], path, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(path), "{message}");
    }
}

/// `clear_tool_results` in every format: the oldest results become the placeholder, their calls
/// and ids stay, nothing is dropped, and the report names the cleared replies.
#[test]
fn clear_tool_results_in_every_format() {
    use serde_json::{json, Value};
    let body = |c: char| c.to_string().repeat(2000);
    let mut anthropic = vec![json!({"role": "user", "content": "go"})];
    let mut responses = vec![json!({"role": "user", "content": "go"})];
    let mut gemini = vec![json!({"role": "user", "parts": [{"text": "go"}]})];
    for i in 0..5 {
        anthropic.push(json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": format!("t{i}"), "name": "grep", "input": {}}]}));
        anthropic.push(json!({"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": format!("t{i}"), "content": [{"type": "text", "text": body('y')}]}]}));
        responses.push(
            json!({"type": "function_call", "call_id": format!("c{i}"), "name": "grep",
            "arguments": "{}"}),
        );
        responses.push(
            json!({"type": "function_call_output", "call_id": format!("c{i}"),
            "output": body('z')}),
        );
        gemini.push(json!({"role": "model", "parts": [
            {"functionCall": {"id": format!("g{i}"), "name": "grep", "args": {}}}]}));
        gemini.push(json!({"role": "user", "parts": [{"functionResponse": {
            "id": format!("g{i}"), "name": "grep", "response": {"output": body('w')}}}]}));
    }
    anthropic.push(json!({"role": "assistant", "content": "done"}));
    anthropic.push(json!({"role": "user", "content": "next?"}));
    responses.push(json!({"role": "user", "content": "next?"}));
    gemini.push(json!({"role": "model", "parts": [{"text": "done"}]}));
    gemini.push(json!({"role": "user", "parts": [{"text": "next?"}]}));
    let placeholder = ankita::request::CLEARED_TOOL_RESULT;
    for (format, messages, result_at) in [
        ("anthropic", anthropic, "/content/0/content/0/text"),
        ("responses", responses, "/output"),
        (
            "gemini",
            gemini,
            "/parts/0/functionResponse/response/output",
        ),
    ] {
        let request = json!({"format": format, "messages": messages, "max_bytes": 8000});
        let plain: Value =
            serde_json::from_str(&ankita::api::trim_json(&request.to_string())).unwrap();
        assert_ne!(
            plain["report"]["dropped_messages"],
            json!([]),
            "{format}: the budget drops"
        );
        let mut request = request;
        request["clear_tool_results"] = json!(true);
        let answer: Value =
            serde_json::from_str(&ankita::api::trim_json(&request.to_string())).unwrap();
        let report = &answer["report"];
        assert_eq!(report["dropped_messages"], json!([]), "{format}: {report}");
        let cleared: Vec<u64> = report["cleared_tool_results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["index"].as_u64().unwrap())
            .collect();
        assert_eq!(cleared, vec![2, 4], "{format}");
        let out = answer["messages"].as_array().unwrap();
        assert_eq!(out.len(), messages.len(), "{format}");
        assert_eq!(
            out[2].pointer(result_at),
            Some(&json!(placeholder)),
            "{format}"
        );
        assert_eq!(out[1], messages[1], "{format}: the call stays as written");
        assert_eq!(out[6], messages[6], "{format}: newer results stay");
    }
}

/// The report's totals stay within what a JSON number holds exactly (2⁵³ − 1: JavaScript's
/// numbers, and Python's `float` where a caller converts one) though each is a sum: two
/// remote files declared at 1.8 × 10¹⁹ pages are each priced at that bound, and their sum
/// (the answer's cost, in bytes and in tokens) is too, not 1.8 × 10¹⁶.
#[test]
fn report_totals_never_pass_2_pow_53() {
    const MAX: u64 = (1 << 53) - 1;
    let pages = json!(18_000_000_000_000_000_000u64);
    let part = |url: &str| json!({"type": "file", "file": {"file_id": url}});
    let messages = json!([
        {"role": "user", "content": [{"type": "text", "text": "Summarise."}, part("https://x/a.pdf")]},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": [{"type": "text", "text": "And this?"}, part("https://x/b.pdf")]}]);
    let sizes = json!({"https://x/a.pdf": pages, "https://x/b.pdf": pages});
    for unit in ["bytes", "tokens"] {
        let mut request = json!({"messages": messages, "file_sizes": sizes});
        if unit == "tokens" {
            request["model"] = json!("gpt-4o");
            request["context_tokens"] = json!(u64::MAX);
        } else {
            request["image_profile"] = json!("gemini");
        }
        let v = trim(&request);
        assert_eq!(v["ok"], true, "{v}");
        let report = &v["report"];
        assert_eq!(report["output_messages"], 3, "{unit}: {report}");
        let cost = &report[if unit == "tokens" {
            "cost_tokens"
        } else {
            "cost_bytes"
        }];
        assert_eq!(cost.as_u64(), Some(MAX), "{unit}: {report}");
        assert!(report["cost_tokens"].as_u64().unwrap() <= MAX, "{unit}");
    }
}

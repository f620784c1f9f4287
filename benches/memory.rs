//! Peak memory on adversarial input, as a ratio to the input's size: each class of
//! docs/robustness.md (and a few more) built at up to ~10 MB, then answered
//!
//! - by the command line, `ankita trim FILE > answer` under `/usr/bin/time -v` (the maximum
//!   resident size `wait4` reports): that peak less the answer's size, over the input's size
//!   (the process's own baseline and the input it reads included);
//! - by the C ABI in a child process of this benchmark: `ankita_trim_n` on the request read
//!   into memory, the growth of the process's peak resident size (`VmHWM`) across the call less
//!   the answer's size, over the input's size;
//! - by Python's `ankita.trim_json` on the file's text the same way, in a child Python where
//!   the package is installed: `ANKITA_PYTHON`, else `bindings/python/.venv/bin/python` when
//!   it exists (`bindings/python/run-tests.sh` builds it); `ANKITA_PYTHON=` leaves it out.
//!
//! The memory rule is 8× on every row, every front end. The adversarial shapes, each a row (or
//! several) below, in every wire format where it is cheap:
//!
//! 1. unknown roles;
//! 2. empty user messages (and messages without content);
//! 3. orphan tool replies (chat, Responses);
//! 4. orphan tool calls (chat, Responses);
//! 5. broken tool calls (numeric ids);
//! 6. many messages (100,000s of short ones; 300,000 of one letter, in bytes and in tokens);
//! 7. tiny parts (chat, Gemini, AI SDK; one Gemini content of 770,000 parts);
//! 8. crafted image headers (2³²−1 px), as placeholders and in drop mode (chat, Anthropic;
//!    counted in tokens);
//! 9. image parts in one message (drop, placeholder);
//! 10. many tiny images;
//! 11. base64 garbage as images;
//! 12. many files (small PDFs);
//! 13. the PDF cross-reference stream bomb (68 MB inflated from 66 KB): many of them, and the
//!     88 KB request alone, held to 8× its size over 4 MiB;
//! 14. implausible files (a page tree of 10⁹ pages, an Opus granule position of −2);
//! 15. deep nesting (a 120-deep field per message; to the parser's limit; past it);
//! 16. one long string (shed, kept);
//! 17. one huge tool result;
//! 18. one huge tool call's arguments;
//! 19. a whitespace run;
//! 20. `\uXXXX` escapes (everywhere; one long string of them, kept and shed);
//! 21. a JPEG segment flood;
//! 22. a PNG chunk flood.
//!
//! Beside them: duplicate keys, tool exchanges of many replies, Anthropic's merged runs and
//! missing results, and sessions a user would send (screenshots, text kept whole, counted in
//! tokens).
//!
//! Run: `cargo bench --bench memory` (`-- --quick` for inputs of ~2 MB; `-- NAME` for the
//! classes whose name contains NAME; `-- --keep DIR` also writes each input to DIR). The
//! table is copied into docs/robustness.md.

use std::ffi::c_char;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../tests/support/pdf.rs"]
mod pdf;

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
    v.extend(adversarial(size));
    v
}

/// An Ogg Opus stream whose last granule position is −2: 12 million years in 122 bytes
/// (fuzz/regressions/probe_audio/implausible-opus-granule-minus-2).
const OPUS_GRANULE_MINUS_2: &str = "4f6767530000000000000000000001000000000000000000000001134f707573486561640101380180bb00000000004f6767530000000000000000000001000000010000000000000001104f7075735461677300000000000000004f6767530000feffffffffffffff0100000002000000000000000103f8fffe";

fn unhex(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// A PDF of `pages` pages in one page tree, without cross-references (read by its objects).
fn small_pdf(pages: u64) -> Vec<u8> {
    format!(
        "%PDF-1.4\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n2 0 obj <</Type/Pages/Kids[3 0 R]/Count {pages}>> endobj\n3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n"
    )
    .into_bytes()
}

/// A PDF whose only cross-reference stream is 68 MB of zeros, deflated to ~66 KB (the
/// bomb: it peaked at 66 MB before its streams were bounded by its size).
fn pdf_bomb() -> Vec<u8> {
    pdf::pdf_with_xref(68 << 20, "")
}

/// A chat `file` part holding `pdf`, named.
fn pdf_part(name: &str, pdf: &[u8]) -> String {
    format!(
        r#"{{"type":"file","file":{{"filename":"{name}","file_data":"data:application/pdf;base64,{}"}}}}"#,
        base64(pdf)
    )
}

/// The small PDF request: 88 KB, its PDF's cross-reference stream inflating to 68 MB.
fn pdf_bomb_request() -> String {
    request(
        &[format!(
            r#"{{"role":"user","content":[{{"type":"text","text":"Summarise."}},{}]}}"#,
            pdf_part("q3.pdf", &pdf_bomb())
        )],
        "\"image_profile\":\"gemini\",\"max_bytes\":1000000",
    )
}

/// The adversarial shapes beyond the classes above.
fn adversarial(size: usize) -> Vec<(&'static str, String)> {
    let budget = "\"max_bytes\":100000";
    let mut v: Vec<(&'static str, String)> = Vec::new();
    let huge = png_url(u32::MAX, u32::MAX);
    v.push((
        "crafted image headers, drop",
        request(
            &fill(size, ASK, |_| {
                format!(r#"{{"role":"user","content":[{{"type":"image_url","image_url":{{"url":"{huge}"}}}}]}}"#)
            }),
            "\"max_bytes\":100000,\"on_image_overflow\":\"drop\"",
        ),
    ));
    let huge_b64 = huge.trim_start_matches("data:image/png;base64,");
    v.push((
        "Anthropic: crafted image headers, drop",
        format!(
            r#"{{"format":"anthropic","messages":[{}],"max_bytes":100000,"on_image_overflow":"drop"}}"#,
            fill(size, r#"{"role":"user","content":"end"}"#, |i| {
                let role = if i % 2 == 0 { "user" } else { "assistant" };
                if role == "user" {
                    format!(r#"{{"role":"user","content":[{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"{huge_b64}"}}}}]}}"#)
                } else {
                    r#"{"role":"assistant","content":"ok"}"#.to_string()
                }
            })
            .join(",")
        ),
    ));
    v.push((
        "orphan tool calls",
        request(
            &fill(size, ASK, |i| {
                format!(
                    r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":"c{i}","type":"function","function":{{"name":"f","arguments":"{{}}"}}}}]}}"#
                )
            }),
            budget,
        ),
    ));
    v.push((
        "Responses: orphan function calls",
        format!(
            r#"{{"format":"responses","messages":[{}],"max_bytes":100000}}"#,
            fill(size, r#"{"role":"user","content":"end"}"#, |i| format!(
                r#"{{"type":"function_call","call_id":"c{i}","name":"f","arguments":"{{}}"}}"#
            ))
            .join(",")
        ),
    ));
    let arguments = format!(r#"{{\"path\":\"{}\"}}"#, words(2, size));
    v.push((
        "one huge tool call's arguments",
        request(
            &[
                r#"{"role":"user","content":"why?"}"#.into(),
                format!(
                    r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":"c1","type":"function","function":{{"name":"run","arguments":"{arguments}"}}}}]}}"#
                ),
                r#"{"role":"tool","tool_call_id":"c1","content":"done"}"#.into(),
                ASK.into(),
            ],
            "\"max_bytes\":20000",
        ),
    ));
    let tiny = png_url(1, 1);
    v.push((
        "many tiny images",
        request(
            &fill(size, ASK, |_| {
                format!(r#"{{"role":"user","content":[{{"type":"text","text":"a"}},{{"type":"image_url","image_url":{{"url":"{tiny}"}}}}]}}"#)
            }),
            budget,
        ),
    ));
    v.push((
        "base64 garbage as images",
        request(
            &fill(size, ASK, |i| {
                format!(
                    r#"{{"role":"user","content":[{{"type":"image_url","image_url":{{"url":"data:image/png;base64,{}"}}}}]}}"#,
                    "!*~%".repeat(1 + i % 16)
                )
            }),
            budget,
        ),
    ));
    let pdf = small_pdf(3);
    v.push((
        "many files (small PDFs)",
        request(
            &fill(size, ASK, |i| {
                format!(
                    r#"{{"role":"user","content":[{{"type":"text","text":"f{i}"}},{}]}}"#,
                    pdf_part(&format!("f{i}.pdf"), &pdf)
                )
            }),
            budget,
        ),
    ));
    let bomb = pdf_part("q3.pdf", &pdf_bomb());
    v.push((
        "PDF cross-reference stream bombs (68 MB each)",
        request(
            &fill(size, ASK, |_| {
                format!(
                    r#"{{"role":"user","content":[{{"type":"text","text":"Summarise."}},{bomb}]}}"#
                )
            }),
            "\"image_profile\":\"gemini\",\"max_bytes\":1000000",
        ),
    ));
    let (claims, opus) = (small_pdf(1_000_000_000), unhex(OPUS_GRANULE_MINUS_2));
    v.push((
        "implausible files (10^9 pages, Opus granule -2)",
        request(
            &fill(size, ASK, |i| {
                let part = if i % 2 == 0 {
                    pdf_part("claims.pdf", &claims)
                } else {
                    format!(
                        r#"{{"type":"input_audio","input_audio":{{"data":"{}","format":"wav"}}}}"#,
                        base64(&opus)
                    )
                };
                format!(r#"{{"role":"user","content":[{part}]}}"#)
            }),
            "\"image_profile\":\"gemini\",\"max_bytes\":100000",
        ),
    ));
    // The root is at depth 1, `messages` 2, a message 3: its field nests to the deepest
    // serde_json reads (127 levels in all; one more is `recursion limit exceeded`).
    let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let deep124 = deep(124);
    v.push((
        "messages each nested to the parser's limit (127 levels)",
        request(
            &fill(size, ASK, |i| {
                format!(r#"{{"role":"user","content":"m{i}","x":{deep124}}}"#)
            }),
            budget,
        ),
    ));
    v.push((
        "one long string, shed",
        request(
            &[
                format!(r#"{{"role":"user","content":"{}"}}"#, words(3, size)),
                r#"{"role":"assistant","content":"ok"}"#.into(),
                ASK.into(),
            ],
            budget,
        ),
    ));
    v.push((
        "one long string, kept",
        request(
            &[format!(
                r#"{{"role":"user","content":"{}"}}"#,
                words(4, size)
            )],
            "",
        ),
    ));
    v.push((
        "a whitespace run",
        format!(
            "{{\"messages\":[{}{ASK}{}],\"max_bytes\":100000}}",
            " ".repeat(size / 2),
            "\n\t \r".repeat(size / 8)
        ),
    ));
    let escapes = r"\u00e9\u4e2d\ud83e\udd80".repeat(size / 24);
    v.push((
        "\\uXXXX escapes in one string, kept",
        request(&[format!(r#"{{"role":"user","content":"{escapes}"}}"#)], ""),
    ));
    v.push((
        "\\uXXXX escapes in one string, shed",
        request(
            &[
                format!(r#"{{"role":"user","content":"{escapes}"}}"#),
                r#"{"role":"assistant","content":"ok"}"#.into(),
                ASK.into(),
            ],
            budget,
        ),
    ));
    let jpeg = {
        let mut j = vec![0xFF, 0xD8];
        // Comment segments of no content, then the frame header.
        for _ in 0..size / 6 {
            j.extend([0xFF, 0xFE, 0x00, 0x02]);
        }
        j.extend([0xFF, 0xC0, 0x00, 0x11, 8, 0x04, 0x38, 0x07, 0x80, 3]);
        j.extend([1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
        format!("data:image/jpeg;base64,{}", base64(&j))
    };
    v.push((
        "JPEG segment flood",
        request(
            &[
                format!(r#"{{"role":"user","content":[{{"type":"text","text":"see"}},{{"type":"image_url","image_url":{{"url":"{jpeg}"}}}}]}}"#),
                r#"{"role":"assistant","content":"ok"}"#.into(),
                ASK.into(),
            ],
            budget,
        ),
    ));
    let png = {
        let mut p = vec![
            0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n', 0, 0, 0, 13,
        ];
        p.extend(b"IHDR");
        p.extend(1920u32.to_be_bytes());
        p.extend(1080u32.to_be_bytes());
        p.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
        // Empty ancillary chunks (length 0, type, CRC).
        for _ in 0..size / 16 {
            p.extend([0, 0, 0, 0, b't', b'E', b'X', b't', 0, 0, 0, 0]);
        }
        format!("data:image/png;base64,{}", base64(&p))
    };
    v.push((
        "PNG chunk flood",
        request(
            &[
                format!(r#"{{"role":"user","content":[{{"type":"text","text":"see"}},{{"type":"image_url","image_url":{{"url":"{png}"}}}}]}}"#),
                r#"{"role":"assistant","content":"ok"}"#.into(),
                ASK.into(),
            ],
            budget,
        ),
    ));
    for (name, budget) in [
        ("one-letter messages", "\"max_bytes\":100000"),
        (
            "one-letter messages, counted in tokens",
            "\"context_tokens\":32000,\"model\":\"gpt-4o\"",
        ),
    ] {
        v.push((
            name,
            request(
                &fill(size, ASK, |i| {
                    let role = if i % 2 == 0 { "user" } else { "assistant" };
                    format!(r#"{{"role":"{role}","content":"a"}}"#)
                }),
                budget,
            ),
        ));
    }
    v.push((
        "crafted image headers, drop, counted in tokens",
        request(
            &fill(size, ASK, |_| {
                format!(r#"{{"role":"user","content":[{{"type":"image_url","image_url":{{"url":"{huge}"}}}}]}}"#)
            }),
            "\"context_tokens\":32000,\"model\":\"gpt-4o\",\"on_image_overflow\":\"drop\"",
        ),
    ));
    v.push((
        "Gemini: one content of many parts",
        format!(
            r#"{{"format":"gemini","messages":[{{"role":"user","parts":[{}]}}],"max_bytes":100000}}"#,
            fill(size, r#"{"text":"z"}"#, |_| r#"{"text":"a"}"#.to_string()).join(",")
        ),
    ));
    v.push((
        "AI SDK: tiny parts",
        format!(
            r#"{{"format":"ai-sdk","messages":[{}],"max_bytes":100000}}"#,
            fill(size, r#"{"role":"user","content":"end"}"#, |i| {
                let role = if i % 2 == 0 { "user" } else { "assistant" };
                format!(r#"{{"role":"{role}","content":[{{"type":"text","text":"a"}},{{"type":"text","text":"b"}}]}}"#)
            })
            .join(",")
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

/// One input through each front end: (CLI peak, CLI answer), (C ABI growth, C ABI answer),
/// and Python's (growth, answer) when a Python is given.
struct Measured {
    cli: (u64, u64),
    c: (u64, u64),
    python: Option<Option<(u64, u64)>>,
}

fn measure(path: &Path, answer: &Path, python: Option<&Path>) -> Measured {
    let cli = cli(path, answer).unwrap_or((0, 0));
    let mut child = Command::new(std::env::current_exe().unwrap());
    child.arg("--c-child").arg(path);
    let c = growth(child).unwrap_or((0, 0));
    let python = python.map(|py| {
        let mut child = Command::new(py);
        child.arg("-c").arg(PYTHON_CHILD).arg(path);
        growth(child)
    });
    Measured { cli, c, python }
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
    // The package's test environment when it has been built (bindings/python/run-tests.sh).
    let python = std::env::var_os("ANKITA_PYTHON")
        .map(PathBuf::from)
        .or_else(|| {
            let venv =
                Path::new(env!("CARGO_MANIFEST_DIR")).join("bindings/python/.venv/bin/python");
            venv.exists().then_some(venv)
        })
        .filter(|py| !py.as_os_str().is_empty());
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
    let wanted = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    let slug = |name: &str| -> String {
        name.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect()
    };
    let mut worst: [(f64, &str); 3] = [(0.0, ""); 3];
    let rows = inputs(if quick { FULL / 5 } else { FULL });
    for (name, text) in &rows {
        let name: &str = name;
        if !wanted(name) {
            continue;
        }
        std::fs::write(&path, text).unwrap();
        if let Some(keep) = &keep {
            std::fs::create_dir_all(keep).unwrap();
            std::fs::write(keep.join(format!("{}.json", slug(name))), text).unwrap();
        }
        let m = measure(&path, &answer, python.as_deref());
        let (cli_x, c_x) = (
            ratio(m.cli.0, m.cli.1, text.len()),
            ratio(m.c.0, m.c.1, text.len()),
        );
        let py_x = m
            .python
            .map(|g| g.map_or(f64::NAN, |(g, a)| ratio(g, a, text.len())));
        for (at, x) in [Some(cli_x), Some(c_x), py_x].into_iter().enumerate() {
            if let Some(x) = x {
                if x > worst[at].0 || x.is_nan() {
                    worst[at] = (x, name);
                }
            }
        }
        let mut row = format!(
            "| {name} | {:.1} | {:.1} | {:.1} | {cli_x:.1} | {:.1} | {c_x:.1} |",
            text.len() as f64 / 1e6,
            m.c.1 as f64 / 1e6,
            m.cli.0 as f64 / 1e6,
            m.c.0 as f64 / 1e6,
        );
        if let Some(py) = py_x {
            let _ = write!(row, " {py:.1} |");
        }
        println!("{row}");
        // The CLI ends its answer with a line break.
        if m.cli.1 != m.c.1 + 1 {
            println!(
                "  (the CLI's answer is {} bytes, the C ABI's {})",
                m.cli.1, m.c.1
            );
        }
    }
    println!(
        "\nworst: CLI {:.1}× ({}; peak RSS less the answer, over the input), C ABI {:.1}× ({}; growth of the peak across the call less the answer, over the input){}",
        worst[0].0,
        worst[0].1,
        worst[1].0,
        worst[1].1,
        if python.is_some() {
            format!(", Python {:.1}× ({})", worst[2].0, worst[2].1)
        } else {
            String::new()
        }
    );
    // A small request is held to 8× its size over a few MB (a process's own baseline is
    // several times its size): the 88 KB request whose PDF inflates to 68 MB.
    let name = "the 88 KB PDF request";
    if wanted(name) {
        let text = pdf_bomb_request();
        std::fs::write(&path, &text).unwrap();
        if let Some(keep) = &keep {
            std::fs::write(keep.join(format!("{}.json", slug(name))), &text).unwrap();
        }
        let m = measure(&path, &answer, python.as_deref());
        let mb = |b: u64| b as f64 / 1e6;
        let bound = 8 * text.len() as u64 + (4 << 20);
        println!(
            "{name} ({} bytes; bound 8× + 4 MiB = {:.2} MB): CLI peak {:.2} MB, C ABI growth {:.2} MB{}",
            text.len(),
            mb(bound),
            mb(m.cli.0),
            mb(m.c.0),
            match m.python {
                Some(Some((g, _))) => format!(", Python growth {:.2} MB", mb(g)),
                Some(None) => ", Python failed".into(),
                None => String::new(),
            }
        );
    }
    // What counting in tokens adds whatever the input: the tokenizer's tables, built once per
    // process (a two-message request, through each front end).
    let name = "the tokenizer's tables";
    if wanted(name) {
        let text = request(
            &[r#"{"role":"assistant","content":"hi"}"#.into(), ASK.into()],
            "\"context_tokens\":32000,\"model\":\"gpt-4o\"",
        );
        std::fs::write(&path, &text).unwrap();
        let m = measure(&path, &answer, python.as_deref());
        let mb = |b: u64| b as f64 / 1e6;
        println!(
            "{name} (gpt-4o, a request of {} bytes): CLI peak {:.1} MB, C ABI growth {:.1} MB{}",
            text.len(),
            mb(m.cli.0),
            mb(m.c.0),
            match m.python {
                Some(Some((g, _))) => format!(", Python growth {:.1} MB", mb(g)),
                Some(None) => ", Python failed".into(),
                None => String::new(),
            }
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

//! Documents and audio in every format's part (tests/fixtures/files): priced by pages and
//! seconds within the documented rule, returned byte for byte in a window that fits, and in a
//! small window shed like an image — a placeholder text part, listed in `dropped_files` —
//! never turned into a text block holding the file's base64.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/files")
        .join(name);
    let bytes = std::fs::read(&path).unwrap();
    if name.ends_with(".zz") {
        return miniz_oxide::inflate::decompress_to_vec_zlib(&bytes).unwrap();
    }
    bytes
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Pdf,
    Audio,
}

/// A user message in `format` holding a text part and the file, and the file part's index.
fn message(format: &str, kind: Kind, b64: &str, audio_format: &str) -> (Value, usize) {
    let url = match kind {
        Kind::Pdf => format!("data:application/pdf;base64,{b64}"),
        Kind::Audio => format!("data:audio/{audio_format};base64,{b64}"),
    };
    let msg = match (format, kind) {
        ("openai", Kind::Pdf) => json!({"role": "user", "content": [
            {"type": "text", "text": "Summarise this."},
            {"type": "file", "file": {"filename": "report.pdf", "file_data": url}}]}),
        ("openai" | "responses", Kind::Audio) => {
            let text = if format == "openai" {
                "text"
            } else {
                "input_text"
            };
            json!({"role": "user", "content": [
                {"type": text, "text": "Transcribe this."},
                {"type": "input_audio", "input_audio": {"data": b64, "format": audio_format}}]})
        }
        ("anthropic", Kind::Pdf) => json!({"role": "user", "content": [
            {"type": "text", "text": "Summarise this."},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": b64}}]}),
        ("responses", Kind::Pdf) => json!({"role": "user", "content": [
            {"type": "input_text", "text": "Summarise this."},
            {"type": "input_file", "filename": "report.pdf", "file_data": url}]}),
        ("gemini", _) => {
            let mime = match kind {
                Kind::Pdf => "application/pdf".to_owned(),
                Kind::Audio => format!("audio/{audio_format}"),
            };
            json!({"role": "user", "parts": [
                {"text": "Look at this."},
                {"inlineData": {"mimeType": mime, "data": b64}}]})
        }
        other => panic!("{other:?}"),
    };
    (msg, 1)
}

fn model_of(format: &str) -> &'static str {
    match format {
        "anthropic" => "claude-sonnet-4",
        "gemini" => "gemini-2.5-flash",
        _ => "gpt-4o",
    }
}

fn trim(request: &Value) -> Value {
    serde_json::from_str(&ankita::api::trim_json(&request.to_string())).unwrap()
}

/// (format, kind, fixture, audio format, pages or seconds)
fn cases() -> Vec<(&'static str, Kind, &'static str, &'static str, u64)> {
    let mut out = Vec::new();
    for format in ["openai", "anthropic", "responses", "gemini"] {
        for pdf in [
            "pdf-3-classic.pdf",
            "pdf-3-objstm.pdf",
            "pdf-10-classic.pdf",
            "pdf-10-objstm.pdf",
        ] {
            let pages = if pdf.contains("-10-") { 10 } else { 3 };
            out.push((format, Kind::Pdf, pdf, "", pages));
        }
        if format != "anthropic" {
            // Claude takes no audio input.
            out.push((format, Kind::Audio, "wav-30s.wav.zz", "wav", 30));
            out.push((format, Kind::Audio, "mp3-30s-cbr.mp3", "mp3", 30));
        }
    }
    out
}

#[test]
fn priced_by_pages_and_seconds_and_returned_whole() {
    for (format, kind, file, audio_format, count) in cases() {
        let b64 = STANDARD.encode(fixture(file));
        let (msg, part) = message(format, kind, &b64, audio_format);
        let request = json!({"format": format, "model": model_of(format), "messages": [msg.clone()],
                             "context_tokens": 1_000_000, "max_output_tokens": 0});
        let answer = trim(&request);
        assert_eq!(answer["ok"], true, "{format} {file}: {answer}");
        assert_eq!(
            answer["messages"][0], msg,
            "{format} {file}: returned as given"
        );
        // The file's cost: the message's cost less the same message without the file.
        let mut without = msg.clone();
        let key = if format == "gemini" {
            "parts"
        } else {
            "content"
        };
        without[key].as_array_mut().unwrap().remove(part);
        let cost = |m: &Value| {
            let r = json!({"format": format, "model": model_of(format), "messages": [m]});
            let v: Value = serde_json::from_str(&ankita::api::count_json(&r.to_string())).unwrap();
            v["total"].as_u64().unwrap_or_else(|| panic!("{v}"))
        };
        let file_tokens = cost(&msg) - cost(&without);
        let per = file_tokens as f64 / count as f64;
        let (lo, hi) = match (format, kind) {
            // Gemini 2.5: 258 a page, 32 a second (within 10%).
            ("gemini", Kind::Pdf) => (258.0 * 0.9, 258.0 * 1.1),
            ("gemini", Kind::Audio) => (32.0 * 0.9, 32.0 * 1.1),
            // Claude: up to 3,000 text tokens a page and the page image (≤ 1,600).
            ("anthropic", _) => (3_000.0, 4_600.0),
            // OpenAI: the text estimate and the page image; audio ~10 a second.
            (_, Kind::Pdf) => (3_000.0, 4_200.0),
            (_, Kind::Audio) => (9.0, 11.0),
        };
        assert!(
            (lo..=hi).contains(&per),
            "{format} {file}: {file_tokens} tokens, {per:.0} a page/second, expected {lo}..{hi}"
        );
    }
}

#[test]
fn shed_like_an_image_in_a_small_window() {
    for (format, kind, file, audio_format, _) in cases() {
        let b64 = STANDARD.encode(fixture(file));
        let (msg, part) = message(format, kind, &b64, audio_format);
        // The file is in the request itself: it cannot go with an older turn.
        let request = json!({"format": format, "model": model_of(format), "messages": [msg],
                             "context_tokens": 150, "max_output_tokens": 0, "overhead_tokens": 0});
        let answer = trim(&request);
        assert_eq!(answer["ok"], true, "{format} {file}: {answer}");
        let text = answer["messages"].to_string();
        assert!(
            !text.contains(&b64[..64]),
            "{format} {file}: the base64 is still there"
        );
        let report = &answer["report"];
        let dropped = report["dropped_files"].as_array().unwrap();
        assert_eq!(dropped.len(), 1, "{format} {file}: {report}");
        let unit = if kind == Kind::Pdf {
            "pages"
        } else {
            "seconds"
        };
        assert!(
            dropped[0][unit].as_u64().unwrap() >= 3,
            "{format} {file}: {report}"
        );
        assert_eq!(dropped[0]["index"], 0, "{format} {file}: {report}");
        assert_eq!(dropped[0]["part"], part);
        // The chat and Responses parts name their file (`filename`): the placeholder and the
        // entry say it.
        let named = matches!(format, "openai" | "responses") && kind == Kind::Pdf;
        let word = match kind {
            Kind::Pdf if named => {
                // The messages' JSON text: the quotes escaped.
                "[Document omitted to fit the context budget: \\\"report.pdf\\\", PDF, "
            }
            Kind::Pdf => "[Document omitted to fit the context budget: PDF, ",
            Kind::Audio => "[Audio omitted to fit the context budget: ",
        };
        assert!(text.contains(word), "{format} {file}: {text}");
        let name = named.then_some("report.pdf");
        assert_eq!(dropped[0]["name"], json!(name), "{format} {file}: {report}");
    }
}

#[test]
fn unreadable_files_are_priced_conservatively_and_warned_about() {
    let b64 = STANDARD.encode(fixture("pdf-3-encrypted-objstm.pdf"));
    for format in ["openai", "anthropic", "responses", "gemini"] {
        let (msg, part) = message(format, Kind::Pdf, &b64, "");
        let request = json!({"format": format, "model": model_of(format), "messages": [msg],
                             "context_tokens": 1_000_000});
        let answer = trim(&request);
        let warnings = answer["report"]["warnings"].as_array().unwrap();
        assert_eq!(warnings.len(), 1, "{format}: {answer}");
        assert_eq!(warnings[0]["code"], "unreadable_file");
        assert_eq!(warnings[0]["part"], part);
        assert!(
            warnings[0]["message"]
                .as_str()
                .unwrap()
                .contains("encrypted PDF"),
            "{}",
            warnings[0]
        );
    }
}

#[test]
fn remote_files_use_file_sizes() {
    let url = "https://example.com/report.pdf";
    for (format, msg) in [
        (
            "anthropic",
            json!({"role": "user", "content": [{"type": "document", "source": {"type": "url", "url": url}}]}),
        ),
        (
            "gemini",
            json!({"role": "user", "parts": [{"fileData": {"mimeType": "application/pdf", "fileUri": url}}]}),
        ),
        (
            "responses",
            json!({"role": "user", "content": [{"type": "input_file", "file_url": url}]}),
        ),
        (
            "openai",
            json!({"role": "user", "content": [{"type": "file", "file": {"file_id": url}}]}),
        ),
    ] {
        let count = |sizes: Value| {
            let r = json!({"format": format, "model": "gemini-2.5-flash", "messages": [msg.clone()], "file_sizes": sizes});
            let v: Value = serde_json::from_str(&ankita::api::count_json(&r.to_string())).unwrap();
            v["total"]
                .as_u64()
                .unwrap_or_else(|| panic!("{format}: {v}"))
        };
        let (ten, unknown) = (count(json!({url: 10})), count(json!({})));
        let (one, _) = (count(json!({url: 1})), 0);
        assert_eq!(ten - one, 9 * 258, "{format}");
        assert_eq!(
            unknown - one,
            99 * 258,
            "{format}: 100 pages when the size is unknown"
        );
    }
}

/// The 10-page fixture grown to 3.3 MB by an incremental update that adds an unreferenced
/// stream of incompressible bytes (as a scanned page's image would be): still 10 pages.
fn big_pdf() -> Vec<u8> {
    let mut pdf = fixture("pdf-10-classic.pdf");
    let text = String::from_utf8_lossy(&pdf).into_owned();
    let tail = text.rsplit("startxref").next().unwrap();
    let prev: usize = tail.split_whitespace().next().unwrap().parse().unwrap();
    let trailer = &text[text.rfind("trailer").unwrap()..];
    let size: usize = trailer
        .split("/Size")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let root = trailer
        .split("/Root")
        .nth(1)
        .unwrap()
        .split(" R")
        .next()
        .unwrap()
        .trim()
        .to_owned();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let noise: Vec<u8> = (0..3_300_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect();
    pdf.push(b'\n');
    let offset = pdf.len();
    pdf.extend_from_slice(
        format!("{size} 0 obj\n<< /Length {} >>\nstream\n", noise.len()).as_bytes(),
    );
    pdf.extend_from_slice(&noise);
    pdf.extend_from_slice(b"\nendstream\nendobj\n");
    let xref = pdf.len();
    pdf.extend_from_slice(
        format!(
            "xref\n{size} 1\n{offset:010} 00000 n \ntrailer\n<< /Size {} /Root {root} R /Prev {prev} >>\nstartxref\n{xref}\n%%EOF\n",
            size + 1
        )
        .as_bytes(),
    );
    pdf
}

/// The measurement: a 10-page, 3.3 MB PDF counted as text was 1.68 million tokens as
/// an Anthropic document and failed in Gemini's 1M window and OpenAI's 128k one. Priced by its
/// pages it fits each provider's window and comes back byte for byte.
#[test]
fn a_big_pdf_fits_every_providers_window_by_its_pages() {
    let pdf = big_pdf();
    assert!(pdf.len() > 3_300_000);
    let b64 = STANDARD.encode(&pdf);
    for (format, window, per_page) in [
        ("gemini", 1_048_576, 258),
        ("anthropic", 200_000, 4_496),
        ("openai", 128_000, 3_765),
        ("responses", 128_000, 3_765),
    ] {
        let (msg, _) = message(format, Kind::Pdf, &b64, "");
        let request = json!({"format": format, "model": model_of(format), "messages": [msg.clone()],
                             "context_tokens": window, "max_output_tokens": 4_096});
        let answer = trim(&request);
        assert_eq!(answer["ok"], true, "{format}: {}", answer["error"]);
        assert_eq!(answer["messages"][0], msg, "{format}: returned as given");
        let cost = answer["report"]["cost_tokens"].as_u64().unwrap();
        assert!(
            (10 * per_page..10 * per_page + 100).contains(&cost),
            "{format}: {cost} tokens for 10 pages of {per_page}"
        );
    }
}

/// An incremental session answers what a one-off trim answers for the same messages: the file
/// is priced by its pages when appended, and shed as a placeholder when the window shrinks to
/// the request alone.
#[test]
fn sessions_price_files_as_trim_does() {
    let b64 = STANDARD.encode(fixture("pdf-10-objstm.pdf"));
    for format in ["openai", "anthropic", "responses", "gemini"] {
        let (msg, _) = message(format, Kind::Pdf, &b64, "");
        for window in [1_000_000u64, 150] {
            let options = json!({"format": format, "model": model_of(format), "context_tokens": window,
                                 "max_output_tokens": 0, "overhead_tokens": 0});
            let mut session = ankita::TrimSession::new(&options.to_string()).unwrap();
            session.append(&json!([msg.clone()]).to_string()).unwrap();
            let answer: Value =
                serde_json::from_str(&session.trim_answer().unwrap().into_string()).unwrap();
            let mut request = options.clone();
            request["messages"] = json!([msg.clone()]);
            let once = trim(&request);
            assert_eq!(answer["messages"], once["messages"], "{format} {window}");
            assert_eq!(
                answer["report"]["dropped_files"], once["report"]["dropped_files"],
                "{format} {window}"
            );
            let dropped = once["report"]["dropped_files"].as_array().unwrap().len();
            assert_eq!(dropped, usize::from(window == 150), "{format} {window}");
        }
    }
}

/// A PDF among a Gemini function response's parts is priced by its pages too, and shed as the
/// text blob that stands for media there.
#[test]
fn gemini_function_responses_carry_documents() {
    let b64 = STANDARD.encode(fixture("pdf-10-objstm.pdf"));
    let blob = json!({"inlineData": {"mimeType": "application/pdf", "data": b64}});
    let messages = json!([
        {"role": "user", "parts": [{"text": "Read the report."}]},
        {"role": "model", "parts": [{"functionCall": {"id": "a", "name": "fetch", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "a", "name": "fetch",
            "response": {"output": "here"}, "parts": [blob]}}]},
    ]);
    let base = json!({"format": "gemini", "model": "gemini-2.5-flash", "messages": messages});
    let counted: Value = serde_json::from_str(&ankita::api::count_json(&base.to_string())).unwrap();
    let response = counted["messages"][2].as_u64().unwrap();
    assert!((2_580..2_700).contains(&response), "{counted}");
    let mut small = base.clone();
    for (k, v) in [
        ("context_tokens", 400),
        ("max_output_tokens", 0),
        ("overhead_tokens", 0),
    ] {
        small[k] = json!(v);
    }
    let answer = trim(&small);
    assert_eq!(answer["ok"], true, "{answer}");
    let dropped = &answer["report"]["dropped_files"];
    assert_eq!(dropped[0]["pages"], 10, "{}", answer["report"]);
    let inner = &answer["messages"][2]["parts"][0]["functionResponse"]["parts"][0]["inlineData"];
    assert_eq!(inner["mimeType"], "text/plain");
    let text =
        String::from_utf8(STANDARD.decode(inner["data"].as_str().unwrap()).unwrap()).unwrap();
    assert_eq!(
        text,
        "[Document omitted to fit the context budget: PDF, 10 pages, ~2,580 tokens]"
    );
}

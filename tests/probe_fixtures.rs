//! The image probe against real files written by real encoders (tests/fixtures/images, see
//! generate.sh there), each as raw bytes and as several data-URL spellings; plus robustness:
//! every truncation and random byte flips must give an answer, never a panic.

use ankita::probe::{probe_bytes, probe_data_url, probe_text, ImageFormat};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use serde_json::Value;
use std::path::PathBuf;

struct Fixture {
    file: String,
    bytes: Vec<u8>,
    expected: Option<(ImageFormat, u32, u32)>,
}

fn fixtures() -> Vec<Fixture> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/images");
    let manifest: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert!(
        manifest.len() >= 40,
        "manifest lists {} files",
        manifest.len()
    );
    manifest
        .into_iter()
        .map(|entry| {
            let file = entry["file"].as_str().unwrap().to_owned();
            let format = match entry["format"].as_str() {
                None => None,
                Some("png") => Some(ImageFormat::Png),
                Some("jpeg") => Some(ImageFormat::Jpeg),
                Some("gif") => Some(ImageFormat::Gif),
                Some("webp") => Some(ImageFormat::Webp),
                Some(other) => panic!("{file}: unknown format {other}"),
            };
            let expected = format.map(|f| {
                (
                    f,
                    entry["width"].as_u64().unwrap() as u32,
                    entry["height"].as_u64().unwrap() as u32,
                )
            });
            let bytes = std::fs::read(dir.join(&file)).unwrap();
            Fixture {
                file,
                bytes,
                expected,
            }
        })
        .collect()
}

#[test]
fn every_fixture_probes_to_its_manifest_size_in_every_spelling() {
    for f in fixtures() {
        let standard = STANDARD.encode(&f.bytes);
        let wrapped: String = standard
            .as_bytes()
            .chunks(76)
            .map(|line| std::str::from_utf8(line).unwrap())
            .collect::<Vec<_>>()
            .join("\r\n");
        let spellings = [
            ("raw", probe_bytes(&f.bytes)),
            ("bare base64", probe_text(&standard)),
            (
                "data URL",
                probe_data_url(&format!("data:image/png;base64,{standard}")),
            ),
            (
                "wrapped upper-case data URL",
                probe_data_url(&format!("DATA:image/JPG;charset=x;BASE64,{wrapped}")),
            ),
            (
                "URL-safe unpadded",
                probe_data_url(&format!(
                    "data:image/webp;base64,{}",
                    URL_SAFE_NO_PAD.encode(&f.bytes)
                )),
            ),
        ];
        for (spelling, result) in spellings {
            let got = result.ok().map(|i| (i.format, i.width, i.height));
            assert_eq!(got, f.expected, "{} as {spelling}", f.file);
        }
    }
}

#[test]
fn every_truncation_of_every_fixture_answers_without_panicking() {
    for f in fixtures() {
        let full = f.expected.is_some();
        let text = STANDARD.encode(&f.bytes);
        for cut in 0..f.bytes.len() {
            let result = probe_bytes(&f.bytes[..cut]);
            // A cut can only lose the answer, never invent a different one.
            if let Ok(info) = result {
                assert!(full, "{} cut at {cut} decoded as {info:?}", f.file);
                let (format, w, h) = f.expected.unwrap();
                assert_eq!((info.format, info.width, info.height), (format, w, h));
            }
        }
        for cut in 0..text.len() {
            let _ = probe_text(&text[..cut]);
        }
    }
}

#[test]
fn random_byte_flips_never_panic() {
    // xorshift64*: deterministic, no dependency.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    for f in fixtures() {
        if f.bytes.is_empty() {
            continue;
        }
        let header_len = f.bytes.len().min(256);
        for _ in 0..300 {
            let mut bytes = f.bytes.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % header_len;
                bytes[at] ^= 1 << (next() % 8);
            }
            if let Ok(info) = probe_bytes(&bytes) {
                assert!(info.width > 0 && info.height > 0);
            }
            let _ = probe_text(&STANDARD.encode(&bytes));
        }
    }
}

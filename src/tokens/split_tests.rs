//! The hand-written pre-tokenizers against the regexes they replace (`bpe-openai`'s split, the
//! patterns of tiktoken with its look-ahead rewritten): the same pieces on the vendored real
//! text, on every Unicode character in a few contexts, and on generated text mixing every
//! general category, combining marks, emoji and ZWJ sequences, digit runs, white space runs,
//! contractions in any case and case changes inside words. And the counts: the same as
//! `bpe-openai`'s on the same texts.

use super::split::{split, Pattern};
use super::{Measure, Tokenizer};
use proptest::prelude::*;
use std::sync::OnceLock;
use unicode_general_category::get_general_category;

const PATTERNS: [(Pattern, Tokenizer); 2] = [
    (Pattern::O200k, Tokenizer::O200kBase),
    (Pattern::Cl100k, Tokenizer::Cl100kBase),
];

fn reference(tokenizer: Tokenizer) -> &'static bpe_openai::Tokenizer {
    match tokenizer {
        Tokenizer::O200kBase => bpe_openai::o200k_base(),
        Tokenizer::Cl100kBase => bpe_openai::cl100k_base(),
        _ => unreachable!("only the built-in patterns"),
    }
}

/// Fails with the text and both splits when they differ.
fn same_split(text: &str) -> Result<(), TestCaseError> {
    for (pattern, tokenizer) in PATTERNS {
        let ours: Vec<&str> = split(text, pattern).collect();
        let theirs: Vec<&str> = reference(tokenizer).split(text).collect();
        prop_assert_eq!(
            &ours,
            &theirs,
            "{} splits {:?} differently",
            tokenizer.name(),
            text
        );
    }
    Ok(())
}

fn same_count(text: &str) -> Result<(), TestCaseError> {
    for (_, tokenizer) in PATTERNS {
        let ours = Measure::exact(tokenizer).text(text);
        let theirs = reference(tokenizer).count(text) as u64;
        prop_assert_eq!(ours, theirs, "{} counts {:?}", tokenizer.name(), text);
    }
    Ok(())
}

fn fixtures() -> &'static Vec<String> {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/text");
        let mut texts: Vec<String> = std::fs::read_dir(dir)
            .expect("tests/fixtures/text")
            .map(|entry| std::fs::read_to_string(entry.expect("an entry").path()).expect("text"))
            .collect();
        texts.sort();
        assert!(texts.len() >= 10, "the vendored texts are missing");
        texts
    })
}

#[test]
fn the_vendored_texts_split_and_count_the_same() {
    for text in fixtures() {
        same_split(text).unwrap();
        same_count(text).unwrap();
        // And with Windows line ends, tabs for indents, and upper-cased.
        same_split(&text.replace('\n', "\r\n")).unwrap();
        same_split(&text.replace("    ", "\t")).unwrap();
        same_split(&text.to_uppercase()).unwrap();
    }
}

/// Every character, in contexts that try each alternative around it.
#[test]
fn every_character_splits_the_same() {
    let chars: Vec<char> = (0..=char::MAX as u32).filter_map(char::from_u32).collect();
    for window in chars.chunks(64) {
        for c in window {
            let text = format!("a{c}b {c}Ab'{c}x{c}{c}1{c}\n{c}  {c}");
            same_split(&text).unwrap();
        }
        // Neighbours together: runs of one block.
        same_split(&window.iter().collect::<String>()).unwrap();
    }
}

/// Characters of every general category: up to 48 of each, spread over its range.
fn by_category() -> &'static Vec<char> {
    static CHARS: OnceLock<Vec<char>> = OnceLock::new();
    CHARS.get_or_init(|| {
        let mut groups: Vec<(unicode_general_category::GeneralCategory, Vec<char>)> = Vec::new();
        for c in (0..=char::MAX as u32).filter_map(char::from_u32) {
            let gc = get_general_category(c);
            match groups.iter_mut().find(|(g, _)| *g == gc) {
                Some((_, v)) => v.push(c),
                None => groups.push((gc, vec![c])),
            }
        }
        assert!(groups.len() >= 29, "{} categories", groups.len());
        groups
            .into_iter()
            .flat_map(|(_, v)| {
                let step = (v.len() / 48).max(1);
                v.into_iter().step_by(step).collect::<Vec<_>>()
            })
            .collect()
    })
}

const FRAGMENTS: &[&str] = &[
    "'s",
    "'S",
    "'t",
    "'T",
    "'re",
    "'RE",
    "'Re",
    "'rE",
    "'ve",
    "'VE",
    "'m",
    "'M",
    "'ll",
    "'LL",
    "'lL",
    "'d",
    "'D",
    "'ſ",
    "'",
    "''",
    "don't",
    "DON'T",
    "We'Re",
    "camelCase",
    "HTTPServer",
    "iPhone",
    "ǅemal",
    "ǄEMAL",
    "ǆemal",
    "ʰello",
    "Aʰb",
    "x\u{301}",
    "E\u{301}COLE",
    "e\u{301}\u{302}",
    "\u{301}",
    "\u{20dd}",
    "\u{903}",
    "👨\u{200d}👩\u{200d}👧",
    "🏳\u{fe0f}\u{200d}🌈",
    "👍🏽",
    "✌\u{fe0f}",
    "🇫🇷",
    "1\u{fe0f}\u{20e3}",
    "12345",
    "١٢٣٤",
    "１２３",
    "Ⅻ",
    "½",
    "²³",
    "0x1F",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\n\n",
    " \n ",
    "\u{a0}",
    "\u{3000}",
    "\u{2028}",
    "\u{85}",
    "\u{200b}",
    "\u{feff}",
    "\u{b}",
    "\u{c}",
    "\u{1c}",
    "//",
    "/",
    " /",
    "\n/",
    "});",
    "...",
    " ...",
    "#",
    "日本語",
    "Привет",
    "ПРИВЕТ",
    "مرحبا",
    "ﷺ",
    "ᾈ",
    "ﬀ",
    "ß",
    "ẞ",
];

fn atom() -> impl Strategy<Value = String> {
    let chars = by_category();
    prop_oneof![
        3 => prop::sample::select(chars.as_slice()).prop_map(String::from),
        3 => prop::sample::select(FRAGMENTS).prop_map(String::from),
        1 => (prop::sample::select(chars.as_slice()), 2..6usize)
            .prop_map(|(c, n)| std::iter::repeat_n(c, n).collect()),
        1 => "[a-zA-Z]{1,8}",
        1 => "[0-9]{1,7}",
        1 => "[ \t\r\n]{1,5}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn generated_text_splits_and_counts_the_same(atoms in prop::collection::vec(atom(), 0..24)) {
        let text = atoms.concat();
        same_split(&text)?;
        same_count(&text)?;
    }

    #[test]
    fn windows_of_the_vendored_texts_split_the_same(
        file in any::<prop::sample::Index>(),
        start in any::<prop::sample::Index>(),
        len in 0..400usize,
    ) {
        let text = &fixtures()[file.index(fixtures().len())];
        let mut a = start.index(text.len());
        while !text.is_char_boundary(a) {
            a -= 1;
        }
        let mut b = (a + len).min(text.len());
        while !text.is_char_boundary(b) {
            b -= 1;
        }
        same_split(&text[a..b])?;
        same_count(&text[a..b])?;
    }
}

/// Long pieces (a run of one letter, of symbols, of CJK, of spaces) count as the reference
/// counts them, in time linear or `n log n` in their length.
#[test]
fn long_pieces_count_the_same() {
    for text in [
        "a".repeat(200_000),
        "=-".repeat(100_000),
        "日本".repeat(50_000),
        " ".repeat(100_000) + "x",
        "Ab".repeat(100_000),
        "1".repeat(100_000),
    ] {
        same_count(&text).unwrap();
    }
}

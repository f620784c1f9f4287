//! Long pieces against tiktoken itself (the `tiktoken-rs` crate: tiktoken's regex and its merge
//! loop): runs without a break of one letter, of CJK, of mixed letters of several scripts, of
//! symbols, of punctuation characters repeated, and pieces of random bytes, at every length up
//! to past the point where the heap merge hands over to the backtracking encoder
//! ([`super::vocab`]'s `LONG`), at lengths spread up to 5,000 bytes, and at 100,000. tiktoken's
//! merge is quadratic in a piece: the longest lengths are few.

use super::count::{merges, vocab};
use super::split::Pattern;
use super::{Measure, Tokenizer};
use std::any::Any;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::OnceLock;

const TOKENIZERS: [Tokenizer; 2] = [Tokenizer::O200kBase, Tokenizer::Cl100kBase];

fn tiktoken(tokenizer: Tokenizer) -> &'static tiktoken_rs::CoreBPE {
    match tokenizer {
        Tokenizer::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Tokenizer::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        _ => unreachable!("only the tiktoken vocabularies"),
    }
}

fn pattern(tokenizer: Tokenizer) -> Pattern {
    tokenizer.pattern().expect("a built-in tokenizer")
}

/// tiktoken's ranks by bytes, as its merge loop takes them (from the built-in vocabulary, which
/// `vocab.rs`'s tests hold to the published files), in the map type it takes (its hasher
/// inferred from the call: the crate does not name it).
fn ranks<S>(pattern: Pattern) -> &'static HashMap<Vec<u8>, tiktoken_rs::Rank, S>
where
    S: BuildHasher + Default + Send + Sync + 'static,
{
    static O200K: OnceLock<Box<dyn Any + Send + Sync>> = OnceLock::new();
    static CL100K: OnceLock<Box<dyn Any + Send + Sync>> = OnceLock::new();
    let cell = match pattern {
        Pattern::O200k => &O200K,
        Pattern::Cl100k => &CL100K,
    };
    let map = cell.get_or_init(|| {
        let v = vocab(pattern);
        let map: HashMap<Vec<u8>, u32, S> = (0..v.len() as u32)
            .map(|t| (v.token(t).to_vec(), t))
            .collect();
        Box::new(map)
    });
    map.downcast_ref().expect("one hasher for every call")
}

/// A fixed sequence of pseudo-random numbers (xorshift).
fn numbers(seed: u64) -> impl Iterator<Item = u64> {
    std::iter::successors(Some(seed | 1), |&s| {
        let s = s ^ s << 13;
        let s = s ^ s >> 7;
        Some(s ^ s << 17)
    })
}

/// `len` characters drawn from `chars`.
fn text_of(chars: &[char], len: usize, seed: u64) -> String {
    numbers(seed)
        .take(len)
        .map(|r| chars[(r % chars.len() as u64) as usize])
        .collect()
}

/// The texts without a break in the pre-tokenizer's sense: one piece each (or a few).
fn long_texts(len: usize) -> Vec<(&'static str, String)> {
    let cjk: Vec<char> = ('\u{4e00}'..='\u{9fa5}').step_by(7).collect();
    let common: Vec<char> = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴".chars().collect();
    let letters: Vec<char> = ('a'..='z')
        .chain('α'..='ω')
        .chain('а'..='я')
        .chain("éèàçñüößøå".chars())
        .collect();
    let symbols: Vec<char> = "=-*#~_.:;|+<>^!?%&@$".chars().collect();
    let arabic: Vec<char> = ('\u{0627}'..='\u{064a}').collect();
    vec![
        ("a run", "a".repeat(len)),
        ("CJK", text_of(&common, len / 3, len as u64)),
        ("rare CJK", text_of(&cjk, len / 3, len as u64 + 1)),
        ("mixed letters", text_of(&letters, len / 2, len as u64 + 2)),
        ("symbols", text_of(&symbols, len, len as u64 + 3)),
        ("Arabic", text_of(&arabic, len / 2, len as u64 + 4)),
        ("ab run", "ab".repeat(len / 2)),
    ]
}

/// Runs of punctuation without a break: of one character (whose tokens of many repeats, up to
/// 112 `-` in o200k_base, make the encoder go back often), of two or three alternating, and of
/// a few drawn at random.
fn punctuation_runs(len: usize) -> Vec<(String, String)> {
    let mut runs: Vec<(String, String)> =
        ["-", "=", "*", ".", "_", "#", "~", "-=", "=-=", "*-", "._"]
            .iter()
            .map(|unit| {
                (
                    format!("a run of {unit}"),
                    unit.repeat(len.div_ceil(unit.len()))[..len].to_string(),
                )
            })
            .collect();
    let few: Vec<char> = "-=_*".chars().collect();
    runs.push(("-=_* at random".into(), text_of(&few, len, len as u64 + 5)));
    runs
}

fn check_text(what: &str, text: &str) {
    for tokenizer in TOKENIZERS {
        let ours = Measure::exact(tokenizer).text(text);
        let theirs = tiktoken(tokenizer).encode_ordinary(text).len() as u64;
        assert_eq!(
            ours,
            theirs,
            "{} counts {what} of {} bytes {} where tiktoken counts {theirs}",
            tokenizer.name(),
            text.len(),
            ours,
        );
    }
}

fn check_bytes(piece: &[u8]) {
    for tokenizer in TOKENIZERS {
        let pattern = pattern(tokenizer);
        let theirs = tiktoken_rs::byte_pair_split(piece, ranks(pattern)).len();
        let v = vocab(pattern);
        assert_eq!(
            v.count(piece),
            theirs,
            "{} counts {} random bytes",
            tokenizer.name(),
            piece.len()
        );
        assert_eq!(merges(pattern).count(v, piece), theirs, "backtracking");
    }
}

/// Every length up to 1,200 bytes (the heap merge hands over at 1,024), then spread to 5,000.
fn lengths() -> impl Iterator<Item = usize> {
    (1..=1200).chain((1201..=5000).step_by(97))
}

#[test]
fn long_runs_count_as_tiktoken_counts() {
    for len in lengths() {
        for (what, text) in long_texts(len) {
            check_text(what, &text);
        }
    }
}

#[test]
fn runs_of_100_000_bytes_count_as_tiktoken_counts() {
    for (what, text) in long_texts(100_000) {
        check_text(what, &text);
    }
}

#[test]
fn punctuation_runs_count_as_tiktoken_counts() {
    for len in (1..=1200).chain((1201..=5000).step_by(97)).chain([100_000]) {
        for (what, text) in punctuation_runs(len) {
            check_text(&what, &text);
        }
    }
}

#[test]
fn random_bytes_count_as_tiktoken_counts() {
    let mut seeds = numbers(0x9e37_79b9_7f4a_7c15);
    for len in (2..=1200).chain((1201..=5000).step_by(97)).chain([20_000]) {
        let bytes: Vec<u8> = seeds.by_ref().take(len).map(|r| r as u8).collect();
        check_bytes(&bytes);
    }
}

/// The backtracking encoder on every length from 2 bytes, where the heap and the quadratic
/// loop would otherwise take them, against those (themselves held to `bpe-openai`).
#[test]
fn backtracking_counts_short_pieces_as_the_merge_loops() {
    for tokenizer in TOKENIZERS {
        let v = vocab(pattern(tokenizer));
        let merges = merges(pattern(tokenizer));
        for len in 2..=300 {
            let punctuation = punctuation_runs(len).into_iter();
            let texts = long_texts(len)
                .into_iter()
                .map(|(what, text)| (what.into(), text));
            for (what, text) in texts.chain(punctuation) {
                let piece = text.as_bytes();
                assert_eq!(
                    merges.count(v, piece),
                    v.count(piece),
                    "{} {what} of {len} bytes",
                    tokenizer.name()
                );
            }
        }
        for t in 0..v.len() as u32 {
            assert_eq!(merges.count(v, v.token(t)), 1, "token {t}");
        }
    }
}

/// Keeping few tokens gives the count of keeping all, or says it went back past them (with one
/// or two kept it does, on 11 and 1 of 35 runs of o200k_base, 6 and 0 of cl100k_base's: the
/// encoder has gone back no more than three tokens); `count` then counts keeping all.
#[test]
fn keeping_few_tokens_counts_the_same() {
    for tokenizer in TOKENIZERS {
        let v = vocab(pattern(tokenizer));
        for len in [10, 100, 1000, 3000] {
            for (what, text) in long_texts(len) {
                let piece = text.as_bytes();
                let all = merges(pattern(tokenizer)).count_keeping(v, piece, usize::MAX);
                assert_eq!(all, Some(v.count(piece)), "{what}");
                for keep in [1, 2, 4] {
                    let few = merges(pattern(tokenizer)).count_keeping(v, piece, keep);
                    assert!(few.is_none() || few == all, "{what}: {few:?} for {all:?}");
                }
            }
        }
    }
}

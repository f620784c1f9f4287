//! Gemma 3's tokenizer, which Google's SDK counts Gemini 2.0, 2.5 and 3 text with (python-genai,
//! `local_tokenizer.py`): a byte-fallback BPE of 262,144 tokens and 514,906 merges, built into
//! the library (`data/gemma3.bin.deflate`, written by `scripts/gemma3_tokenizer.py` from Hugging
//! Face's `tokenizer.json`; `data/SOURCES.md`) and read on first use.
//!
//! A count is what Hugging Face's `tokenizers` counts encoding the text without special tokens
//! (no `<bos>`), in the same steps:
//! 1. the added tokens (`\n`…, `\t`…, `<start_of_turn>`, `<table>`, `<unused0>`, …, 6,415 of
//!    them) are found in the raw text, leftmost and longest first, and count one each;
//! 2. between them, a space is `▁` (U+2581), and each stretch is one BPE word: each character
//!    its token, or its UTF-8 bytes' `<0xXX>` tokens when it has none, then the adjacent pair
//!    of lowest merge rank (the leftmost of equals) merged until none is left.
//!
//! A stretch is one word however long, so it is cut where no merge can reach across: between two
//! characters that no token holds side by side (of 33,874 such pairs in the vocabulary, a
//! letter before `▁` is none: words start at their space). A token made by merges is the text
//! it covers, so none covers such a cut, and the parts encode alone as they would together.
//! A part of up to 1 KB is encoded with the characters' tokens in one array and a heap of
//! candidate pairs (up to 16 bytes a character). What cannot be cut is longer: a run of one
//! letter, of `▁` (spaces) or of `-`, letters that the vocabulary holds side by side in every
//! pair (`a` to `p` at random), periodic runs; a part over 1 KB is counted by the backtracking
//! encoder of `gemma/long.rs`, in linear time and a bit a byte besides the newest tokens and its
//! tables (5 MB, built on the first such part): 5 MB of `a` in one message takes a process to
//! 53 MB (48 MB of it the tables read for any count) where the heap took it to 112 MB, and 50 MB
//! to 96 MB where it took 842 MB (`python3 scripts/long_runs.py --model gemini-2.5-flash a:5
//! a:50`). Both count exactly what the merge loop of step 2 makes.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

mod long;

const DATA: &[u8] = include_bytes!("data/gemma3.bin.deflate");
const MAGIC: &[u8] = b"ankita-gemma3\x01";

/// A multiply-rotate hash of integer keys (chars, pairs of ids): the tables are built once from
/// trusted data, and SipHash would double the time of a count.
#[derive(Default, Clone, Copy)]
struct Mix(u64);

impl Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.write_u64(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let mut last = [0u8; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.write_u64(u64::from_le_bytes(last) ^ (bytes.len() as u64) << 56);
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type Fast = BuildHasherDefault<Mix>;

/// The words a thread remembers the counts of (at most, cleared when full), and the longest.
const MEMO_WORDS: usize = 1 << 16;
const MEMO_BYTES: usize = 48;

/// No symbol (the end of a list), and a symbol merged into the one before it.
const NONE: u32 = u32::MAX;

/// The tables the encoder reads.
pub(crate) struct Gemma {
    /// The token of each character that has one (a space is `▁`'s).
    chars: HashMap<u32, u32, Fast>,
    /// `<0xXX>` of each byte.
    bytes: [u32; 256],
    /// (left << 32 | right) → (rank << 32 | merged).
    merges: HashMap<u64, u64, Fast>,
    /// Pairs of characters (first << 32 | second) side by side in some token.
    pairs: HashSet<u64, Fast>,
    /// The added tokens' texts, sorted, for the leftmost-longest search.
    added: Vec<&'static [u8]>,
    /// Whether some added token starts with this byte.
    added_first: [bool; 256],
    /// The data the tables were read from, where the vocabulary starts in it, and its tokens.
    data: &'static [u8],
    vocab_at: usize,
    n_vocab: u32,
    /// What the encoder of long stretches knows beyond the merges, built on the first one.
    long: OnceLock<long::Long>,
    /// The token texts in id order (tests read them).
    #[cfg(test)]
    pub(crate) vocab: Vec<&'static [u8]>,
}

/// The tables, read from the built-in data on first use.
pub(crate) fn gemma3() -> &'static Gemma {
    static TABLES: OnceLock<Gemma> = OnceLock::new();
    TABLES.get_or_init(|| Gemma::read(DATA).expect("the built-in Gemma 3 tokenizer reads"))
}

/// Reads the data file's parts in order.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let part = self.data.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(part)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }
    fn varint(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            n |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Some(n);
            }
        }
        None
    }
}

impl Gemma {
    /// The tables from the data file (its layout is in `scripts/gemma3_tokenizer.py`); `None`
    /// when it is not one.
    fn read(deflated: &[u8]) -> Option<Gemma> {
        let data: &'static [u8] = Box::leak(
            miniz_oxide::inflate::decompress_to_vec(deflated)
                .ok()?
                .into_boxed_slice(),
        );
        let mut r = Reader { data, at: 0 };
        if r.take(MAGIC.len())? != MAGIC {
            return None;
        }
        let (n_vocab, n_merges, n_added) = (r.u32()?, r.u32()?, r.u32()?);
        let vocab_at = r.at;
        let mut vocab: Vec<&'static [u8]> = Vec::with_capacity(n_vocab as usize);
        let mut ids: HashMap<&'static [u8], u32, Fast> =
            HashMap::with_capacity_and_hasher(n_vocab as usize, Fast::default());
        let mut chars = HashMap::with_capacity_and_hasher(n_vocab as usize / 2, Fast::default());
        let mut pairs = HashSet::with_capacity_and_hasher(1 << 16, Fast::default());
        for id in 0..n_vocab {
            let len = r.u8()? as usize;
            let token = r.take(len)?;
            vocab.push(token);
            ids.insert(token, id);
            let text = std::str::from_utf8(token).ok()?;
            let mut it = text.chars().map(u32::from);
            let first = it.next();
            let mut last = first;
            for c in it {
                pairs.insert((last? as u64) << 32 | c as u64);
                last = Some(c);
            }
            if let (Some(c), 1) = (first, text.chars().count()) {
                chars.insert(c, id);
            }
        }
        let mut bytes = [0u32; 256];
        for (b, slot) in bytes.iter_mut().enumerate() {
            *slot = *ids.get(format!("<0x{b:02X}>").as_bytes())?;
        }
        chars.insert(u32::from(' '), *ids.get("▁".as_bytes())?);
        let mut merges = HashMap::with_capacity_and_hasher(n_merges as usize, Fast::default());
        let mut merged: i64 = 0;
        for rank in 0..n_merges {
            let zigzag = r.varint()?;
            let delta = (zigzag >> 1) as i64 ^ -((zigzag & 1) as i64);
            merged += delta;
            let split = r.u8()? as usize;
            let token = *vocab.get(usize::try_from(merged).ok()?)?;
            let (left, right) = (token.get(..split)?, token.get(split..)?);
            let key = (*ids.get(left)? as u64) << 32 | *ids.get(right)? as u64;
            // A pair listed twice takes its last rank, as Hugging Face's map of merges does.
            merges.insert(key, (rank as u64) << 32 | merged as u64);
        }
        let mut added = Vec::with_capacity(n_added as usize);
        let mut added_first = [false; 256];
        for _ in 0..n_added {
            let _id = r.u32()?;
            let len = r.u8()? as usize;
            let text = r.take(len)?;
            added_first[*text.first()? as usize] = true;
            added.push(text);
        }
        added.sort_unstable();
        (r.at == data.len()).then_some(Gemma {
            chars,
            bytes,
            merges,
            pairs,
            added,
            added_first,
            data,
            vocab_at,
            n_vocab,
            long: OnceLock::new(),
            #[cfg(test)]
            vocab,
        })
    }

    /// The tokens of `text` (no `<bos>`).
    pub(crate) fn count(&self, text: &str) -> usize {
        self.count_till_limit(text, usize::MAX)
            .unwrap_or(usize::MAX)
    }

    /// The tokens of `text` when at most `limit`; `None` otherwise, found without encoding far
    /// past the limit.
    pub(crate) fn count_till_limit(&self, text: &str, limit: usize) -> Option<usize> {
        let bytes = text.as_bytes();
        let mut work = Work::default();
        let mut count = 0usize;
        let mut start = 0;
        let mut at = 0;
        while at < bytes.len() {
            let found = if self.added_first[bytes[at] as usize] {
                self.added_at(&bytes[at..])
            } else {
                0
            };
            if found == 0 {
                at += 1;
                continue;
            }
            count += self.count_words(&text[start..at], limit.saturating_sub(count), &mut work)?;
            count += 1;
            if count > limit {
                return None;
            }
            at += found;
            start = at;
        }
        count += self.count_words(&text[start..], limit.saturating_sub(count), &mut work)?;
        (count <= limit).then_some(count)
    }

    /// The length of the longest added token at the start of `text`, or 0.
    fn added_at(&self, text: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, self.added.len());
        let mut longest = 0;
        for (k, &b) in text.iter().enumerate() {
            // [lo, hi) holds the added tokens that start with text[..k]; those of length k
            // come first.
            lo += self.added[lo..hi].partition_point(|t| t.len() <= k || t[k] < b);
            hi = lo + self.added[lo..hi].partition_point(|t| t[k] <= b);
            if lo == hi {
                break;
            }
            if self.added[lo].len() == k + 1 {
                longest = k + 1;
            }
        }
        longest
    }

    /// The tokens of a stretch between added tokens, cut where no token reaches across.
    fn count_words(&self, text: &str, limit: usize, work: &mut Work) -> Option<usize> {
        let mut count = 0;
        let mut start = 0;
        let mut last = None;
        for (at, c) in text.char_indices() {
            let c = if c == ' ' { '▁' } else { c } as u64;
            if let Some(last) = last {
                if !self.pairs.contains(&(last << 32 | c)) {
                    count += self.encode(&text[start..at], work);
                    if count > limit {
                        return None;
                    }
                    start = at;
                }
            }
            last = Some(c);
        }
        count += self.encode(&text[start..], work);
        (count <= limit).then_some(count)
    }

    /// The merge of `left` and `right`: (rank << 32 | merged), or `None`.
    fn merge(&self, left: u32, right: u32) -> Option<u64> {
        self.merges
            .get(&((left as u64) << 32 | right as u64))
            .copied()
    }

    /// The tokens of one BPE word, from this thread's memory of short words when it holds it.
    fn encode(&self, word: &str, work: &mut Work) -> usize {
        thread_local! {
            static WORDS: RefCell<HashMap<Box<str>, u32>> = RefCell::new(HashMap::new());
        }
        let mut chars = word.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return match self.chars.get(&u32::from(c)) {
                Some(_) => 1,
                None => c.len_utf8(),
            };
        }
        if word.len() > MEMO_BYTES {
            return self.encode_word(word, work);
        }
        WORDS.with_borrow_mut(|words| {
            if let Some(&count) = words.get(word) {
                return count as usize;
            }
            let count = self.encode_word(word, work);
            if words.len() >= MEMO_WORDS {
                words.clear();
            }
            words.insert(word.into(), count as u32);
            count
        })
    }

    /// The tokens of one BPE word, encoded: by the heap merge, or over [`long::LONG_BYTES`] by
    /// the backtracking encoder.
    fn encode_word(&self, word: &str, work: &mut Work) -> usize {
        if word.len() > long::LONG_BYTES {
            self.encode_long(word, work)
        } else {
            self.merge_word(word, work)
        }
    }

    /// The tokens of a long word by the backtracking encoder, between the characters that have
    /// no token of their own (each byte of such a character is a token, and no merge takes one).
    fn encode_long(&self, word: &str, work: &mut Work) -> usize {
        let long = self.long.get_or_init(|| long::Long::new(self));
        let mut count = 0;
        let mut part = |text: &str| match text.len() {
            0 => 0,
            1..=long::LONG_BYTES => self.merge_word(text, work),
            _ => long
                .count(self, text)
                .unwrap_or_else(|| self.merge_word(text, work)),
        };
        let mut start = 0;
        for (at, c) in word.char_indices() {
            if !self.chars.contains_key(&u32::from(c)) {
                count += part(&word[start..at]) + c.len_utf8();
                start = at + c.len_utf8();
            }
        }
        count + part(&word[start..])
    }

    /// The tokens of one BPE word, merged with the characters' tokens in one array.
    fn merge_word(&self, word: &str, work: &mut Work) -> usize {
        let ids = &mut work.ids;
        ids.clear();
        ids.reserve_exact(word.len());
        for c in word.chars() {
            match self.chars.get(&u32::from(c)) {
                Some(&id) => ids.push(id),
                None => {
                    let mut buf = [0u8; 4];
                    for &b in c.encode_utf8(&mut buf).as_bytes() {
                        ids.push(self.bytes[b as usize]);
                    }
                }
            }
        }
        if ids.len() <= 32 {
            self.merge_short(ids)
        } else {
            self.merge_long(work)
        }
    }

    /// Merges a few symbols in place: the lowest-ranked pair, leftmost of equals, each round.
    fn merge_short(&self, ids: &mut Vec<u32>) -> usize {
        loop {
            let mut best: Option<(u64, usize)> = None;
            for i in 0..ids.len().saturating_sub(1) {
                if let Some(m) = self.merge(ids[i], ids[i + 1]) {
                    if best.is_none_or(|(b, _)| m >> 32 < b >> 32) {
                        best = Some((m, i));
                    }
                }
            }
            let Some((m, i)) = best else {
                return ids.len();
            };
            ids[i] = m as u32;
            ids.remove(i + 1);
        }
    }

    /// Merges many symbols: a list over the characters and a heap of (rank, position) of
    /// candidate pairs, stale entries skipped as Hugging Face's `Word::merge_all` does. A
    /// symbol's slot in `next` holds where the next one starts; a merged-away character's
    /// holds a character left of it in the same symbol, followed (and shortened) to find the
    /// symbol before a position: 4 bytes a character less than a list both ways.
    fn merge_long(&self, work: &mut Work) -> usize {
        let Work { ids, next, heap } = work;
        let n = ids.len();
        next.clear();
        next.reserve_exact(n);
        next.extend((1..=n as u32).map(|i| if i as usize == n { NONE } else { i }));
        // Heapified at once from a vector of the right size: pushed one by one, a heap of
        // millions would double its capacity past them.
        let mut pairs = std::mem::take(heap).into_vec();
        pairs.clear();
        pairs.reserve_exact(n - 1);
        for i in 0..n - 1 {
            if let Some(m) = self.merge(ids[i], ids[i + 1]) {
                pairs.push(Reverse((m >> 32) << 32 | i as u64));
            }
        }
        *heap = BinaryHeap::from(pairs);
        let mut count = n;
        while let Some(Reverse(top)) = heap.pop() {
            let (rank, at) = (top >> 32, (top & 0xffff_ffff) as usize);
            let right = next[at];
            if ids[at] == NONE || right == NONE {
                continue;
            }
            let Some(m) = self.merge(ids[at], ids[right as usize]) else {
                continue;
            };
            if m >> 32 != rank {
                continue;
            }
            ids[at] = m as u32;
            ids[right as usize] = NONE;
            let after = next[right as usize];
            next[at] = after;
            next[right as usize] = at as u32;
            count -= 1;
            if at > 0 {
                let before = symbol_at(ids, next, at - 1);
                if let Some(m) = self.merge(ids[before], ids[at]) {
                    heap.push(Reverse((m >> 32) << 32 | before as u64));
                }
            }
            if after != NONE {
                if let Some(m) = self.merge(ids[at], ids[after as usize]) {
                    heap.push(Reverse((m >> 32) << 32 | at as u64));
                }
            }
        }
        count
    }
}

/// Where the symbol holding character `at` starts: `at` when it starts one, else followed
/// leftwards through the merged-away characters, each then pointed at the start directly.
fn symbol_at(ids: &[u32], next: &mut [u32], at: usize) -> usize {
    let mut start = at;
    while ids[start] == NONE {
        start = next[start] as usize;
    }
    let mut at = at;
    while ids[at] == NONE {
        let up = next[at] as usize;
        next[at] = start as u32;
        at = up;
    }
    start
}

/// Buffers one count reuses from word to word.
#[derive(Default)]
struct Work {
    ids: Vec<u32>,
    next: Vec<u32>,
    heap: BinaryHeap<Reverse<u64>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[ignore = "a timing, run by hand"]
    fn load_time() {
        // `cargo test --release --lib gemma::tests::load_time -- --ignored --nocapture`
        let t = std::time::Instant::now();
        Gemma::read(DATA).unwrap();
        eprintln!("the tables read in {:?}", t.elapsed());
    }

    #[test]
    fn reads_the_built_in_tables() {
        let g = gemma3();
        assert_eq!(g.vocab.len(), 262_144);
        assert_eq!(g.added.len(), 6_415);
        assert!(g.merges.len() <= 514_906 && g.merges.len() > 500_000);
        assert_eq!(g.vocab[g.bytes[0x41] as usize], b"<0x41>");
    }

    #[test]
    fn added_tokens_are_found_longest_first() {
        let g = gemma3();
        assert_eq!(g.added_at(b"<start_of_turn>user"), "<start_of_turn>".len());
        assert_eq!(g.added_at(b"<start_of_tur"), 0);
        assert_eq!(g.added_at(&[b'\n'; 40]), 31);
        assert_eq!(g.added_at(b"\n\nx"), 2);
        assert_eq!(g.added_at(b"x\n"), 0);
        // 31 newlines, 31 more, then 8: three tokens.
        assert_eq!(g.count(&"\n".repeat(70)), 3);
    }

    #[test]
    fn the_short_and_long_merges_agree() {
        // The same words through both merge loops.
        let g = gemma3();
        let mut work = Work::default();
        for word in [
            "▁internationalization",
            "▁Donaudampfschifffahrtsgesellschaftskapitän",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁",
            "日本語のテキストを数える日本語のテキストを数える",
        ] {
            let mut ids: Vec<u32> = word.chars().map(|c| g.chars[&u32::from(c)]).collect();
            let short = g.merge_short(&mut ids.clone());
            work.ids.clear();
            work.ids.append(&mut ids);
            if work.ids.len() >= 2 {
                assert_eq!(g.merge_long(&mut work), short, "{word}");
            }
        }
    }
}

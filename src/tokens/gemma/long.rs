//! A long stretch of Gemma 3 text (over [`LONG_BYTES`]) counted in linear time and little
//! memory: the backtracking encoder of `backtrack.rs` (rust-gems' `bpe` crate) over Gemma's
//! merges, which are ranked by pair rather than by the token they make.
//!
//! Its ground holds for any byte-pair encoding that merges the pair of lowest rank, the leftmost
//! of equals, as Hugging Face's does: a sequence of tokens is the encoding of its text exactly
//! when each token is the encoding of its own text and each pair of neighbours the encoding of
//! the pair's text. (Before the first merge across two tokens of such a sequence, each token's
//! text merges as it would alone, and the two neighbours' merges interleave as they do when the
//! pair is encoded alone, which would then take that merge first.) So the encoding of a prefix
//! that ends where a token of the whole encoding ends is the whole's up to there: a position
//! from which no sequence goes on is never tried again, and the encoder is linear.
//!
//! A pair is told valid by encoding its text (at most 62 characters) with the merges, given up
//! as soon as a merge reaches across the two tokens; the pairs told lately are remembered, as a
//! run meets the same few again and again. Since no ranks are the tokens' ids, the encoder does
//! not undo merges as `bpe` does.
//!
//! Memory: a bit per byte of the stretch, the newest tokens (at most 2 × [`KEEP`], 8 bytes
//! each), up to 256 KB of remembered pairs, and tables built on the first long stretch (tens of
//! milliseconds): each token's place in the data, length and longest prefix token, a table of
//! tokens by their text and a bit for each hash of a token's prefix (5.3 MB together).
//!
//! Time: at each place the tokens tried are the longest there and its prefix tokens (at most 31),
//! each place is left for good at most once, and telling a pair merges at most 62 characters, so
//! the count is linear. A run of one character or a short period meets a few pairs, remembered
//! (5 MB of `a`, of spaces or of `-` in about 0.1 s); pseudo-random letters meet a new pair at
//! most places, and each is merged (5 MB of the letters `a` to `p` in about 3.2 s, where the
//! heap merge took 3.8–4.4 s and 60 MB more; `python3 scripts/long_runs.py --model
//! gemini-2.5-flash letters:5`, less the 0.5 s any count takes).

use super::super::backtrack::PairCache;
use super::{Gemma, NONE};

/// A stretch of more bytes is counted here; shorter ones by the heap merge.
pub(super) const LONG_BYTES: usize = 1024;

/// The tokens the encoder keeps at least (and at most twice as many); when it goes back past
/// them, the stretch is counted again keeping all.
const KEEP: usize = 1 << 15;

/// log2 of the slots of the table of tokens by text: twice the vocabulary.
const SLOTS_LOG: u32 = 19;

/// log2 of the bits of the table of prefixes.
const PREFIXES_LOG: u32 = 23;

/// The most characters a token has (`▁` × 31; the data's lengths are bytes, at most 255).
const MAX_CHARS: usize = 64;

/// What the encoder knows of the vocabulary beyond the merges.
pub(super) struct Long {
    /// Where each token's text starts in the tables' data; its length in bytes is the byte
    /// before.
    at: Vec<u32>,
    /// Each token's length in characters; 0 for a token left out of the table: one with a
    /// character that has no token of its own, which no merge makes.
    chars: Vec<u8>,
    /// The longest token that is a proper prefix of each token; `NONE` for one character.
    next_prefix: Vec<u32>,
    /// Token ids by the hash of their characters ([`hash`]), open addressing; `NONE` is empty.
    slots: Vec<u32>,
    /// A bit for the hash of each proper prefix of two characters or more of a token (1 MB):
    /// the longest token at a place is looked for no further than its characters stay such a
    /// prefix (or seem to: about one time in eight).
    prefixes: Vec<u64>,
}

/// One step of the hash of a token's characters, from 0.
#[inline]
fn hash(h: u64, c: u32) -> u64 {
    (h.rotate_left(5) ^ u64::from(c)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

/// A character of the stretch as the tokens spell it: a space is `▁`.
#[inline]
fn spelled(c: char) -> u32 {
    if c == ' ' {
        u32::from('▁')
    } else {
        u32::from(c)
    }
}

/// The bytes of the first `k` characters of `text`.
#[inline]
fn bytes_of(text: &str, k: usize) -> usize {
    text.char_indices().nth(k).map_or(text.len(), |(at, _)| at)
}

impl Long {
    /// The tables, from the vocabulary in the data (tens of milliseconds).
    pub(super) fn new(g: &Gemma) -> Long {
        let n = g.n_vocab as usize;
        let mut long = Long {
            at: Vec::with_capacity(n),
            chars: Vec::with_capacity(n),
            next_prefix: vec![NONE; n],
            slots: vec![NONE; 1 << SLOTS_LOG],
            prefixes: vec![0; 1 << (PREFIXES_LOG - 6)],
        };
        let mut at = g.vocab_at;
        for id in 0..n as u32 {
            let len = g.data[at] as usize;
            at += 1;
            long.at.push(at as u32);
            let text = std::str::from_utf8(&g.data[at..at + len]).expect("read as UTF-8");
            at += len;
            let k = text.chars().count();
            let kept = k <= MAX_CHARS
                && text
                    .chars()
                    .all(|c| c != ' ' && g.chars.contains_key(&u32::from(c)));
            long.chars.push(if kept { k as u8 } else { 0 });
            if !kept {
                continue;
            }
            let h = text.chars().fold(0, |h, c| hash(h, u32::from(c)));
            let mut slot = (h >> (64 - SLOTS_LOG)) as usize;
            while long.slots[slot] != NONE {
                slot = (slot + 1) & ((1 << SLOTS_LOG) - 1);
            }
            long.slots[slot] = id;
            let mut h = 0;
            for (i, c) in text.chars().enumerate().take(k - 1) {
                h = hash(h, u32::from(c));
                if i > 0 {
                    let bit = (h >> (64 - PREFIXES_LOG)) as usize;
                    long.prefixes[bit / 64] |= 1 << (bit % 64);
                }
            }
        }
        for id in 0..n as u32 {
            let k = long.chars[id as usize] as usize;
            if k < 2 {
                continue;
            }
            let text = long.text(g, id);
            let mut h = [0u64; MAX_CHARS + 1];
            for (i, c) in text.chars().enumerate() {
                h[i + 1] = hash(h[i], u32::from(c));
            }
            long.next_prefix[id as usize] = (1..k)
                .rev()
                .find_map(|j| long.find(g, h[j], j, text))
                .expect("each character kept has a token");
        }
        long
    }

    /// The text of a token.
    fn text<'g>(&self, g: &'g Gemma, id: u32) -> &'g str {
        let at = self.at[id as usize] as usize;
        let len = g.data[at - 1] as usize;
        std::str::from_utf8(&g.data[at..at + len]).expect("read as UTF-8")
    }

    /// The token spelled as the first `k` characters of `text` (their hash `h`), if one is.
    fn find(&self, g: &Gemma, h: u64, k: usize, text: &str) -> Option<u32> {
        let mut slot = (h >> (64 - SLOTS_LOG)) as usize;
        loop {
            let id = self.slots[slot];
            if id == NONE {
                return None;
            }
            if self.chars[id as usize] as usize == k
                && self
                    .text(g, id)
                    .chars()
                    .zip(text.chars())
                    .all(|(t, c)| u32::from(t) == spelled(c))
            {
                return Some(id);
            }
            slot = (slot + 1) & ((1 << SLOTS_LOG) - 1);
        }
    }

    /// The longest token at the front of `text` (not empty, each character with a token), and
    /// its length in `text`'s bytes.
    fn longest_match(&self, g: &Gemma, text: &str) -> (u32, usize) {
        let first = text.chars().next().expect("not empty");
        let single = (g.chars[&spelled(first)], first.len_utf8());
        let mut h = [0u64; MAX_CHARS + 1];
        let mut end = [0usize; MAX_CHARS + 1];
        let mut k = 0;
        for (at, c) in text.char_indices().take(MAX_CHARS) {
            h[k + 1] = hash(h[k], spelled(c));
            end[k + 1] = at + c.len_utf8();
            k += 1;
            let bit = (h[k] >> (64 - PREFIXES_LOG)) as usize;
            if k >= 2 && self.prefixes[bit / 64] >> (bit % 64) & 1 == 0 {
                break;
            }
        }
        (2..=k)
            .rev()
            .find_map(|j| self.find(g, h[j], j, text).map(|id| (id, end[j])))
            .unwrap_or(single)
    }

    /// Whether the encoding of `left`'s text (then `right`'s) is that token (then those two):
    /// the pair of lowest rank merged, the leftmost of equals, until none is left or a merge
    /// reaches across the two.
    fn valid(&self, g: &Gemma, left: u32, right: Option<u32>) -> bool {
        if right.is_some_and(|right| g.merge(left, right).is_some()) {
            return false;
        }
        let mut ids = [0u32; 2 * MAX_CHARS];
        let mut starts = [0u8; 2 * MAX_CHARS];
        let mut n = 0;
        let mut boundary = usize::MAX;
        for (i, token) in [Some(left), right].into_iter().flatten().enumerate() {
            if i == 1 {
                boundary = n;
            }
            for c in self.text(g, token).chars() {
                ids[n] = g.chars[&u32::from(c)];
                starts[n] = n as u8;
                n += 1;
            }
        }
        // `merges[i]`: the merge of symbols i and i + 1 (rank << 32 | merged), or none.
        let mut merges = [u64::MAX; 2 * MAX_CHARS];
        let pair = |ids: &[u32], i: usize| g.merge(ids[i], ids[i + 1]).unwrap_or(u64::MAX);
        for (i, merge) in merges.iter_mut().enumerate().take(n - 1) {
            *merge = pair(&ids, i);
        }
        loop {
            let mut best = 0;
            for i in 1..n - 1 {
                if merges[i] >> 32 < merges[best] >> 32 {
                    best = i;
                }
            }
            if n < 2 || merges[best] == u64::MAX {
                return n == if right.is_some() { 2 } else { 1 };
            }
            if starts[best + 1] as usize == boundary {
                return false;
            }
            ids[best] = merges[best] as u32;
            ids.copy_within(best + 2..n, best + 1);
            starts.copy_within(best + 2..n, best + 1);
            merges.copy_within(best + 2..n, best + 1);
            n -= 1;
            merges[n - 1] = u64::MAX;
            if best + 1 < n {
                merges[best] = pair(&ids, best);
            } else {
                merges[best] = u64::MAX;
            }
            if best > 0 {
                merges[best - 1] = pair(&ids, best - 1);
            }
        }
    }

    /// The tokens of a stretch whose characters all have tokens, exactly; `None` only if the
    /// encoder found no sequence, which its ground rules out (the caller then merges with the
    /// heap).
    pub(super) fn count(&self, g: &Gemma, text: &str) -> Option<usize> {
        self.count_keeping(g, text, KEEP)
            .or_else(|| self.count_keeping(g, text, usize::MAX))
    }

    /// The count, keeping the newest `keep` to `2 × keep` tokens of the sequence found so far:
    /// `None` when backtracking goes past them.
    fn count_keeping(&self, g: &Gemma, text: &str, keep: usize) -> Option<usize> {
        let n = text.len();
        // Bit `i` is cleared once no sequence is found to go on from byte `i`.
        let mut open = vec![!0u64; n / 64 + 1];
        let is_open = |open: &[u64], i: usize| open[i / 64] >> (i % 64) & 1 != 0;
        // (id << 32 | its length in bytes) of each token kept.
        let mut tokens: Vec<u64> = Vec::new();
        let mut pairs = PairCache::new(n);
        let mut dropped = 0;
        let mut pos = 0;
        let mut next = (n > 0).then(|| self.longest_match(g, text));
        while let Some((mut token, mut len)) = next {
            let last = tokens.last().map(|&t| (t >> 32) as u32);
            if last.is_none() && pos > 0 {
                return None; // the token before was dropped
            }
            loop {
                let end = pos + len;
                if is_open(&open, end)
                    && match last {
                        Some(last) => pairs.valid(last, token, || self.valid(g, last, Some(token))),
                        None => self.valid(g, token, None),
                    }
                {
                    if tokens.len() >= keep.saturating_mul(2) {
                        tokens.drain(..keep);
                        dropped += keep;
                    }
                    tokens.push(u64::from(token) << 32 | len as u64);
                    pos = end;
                    next = (pos < n).then(|| self.longest_match(g, &text[pos..]));
                    break;
                }
                let shorter = self.next_prefix[token as usize];
                if shorter != NONE {
                    token = shorter;
                    len = bytes_of(&text[pos..], self.chars[shorter as usize] as usize);
                    continue;
                }
                open[pos / 64] &= !(1 << (pos % 64));
                let last = tokens.pop()?;
                let len = (last & 0xffff_ffff) as usize;
                pos -= len;
                next = Some(((last >> 32) as u32, len));
                break;
            }
        }
        Some(dropped + tokens.len())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{gemma3, Work};
    use super::Long;

    /// The encoder's count of `text` against the heap merge's, and the whole path's (which cuts
    /// at the characters without a token) against the heap's too.
    fn agree(long: &Long, text: &str, work: &mut Work) {
        let g = gemma3();
        let expected = g.merge_word(text, work);
        if text.chars().all(|c| g.chars.contains_key(&u32::from(c))) {
            assert_eq!(long.count(g, text), Some(expected), "{text:?}");
        }
        assert_eq!(g.encode_long(text, work), expected, "{text:?}");
    }

    fn long() -> &'static Long {
        let g = gemma3();
        g.long.get_or_init(|| Long::new(g))
    }

    #[test]
    fn runs_of_one_character_at_every_length() {
        let mut work = Work::default();
        for unit in ["a", " ", "▁", "-", "=", "b", "0", "é", "的", "\u{301}"] {
            for n in 1..=2_000 {
                let run = unit.repeat(n);
                agree(long(), &run, &mut work);
                agree(long(), &format!("x{run}"), &mut work);
                agree(long(), &format!("{run}y"), &mut work);
                agree(long(), &format!("▁{run}▁"), &mut work);
            }
        }
    }

    #[test]
    fn periodic_runs() {
        let mut work = Work::default();
        for unit in [
            "ab", "-=", "▁a", "a▁", "ab▁", "▁▁a", "aab", "-▁", "ha", "的一", "=-=", "▁-",
        ] {
            for n in 1..=700 {
                agree(long(), &unit.repeat(n), &mut work);
            }
        }
    }

    #[test]
    fn random_stretches() {
        let mut work = Work::default();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabets: [&[&str]; 7] = [
            &["a", "b"],
            &["a", "▁", "-"],
            &["a", "a", "a", "a", "a", "a", "a", "b"],
            &["▁", "▁", "▁", "▁", "x"],
            &["-", "-", "-", "=", "="],
            &[
                "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p",
                "q", "r", "s", "t", "u", "v", "w", "x", "y", "z", "▁",
            ],
            &[
                "的",
                "一",
                "是",
                "不",
                "了",
                "人",
                "我",
                "\u{10ffff}",
                "a",
                "é",
                "\u{301}",
            ],
        ];
        for alphabet in alphabets {
            for _ in 0..60 {
                let n = 1 + (next() % 3_000) as usize;
                let text: String = (0..n)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect();
                agree(long(), &text, &mut work);
            }
        }
    }

    #[test]
    fn long_runs_count_the_same_kept_or_not() {
        // Backtracking past the kept tokens counts again keeping all: both give the same.
        let g = gemma3();
        for text in [
            "a".repeat(300_000),
            " ".repeat(300_000),
            "-=".repeat(150_000),
        ] {
            assert_eq!(
                long().count_keeping(g, &text, 4),
                long().count_keeping(g, &text, usize::MAX),
            );
        }
    }

    #[test]
    fn no_merge_takes_a_byte_token() {
        // A character without a token is a cut: its bytes' tokens never merge.
        let g = gemma3();
        let bytes: std::collections::HashSet<u32> = g.bytes.iter().copied().collect();
        assert!(g
            .merges
            .keys()
            .all(|k| !bytes.contains(&((k >> 32) as u32)) && !bytes.contains(&(*k as u32))));
    }
}

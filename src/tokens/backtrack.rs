//! Byte-pair encoding of a long piece in linear time and little memory: the backtracking
//! encoder of rust-gems' `bpe` crate (crates/bpe, README "Backtracking"), over this crate's
//! vocabulary table instead of an Aho-Corasick automaton.
//!
//! Its ground: byte-pair encoding has exactly one valid token sequence for a text (the one the
//! merge loop makes), and a sequence is valid when each pair of neighbours is, that is when
//! encoding the two tokens' bytes gives back the two tokens. The encoder takes the longest token
//! at the text's front; when the pair it makes with the token before it is not valid, the next
//! shorter prefix token; when none is, it drops the token before and tries that one's next
//! shorter prefix. A bit per byte remembers the positions from which no valid sequence goes on,
//! so that no position is tried twice: the work is linear in the piece, and the memory a bit per
//! byte plus the newest tokens (at most 2 × [`KEEP`], four bytes each).
//!
//! A pair is told valid ([`Merges::valid_pair`]) without encoding it: undoing the merges that
//! made the two tokens, the pair is not valid as soon as a merge across their boundary would
//! have come first.

use super::vocab::Vocab;

const NONE: u32 = u32::MAX;

/// What the backtracking encoder knows of a vocabulary beyond its tokens, built on first use
/// (2.5 MB for `o200k_base`, tens of milliseconds).
pub(crate) struct Merges {
    /// The two tokens each token was merged from (the halves its own encoding joins last);
    /// `(t, t)` for a single byte.
    split: Vec<(u32, u32)>,
    /// The longest token that is a proper prefix of each token; `NONE` for single bytes.
    next_prefix: Vec<u32>,
    /// The length of the longest token that starts with each pair of bytes (`a << 8 | b`), 1
    /// where no token does: longest-prefix matching looks for no longer token.
    longest: Vec<u8>,
}

impl Merges {
    /// The merges of `vocab`, found as `bpe` finds them: for each token in rank order, the
    /// longest prefix token whose rest is a token of lower rank too and whose pair with it is
    /// valid under the merges of the tokens before.
    pub(crate) fn new(vocab: &Vocab) -> Merges {
        let n = vocab.len();
        let mut merges = Merges {
            split: Vec::with_capacity(n),
            next_prefix: Vec::with_capacity(n),
            longest: vec![1; 1 << 16],
        };
        for id in 0..n as u32 {
            let token = vocab.token(id);
            let prefix = match *token {
                [] | [_] => NONE,
                [a, b, ..] => {
                    let pair = &mut merges.longest[(a as usize) << 8 | b as usize];
                    *pair = (*pair).max(token.len() as u8);
                    (1..token.len())
                        .rev()
                        .find_map(|len| vocab.rank(&token[..len]))
                        .expect("every byte is a token")
                }
            };
            merges.next_prefix.push(prefix);
        }
        for id in 0..n as u32 {
            let token = vocab.token(id);
            let mut left = merges.next_prefix[id as usize];
            let split = loop {
                if left == NONE {
                    break (id, id);
                }
                let len = vocab.token_len(left);
                if let Some(right) = vocab.rank(&token[len..]) {
                    if left < id && right < id && merges.valid_pair(vocab, token, len, left, right)
                    {
                        break (left, right);
                    }
                }
                left = merges.next_prefix[left as usize];
            };
            merges.split.push(split);
        }
        merges
    }

    /// The token a merge of `left` and `right` makes, when one does: `left` ends and `right`
    /// starts at `at` in `text`.
    #[inline]
    fn merged(&self, vocab: &Vocab, text: &[u8], at: usize, left: u32, right: u32) -> Option<u32> {
        let start = at - vocab.token_len(left);
        let end = at + vocab.token_len(right);
        if end - start > vocab.max_len() {
            return None;
        }
        let token = vocab.rank(&text[start..end])?;
        (self.split.get(token as usize) == Some(&(left, right))).then_some(token)
    }

    /// Whether encoding the bytes of `left` then `right` (meeting at `at` in `text`) gives those
    /// two tokens: `bpe`'s `is_valid_token_pair`. The merges that made the two tokens are undone
    /// from the last; the pair is not valid when the parts on either side of the boundary would
    /// have merged before the merge undone (`limit`).
    fn valid_pair(
        &self,
        vocab: &Vocab,
        text: &[u8],
        at: usize,
        mut left: u32,
        mut right: u32,
    ) -> bool {
        let mut limit = u32::MAX;
        loop {
            if self
                .merged(vocab, text, at, left, right)
                .is_some_and(|merged| merged < limit)
            {
                return false;
            }
            if left > right {
                limit = left;
                left = self.split[left as usize].1;
                if left == limit {
                    limit = right + 1;
                    right = self.split[right as usize].0;
                    if right + 1 == limit {
                        return true;
                    }
                }
            } else {
                limit = right + 1;
                right = self.split[right as usize].0;
                if right + 1 == limit {
                    limit = left;
                    left = self.split[left as usize].1;
                    if left == limit {
                        return true;
                    }
                }
            }
        }
    }

    /// The longest token at the front of `text` (not empty).
    #[inline]
    fn longest_match(&self, vocab: &Vocab, text: &[u8]) -> u32 {
        if let [a, b, ..] = *text {
            let most = (self.longest[(a as usize) << 8 | b as usize] as usize).min(text.len());
            for len in (2..=most).rev() {
                if let Some(token) = vocab.rank(&text[..len]) {
                    return token;
                }
            }
        }
        vocab.rank(&text[..1]).expect("every byte is a token")
    }

    /// The number of tokens byte-pair encoding makes of `piece`, exactly.
    pub(crate) fn count(&self, vocab: &Vocab, piece: &[u8]) -> usize {
        self.count_keeping(vocab, piece, KEEP).unwrap_or_else(|| {
            self.count_keeping(vocab, piece, usize::MAX)
                .expect("all kept")
        })
    }

    /// The count, keeping the newest `keep` to `2 × keep` tokens of the sequence found so far:
    /// `None` when backtracking goes past them (then the caller counts keeping all).
    pub(crate) fn count_keeping(&self, vocab: &Vocab, piece: &[u8], keep: usize) -> Option<usize> {
        let n = piece.len();
        // Bit `i` is cleared once no valid sequence is found to go on from position `i`.
        let mut open = vec![!0u64; n / 64 + 1];
        let is_open = |open: &[u64], i: usize| open[i / 64] >> (i % 64) & 1 != 0;
        let mut tokens: Vec<u32> = Vec::new();
        let mut pairs = PairCache::new(n);
        let mut dropped = 0;
        let mut pos = 0;
        let mut next = (n > 0).then(|| self.longest_match(vocab, piece));
        while let Some(mut token) = next {
            let last = tokens.last().copied();
            if last.is_none() && pos > 0 {
                return None; // the token before was dropped
            }
            loop {
                let end = pos + vocab.token_len(token);
                if is_open(&open, end)
                    && last.is_none_or(|last| {
                        pairs.valid(last, token, || {
                            self.valid_pair(vocab, piece, pos, last, token)
                        })
                    })
                {
                    if tokens.len() >= keep.saturating_mul(2) {
                        tokens.drain(..keep);
                        dropped += keep;
                    }
                    tokens.push(token);
                    pos = end;
                    next = (pos < n).then(|| self.longest_match(vocab, &piece[pos..]));
                    break;
                }
                let shorter = self.next_prefix[token as usize];
                if shorter != NONE {
                    token = shorter;
                    continue;
                }
                open[pos / 64] &= !(1 << (pos % 64));
                tokens.pop();
                let last = last.expect("a single byte at the start goes on");
                pos -= vocab.token_len(last);
                next = Some(last);
                break;
            }
        }
        Some(dropped + tokens.len())
    }
}

/// The pairs an encoder's pair check told of lately, by their ids: a run of a few characters
/// meets the same few hundred pairs again and again (a run of `-` tries most positions with up
/// to 28 tokens of dashes before it goes back), and walking their merges each time, hashing the
/// bytes of each merge, was most of its count. Direct-mapped, a slot (8 bytes) for each 4 bytes
/// of the piece, from 64 slots to 2^15 (256 KB). Used here with [`Merges::valid_pair`] and by
/// Gemma 3's encoder of long stretches (`gemma/long.rs`).
pub(super) struct PairCache {
    slots: Vec<u64>,
    shift: u32,
}

impl PairCache {
    const EMPTY: u64 = u64::MAX;

    pub(super) fn new(piece_len: usize) -> PairCache {
        let len = (piece_len / 4).clamp(64, 1 << 15).next_power_of_two();
        PairCache {
            slots: vec![Self::EMPTY; len],
            shift: 64 - len.trailing_zeros(),
        }
    }

    /// `check` (whether `left` then `right` is valid), remembered: a slot holds the left id in
    /// its high half, the right id and the answer in its low (ids are below 2^31; `EMPTY`'s left
    /// id is none).
    #[inline]
    pub(super) fn valid(&mut self, left: u32, right: u32, check: impl FnOnce() -> bool) -> bool {
        let key = u64::from(left) << 32 | u64::from(right) << 1;
        let i = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize;
        let slot = &mut self.slots[i];
        if *slot & !1 == key {
            return *slot & 1 != 0;
        }
        let valid = check();
        *slot = key | u64::from(valid);
        valid
    }
}

/// The tokens the backtracking encoder keeps at least (and at most twice as many): it has never
/// been seen to go back more than a few, and when it does, the piece is counted again keeping
/// all (four bytes a token).
const KEEP: usize = 1 << 15;

#[cfg(test)]
mod tests {
    use super::super::count::vocab;
    use super::super::split::Pattern;
    use std::time::Instant;

    #[test]
    #[ignore = "a timing, run by hand"]
    fn build_and_run_time() {
        for pattern in [Pattern::O200k, Pattern::Cl100k] {
            let v = vocab(pattern);
            let t = Instant::now();
            let m = super::Merges::new(v);
            eprintln!("{pattern:?} merges {:?}", t.elapsed());
            for text in [
                "a".repeat(5_000_000),
                "日本語".repeat(1_000_000),
                "-".repeat(1_000_000),
                "=".repeat(1_000_000),
                "-=".repeat(500_000),
            ] {
                let t = Instant::now();
                let n = m.count(v, text.as_bytes());
                eprintln!("  {} bytes: {n} tokens in {:?}", text.len(), t.elapsed());
            }
        }
    }
}

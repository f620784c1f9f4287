//! Counting a text's tokens: the pre-tokenizer's pieces ([`super::split`]), each one token
//! when the vocabulary has it (most pieces of prose and code are; tiktoken takes the same
//! shortcut), else byte-pair encoded ([`Vocab::count`]); within one long text a piece counted
//! once is not counted again.

use super::split::{split, Pattern};
use super::vocab::{hash, Vocab};
use crate::raw::same_bytes;
use std::sync::OnceLock;

/// The published vocabularies (tiktoken's files, as the `bpe-openai` crate ships them;
/// src/tokens/data/SOURCES.md).
const O200K_BASE: &[u8] = include_bytes!("data/o200k_base.tiktoken.gz");
const CL100K_BASE: &[u8] = include_bytes!("data/cl100k_base.tiktoken.gz");

/// Counts one tokenizer's tokens.
#[derive(Clone, Copy)]
pub(crate) struct Counter {
    vocab: &'static Vocab,
    pattern: Pattern,
}

/// The vocabulary of `pattern`'s tokenizer, read on first use (once per process).
pub(crate) fn vocab(pattern: Pattern) -> &'static Vocab {
    static O200K: OnceLock<Vocab> = OnceLock::new();
    static CL100K: OnceLock<Vocab> = OnceLock::new();
    let (cell, gz) = match pattern {
        Pattern::O200k => (&O200K, O200K_BASE),
        Pattern::Cl100k => (&CL100K, CL100K_BASE),
    };
    cell.get_or_init(|| Vocab::from_tiktoken_gz(gz).expect("the built-in vocabulary reads"))
}

impl Counter {
    pub(crate) fn new(pattern: Pattern) -> Counter {
        Counter {
            vocab: vocab(pattern),
            pattern,
        }
    }

    #[inline]
    fn piece<'a>(&self, piece: &'a str, cache: &mut Cache<'a>) -> usize {
        let bytes = piece.as_bytes();
        let h = hash(bytes);
        if self.vocab.rank_hashed(bytes, h).is_some() {
            return 1;
        }
        cache.get_or(piece, h, || self.vocab.count(bytes))
    }

    pub(crate) fn count(&self, text: &str) -> usize {
        let mut cache = Cache::for_text(text);
        split(text, self.pattern)
            .map(|p| self.piece(p, &mut cache))
            .sum()
    }

    /// The count when it is at most `limit`, found without counting much past it: a piece
    /// longer than the room left times the longest token is over without being merged.
    pub(crate) fn count_till_limit(&self, text: &str, limit: usize) -> Option<usize> {
        let mut cache = Cache::for_text(text);
        split(text, self.pattern).try_fold(0usize, |used, piece| {
            let room = limit.checked_sub(used)?;
            if piece.len() > room.saturating_mul(self.vocab.max_len()) {
                return None;
            }
            Some(used + self.piece(piece, &mut cache)).filter(|&u| u <= limit)
        })
    }
}

/// The counts of pieces that needed merging, by their hash (direct-mapped, the newest kept):
/// repeated identifiers, numbers and words of other scripts cost one merge per text. Only
/// texts long enough to repeat pieces have one, a slot per 64 bytes (256 to 16,384 slots).
struct Cache<'a> {
    slots: Vec<(&'a str, u32)>,
    shift: u32,
}

impl<'a> Cache<'a> {
    const MIN_TEXT: usize = 4096;

    fn for_text(text: &str) -> Cache<'a> {
        if text.len() < Self::MIN_TEXT {
            return Cache {
                slots: Vec::new(),
                shift: 63,
            };
        }
        let size = (text.len() / 64).next_power_of_two().clamp(256, 16384);
        Cache {
            slots: vec![("", 0); size],
            shift: 64 - size.trailing_zeros(),
        }
    }

    #[inline]
    fn get_or(&mut self, piece: &'a str, hash: u64, count: impl FnOnce() -> usize) -> usize {
        let Some(slot) = self.slots.get_mut((hash >> self.shift) as usize) else {
            return count();
        };
        if same_bytes(slot.0.as_bytes(), piece.as_bytes()) {
            return slot.1 as usize;
        }
        let n = count();
        *slot = (piece, n as u32);
        n
    }
}

#[cfg(test)]
mod tests {
    #[test]
    #[ignore = "a timing, run by hand"]
    fn load_time() {
        let t = std::time::Instant::now();
        let v = super::Vocab::from_tiktoken_gz(super::O200K_BASE).unwrap();
        eprintln!("o200k load {:?} ({} tokens)", t.elapsed(), v.len());
    }
}

//! Counting a text's tokens: the pre-tokenizer's pieces ([`super::split`]), each one token
//! when the vocabulary has it (most pieces of prose and code are; tiktoken takes the same
//! shortcut), else byte-pair encoded ([`Vocab::count_by`], or [`Merges::count`] over 1 KB);
//! within one long text a piece counted once is not counted again, and a short piece a thread
//! counted lately is found in a small table ([`Hot`]) before the vocabulary's large one.

use super::backtrack::Merges;
use super::split::{split, Pattern};
use super::vocab::{hash, Vocab};
use crate::raw::same_bytes;
use std::cell::RefCell;
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

/// The backtracking encoder's tables for `pattern`'s vocabulary, built on the first piece that
/// needs them.
pub(crate) fn merges(pattern: Pattern) -> &'static Merges {
    static O200K: OnceLock<Merges> = OnceLock::new();
    static CL100K: OnceLock<Merges> = OnceLock::new();
    let cell = match pattern {
        Pattern::O200k => &O200K,
        Pattern::Cl100k => &CL100K,
    };
    cell.get_or_init(|| Merges::new(vocab(pattern)))
}

/// Pieces up to this length are merged by the vocabulary's loops (quadratic, then with a heap:
/// `O(n log n)`, 36 bytes a byte); longer ones by the backtracking encoder (linear, a bit a byte
/// and 4 bytes a token), whose tables cost the first such piece tens of milliseconds.
const LONG: usize = 1024;

/// How many pieces missing from the table of short pieces wait for their vocabulary slots (8
/// and 16 counted the corpora of `cargo bench --bench tokens -- --corpora` 2–4% slower).
const AHEAD: usize = 4;

impl Counter {
    pub(crate) fn new(pattern: Pattern) -> Counter {
        Counter {
            vocab: vocab(pattern),
            pattern,
        }
    }

    #[inline]
    fn piece<'a>(&self, piece: &'a str, cache: &mut Cache<'a>, hot: &mut Hot) -> usize {
        let bytes = piece.as_bytes();
        if let Some(n) = hot.get(bytes) {
            return n as usize;
        }
        let n = self.piece_hashed(piece, hash(bytes), cache, hot);
        hot.put(bytes, n);
        n
    }

    /// The count of a piece the table of short pieces lacks, given its [`hash`].
    #[inline]
    fn piece_hashed<'a>(
        &self,
        piece: &'a str,
        h: u64,
        cache: &mut Cache<'a>,
        hot: &mut Hot,
    ) -> usize {
        let bytes = piece.as_bytes();
        if self.vocab.rank_hashed(bytes, h).is_some() {
            return 1;
        }
        cache.get_or(piece, h, || self.merge(bytes, hot))
    }

    /// The count of a piece that is no token.
    fn merge(&self, piece: &[u8], hot: &mut Hot) -> usize {
        if piece.len() > LONG {
            merges(self.pattern).count(self.vocab, piece)
        } else {
            self.vocab
                .count_by(piece, |a, b| hot.ranks(self.vocab, a, b))
        }
    }

    /// Runs `f` with this thread's table of short pieces for this tokenizer (a table of its own
    /// when the thread's is in use or gone).
    fn with_hot<R>(&self, f: impl FnOnce(&mut Hot) -> R) -> R {
        thread_local! {
            static HOT: [RefCell<Option<Box<Hot>>>; 2] = const { [RefCell::new(None), RefCell::new(None)] };
        }
        let which = match self.pattern {
            Pattern::O200k => 0,
            Pattern::Cl100k => 1,
        };
        let mut f = Some(f);
        let done = HOT.try_with(|tables| {
            let mut table = tables[which].try_borrow_mut().ok()?;
            let hot = table.get_or_insert_with(Hot::new);
            Some((f.take().expect("called once"))(hot))
        });
        match done {
            Ok(Some(r)) => r,
            _ => (f.take().expect("not called"))(&mut Hot::new()),
        }
    }

    /// The count of `text`. The pieces the table of short pieces has are counted as they come;
    /// the others wait, [`AHEAD`] at a time, their slots in the vocabulary's table fetched
    /// meanwhile: the reads that miss the cache overlap instead of following each other.
    pub(crate) fn count(&self, text: &str) -> usize {
        let mut cache = Cache::for_text(text);
        self.with_hot(|hot| {
            let mut total = 0;
            let mut pieces = split(text, self.pattern);
            let mut waiting = [("", 0u64); AHEAD];
            loop {
                let mut n = 0;
                for piece in pieces.by_ref() {
                    let bytes = piece.as_bytes();
                    if let Some(count) = hot.get(bytes) {
                        total += count as usize;
                        continue;
                    }
                    let h = hash(bytes);
                    self.vocab.prefetch(bytes, h);
                    waiting[n] = (piece, h);
                    n += 1;
                    if n == AHEAD {
                        break;
                    }
                }
                for &(piece, h) in &waiting[..n] {
                    let count = self.piece_hashed(piece, h, &mut cache, hot);
                    hot.put(piece.as_bytes(), count);
                    total += count;
                }
                if n < AHEAD {
                    return total;
                }
            }
        })
    }

    /// The count when it is at most `limit`, found without counting much past it: a piece
    /// longer than the room left times the longest token is over without being merged.
    pub(crate) fn count_till_limit(&self, text: &str, limit: usize) -> Option<usize> {
        let mut cache = Cache::for_text(text);
        self.with_hot(|hot| {
            split(text, self.pattern).try_fold(0usize, |used, piece| {
                let room = limit.checked_sub(used)?;
                if piece.len() > room.saturating_mul(self.vocab.max_len()) {
                    return None;
                }
                Some(used + self.piece(piece, &mut cache, hot)).filter(|&u| u <= limit)
            })
        })
    }
}

/// The counts of the short pieces a thread counted lately, by their bytes (direct-mapped, the
/// newest kept; 65,536 slots, 1.5 MB a tokenizer a thread, and 8,192 slots of the ranks the
/// merges met, 192 KB; within the processor's L2 cache, 2 MB here): the words and signs that
/// make most of any text are counted without reading the vocabulary's table (4 MB for
/// `o200k_base`), whose reads miss the cache. With 16,384 and 32,768 slots the corpora of
/// `cargo bench --bench tokens -- --corpora` counted 13–16% and 7–9% slower.
pub(crate) struct Hot {
    slots: Direct<16>,
    /// The ranks (`u32::MAX` for none) of the parts the merges of short pieces met lately:
    /// the syllables of the words of a language recur across its words.
    ranks: Direct<13>,
}

/// A direct-mapped table of `1 << BITS` slots from pieces of at most [`Hot::MAX_LEN`] bytes to
/// a number, the newest kept.
struct Direct<const BITS: u32> {
    slots: Box<[HotSlot]>,
}

impl<const BITS: u32> Direct<BITS> {
    fn new() -> Self {
        Direct {
            slots: vec![HotSlot::default(); 1 << BITS].into_boxed_slice(),
        }
    }

    /// The number of `bytes` when the table has it.
    #[inline(always)]
    fn get(&mut self, bytes: &[u8]) -> Option<u32> {
        if bytes.len() > Hot::MAX_LEN {
            return None;
        }
        let key = HotKey::of(bytes);
        let slot = self.slot(key);
        (slot.head == key.head && slot.tail == key.tail && slot.len == key.len)
            .then_some(slot.count)
    }

    /// Keeps the number of `bytes` (when short enough), in place of what its slot held.
    #[inline(always)]
    fn put(&mut self, bytes: &[u8], count: u32) {
        if bytes.len() > Hot::MAX_LEN {
            return;
        }
        let key = HotKey::of(bytes);
        *self.slot(key) = HotSlot {
            head: key.head,
            tail: key.tail,
            len: key.len,
            count,
        };
    }

    #[inline(always)]
    fn slot(&mut self, key: HotKey) -> &mut HotSlot {
        let i = (key.mix() >> (64 - BITS)) as usize;
        // SAFETY: `i` has `BITS` bits; the table has `1 << BITS` slots.
        unsafe { self.slots.get_unchecked_mut(i) }
    }
}

/// A [`HotKey`] and its count, in 24 bytes (length 0: empty).
#[derive(Clone, Copy, Default)]
struct HotSlot {
    head: u64,
    tail: u64,
    len: u32,
    count: u32,
}

/// A piece of at most 16 bytes: its first and last 8 bytes (zero-padded when shorter) and its
/// length, which together are its bytes.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug, Hash)]
struct HotKey {
    head: u64,
    tail: u64,
    len: u32,
}

impl HotKey {
    /// The key of `bytes` (1 to 16 of them).
    #[inline(always)]
    fn of(bytes: &[u8]) -> HotKey {
        let n = bytes.len();
        let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let half = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let (head, tail) = match n {
            8.. => (word(0), word(n - 8)),
            4..=7 => (half(0) as u64 | (half(n - 4) as u64) << ((n - 4) * 8), 0),
            _ => {
                let mut head = 0u64;
                for (i, &b) in bytes.iter().enumerate() {
                    head |= (b as u64) << (i * 8);
                }
                (head, 0)
            }
        };
        HotKey {
            head,
            tail,
            len: n as u32,
        }
    }

    #[inline(always)]
    fn mix(self) -> u64 {
        (self.head ^ self.tail.rotate_left(29) ^ self.len as u64)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

impl Hot {
    const MAX_LEN: usize = 16;

    fn new() -> Box<Hot> {
        Box::new(Hot {
            slots: Direct::new(),
            ranks: Direct::new(),
        })
    }

    /// The ranks of the tokens that are `a` and `b` (`u32::MAX` when none or empty): those
    /// the table lacks looked up in the vocabulary, both slots fetched before either is read.
    #[inline]
    fn ranks(&mut self, vocab: &Vocab, a: &[u8], b: &[u8]) -> (u32, u32) {
        let known_a = self.known_rank(a);
        let known_b = self.known_rank(b);
        let hash_a = known_a.is_none().then(|| hash(a));
        let hash_b = known_b.is_none().then(|| hash(b));
        if let Some(h) = hash_a {
            vocab.prefetch(a, h);
        }
        if let Some(h) = hash_b {
            vocab.prefetch(b, h);
        }
        let mut look_up = |bytes: &[u8], known: Option<u32>, h: Option<u64>| match (known, h) {
            (Some(rank), _) => rank,
            (None, Some(h)) => {
                let rank = vocab.rank_hashed(bytes, h).unwrap_or(u32::MAX);
                self.keep_rank(bytes, rank);
                rank
            }
            (None, None) => u32::MAX,
        };
        (look_up(a, known_a, hash_a), look_up(b, known_b, hash_b))
    }

    /// The rank of `bytes` when the table of ranks has it (`u32::MAX` for empty bytes).
    #[inline(always)]
    fn known_rank(&mut self, bytes: &[u8]) -> Option<u32> {
        if bytes.is_empty() {
            return Some(u32::MAX);
        }
        self.ranks.get(bytes)
    }

    /// Keeps the rank of `bytes` (when short enough) in the table of ranks.
    #[inline(always)]
    fn keep_rank(&mut self, bytes: &[u8], rank: u32) {
        self.ranks.put(bytes, rank);
    }

    /// The count of `bytes` when the table has it.
    #[inline(always)]
    fn get(&mut self, bytes: &[u8]) -> Option<u32> {
        self.slots.get(bytes)
    }

    /// Keeps the count of `bytes` (when short enough), in place of what its slot held.
    #[inline(always)]
    fn put(&mut self, bytes: &[u8], count: usize) {
        self.slots.put(bytes, count as u32);
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
    use super::HotKey;
    use std::collections::HashMap;

    #[test]
    fn a_slot_is_24_bytes() {
        assert_eq!(std::mem::size_of::<super::HotSlot>(), 24);
    }

    #[test]
    fn short_pieces_have_keys_of_their_own() {
        // Every string of 1 to 16 bytes over a small alphabet that includes 0 (the padding),
        // up to 3 bytes, and a spread of longer ones: two strings share a key only when equal.
        let mut keys: HashMap<_, Vec<u8>> = HashMap::new();
        let mut add = |bytes: Vec<u8>| {
            let key = HotKey::of(&bytes);
            if let Some(other) = keys.insert(key, bytes.clone()) {
                assert_eq!(other, bytes, "one key for two pieces");
            }
        };
        let alphabet = [0u8, 1, b'a', 0xff];
        for len in 1..=3 {
            for n in 0..4usize.pow(len) {
                add((0..len).map(|i| alphabet[n / 4usize.pow(i) % 4]).collect());
            }
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = 1 + (seed % 16) as usize;
            add((0..len)
                .map(|i| alphabet[(seed >> (8 + 2 * i)) as usize % 4])
                .collect());
        }
    }

    #[test]
    #[ignore = "a timing, run by hand"]
    fn load_time() {
        let t = std::time::Instant::now();
        let v = super::Vocab::from_tiktoken_gz(super::O200K_BASE).unwrap();
        eprintln!("o200k load {:?} ({} tokens)", t.elapsed(), v.len());
    }
}

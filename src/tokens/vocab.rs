//! A tokenizer's vocabulary, read on first use from the published tiktoken file built into the
//! library (gzip, 1.7 MB for `o200k_base`, 0.8 MB for `cl100k_base`): every token's bytes by
//! rank, found by its bytes in an open-addressing table. Byte-pair encoding merges the adjacent
//! pair whose merged bytes have the lowest rank, leftmost first, until none is a token; the
//! count is what is left ([`Vocab::count`], tiktoken's algorithm; the counter hands a piece over
//! 1 KB to the backtracking encoder of backtrack.rs instead, the same count in linear time).

use std::collections::BinaryHeap;
use std::io::BufRead;

const EMPTY: u32 = u32::MAX;

/// The filter's bit for a hash: bits 13–32, under the slot's index and tag in tables up to
/// 2^19 slots (o200k_base's has 2^18); in larger ones they would overlap, costing filtering,
/// not correctness.
#[inline(always)]
fn filter_bit(hash: u64) -> usize {
    (hash >> 13 & 0xf_ffff) as usize
}

/// A token in the table, in 16 bytes: its first 8 bytes (zero-padded when shorter: then they
/// are the whole token), and `rank + 1` in bits 0–19, where its bytes start in bits 20–43, its
/// length in bits 44–51 and 12 more bits of its hash above. A token of up to 8 bytes is found
/// reading its slot alone, a longer one its slot and the rest of its bytes.
struct Slot;

impl Slot {
    const MAX_TOKENS: usize = (1 << 20) - 1;
    const MAX_BYTES: usize = 1 << 24;
    const KEY: u64 = !0 << 44;

    /// The tag and length bits of a token with `hash` and `len` bytes, `shift` as in the table.
    #[inline(always)]
    fn key(hash: u64, len: usize, shift: u32) -> u64 {
        ((hash >> (shift - 12)) & 0xfff) << 52 | (len as u64 & 0xff) << 44
    }

    fn pack(key: u64, rank: u32, start: u32) -> u64 {
        key | (start as u64) << 20 | (rank as u64 + 1)
    }

    #[inline(always)]
    fn rank(slot: u64) -> u32 {
        (slot & 0xf_ffff) as u32 - 1
    }

    #[inline(always)]
    fn start(slot: u64) -> usize {
        (slot >> 20 & 0xff_ffff) as usize
    }
}

pub(crate) struct Vocab {
    /// Every token's bytes, in rank order.
    bytes: Vec<u8>,
    /// Where each token starts in `bytes`; one more entry, the end.
    starts: Vec<u32>,
    /// The tokens by the hash of their bytes (linear probing, at most four fifths full), 0
    /// where none; each slot holds the token (see [`Slot`]): `[first bytes, rank and key]`.
    slots: Vec<[u64; 2]>,
    /// A bit per 20 bits of hash, set where a token's hash falls: most pieces that are no token
    /// are told by this (128 KB, in cache) without reading the table.
    filter: Vec<u64>,
    /// The rank of every two-byte token by its bytes (`EMPTY` where none): merging starts from
    /// the pairs of adjacent bytes, looked up here without hashing.
    pairs: Vec<u32>,
    /// `64 - log2(slots.len())`: the hash's top bits pick the slot.
    shift: u32,
    /// The longest token's length in bytes.
    max_len: usize,
}

/// The hash of a piece: the rustc hasher's mixing over 8-byte words, then the length.
#[inline]
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let add = |h: u64, word: u64| (h.rotate_left(5) ^ word).wrapping_mul(K);
    let mut h = 0u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        h = add(h, u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        h = add(h, u64::from_le_bytes(word));
    }
    add(h, bytes.len() as u64)
}

/// The first 8 bytes of `bytes` (not empty), zero-padded when fewer, as a little-endian word.
#[inline(always)]
fn head(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let half =
        |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as u64;
    match n {
        8.. => word(0),
        // Two overlapping halves: the bytes they share are the same.
        4..=7 => half(0) | half(n - 4) << ((n - 4) * 8),
        _ => {
            let b = |at: usize| (bytes[at] as u64) << (at * 8);
            b(0) | b(n / 2) | b(n - 1)
        }
    }
}

/// Each byte's value as a base64 digit (standard alphabet), 64 for `=`, 255 for the others.
static BASE64: [u8; 256] = {
    let mut table = [255u8; 256];
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut i = 0;
    while i < 64 {
        table[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    table[b'=' as usize] = 64;
    table
};

/// Appends the bytes of standard, padded base64 `text` to `out`.
fn base64_decode(text: &[u8], out: &mut Vec<u8>) -> Option<()> {
    if text.len() % 4 != 0 {
        return None;
    }
    let quads = text.len() / 4;
    for (k, quad) in text.chunks_exact(4).enumerate() {
        let [a, b, c, d] = [0, 1, 2, 3].map(|i| BASE64[quad[i] as usize]);
        if (a | b) >= 64 || c > 64 || d > 64 || (c == 64 && d != 64) {
            return None;
        }
        let pad = (c == 64) as usize + (d == 64) as usize;
        if pad > 0 && k + 1 != quads {
            return None;
        }
        let v = (a as u32) << 18 | (b as u32) << 12 | ((c & 63) as u32) << 6 | (d & 63) as u32;
        out.extend_from_slice(&[(v >> 16) as u8, (v >> 8) as u8, v as u8][..3 - pad]);
    }
    Some(())
}

/// The value of the decimal digits `text`.
fn decimal(text: &[u8]) -> Option<usize> {
    if text.is_empty() || text.len() > 9 {
        return None;
    }
    text.iter().try_fold(0usize, |v, &d| {
        d.is_ascii_digit().then(|| v * 10 + (d - b'0') as usize)
    })
}

impl Vocab {
    /// Reads a gzip-compressed tiktoken file: a line per token, its bytes in base64 and its
    /// rank, ranks 0, 1, 2, … in order.
    pub(crate) fn from_tiktoken_gz(gz: &[u8]) -> Result<Vocab, String> {
        // Read a line at a time: the whole decompressed file (5 MB reserved for o200k) held beside
        // the tables as they are built was the peak of a trim counting in tokens.
        let mut text = std::io::BufReader::new(flate2::read::GzDecoder::new(gz));
        let mut bytes = Vec::with_capacity(gz.len() * 3 / 2);
        let mut starts = vec![0u32];
        let mut line = Vec::new();
        let mut rank = 0;
        loop {
            line.clear();
            let read = text
                .read_until(b'\n', &mut line)
                .map_err(|e| format!("the vocabulary does not decompress: {e}"))?;
            if read == 0 {
                break;
            }
            let line = line.strip_suffix(b"\n").unwrap_or(&line);
            if line.is_empty() {
                continue;
            }
            let bad = || {
                format!(
                    "the vocabulary's line {} is not \"base64 {rank}\"",
                    rank + 1
                )
            };
            let (token, given) = memchr::memchr(b' ', line)
                .map(|sp| (&line[..sp], &line[sp + 1..]))
                .ok_or_else(bad)?;
            if decimal(given) != Some(rank) {
                return Err(bad());
            }
            base64_decode(token, &mut bytes).ok_or_else(bad)?;
            starts.push(bytes.len() as u32);
            rank += 1;
        }
        let n = starts.len() - 1;
        let max_len = starts.windows(2).map(|w| (w[1] - w[0]) as usize).max();
        if n > Slot::MAX_TOKENS || bytes.len() >= Slot::MAX_BYTES || max_len > Some(255) {
            return Err(format!("the vocabulary is too large ({n} tokens)"));
        }
        // At most four fifths full, and at least 2^13 slots (the tag's bits sit under the
        // index's).
        let size = (n + n / 4).next_power_of_two().max(1 << 13);
        let mut vocab = Vocab {
            bytes,
            starts,
            slots: vec![[0; 2]; size],
            pairs: vec![EMPTY; 1 << 16],
            filter: vec![0; 1 << 14],
            shift: 64 - size.trailing_zeros(),
            max_len: max_len.unwrap_or(1),
        };
        for rank in 0..n as u32 {
            let token = vocab.token(rank);
            if vocab.rank(token).is_some() {
                return Err(format!("the vocabulary has token {rank} twice"));
            }
            let h = hash(token);
            let mut slot = (h >> vocab.shift) as usize;
            while vocab.slots[slot][1] != 0 {
                slot = (slot + 1) & (size - 1);
            }
            let key = Slot::key(h, token.len(), vocab.shift);
            let first = head(token);
            if let &[a, b] = token {
                vocab.pairs[(a as usize) << 8 | b as usize] = rank;
            }
            let bit = filter_bit(h);
            vocab.filter[bit >> 6] |= 1 << (bit & 63);
            vocab.slots[slot] = [first, Slot::pack(key, rank, vocab.starts[rank as usize])];
        }
        if let Some(byte) = (0..=255u8).find(|b| vocab.rank(&[*b]).is_none()) {
            return Err(format!("the vocabulary lacks the byte {byte:#04x}"));
        }
        Ok(vocab)
    }

    /// The number of tokens.
    pub(crate) fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// The length in bytes of the token of `rank`.
    #[inline]
    pub(crate) fn token_len(&self, rank: u32) -> usize {
        let r = rank as usize;
        (self.starts[r + 1] - self.starts[r]) as usize
    }

    /// The bytes of the token of `rank`.
    #[inline]
    pub(crate) fn token(&self, rank: u32) -> &[u8] {
        let r = rank as usize;
        &self.bytes[self.starts[r] as usize..self.starts[r + 1] as usize]
    }

    /// The longest token's length in bytes: a piece counts at least its length over this.
    pub(crate) fn max_len(&self) -> usize {
        self.max_len
    }

    /// The rank of the token that is `bytes`, given their [`hash`].
    #[inline]
    pub(crate) fn rank_hashed(&self, bytes: &[u8], hash: u64) -> Option<u32> {
        if bytes.len() > self.max_len {
            return None; // and the length fits the slot's 8 bits
        }
        let bit = filter_bit(hash);
        // SAFETY: `filter_bit` is below 2^20, the filter has 2^14 words of 64 bits.
        if unsafe { *self.filter.get_unchecked(bit >> 6) } & 1 << (bit & 63) == 0 {
            return None;
        }
        let mask = self.slots.len() - 1;
        let key = Slot::key(hash, bytes.len(), self.shift);
        let first = head(bytes);
        let mut i = (hash >> self.shift) as usize;
        loop {
            // SAFETY: `i` is masked to the table's length, a power of two.
            let [word, slot] = unsafe { *self.slots.get_unchecked(i) };
            if slot == 0 {
                return None;
            }
            if slot & Slot::KEY == key && word == first {
                if bytes.len() <= 8 {
                    return Some(Slot::rank(slot));
                }
                let start = Slot::start(slot);
                if let Some(rest) = self.bytes.get(start + 8..start + bytes.len()) {
                    if crate::raw::same_bytes(rest, &bytes[8..]) {
                        return Some(Slot::rank(slot));
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Starts reading the slot where [`Vocab::rank_hashed`] will look for `bytes`, when the
    /// filter lets them through.
    #[inline(always)]
    pub(crate) fn prefetch(&self, bytes: &[u8], hash: u64) {
        let bit = filter_bit(hash);
        // SAFETY: as in `rank_hashed`.
        if bytes.len() > self.max_len
            || unsafe { *self.filter.get_unchecked(bit >> 6) } & 1 << (bit & 63) == 0
        {
            return;
        }
        let i = (hash >> self.shift) as usize;
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `i` has the table's bits; prefetching reads nothing into the program.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(self.slots.as_ptr().add(i).cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    #[inline]
    pub(crate) fn rank(&self, bytes: &[u8]) -> Option<u32> {
        self.rank_hashed(bytes, hash(bytes))
    }

    #[inline]
    fn pair_rank(&self, bytes: &[u8]) -> u32 {
        match *bytes {
            [a, b] => self.pairs[(a as usize) << 8 | b as usize],
            _ => self.rank(bytes).unwrap_or(EMPTY),
        }
    }

    /// The number of tokens byte-pair encoding makes of `piece`.
    #[cfg(test)]
    pub(crate) fn count(&self, piece: &[u8]) -> usize {
        let rank = |bytes: &[u8]| match bytes {
            [] => EMPTY,
            _ => self.rank(bytes).unwrap_or(EMPTY),
        };
        self.count_by(piece, |a, b| (rank(a), rank(b)))
    }

    /// [`Vocab::count`], the ranks of the parts over two bytes that a short piece's merges
    /// meet read by `ranks`, two at a time (a cache in front of [`Vocab::rank`]; `EMPTY` for no
    /// token and for an empty part).
    #[inline]
    pub(crate) fn count_by(
        &self,
        piece: &[u8],
        ranks: impl FnMut(&[u8], &[u8]) -> (u32, u32),
    ) -> usize {
        match piece.len() {
            0 | 1 => piece.len(),
            n if n <= SHORT => self.count_short(piece, ranks),
            _ => self.count_long(piece),
        }
    }

    /// tiktoken's merge loop as written: quadratic in the piece's length, fastest on short ones.
    fn count_short(
        &self,
        piece: &[u8],
        mut ranks: impl FnMut(&[u8], &[u8]) -> (u32, u32),
    ) -> usize {
        let n = piece.len();
        // (start, rank of the pair that starts here); two ends closing the list.
        let mut parts = [(0u32, EMPTY); SHORT + 1];
        let mut min = (EMPTY, 0);
        for i in 0..n - 1 {
            let r = self.pairs[(piece[i] as usize) << 8 | piece[i + 1] as usize];
            if r < min.0 {
                min = (r, i);
            }
            parts[i] = (i as u32, r);
        }
        parts[n - 1] = (n as u32 - 1, EMPTY);
        parts[n] = (n as u32, EMPTY);
        let mut len = n + 1;
        while min.0 != EMPTY {
            let i = min.1;
            // Part `i` takes in part `i + 1`: the pairs that start at `i - 1` and at `i` change.
            let start = |j: usize| parts[j].0 as usize;
            let before: &[u8] = if i > 0 && i + 2 < len {
                &piece[start(i - 1)..start(i + 2)]
            } else {
                &[]
            };
            let after: &[u8] = if i + 3 < len {
                &piece[start(i)..start(i + 3)]
            } else {
                &[]
            };
            let (before, after) = ranks(before, after);
            if i > 0 {
                parts[i - 1].1 = before;
            }
            parts[i].1 = after;
            len -= 1;
            // Close the gap after `i` and find the lowest pair, in one pass.
            min = (EMPTY, 0);
            for (j, &(_, r)) in parts[..=i].iter().enumerate() {
                if r < min.0 {
                    min = (r, j);
                }
            }
            for j in i + 1..len {
                let part = parts[j + 1];
                parts[j] = part;
                if part.1 < min.0 {
                    min = (part.1, j);
                }
            }
        }
        len - 1
    }

    /// The same merges in `O(n log n)`: parts in a linked list, pairs in a heap by (rank,
    /// start), so that a long piece (a run of letters or symbols) costs no quadratic time.
    fn count_long(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        // Part `i` starts at byte `i` while alive; `next[i]` is the following part's start.
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let mut rank: Vec<u32> = vec![EMPTY; n];
        let mut heap = BinaryHeap::with_capacity(n);
        // The rank of part `i` merged with the part after it.
        let pair = |next: &[usize], i: usize| {
            let j = next[i];
            if j >= n {
                EMPTY
            } else {
                self.pair_rank(&piece[i..next[j]])
            }
        };
        for i in 0..n - 1 {
            rank[i] = self.pair_rank(&piece[i..i + 2]);
            if rank[i] != EMPTY {
                heap.push(std::cmp::Reverse((rank[i], i)));
            }
        }
        let mut parts = n;
        while let Some(std::cmp::Reverse((r, i))) = heap.pop() {
            if rank[i] != r || r == EMPTY {
                continue; // merged away, or its pair changed since
            }
            // Merge part `i` with the one after it.
            let j = next[i];
            next[i] = next[j];
            if next[j] < n {
                prev[next[j]] = i;
            }
            rank[j] = EMPTY;
            parts -= 1;
            rank[i] = pair(&next, i);
            if rank[i] != EMPTY {
                heap.push(std::cmp::Reverse((rank[i], i)));
            }
            let p = prev[i];
            if p < n {
                rank[p] = pair(&next, p);
                if rank[p] != EMPTY {
                    heap.push(std::cmp::Reverse((rank[p], p)));
                }
            }
        }
        parts
    }
}

/// Pieces up to this length are merged by the quadratic loop.
const SHORT: usize = 48;

#[cfg(test)]
mod tests {
    use super::super::count::vocab;
    use super::super::split::Pattern;
    use proptest::prelude::*;

    fn reference(pattern: Pattern) -> &'static bpe_openai::byte_pair_encoding::BytePairEncoding {
        match pattern {
            Pattern::O200k => &bpe_openai::o200k_base().bpe,
            Pattern::Cl100k => &bpe_openai::cl100k_base().bpe,
        }
    }

    /// Pieces as the merge loops meet them, and longer: words, runs of one letter or symbol,
    /// digits, multi-byte scripts, arbitrary bytes.
    fn piece() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            "[a-z]{1,60}".prop_map(String::into_bytes),
            "[a-zA-Z ]{40,400}".prop_map(String::into_bytes),
            "(ab|a|b|aa|=|-|x){1,300}".prop_map(String::into_bytes),
            "[ぁ-ゖ一-龥аб-яα-ω]{1,80}".prop_map(String::into_bytes),
            "[0-9]{1,30}".prop_map(String::into_bytes),
            prop::collection::vec(any::<u8>(), 1..200),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn merges_count_what_bpe_openai_counts(bytes in piece()) {
            for pattern in [Pattern::O200k, Pattern::Cl100k] {
                let ours = vocab(pattern);
                let theirs = reference(pattern).count(&bytes);
                prop_assert_eq!(ours.count(&bytes), theirs, "{:?}", bytes);
                if bytes.len() >= 2 {
                    prop_assert_eq!(ours.count_long(&bytes), theirs, "long: {:?}", bytes);
                }
                if (2..=super::SHORT).contains(&bytes.len()) {
                    let rank = |b: &[u8]| match b {
                        [] => super::EMPTY,
                        _ => ours.rank(b).unwrap_or(super::EMPTY),
                    };
                    let ranks = |a: &[u8], b: &[u8]| (rank(a), rank(b));
                    prop_assert_eq!(ours.count_short(&bytes, ranks), theirs, "short: {:?}", bytes);
                }
            }
        }
    }

    #[test]
    fn the_vocabularies_are_bpe_openai_s() {
        for pattern in [Pattern::O200k, Pattern::Cl100k] {
            let (ours, theirs) = (vocab(pattern), reference(pattern));
            assert_eq!(ours.len(), theirs.num_tokens());
            for t in 0..ours.len() as u32 {
                assert_eq!(
                    ours.token(t),
                    theirs.token_bytes(t),
                    "{pattern:?} token {t}"
                );
            }
        }
    }

    #[test]
    fn bad_vocabularies_are_refused() {
        use std::io::Write;
        let gz = |text: &str| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(text.as_bytes()).unwrap();
            e.finish().unwrap()
        };
        let err = |text: &str| super::Vocab::from_tiktoken_gz(&gz(text)).err().unwrap();
        assert!(err("QQ== 1\n").contains("line 1"));
        assert!(err("QQ= 0\n").contains("line 1"));
        assert!(err("QQ== 0\nQQ== 1\n").contains("token 1 twice"));
        assert!(err("QQ== 0\n").contains("lacks the byte 0x00"));
        assert!(super::Vocab::from_tiktoken_gz(b"not gzip").is_err());
    }
}

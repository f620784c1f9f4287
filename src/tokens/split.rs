//! The pre-tokenizers of `o200k_base` and `cl100k_base`, written out by hand: each splits text
//! into the pieces its pattern matches, exactly (src/tokens/split_tests.rs holds it to the regexes
//! of the `bpe-openai` crate on real and generated text), without running a regex engine.
//!
//! Both patterns are alternations tried in order at the end of the previous piece, each
//! alternative with Perl's preference (greedy, backtracking); `\s+(?!\S)` is the whitespace
//! run less its last character when a non-space follows. Written as the alternatives read:
//!
//! ```text
//! o200k_base: [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//!           | [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//!           | \p{N}{1,3} | ' '?[^\s\p{L}\p{N}]+[\r\n/]* | \s*[\r\n]+ | \s+(?!\S) | \s+
//! cl100k_base: (?i:'s|'t|'re|'ve|'m|'ll|'d) | [^\r\n\p{L}\p{N}]?\p{L}+ | \p{N}{1,3}
//!           | ' '?[^\s\p{L}\p{N}]+[\r\n]* | \s*[\r\n]+ | \s+(?!\S) | \s+
//! ```

use std::sync::atomic::{AtomicU8, Ordering};
use unicode_general_category::{get_general_category, GeneralCategory as Gc};

/// A letter (`\p{L}`).
const L: u8 = 1;
/// A number (`\p{N}`).
const N: u8 = 2;
/// In o200k_base's first class, `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
const UP: u8 = 4;
/// In o200k_base's second class, `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
const LOW: u8 = 8;
/// White space (`\s`: the Unicode White_Space property).
const S: u8 = 16;
/// `\r` or `\n`.
const NL: u8 = 32;
/// Past the end of the text: in no class.
const END: u8 = 64;

/// The end of the run of ASCII lowercase letters in `bytes` from `i`, eight bytes at a time.
#[inline(always)]
fn lowercase_run(bytes: &[u8], mut i: usize) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        // Per byte, with the high bit clear (no carry between bytes): the high bit of `low7 +
        // 0x80 - k` is set when `low7 >= k`.
        let low7 = x & !HIGH;
        let from_a = low7 + ONES * (0x80 - b'a') as u64;
        let past_z = low7 + ONES * (0x80 - b'z' - 1) as u64;
        let lower = from_a & !past_z & !x & HIGH;
        if lower != HIGH {
            return i + ((!lower & HIGH).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while bytes.get(i).is_some_and(u8::is_ascii_lowercase) {
        i += 1;
    }
    i
}

/// `[^\r\n\p{L}\p{N}]`: what may stand before a word.
fn before_word(c: u8) -> bool {
    c & (L | N | NL | END) == 0
}

/// `[^\s\p{L}\p{N}]`: punctuation, symbols, marks, controls and the rest.
fn other(c: u8) -> bool {
    c & (S | L | N | END) == 0
}

const fn ascii_class(b: u8) -> u8 {
    match b {
        b'\r' | b'\n' => S | NL,
        b'\t' | 0x0b | 0x0c | b' ' => S,
        b'a'..=b'z' => L | LOW,
        b'A'..=b'Z' => L | UP,
        b'0'..=b'9' => N,
        _ => 0,
    }
}

static ASCII: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = ascii_class(b as u8);
        b += 1;
    }
    table
};

/// The classes of the characters of the Basic Multilingual Plane met so far, `0x80 | classes`
/// (0 where not yet): 64 KB of zeroed memory until used, so that the characters of a script are
/// looked up in the Unicode tables once a process.
static BMP: [AtomicU8; 1 << 16] = [const { AtomicU8::new(0) }; 1 << 16];

/// The classes of a character that is not ASCII.
#[inline]
fn class_of(c: char) -> u8 {
    let Some(known) = BMP.get(c as usize) else {
        return look_up_class(c);
    };
    match known.load(Ordering::Relaxed) {
        0 => {
            let class = look_up_class(c);
            known.store(0x80 | class, Ordering::Relaxed);
            class
        }
        classes => classes & 0x7f,
    }
}

/// The classes of a character that is not ASCII, from the Unicode tables.
fn look_up_class(c: char) -> u8 {
    if c.is_whitespace() {
        return S;
    }
    match get_general_category(c) {
        Gc::UppercaseLetter | Gc::TitlecaseLetter => L | UP,
        Gc::LowercaseLetter => L | LOW,
        Gc::ModifierLetter | Gc::OtherLetter => L | UP | LOW,
        Gc::NonspacingMark | Gc::SpacingMark | Gc::EnclosingMark => UP | LOW,
        Gc::DecimalNumber | Gc::LetterNumber | Gc::OtherNumber => N,
        _ => 0,
    }
}

/// Which pattern splits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pattern {
    O200k,
    Cl100k,
}

/// The pieces of `text` under `pattern`, in order; together they are the text.
pub(crate) fn split(text: &str, pattern: Pattern) -> Pieces<'_> {
    Pieces {
        text,
        pos: 0,
        pattern,
    }
}

/// An iterator over the pieces of a text.
pub(crate) struct Pieces<'a> {
    text: &'a str,
    pos: usize,
    pattern: Pattern,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let start = self.pos;
        if start >= self.text.len() {
            return None;
        }
        let scan = Scan {
            bytes: self.text.as_bytes(),
        };
        let end = match self.pattern {
            Pattern::O200k => scan.o200k(start),
            Pattern::Cl100k => scan.cl100k(start),
        };
        debug_assert!(end > start && self.text.is_char_boundary(end));
        self.pos = end;
        // SAFETY: `end` is past `start`, within the text and on a character boundary: the
        // scan moves from boundary to boundary by whole UTF-8 sequences.
        Some(unsafe { self.text.get_unchecked(start..end) })
    }
}

struct Scan<'a> {
    /// The bytes of a `str`: valid UTF-8.
    bytes: &'a [u8],
}

impl Scan<'_> {
    /// The classes and the length of the character at `i`; `END` and 0 past the end.
    #[inline(always)]
    fn at(&self, i: usize) -> (u8, usize) {
        let Some(&b) = self.bytes.get(i) else {
            return (END, 0);
        };
        if b < 0x80 {
            return (ASCII[b as usize], 1);
        }
        let (c, n) = self.decode(i, b);
        (class_of(c), n)
    }

    /// The character that starts with the byte `b` at `i`, and its length.
    #[inline]
    fn decode(&self, i: usize, b: u8) -> (char, usize) {
        let cont = |k: usize| (self.bytes[i + k] & 0x3f) as u32;
        let (c, n) = if b < 0xe0 {
            (((b & 0x1f) as u32) << 6 | cont(1), 2)
        } else if b < 0xf0 {
            (((b & 0x0f) as u32) << 12 | cont(1) << 6 | cont(2), 3)
        } else {
            (
                ((b & 0x07) as u32) << 18 | cont(1) << 12 | cont(2) << 6 | cont(3),
                4,
            )
        };
        // Valid UTF-8 decodes to a scalar value.
        (char::from_u32(c).unwrap_or('\u{fffd}'), n)
    }

    /// The end of the run of characters in `class` from `i`.
    #[inline]
    fn run(&self, mut i: usize, class: u8) -> usize {
        loop {
            let (c, n) = self.at(i);
            if c & class == 0 {
                return i;
            }
            i += n;
        }
    }

    /// Past `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i`, or `i`. Under Unicode case folding `s`
    /// also matches `ſ` (U+017F); no other of these letters has a third case.
    #[inline]
    fn contraction(&self, i: usize) -> usize {
        let b = self.bytes;
        if b.get(i) != Some(&b'\'') {
            return i;
        }
        let lower = |k: usize| b.get(i + k).map(|c| c.to_ascii_lowercase());
        match lower(1) {
            Some(b's' | b't' | b'm' | b'd') => i + 2,
            Some(b'r' | b'v') if lower(2) == Some(b'e') => i + 3,
            Some(b'l') if lower(2) == Some(b'l') => i + 3,
            Some(0xc5) if b.get(i + 2) == Some(&0xbf) => i + 3,
            _ => i,
        }
    }

    /// `[UP]*[LOW]+(contraction)?` at `q`.
    #[inline]
    fn upper_then_lower(&self, q: usize) -> Option<usize> {
        // The greedy `[UP]*` backs off to the last point where `[LOW]+` can start: after the
        // whole run when a lowercase letter follows it, else at the run's last character that
        // is in both classes (then `[LOW]+` is that one character: what follows it in the run
        // is uppercase or titlecase).
        let mut i = q;
        let mut last_both = None;
        loop {
            let (c, n) = self.at(i);
            if c & UP == 0 {
                break;
            }
            i += n;
            if c & LOW != 0 {
                last_both = Some(i);
            }
        }
        let end = if self.at(i).0 & LOW != 0 {
            self.run(i, LOW)
        } else {
            last_both?
        };
        Some(self.contraction(end))
    }

    /// `[UP]+[LOW]*(contraction)?` at `q`.
    #[inline]
    fn upper_maybe_lower(&self, q: usize) -> Option<usize> {
        let i = self.run(q, UP);
        (i > q).then(|| self.contraction(self.run(i, LOW)))
    }

    /// `\p{N}{1,3}` at `p`.
    #[inline]
    fn digits(&self, p: usize) -> usize {
        let mut i = p;
        for _ in 0..3 {
            let (c, n) = self.at(i);
            if c & N == 0 {
                break;
            }
            i += n;
        }
        i
    }

    /// `' '?[^\s\p{L}\p{N}]+` and then the run of bytes in `trail`, at `p`.
    #[inline]
    fn punctuation(&self, p: usize, trail: &[u8]) -> Option<usize> {
        let mut i = p;
        if self.bytes[p] == b' ' && other(self.at(p + 1).0) {
            i += 1;
        }
        let (c, n) = self.at(i);
        if !other(c) {
            return None;
        }
        i += n;
        loop {
            let (c, n) = self.at(i);
            if !other(c) {
                break;
            }
            i += n;
        }
        while self.bytes.get(i).is_some_and(|b| trail.contains(b)) {
            i += 1;
        }
        Some(i)
    }

    /// `\s*[\r\n]+ | \s+$ | \s+(?!\S) | \s+` at `p`, a white space character.
    #[inline]
    fn space(&self, p: usize) -> usize {
        let (mut i, mut last, mut newline) = (p, p, None);
        loop {
            let (c, n) = self.at(i);
            if c & S == 0 {
                break;
            }
            last = i;
            i += n;
            if c & NL != 0 {
                newline = Some(i);
            }
        }
        if let Some(end) = newline {
            end // up to the run's last line break
        } else if i == self.bytes.len() || last == p {
            i // the run ends the text, or is one character
        } else {
            last // leave the last space to the word after it
        }
    }

    /// A word of ASCII letters at `p`, perhaps after an ASCII character that may stand before
    /// one, when an ASCII character (or the end) follows it: there each letter is in exactly one
    /// of o200k_base's classes, so both word alternatives match the uppercase run, then the
    /// lowercase run, then a contraction. `None` where the general scan decides.
    #[inline(always)]
    fn ascii_word(&self, p: usize) -> Option<usize> {
        let b = self.bytes;
        let mut i = p;
        let c = b[i];
        if !c.is_ascii_alphabetic() {
            if c >= 0x80 || c.is_ascii_digit() || c == b'\r' || c == b'\n' {
                return None;
            }
            i += 1;
            if !b.get(i)?.is_ascii_alphabetic() {
                return None;
            }
        }
        while b.get(i).is_some_and(u8::is_ascii_uppercase) {
            i += 1;
        }
        let i = lowercase_run(b, i);
        if b.get(i).is_some_and(|&next| next >= 0x80) {
            return None;
        }
        Some(self.contraction(i))
    }

    /// The piece at `p` when it starts with an ASCII character that is no letter and an ASCII
    /// character that is no letter (or the end) follows: then no word alternative matches (a
    /// word takes at most one character before its letters, and neither is a letter or a
    /// mark), and the piece is digits, punctuation or white space. `None` where the general
    /// scan decides.
    #[inline(always)]
    fn ascii_other(&self, p: usize, trail: &[u8]) -> Option<usize> {
        let b = self.bytes;
        let c = b[p];
        match b.get(p + 1) {
            Some(&next) if next >= 0x80 || next.is_ascii_alphabetic() => return None,
            _ => {}
        }
        let class = ASCII[c as usize];
        if class & L != 0 {
            return None;
        }
        Some(if class & N != 0 {
            self.digits(p)
        } else if class & S == 0 {
            self.punctuation(p, trail)
                .expect("punctuation opens a piece")
        } else if c == b' ' {
            self.punctuation(p, trail).unwrap_or_else(|| self.space(p))
        } else {
            self.space(p)
        })
    }

    /// The piece at `p`: the ASCII words, punctuation and white space that make most text
    /// found here, the rest by [`Scan::o200k_general`].
    #[inline(always)]
    fn o200k(&self, p: usize) -> usize {
        if let Some(end) = self.ascii_word(p) {
            return end;
        }
        if self.bytes[p] < 0x80 {
            if let Some(end) = self.ascii_other(p, b"\r\n/") {
                return end;
            }
        }
        self.o200k_general(p)
    }

    #[inline(never)]
    fn o200k_general(&self, p: usize) -> usize {
        let (c, n) = self.at(p);
        if c & L != 0 {
            // A letter opens a word: an uppercase-then-lowercase one, or all uppercase.
            return self
                .upper_then_lower(p)
                .or_else(|| self.upper_maybe_lower(p))
                .expect("a letter is in UP or LOW");
        }
        if before_word(c) {
            let word = |prefix: bool| {
                let q = if prefix { p + n } else { p };
                self.upper_then_lower(q)
            };
            // A mark is both a character before a word and a word's first character.
            let mark = c & (UP | LOW) != 0;
            if let Some(end) = word(true).or_else(|| word(false).filter(|_| mark)) {
                return end;
            }
            let word = |prefix: bool| {
                let q = if prefix { p + n } else { p };
                self.upper_maybe_lower(q)
            };
            if let Some(end) = word(true).or_else(|| word(false).filter(|_| mark)) {
                return end;
            }
        }
        if c & N != 0 {
            return self.digits(p);
        }
        if let Some(end) = self.punctuation(p, b"\r\n/") {
            return end;
        }
        self.space(p)
    }

    fn cl100k(&self, p: usize) -> usize {
        let (c, n) = self.at(p);
        if c & L != 0 {
            return self.run(p, L);
        }
        let contraction = self.contraction(p);
        if contraction > p {
            return contraction;
        }
        if before_word(c) && self.at(p + n).0 & L != 0 {
            return self.run(p + n, L);
        }
        if c & N != 0 {
            return self.digits(p);
        }
        if let Some(end) = self.punctuation(p, b"\r\n") {
            return end;
        }
        self.space(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str, pattern: Pattern) -> Vec<&str> {
        split(text, pattern).collect()
    }

    #[test]
    fn words_take_the_space_before_them() {
        assert_eq!(
            pieces("Hello  world's", Pattern::O200k),
            ["Hello", " ", " world's"]
        );
        assert_eq!(
            pieces("Hello  world's", Pattern::Cl100k),
            ["Hello", " ", " world", "'s"]
        );
    }

    #[test]
    fn case_changes_split_o200k_words() {
        assert_eq!(pieces("camelCase", Pattern::O200k), ["camel", "Case"]);
        assert_eq!(pieces("HTTPServer", Pattern::O200k), ["HTTPServer"]);
        assert_eq!(pieces("DON'T", Pattern::O200k), ["DON'T"]);
        assert_eq!(pieces("camelCase", Pattern::Cl100k), ["camelCase"]);
    }

    #[test]
    fn digits_come_in_threes_and_lines_end_runs() {
        assert_eq!(pieces("12345", Pattern::O200k), ["123", "45"]);
        assert_eq!(
            pieces("a \n\n  b", Pattern::O200k),
            ["a", " \n\n", " ", " b"]
        );
        assert_eq!(pieces("x  ", Pattern::Cl100k), ["x", "  "]);
        assert_eq!(pieces("});\n//", Pattern::O200k), ["});\n//"]);
        assert_eq!(pieces("});\n//", Pattern::Cl100k), ["});\n", "//"]);
    }
}

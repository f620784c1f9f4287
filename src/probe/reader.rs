//! Random-access reading of an image's first bytes, from raw bytes or from base64 text.
//!
//! Base64 maps every 4 alphabet characters to 3 bytes, so a reader can start at any 4-character
//! boundary. Skipping `n` decoded bytes therefore only has to find where the `4·n/3`-th alphabet
//! character lies; nothing is decoded. Line breaks and other white space may sit anywhere in a
//! data URL, so the skip counts them out with a branch-free (vectorisable) pass instead of
//! assuming their absence.

use super::ProbeError;

/// A forward-only reader over the start of an encoded image.
pub(crate) enum Reader<'a> {
    Raw { bytes: &'a [u8], pos: usize },
    Base64(Base64Reader<'a>),
}

impl<'a> Reader<'a> {
    pub(crate) fn raw(bytes: &'a [u8]) -> Self {
        Reader::Raw { bytes, pos: 0 }
    }

    pub(crate) fn base64(text: &'a [u8]) -> Self {
        Reader::Base64(Base64Reader::new(text))
    }

    pub(crate) fn byte(&mut self) -> Result<u8, ProbeError> {
        match self {
            Reader::Raw { bytes, pos } => {
                let b = *bytes.get(*pos).ok_or(ProbeError::Truncated)?;
                *pos += 1;
                Ok(b)
            }
            Reader::Base64(r) => r.byte(),
        }
    }

    /// Reads exactly `N` bytes.
    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], ProbeError> {
        let mut out = [0u8; N];
        for slot in &mut out {
            *slot = self.byte()?;
        }
        Ok(out)
    }

    pub(crate) fn u16_be(&mut self) -> Result<u16, ProbeError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    /// Skips `n` bytes without decoding them.
    pub(crate) fn skip(&mut self, n: usize) -> Result<(), ProbeError> {
        match self {
            Reader::Raw { bytes, pos } => {
                let end = pos.checked_add(n).filter(|&e| e <= bytes.len());
                *pos = end.ok_or(ProbeError::Truncated)?;
                Ok(())
            }
            Reader::Base64(r) => r.skip(n),
        }
    }
}

/// Decodes base64 (standard or URL-safe alphabet, padding optional, white space ignored)
/// one 4-character group at a time.
pub(crate) struct Base64Reader<'a> {
    text: &'a [u8],
    /// Index in `text` of the next undecoded character.
    pos: usize,
    group: [u8; 3],
    group_len: u8,
    group_pos: u8,
}

const INVALID: u8 = 0xFF;
pub(crate) const PAD: u8 = 0xFE;
pub(crate) const SPACE: u8 = 0xFD;

const fn decode_table() -> [u8; 256] {
    let mut t = [INVALID; 256];
    let mut i = 0;
    while i < 26 {
        t[b'A' as usize + i] = i as u8;
        t[b'a' as usize + i] = 26 + i as u8;
        i += 1;
    }
    let mut d = 0;
    while d < 10 {
        t[b'0' as usize + d] = 52 + d as u8;
        d += 1;
    }
    t[b'+' as usize] = 62;
    t[b'-' as usize] = 62;
    t[b'/' as usize] = 63;
    t[b'_' as usize] = 63;
    t[b'=' as usize] = PAD;
    t[b' ' as usize] = SPACE;
    t[b'\t' as usize] = SPACE;
    t[b'\n' as usize] = SPACE;
    t[b'\r' as usize] = SPACE;
    t[0x0C] = SPACE;
    t
}

pub(crate) static TABLE: [u8; 256] = decode_table();

impl<'a> Base64Reader<'a> {
    fn new(text: &'a [u8]) -> Self {
        Base64Reader {
            text,
            pos: 0,
            group: [0; 3],
            group_len: 0,
            group_pos: 0,
        }
    }

    fn byte(&mut self) -> Result<u8, ProbeError> {
        if self.group_pos == self.group_len {
            self.decode_group()?;
        }
        let b = self.group[self.group_pos as usize];
        self.group_pos += 1;
        Ok(b)
    }

    /// Decodes the next group of up to 4 characters into `self.group`.
    fn decode_group(&mut self) -> Result<(), ProbeError> {
        let mut sextets = [0u8; 4];
        let mut n = 0;
        while n < 4 {
            let Some(&c) = self.text.get(self.pos) else {
                break;
            };
            match TABLE[c as usize] {
                SPACE => self.pos += 1,
                PAD => break,
                INVALID => return Err(ProbeError::InvalidBase64),
                v => {
                    sextets[n] = v;
                    n += 1;
                    self.pos += 1;
                }
            }
        }
        // A lone trailing character carries fewer than 8 bits: nothing to decode.
        if n < 2 {
            return Err(ProbeError::Truncated);
        }
        let bits = (u32::from(sextets[0]) << 18)
            | (u32::from(sextets[1]) << 12)
            | (u32::from(sextets[2]) << 6)
            | u32::from(sextets[3]);
        self.group = [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8];
        self.group_len = (n - 1) as u8;
        self.group_pos = 0;
        Ok(())
    }

    fn skip(&mut self, mut n: usize) -> Result<(), ProbeError> {
        let buffered = usize::from(self.group_len - self.group_pos);
        if n <= buffered {
            self.group_pos += n as u8;
            return Ok(());
        }
        n -= buffered;
        self.group_pos = self.group_len;
        // Whole groups are skipped as characters; the remainder is decoded normally.
        self.skip_alphabet_chars((n / 3).checked_mul(4).ok_or(ProbeError::Truncated)?)?;
        for _ in 0..n % 3 {
            self.byte()?;
        }
        Ok(())
    }

    /// Advances past `count` base64 alphabet characters, stepping over white space.
    fn skip_alphabet_chars(&mut self, mut count: usize) -> Result<(), ProbeError> {
        while count > 0 {
            let end = self.pos.checked_add(count).ok_or(ProbeError::Truncated)?;
            let window = self.text.get(self.pos..end).ok_or(ProbeError::Truncated)?;
            // Counting (not searching) keeps this loop branch-free, so it vectorises. Every
            // white-space character is at most 0x20; alphabet characters are above it. Skipped
            // data is not validated: it is not read.
            let spaces = window
                .chunks(255)
                .map(|chunk| {
                    let n = chunk.iter().fold(0u8, |n, &c| n + u8::from(c <= b' '));
                    usize::from(n)
                })
                .sum::<usize>();
            self.pos = end;
            count = spaces;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(text: &str) -> Vec<u8> {
        let mut r = Reader::base64(text.as_bytes());
        let mut out = Vec::new();
        while let Ok(b) = r.byte() {
            out.push(b);
        }
        out
    }

    #[test]
    fn decodes_both_alphabets_with_and_without_padding() {
        assert_eq!(decode_all("aGVsbG8="), b"hello");
        assert_eq!(decode_all("aGVsbG8"), b"hello");
        assert_eq!(decode_all("aGVs\r\nbG8="), b"hello");
        assert_eq!(decode_all("-_-_"), [0xfb, 0xff, 0xbf]);
        assert_eq!(decode_all("+/+/"), [0xfb, 0xff, 0xbf]);
    }

    #[test]
    fn skip_matches_sequential_reading_with_white_space_anywhere() {
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let plain = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &data);
        let wrapped: String = plain
            .as_bytes()
            .chunks(7)
            .map(|c| std::str::from_utf8(c).unwrap().to_owned() + "\n ")
            .collect();
        for text in [&plain, &wrapped] {
            for start in [0usize, 1, 2, 3, 4, 100, 998] {
                for n in [0usize, 1, 2, 3, 4, 5, 299, 300] {
                    let mut r = Reader::base64(text.as_bytes());
                    r.skip(start).unwrap();
                    let skipped = r.skip(n);
                    let at = start + n;
                    if at >= data.len() {
                        assert!(skipped.is_err() || r.byte().is_err());
                    } else {
                        skipped.unwrap();
                        assert_eq!(r.byte().unwrap(), data[at], "start {start} n {n}");
                    }
                }
            }
        }
    }

    #[test]
    fn invalid_characters_are_errors_not_panics() {
        let mut r = Reader::base64(b"ab$d");
        assert_eq!(r.byte(), Err(ProbeError::InvalidBase64));
        let mut r = Reader::base64(b"a");
        assert_eq!(r.byte(), Err(ProbeError::Truncated));
    }
}

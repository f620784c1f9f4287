//! Documents and audio: a PDF's page count and page size, an audio file's duration, read from
//! the file's structure and headers without rendering or decoding anything (DESIGN §3).
//!
//! Unlike an image's size, which sits in its first bytes, a PDF's page count is reached from
//! the trailer at its end and an MP3's length may need its frames walked, so these readers see
//! the whole file: base64 is decoded once into a buffer (¾ of the text's size, freed when the
//! probe returns). Every reader is bounded (no recursion past [`MAX_DEPTH`], no object read
//! twice, no stream inflated past [`MAX_INFLATED`], the streams a PDF holds inflated at once
//! within [`inflate_budget`] of its size) and answers an error, never a panic.
//!
//! ```
//! use ankita::probe::file::{probe_file_bytes, AudioFormat, FileInfo};
//! // A WAV header: 8 kHz, mono, 16 bits (16,000 bytes a second), 32,000 bytes of samples.
//! let mut wav = b"RIFF\0\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x80\x3e\0\0\x02\0\x10\0data".to_vec();
//! wav.extend_from_slice(&32_000u32.to_le_bytes());
//! wav.resize(wav.len() + 32_000, 0);
//! let FileInfo::Audio(audio) = probe_file_bytes(&wav).unwrap() else { panic!() };
//! assert_eq!((audio.format, audio.millis), (AudioFormat::Wav, 2000));
//! ```

pub use super::file_info::{
    inflate_budget, AudioFormat, AudioInfo, DocumentInfo, FileError, FileInfo, FileKind,
    INFLATED_FLOOR, INFLATED_PER_BYTE, MAX_DEPTH, MAX_INFLATED,
};
use super::{data_url_payload, is_data_url};

/// Reads a document's or audio file's raw bytes: the format is sniffed from its magic bytes.
pub fn probe_file_bytes(bytes: &[u8]) -> Result<FileInfo, FileError> {
    if super::pdf::matches(bytes) {
        return super::pdf::read(bytes).map(FileInfo::Document);
    }
    super::audio::read(bytes).map(FileInfo::Audio)
}

/// Reads base64 text (either alphabet, padding optional, white space ignored).
pub fn probe_file_base64(text: &str) -> Result<FileInfo, FileError> {
    probe_file_bytes(&decode_base64(text.as_bytes())?)
}

/// Reads a data URL or bare base64 text (the media type is not trusted).
pub fn probe_file_text(text: &str) -> Result<FileInfo, FileError> {
    if is_data_url(text) {
        probe_file_bytes(&decode_base64(data_url_payload(text)?)?)
    } else {
        probe_file_base64(text.trim_start())
    }
}

/// The bytes of base64 text: either alphabet, padding optional, white space anywhere.
pub(crate) fn decode_base64(text: &[u8]) -> Result<Vec<u8>, FileError> {
    let table = &super::reader::TABLE;
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let (mut acc, mut n) = (0u32, 0u8);
    let mut padded = false;
    for &c in text {
        let v = table[c as usize];
        if v < 64 {
            if padded {
                return Err(FileError::NotBase64);
            }
            acc = (acc << 6) | u32::from(v);
            n += 1;
            if n == 4 {
                out.extend_from_slice(&[(acc >> 16) as u8, (acc >> 8) as u8, acc as u8]);
                (acc, n) = (0, 0);
            }
        } else if v == super::reader::PAD {
            padded = true;
        } else if v != super::reader::SPACE {
            return Err(FileError::NotBase64);
        }
    }
    match n {
        0 => {}
        2 => out.push((acc >> 4) as u8),
        3 => out.extend_from_slice(&[(acc >> 10) as u8, (acc >> 2) as u8]),
        _ => return Err(FileError::NotBase64),
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_like_the_reference() {
        use base64::Engine;
        let data: Vec<u8> = (0..=255u8).cycle().take(1001).collect();
        for n in [0usize, 1, 2, 3, 4, 5, 1000, 1001] {
            let text = base64::engine::general_purpose::STANDARD.encode(&data[..n]);
            assert_eq!(decode_base64(text.as_bytes()).unwrap(), &data[..n]);
            let bare = text.trim_end_matches('=');
            assert_eq!(decode_base64(bare.as_bytes()).unwrap(), &data[..n]);
        }
        assert_eq!(decode_base64(b"aGVs\nbG8="), Ok(b"hello".to_vec()));
        assert_eq!(decode_base64(b"a"), Err(FileError::NotBase64));
        assert_eq!(decode_base64(b"ab$d"), Err(FileError::NotBase64));
        assert_eq!(decode_base64(b"aGU=bG8="), Err(FileError::NotBase64));
    }

    #[test]
    fn unknown_and_empty_inputs_are_errors() {
        assert_eq!(probe_file_bytes(b""), Err(FileError::UnknownFormat));
        assert_eq!(probe_file_bytes(b"hello"), Err(FileError::UnknownFormat));
        assert_eq!(
            probe_file_text("data:application/pdf,xx"),
            Err(FileError::NotBase64)
        );
    }
}

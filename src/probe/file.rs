//! Documents and audio: a PDF's page count and page size, an audio file's duration, read from
//! the file's structure and headers without rendering or decoding anything (DESIGN §3).
//!
//! Unlike an image's size, which sits in its first bytes, a PDF's page count is reached from
//! the trailer at its end and an MP3's length may need its frames walked, so these readers see
//! the whole file: base64 is decoded once into a buffer (¾ of the text's size, freed when the
//! probe returns). Every reader is bounded (no recursion past [`MAX_DEPTH`], no object read
//! twice, no stream inflated past [`MAX_INFLATED`]) and answers an error, never a panic.
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

use super::{data_url_payload, is_data_url, ProbeError};
use std::fmt;

/// Nested containers (PDF arrays and dictionaries, MP4 boxes) deeper than this are malformed.
pub const MAX_DEPTH: usize = 64;
/// No stream (a PDF cross-reference or object stream) is inflated past this many bytes.
pub const MAX_INFLATED: usize = 64 << 20;

/// What a file is, as far as pricing goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    Document,
    Audio,
}

impl FileKind {
    /// `"document"` or `"audio"`.
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Document => "document",
            FileKind::Audio => "audio",
        }
    }
}

/// The audio containers the probe reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AudioFormat {
    Wav,
    Flac,
    Mp3,
    /// Ogg Vorbis.
    Vorbis,
    /// Ogg Opus.
    Opus,
    /// MP4 / M4A (AAC or ALAC in an ISO media file).
    Mp4,
}

impl AudioFormat {
    /// Lower-case name used in JSON (`"wav"`, `"flac"`, `"mp3"`, `"vorbis"`, `"opus"`, `"mp4"`).
    pub fn as_str(self) -> &'static str {
        match self {
            AudioFormat::Wav => "wav",
            AudioFormat::Flac => "flac",
            AudioFormat::Mp3 => "mp3",
            AudioFormat::Vorbis => "vorbis",
            AudioFormat::Opus => "opus",
            AudioFormat::Mp4 => "mp4",
        }
    }

    /// Display name (`"WAV"`, `"Ogg Vorbis"`, …).
    pub fn display_name(self) -> &'static str {
        match self {
            AudioFormat::Wav => "WAV",
            AudioFormat::Flac => "FLAC",
            AudioFormat::Mp3 => "MP3",
            AudioFormat::Vorbis => "Ogg Vorbis",
            AudioFormat::Opus => "Ogg Opus",
            AudioFormat::Mp4 => "MP4",
        }
    }
}

/// A PDF's page count and the size of its first page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DocumentInfo {
    /// At least 1.
    pub pages: u32,
    /// The first page's size in PDF points (1/72 inch), rotation applied; `None` when its
    /// `/MediaBox` could not be read.
    pub page_size: Option<(u32, u32)>,
}

/// An audio file's container and duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AudioInfo {
    pub format: AudioFormat,
    /// Duration in milliseconds, rounded up.
    pub millis: u64,
}

impl AudioInfo {
    /// Whole seconds, rounded up (what a per-second price counts).
    pub fn seconds(self) -> u64 {
        self.millis.div_ceil(1000)
    }
}

/// What a document or audio file's structure says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileInfo {
    Document(DocumentInfo),
    Audio(AudioInfo),
}

impl FileInfo {
    pub fn kind(self) -> FileKind {
        match self {
            FileInfo::Document(_) => FileKind::Document,
            FileInfo::Audio(_) => FileKind::Audio,
        }
    }

    /// `"pdf"`, or the audio format's name.
    pub fn format_name(self) -> &'static str {
        match self {
            FileInfo::Document(_) => "pdf",
            FileInfo::Audio(a) => a.format.as_str(),
        }
    }
}

/// Why a document or audio file could not be read. Each means the file is priced by the
/// conservative rule of its kind ([`crate::profiles::files`]), with a report warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileError {
    /// The text is not a `data:…;base64,…` URL, or not base64.
    NotBase64,
    /// Neither a PDF nor an audio format the probe reads.
    UnknownFormat,
    /// A PDF or audio file whose structure is cut off or inconsistent.
    Malformed,
    /// An encrypted PDF.
    Encrypted,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileError::NotBase64 => "not base64 data",
            FileError::UnknownFormat => "unknown document or audio format",
            FileError::Malformed => "malformed document or audio file",
            FileError::Encrypted => "encrypted PDF",
        })
    }
}

impl std::error::Error for FileError {}

impl From<ProbeError> for FileError {
    fn from(e: ProbeError) -> Self {
        match e {
            ProbeError::NotDataUrl | ProbeError::InvalidBase64 => FileError::NotBase64,
            ProbeError::UnknownFormat => FileError::UnknownFormat,
            _ => FileError::Malformed,
        }
    }
}

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

/// Little-endian and big-endian integers at `at`, `None` past the end.
pub(crate) fn le32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}
pub(crate) fn le16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}
pub(crate) fn le64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        b.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}
pub(crate) fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}
pub(crate) fn be64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(
        b.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

/// `count` units of `1/rate` seconds in milliseconds, rounded up; `None` for a zero rate.
pub(crate) fn millis(count: u64, rate: u64) -> Option<u64> {
    if rate == 0 {
        return None;
    }
    let ms = (u128::from(count) * 1000).div_ceil(u128::from(rate));
    u64::try_from(ms).ok()
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

//! What the document and audio readers answer ([`FileInfo`], [`FileError`]), their bounds, and
//! the byte readers they share ([`crate::probe::file`] runs them).

use super::ProbeError;
use std::fmt;

/// Nested containers (PDF arrays and dictionaries, MP4 boxes) deeper than this are malformed.
pub const MAX_DEPTH: usize = 64;
/// No stream (a PDF cross-reference or object stream) is inflated past this many bytes.
pub const MAX_INFLATED: usize = 64 << 20;
/// What the streams a PDF's reading holds inflated at once may add up to: this many times the
/// file's size…
pub const INFLATED_PER_BYTE: usize = 4;
/// …over this much (a small file's streams).
pub const INFLATED_FLOOR: usize = 1 << 20;

/// The most a PDF of `len` bytes may hold inflated at once while it is read: deflate can
/// expand a stream 1,032-fold (88 KB of request carried a cross-reference stream of 68 MB),
/// but the memory of a trim is bounded by its input's size.
pub fn inflate_budget(len: usize) -> usize {
    len.saturating_mul(INFLATED_PER_BYTE)
        .saturating_add(INFLATED_FLOOR)
        .min(MAX_INFLATED)
}

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

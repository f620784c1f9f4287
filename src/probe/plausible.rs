//! Whether an image header can be a real image's: a crafted header (a PNG claiming
//! 4294967295×1 pixels) must not be priced at the millions of tokens it states.

use super::file::{AudioFormat, FileInfo};
use super::{ImageFormat, ImageInfo};

/// No side of a real image is larger: the most a JPEG or GIF header can state, and over eight
/// times the largest any provider documents (Anthropic: 8,000 px). Only PNG and WebP (VP8X)
/// headers can claim more.
pub const MAX_PLAUSIBLE_SIDE: u32 = 65_535;

/// The most pixels a PNG can hold per byte of its encoded payload: deflate compresses at most
/// 1032:1, and a pixel takes at least one bit before compression (1-bit grey), so
/// 8 × 1032 = 8,256.
pub const MAX_PNG_PIXELS_PER_BYTE: u64 = 8 * 1032;

/// Whether a header cannot be a real image's: a side over [`MAX_PLAUSIBLE_SIDE`], or a PNG with
/// more pixels than [`MAX_PNG_PIXELS_PER_BYTE`] times the bytes its payload can hold
/// (`encoded_len` base64 characters, the data URL's prefix included, decode to at most
/// 3/4 as many bytes). JPEG, GIF and WebP get the side rule only: arithmetic-coded JPEG and
/// lossless WebP can spend a fraction of a bit on a block of pixels, so their payload bounds
/// no pixel count usefully.
///
/// ```
/// use ankita::probe::plausible::is_implausible;
/// use ankita::probe::{ImageFormat, ImageInfo};
/// let strip = ImageInfo { format: ImageFormat::Png, width: u32::MAX, height: 1 };
/// assert!(is_implausible(&strip, 1_000_000));
/// let screen = ImageInfo { format: ImageFormat::Png, width: 1920, height: 1080 };
/// assert!(!is_implausible(&screen, 400)); // 2.07 MP in 300 bytes: possible for a flat image
/// assert!(is_implausible(&screen, 200));
/// ```
pub fn is_implausible(info: &ImageInfo, encoded_len: usize) -> bool {
    if info.width > MAX_PLAUSIBLE_SIDE || info.height > MAX_PLAUSIBLE_SIDE {
        return true;
    }
    if info.format != ImageFormat::Png {
        return false;
    }
    let pixels = u128::from(info.width.max(1)) * u128::from(info.height.max(1));
    let payload = encoded_len as u128 * 3 / 4;
    pixels > u128::from(MAX_PNG_PIXELS_PER_BYTE) * payload
}

/// The most pages a PDF can hold per byte of the file: one. Every page is an object of its own
/// (a `/Type /Page` dictionary naming its parent) with an entry in the cross-reference table or
/// stream and a reference in its parent's `/Kids`: blank pages packed in a compressed object
/// stream still take over ten bytes each. A page tree that claims more (a `/Count` of
/// 1,000,000,000 in a file of 88 KB) is not the file's.
pub const MAX_PDF_PAGES_PER_BYTE: u64 = 1;

/// The most milliseconds of sound a byte of `format` can carry: twice what the codec's lowest
/// rate (silence included) gives, so that no real file comes near it.
///
/// | Format | Lowest rate | ms a byte |
/// |---|---|---|
/// | WAV | GSM 6.10 at 8 kHz, 1,625 bytes a second (PCM and ADPCM take more) | 2 |
/// | MP3 | 8 kbit/s (MPEG-2.5 layer III: a 72-byte frame for 72 ms) | 2 |
/// | MP4 | AAC silence: a frame of a few bytes (and its size entry) for 1,024 samples, 2,048 with SBR, at 8 kHz | 128 |
/// | Ogg Opus | DTX: a 1-byte packet (and its lacing byte) for up to 120 ms | 120 |
/// | Ogg Vorbis | a 1-byte packet (and its lacing byte) for up to 4,096 samples at 8 kHz | 512 |
/// | FLAC | a constant subframe: about ten bytes for a frame of 65,535 samples at 8 kHz | 2,000 |
pub fn max_millis_per_byte(format: AudioFormat) -> u64 {
    match format {
        AudioFormat::Wav | AudioFormat::Mp3 => 2,
        AudioFormat::Mp4 => 128,
        AudioFormat::Opus => 120,
        AudioFormat::Vorbis => 512,
        AudioFormat::Flac => 2_000,
    }
}

/// Whether a document's or audio file's structure claims more than a file of `bytes` bytes can
/// hold: more pages than [`MAX_PDF_PAGES_PER_BYTE`] allows, or a longer duration than
/// [`max_millis_per_byte`] of its codec (an Ogg Opus stream whose last granule position is −2
/// claims 12 million years). Such a file is priced as an unreadable one of its size
/// ([`crate::profiles::files`]), and the report warns.
///
/// ```
/// use ankita::probe::file::{AudioFormat, AudioInfo, DocumentInfo, FileInfo};
/// use ankita::probe::plausible::is_implausible_file;
/// let claims = FileInfo::Document(DocumentInfo { pages: 1_000_000_000, page_size: None });
/// assert!(is_implausible_file(&claims, 88_000));
/// let report = FileInfo::Document(DocumentInfo { pages: 10, page_size: None });
/// assert!(!is_implausible_file(&report, 4_200));
/// let opus = FileInfo::Audio(AudioInfo { format: AudioFormat::Opus, millis: u64::MAX / 48 });
/// assert!(is_implausible_file(&opus, 17_940));
/// ```
pub fn is_implausible_file(info: &FileInfo, bytes: u64) -> bool {
    match info {
        FileInfo::Document(d) => u64::from(d.pages) > bytes.saturating_mul(MAX_PDF_PAGES_PER_BYTE),
        FileInfo::Audio(a) => a.millis > bytes.saturating_mul(max_millis_per_byte(a.format)),
    }
}

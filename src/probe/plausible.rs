//! Whether an image header can be a real image's: a crafted header (a PNG claiming
//! 4294967295×1 pixels) must not be priced at the millions of tokens it states.

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

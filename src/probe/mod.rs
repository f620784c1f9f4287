//! Image format and pixel size from the header alone.
//!
//! The probe reads a few dozen bytes at the start of the image (more for a JPEG, whose metadata
//! segments are skipped by length) and never decodes the payload, so a 20 MB screenshot costs
//! the same to probe as a 20 KB one. The format is sniffed from magic bytes, never taken from
//! a data URL's media type.
//!
//! ```
//! use ankita::probe::{probe_bytes, ImageFormat};
//! let gif = b"GIF89a\x40\x01\xf0\x00\xf7\x00\x00";
//! let info = probe_bytes(gif).unwrap();
//! assert_eq!((info.format, info.width, info.height), (ImageFormat::Gif, 320, 240));
//! ```
//!
//! Documents and audio are read by [`file`]: a PDF's page count, an audio file's duration.

mod audio;
pub mod file;
pub(crate) mod file_info;
mod gif;
mod jpeg;
mod mp3;
mod mp4;
mod ogg;
mod pdf;
mod pdf_syntax;
pub mod plausible;
mod png;
pub(crate) mod reader;
pub mod stand_in;
mod webp;

use reader::Reader;
use std::fmt;

/// The image formats the probe reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl ImageFormat {
    /// Lower-case name used in JSON (`"png"`, `"jpeg"`, `"gif"`, `"webp"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ImageFormat::Png => "png",
            ImageFormat::Jpeg => "jpeg",
            ImageFormat::Gif => "gif",
            ImageFormat::Webp => "webp",
        }
    }

    /// Display name used in human-readable text (`"PNG"`, `"WebP"`, …).
    pub fn display_name(self) -> &'static str {
        match self {
            ImageFormat::Png => "PNG",
            ImageFormat::Jpeg => "JPEG",
            ImageFormat::Gif => "GIF",
            ImageFormat::Webp => "WebP",
        }
    }
}

impl fmt::Display for ImageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.display_name())
    }
}

/// What the header says: format and pixel size (both sides at least 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageInfo {
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
}

/// Why an image could not be read. Every variant means "not decodable": the image is then
/// priced at its URL's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeError {
    /// The text is not a `data:…;base64,…` URL.
    NotDataUrl,
    /// A character outside both base64 alphabets.
    InvalidBase64,
    /// No known magic bytes (BMP, TIFF, SVG, text, …).
    UnknownFormat,
    /// The data ends before the size field.
    Truncated,
    /// The header is inconsistent (wrong chunk, bad marker, bad signature).
    Malformed,
    /// The header declares a zero width or height.
    ZeroSize,
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProbeError::NotDataUrl => "not a base64 data URL",
            ProbeError::InvalidBase64 => "invalid base64",
            ProbeError::UnknownFormat => "unknown image format",
            ProbeError::Truncated => "truncated image header",
            ProbeError::Malformed => "malformed image header",
            ProbeError::ZeroSize => "zero-sized image",
        })
    }
}

impl std::error::Error for ProbeError {}

/// Probes raw image bytes.
pub fn probe_bytes(bytes: &[u8]) -> Result<ImageInfo, ProbeError> {
    probe_reader(|| Reader::raw(bytes))
}

/// Probes base64 text (standard or URL-safe alphabet, padding optional, white space ignored).
pub fn probe_base64(text: &str) -> Result<ImageInfo, ProbeError> {
    probe_reader(|| Reader::base64(text.as_bytes()))
}

/// Probes a `data:[<media type>][;param=value]*;base64,<payload>` URL.
///
/// The scheme, media type and `base64` are case-insensitive; the media type is not trusted
/// (`data:image/png;base64,` holding JPEG bytes is a JPEG).
///
/// ```
/// use ankita::probe::{probe_data_url, ProbeError};
/// assert_eq!(probe_data_url("https://example.com/cat.png"), Err(ProbeError::NotDataUrl));
/// ```
pub fn probe_data_url(url: &str) -> Result<ImageInfo, ProbeError> {
    let payload = data_url_payload(url)?;
    probe_reader(|| Reader::base64(payload))
}

/// Probes either a data URL or bare base64 text: what `ankita_probe_image` accepts.
pub fn probe_text(text: &str) -> Result<ImageInfo, ProbeError> {
    if is_data_url(text) {
        probe_data_url(text)
    } else {
        probe_base64(text.trim_start())
    }
}

/// True when `text` starts with the `data:` scheme (any case, leading white space allowed).
pub fn is_data_url(text: &str) -> bool {
    let t = text.trim_start().as_bytes();
    t.len() >= 5 && t[..5].eq_ignore_ascii_case(b"data:")
}

/// The base64 payload of a data URL.
fn data_url_payload(url: &str) -> Result<&[u8], ProbeError> {
    let url = url.trim_start();
    if !is_data_url(url) {
        return Err(ProbeError::NotDataUrl);
    }
    let rest = &url.as_bytes()[5..];
    // The header is short; a URL without a comma in its first kilobyte is not a data URL.
    let comma = rest
        .iter()
        .take(1024)
        .position(|&b| b == b',')
        .ok_or(ProbeError::NotDataUrl)?;
    let header = &rest[..comma];
    let is_base64 = header
        .rsplit(|&b| b == b';')
        .next()
        .is_some_and(|last| last.trim_ascii().eq_ignore_ascii_case(b"base64"));
    if !is_base64 || !header.contains(&b';') {
        return Err(ProbeError::NotDataUrl);
    }
    Ok(&rest[comma + 1..])
}

fn probe_reader<'a>(open: impl Fn() -> Reader<'a>) -> Result<ImageInfo, ProbeError> {
    let mut header = [0u8; 12];
    let mut len = 0;
    let mut reader = open();
    for slot in &mut header {
        match reader.byte() {
            Ok(b) => {
                *slot = b;
                len += 1;
            }
            Err(ProbeError::Truncated) => break,
            Err(e) => return Err(e),
        }
    }
    let header = &header[..len];
    let (format, signature_len, read): (_, _, fn(&mut Reader<'a>) -> _) = if png::matches(header) {
        (ImageFormat::Png, 8, png::dimensions)
    } else if jpeg::matches(header) {
        (ImageFormat::Jpeg, 2, jpeg::dimensions)
    } else if gif::matches(header) {
        (ImageFormat::Gif, 6, gif::dimensions)
    } else if webp::matches(header) {
        (ImageFormat::Webp, 12, webp::dimensions)
    } else if len < 12 && could_be_prefix_of_known(header) {
        return Err(ProbeError::Truncated);
    } else {
        return Err(ProbeError::UnknownFormat);
    };
    let mut reader = open();
    reader.skip(signature_len)?;
    let (width, height) = read(&mut reader)?;
    if width == 0 || height == 0 {
        return Err(ProbeError::ZeroSize);
    }
    Ok(ImageInfo {
        format,
        width,
        height,
    })
}

/// Distinguishes a cut-off signature ("truncated") from foreign data ("unknown format").
fn could_be_prefix_of_known(header: &[u8]) -> bool {
    const SIGNATURES: [&[u8]; 5] = [
        &[0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n'],
        &[0xFF, 0xD8, 0xFF],
        b"GIF87a",
        b"GIF89a",
        b"RIFF",
    ];
    SIGNATURES.iter().any(|sig| {
        let n = header.len().min(sig.len());
        header[..n] == sig[..n]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_url_variants() {
        // 1×1 GIF.
        let b64 = "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==";
        for url in [
            format!("data:image/gif;base64,{b64}"),
            format!("DATA:IMAGE/GIF;BASE64,{b64}"),
            format!("data:image/png;name=x.gif;base64,{b64}"),
            format!("data:image/jpg;base64,{}", b64.trim_end_matches('=')),
            format!("data:image/gif;base64,{}\n{}", &b64[..10], &b64[10..]),
        ] {
            let info = probe_data_url(&url).unwrap_or_else(|e| panic!("{url}: {e}"));
            assert_eq!(
                (info.format, info.width, info.height),
                (ImageFormat::Gif, 1, 1)
            );
        }
        assert_eq!(
            probe_data_url(&format!("data:image/gif,{b64}")),
            Err(ProbeError::NotDataUrl)
        );
        assert_eq!(probe_data_url("data:"), Err(ProbeError::NotDataUrl));
    }

    #[test]
    fn bare_base64_and_raw() {
        let b64 = "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==";
        assert_eq!(probe_text(b64).unwrap().format, ImageFormat::Gif);
        assert_eq!(probe_bytes(b"GIF8"), Err(ProbeError::Truncated));
        assert_eq!(
            probe_bytes(b"BM\0\0\0\0\0\0\0\0\0\0\0\0"),
            Err(ProbeError::UnknownFormat)
        );
        assert_eq!(probe_bytes(b""), Err(ProbeError::Truncated));
        assert_eq!(probe_bytes(b"GIF89a\0\0\x10\0"), Err(ProbeError::ZeroSize));
    }
}

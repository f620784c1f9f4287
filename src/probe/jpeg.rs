//! JPEG: walk the marker segments from SOI to the first start-of-frame (SOFn) marker.
//!
//! Segments before the frame header (EXIF, ICC profiles, comments, tables) can be tens of
//! kilobytes; they are skipped by their length field, never read.

use super::{reader::Reader, ProbeError};

pub(crate) fn matches(header: &[u8]) -> bool {
    header.starts_with(&[0xFF, 0xD8, 0xFF])
}

/// True for every start-of-frame marker: baseline, extended, progressive, lossless, in
/// Huffman and arithmetic coding (C0–CF except DHT C4, JPG C8 and DAC CC).
fn is_start_of_frame(marker: u8) -> bool {
    matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC)
}

/// Markers that stand alone, without a length field.
fn is_standalone(marker: u8) -> bool {
    matches!(marker, 0x01 | 0xD0..=0xD7)
}

/// Reads the frame size; `reader` is positioned just after the SOI marker (FF D8).
pub(crate) fn dimensions(reader: &mut Reader<'_>) -> Result<(u32, u32), ProbeError> {
    loop {
        if reader.byte()? != 0xFF {
            return Err(ProbeError::Malformed);
        }
        // Any number of FF fill bytes may precede a marker.
        let mut marker = reader.byte()?;
        while marker == 0xFF {
            marker = reader.byte()?;
        }
        if is_standalone(marker) {
            continue;
        }
        // Scan data, end of image or a stray SOI before any frame header: no size to read.
        if matches!(marker, 0x00 | 0xD8 | 0xD9 | 0xDA) {
            return Err(ProbeError::Malformed);
        }
        let length = usize::from(reader.u16_be()?);
        if length < 2 {
            return Err(ProbeError::Malformed);
        }
        if is_start_of_frame(marker) {
            let [_precision, h0, h1, w0, w1] = reader.array::<5>()?;
            let height = u16::from_be_bytes([h0, h1]);
            let width = u16::from_be_bytes([w0, w1]);
            return Ok((u32::from(width), u32::from(height)));
        }
        reader.skip(length - 2)?;
    }
}

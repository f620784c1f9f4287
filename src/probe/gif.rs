//! GIF (87a and 89a): the logical screen size follows the 6-byte signature, little-endian.

use super::{reader::Reader, ProbeError};

pub(crate) fn matches(header: &[u8]) -> bool {
    header.starts_with(b"GIF87a") || header.starts_with(b"GIF89a")
}

/// Reads the logical screen size; `reader` is positioned just after the signature.
pub(crate) fn dimensions(reader: &mut Reader<'_>) -> Result<(u32, u32), ProbeError> {
    let [w0, w1, h0, h1] = reader.array::<4>()?;
    Ok((
        u32::from(u16::from_le_bytes([w0, w1])),
        u32::from(u16::from_le_bytes([h0, h1])),
    ))
}

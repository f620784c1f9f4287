//! PNG: the signature, then the IHDR chunk whose first 8 bytes are width and height.

use super::{reader::Reader, ProbeError};

const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n'];

pub(crate) fn matches(header: &[u8]) -> bool {
    header.starts_with(&SIGNATURE)
}

/// Reads the pixel size from IHDR; `reader` is positioned just after the signature.
pub(crate) fn dimensions(reader: &mut Reader<'_>) -> Result<(u32, u32), ProbeError> {
    let [_, _, _, _, c0, c1, c2, c3] = reader.array::<8>()?;
    if [c0, c1, c2, c3] != *b"IHDR" {
        return Err(ProbeError::Malformed);
    }
    let width = u32::from_be_bytes(reader.array()?);
    let height = u32::from_be_bytes(reader.array()?);
    Ok((width, height))
}

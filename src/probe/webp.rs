//! WebP: a RIFF container whose first chunk is `VP8 ` (lossy), `VP8L` (lossless) or `VP8X`
//! (extended: alpha, animation, metadata; it carries the canvas size).

use super::{reader::Reader, ProbeError};

/// `RIFF` and `WEBP` around the 4-byte file size.
pub(crate) fn matches(header: &[u8]) -> bool {
    header.len() >= 12 && &header[0..4] == b"RIFF" && &header[8..12] == b"WEBP"
}

/// Reads the size from the first chunk; `reader` is positioned just after `WEBP`.
pub(crate) fn dimensions(reader: &mut Reader<'_>) -> Result<(u32, u32), ProbeError> {
    let fourcc = reader.array::<4>()?;
    let _chunk_len = reader.array::<4>()?;
    match &fourcc {
        b"VP8 " => {
            // 3-byte frame tag, start code 9D 01 2A, then 14-bit width and height.
            let [_, _, _, s0, s1, s2, w0, w1, h0, h1] = reader.array::<10>()?;
            if [s0, s1, s2] != [0x9D, 0x01, 0x2A] {
                return Err(ProbeError::Malformed);
            }
            let width = u16::from_le_bytes([w0, w1]) & 0x3FFF;
            let height = u16::from_le_bytes([h0, h1]) & 0x3FFF;
            Ok((u32::from(width), u32::from(height)))
        }
        b"VP8L" => {
            // Signature 0x2F, then width−1 and height−1 as two 14-bit fields.
            let [signature, b0, b1, b2, b3] = reader.array::<5>()?;
            if signature != 0x2F {
                return Err(ProbeError::Malformed);
            }
            let bits = u32::from_le_bytes([b0, b1, b2, b3]);
            Ok(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
        }
        b"VP8X" => {
            // Flags, 3 reserved bytes, then canvas width−1 and height−1 as 24-bit fields.
            let [_, _, _, _, w0, w1, w2, h0, h1, h2] = reader.array::<10>()?;
            let width = u32::from_le_bytes([w0, w1, w2, 0]) + 1;
            let height = u32::from_le_bytes([h0, h1, h2, 0]) + 1;
            Ok((width, height))
        }
        _ => Err(ProbeError::Malformed),
    }
}

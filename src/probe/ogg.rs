//! Ogg Vorbis and Ogg Opus: the granule position of the stream's last page over the sample
//! rate of its identification header (Opus: 48 kHz, less the pre-skip; RFC 7845 §4).

use super::file_info::{le16, le32, le64, millis, AudioFormat, FileError};

/// A page header: `OggS`, version, flags, granule (8), serial (4), sequence (4), CRC (4),
/// segment count, segment table.
const HEADER: usize = 27;

pub(crate) fn read(data: &[u8]) -> Result<(AudioFormat, u64), FileError> {
    let serial = le32(data, 14).ok_or(FileError::Malformed)?;
    let segments = usize::from(*data.get(26).ok_or(FileError::Malformed)?);
    let packet = data.get(HEADER + segments..).ok_or(FileError::Malformed)?;
    let (format, rate, pre_skip) = if packet.starts_with(b"\x01vorbis") {
        (
            AudioFormat::Vorbis,
            le32(packet, 12).ok_or(FileError::Malformed)?,
            0,
        )
    } else if packet.starts_with(b"OpusHead") {
        (
            AudioFormat::Opus,
            48_000,
            le16(packet, 10).ok_or(FileError::Malformed)?,
        )
    } else {
        return Err(FileError::UnknownFormat);
    };
    let granule = last_granule(data, serial).ok_or(FileError::Malformed)?;
    let samples = granule.saturating_sub(u64::from(pre_skip));
    Ok((
        format,
        millis(samples, u64::from(rate)).ok_or(FileError::Malformed)?,
    ))
}

/// The granule position of the last page of stream `serial` that ends a packet.
fn last_granule(data: &[u8], serial: u32) -> Option<u64> {
    let mut end = data.len();
    while let Some(at) = memchr::memmem::rfind(&data[..end], b"OggS") {
        end = at;
        if le32(data, at + 14) != Some(serial) {
            continue;
        }
        match le64(data, at + 6) {
            // -1: no packet ends on this page.
            Some(u64::MAX) | None => continue,
            Some(g) => return Some(g),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(granule: u64, serial: u32, body: &[u8]) -> Vec<u8> {
        let mut p = b"OggS\0\x02".to_vec();
        p.extend_from_slice(&granule.to_le_bytes());
        p.extend_from_slice(&serial.to_le_bytes());
        p.extend_from_slice(&[0; 8]);
        p.push(1);
        p.push(body.len() as u8);
        p.extend_from_slice(body);
        p
    }

    #[test]
    fn opus_duration_less_pre_skip() {
        let mut head = b"OpusHead\x01\x02".to_vec();
        head.extend_from_slice(&312u16.to_le_bytes());
        head.extend_from_slice(&48_000u32.to_le_bytes());
        let mut data = page(0, 7, &head);
        data.extend(page(48_000 * 3 + 312, 7, b"x"));
        data.extend(page(u64::MAX, 7, b"y"));
        data.extend(page(99_999_999, 8, b"other stream"));
        assert_eq!(read(&data), Ok((AudioFormat::Opus, 3000)));
        assert_eq!(read(&data[..10]), Err(FileError::Malformed));
    }
}

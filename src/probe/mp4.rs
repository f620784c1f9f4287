//! MP4 / M4A (ISO base media files): the movie header's duration over its time scale
//! (`moov` → `mvhd`, ISO 14496-12 §8.2.2), or, when that is zero (a fragmented file), the
//! longest track's media header (`trak` → `mdia` → `mdhd`).

use super::file_info::{be32, be64, millis, FileError, MAX_DEPTH};

/// The boxes of `data[start..end]`: (type, body start, body end).
fn boxes(
    data: &[u8],
    start: usize,
    end: usize,
) -> impl Iterator<Item = ([u8; 4], usize, usize)> + '_ {
    let mut at = start;
    std::iter::from_fn(move || {
        let size = be32(data, at)? as usize;
        let kind: [u8; 4] = data.get(at + 4..at + 8)?.try_into().ok()?;
        let (header, len) = match size {
            0 => (8, end.checked_sub(at)?),
            1 => (16, usize::try_from(be64(data, at + 8)?).ok()?),
            n => (8, n),
        };
        if len < header {
            return None;
        }
        let body_end = at.checked_add(len)?.min(end);
        let item = (kind, at + header, body_end);
        at = at.checked_add(len)?;
        (item.1 <= body_end).then_some(item)
    })
}

fn find(data: &[u8], start: usize, end: usize, kind: &[u8; 4]) -> Option<(usize, usize)> {
    boxes(data, start, end)
        .find(|(k, _, _)| k == kind)
        .map(|(_, s, e)| (s, e))
}

/// (time scale, duration) of an `mvhd` or `mdhd` body.
fn header_duration(data: &[u8], body: usize) -> Option<(u64, u64)> {
    match *data.get(body)? {
        0 => Some((
            u64::from(be32(data, body + 12)?),
            u64::from(be32(data, body + 16)?),
        )),
        1 => Some((u64::from(be32(data, body + 20)?), be64(data, body + 24)?)),
        _ => None,
    }
}

pub(crate) fn read(data: &[u8]) -> Result<u64, FileError> {
    let (moov, moov_end) = find(data, 0, data.len(), b"moov").ok_or(FileError::Malformed)?;
    if let Some((mvhd, _)) = find(data, moov, moov_end, b"mvhd") {
        if let Some((scale, duration)) = header_duration(data, mvhd) {
            if duration > 0 && duration != u64::from(u32::MAX) && duration != u64::MAX {
                return millis(duration, scale).ok_or(FileError::Malformed);
            }
        }
    }
    let longest = boxes(data, moov, moov_end)
        .filter(|(k, _, _)| k == b"trak")
        .take(MAX_DEPTH)
        .filter_map(|(_, s, e)| {
            let (mdia, mdia_end) = find(data, s, e, b"mdia")?;
            let (mdhd, _) = find(data, mdia, mdia_end, b"mdhd")?;
            let (scale, duration) = header_duration(data, mdhd)?;
            millis(duration, scale)
        })
        .max();
    longest.filter(|&ms| ms > 0).ok_or(FileError::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxed(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut b = ((body.len() + 8) as u32).to_be_bytes().to_vec();
        b.extend_from_slice(kind);
        b.extend_from_slice(body);
        b
    }

    #[test]
    fn movie_header_duration() {
        let mut mvhd = vec![0u8; 20];
        mvhd[12..16].copy_from_slice(&1000u32.to_be_bytes());
        mvhd[16..20].copy_from_slice(&30_500u32.to_be_bytes());
        let mut file = boxed(b"ftyp", b"M4A \0\0\0\0");
        file.extend(boxed(b"mdat", &[0; 100]));
        file.extend(boxed(b"moov", &boxed(b"mvhd", &mvhd)));
        assert_eq!(read(&file), Ok(30_500));
        assert_eq!(read(&file[..file.len() - 4]), Err(FileError::Malformed));
    }
}

//! MP3 (MPEG-1/2/2.5 audio, layers I–III): the frame count of a Xing/Info or VBRI header in
//! the first frame, else the frames themselves walked (a few thousand headers for an hour of
//! audio, nothing decoded). Frames lost in damage are resynchronised on, and the bytes
//! between counted at the first frame's bitrate.

use super::file_info::{be32, millis, FileError};

/// The length of the ID3v2 tags at the start of `data` (0 when there is none).
pub(crate) fn id3v2_len(data: &[u8]) -> usize {
    let mut at = 0;
    // Several tags may follow each other.
    while let Some(h) = data.get(at..at + 10) {
        if &h[..3] != b"ID3" || h[6..10].iter().any(|&b| b & 0x80 != 0) {
            break;
        }
        let size = h[6..10]
            .iter()
            .fold(0usize, |n, &b| (n << 7) | usize::from(b));
        let footer = if h[5] & 0x10 != 0 { 10 } else { 0 };
        at += 10 + size + footer;
    }
    at
}

/// A frame header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Frame {
    /// Bytes in the frame, header included.
    len: usize,
    samples: u32,
    rate: u32,
    /// Bits per second.
    bitrate: u32,
    mpeg1: bool,
    mono: bool,
}

/// Bitrates in kbit/s by [MPEG-1 / MPEG-2(.5)][layer I, II, III][index].
const BITRATES: [[[u16; 15]; 3]; 2] = [
    [
        [
            0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448,
        ],
        [
            0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384,
        ],
        [
            0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
        ],
    ],
    [
        [
            0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256,
        ],
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    ],
];

fn frame_at(data: &[u8], at: usize) -> Option<Frame> {
    let h = be32(data, at)?;
    if h >> 21 != 0x7FF {
        return None;
    }
    let version = (h >> 19) & 3; // 0: 2.5, 2: 2, 3: 1
    let layer = (h >> 17) & 3; // 1: III, 2: II, 3: I
    let bitrate_index = ((h >> 12) & 0xF) as usize;
    let rate_index = ((h >> 10) & 3) as usize;
    if version == 1 || layer == 0 || bitrate_index == 0 || bitrate_index == 15 || rate_index == 3 {
        return None;
    }
    let mpeg1 = version == 3;
    let layer_i = (3 - layer) as usize; // 0: I, 1: II, 2: III
    let bitrate = u32::from(BITRATES[usize::from(!mpeg1)][layer_i][bitrate_index]) * 1000;
    let rate = [44_100, 48_000, 32_000][rate_index] >> [2, 0, 1, 0][version as usize];
    let padding = (h >> 9) & 1;
    let samples = match (layer_i, mpeg1) {
        (0, _) => 384,
        (1, _) | (2, true) => 1152,
        (2, false) => 576,
        _ => unreachable!("three layers"),
    };
    let len = if layer_i == 0 {
        (12 * bitrate / rate + padding) * 4
    } else {
        samples / 8 * bitrate / rate + padding
    };
    Some(Frame {
        len: len as usize,
        samples,
        rate,
        bitrate,
        mpeg1,
        mono: (h >> 6) & 3 == 3,
    })
}

/// A frame at `at` whose successor (when the data goes on) is a frame of the same rate too.
fn confirmed_frame(data: &[u8], at: usize) -> Option<Frame> {
    let f = frame_at(data, at)?;
    if f.len < 4 {
        return None;
    }
    match at.checked_add(f.len).filter(|&n| n + 4 <= data.len()) {
        Some(next) => frame_at(data, next).filter(|g| g.rate == f.rate).map(|_| f),
        None => Some(f),
    }
}

/// The first confirmed frame within 64 KiB after the ID3v2 tags.
fn first_frame(data: &[u8]) -> Option<(usize, Frame)> {
    let start = id3v2_len(data);
    let end = data.len().min(start.saturating_add(64 * 1024));
    (start..end).find_map(|at| confirmed_frame(data, at).map(|f| (at, f)))
}

pub(crate) fn matches(data: &[u8]) -> bool {
    first_frame(data).is_some()
}

pub(crate) fn read(data: &[u8]) -> Result<u64, FileError> {
    let (start, first) = first_frame(data).ok_or(FileError::Malformed)?;
    // Xing/Info after the side information; VBRI 32 bytes after the header.
    let side = match (first.mpeg1, first.mono) {
        (true, false) => 32,
        (true, true) | (false, false) => 17,
        (false, true) => 9,
    };
    let xing = start + 4 + side;
    if let Some(tag) = data.get(xing..xing + 4) {
        if tag == b"Xing" || tag == b"Info" {
            let flags = be32(data, xing + 4).ok_or(FileError::Malformed)?;
            if flags & 1 != 0 {
                let frames = be32(data, xing + 8).ok_or(FileError::Malformed)?;
                return total(u64::from(frames), first);
            }
        }
    }
    if data.get(start + 36..start + 40) == Some(b"VBRI") {
        let frames = be32(data, start + 36 + 14).ok_or(FileError::Malformed)?;
        return total(u64::from(frames), first);
    }
    walk(data, start, first)
}

fn total(frames: u64, first: Frame) -> Result<u64, FileError> {
    millis(frames * u64::from(first.samples), u64::from(first.rate)).ok_or(FileError::Malformed)
}

/// Walks the frames from `start`, summing their durations; bytes where no frame is found
/// (damage, a trailing ID3v1 or APE tag) count at the first frame's bitrate, except a final
/// ID3v1 tag.
fn walk(data: &[u8], start: usize, first: Frame) -> Result<u64, FileError> {
    let mut end = data.len();
    if end >= 128 && &data[end - 128..end - 125] == b"TAG" {
        end -= 128;
    }
    let data = &data[..end];
    let (mut at, mut micros, mut gap) = (start, 0u128, 0u64);
    while at + 4 <= data.len() {
        match frame_at(data, at).filter(|f| f.len >= 4 && f.rate == first.rate) {
            Some(f) => {
                micros += u128::from(f.samples) * 1_000_000 / u128::from(f.rate);
                at += f.len;
            }
            None => {
                // Resynchronise on the next confirmed frame, counting the bytes skipped.
                let next = (at + 1..data.len()).find(|&i| {
                    data[i] == 0xFF
                        && confirmed_frame(data, i).is_some_and(|f| f.rate == first.rate)
                });
                let to = next.unwrap_or(data.len());
                gap += (to - at) as u64;
                at = to;
            }
        }
    }
    let gap_micros = u128::from(gap) * 8 * 1_000_000 / u128::from(first.bitrate.max(1));
    u64::try_from((micros + gap_micros).div_ceil(1000)).map_err(|_| FileError::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` MPEG-1 layer III frames, 128 kbit/s, 44.1 kHz, stereo, no padding (417 bytes).
    fn frames(n: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for _ in 0..n {
            let mut f = vec![0u8; 417];
            f[..4].copy_from_slice(&[0xFF, 0xFB, 0x90, 0x00]);
            out.extend_from_slice(&f);
        }
        out
    }

    #[test]
    fn frames_walked() {
        assert_eq!(frame_at(&frames(1), 0).unwrap().len, 417);
        // 1152 / 44100 s a frame: 100 frames are 2612.2 ms.
        assert_eq!(read(&frames(100)), Ok(2613));
        assert!(!matches(b"\xFF\xFB"));
    }

    #[test]
    fn xing_frame_count() {
        let mut data = frames(3);
        data[36..40].copy_from_slice(b"Xing");
        data[40..44].copy_from_slice(&1u32.to_be_bytes());
        data[44..48].copy_from_slice(&1000u32.to_be_bytes());
        // 1000 × 1152 / 44100 s.
        assert_eq!(read(&data), Ok(26_123));
    }
}

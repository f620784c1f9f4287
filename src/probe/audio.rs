//! Audio duration from headers: the container is sniffed from its magic bytes, then WAV's
//! `data` size over its byte rate, FLAC's STREAMINFO sample count, or the MP3, Ogg and MP4
//! readers ([`super::mp3`], [`super::ogg`], [`super::mp4`]).

use super::file_info::{le32, le64, millis, AudioFormat, AudioInfo, FileError};
use super::mp3::id3v2_len;

/// Reads an audio file's duration.
pub(crate) fn read(data: &[u8]) -> Result<AudioInfo, FileError> {
    let (format, millis) = if data.len() >= 12
        && (data.starts_with(b"RIFF") || data.starts_with(b"RF64"))
        && &data[8..12] == b"WAVE"
    {
        (AudioFormat::Wav, wav(data)?)
    } else if data.starts_with(b"OggS") {
        super::ogg::read(data)?
    } else if data.len() >= 8 && &data[4..8] == b"ftyp" {
        (AudioFormat::Mp4, super::mp4::read(data)?)
    } else {
        let body = &data[id3v2_len(data).min(data.len())..];
        if body.starts_with(b"fLaC") {
            (AudioFormat::Flac, flac(body)?)
        } else if super::mp3::matches(data) {
            (AudioFormat::Mp3, super::mp3::read(data)?)
        } else {
            return Err(FileError::UnknownFormat);
        }
    };
    Ok(AudioInfo { format, millis })
}

/// WAV (RIFF or RF64): the `data` chunk's size over the `fmt ` chunk's byte rate. A size that
/// overruns the file (a stream written before its length was known) counts what is there.
fn wav(data: &[u8]) -> Result<u64, FileError> {
    let rf64 = data.starts_with(b"RF64");
    let mut at = 12;
    let (mut byte_rate, mut ds64_data) = (None, None);
    while let (Some(id), Some(size)) = (data.get(at..at + 4), le32(data, at + 4)) {
        let body = at + 8;
        match id {
            b"fmt " => byte_rate = le32(data, body + 8),
            b"ds64" if rf64 => ds64_data = le64(data, body + 8),
            b"data" => {
                let rate = byte_rate.filter(|&r| r > 0).ok_or(FileError::Malformed)?;
                let mut len = u64::from(size);
                if rf64 && size == u32::MAX {
                    len = ds64_data.ok_or(FileError::Malformed)?;
                }
                let present = (data.len() - body.min(data.len())) as u64;
                return millis(len.min(present), u64::from(rate)).ok_or(FileError::Malformed);
            }
            _ => {}
        }
        // Chunks are padded to an even size.
        at = body
            .checked_add(size as usize)
            .and_then(|e| e.checked_add(size as usize & 1))
            .ok_or(FileError::Malformed)?;
    }
    Err(FileError::Malformed)
}

/// FLAC: STREAMINFO's total samples over its sample rate (`data` starts at `fLaC`).
fn flac(data: &[u8]) -> Result<u64, FileError> {
    // fLaC, a block header (type 0 = STREAMINFO, 34 bytes), then the block.
    let header = data.get(4..8).ok_or(FileError::Malformed)?;
    if header[0] & 0x7F != 0 {
        return Err(FileError::Malformed);
    }
    let info = data.get(8..8 + 34).ok_or(FileError::Malformed)?;
    let packed = u64::from_be_bytes(info[10..18].try_into().expect("8 bytes"));
    let rate = packed >> 44;
    let samples = packed & ((1 << 36) - 1);
    if samples == 0 {
        // Unknown length (a stream): not read from the frames.
        return Err(FileError::Malformed);
    }
    millis(samples, rate).ok_or(FileError::Malformed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flac_streaminfo() {
        let mut f = b"fLaC\x80\0\0\x22".to_vec();
        let mut info = [0u8; 34];
        // 44,100 Hz, 2 channels, 16 bits, 441,000 samples.
        let packed: u64 = (44_100 << 44) | (1 << 41) | (15 << 36) | 441_000;
        info[10..18].copy_from_slice(&packed.to_be_bytes());
        f.extend_from_slice(&info);
        assert_eq!(
            read(&f),
            Ok(AudioInfo {
                format: AudioFormat::Flac,
                millis: 10_000
            })
        );
        assert_eq!(read(&f[..20]), Err(FileError::Malformed));
    }

    #[test]
    fn wav_needs_a_byte_rate() {
        let wav = b"RIFF\0\0\0\0WAVEdata\x04\0\0\0abcd";
        assert_eq!(read(wav), Err(FileError::Malformed));
        assert_eq!(read(b"RIFF\0\0\0\0WAVE"), Err(FileError::Malformed));
    }

    #[test]
    fn id3_tags_are_skipped() {
        assert_eq!(id3v2_len(b"ID3\x04\0\0\0\0\0\x05abcdefg"), 15);
        assert_eq!(id3v2_len(b"xyz"), 0);
    }
}

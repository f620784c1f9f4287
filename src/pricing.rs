//! What an image costs: vision tokens from its pixel size, and budget bytes from tokens.
//!
//! An [`ImageProfile`] is one provider's rule with its parameters (the registry and the
//! arithmetic live in [`crate::profiles`]); it is chosen by profile name ([`ImageProfile::from_name`], the
//! request's `image_profile`) or by model name ([`ImageProfile::from_model`]).
//!
//! ```
//! use ankita::pricing::{ankita_tokens, ImageProfile};
//! assert_eq!(ankita_tokens(1700, 2200), 765);
//! assert_eq!(ImageProfile::default().tokens(1024, 1024, None), 765);
//! let claude = ImageProfile::from_model("claude-sonnet-4-20250514").unwrap();
//! assert_eq!(claude.tokens(1000, 1000, None), 1296);
//! ```

use crate::probe::file::{FileError, FileInfo, FileKind};
use crate::probe::{self, ImageInfo, ProbeError};
pub use crate::profiles::{ankita_tokens, ImageProfile};

/// Budget bytes per token unless the request says otherwise (DESIGN §2).
pub const DEFAULT_BYTES_PER_TOKEN: u64 = 4;

/// No price (tokens, budget bytes, pages or seconds) is larger: 2⁵³ − 1, the largest integer a
/// JSON number keeps exactly in JavaScript and in a Python float, and far beyond any window.
pub const MAX_PRICE: u64 = (1 << 53) - 1;

/// The price of one image URL as the budget sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaPrice {
    /// The header, or why it could not be read (`NotDataUrl` for a remote URL).
    pub probe: Result<ImageInfo, ProbeError>,
    /// Vision tokens; `None` when the image could not be priced by pixels (neither a readable
    /// header nor a remote URL).
    pub tokens: Option<u64>,
    /// What the image costs against the byte budget: tokens × bytes per token, or the URL's
    /// byte length when there are no tokens (an unreadable image never rides free).
    pub budget_bytes: u64,
    /// The header states a size its payload cannot hold ([`is_implausible`]): the image is
    /// priced as the profile's largest typical image instead, and the report warns.
    pub implausible: bool,
    /// Set when the part is a document or audio file, not an image: it is priced by pages or
    /// seconds ([`crate::profiles::files`]) and shed like an image ([`crate::shed`]).
    pub file: Option<FilePrice>,
}

/// What a document or audio part's price counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePrice {
    pub kind: FileKind,
    /// The file's structure, or why it could not be read (`NotBase64` for a remote file or a
    /// file id, whose bytes the library does not have).
    pub probe: Result<FileInfo, FileError>,
    /// The pages or seconds priced: read from the file, given in `file_sizes`, or estimated
    /// ([`crate::profiles::files`]).
    pub count: u64,
    /// Whether the count was estimated (an unreadable or remote file without a size).
    pub estimated: bool,
    /// Whether the rule is a published price rather than an estimate.
    pub exact: bool,
    /// What the caller calls the file, where it gave a name (a file name, a document title, a
    /// file id, a URL's last segment: `crate::format::FilePart`), as its placeholder and
    /// report entry show it.
    pub name: Option<Box<str>>,
}

// Whether a header is plausible is the probe's to say (the stand-in policy reads it too).
pub use crate::probe::plausible::{
    is_implausible, is_implausible_file, MAX_PLAUSIBLE_SIDE, MAX_PNG_PIXELS_PER_BYTE,
};

/// Whether an `image_url.url` is a remote `http://` or `https://` URL (scheme in any case,
/// leading white space ignored), whose image the library cannot see.
///
/// ```
/// assert!(ankita::pricing::is_remote_url("HTTPS://example.com/cat.png"));
/// assert!(!ankita::pricing::is_remote_url("data:image/png;base64,iVBORw0KGgo="));
/// ```
pub fn is_remote_url(url: &str) -> bool {
    let url = url.trim_start().as_bytes();
    let has_scheme = |scheme: &[u8]| {
        url.len() >= scheme.len() && url[..scheme.len()].eq_ignore_ascii_case(scheme)
    };
    has_scheme(b"http://") || has_scheme(b"https://")
}

/// Prices an `image_url.url` value: a data URL by its header, a remote (http/https) URL at
/// [`ImageProfile::remote_image_tokens`] (never at the URL's length, which says nothing about
/// the image), anything else at its byte length (not decodable).
///
/// ```
/// use ankita::pricing::{price_image_url, ImageProfile};
/// let price = price_image_url("https://example.com/cat.png", ImageProfile::default(), None, 4);
/// assert_eq!((price.tokens, price.budget_bytes), (Some(1445), 5780));
/// ```
pub fn price_image_url(
    url: &str,
    profile: ImageProfile,
    detail: Option<&str>,
    bytes_per_token: u64,
) -> MediaPrice {
    price_image_url_with_size(url, None, profile, detail, bytes_per_token)
}

/// As [`price_image_url`], with the size of a remote image when the caller knows it
/// (`size` = (width, height); a zero side means unknown). The size is used only for remote
/// URLs: a data URL is always priced by its own header.
///
/// ```
/// use ankita::pricing::{price_image_url_with_size, ImageProfile};
/// let url = "https://example.com/cat.png";
/// let price = price_image_url_with_size(url, Some((512, 512)), ImageProfile::default(), None, 4);
/// assert_eq!(price.tokens, Some(765));
/// ```
pub fn price_image_url_with_size(
    url: &str,
    size: Option<(u32, u32)>,
    profile: ImageProfile,
    detail: Option<&str>,
    bytes_per_token: u64,
) -> MediaPrice {
    if is_remote_url(url) {
        let tokens = match size {
            Some((w, h)) if w > 0 && h > 0 => profile.tokens(w, h, detail),
            _ => profile.remote_image_tokens(detail),
        };
        return MediaPrice {
            probe: Err(ProbeError::NotDataUrl),
            tokens: Some(tokens),
            budget_bytes: tokens.saturating_mul(bytes_per_token),
            implausible: false,
            file: None,
        };
    }
    price_probe(
        probe::probe_data_url(url),
        url.len(),
        profile,
        detail,
        bytes_per_token,
        Header::Checked,
    )
}

/// How [`price_probe`] reads an image's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header {
    /// As read: the probe reports what the header claims.
    AsRead,
    /// An image whose header is implausible for its `encoded_len` ([`is_implausible`]) is
    /// priced as the profile's largest typical image ([`ImageProfile::remote_image_tokens`]),
    /// not as the millions of tokens its header claims, and marked [`MediaPrice::implausible`].
    /// What trimming uses.
    Checked,
}

/// Prices a probe result; `encoded_len` is what an undecodable image costs (and, with
/// [`Header::Checked`], what its header must be plausible for).
pub fn price_probe(
    probe: Result<ImageInfo, ProbeError>,
    encoded_len: usize,
    profile: ImageProfile,
    detail: Option<&str>,
    bytes_per_token: u64,
    header: Header,
) -> MediaPrice {
    let (tokens, implausible) = match &probe {
        Ok(info) if header == Header::Checked && is_implausible(info, encoded_len) => {
            (profile.remote_image_tokens(detail), true)
        }
        Ok(info) => (profile.tokens(info.width, info.height, detail), false),
        Err(_) => {
            return MediaPrice {
                probe,
                tokens: None,
                budget_bytes: encoded_len as u64,
                implausible: false,
                file: None,
            }
        }
    };
    MediaPrice {
        probe,
        tokens: Some(tokens),
        budget_bytes: tokens.saturating_mul(bytes_per_token),
        implausible,
        file: None,
    }
}

/// Prices a document or audio file given as base64 text (bare, or a data URL) whose part says
/// it is a `declared` file: by its pages or duration when the probe reads it (its own kind
/// then wins over the declared one), else conservatively from its size
/// ([`crate::profiles::files`]).
///
/// ```
/// use ankita::pricing::{price_file_data, ImageProfile};
/// use ankita::probe::file::FileKind;
/// let gemini = ImageProfile::from_name("gemini").unwrap();
/// // Not a PDF: priced as an unreadable one of its size (1 page).
/// let price = price_file_data("data:application/pdf;base64,AAAA", FileKind::Document, gemini, None, 1);
/// assert_eq!((price.tokens, price.file.unwrap().estimated), (Some(258), true));
/// ```
pub fn price_file_data(
    text: &str,
    declared: FileKind,
    profile: ImageProfile,
    detail: Option<&str>,
    bytes_per_token: u64,
) -> MediaPrice {
    let probe = probe::file::probe_file_text(text);
    // Base64 carries 3 bytes in 4 characters.
    let decoded = text.len() as u64 / 4 * 3;
    price_file_probe(
        probe,
        declared,
        decoded,
        profile,
        detail,
        bytes_per_token,
        Header::Checked,
    )
}

/// Prices a probe result; `decoded_len` is the file's size in bytes, for the estimate of an
/// unreadable file and (with [`Header::Checked`]) what its structure must be plausible for: a
/// file that claims more pages or a longer duration than its size can hold
/// ([`is_implausible_file`]) is priced as an unreadable one of its size and marked
/// [`MediaPrice::implausible`] (the report warns). No figure exceeds [`MAX_PRICE`].
pub fn price_file_probe(
    probe: Result<FileInfo, FileError>,
    declared: FileKind,
    decoded_len: u64,
    profile: ImageProfile,
    detail: Option<&str>,
    bytes_per_token: u64,
    header: Header,
) -> MediaPrice {
    use crate::profiles::files::{unreadable_pages, unreadable_seconds};
    if let Ok(info) = probe {
        if header == Header::Checked && is_implausible_file(&info, decoded_len) {
            let (count, tokens) = match info.kind() {
                FileKind::Document => {
                    let pages = unreadable_pages(decoded_len);
                    (pages, profile.document_tokens(pages, None, detail))
                }
                FileKind::Audio => {
                    let seconds = unreadable_seconds(decoded_len);
                    let tokens = profile.audio_tokens(seconds.saturating_mul(1000), detail);
                    (seconds, tokens)
                }
            };
            let mut price = file_price(
                info.kind(),
                probe,
                count,
                true,
                tokens,
                profile,
                bytes_per_token,
            );
            price.implausible = true;
            return price;
        }
    }
    let (kind, count, estimated, tokens) = match probe {
        Ok(FileInfo::Document(d)) => {
            let pages = u64::from(d.pages);
            let tokens = profile.document_tokens(pages, d.page_size, detail);
            (FileKind::Document, pages, false, tokens)
        }
        Ok(FileInfo::Audio(a)) => (
            FileKind::Audio,
            a.seconds(),
            false,
            profile.audio_tokens(a.millis, detail),
        ),
        Err(_) => match declared {
            FileKind::Document => {
                let pages = unreadable_pages(decoded_len);
                let tokens = profile.document_tokens(pages, None, detail);
                (declared, pages, true, tokens)
            }
            FileKind::Audio => {
                let seconds = unreadable_seconds(decoded_len);
                let tokens = profile.audio_tokens(seconds.saturating_mul(1000), detail);
                (declared, seconds, true, tokens)
            }
        },
    };
    file_price(
        kind,
        probe,
        count,
        estimated,
        tokens,
        profile,
        bytes_per_token,
    )
}

/// Prices a file the library cannot read (a remote URL, a file id): at `count` pages or
/// seconds when the caller gives them (`file_sizes`), else at
/// [`crate::profiles::files::REMOTE_PAGES`] or [`crate::profiles::files::REMOTE_SECONDS`].
pub fn price_file_remote(
    kind: FileKind,
    count: Option<u64>,
    profile: ImageProfile,
    detail: Option<&str>,
    bytes_per_token: u64,
) -> MediaPrice {
    use crate::profiles::files::{REMOTE_PAGES, REMOTE_SECONDS};
    let given = count.filter(|&c| c > 0);
    let (count, tokens) = match kind {
        FileKind::Document => {
            let pages = given.unwrap_or(REMOTE_PAGES);
            (pages, profile.document_tokens(pages, None, detail))
        }
        FileKind::Audio => {
            let seconds = given.unwrap_or(REMOTE_SECONDS);
            (
                seconds,
                profile.audio_tokens(seconds.saturating_mul(1000), detail),
            )
        }
    };
    let probe = Err(FileError::NotBase64);
    file_price(
        kind,
        probe,
        count,
        given.is_none(),
        tokens,
        profile,
        bytes_per_token,
    )
}

fn file_price(
    kind: FileKind,
    probe: Result<FileInfo, FileError>,
    count: u64,
    estimated: bool,
    tokens: u64,
    profile: ImageProfile,
    bytes_per_token: u64,
) -> MediaPrice {
    let tokens = tokens.clamp(1, MAX_PRICE);
    MediaPrice {
        probe: Err(ProbeError::UnknownFormat),
        tokens: Some(tokens),
        budget_bytes: tokens.saturating_mul(bytes_per_token).min(MAX_PRICE),
        implausible: false,
        file: Some(FilePrice {
            kind,
            probe,
            count: count.min(MAX_PRICE),
            estimated,
            exact: profile.file_exact(kind) && !estimated,
            name: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn design_worked_example() {
        assert_eq!(ankita_tokens(1700, 2200), 765);
        assert_eq!(ankita_tokens(2200, 1700), 765);
    }

    #[test]
    fn small_images_are_scaled_up_to_768() {
        // 1×1 → 768×768 → 2×2 tiles.
        assert_eq!(ankita_tokens(1, 1), 85 + 170 * 4);
        assert_eq!(ankita_tokens(512, 512), 85 + 170 * 4);
    }

    #[test]
    fn extreme_sizes_do_not_overflow() {
        for (w, h) in [
            (1, u32::MAX),
            (u32::MAX, 1),
            (u32::MAX, u32::MAX),
            (65535, 65535),
        ] {
            let t = ankita_tokens(w, h);
            assert!(t >= 85, "{w}x{h} -> {t}");
        }
        // 1×2²⁴ fits to 1×2048, then the short side goes to 768: 768×1572864 → 2×3072 tiles.
        assert_eq!(ankita_tokens(1, 1 << 24), 85 + 170 * 2 * 3072);
    }

    #[test]
    fn remote_url_is_priced_as_a_typical_image_not_by_its_length() {
        let url = "https://example.com/cat.png";
        let price = price_image_url(url, ImageProfile::Ankita, None, 4);
        assert_eq!(price.probe, Err(ProbeError::NotDataUrl));
        assert_eq!(
            price.tokens,
            Some(ImageProfile::Ankita.remote_image_tokens(None))
        );
        assert_eq!(price.budget_bytes, price.tokens.unwrap() * 4);
    }

    #[test]
    fn other_undecodable_text_costs_its_length() {
        for url in [
            "ftp://example.com/cat.png",
            "cat.png",
            "data:image/png;base64,AAAA",
        ] {
            let price =
                price_image_url_with_size(url, Some((10, 10)), ImageProfile::Ankita, None, 4);
            assert_eq!(price.tokens, None, "{url}");
            assert_eq!(price.budget_bytes, url.len() as u64, "{url}");
        }
    }

    #[test]
    fn a_zero_caller_size_means_unknown() {
        let url = "http://example.com/a.jpg";
        let known = price_image_url_with_size(url, Some((0, 100)), ImageProfile::Ankita, None, 4);
        assert_eq!(known, price_image_url(url, ImageProfile::Ankita, None, 4));
    }

    #[test]
    fn unknown_profile_lists_known_ones() {
        let err = ImageProfile::from_name("gpt").unwrap_err();
        for name in ImageProfile::NAMES {
            assert!(err.message.contains(name), "{}", err.message);
        }
    }

    /// Files whose structure claims more than their size can hold (a PDF's `/Count` of 10⁹,
    /// an Ogg Opus granule position of −2, a WAV of 1 byte a second, a FLAC stream of 2³⁶ − 1
    /// samples at 1 Hz), as the fuzz corpora keep them (fuzz/corpus/probe_pdf, probe_audio).
    fn implausible_files() -> Vec<(&'static str, Vec<u8>, FileKind)> {
        let pdf = b"%PDF-1.4\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n\
            2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1000000000>> endobj\n\
            3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]>> endobj\n\
            trailer <</Root 1 0 R>>\n%%EOF\n"
            .to_vec();
        let page = |granule: u64, sequence: u32, body: &[u8]| {
            let mut p = b"OggS\0\0".to_vec();
            p.extend_from_slice(&granule.to_le_bytes());
            p.extend_from_slice(&1u32.to_le_bytes());
            p.extend_from_slice(&sequence.to_le_bytes());
            p.extend_from_slice(&[0, 0, 0, 0, 1, body.len() as u8]);
            p.extend_from_slice(body);
            p
        };
        let head = b"OpusHead\x01\x01\x38\x01\x80\xbb\0\0\0\0\0";
        let opus = [
            page(0, 0, head),
            page(0, 1, b"OpusTags\0\0\0\0\0\0\0\0"),
            page(u64::MAX - 1, 2, b"\xf8\xff\xfe"),
        ]
        .concat();
        // 8 kHz, one 8-bit channel, but a byte rate of 1: 4,000 bytes of samples say 4,000 s.
        let mut wav = b"RIFF\0\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x01\0\0\0\x01\0\x08\0data\xa0\x0f\0\0"
            .to_vec();
        wav.resize(wav.len() + 4000, 0x80);
        let mut flac = b"fLaC\x80\0\0\x22".to_vec();
        let mut info = [0u8; 34];
        let packed: u64 = (1 << 44) | (15 << 36) | ((1 << 36) - 1);
        info[10..18].copy_from_slice(&packed.to_be_bytes());
        flac.extend_from_slice(&info);
        vec![
            ("pdf", pdf, FileKind::Document),
            ("opus", opus, FileKind::Audio),
            ("wav", wav, FileKind::Audio),
            ("flac", flac, FileKind::Audio),
        ]
    }

    #[test]
    fn implausible_files_are_priced_as_unreadable_ones_of_their_size() {
        use crate::probe::file::probe_file_bytes;
        use crate::profiles::files::{unreadable_pages, unreadable_seconds};
        let gemini = ImageProfile::from_name("gemini").unwrap();
        for (name, bytes, kind) in implausible_files() {
            let len = bytes.len() as u64;
            let probe = probe_file_bytes(&bytes);
            let info = probe.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(info.kind(), kind, "{name}");
            assert!(is_implausible_file(&info, len), "{name}: {info:?}");
            let price = price_file_probe(probe, kind, len, gemini, None, 4, Header::Checked);
            assert!(price.implausible, "{name}");
            let file = price.file.clone().unwrap();
            assert!(file.estimated && !file.exact, "{name}");
            assert_eq!(
                file.probe, probe,
                "{name}: the claim is kept for the warning"
            );
            let (count, tokens) = match kind {
                FileKind::Document => (unreadable_pages(len), unreadable_pages(len) * 258),
                FileKind::Audio => (unreadable_seconds(len), unreadable_seconds(len) * 32),
            };
            assert_eq!(file.count, count, "{name}");
            assert_eq!(price.tokens, Some(tokens), "{name}");
            assert_eq!(price.budget_bytes, tokens * 4, "{name}");
            // As read (the probe), the claim is priced, within MAX_PRICE, by every profile and
            // at any bytes per token.
            for profile in ImageProfile::NAMES {
                let profile = ImageProfile::from_name(profile).unwrap();
                for bpt in [1, 4, u64::MAX] {
                    let read = price_file_probe(probe, kind, 0, profile, None, bpt, Header::AsRead);
                    assert!(!read.implausible, "{name}");
                    assert!(read.tokens.unwrap() <= MAX_PRICE, "{name}: {read:?}");
                    assert!(read.budget_bytes <= MAX_PRICE, "{name}: {read:?}");
                    assert!(read.file.unwrap().count <= MAX_PRICE, "{name}");
                }
            }
        }
        // The Opus stream priced as read: 1.2 × 10¹⁶ tokens claimed, 2⁵³ − 1 at most.
        let (_, opus, _) = implausible_files().swap_remove(1);
        let read = price_file_probe(
            crate::probe::file::probe_file_bytes(&opus),
            FileKind::Audio,
            0,
            gemini,
            None,
            4,
            Header::AsRead,
        );
        assert_eq!(read.tokens, Some(MAX_PRICE));
    }

    /// The real files of tests/fixtures/files (the lowest rates among them: MP3 at 8 kbit/s,
    /// Opus at 4.8 kbit/s) are all plausible: read, they are priced as read.
    #[test]
    fn real_files_are_plausible() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files");
        let mut read = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            let Ok(info) = crate::probe::file::probe_file_bytes(&bytes) else {
                continue;
            };
            assert!(
                !is_implausible_file(&info, bytes.len() as u64),
                "{}: {info:?}",
                path.display()
            );
            read += 1;
        }
        assert!(read >= 12, "{read} files read");
    }

    #[test]
    fn remote_file_counts_stay_within_max_price() {
        let gemini = ImageProfile::from_name("gemini").unwrap();
        for kind in [FileKind::Document, FileKind::Audio] {
            let price = price_file_remote(kind, Some(u64::MAX), gemini, None, u64::MAX);
            assert_eq!(price.tokens, Some(MAX_PRICE));
            assert_eq!(price.budget_bytes, MAX_PRICE);
            assert_eq!(price.file.unwrap().count, MAX_PRICE);
        }
    }

    #[test]
    fn every_name_round_trips() {
        for &name in ImageProfile::NAMES {
            assert_eq!(ImageProfile::from_name(name).unwrap().name(), name);
        }
    }
}

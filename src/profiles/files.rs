//! What documents (PDF pages) and audio (seconds) cost, by the same profile that prices
//! images: a provider bills a PDF by its pages and audio by its duration, never by the
//! base64 text that carries them.
//!
//! | Profile | A PDF page | A second of audio | Source |
//! |---|---|---|---|
//! | `gemini`, `gemini-1.5` | 258 | 32 | Gemini API docs: document processing ("each document page is equivalent to 258 tokens"), audio understanding ("each second of audio is 32 tokens") |
//! | `gemini-3` | 280 / 560 / 1,120 by `media_resolution` (the image price) | 25 | Gemini 3 media resolution docs |
//! | `anthropic`, `anthropic-highres`, `anthropic-legacy` | [`PAGE_TEXT_TOKENS`] + the page image by the Claude image rule | (no audio input: the default) | Claude PDF support docs: 1,500–3,000 text tokens a page "plus image-based costs", each page converted to an image |
//! | `openai`, `openai-patch` | [`PAGE_TEXT_TOKENS`] + the page image by the OpenAI image rule (an estimate) | [`OPENAI_AUDIO_TOKENS_PER_SECOND`] (an estimate) | OpenAI PDF inputs docs: "both the extracted text and an image of each page"; no figure is published |
//! | others (`ankita`, the default of the byte mode and unknown models) | [`PAGE_TEXT_TOKENS`] + the page image by the profile's rule | 32 | the largest documented audio rate |
//!
//! A page image is the page at [`RENDER_DPI`] (US Letter when its size is unknown), priced by
//! the profile's image rule: each rule shrinks it to its own limit, so the density matters
//! only below that. Only the Gemini figures are published prices ([`ImageProfile::file_exact`]);
//! the others are upper estimates.
//!
//! A file the probe cannot read (encrypted, damaged, a format it does not know) and a remote
//! file whose size the caller does not give (`file_sizes`) are priced conservatively:
//! [`unreadable_pages`] and [`unreadable_seconds`] estimate generously from the encoded size,
//! and a remote file counts [`REMOTE_PAGES`] pages or [`REMOTE_SECONDS`] seconds.
//!
//! ```
//! use ankita::pricing::ImageProfile;
//! let gemini = ImageProfile::from_name("gemini").unwrap();
//! assert_eq!(gemini.page_tokens(Some((612, 792)), None), 258);
//! assert_eq!(gemini.audio_tokens(30_000, None), 960);
//! let claude = ImageProfile::from_name("anthropic").unwrap();
//! // The page text estimate and a US Letter page at 200 dpi, shrunk by the Claude rule.
//! assert_eq!(claude.page_tokens(Some((612, 792)), None), 3_000 + 1_496);
//! ```

use super::ImageProfile;
use crate::probe::file::FileKind;

/// A page's text, upper estimate: the top of Anthropic's "1,500–3,000 tokens per page".
pub const PAGE_TEXT_TOKENS: u64 = 3_000;
/// Page images are rendered at this density before the profile's image rule shrinks them.
pub const RENDER_DPI: u64 = 200;
/// A page of unknown size: US Letter, in points.
pub const DEFAULT_PAGE_SIZE: (u32, u32) = (612, 792);
/// Gemini 2.x and 1.5: tokens per PDF page.
pub const GEMINI_PAGE_TOKENS: u64 = 258;
/// Gemini 2.x and 1.5: tokens per second of audio.
pub const GEMINI_AUDIO_TOKENS_PER_SECOND: u64 = 32;
/// Gemini 3: tokens per second of audio.
pub const GEMINI3_AUDIO_TOKENS_PER_SECOND: u64 = 25;
/// OpenAI audio input, an estimate: about one token per 100 ms (the Realtime API's stated
/// rate for user audio).
pub const OPENAI_AUDIO_TOKENS_PER_SECOND: u64 = 10;
/// The default rate for audio: the largest documented one (Gemini 2.x).
pub const DEFAULT_AUDIO_TOKENS_PER_SECOND: u64 = 32;

/// An unreadable PDF counts a page per this many bytes (a text page compresses to 2–4 KB)…
pub const UNREADABLE_BYTES_PER_PAGE: u64 = 4096;
/// …at most this many pages (Anthropic's per-request PDF limit).
pub const MAX_UNREADABLE_PAGES: u64 = 100;
/// Unreadable audio counts a second per this many bytes (8 kbit/s, below any speech codec's
/// usual rate, so the estimate is long)…
pub const UNREADABLE_BYTES_PER_SECOND: u64 = 1000;
/// …at most this many seconds (9.5 hours, Gemini's longest audio prompt).
pub const MAX_UNREADABLE_SECONDS: u64 = 34_200;
/// A remote PDF of unknown size counts this many pages.
pub const REMOTE_PAGES: u64 = 100;
/// Remote audio of unknown length counts this many seconds (an hour).
pub const REMOTE_SECONDS: u64 = 3_600;

/// Pages assumed for an unreadable PDF of `bytes` decoded bytes: at least 1.
pub fn unreadable_pages(bytes: u64) -> u64 {
    bytes
        .div_ceil(UNREADABLE_BYTES_PER_PAGE)
        .clamp(1, MAX_UNREADABLE_PAGES)
}

/// Seconds assumed for unreadable audio of `bytes` decoded bytes: at least 1.
pub fn unreadable_seconds(bytes: u64) -> u64 {
    bytes
        .div_ceil(UNREADABLE_BYTES_PER_SECOND)
        .clamp(1, MAX_UNREADABLE_SECONDS)
}

/// A side in points at [`RENDER_DPI`], in pixels.
fn rendered(points: u32) -> u32 {
    u32::try_from(u64::from(points.max(1)) * RENDER_DPI / 72).unwrap_or(u32::MAX)
}

impl ImageProfile {
    /// Tokens for one PDF page of `page_size` points (US Letter when `None`); `detail` is
    /// Gemini 3's media resolution.
    pub fn page_tokens(self, page_size: Option<(u32, u32)>, detail: Option<&str>) -> u64 {
        match self {
            ImageProfile::Gemini | ImageProfile::Gemini15 => GEMINI_PAGE_TOKENS,
            ImageProfile::Gemini3(model) => model.tokens(detail),
            _ => {
                let (w, h) = page_size.unwrap_or(DEFAULT_PAGE_SIZE);
                // Pages are read at full detail.
                let image = self.tokens(rendered(w), rendered(h), Some("high"));
                PAGE_TEXT_TOKENS.saturating_add(image)
            }
        }
    }

    /// Tokens for `pages` pages of `page_size` points.
    pub fn document_tokens(
        self,
        pages: u64,
        page_size: Option<(u32, u32)>,
        detail: Option<&str>,
    ) -> u64 {
        pages
            .max(1)
            .saturating_mul(self.page_tokens(page_size, detail))
    }

    /// Audio tokens per second.
    pub fn audio_tokens_per_second(self) -> u64 {
        match self {
            ImageProfile::Gemini | ImageProfile::Gemini15 => GEMINI_AUDIO_TOKENS_PER_SECOND,
            ImageProfile::Gemini3(_) => GEMINI3_AUDIO_TOKENS_PER_SECOND,
            ImageProfile::OpenAi(_) | ImageProfile::OpenAiPatch(_) => {
                OPENAI_AUDIO_TOKENS_PER_SECOND
            }
            _ => DEFAULT_AUDIO_TOKENS_PER_SECOND,
        }
    }

    /// Tokens for `millis` milliseconds of audio: whole seconds, rounded up, at least one.
    pub fn audio_tokens(self, millis: u64, _detail: Option<&str>) -> u64 {
        millis
            .div_ceil(1000)
            .max(1)
            .saturating_mul(self.audio_tokens_per_second())
    }

    /// Whether this profile's price for a file of `kind` is a published figure (Gemini's),
    /// not an estimate.
    pub fn file_exact(self, kind: FileKind) -> bool {
        let _ = kind;
        matches!(
            self,
            ImageProfile::Gemini | ImageProfile::Gemini15 | ImageProfile::Gemini3(_)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_prices_pages_and_seconds() {
        for name in ImageProfile::NAMES {
            let p = ImageProfile::from_name(name).unwrap();
            let page = p.page_tokens(None, None);
            assert!(page >= 258, "{name}: {page}");
            assert_eq!(p.document_tokens(10, None, None), 10 * page);
            assert!(p.audio_tokens(30_000, None) >= 300, "{name}");
            // Absurd sizes do not overflow.
            p.page_tokens(Some((u32::MAX, 1)), Some("low"));
            p.document_tokens(u64::MAX, Some((14_400, 14_400)), None);
            p.audio_tokens(u64::MAX, None);
        }
        let g3 = ImageProfile::from_name("gemini-3").unwrap();
        assert_eq!(g3.page_tokens(None, Some("medium")), 560);
        assert_eq!(g3.audio_tokens(30_000, None), 750);
        assert_eq!(g3.audio_tokens(29_001, None), 750);
        let openai = ImageProfile::from_name("openai").unwrap();
        assert_eq!(openai.page_tokens(None, Some("low")), 3_000 + 765);
        assert_eq!(openai.audio_tokens(30_000, None), 300);
        assert_eq!(unreadable_pages(0), 1);
        assert_eq!(unreadable_pages(3_300_000), 100);
        assert_eq!(unreadable_seconds(240_000), 240);
    }
}

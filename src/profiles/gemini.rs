//! Google Gemini: crop-unit tiles (2.0 / 2.5, and 1.5 with a clamped unit) and the fixed
//! per-image price of Gemini 3's `media_resolution`.
//!
//! ```
//! use ankita::profiles::gemini::{self, Gemini3, MediaResolution};
//! assert_eq!(gemini::tokens(960, 540), 1548);
//! assert_eq!(Gemini3::default().tokens(Some("low")), 280);
//! assert_eq!(Gemini3::default().tokens(None), 1120);
//! ```

use super::{ceil_div, saturate, side};

// Per tile, and for a whole image of at most 384 × 384. Not `pub`: cbindgen would export a
// public constant into the C header.
const TOKENS_PER_TILE: u64 = 258;

/// Gemini 2.0 / 2.5 at default resolution: 258 tokens if both sides are at most 384 px, else
/// 258 per tile of the crop unit `floor(min(w, h) / 1.5)`.
///
/// A short side of 1 px gives a crop unit of 0, which the documentation leaves undefined; it is
/// taken as 1 px (so a 1 × n strip costs n tiles, the rule's own limit).
///
/// ```
/// assert_eq!(ankita::profiles::gemini::tokens(384, 384), 258);
/// assert_eq!(ankita::profiles::gemini::tokens(385, 385), 258 * 4);
/// ```
pub fn tokens(width: u32, height: u32) -> u64 {
    crop_unit_tokens(width, height, None)
}

/// Gemini 1.5: as [`tokens`], with the crop unit clamped to 256 ..= 768 px.
///
/// ```
/// assert_eq!(ankita::profiles::gemini::tokens_1_5(3072, 3072), 258 * 16);
/// ```
pub fn tokens_1_5(width: u32, height: u32) -> u64 {
    crop_unit_tokens(width, height, Some((256, 768)))
}

/// The crop unit, in pixels, of a Gemini 2.x (`clamp = None`) or 1.5 image.
pub fn crop_unit(width: u32, height: u32, clamp: Option<(u32, u32)>) -> u64 {
    let short = side(width).min(side(height));
    // floor(short / 1.5) in integers.
    let unit = (short * 2 / 3).max(1);
    let unit = match clamp {
        Some((lo, hi)) => unit.clamp(lo.into(), hi.into()),
        None => unit,
    };
    unit as u64
}

fn crop_unit_tokens(width: u32, height: u32, clamp: Option<(u32, u32)>) -> u64 {
    let (w, h) = (side(width), side(height));
    if w <= 384 && h <= 384 {
        return TOKENS_PER_TILE;
    }
    let unit = u128::from(crop_unit(width, height, clamp));
    let tiles = ceil_div(w, unit) * ceil_div(h, unit);
    saturate(tiles * u128::from(TOKENS_PER_TILE))
}

/// Gemini 3's `media_resolution`: a fixed price per image, independent of its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MediaResolution {
    /// 280 tokens.
    Low,
    /// 560 tokens.
    Medium,
    /// 1120 tokens, the default.
    #[default]
    High,
    /// 2240 tokens.
    UltraHigh,
}

impl MediaResolution {
    /// Every level, cheapest first.
    pub const fn all() -> [MediaResolution; 4] {
        [
            MediaResolution::Low,
            MediaResolution::Medium,
            MediaResolution::High,
            MediaResolution::UltraHigh,
        ]
    }

    /// Tokens per image at this level.
    pub fn tokens(self) -> u64 {
        match self {
            MediaResolution::Low => 280,
            MediaResolution::Medium => 560,
            MediaResolution::High => 1120,
            MediaResolution::UltraHigh => 2240,
        }
    }

    /// The level's name as Gemini's API spells it after `MEDIA_RESOLUTION_` (lower case).
    pub fn as_str(self) -> &'static str {
        match self {
            MediaResolution::Low => "low",
            MediaResolution::Medium => "medium",
            MediaResolution::High => "high",
            MediaResolution::UltraHigh => "ultra_high",
        }
    }

    /// Reads a level from an OpenAI `detail` or a Gemini `media_resolution` value:
    /// `low`, `medium`, `high`, `ultra_high` (also `ultra-high`, `ultrahigh`), any case, with or
    /// without the `MEDIA_RESOLUTION_` prefix. `auto` and anything else give `None` (the
    /// profile's default applies).
    ///
    /// ```
    /// use ankita::profiles::gemini::MediaResolution;
    /// assert_eq!(MediaResolution::from_detail("MEDIA_RESOLUTION_LOW"), Some(MediaResolution::Low));
    /// assert_eq!(MediaResolution::from_detail("auto"), None);
    /// ```
    pub fn from_detail(detail: &str) -> Option<Self> {
        let d = detail.trim().to_ascii_lowercase();
        let d = d.strip_prefix("media_resolution_").unwrap_or(&d);
        match d {
            "low" => Some(MediaResolution::Low),
            "medium" => Some(MediaResolution::Medium),
            "high" => Some(MediaResolution::High),
            "ultra_high" | "ultra-high" | "ultrahigh" => Some(MediaResolution::UltraHigh),
            _ => None,
        }
    }
}

/// Gemini 3: every image costs what its `media_resolution` says, whatever its size. The OpenAI
/// `detail` of an image part selects the level ([`MediaResolution::from_detail`]); without one,
/// `default_resolution` applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Gemini3 {
    /// The level used when `detail` is absent, `auto`, or not a level name.
    pub default_resolution: MediaResolution,
}

impl Gemini3 {
    /// Tokens for one image (any size).
    pub fn tokens(self, detail: Option<&str>) -> u64 {
        detail
            .and_then(MediaResolution::from_detail)
            .unwrap_or(self.default_resolution)
            .tokens()
    }
}

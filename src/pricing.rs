//! What an image costs: vision tokens from its pixel size, and budget bytes from tokens.
//!
//! ```
//! use ankita::pricing::{ankita_tokens, ImageProfile};
//! assert_eq!(ankita_tokens(1700, 2200), 765);
//! assert_eq!(ImageProfile::default().tokens(1024, 1024, None), 765);
//! ```

use crate::error::Error;
use crate::probe::{self, ImageInfo, ProbeError};

/// Budget bytes per token unless the request says otherwise (DESIGN §2).
pub const DEFAULT_BYTES_PER_TOKEN: u64 = 4;

/// A rule that turns an image's pixel size into vision tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImageProfile {
    /// The reference recipe: an upper bound across OpenAI-compatible endpoints. Ignores `detail`.
    #[default]
    Ankita,
}

impl ImageProfile {
    /// Every profile name accepted by [`ImageProfile::from_name`].
    pub const NAMES: &'static [&'static str] = &["ankita"];

    /// Looks a profile up by its JSON name.
    pub fn from_name(name: &str) -> Result<Self, Error> {
        match name {
            "ankita" => Ok(ImageProfile::Ankita),
            _ => Err(Error::invalid_request(
                format!(
                    "unknown image_profile {name:?}; known profiles: {}",
                    Self::NAMES.join(", ")
                ),
                "image_profile",
            )),
        }
    }

    /// The profile's JSON name.
    pub fn name(self) -> &'static str {
        match self {
            ImageProfile::Ankita => "ankita",
        }
    }

    /// Vision tokens for an image of `width` × `height` pixels (both ≥ 1).
    pub fn tokens(self, width: u32, height: u32, _detail: Option<&str>) -> u64 {
        match self {
            ImageProfile::Ankita => ankita_tokens(width, height),
        }
    }
}

/// The `ankita` recipe, in f64 exactly as DESIGN §3 writes it: fit the long side into 2048,
/// scale the short side to 768 (even upwards), then 85 + 170 per 512-px tile.
pub fn ankita_tokens(width: u32, height: u32) -> u64 {
    let (mut w, mut h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    let fit = 2048.0 / w.max(h);
    if fit < 1.0 {
        w = (w * fit).floor().max(1.0);
        h = (h * fit).floor().max(1.0);
    }
    let d = 768.0 / w.min(h);
    if d != 1.0 {
        w = (w * d).floor().max(1.0);
        h = (h * d).floor().max(1.0);
    }
    let tiles = (w / 512.0).ceil() * (h / 512.0).ceil();
    // At most (2048·768)/512² ≈ 6·10⁹ tiles even for 1 × 2³²: far inside f64's exact range.
    (85.0 + 170.0 * tiles) as u64
}

/// The price of one image URL as the budget sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImagePrice {
    /// The header, or why it could not be read.
    pub probe: Result<ImageInfo, ProbeError>,
    /// Vision tokens; `None` when the image could not be decoded.
    pub tokens: Option<u64>,
    /// What the image costs against the byte budget: tokens × bytes per token, or the URL's
    /// byte length when the image could not be decoded (an unreadable image never rides free).
    pub budget_bytes: u64,
}

/// Prices an `image_url.url` value (a data URL; anything else is not decodable).
pub fn price_image_url(
    url: &str,
    profile: ImageProfile,
    detail: Option<&str>,
    bytes_per_token: u64,
) -> ImagePrice {
    price_probe(
        probe::probe_data_url(url),
        url.len(),
        profile,
        detail,
        bytes_per_token,
    )
}

/// Prices a probe result; `fallback_bytes` is what an undecodable image costs.
pub fn price_probe(
    probe: Result<ImageInfo, ProbeError>,
    fallback_bytes: usize,
    profile: ImageProfile,
    detail: Option<&str>,
    bytes_per_token: u64,
) -> ImagePrice {
    match probe {
        Ok(info) => {
            let tokens = profile.tokens(info.width, info.height, detail);
            ImagePrice {
                probe,
                tokens: Some(tokens),
                budget_bytes: tokens.saturating_mul(bytes_per_token),
            }
        }
        Err(_) => ImagePrice {
            probe,
            tokens: None,
            budget_bytes: fallback_bytes as u64,
        },
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
    fn undecodable_image_costs_its_url_length() {
        let url = "https://example.com/cat.png";
        let price = price_image_url(url, ImageProfile::Ankita, None, 4);
        assert_eq!(price.tokens, None);
        assert_eq!(price.budget_bytes, url.len() as u64);
    }

    #[test]
    fn unknown_profile_lists_known_ones() {
        let err = ImageProfile::from_name("gpt").unwrap_err();
        assert!(err.message.contains("ankita"), "{}", err.message);
    }
}

//! What an image costs: vision tokens from its pixel size, and budget bytes from tokens.
//!
//! An [`ImageProfile`] is one provider's rule with its parameters (the arithmetic lives in
//! [`crate::profiles`]); it is chosen by profile name ([`ImageProfile::from_name`], the
//! request's `image_profile`) or by model name ([`ImageProfile::from_model`]).
//!
//! ```
//! use ankita::pricing::{ankita_tokens, ImageProfile};
//! assert_eq!(ankita_tokens(1700, 2200), 765);
//! assert_eq!(ImageProfile::default().tokens(1024, 1024, None), 765);
//! let claude = ImageProfile::from_model("claude-sonnet-4-20250514").unwrap();
//! assert_eq!(claude.tokens(1000, 1000, None), 1296);
//! ```

use crate::error::Error;
use crate::probe::{self, ImageInfo, ProbeError};
use crate::profiles::anthropic::{Anthropic, AnthropicLegacy};
use crate::profiles::gemini::{self, Gemini3};
use crate::profiles::openai::{OpenAiPatch, OpenAiTile};
use crate::profiles::qwen::QwenVl;
use crate::profiles::{self, models, pixtral};

/// Budget bytes per token unless the request says otherwise (DESIGN §2).
pub const DEFAULT_BYTES_PER_TOKEN: u64 = 4;

/// A rule, with its parameters, that turns an image's pixel size into vision tokens.
///
/// Every profile returns at least 1 token for every size (a zero side is read as 1) and never
/// overflows, whatever the `u32` sizes.
///
/// `detail` is the OpenAI `image_url.detail` of the image part. The OpenAI tile profile prices
/// `"low"` at its base alone and everything else (`"high"`, `"auto"`, none) at full detail;
/// Gemini 3 reads it as its `media_resolution`; the other profiles ignore it (the patch models'
/// documentation gives no low-detail rule, so they are priced at full detail).
///
/// Monotonicity (a larger image of the same aspect ratio never costs less) holds for
/// `anthropic`, `anthropic-highres`, `anthropic-legacy`, `pixtral` and `gemini-3` (constant).
/// It does not hold, by each provider's own rule, for:
/// - `ankita`: two successive floors, the second of which scales the short side up to 768 and
///   can push the long side past a tile edge only for the smaller image (561 × 2244 costs
///   2465, 562 × 2248 costs 2125);
/// - `openai`: the 2048 fit rounds to nearest, so a short side can round up and the 768 step
///   then floors the long side below a tile edge (768 × 1025: 6 tiles, 1536 × 2050: 4);
/// - `openai-patch`: just under the budget an image keeps all its patches, just over it is
///   shrunk to a grid of whole patches that can be smaller (466 × 3262: 1530 patches,
///   467 × 3269: 1372);
/// - `gemini`, `gemini-1.5`: the crop unit is floored, so `ceil(long / unit)` can drop as the
///   image grows (194 × 388: 8 tiles, 195 × 390: 6);
/// - `qwen2-vl`: sides are rounded to 28 px before the pixel bounds are checked, so an image
///   just inside a bound keeps its rounded-up size while one just outside is floored (or, at
///   `min_pixels`, ceiled) to the bound (32 × 96: 10 tokens, 33 × 99: 6).
///
/// ```
/// use ankita::pricing::ImageProfile;
/// let openai = ImageProfile::from_name("openai").unwrap();
/// assert_eq!(openai.tokens(1024, 1024, Some("high")), 765);
/// assert_eq!(openai.tokens(1024, 1024, Some("low")), 85);
/// assert_eq!(openai.name(), "openai");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ImageProfile {
    /// `ankita`: the reference recipe, an upper bound across OpenAI-compatible endpoints
    /// ([`ankita_tokens`]). Ignores `detail`.
    #[default]
    Ankita,
    /// `openai`: an OpenAI 512-px tile model (`openai` by name is gpt-4o's 85 / 170).
    OpenAi(OpenAiTile),
    /// `openai-patch`: an OpenAI 32-px patch model (`openai-patch` by name is budget 1536,
    /// × 1.62: gpt-4.1-mini under the 2025 documentation, whose budget most patch models share).
    OpenAiPatch(OpenAiPatch),
    /// `anthropic` (standard tier) or `anthropic-highres` (Claude Opus 4.7 and later).
    Anthropic(Anthropic),
    /// `anthropic-legacy`: `w·h/750` of the older Anthropic documentation.
    AnthropicLegacy,
    /// `gemini`: Gemini 2.0 / 2.5 crop-unit tiles.
    Gemini,
    /// `gemini-1.5`: crop-unit tiles with the unit clamped to 256 ..= 768 px.
    Gemini15,
    /// `gemini-3`: a fixed price per `media_resolution` (by name: high, 1120).
    Gemini3(Gemini3),
    /// `qwen2-vl`: Qwen2-VL / Qwen2.5-VL `smart_resize` (by name: the model's default bounds).
    QwenVl(QwenVl),
    /// `pixtral`: Pixtral-12B.
    Pixtral,
}

impl ImageProfile {
    /// Every profile name accepted by [`ImageProfile::from_name`].
    pub const NAMES: &'static [&'static str] = &[
        "ankita",
        "openai",
        "openai-patch",
        "anthropic",
        "anthropic-highres",
        "anthropic-legacy",
        "gemini",
        "gemini-1.5",
        "gemini-3",
        "qwen2-vl",
        "pixtral",
    ];

    /// Every model family accepted by [`ImageProfile::from_model`] (see
    /// [`profiles::models`] for how a name is matched).
    pub const KNOWN_MODELS: &'static [&'static str] = models::KNOWN_MODELS;

    /// Looks a profile up by its JSON name (one of [`ImageProfile::NAMES`]).
    ///
    /// A name gives the rule with default parameters; [`ImageProfile::from_model`] gives a
    /// model's exact parameters.
    ///
    /// ```
    /// use ankita::pricing::ImageProfile;
    /// assert_eq!(ImageProfile::from_name("pixtral").unwrap(), ImageProfile::Pixtral);
    /// let err = ImageProfile::from_name("gpt").unwrap_err();
    /// assert_eq!(err.path.as_deref(), Some("image_profile"));
    /// ```
    pub fn from_name(name: &str) -> Result<Self, Error> {
        Ok(match name {
            "ankita" => ImageProfile::Ankita,
            "openai" => ImageProfile::OpenAi(OpenAiTile::gpt_4o()),
            "openai-patch" => ImageProfile::OpenAiPatch(OpenAiPatch::gpt_4_1_mini_2025()),
            "anthropic" => ImageProfile::Anthropic(Anthropic::standard()),
            "anthropic-highres" => ImageProfile::Anthropic(Anthropic::high_res()),
            "anthropic-legacy" => ImageProfile::AnthropicLegacy,
            "gemini" => ImageProfile::Gemini,
            "gemini-1.5" => ImageProfile::Gemini15,
            "gemini-3" => ImageProfile::Gemini3(Gemini3::default()),
            "qwen2-vl" => ImageProfile::QwenVl(QwenVl::model_default()),
            "pixtral" => ImageProfile::Pixtral,
            _ => {
                return Err(Error::invalid_request(
                    format!(
                        "unknown image_profile {name:?}; known profiles: {}",
                        Self::NAMES.join(", ")
                    ),
                    "image_profile",
                ))
            }
        })
    }

    /// The profile for a model name, with that model's parameters: `gpt-4o-mini` is the tile
    /// rule at 2833 / 5667, `claude-opus-4-7` the high-resolution tier, and so on.
    ///
    /// Provider prefixes (`openai/`), dated and variant suffixes (`-2024-08-06`, `-instruct`)
    /// are allowed; `@2025` selects the 2025 OpenAI documentation where it differs from the
    /// current (default) one. The full rule is in [`profiles::models`]. An unknown model is
    /// an `invalid_request` error at `model` whose message lists [`ImageProfile::KNOWN_MODELS`].
    ///
    /// ```
    /// use ankita::pricing::ImageProfile;
    /// let p = ImageProfile::from_model("openai/gpt-4o-2024-08-06").unwrap();
    /// assert_eq!(p.tokens(1024, 1024, None), 765);
    /// let mini = ImageProfile::from_model("gpt-5-mini").unwrap();
    /// let mini_2025 = ImageProfile::from_model("gpt-5-mini@2025").unwrap();
    /// assert_eq!((mini.tokens(1024, 1024, None), mini_2025.tokens(1024, 1024, None)), (1229, 1659));
    /// assert_eq!(ImageProfile::from_model("llava").unwrap_err().path.as_deref(), Some("model"));
    /// ```
    pub fn from_model(model: &str) -> Result<Self, Error> {
        models::profile_for_model(model)
    }

    /// The profile's rule name (one of [`ImageProfile::NAMES`]). Parameters chosen by
    /// [`ImageProfile::from_model`] are not part of the name: `gpt-4o-mini` is `"openai"`.
    pub fn name(self) -> &'static str {
        match self {
            ImageProfile::Ankita => "ankita",
            ImageProfile::OpenAi(_) => "openai",
            ImageProfile::OpenAiPatch(_) => "openai-patch",
            ImageProfile::Anthropic(tier) if tier == Anthropic::high_res() => "anthropic-highres",
            ImageProfile::Anthropic(_) => "anthropic",
            ImageProfile::AnthropicLegacy => "anthropic-legacy",
            ImageProfile::Gemini => "gemini",
            ImageProfile::Gemini15 => "gemini-1.5",
            ImageProfile::Gemini3(_) => "gemini-3",
            ImageProfile::QwenVl(_) => "qwen2-vl",
            ImageProfile::Pixtral => "pixtral",
        }
    }

    /// Vision tokens for an image of `width` × `height` pixels (a zero side counts as 1);
    /// always at least 1.
    pub fn tokens(self, width: u32, height: u32, detail: Option<&str>) -> u64 {
        let tokens = match self {
            ImageProfile::Ankita => ankita_tokens(width, height),
            ImageProfile::OpenAi(model) => model.tokens(width, height, detail),
            ImageProfile::OpenAiPatch(model) => model.tokens(width, height),
            ImageProfile::Anthropic(tier) => tier.tokens(width, height),
            ImageProfile::AnthropicLegacy => AnthropicLegacy::tokens(width, height),
            ImageProfile::Gemini => gemini::tokens(width, height),
            ImageProfile::Gemini15 => gemini::tokens_1_5(width, height),
            ImageProfile::Gemini3(model) => model.tokens(detail),
            ImageProfile::QwenVl(model) => model.tokens(width, height),
            ImageProfile::Pixtral => pixtral::tokens(width, height),
        };
        // Custom parameters of zero (a tile model priced 0 / 0) must not make images free.
        tokens.max(1)
    }

    /// What an image behind a remote (http/https) URL is assumed to cost, since its header
    /// cannot be read: the most this profile charges for a typical image, that is the largest
    /// [`ImageProfile::tokens`] over [`profiles::TYPICAL_IMAGE_SIZES`] (common photo, screen and
    /// screenshot sizes up to 4096 × 4096, each in both orientations).
    ///
    /// For every profile that shrinks large images (all but `gemini` and `gemini-1.5`) this
    /// is, or is close to, the profile's own maximum after its resize; for the crop-unit rules,
    /// which have no maximum, it is the price of the most expensive typical shape (a tall phone
    /// screenshot). Images far from typical (a 1 × 60 000 strip) can cost more; a caller that
    /// knows the size should pass it to [`price_image_url_with_size`].
    ///
    /// ```
    /// use ankita::pricing::ImageProfile;
    /// assert_eq!(ImageProfile::default().remote_image_tokens(None), 1445); // 1080 × 2400
    /// let openai = ImageProfile::from_name("openai").unwrap();
    /// assert_eq!(openai.remote_image_tokens(Some("low")), 85);
    /// ```
    pub fn remote_image_tokens(self, detail: Option<&str>) -> u64 {
        profiles::max_over_typical_sizes(|w, h| self.tokens(w, h, detail))
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
    /// The header, or why it could not be read (`NotDataUrl` for a remote URL).
    pub probe: Result<ImageInfo, ProbeError>,
    /// Vision tokens; `None` when the image could not be priced by pixels (neither a readable
    /// header nor a remote URL).
    pub tokens: Option<u64>,
    /// What the image costs against the byte budget: tokens × bytes per token, or the URL's
    /// byte length when there are no tokens (an unreadable image never rides free).
    pub budget_bytes: u64,
}

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
) -> ImagePrice {
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
) -> ImagePrice {
    if is_remote_url(url) {
        let tokens = match size {
            Some((w, h)) if w > 0 && h > 0 => profile.tokens(w, h, detail),
            _ => profile.remote_image_tokens(detail),
        };
        return ImagePrice {
            probe: Err(ProbeError::NotDataUrl),
            tokens: Some(tokens),
            budget_bytes: tokens.saturating_mul(bytes_per_token),
        };
    }
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

    #[test]
    fn every_name_round_trips() {
        for &name in ImageProfile::NAMES {
            assert_eq!(ImageProfile::from_name(name).unwrap().name(), name);
        }
    }
}

//! Provider-exact image-token rules, one file per provider (`IMAGE_TOKENS.md` is the spec).
//!
//! Each rule is a pure function of the pixel size as stored in the header (and, for some
//! providers, the OpenAI `detail` hint). [`ImageProfile`] picks one of them by profile name
//! (the [`REGISTRY`] table) or by model name ([`models`]); the files hold the arithmetic.
//!
//! | profile | rule | file |
//! |---|---|---|
//! | `openai` | 512-px tiles, base + per-tile price per model | [`openai`] |
//! | `openai-patch` | 32-px patches under a budget, × a per-model multiplier | [`openai`] |
//! | `anthropic`, `anthropic-highres` | 28-px units after a fit-to-(edge, tokens) resize | [`claude`] |
//! | `anthropic-legacy` | w·h/750, resized only past 1568 px or the table's 784×1568 pixels | [`claude`] |
//! | `gemini`, `gemini-1.5` | 258 per crop unit tile | [`gemini`] |
//! | `gemini-3` | fixed per `media_resolution` | [`gemini`] |
//! | `qwen2-vl` | `smart_resize` to 28-px units, + 2 | [`qwen`] |
//! | `pixtral` | 16-px patches plus one break token per row | [`pixtral`] |
//!
//! Every rule is computed in exact integer arithmetic (`u128`, square roots included), so it
//! cannot overflow for any `u32` size and has no floating-point edge cases at whole numbers; a
//! zero side is read as 1. The default `ankita` recipe is
//! [`crate::pricing::ankita_tokens`].
//!
//! ```
//! use ankita::profiles::{claude::Anthropic, openai::OpenAiTile, pixtral};
//! assert_eq!(OpenAiTile::gpt_4o().tokens(1024, 1024, Some("high")), 765);
//! assert_eq!(Anthropic::standard().tokens(1000, 1000), 1296);
//! assert_eq!(pixtral::tokens(1024, 1024), 4160);
//! ```

pub mod claude;
pub mod files;
pub mod gemini;
pub mod models;
pub mod openai;
pub mod pixtral;
pub mod qwen;

use crate::error::Error;
use claude::{Anthropic, AnthropicLegacy};
use gemini::Gemini3;
use openai::{OpenAiPatch, OpenAiTile};
use qwen::QwenVl;

/// The profile a name stands for.
pub type NamedProfile = fn() -> ImageProfile;

/// Every profile by name, with the rule and default parameters the name stands for: the one
/// table that names, lookups and error messages come from.
pub const REGISTRY: [(&str, NamedProfile); 11] = [
    ("ankita", || ImageProfile::Ankita),
    ("openai", || ImageProfile::OpenAi(OpenAiTile::gpt_4o())),
    ("openai-patch", || {
        ImageProfile::OpenAiPatch(OpenAiPatch::gpt_4_1_mini_2025())
    }),
    ("anthropic", || {
        ImageProfile::Anthropic(Anthropic::standard())
    }),
    ("anthropic-highres", || {
        ImageProfile::Anthropic(Anthropic::high_res())
    }),
    ("anthropic-legacy", || ImageProfile::AnthropicLegacy),
    ("gemini", || ImageProfile::Gemini),
    ("gemini-1.5", || ImageProfile::Gemini15),
    ("gemini-3", || ImageProfile::Gemini3(Gemini3::default())),
    ("qwen2-vl", || ImageProfile::QwenVl(QwenVl::model_default())),
    ("pixtral", || ImageProfile::Pixtral),
];

const NAMES: [&str; REGISTRY.len()] = {
    let mut names = [""; REGISTRY.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = REGISTRY[i].0;
        i += 1;
    }
    names
};

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
    /// Every profile name accepted by [`ImageProfile::from_name`], from [`REGISTRY`].
    pub const NAMES: &'static [&'static str] = &NAMES;

    /// Every model family accepted by [`ImageProfile::from_model`] (see
    /// [`models`] for how a name is matched).
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
        REGISTRY
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, profile)| profile())
            .ok_or_else(|| {
                Error::invalid_request(
                    format!(
                        "unknown image_profile {name:?}; known profiles: {}",
                        Self::NAMES.join(", ")
                    ),
                    "image_profile",
                )
            })
    }

    /// The profile for a model name, with that model's parameters: `gpt-4o-mini` is the tile
    /// rule at 2833 / 5667, `claude-opus-4-7` the high-resolution tier, and so on.
    ///
    /// Provider prefixes (`openai/`), dated and variant suffixes (`-2024-08-06`, `-instruct`)
    /// are allowed; `@2025` selects the 2025 OpenAI documentation where it differs from the
    /// current (default) one. The full rule is in [`models`]. An unknown model is
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
    /// [`ImageProfile::tokens`] over [`TYPICAL_IMAGE_SIZES`] (common photo, screen and
    /// screenshot sizes up to 4096 × 4096, each in both orientations).
    ///
    /// For every profile that shrinks large images (all but `gemini` and `gemini-1.5`) this
    /// is, or is close to, the profile's own maximum after its resize; for the crop-unit rules,
    /// which have no maximum, it is the price of the most expensive typical shape (a tall phone
    /// screenshot). Images far from typical (a 1 × 60 000 strip) can cost more; a caller that
    /// knows the size should pass it to [`crate::pricing::price_image_url_with_size`].
    ///
    /// ```
    /// use ankita::pricing::ImageProfile;
    /// assert_eq!(ImageProfile::default().remote_image_tokens(None), 1445); // 1080 × 2400
    /// let openai = ImageProfile::from_name("openai").unwrap();
    /// assert_eq!(openai.remote_image_tokens(Some("low")), 85);
    /// ```
    pub fn remote_image_tokens(self, detail: Option<&str>) -> u64 {
        max_over_typical_sizes(|w, h| self.tokens(w, h, detail))
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

/// Common image sizes (width, height) that stand for "a typical image" when only a remote URL
/// is known: square renders, 16:9 screens and screen captures, laptop and phone screenshots,
/// 4:3 and 3:2 photos, an A4 page scanned at 300 dpi. None exceeds 4096 px a side, the largest
/// size most chat front ends upload without downscaling. Each is also taken rotated by 90°.
///
/// ```
/// assert!(ankita::profiles::TYPICAL_IMAGE_SIZES.contains(&(1920, 1080)));
/// ```
pub const TYPICAL_IMAGE_SIZES: &[(u32, u32)] = &[
    (512, 512),
    (1024, 1024),
    (2048, 2048),
    (4096, 4096),
    (1280, 720),
    (1920, 1080),
    (2560, 1440),
    (3840, 2160),
    (1440, 900),
    (2880, 1800),
    (3456, 2234),
    (1080, 2400),
    (1170, 2532),
    (1290, 2796),
    (1536, 2048),
    (1600, 1200),
    (4032, 3024),
    (4096, 3072),
    (3000, 2000),
    (2480, 3508),
];

/// The largest `tokens(w, h)` over [`TYPICAL_IMAGE_SIZES`] in both orientations.
pub(crate) fn max_over_typical_sizes(tokens: impl Fn(u32, u32) -> u64) -> u64 {
    TYPICAL_IMAGE_SIZES
        .iter()
        .flat_map(|&(w, h)| [tokens(w, h), tokens(h, w)])
        .max()
        .unwrap_or(1)
}

/// `ceil(n / d)` for `d > 0`.
pub(crate) fn ceil_div(n: u128, d: u128) -> u128 {
    n.div_ceil(d)
}

/// `n / d` rounded to nearest, ties to even (Python's `round`), for `d > 0`.
pub(crate) fn div_round_half_even(n: u128, d: u128) -> u128 {
    let (q, r) = (n / d, n % d);
    match (2 * r).cmp(&d) {
        std::cmp::Ordering::Less => q,
        std::cmp::Ordering::Greater => q + 1,
        std::cmp::Ordering::Equal => q + (q & 1),
    }
}

/// `n / d` rounded to nearest, ties away from zero, for `d > 0`.
pub(crate) fn div_round_half_up(n: u128, d: u128) -> u128 {
    (2 * n + d) / (2 * d)
}

/// `floor(sqrt(n))`, exactly.
pub(crate) fn isqrt(n: u128) -> u128 {
    if n < 2 {
        return n;
    }
    // The f64 estimate is within a few ulps; one Newton step from any positive start lands
    // at or above the root, and Newton then descends monotonically onto it.
    let mut x = ((n as f64).sqrt() as u128).max(1);
    x = (x + n / x) / 2;
    loop {
        let y = (x + n / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

/// A `u128` count as `u64`, saturating (only reachable with absurd custom parameters).
pub(crate) fn saturate(n: u128) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// A header side as a `u128`, with 0 read as 1 so that no rule divides by zero.
pub(crate) fn side(x: u32) -> u128 {
    u128::from(x.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isqrt_is_exact() {
        for n in 0..10_000u128 {
            let r = isqrt(n);
            assert!(r * r <= n && (r + 1) * (r + 1) > n, "{n}");
        }
        for n in [
            u128::from(u64::MAX),
            u128::MAX >> 2,
            (1u128 << 100) - 1,
            1u128 << 100,
        ] {
            let r = isqrt(n);
            let above = match (r + 1).checked_mul(r + 1) {
                Some(s) => s > n,
                None => true,
            };
            assert!(r * r <= n && above, "{n}");
        }
    }

    #[test]
    fn rounding_helpers() {
        assert_eq!(div_round_half_even(5, 2), 2);
        assert_eq!(div_round_half_even(7, 2), 4);
        assert_eq!(div_round_half_even(8, 3), 3);
        assert_eq!(div_round_half_up(5, 2), 3);
        assert_eq!(div_round_half_up(4, 3), 1);
        assert_eq!(ceil_div(1, 512), 1);
        assert_eq!(ceil_div(513, 512), 2);
    }
}

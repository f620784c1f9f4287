//! OpenAI: the 512-px tile models and the 32-px patch models.
//!
//! Source: OpenAI "Images and vision — calculating costs" (2025 and 2026 versions; see
//! `IMAGE_TOKENS.md`). Each model's parameters are a `const fn` of its type; which model names
//! select which parameters is in [`super::models`].
//!
//! ```
//! use ankita::profiles::openai::{OpenAiPatch, OpenAiTile};
//! assert_eq!(OpenAiTile::gpt_4o().tokens(2048, 4096, Some("high")), 1105);
//! assert_eq!(OpenAiTile::gpt_4o().tokens(4096, 8192, Some("low")), 85);
//! assert_eq!(OpenAiPatch::gpt_4_1_mini_2025().resize(1800, 2400), (1056, 1408));
//! ```

use super::{ceil_div, div_round_half_up, isqrt, saturate, side};

/// Whether an OpenAI `image_url.detail` value asks for the low-detail price.
///
/// Only `"low"` (any case, surrounding white space ignored) does: `"auto"` is billed like
/// `"high"`, and a missing or unknown value is priced as `"high"` too, so a typo never makes an
/// image look cheaper than it is.
///
/// ```
/// use ankita::profiles::openai::is_low_detail;
/// assert!(is_low_detail(Some("LOW")));
/// assert!(!is_low_detail(Some("auto")) && !is_low_detail(None));
/// ```
pub fn is_low_detail(detail: Option<&str>) -> bool {
    detail.is_some_and(|d| d.trim().eq_ignore_ascii_case("low"))
}

/// An OpenAI tile model: `base` tokens per image plus `tile` tokens per 512-px tile.
///
/// ```
/// use ankita::profiles::openai::OpenAiTile;
/// assert_eq!(OpenAiTile::gpt_4o().tokens(1024, 1024, None), 85 + 170 * 4);
/// assert_eq!(OpenAiTile::gpt_5().tokens(1024, 1024, Some("low")), 70);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpenAiTile {
    /// Tokens every image costs; all that a `detail: "low"` image costs.
    pub base: u32,
    /// Tokens per 512 × 512 tile of the resized image.
    pub tile: u32,
}

// The parameters are `const fn`s rather than associated constants because cbindgen copies
// public associated constants into the C header.
impl OpenAiTile {
    /// gpt-4o, gpt-4.1, gpt-4.5, gpt-4-turbo: 85 / 170.
    pub const fn gpt_4o() -> Self {
        Self::new(85, 170)
    }
    /// gpt-5, gpt-5-chat-latest, gpt-5.1: 70 / 140.
    pub const fn gpt_5() -> Self {
        Self::new(70, 140)
    }
    /// gpt-4o-mini: 2833 / 5667 (its image price is set so that images cost what gpt-4o's do).
    pub const fn gpt_4o_mini() -> Self {
        Self::new(2833, 5667)
    }
    /// o1, o1-pro, o3: 75 / 150.
    pub const fn o_series() -> Self {
        Self::new(75, 150)
    }
    /// computer-use-preview: 65 / 129.
    pub const fn computer_use() -> Self {
        Self::new(65, 129)
    }

    /// A tile model with these prices.
    pub const fn new(base: u32, tile: u32) -> Self {
        Self { base, tile }
    }

    /// The size the model sees at high detail: fit into 2048 × 2048 (downscale only), then
    /// bring a short side above 768 down to 768.
    ///
    /// The 2048 fit rounds to nearest: OpenAI does not document the rounding and measurements
    /// match round-to-nearest, so expect ±1 tile against the service exactly at a boundary.
    ///
    /// ```
    /// use ankita::profiles::openai::OpenAiTile;
    /// assert_eq!(OpenAiTile::resize(2048, 4096), (768, 1536));
    /// assert_eq!(OpenAiTile::resize(300, 200), (300, 200));
    /// ```
    pub fn resize(width: u32, height: u32) -> (u64, u64) {
        let (mut w, mut h) = (side(width), side(height));
        let long = w.max(h);
        if long > 2048 {
            w = div_round_half_up(w * 2048, long).max(1);
            h = div_round_half_up(h * 2048, long).max(1);
        }
        let (short, long) = (w.min(h), w.max(h));
        if short > 768 {
            let long = long * 768 / short;
            (w, h) = if w <= h { (768, long) } else { (long, 768) };
        }
        // Both sides are at most 2048 here.
        (w as u64, h as u64)
    }

    /// 512-px tiles of the high-detail image.
    pub fn tiles(width: u32, height: u32) -> u64 {
        let (w, h) = Self::resize(width, height);
        ceil_div(w.into(), 512) as u64 * ceil_div(h.into(), 512) as u64
    }

    /// Tokens for one image: `base` at low detail, else `base + tile × tiles`.
    pub fn tokens(self, width: u32, height: u32, detail: Option<&str>) -> u64 {
        let base = u64::from(self.base);
        if is_low_detail(detail) {
            return base;
        }
        // At most 16 tiles (2048² / 512²), so this cannot overflow.
        base + u64::from(self.tile) * Self::tiles(width, height)
    }
}

/// An OpenAI patch model: 32-px patches, at most `budget` of them (the image is shrunk to fit),
/// times a per-model multiplier.
///
/// The multiplier is stored in hundredths so that `ceil(patches × 1.62)` is exact: in `f64`,
/// `150 × 1.62` is a hair above 243 and would round up to 244.
///
/// Where the 2025 and 2026 documentation disagree, both are kept; the 2025 value carries a
/// `_2025` suffix and the unsuffixed constant (the 2026 documentation) is the default.
///
/// ```
/// use ankita::profiles::openai::OpenAiPatch;
/// assert_eq!(OpenAiPatch::gpt_4_1_mini_2025().patches(1024, 1024), 1024);
/// assert_eq!(OpenAiPatch::gpt_4_1_mini_2025().tokens(1024, 1024), 1659); // ceil(1024 × 1.62)
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpenAiPatch {
    /// Most patches an image may take; larger images are shrunk to fit.
    pub budget: u32,
    /// Tokens per patch, in hundredths (162 = × 1.62).
    pub multiplier_percent: u32,
}

/// The patch budget of the 2025 documentation (every patch model).
const BUDGET_2025: u32 = 1536;

impl OpenAiPatch {
    /// gpt-4.1-mini, 2026 documentation: budget 6144, × 1.62.
    pub const fn gpt_4_1_mini() -> Self {
        Self::new(6144, 162)
    }
    /// gpt-4.1-mini, 2025 documentation: budget 1536, × 1.62.
    pub const fn gpt_4_1_mini_2025() -> Self {
        Self::new(BUDGET_2025, 162)
    }
    /// gpt-4.1-nano: budget 1536, × 2.46.
    pub const fn gpt_4_1_nano() -> Self {
        Self::new(BUDGET_2025, 246)
    }
    /// o4-mini: budget 1536, × 1.72.
    pub const fn o4_mini() -> Self {
        Self::new(BUDGET_2025, 172)
    }
    /// gpt-5-mini, 2026 documentation: budget 1536, × 1.2.
    pub const fn gpt_5_mini() -> Self {
        Self::new(BUDGET_2025, 120)
    }
    /// gpt-5-mini, 2025 documentation: budget 1536, × 1.62.
    pub const fn gpt_5_mini_2025() -> Self {
        Self::new(BUDGET_2025, 162)
    }
    /// gpt-5-nano, 2026 documentation: budget 1536, × 1.5.
    pub const fn gpt_5_nano() -> Self {
        Self::new(BUDGET_2025, 150)
    }
    /// gpt-5-nano, 2025 documentation: budget 1536, × 2.46.
    pub const fn gpt_5_nano_2025() -> Self {
        Self::new(BUDGET_2025, 246)
    }
    /// gpt-5.2 (2026 documentation): budget 6144, × 1.2.
    pub const fn gpt_5_2() -> Self {
        Self::new(6144, 120)
    }
    /// gpt-5.4 to gpt-5.6 (2026 documentation): budget 2500 (the documented high-detail
    /// budget; no low-detail budget is documented), × 1.2 (listed for 5.4 and 5.5; assumed
    /// for 5.6, which the multiplier list does not name).
    pub const fn gpt_5_4() -> Self {
        Self::new(2500, 120)
    }

    /// A patch model with `budget` patches and a multiplier of `multiplier_percent` / 100.
    pub const fn new(budget: u32, multiplier_percent: u32) -> Self {
        Self {
            budget,
            multiplier_percent,
        }
    }

    /// The size whose patches are counted.
    ///
    /// Over budget, the documented rule scales by `r = sqrt(32²·budget / (w·h))`, then further
    /// so that the tighter side is a whole number of patches, and floors both sides.
    ///
    /// Computed exactly in integers, because the documented `f64` steps land on either side of
    /// a whole number when the exact value is one (6:1 images, for instance, where `w·r/32` is
    /// exactly 16 and `f64` says 15.999…): with `r` as above, `floor(w·r/32)` is
    /// `kw = isqrt(budget·w/h)` and `kh = isqrt(budget·h/w)`; the tighter side is the one with
    /// the smaller `k/(side·r/32)`, that is `w` when `kw·h ≤ kh·w`; it becomes `32·kw` pixels and
    /// the other side `floor(32·kw·h/w)`.
    ///
    /// One case is not covered by the documentation: an aspect ratio so extreme that the short
    /// side would shrink below one patch (`kw` or `kh` = 0: the documented rule would give a zero
    /// side). Such an image is scaled so that its long side is exactly `budget` patches (the
    /// short side then stays within one patch), so it costs exactly the budget.
    ///
    /// ```
    /// use ankita::profiles::openai::OpenAiPatch;
    /// let m = OpenAiPatch::gpt_4_1_mini_2025();
    /// assert_eq!(m.resize(1800, 2400), (1056, 1408));
    /// assert_eq!(m.resize(1, 100_000), (1, 32 * 1536));
    /// ```
    pub fn resize(self, width: u32, height: u32) -> (u64, u64) {
        let (w, h) = (side(width), side(height));
        let budget = u128::from(self.budget.max(1));
        if patches_of(w, h) <= budget {
            return (w as u64, h as u64);
        }
        let (kw, kh) = (isqrt(budget * w / h), isqrt(budget * h / w));
        let (nw, nh) = if kw == 0 || kh == 0 {
            let (long, short) = (w.max(h), w.min(h));
            let fitted_long = 32 * budget;
            let fitted_short = (short * fitted_long / long).max(1);
            if w >= h {
                (fitted_long, fitted_short)
            } else {
                (fitted_short, fitted_long)
            }
        } else if kw * h <= kh * w {
            (32 * kw, (32 * kw * h / w).max(1))
        } else {
            ((32 * kh * w / h).max(1), 32 * kh)
        };
        // Never larger than the image (the over-budget image is only ever shrunk), so both
        // fit in u32.
        (nw as u64, nh as u64)
    }

    /// 32-px patches of the resized image (at most `budget` whenever the image was resized).
    pub fn patches(self, width: u32, height: u32) -> u64 {
        let (w, h) = self.resize(width, height);
        saturate(patches_of(w.into(), h.into()))
    }

    /// Tokens for one image: `ceil(patches × multiplier)`.
    pub fn tokens(self, width: u32, height: u32) -> u64 {
        let p = u128::from(self.patches(width, height));
        saturate(ceil_div(p * u128::from(self.multiplier_percent), 100))
    }
}

fn patches_of(w: u128, h: u128) -> u128 {
    ceil_div(w, 32) * ceil_div(h, 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_fit_rounds_to_nearest() {
        // 1003 × 2048 / 3000 = 684.7: a floor would give 684.
        assert_eq!(OpenAiTile::resize(3000, 1003), (2048, 685));
    }

    #[test]
    fn patch_resize_stays_within_budget() {
        for (w, h) in [
            (1800, 2400),
            (5000, 5000),
            (65535, 3),
            (33, 47_000),
            (4000, 3000),
        ] {
            for m in [OpenAiPatch::gpt_4_1_mini_2025(), OpenAiPatch::gpt_5_4()] {
                assert!(m.patches(w, h) <= u64::from(m.budget), "{w}x{h} {m:?}");
            }
        }
    }

    #[test]
    fn multiplier_is_exact() {
        // 10 × 15 = 150 patches × 1.62 = 243 exactly (f64 says 243.00000000000003 → 244).
        let m = OpenAiPatch::new(1536, 162);
        assert_eq!(m.patches(320, 480), 150);
        assert_eq!(m.tokens(320, 480), 243);
    }
}

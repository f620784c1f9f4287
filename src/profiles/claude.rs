//! Anthropic Claude: the current 28-px rule (standard and high-resolution tiers) and the legacy
//! `w·h/750` rule of the older vision documentation.
//!
//! ```
//! use ankita::profiles::claude::{Anthropic, AnthropicLegacy};
//! assert_eq!(Anthropic::standard().tokens(1092, 1092), 1521);
//! assert_eq!(AnthropicLegacy::tokens(1000, 1000), 1334);
//! assert_eq!(AnthropicLegacy::tokens(1092, 1092), 1590);
//! ```

use super::{ceil_div, div_round_half_up, isqrt, saturate, side};

/// The current rule (Anthropic vision docs): `ceil(w/28) × ceil(h/28)` tokens, after shrinking
/// the image to the largest aspect-preserving size that fits the tier.
///
/// A size fits when both sides, rounded up to whole 28-px units, are at most `max_edge` and
/// it takes at most `max_tokens` units.
///
/// ```
/// use ankita::profiles::claude::Anthropic;
/// assert_eq!(Anthropic::standard().tokens(200, 200), 64);
/// assert_eq!(Anthropic::standard().tokens(1000, 1000), 1296);
/// assert_eq!(Anthropic::standard().tokens(8000, 8000), 1521); // shrunk to 1092 × 1092
/// assert_eq!(Anthropic::high_res().tokens(1000, 1000), 1296);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Anthropic {
    /// Longest side, in pixels, after rounding up to whole units.
    pub max_edge: u32,
    /// Most 28-px units (= tokens) an image may take.
    pub max_tokens: u32,
}

// `const fn`s rather than associated constants: cbindgen copies public associated constants
// into the C header.
impl Anthropic {
    /// Models before Claude Opus 4.7: edges ≤ 1568 px, ≤ 1568 tokens.
    pub const fn standard() -> Self {
        Self::new(1568, 1568)
    }
    /// Claude Opus 4.7 and later: edges ≤ 2576 px, ≤ 4784 tokens.
    pub const fn high_res() -> Self {
        Self::new(2576, 4784)
    }

    /// A tier with these limits.
    pub const fn new(max_edge: u32, max_tokens: u32) -> Self {
        Self {
            max_edge,
            max_tokens,
        }
    }

    /// Whether a `width` × `height` image is sent as is.
    pub fn fits(self, width: u64, height: u64) -> bool {
        let (uw, uh) = (units(width.into()), units(height.into()));
        let edge = u128::from(self.max_edge);
        uw * 28 <= edge && uh * 28 <= edge && uw * uh <= u128::from(self.max_tokens)
    }

    /// The size the model sees: the image itself if it fits, else the largest fitting size
    /// with the same aspect ratio, found by binary search on the long side (the short side is
    /// `max(round(long / aspect), 1)`; fitting only gets harder as the long side grows, so the
    /// search is exact).
    ///
    /// ```
    /// use ankita::profiles::claude::Anthropic;
    /// assert_eq!(Anthropic::standard().resize(4000, 3000), (1269, 952)); // 46 × 34 = 1564 units
    /// ```
    pub fn resize(self, width: u32, height: u32) -> (u64, u64) {
        let (w, h) = (side(width), side(height));
        if self.fits(w as u64, h as u64) {
            return (w as u64, h as u64);
        }
        let (long, short) = (w.max(h), w.min(h));
        let short_for = |l: u128| div_round_half_up(l * short, long).max(1);
        let fits = |l: u128| self.fits(l as u64, short_for(l) as u64);
        // `lo` is 1 when nothing fits (a tier narrower than one unit): the image is then
        // priced as one unit rather than as nothing.
        let (mut lo, mut hi) = (1u128, long.min(u128::from(self.max_edge).max(1)));
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let (l, s) = (lo as u64, short_for(lo) as u64);
        if w >= h {
            (l, s)
        } else {
            (s, l)
        }
    }

    /// Tokens for one image.
    pub fn tokens(self, width: u32, height: u32) -> u64 {
        let (w, h) = self.resize(width, height);
        saturate(units(w.into()) * units(h.into()))
    }
}

/// The legacy rule (older Anthropic docs): `ceil(w·h / 750)` tokens; an image is scaled down
/// (aspect kept) only when its long edge is over 1568 px or it is over "~1,600 tokens".
///
/// The same documentation lists the largest sizes sent without resizing: 1092×1092 (1:1),
/// 951×1268 (3:4), 896×1344 (2:3), 819×1456 (9:16), 784×1568 (1:2), and prices 1092×1092
/// (1.19 MP) at ~1,590 tokens. "~1,600 tokens" is approximate (three of those sizes are
/// 1,606–1,640 tokens), so the pixel limit is the largest size of that table, 784 × 1568 =
/// 1,229,312 pixels: every listed size is sent as is, and an image over the limit is priced
/// at most ceil(1,229,312 / 750) = 1,640 tokens, an upper bound of the documented ~1,600.
///
/// ```
/// use ankita::profiles::claude::AnthropicLegacy;
/// assert_eq!(AnthropicLegacy::tokens(1092, 1092), 1590); // the table's price, as is
/// assert_eq!(AnthropicLegacy::tokens(784, 1568), 1640);
/// assert_eq!(AnthropicLegacy::resize(4000, 1000), (1568, 392));
/// assert_eq!(AnthropicLegacy::tokens(4000, 4000), 1637); // 1108 × 1108
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AnthropicLegacy;

// Longest edge, most pixels sent as is (784 × 1568, the table's largest); pixels per token.
const LEGACY_MAX_EDGE: u128 = 1568;
const LEGACY_MAX_PIXELS: u128 = 784 * 1568;
const LEGACY_PIXELS_PER_TOKEN: u128 = 750;

impl AnthropicLegacy {
    /// The size the model sees (downscale only; sides floored, at least 1).
    ///
    /// Computed exactly in integers: the edge limit keeps the long side at 1568, the pixel
    /// limit gives sides `floor(sqrt(P·w/h))` and `floor(sqrt(P·h/w))`, whichever limit is
    /// tighter wins.
    pub fn resize(width: u32, height: u32) -> (u64, u64) {
        let (w, h) = (side(width), side(height));
        let (long, short) = (w.max(h), w.min(h));
        let (edge, pixels) = (LEGACY_MAX_EDGE, LEGACY_MAX_PIXELS);
        if long <= edge && w * h <= pixels {
            return (w as u64, h as u64);
        }
        // 1568/long ≤ sqrt(P/(w·h)), squared and cross-multiplied.
        let edge_is_tighter = edge * edge * w * h <= pixels * long * long;
        if edge_is_tighter {
            let s = (short * edge / long).max(1) as u64;
            return if w >= h {
                (edge as u64, s)
            } else {
                (s, edge as u64)
            };
        }
        let fw = isqrt(pixels * w / h).max(1);
        let fh = isqrt(pixels * h / w).max(1);
        // At most 1568 each: the pixel limit is the tighter one.
        (fw as u64, fh as u64)
    }

    /// Tokens for one image.
    pub fn tokens(width: u32, height: u32) -> u64 {
        let (w, h) = Self::resize(width, height);
        saturate(ceil_div(
            u128::from(w) * u128::from(h),
            LEGACY_PIXELS_PER_TOKEN,
        ))
    }
}

fn units(x: u128) -> u128 {
    ceil_div(x, 28)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resize_is_the_largest_fitting_size() {
        for (w, h) in [
            (4000, 3000),
            (3000, 4000),
            (10_000, 300),
            (1, 65_535),
            (2000, 2000),
        ] {
            for tier in [Anthropic::standard(), Anthropic::high_res()] {
                let (rw, rh) = tier.resize(w, h);
                assert!(tier.fits(rw, rh), "{w}x{h} → {rw}x{rh}");
                let (long, short) = (u128::from(w.max(h)), u128::from(w.min(h)));
                let next = u128::from(rw.max(rh)) + 1;
                let next_short = div_round_half_up(next * short, long).max(1);
                assert!(
                    !tier.fits(next as u64, next_short as u64),
                    "{w}x{h} → {rw}x{rh} is not the largest"
                );
            }
        }
    }

    #[test]
    fn legacy_limits_hold() {
        for (w, h) in [
            (4000, 3000),
            (1568, 1568),
            (1, u32::MAX),
            (u32::MAX, u32::MAX),
        ] {
            let (rw, rh) = AnthropicLegacy::resize(w, h);
            assert!(
                rw.max(rh) <= 1568 && u128::from(rw * rh) <= LEGACY_MAX_PIXELS,
                "{w}x{h} → {rw}x{rh}"
            );
        }
    }
}

//! Qwen2-VL / Qwen2.5-VL behind an OpenAI-compatible server: `smart_resize` to 28-px units,
//! one token per unit, plus the two vision start/end tokens.
//!
//! ```
//! use ankita::profiles::qwen::QwenVl;
//! assert_eq!(QwenVl::model_default().resize(1000, 1000), (1008, 1008));
//! assert_eq!(QwenVl::model_default().tokens(1000, 1000), 36 * 36 + 2);
//! ```

use super::{div_round_half_even, isqrt, saturate, side};

/// `smart_resize` with the server's `min_pixels` / `max_pixels`.
///
/// Servers often configure 256·28² … 1280·28² ([`QwenVl::server_typical`]); the model's own
/// defaults are [`QwenVl::model_default`]. Any values are accepted: a `max_pixels` below one unit still
/// leaves one unit per side, so no image is ever free.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QwenVl {
    /// Images with fewer pixels (after rounding to units) are enlarged to at least this.
    pub min_pixels: u64,
    /// Images with more pixels (after rounding to units) are shrunk to at most this.
    pub max_pixels: u64,
}

impl Default for QwenVl {
    fn default() -> Self {
        Self::model_default()
    }
}

// Side of one unit (one token), in pixels: 14-px patches merged 2 × 2.
const FACTOR: u128 = 28;

// `const fn`s rather than associated constants: cbindgen copies public associated constants
// into the C header.
impl QwenVl {
    /// The processor's defaults: `min_pixels` 3136 (4 units), `max_pixels` 12 845 056
    /// (16 384 units).
    pub const fn model_default() -> Self {
        Self::new(3136, 12_845_056)
    }
    /// A common server setting: 256·28² … 1280·28².
    pub const fn server_typical() -> Self {
        Self::new(256 * 28 * 28, 1280 * 28 * 28)
    }

    /// `smart_resize` with these pixel bounds.
    pub const fn new(min_pixels: u64, max_pixels: u64) -> Self {
        Self {
            min_pixels,
            max_pixels,
        }
    }

    /// The size the model sees, both sides multiples of 28.
    ///
    /// Exact integer arithmetic: round half to even as Python's `round`, and the square roots
    /// of the shrink/enlarge branches taken exactly (`floor(H/β/28) = isqrt(H·max / (W·28²))`).
    /// The reference Python code computes these in floats, so it can differ by one unit in the
    /// rare case where the exact value is a whole number. The shrink branch keeps at least one
    /// unit per side (as current `qwen_vl_utils` does) instead of collapsing to zero.
    ///
    /// ```
    /// use ankita::profiles::qwen::QwenVl;
    /// assert_eq!(QwenVl::model_default().resize(10, 10), (56, 56)); // enlarged to min_pixels
    /// assert_eq!(QwenVl::model_default().resize(8000, 8000), (3584, 3584)); // shrunk to max_pixels
    /// ```
    pub fn resize(self, width: u32, height: u32) -> (u64, u64) {
        let f = FACTOR;
        let (w, h) = (side(width), side(height));
        let (min, max) = (u128::from(self.min_pixels), u128::from(self.max_pixels));
        let mut hb = (div_round_half_even(h, f) * f).max(f);
        let mut wb = (div_round_half_even(w, f) * f).max(f);
        if hb * wb > max {
            // β = sqrt(H·W/max); floor(H/β/F) = floor(sqrt(H·max / (W·F²))).
            hb = (isqrt(h * max / (w * f * f)) * f).max(f);
            wb = (isqrt(w * max / (h * f * f)) * f).max(f);
        } else if hb * wb < min {
            // β = sqrt(min/(H·W)); ceil(H·β/F) = ceil(sqrt(H·min / (W·F²))).
            hb = ceil_sqrt_ratio(h * min, w * f * f) * f;
            wb = ceil_sqrt_ratio(w * min, h * f * f) * f;
        }
        (saturate(wb), saturate(hb))
    }

    /// Tokens for one image: one per 28-px unit, plus 2.
    pub fn tokens(self, width: u32, height: u32) -> u64 {
        let f = FACTOR;
        let (w, h) = self.resize(width, height);
        saturate((u128::from(w) / f) * (u128::from(h) / f) + 2)
    }
}

/// `ceil(sqrt(n / d))` for `d > 0`, exactly.
fn ceil_sqrt_ratio(n: u128, d: u128) -> u128 {
    let k = isqrt(n / d);
    if k * k * d < n {
        k + 1
    } else {
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_half_to_even() {
        // 42 = 1.5 units → 2; 70 = 2.5 units → 2; 98 = 3.5 units → 4.
        let q = QwenVl::new(0, u64::MAX);
        assert_eq!(q.resize(42, 70), (56, 56));
        assert_eq!(q.resize(98, 28), (112, 28));
    }

    #[test]
    fn extreme_bounds_do_not_overflow() {
        let huge = QwenVl::new(u64::MAX, u64::MAX);
        assert!(huge.tokens(1, 1) > 2);
        let tiny = QwenVl::new(0, 0);
        assert_eq!(tiny.tokens(u32::MAX, u32::MAX), 3);
    }
}

//! Provider-exact image-token rules, one file per provider (`IMAGE_TOKENS.md` is the spec).
//!
//! Each rule is a pure function of the pixel size as stored in the header (and, for some
//! providers, the OpenAI `detail` hint). [`crate::pricing::ImageProfile`] picks one of them by
//! profile name or by model name ([`models`]); this module holds the arithmetic.
//!
//! | profile | rule | file |
//! |---|---|---|
//! | `openai` | 512-px tiles, base + per-tile price per model | [`openai`] |
//! | `openai-patch` | 32-px patches under a budget, × a per-model multiplier | [`openai`] |
//! | `anthropic`, `anthropic-highres` | 28-px units after a fit-to-(edge, tokens) resize | [`anthropic`] |
//! | `anthropic-legacy` | w·h/750 after a 1568-px / 1.15-MP resize | [`anthropic`] |
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
//! use ankita::profiles::{anthropic::Anthropic, openai::OpenAiTile, pixtral};
//! assert_eq!(OpenAiTile::gpt_4o().tokens(1024, 1024, Some("high")), 765);
//! assert_eq!(Anthropic::standard().tokens(1000, 1000), 1296);
//! assert_eq!(pixtral::tokens(1024, 1024), 4160);
//! ```

pub mod anthropic;
pub mod gemini;
pub mod models;
pub mod openai;
pub mod pixtral;
pub mod qwen;

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

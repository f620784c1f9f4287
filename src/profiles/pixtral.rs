//! Pixtral-12B: 16-px patches after fitting the long side into 1024 px; each row of patches
//! ends with an `[IMG_BREAK]` (the last with `[IMG_END]`), hence `rows × (cols + 1)`.
//!
//! ```
//! assert_eq!(ankita::profiles::pixtral::tokens(1024, 1024), 4160);
//! ```

use super::{div_round_half_even, saturate, side};

// Private: cbindgen would export public constants into the C header.
const MAX_SIDE: u128 = 1024;
const PATCH: u128 = 16;

/// The size the model sees: scaled so that the long side is at most 1024 px, each side rounded
/// half to even (Python's `round`, as the reference tokenizer does) and kept at least 1 px.
///
/// ```
/// assert_eq!(ankita::profiles::pixtral::resize(2048, 1000), (1024, 500));
/// ```
pub fn resize(width: u32, height: u32) -> (u64, u64) {
    let (w, h) = (side(width), side(height));
    let long = w.max(h);
    if long <= MAX_SIDE {
        return (w as u64, h as u64);
    }
    let fit = |x: u128| div_round_half_even(x * MAX_SIDE, long).max(1) as u64;
    (fit(w), fit(h))
}

/// Tokens for one image: `rows × (cols + 1)` of 16-px patches.
pub fn tokens(width: u32, height: u32) -> u64 {
    let (w, h) = resize(width, height);
    let cols = (u128::from(w) - 1) / PATCH + 1;
    let rows = (u128::from(h) - 1) / PATCH + 1;
    saturate(rows * (cols + 1))
}

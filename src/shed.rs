//! The shedding steps that act inside messages once dropping whole groups is not enough:
//! shrinking text (head and tail kept around a visible marker), image placeholders, and
//! attachment bodies reduced to their first line.

use crate::pricing::ImagePrice;

/// No text is shrunk below this many bytes.
pub const MIN_TEXT_BYTES: u64 = 128;

fn marker(cut: usize) -> String {
    format!("\n[... {cut} bytes omitted to fit the context budget ...]\n")
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Shrinks `text` to at most `target` bytes (at least [`MIN_TEXT_BYTES`] are asked for),
/// keeping its head and tail around a marker that says how many bytes were cut. Never splits
/// a UTF-8 character.
///
/// ```
/// let s = ankita::shed::shrink_text(&"é".repeat(500), 200);
/// assert!(s.len() <= 200 && s.contains("bytes omitted"));
/// ```
pub fn shrink_text(text: &str, target: usize) -> String {
    let n = text.len();
    if n <= target {
        return text.to_owned();
    }
    let mut keep = target.saturating_sub(marker(n - target).len());
    loop {
        let head = floor_boundary(text, keep / 2);
        let tail = ceil_boundary(text, n - (keep - keep / 2));
        let mark = marker(tail - head);
        let len = head + mark.len() + (n - tail);
        if len <= target || keep == 0 {
            let mut out = String::with_capacity(len);
            out.push_str(&text[..head]);
            out.push_str(&mark);
            out.push_str(&text[tail..]);
            return out;
        }
        keep = keep.saturating_sub(len - target);
    }
}

/// The largest level `L ≥ floor` such that cutting every size above `L` down to `L` frees at
/// least `need` bytes: "shrink the biggest first" in one step. `None` when even cutting
/// everything to `floor` is not enough.
pub(crate) fn water_level(sizes: &[u64], need: u64, floor: u64) -> Option<u64> {
    let mut sorted: Vec<u64> = sizes.iter().copied().filter(|&s| s > floor).collect();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let mut prefix: u128 = 0;
    for k in 0..sorted.len() {
        prefix += u128::from(sorted[k]);
        let count = k as u128 + 1;
        let next = sorted.get(k + 1).copied().unwrap_or(floor).max(floor);
        if prefix >= u128::from(need) + count * u128::from(next) {
            return Some(((prefix - u128::from(need)) / count) as u64);
        }
    }
    None
}

/// A short description of an image: `PNG 1700×2200, ~765 tokens`.
pub fn describe_image(price: &ImagePrice) -> String {
    match (price.probe, price.tokens) {
        (Ok(info), Some(tokens)) => format!(
            "{} {}×{}, ~{} tokens",
            info.format, info.width, info.height, tokens
        ),
        (Err(_), Some(tokens)) => format!("remote image, ~{tokens} tokens"),
        _ => format!("unreadable image, {} bytes", price.budget_bytes),
    }
}

/// The text part that stands where an image was.
pub fn image_placeholder(price: &ImagePrice) -> String {
    format!(
        "[Image omitted to fit the context budget: {}]",
        describe_image(price)
    )
}

/// What remains of an attachment: its first line (at most 200 bytes) and a note.
pub fn attachment_stub(text: &str) -> String {
    let first = text.split('\n').next().unwrap_or("");
    let first = &first[..floor_boundary(first, first.len().min(200))];
    format!(
        "{first}\n[File body omitted to fit the context budget: {} bytes]",
        text.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrink_keeps_head_and_tail_and_never_splits_characters() {
        let text: String = "Grüße, 世界! ".repeat(100);
        for target in [128usize, 129, 130, 200, 777, 1000] {
            let s = shrink_text(&text, target);
            assert!(s.len() <= target, "{target}: {}", s.len());
            assert!(s.len() + 8 >= target, "{target}: only {}", s.len());
            assert!(s.starts_with("Grü"));
            assert!(s.ends_with("世界! "));
            let cut: usize = s
                .split("[... ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap();
            let marker_len = marker(cut).len();
            assert_eq!(
                s.len() - marker_len + cut,
                text.len(),
                "marker counts the cut"
            );
        }
        assert_eq!(shrink_text("short", 128), "short");
    }

    #[test]
    fn water_level_shrinks_the_biggest_first() {
        // Cutting 1000 → 600 frees exactly 400.
        assert_eq!(water_level(&[1000, 300, 200], 400, 128), Some(600));
        // Freeing 900: both big ones go to the same level (1000+800−900)/2 = 450.
        assert_eq!(water_level(&[1000, 800, 100], 900, 128), Some(450));
        assert_eq!(water_level(&[1000, 800], 10_000, 128), None);
        assert_eq!(water_level(&[], 1, 128), None);
    }
}

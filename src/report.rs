//! What trimming did, by input index (DESIGN §8), so the application can tell the user.

use crate::probe::ImageFormat;
use crate::repair::RepairEntry;
use crate::request::MessageFormat;
use serde_json::{json, Value};

/// A text that was shrunk: head and tail kept around a marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncation {
    pub index: usize,
    pub part: Option<usize>,
    pub from_bytes: u64,
    pub to_bytes: u64,
}

/// An image that did not fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedImage {
    pub index: usize,
    pub part: usize,
    /// `None` when the image could not be decoded.
    pub format: Option<ImageFormat>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub tokens: Option<u64>,
    pub budget_bytes: u64,
}

/// An attachment body that was dropped (its first line stays).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedAttachment {
    pub index: usize,
    pub part: usize,
    pub bytes: u64,
}

/// Anthropic format: message `index` was merged into message `into` to keep roles alternating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merge {
    pub index: usize,
    pub into: usize,
}

/// Anthropic format: a block removed from a message that stays (a `tool_result` whose
/// exchange was dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedBlock {
    pub index: usize,
    pub part: usize,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// The message format the request used.
    pub format: MessageFormat,
    /// The history budget; `None` when only `max_messages` applies.
    pub budget_bytes: Option<u64>,
    /// Cost of the returned messages.
    pub cost_bytes: u64,
    pub bytes_per_token: u64,
    pub input_messages: usize,
    pub output_messages: usize,
    /// Input indices of messages removed whole by trimming (repairs are in `repaired`).
    pub dropped_messages: Vec<usize>,
    pub truncated: Vec<Truncation>,
    pub dropped_images: Vec<DroppedImage>,
    pub dropped_attachments: Vec<DroppedAttachment>,
    pub repaired: Vec<RepairEntry>,
    /// Anthropic format only.
    pub merged: Vec<Merge>,
    /// Anthropic format only.
    pub dropped_blocks: Vec<DroppedBlock>,
}

impl Report {
    /// Removes every entry about the input messages `indices` (ascending) in one pass: a
    /// tool exchange of thousands of replies must not cost thousands of passes.
    pub(crate) fn forget_messages(&mut self, indices: &[usize]) {
        debug_assert!(indices.windows(2).all(|w| w[0] < w[1]));
        let gone = |index: usize| indices.binary_search(&index).is_ok();
        self.truncated.retain(|t| !gone(t.index));
        self.dropped_images.retain(|d| !gone(d.index));
        self.dropped_attachments.retain(|d| !gone(d.index));
    }

    pub fn to_json(&self) -> Value {
        let tokens = |bytes: u64| bytes.div_ceil(self.bytes_per_token.max(1));
        let mut report = json!({
            "format": self.format.as_str(),
            "budget_bytes": self.budget_bytes,
            "budget_tokens": self.budget_bytes.map(tokens),
            "cost_bytes": self.cost_bytes,
            "cost_tokens": tokens(self.cost_bytes),
            "input_messages": self.input_messages,
            "output_messages": self.output_messages,
            "dropped_messages": self.dropped_messages,
            "truncated": self.truncated.iter().map(|t| json!({
                "index": t.index, "part": t.part, "from_bytes": t.from_bytes, "to_bytes": t.to_bytes,
            })).collect::<Vec<_>>(),
            "dropped_images": self.dropped_images.iter().map(|d| json!({
                "index": d.index, "part": d.part, "format": d.format.map(ImageFormat::as_str),
                "width": d.width, "height": d.height, "tokens": d.tokens,
                "budget_bytes": d.budget_bytes,
            })).collect::<Vec<_>>(),
            "dropped_attachments": self.dropped_attachments.iter().map(|d| json!({
                "index": d.index, "part": d.part, "bytes": d.bytes,
            })).collect::<Vec<_>>(),
            "repaired": self.repaired.iter().map(RepairEntry::to_json).collect::<Vec<_>>(),
        });
        if self.format == MessageFormat::Anthropic {
            report["merged"] = self
                .merged
                .iter()
                .map(|m| json!({"index": m.index, "into": m.into}))
                .collect();
            report["dropped_blocks"] = self
                .dropped_blocks
                .iter()
                .map(|d| json!({"index": d.index, "part": d.part}))
                .collect();
        }
        report
    }
}

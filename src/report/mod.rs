//! What trimming did, in the caller's indices (DESIGN §8), so the application can tell the user.
//!
//! The pipeline records what it did to logical messages and units; `Report::locate` is the
//! one mapping of every entry back to the caller's message and part (block) indices, whatever
//! the format.

pub use crate::format::Merge;
use crate::format::{Format, Words};
use crate::json::write_str;
use crate::model::{Malformed, Origin, Session};
use crate::pricing::{FilePrice, MediaPrice};
use crate::probe::file::{FileError, FileInfo, FileKind};
use crate::probe::ImageFormat;
use crate::repair::{Repair, RepairAction, RepairReason};
use crate::tokens::Measure;
use std::fmt;

mod write;
use write::default_path;
pub use write::{action_name, ranges, reason_text, Style};

/// Where a report is written: a string, the answer's own buffer, or a counter of its length.
pub trait Sink: fmt::Write {
    fn push(&mut self, c: char) {
        let _ = self.write_char(c);
    }
    fn push_str(&mut self, s: &str) {
        let _ = self.write_str(s);
    }
}

impl Sink for String {}

/// Counts the bytes written to it.
#[derive(Debug, Default)]
pub struct Counter(pub usize);

impl fmt::Write for Counter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

impl Sink for Counter {}

/// Appends what is written to a byte buffer.
pub struct Bytes<'v>(pub &'v mut Vec<u8>);

impl fmt::Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

impl Sink for Bytes<'_> {}

/// A text that was shrunk: head and tail kept around a marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncation {
    pub index: usize,
    pub part: Option<usize>,
    pub from_bytes: u64,
    pub to_bytes: u64,
}

/// How the user message that began the kept run's turn came back (formats whose answer must
/// start with the user's turn, [`crate::turn`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnStartKept {
    Whole,
    Shrunk,
    Placeholder,
}

impl TurnStartKept {
    pub fn as_str(self) -> &'static str {
        match self {
            TurnStartKept::Whole => "whole",
            TurnStartKept::Shrunk => "shrunk",
            TurnStartKept::Placeholder => "placeholder",
        }
    }
}

/// The user message brought back so that the answer starts with the user's turn: its index,
/// how it came back, and its cost before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnStart {
    pub index: usize,
    pub kept: TurnStartKept,
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

/// A document or audio part that did not fit (a placeholder says what it was).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedFile {
    pub index: usize,
    pub part: usize,
    pub kind: FileKind,
    /// What the caller calls the file (its file name or title, file id, or URL's last
    /// segment: [`FilePrice::name`]); `None` when it gave none.
    pub name: Option<Box<str>>,
    /// `"pdf"`, `"mp3"`, …; `None` when the file could not be read.
    pub format: Option<&'static str>,
    /// Pages (documents) or seconds (audio) priced, read or estimated.
    pub count: u64,
    pub tokens: Option<u64>,
    pub budget_bytes: u64,
}

impl DroppedFile {
    pub(crate) fn new(index: usize, part: usize, file: &FilePrice, price: &MediaPrice) -> Self {
        DroppedFile {
            index,
            part,
            kind: file.kind,
            name: file.name.clone(),
            format: file.probe.ok().map(|i| i.format_name()),
            count: file.count,
            tokens: price.tokens,
            budget_bytes: price.budget_bytes,
        }
    }
}

/// A short description of a document or audio file that costs `tokens`:
/// `PDF, 10 pages, ~2,580 tokens`, `MP3, 30 s, ~960 tokens`, `unreadable PDF (encrypted PDF),
/// ~100 pages estimated, …`, `remote PDF, ~100 pages estimated, …`; led by the file's name in
/// quotes where the caller gave one (`"q3.pdf", PDF, 10 pages, …`).
pub fn describe_file(file: &FilePrice, tokens: u64) -> String {
    let what = match (file.kind, file.probe) {
        (_, Ok(FileInfo::Document(_))) => "PDF".to_owned(),
        (_, Ok(FileInfo::Audio(a))) => a.format.display_name().to_owned(),
        (FileKind::Document, Err(FileError::NotBase64)) => "remote PDF".to_owned(),
        (FileKind::Audio, Err(FileError::NotBase64)) => "remote audio".to_owned(),
        (FileKind::Document, Err(e)) => format!("unreadable PDF ({e})"),
        (FileKind::Audio, Err(e)) => format!("unreadable audio ({e})"),
    };
    let count = match (file.kind, file.count) {
        (FileKind::Document, 1) => "1 page".to_owned(),
        (FileKind::Document, n) => format!("{} pages", group(n)),
        (FileKind::Audio, n) => format!("{} s", group(n)),
    };
    let estimated = if file.estimated { " estimated" } else { "" };
    let tilde = if file.estimated { "~" } else { "" };
    let name = match &file.name {
        Some(name) => format!("\"{name}\", "),
        None => String::new(),
    };
    format!(
        "{name}{what}, {tilde}{count}{estimated}, ~{} tokens",
        group(tokens)
    )
}

/// `25800` → `25,800`.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// An attachment body that was dropped (its first line stays).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedAttachment {
    pub index: usize,
    pub part: usize,
    pub bytes: u64,
}

/// A tool result whose text was replaced by the `clear_tool_results` placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClearedToolResult {
    pub index: usize,
    /// What the result cost before it was cleared (bytes, or tokens in token mode).
    pub cost: u64,
}

/// A block removed from a message that stays (a tool result whose exchange was dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedBlock {
    pub index: usize,
    pub part: usize,
}

/// One repair in the caller's indices. A report lists one per message repair removed, so
/// an entry is no larger than the [`Repair`] it is made from (the list is converted in place)
/// and its default path is written when the report is, not held as a string.
#[derive(Debug, Clone, PartialEq)]
pub struct RepairEntry<'a> {
    pub index: usize,
    pub action: RepairAction,
    /// Why. In an entry, the message a `ReplyOfIncomplete` (`assistant`) or a
    /// `FollowerRemoved` (`message`) names is the caller's index ([`RepairEntry::assistant`]).
    pub reason: RepairReason<'a>,
    /// The JSON path of the defect that repair named (a malformed tool call's).
    pub given_path: Option<Box<str>>,
    /// Where the path points when repair named none ([`RepairEntry::path`]).
    at: PathAt,
}

/// Where a repair entry's default path points: the message's field that the action names,
/// block `n` of its content (a tool reply that is one block of its message), or nowhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PathAt(u32);

impl PathAt {
    const FIELD: PathAt = PathAt(u32::MAX);
    const NONE: PathAt = PathAt(u32::MAX - 1);

    fn of(origin: Origin) -> PathAt {
        match origin {
            Origin::Reply { part } => PathAt(part.min(u32::MAX - 2)),
            Origin::Whole => PathAt::FIELD,
            _ => PathAt::NONE,
        }
    }

    fn origin(self) -> Origin {
        match self {
            PathAt::FIELD => Origin::Whole,
            PathAt::NONE => Origin::Parts,
            PathAt(part) => Origin::Reply { part },
        }
    }
}

// (On 64-bit targets, where the layout is measured; a 32-bit one, as WebAssembly, packs both
// smaller in its own way.)
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<RepairEntry<'_>>() <= std::mem::size_of::<Repair<'_>>());

impl RepairEntry<'_> {
    /// The same entry, owning its strings.
    pub fn into_owned(self) -> RepairEntry<'static> {
        RepairEntry {
            index: self.index,
            action: self.action,
            reason: self.reason.into_owned(),
            given_path: self.given_path,
            at: self.at,
        }
    }

    /// The caller's index of the assistant message, for the reply of an incomplete exchange
    /// (of the removed item, for a reasoning item that followed it out).
    pub fn assistant(&self) -> Option<usize> {
        match self.reason {
            RepairReason::ReplyOfIncomplete { assistant }
            | RepairReason::FollowerRemoved { message: assistant } => Some(assistant),
            _ => None,
        }
    }

    /// The JSON path of the defect, when there is one value to point at (`content_key`: the
    /// format's, for a tool reply that is a block of its message).
    pub fn path(&self, content_key: &str) -> Option<std::borrow::Cow<'_, str>> {
        match &self.given_path {
            Some(path) => Some(std::borrow::Cow::Borrowed(path)),
            None => default_path(self.action, self.at.origin(), self.index, content_key)
                .map(std::borrow::Cow::Owned),
        }
    }
}

/// Which limit bound the answer (`report.limited_by`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// `max_messages` stopped the selection of older messages.
    MaxMessages,
    /// The budget did: an older message did not fit, or something was shed.
    Budget,
    /// The request's `cut` did: the messages before it stay dropped (cache-stable trimming).
    Cut,
}

impl Limit {
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::MaxMessages => "max_messages",
            Limit::Budget => "budget",
            Limit::Cut => "cut",
        }
    }
}

/// Something the request left open that the call assumed (`unknown_model`): a report warning
/// about no message (`index` and `part` are `null`), listed before the messages' warnings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestWarning {
    pub code: &'static str,
    /// The request key concerned (`model`).
    pub path: &'static str,
    pub message: String,
}

/// Something in the input the caller should know about, that did not stop the trim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// `implausible_image`, `unreadable_file`, `implausible_file`.
    pub code: &'static str,
    pub index: usize,
    pub part: Option<usize>,
    /// The JSON path of the value concerned.
    pub path: String,
    pub message: String,
}

impl Warning {
    /// A warning about `unit` of the logical message `msg`, at its path
    /// ([`crate::format::unit_path`]).
    pub(crate) fn of_unit(
        code: &'static str,
        format: Format,
        session: &Session<'_>,
        msg: &crate::model::Message<'_>,
        unit: &crate::model::Unit<'_>,
        message: String,
    ) -> Warning {
        Warning {
            code,
            index: msg.physical.unwrap_or(0) as usize,
            part: unit.part.map(|p| p as usize),
            path: crate::format::unit_path(format, session, msg, unit),
            message,
        }
    }
}

/// An `unreadable_file` warning for every document or audio part whose bytes the probe could
/// not read (encrypted, damaged, an unknown format), and an `implausible_file` warning for every
/// one whose structure claims more pages or a longer duration than its size can hold
/// ([`crate::probe::plausible::is_implausible_file`]): both priced by the conservative
/// estimate of [`crate::profiles::files`].
pub(crate) fn file_warnings(session: &Session<'_>, format: Format) -> Vec<Warning> {
    fn unreadable<'u>(u: &'u crate::model::Unit<'_>) -> Option<(&'u FilePrice, &'u MediaPrice)> {
        match &u.kind {
            crate::model::UnitKind::Media(price) => match &**price {
                MediaPrice { file: Some(f), .. }
                    if f.estimated && f.probe != Err(FileError::NotBase64) =>
                {
                    Some((f, price))
                }
                _ => None,
            },
            _ => None,
        }
    }
    let mut warnings = Vec::new();
    if !session.units.iter().any(|u| unreadable(u).is_some()) {
        return warnings;
    }
    for msg in &session.messages {
        for unit in &session.units[msg.unit_range()] {
            let Some((file, price)) = unreadable(unit) else {
                continue;
            };
            let described = describe_file(file, price.tokens.unwrap_or(0));
            let (code, message) = match (price.implausible, file.probe) {
                (true, Ok(FileInfo::Document(d))) => (
                    "implausible_file",
                    format!(
                        "the PDF's page tree states {} pages, more than a file of its size can \
                         hold (a page a byte); priced conservatively: {described}",
                        group(u64::from(d.pages))
                    ),
                ),
                (true, Ok(FileInfo::Audio(a))) => (
                    "implausible_file",
                    format!(
                        "the {} header states {} s, more than a file of its size can hold at \
                         the codec's lowest rate; priced conservatively: {described}",
                        a.format.display_name(),
                        group(a.seconds())
                    ),
                ),
                _ => (
                    "unreadable_file",
                    format!("the file could not be read; priced conservatively: {described}"),
                ),
            };
            warnings.push(Warning::of_unit(code, format, session, msg, unit, message));
        }
    }
    warnings
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report<'a> {
    /// The message format the request used.
    pub format: Format,
    /// The history budget; `None` when only `max_messages` applies.
    pub budget_bytes: Option<u64>,
    /// Cost of the returned messages.
    pub cost_bytes: u64,
    pub bytes_per_token: u64,
    /// How costs were counted: in bytes, every cost field is in bytes; in tokens, in tokens.
    pub measure: Measure,
    /// Where the token factor of `measure` comes from (`token_factor`, in tokens only).
    pub factor_origin: crate::calibrate::FactorOrigin,
    pub input_messages: usize,
    pub output_messages: usize,
    /// Input indices of messages removed whole by trimming (repairs are in `repaired`).
    pub dropped_messages: Vec<usize>,
    pub truncated: Vec<Truncation>,
    pub dropped_images: Vec<DroppedImage>,
    /// Document and audio parts replaced by a placeholder or removed.
    pub dropped_files: Vec<DroppedFile>,
    pub dropped_attachments: Vec<DroppedAttachment>,
    /// Which limit bound the answer; `None` when every message fits both.
    pub limited_by: Option<Limit>,
    /// Caller's indices of messages brought back by refill after shedding.
    pub refilled: Vec<usize>,
    pub warnings: Vec<Warning>,
    /// Warnings about the request rather than a message, listed first in `warnings`.
    pub request_warnings: Vec<RequestWarning>,
    pub cleared_tool_results: Vec<ClearedToolResult>,
    pub repaired: Vec<RepairEntry<'a>>,
    /// Formats that merge adjacent turns only.
    pub merged: Vec<Merge>,
    /// Formats that merge adjacent turns only.
    pub dropped_blocks: Vec<DroppedBlock>,
    /// Formats whose answer starts with the user's turn only: the user message brought back
    /// for it, if any.
    pub turn_start: Option<TurnStart>,
    /// Cache-stable trimming only (`Some`): the caller's index where the kept run starts,
    /// `None` when nothing was dropped ([`crate::stable`]).
    pub cut: Option<Option<usize>>,
    /// `cache_breakpoint` only (`Some`): where the breakpoint is, if anywhere.
    pub cache_breakpoint: Option<Option<Breakpoint>>,
    /// The request's summary was placed: its index in the returned messages
    /// ([`crate::stable`]).
    pub summary: Option<usize>,
    /// Cache-stable trimming whose cut moved: what to summarise next.
    pub compaction: Option<Compaction>,
}

/// What to summarise next (`report.compaction`): the caller's messages `from..=through`, those
/// of them the answer dropped, and what a summary of them may cost and still fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compaction {
    pub from: usize,
    pub through: usize,
    pub messages: Vec<usize>,
    /// In the report's unit; `None` without a budget (a message count alone).
    pub budget: Option<u64>,
}

/// Where a `cache_control` breakpoint stands: the returned message and its block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Breakpoint {
    /// Index in the returned messages.
    pub output_index: usize,
    pub part: usize,
    /// Whether the caller's message had it already.
    pub given: bool,
}

impl<'a> Report<'a> {
    /// Fills in the caller's indices of what the pipeline dropped and repaired: `dropped`
    /// are logical messages dropped by trimming, ascending.
    pub(crate) fn locate(
        &mut self,
        session: &Session<'a>,
        kept: &[bool],
        dropped: &[usize],
        repairs: Vec<Repair<'a>>,
    ) {
        // Which caller's messages are kept, read only when some are dropped.
        let mut kept_physical = Vec::new();
        let mut dropped_physical = Vec::new();
        if !dropped.is_empty() {
            kept_physical = vec![false; session.inputs.len()];
            for (m, msg) in session.messages.iter().enumerate() {
                if let (true, Some(p)) = (kept[m], msg.physical) {
                    kept_physical[p as usize] = true;
                }
            }
            dropped_physical = vec![false; session.inputs.len()];
        }
        // A physical message split into many logical ones is dropped once.
        for &m in dropped {
            let msg = &session.messages[m];
            let Some(p) = msg.physical else { continue };
            let p = p as usize;
            if kept_physical[p] {
                if let Origin::Reply { part: block } = msg.origin {
                    self.dropped_blocks.push(DroppedBlock {
                        index: p,
                        part: block as usize,
                    });
                }
            } else if !std::mem::replace(&mut dropped_physical[p], true) {
                self.dropped_messages.push(p);
            }
        }
        self.dropped_messages.sort_unstable();
        let physical = |m: usize| session.messages[m].physical.unwrap_or(0) as usize;
        // Collected in place (an entry is no larger than a repair): one list at a time.
        self.repaired = repairs
            .into_iter()
            .map(|r| {
                let msg = &session.messages[r.message];
                let reason = match r.reason {
                    RepairReason::ReplyOfIncomplete { assistant } => {
                        RepairReason::ReplyOfIncomplete {
                            assistant: physical(assistant),
                        }
                    }
                    RepairReason::FollowerRemoved { message } => RepairReason::FollowerRemoved {
                        message: physical(message),
                    },
                    reason => reason,
                };
                RepairEntry {
                    index: msg.physical.unwrap_or(0) as usize,
                    action: r.action,
                    reason,
                    given_path: r.path,
                    at: PathAt::of(msg.origin),
                }
            })
            .collect();
    }

    /// Removes every entry about the caller's messages `indices` (ascending) in one pass: a
    /// tool exchange of thousands of replies must not cost thousands of passes.
    pub(crate) fn forget_messages(&mut self, indices: &[usize]) {
        debug_assert!(indices.windows(2).all(|w| w[0] <= w[1]));
        let gone = |index: usize| indices.binary_search(&index).is_ok();
        self.truncated.retain(|t| !gone(t.index));
        self.dropped_images.retain(|d| !gone(d.index));
        self.dropped_files.retain(|d| !gone(d.index));
        self.dropped_attachments.retain(|d| !gone(d.index));
    }

    /// The report as JSON text (DESIGN §8).
    pub fn to_json_string(&self) -> String {
        let mut out = String::with_capacity(256 + 64 * self.repaired.len());
        self.write(&mut out, Style::Trim);
        out
    }

    /// `{"repaired": [...]}` (and the format's merge list): the report of `sanitize`.
    pub fn repairs_json_string(&self) -> String {
        let mut out = String::with_capacity(64 + 64 * self.repaired.len());
        self.write(&mut out, Style::Repairs);
        out
    }

    /// The report as a JSON value.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::from_str(&self.to_json_string()).expect("the report writes valid JSON")
    }
}

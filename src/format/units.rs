//! The units adapters split content into: a string's text, a text part (an attachment when it
//! starts with `Attached file:`), a part priced as JSON, a priced image or file.

use crate::model::{
    Change, ContentShape, Message, Origin, Role, Session, TextSource, ToolCalls, Unit, UnitKind,
    ATTACHMENT_PREFIX,
};
use crate::raw::{self, kind, str_len, Doc, Kind, Raw};

/// The unit of a string content (DESIGN §4: only a text *part* can be an attachment body).
pub(crate) fn string_unit(part: Option<u32>, token: &str) -> Unit<'_> {
    string_unit_of(part, token, str_len(token))
}

/// [`string_unit`] of a token whose decoded length is known: `bytes`.
fn string_unit_of(part: Option<u32>, token: &str, bytes: u64) -> Unit<'_> {
    Unit {
        part,
        sub: None,
        kind: UnitKind::Text,
        text: TextSource::Raw(token),
        bytes,
        change: Change::Keep,
    }
}

/// A text unit for the JSON string token `token` (an attachment when it starts so).
pub(crate) fn text_unit(part: Option<u32>, token: &str) -> Unit<'_> {
    let kind = if is_attachment(token) {
        UnitKind::Attachment
    } else {
        UnitKind::Text
    };
    Unit {
        part,
        sub: None,
        kind,
        text: TextSource::Raw(token),
        bytes: str_len(token),
        change: Change::Keep,
    }
}

/// A message's content (or a tool output) as far as every format reads it alike.
pub(crate) enum Content<'a> {
    /// Absent, null, or a string (its text unit pushed).
    Read(ContentShape),
    /// An array of parts, for the format to split.
    Parts(Raw<'a>),
    /// Another value.
    Other(Raw<'a>),
}

/// Reads the content `value` of a message (of `doc`): an absent or null content has no units, a
/// string one text unit (pushed onto the session's units; a long one's length known from the
/// validating pass, without reading it again); parts and other values are the format's.
#[inline(always)]
pub(crate) fn content<'a>(
    doc: &Doc<'a>,
    value: Option<Raw<'a>>,
    s: &mut Session<'a>,
) -> Content<'a> {
    match value.map(|c| (kind(c), c)) {
        None => Content::Read(ContentShape::Absent),
        Some((Kind::Null, _)) => Content::Read(ContentShape::Null),
        Some((Kind::String, c)) => {
            s.units.push(string_unit_of(None, c, doc.str_len(c)));
            Content::Read(ContentShape::Text)
        }
        Some((Kind::Array, c)) => Content::Parts(c),
        Some((_, c)) => Content::Other(c),
    }
}

/// Whether the string token's text starts with [`ATTACHMENT_PREFIX`].
pub(crate) fn is_attachment(token: &str) -> bool {
    let inner = &token[1..];
    if inner.starts_with(ATTACHMENT_PREFIX) {
        return true;
    }
    // The prefix may hide behind escapes (`\u0041ttached`): decode only then. Its first
    // character is written as itself or as an escape, or the text cannot start with it.
    let first = ATTACHMENT_PREFIX.as_bytes()[0];
    if !inner
        .as_bytes()
        .first()
        .is_some_and(|&b| b == first || b == b'\\')
    {
        return false;
    }
    let head = &inner.as_bytes()[..inner.len().min(ATTACHMENT_PREFIX.len() * 6)];
    head.contains(&b'\\') && raw::decode(token).starts_with(ATTACHMENT_PREFIX)
}

/// A part kept as written and priced as `bytes` (its compact JSON, as a rule).
pub(crate) fn opaque<'a>(part: Option<u32>, sub: Option<u32>, bytes: u64) -> Unit<'a> {
    Unit {
        part,
        sub,
        kind: UnitKind::Other,
        text: TextSource::NONE,
        bytes,
        change: Change::Keep,
    }
}

/// A part priced as an image (or a document or audio file): its budget bytes.
pub(crate) fn priced<'a>(part: Option<u32>, sub: Option<u32>, kind: UnitKind) -> Unit<'a> {
    let bytes = super::image_price(&kind).map_or(0, |p| p.budget_bytes);
    Unit {
        kind,
        bytes,
        ..opaque(part, sub, 0)
    }
}

/// A logical message without tool calls or a reply id: from the caller's message `physical`
/// (`None`: the system prompt given outside the messages), its units `units`, its other fields
/// costing `meta` bytes.
#[inline(always)]
pub(crate) fn logical<'a>(
    physical: Option<u32>,
    origin: Origin,
    role: Option<Role>,
    shape: ContentShape,
    units: (u32, u32),
    meta: u64,
) -> Message<'a> {
    Message {
        physical,
        origin,
        role,
        shape,
        units,
        meta_bytes: meta,
        meta_without_calls: meta,
        tool_calls: ToolCalls::None,
        tool_call_id: None,
        has_refusal: false,
        has_note: false,
        remove_tool_calls: false,
        compaction: false,
    }
}

/// The system prompt given outside the messages (request key `system`), pinned.
pub(crate) fn system_message<'a>(shape: ContentShape, units: (u32, u32), meta: u64) -> Message<'a> {
    logical(None, Origin::System, Some(Role::System), shape, units, meta)
}

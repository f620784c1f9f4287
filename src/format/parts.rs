//! The answer of formats whose messages hold several logical ones (a message's tool calls among
//! its parts, each tool reply a part of its own: Anthropic blocks, Gemini parts, AI SDK parts):
//! each returned message is built from its logical messages, the caller's parts where nothing
//! changed, in the caller's order, and stand-in parts where something did.

use super::write::{array, json_string, object_with};
use super::Out;
use crate::model::{Change, Origin, Role, Session, Unit};
use crate::raw::{get, kind, Doc, Fields, Kind, Raw};

/// What a format writes where the shared mapping leaves it the choice.
pub(crate) trait PartWriter {
    /// The key of a message's parts (`content`, Gemini's `parts`).
    fn key(&self) -> &'static str {
        "content"
    }

    /// A new text part: a placeholder, the repair note, a shrunk attachment.
    fn text(&self, s: &str) -> String;

    /// The key of a part's text, when the part is a text part whose text can be replaced in
    /// place (its other fields kept).
    fn text_key(&self, fields: &Fields<'_>) -> Option<&'static str>;

    /// A kept reply part (logical message `m`), rebuilt when something in it changed.
    fn reply(&self, doc: &Doc<'_>, part: Raw<'_>, session: &Session<'_>, m: usize) -> String;

    /// A part after its unit's change: the caller's part, its text replaced, a text part in its
    /// place, or nothing.
    fn changed(&self, doc: &Doc<'_>, part: Raw<'_>, unit: &Unit<'_>) -> Option<String> {
        match &unit.change {
            Change::Keep => Some(part.to_owned()),
            Change::Text(s) => {
                let fields = doc.fields(part).unwrap_or_default();
                Some(match self.text_key(&fields) {
                    Some(key) => object_with(&fields, key, Some(&json_string(s))),
                    None => self.text(s),
                })
            }
            Change::Placeholder(s) => Some(self.text(s)),
            Change::Removed => None,
        }
    }
}

/// Whether the logical messages `range` of one caller's message come back as they are.
pub(crate) fn unchanged(
    session: &Session<'_>,
    kept: &[bool],
    range: std::ops::Range<usize>,
) -> bool {
    range.into_iter().all(|m| {
        kept[m]
            && !session.messages[m].has_note
            && !session.messages[m].remove_tool_calls
            && session.units_of(m).iter().all(|u| u.change == Change::Keep)
    })
}

/// A returned message being built.
pub(crate) struct Piece<'r> {
    pub index: usize,
    /// A message of tool replies is the user's (Anthropic, Gemini).
    pub role: Role,
    /// The caller's message, as written.
    message: Raw<'r>,
    /// `None` while the message is the caller's, unchanged and unread.
    content: Option<Content<'r>>,
}

/// The content of a returned message.
enum Content<'r> {
    /// As the caller wrote it (absent, null, a string or parts).
    Caller(Option<Raw<'r>>),
    /// A new string.
    Text(String),
    /// Parts, each as JSON text.
    Parts(Vec<String>),
}

/// The returned form of the caller's message `message` from its logical messages `range`.
pub(crate) fn piece<'r>(
    doc: &Doc<'r>,
    message: Raw<'r>,
    session: &Session<'_>,
    kept: &[bool],
    range: std::ops::Range<usize>,
    w: &impl PartWriter,
) -> Piece<'r> {
    let first = &session.messages[range.start];
    let role = match first.role {
        Some(Role::Assistant) => Role::Assistant,
        _ => Role::User,
    };
    let mut piece = Piece {
        index: first.physical.unwrap_or(0) as usize,
        role,
        message,
        content: None,
    };
    if unchanged(session, kept, range.clone()) {
        return piece;
    }
    let fields = doc.fields(message).unwrap_or_default();
    let caller = get(&fields, w.key());
    if first.origin == Origin::Whole {
        piece.content = Some(
            match (session.units_of(range.start).first(), first.note()) {
                (
                    Some(Unit {
                        change: Change::Text(s),
                        ..
                    }),
                    _,
                ) => Content::Text(s.to_string()),
                (_, Some(note)) => Content::Text(note.to_string()),
                _ => Content::Caller(caller),
            },
        );
        return piece;
    }
    let parts = caller.and_then(|c| doc.items(c)).unwrap_or_default();
    // Part → the logical reply it is, and the unit it is of the message's other parts.
    let mut reply_of = vec![None; parts.len()];
    let mut unit_of = vec![None; parts.len()];
    let mut own = None;
    for m in range {
        match session.messages[m].origin {
            Origin::Reply { part: block } => reply_of[block as usize] = Some(m),
            Origin::Parts => {
                own = Some(m);
                for u in session.messages[m].unit_range() {
                    if let Some(part) = session.units[u].part {
                        unit_of[part as usize] = Some(u);
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::with_capacity(parts.len());
    for (p, part) in parts.iter().enumerate() {
        if let Some(m) = reply_of[p] {
            if kept[m] {
                out.push(w.reply(doc, part, session, m));
            }
            continue;
        }
        let Some(own) = own.filter(|&own| kept[own]) else {
            continue;
        };
        match unit_of[p] {
            // A call: it goes with the message's tool calls.
            None => {
                if !session.messages[own].remove_tool_calls {
                    out.push((*part).to_owned());
                }
            }
            Some(u) => out.extend(w.changed(doc, part, &session.units[u])),
        }
    }
    if let Some(note) = own.and_then(|own| session.messages[own].note()) {
        out.push(w.text(note));
    }
    piece.content = Some(Content::Parts(out));
    piece
}

impl<'r> Piece<'r> {
    /// The parts, read from the caller's message when they are still unread (string content
    /// becomes a text part).
    fn take_parts(&mut self, doc: &Doc<'r>, w: &impl PartWriter) -> Vec<String> {
        let content = match self.content.take() {
            Some(content) => content,
            None => {
                let fields = doc.fields(self.message).unwrap_or_default();
                Content::Caller(get(&fields, w.key()))
            }
        };
        let text = |s: &str| {
            if s.is_empty() {
                Vec::new()
            } else {
                vec![w.text(s)]
            }
        };
        match content {
            Content::Caller(None) => Vec::new(),
            Content::Caller(Some(v)) => match kind(v) {
                Kind::Array => doc
                    .items(v)
                    .unwrap_or_default()
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
                Kind::String => text(&crate::raw::decode(v)),
                _ => Vec::new(),
            },
            Content::Text(s) => text(&s),
            Content::Parts(parts) => parts,
        }
    }

    /// Appends the parts of `next` (a message of the same role) to this one's.
    pub(crate) fn absorb(&mut self, mut next: Piece<'r>, doc: &Doc<'r>, w: &impl PartWriter) {
        let mut parts = self.take_parts(doc, w);
        parts.extend(next.take_parts(doc, w));
        self.content = Some(Content::Parts(parts));
    }

    pub(crate) fn finish(self, doc: &Doc<'r>, w: &impl PartWriter) -> Out {
        let Some(content) = self.content else {
            return Out::Same(self.index);
        };
        let fields = doc.fields(self.message).unwrap_or_default();
        let content = match content {
            Content::Caller(None) => None,
            Content::Caller(Some(v)) => Some(v.to_owned()),
            Content::Text(s) => Some(json_string(&s)),
            Content::Parts(parts) => Some(array(&parts)),
        };
        Out::New(object_with(&fields, w.key(), content.as_deref()).into())
    }
}

//! The neutral model every step runs on: *logical* messages (a role; content split into priced
//! units; tool calls with their ids; a tool result tied to its call by id), borrowed from the
//! caller's JSON text. A format adapter ([`crate::format`]) splits the caller's messages into
//! logical ones and records where each came from, so that the plan can be mapped back onto the
//! caller's messages, parts and blocks.

use crate::pricing::MediaPrice;
use crate::raw::Raw;
use std::borrow::Cow;

/// Appended to an assistant message whose tool calls were removed (the one repair note).
pub const INCOMPLETE_TOOL_CALLS_NOTE: &str =
    "[Incomplete tool calls removed from restored session.]";

/// A text part whose text starts with this is an attachment body (DESIGN §4).
pub const ATTACHMENT_PREFIX: &str = "Attached file:";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    Developer,
    User,
    Assistant,
    Tool,
}

impl Role {
    /// The role of an OpenAI-style role name.
    pub fn parse(s: &str) -> Option<Role> {
        Some(match s {
            "system" => Role::System,
            "developer" => Role::Developer,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => return None,
        })
    }

    /// The role of a JSON string token naming it (quotes included): a role written without
    /// escapes, the common case, is known without decoding the token.
    pub fn of_token(token: &str) -> Option<Role> {
        Some(match token {
            "\"system\"" => Role::System,
            "\"developer\"" => Role::Developer,
            "\"user\"" => Role::User,
            "\"assistant\"" => Role::Assistant,
            "\"tool\"" => Role::Tool,
            _ if token.contains('\\') => return Role::parse(&crate::raw::decode(token)),
            _ => return None,
        })
    }
}

/// How a logical message's content was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentShape {
    Absent,
    Null,
    Text,
    Parts,
}

/// What a unit of content is, for the shedding order.
#[derive(Debug, Clone, PartialEq)]
pub enum UnitKind {
    Text,
    Attachment,
    /// Boxed: most units are text, and a unit is made for every caller's message.
    Media(Box<MediaPrice>),
    Other,
}

/// Where a text unit's characters are.
#[derive(Debug, Clone, PartialEq)]
pub enum TextSource<'a> {
    /// A JSON string token of the caller's (quotes included).
    Raw(&'a str),
    /// An attachment made of a title and a body (a document block): its text is
    /// `Attached file: {title}\n{body}` (boxed: most units are not documents).
    Document(Box<Document<'a>>),
}

/// The title and body of a document block.
#[derive(Debug, Clone, PartialEq)]
pub struct Document<'a> {
    pub title: Cow<'a, str>,
    /// A JSON string token, or any raw JSON value (priced as written).
    pub body: Raw<'a>,
}

impl TextSource<'static> {
    /// Not a text unit: no characters (an empty string token, so that the type stays two
    /// words, its variants told apart by the pointer alone).
    pub const NONE: TextSource<'static> = TextSource::Raw("\"\"");
}

impl TextSource<'_> {
    /// The text itself (built only when a step needs the characters).
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            TextSource::Raw(token) => crate::raw::decode(token),
            TextSource::Document(doc) => {
                let body = crate::raw::string(doc.body).unwrap_or(Cow::Borrowed(doc.body));
                Cow::Owned(format!("{ATTACHMENT_PREFIX} {}\n{body}", doc.title))
            }
        }
    }
}

/// What trimming or repair did to a unit. The texts are boxed twice, so that the type is two
/// words: most units are kept or removed, and a unit is made for every caller's message.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Keep,
    /// The text is replaced (shrunk, attachment body dropped, repair note appended); the part
    /// keeps its other fields.
    Text(Box<Box<str>>),
    /// An image part replaced by a text part.
    Placeholder(Box<Box<str>>),
    Removed,
}

/// A priced piece of content: a string content, or one part (block) of an array.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit<'a> {
    /// The caller's part (block) index in the physical message; `None` for string content.
    pub part: Option<u32>,
    /// The index inside that part's own content (an Anthropic `tool_result`'s blocks).
    pub sub: Option<u32>,
    pub kind: UnitKind,
    pub text: TextSource<'a>,
    /// Current cost in budget bytes.
    pub bytes: u64,
    pub change: Change,
}

/// Why a message's tool calls are malformed (DESIGN §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    NotObject,
    IdMissing,
    DuplicateId,
    TypeNotFunction,
    FunctionMissing,
    NameNotString,
    ArgumentsNotString,
    /// Gemini: `args` is given and is not an object.
    ArgumentsNotObject,
}

/// The state of a logical message's tool calls: two words (the lists boxed twice), as most
/// messages have none and every caller's message has a logical one.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCalls<'a> {
    None,
    Empty,
    /// The calls' ids, in order.
    Valid(Box<Box<[Cow<'a, str>]>>),
    /// The first defect and the JSON path of the value at fault.
    Malformed {
        why: Malformed,
        path: Box<Box<str>>,
    },
}

/// One logical message.
#[derive(Debug, Clone, PartialEq)]
pub struct Message<'a> {
    /// The caller's message index (`None` for a pinned system taken from outside the list).
    pub physical: Option<u32>,
    /// Format-specific: where in the physical message this logical one came from.
    pub origin: Origin,
    /// `None` for a role the library does not know (as written: [`Session::role_raw`]).
    pub role: Option<Role>,
    pub shape: ContentShape,
    /// `units[start..end]` of the session.
    pub units: (u32, u32),
    /// Compact JSON bytes of every field but the content (tool calls included).
    pub meta_bytes: u64,
    /// `meta_bytes` once the tool calls are removed.
    pub meta_without_calls: u64,
    pub tool_calls: ToolCalls<'a>,
    /// The id a tool reply answers (boxed: most messages are not replies, and a message is made
    /// for every caller's message).
    pub tool_call_id: Option<Box<Cow<'a, str>>>,
    pub has_refusal: bool,
    /// Repair appended the note on removed tool calls (a new text part, or the whole content
    /// when there was none): [`Message::note`].
    pub has_note: bool,
    pub remove_tool_calls: bool,
    /// A server compaction (a Responses `compaction` item, a message holding an Anthropic
    /// `compaction` block): it stands for everything before it, which the provider ignores; its
    /// group is kept while anything after it is ([`crate::stable`]).
    pub compaction: bool,
}

/// Where a logical message came from in its physical message (the caller's message it was
/// split from). A format whose messages hold several logical ones (a message's tool calls among
/// its parts, each tool reply a part of its own) splits them into `Parts` and `Reply`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The whole physical message.
    Whole,
    /// The pinned system prompt given outside the messages (request key `system`).
    System,
    /// The parts of a physical message other than its tool replies.
    Parts,
    /// One tool reply, part `part` of its physical message.
    Reply { part: u32 },
    /// A whole item of a list that mixes messages with other items: what it is to its step.
    Item(ItemKind),
}

/// What an item that is not a message is to the step it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// Travels with the item(s) after it in its step; never kept without them (a reasoning
    /// item).
    Reasoning,
    /// A call of family `family`; its id is in `tool_calls`.
    Call { family: u8 },
    /// The output of a call of family `family`; the call's id is in `tool_call_id`.
    Output { family: u8 },
    /// A reference to an item kept elsewhere (it may be the call of an output of its step).
    Reference,
    /// Kept as written, priced as JSON, never split from its step.
    Opaque,
    /// A server compaction (a Responses `compaction` item): it stands for everything before it,
    /// a group of its own, kept while anything after it is ([`crate::stable`]).
    Compaction,
}

impl Message<'_> {
    /// The note repair appended ([`INCOMPLETE_TOOL_CALLS_NOTE`], the only one).
    pub fn note(&self) -> Option<&'static str> {
        self.has_note.then_some(INCOMPLETE_TOOL_CALLS_NOTE)
    }

    pub fn unit_range(&self) -> std::ops::Range<usize> {
        self.units.0 as usize..self.units.1 as usize
    }
}

/// A request split into logical messages.
#[derive(Debug, Default)]
pub struct Session<'a> {
    pub messages: Vec<Message<'a>>,
    pub units: Vec<Unit<'a>>,
    /// The caller's messages, as written.
    pub inputs: Vec<Raw<'a>>,
    /// Costs are counted in tokens (DESIGN §2): a counted message's meta cost includes its
    /// repair note, which [`Session::cost`] then does not add as bytes.
    pub notes_in_meta: bool,
}

impl<'a> Session<'a> {
    /// A session with room for `messages` caller's messages (a unit each, as most have).
    pub fn with_capacity(messages: usize) -> Session<'a> {
        Session {
            messages: Vec::with_capacity(messages),
            units: Vec::with_capacity(messages),
            inputs: Vec::with_capacity(messages),
            notes_in_meta: false,
        }
    }

    /// The role of logical message `m` as written (its JSON token), for the report of an
    /// unknown role: read again from the caller's message (no message holds it: a message of
    /// the library's roles never needs it, and every message would pay for it).
    pub fn role_raw(&self, m: usize) -> Raw<'a> {
        self.messages[m]
            .physical
            .and_then(|p| self.inputs.get(p as usize))
            .and_then(|&input| {
                let doc = crate::raw::Doc::from_validated(input, Vec::new());
                crate::raw::get(&doc.fields(doc.root())?, "role")
            })
            .unwrap_or("null")
    }

    pub fn units_of(&self, m: usize) -> &[Unit<'a>] {
        &self.units[self.messages[m].unit_range()]
    }

    /// A message's cost (DESIGN §2): its other fields plus its units, without overflow.
    pub fn cost(&self, m: usize) -> u128 {
        let msg = &self.messages[m];
        let meta = if msg.remove_tool_calls {
            msg.meta_without_calls
        } else {
            msg.meta_bytes
        };
        let units: u128 = self.units_of(m).iter().map(|u| u128::from(u.bytes)).sum();
        let note = match msg.note() {
            Some(n) if !self.notes_in_meta => n.len() as u128,
            _ => 0,
        };
        u128::from(meta) + units + note
    }

    /// True when the message says something: non-empty text, any part, or a refusal.
    pub fn has_content(&self, m: usize) -> bool {
        let msg = &self.messages[m];
        msg.has_refusal
            || msg.has_note
            || self
                .units_of(m)
                .iter()
                .any(|u| u.change != Change::Removed && (u.part.is_some() || u.bytes > 0))
    }
}

#[cfg(test)]
mod tests {
    use super::{Message, Role, Unit};

    #[test]
    fn a_message_and_its_unit_stay_small() {
        // One of each is made for every caller's message: 300,000 one-letter messages (10 MB)
        // hold 300,000 of each, which is most of the memory rule's 8× (docs/robustness.md).
        assert!(std::mem::size_of::<Message<'_>>() <= 72);
        assert!(std::mem::size_of::<Unit<'_>>() <= 72);
    }

    #[test]
    fn a_role_token_is_read_as_its_decoded_name() {
        for name in [
            "system",
            "developer",
            "user",
            "assistant",
            "tool",
            "critic",
            "",
            "User",
        ] {
            let plain = serde_json::to_string(name).unwrap();
            assert_eq!(Role::of_token(&plain), Role::parse(name), "{plain}");
            // Every character escaped, and the first alone.
            let escaped: String = name
                .chars()
                .map(|c| format!("\\u{:04x}", c as u32))
                .collect();
            assert_eq!(Role::of_token(&format!("\"{escaped}\"")), Role::parse(name));
            if let Some(first) = name.chars().next() {
                let token = format!("\"\\u{:04x}{}\"", first as u32, &name[1..]);
                assert_eq!(Role::of_token(&token), Role::parse(name), "{token}");
            }
        }
        // Not a role once decoded, though it looks like one.
        assert_eq!(Role::of_token("\"user\\n\""), None);
    }
}

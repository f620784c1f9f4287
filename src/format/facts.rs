//! What a front end needs to know of each format, as data: the bindings read these facts
//! (the Python binding from [`super::Traits`], the others through `ankita_formats`) instead of
//! holding a branch on a format's name.

use super::{Format, Traits, FORMATS};
use serde_json::{json, Value};

/// What a *plain* message looks like in a format: a message the trim of a long history may
/// leave out of its request ([`crate::tail`]): a role, a non-empty text, and nothing else but
/// the one extra key the format allows.
#[derive(Debug)]
pub struct Plain {
    /// The user's role.
    pub user: &'static str,
    /// The model's role (`assistant`; `model` in Gemini).
    pub model: &'static str,
    /// Other roles a plain message may have (`system`, `developer`).
    pub other_roles: &'static [&'static str],
    /// The key of the text.
    pub text_key: &'static str,
    /// The text is a non-empty list of parts that are each `{"text": <non-empty string>}`
    /// (Gemini's `parts`), not a non-empty string.
    pub text_parts: bool,
    /// A third key a plain message may have: its name, and the one value it may hold (`None`:
    /// any non-empty string), like OpenAI's `name` and Responses' `"type": "message"`.
    pub extra: Option<(&'static str, Option<&'static str>)>,
}

impl Plain {
    fn describe(&self) -> Value {
        json!({
            "user": self.user,
            "model": self.model,
            "other_roles": self.other_roles,
            "text_key": self.text_key,
            "text_parts": self.text_parts,
            "extra_key": self.extra.map(|(key, _)| key),
            "extra_value": self.extra.and_then(|(_, value)| value),
        })
    }
}

/// What of an older message a front end may replace when it sends the message for the tail
/// of a trim with a limit ([`crate::tail`]): the message goes as its *stand-in*, the same JSON
/// with long free text replaced by [`StandIn::REPLACEMENT`]. The trim reads of such text only
/// that it is a non-empty string (a message's content, a part's text, a call's arguments, a
/// reply's output) or the JSON type of the value holding it (a call's input object): what it
/// costs is all that changes, and the answer of a tail never keeps a message before it but a
/// pinned system message 0, which goes as it is.
///
/// The rule, for a message other than message 0: a string that is the value of an object's
/// member named in `text_keys`, at any depth, and any string at any depth inside the value of
/// a member named in `data_keys` (array items and members' values; keys stay), may be replaced
/// when it is longer than [`StandIn::LONGER_THAN`] characters (a binding's own characters:
/// UTF-16 code units, code points; the limit only saves work) and is well-formed Unicode (a
/// lone surrogate makes the whole request an error, which the stand-in would hide). Ids,
/// roles, types, names, URLs, media and file data are never listed: the trim reads them.
#[derive(Debug)]
pub struct StandIn {
    /// Keys whose string values are free text.
    pub text_keys: &'static [&'static str],
    /// Keys whose whole value is the caller's data, read for its JSON type only.
    pub data_keys: &'static [&'static str],
}

impl StandIn {
    /// Strings this long or shorter are sent as they are.
    pub const LONGER_THAN: usize = 64;
    /// What a replaced string becomes.
    pub const REPLACEMENT: &'static str = "(stand-in)";

    fn describe(&self) -> Value {
        json!({
            "longer_than": Self::LONGER_THAN,
            "replacement": Self::REPLACEMENT,
            "text_keys": self.text_keys,
            "data_keys": self.data_keys,
        })
    }
}

/// What else than plain messages a front end may leave out of the tail of a trim with a
/// limit ([`crate::tail`], `"gaps": ["turns", ...]`): runs of *whole turns*. Such a run starts
/// with a message of the user's — a plain one, or one of `user_parts` — and ends right before
/// a given message of the user's (plain or of `user_parts`, and not `from`); it holds plain
/// messages, messages of `user_parts`, and whole tool exchanges: one message of `call` (or,
/// where a `call` message is one call itself, a run of them) whose calls are answered one to
/// one, in order, by the messages of `reply` right after it (each answering the calls of its
/// reply parts, or, where a `reply` message is one reply itself, one call). In an exchange the
/// calls' ids are distinct, each reply's id is its call's, and a reply's name, where it has one,
/// is its call's. Nothing else: such messages are split as written, need no repair, warn of
/// nothing and end every exchange before the next message of the user's, which the core checks
/// is given after the run (see [`crate::tail`]). Every string in them, keys and data included,
/// is well-formed Unicode, and every value is JSON (an object with string keys, a list, a
/// string, a finite number, a boolean, null): a message that would make the whole history's
/// trim an error is never left out.
#[derive(Debug)]
pub struct Turns {
    /// A message of the user's holding text parts only; `None` where plain messages have
    /// them (Gemini).
    pub user_parts: Option<&'static [Field]>,
    /// A message of the model's that calls tools: its calls are the `call` parts of its one
    /// [`Val::Parts`], or the message is one call itself when its fields hold a [`Val::Id`].
    pub call: &'static [Field],
    /// A message answering calls: its replies are the `reply` parts of its one [`Val::Parts`],
    /// or the message is one reply itself when its fields hold a [`Val::Id`].
    pub reply: &'static [Field],
}

/// One member of an object of [`Turns`]: its key, its value, and whether it may be absent.
/// An object has the members its fields list and no other.
#[derive(Debug)]
pub struct Field {
    pub key: &'static str,
    pub value: Val,
    pub optional: bool,
}

/// What a [`Field`]'s value is.
#[derive(Debug)]
pub enum Val {
    /// This string.
    Is(&'static str),
    /// A non-empty string.
    Text,
    /// A string, empty or not.
    Str,
    /// A string, or null.
    StrOrNull,
    /// A call's id (a non-empty string, distinct among its exchange's calls), or the id of the
    /// call a reply answers.
    Id,
    /// A call's tool name (a non-empty string), or a reply's: its call's.
    Name,
    /// A JSON object, whatever it holds.
    Object,
    /// Any JSON value.
    Json,
    /// An object of these fields.
    Fields(&'static [Field]),
    /// A non-empty list of objects, each of one of these parts' fields (the first that fits).
    Parts(&'static [Part]),
}

/// A part of a [`Val::Parts`] list: what it is, and its fields.
#[derive(Debug)]
pub struct Part {
    pub kind: PartKind,
    pub fields: &'static [Field],
}

/// What a part of a [`Val::Parts`] list is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind {
    Text,
    Call,
    Reply,
}

/// A text part: `{"type": "text", "text": <non-empty string>}`.
pub const TEXT_PART: Part = Part {
    kind: PartKind::Text,
    fields: &[field("type", Val::Is("text")), field("text", Val::Text)],
};

/// A member that must be there.
pub const fn field(key: &'static str, value: Val) -> Field {
    Field {
        key,
        value,
        optional: false,
    }
}

/// A member that may be absent.
pub const fn optional(key: &'static str, value: Val) -> Field {
    Field {
        key,
        value,
        optional: true,
    }
}

impl Turns {
    fn describe(&self) -> Value {
        json!({
            "user_parts": self.user_parts.map(describe_fields),
            "call": describe_fields(self.call),
            "reply": describe_fields(self.reply),
        })
    }
}

/// Fields as JSON: `[{"key", "value", "optional"}, ...]`; a value is `"text"`, `"string"`,
/// `"string_or_null"`, `"id"`, `"name"`, `"object"`, `"json"`, `{"is": <string>}`,
/// `{"fields": [...]}` or `{"parts": [{"kind": "text" | "call" | "reply", "fields": [...]}]}`.
fn describe_fields(fields: &[Field]) -> Value {
    let value = |v: &Val| match v {
        Val::Is(s) => json!({ "is": s }),
        Val::Text => json!("text"),
        Val::Str => json!("string"),
        Val::StrOrNull => json!("string_or_null"),
        Val::Id => json!("id"),
        Val::Name => json!("name"),
        Val::Object => json!("object"),
        Val::Json => json!("json"),
        Val::Fields(f) => json!({ "fields": describe_fields(f) }),
        Val::Parts(parts) => json!({
            "parts": parts
                .iter()
                .map(|p| json!({
                    "kind": match p.kind {
                        PartKind::Text => "text",
                        PartKind::Call => "call",
                        PartKind::Reply => "reply",
                    },
                    "fields": describe_fields(p.fields),
                }))
                .collect::<Vec<_>>()
        }),
    };
    fields
        .iter()
        .map(|f| json!({"key": f.key, "value": value(&f.value), "optional": f.optional}))
        .collect()
}

impl Traits {
    /// The facts of this format a front end reads, as JSON (see [`describe_formats`]).
    pub fn describe(&self) -> Value {
        json!({
            "name": self.name,
            "takes_system": self.outside_system.is_some(),
            "merges_turns": self.merges_turns,
            "user_turn_first": self.user_turn_first,
            "rebuilds_messages": self.rebuilds_messages,
            "content_key": self.content_key,
            "plain": self.plain.describe(),
            "stand_in": self.stand_in.describe(),
            "turns": self.turns.describe(),
        })
    }
}

impl Format {
    /// This format's facts.
    pub fn traits(self) -> &'static Traits {
        self.adapter().traits()
    }
}

/// Every format's facts, and the default format's name: `{"default": "openai", "formats":
/// [{"name", "takes_system", "merges_turns", "user_turn_first", "rebuilds_messages",
/// "content_key", "plain": {"user", "model", "other_roles", "text_key", "text_parts",
/// "extra_key", "extra_value"}, "stand_in": {"longer_than", "replacement", "text_keys",
/// "data_keys"}, "turns": {"user_parts", "call", "reply"}}, ...]}` (`ankita_formats` adds the
/// tail's driver, `crate::tail::driver`; `stand_in`: [`StandIn`]; `turns`: [`Turns`]).
pub fn describe_formats() -> Value {
    json!({
        "default": Format::default().name(),
        "formats": FORMATS.iter().map(|f| f.traits().describe()).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Pricing;
    use crate::model::{Role, UnitKind};
    use std::collections::HashMap;

    /// A plain message as the facts describe it: `role` and a text.
    fn plain_message(plain: &Plain, role: &str) -> Value {
        let text = if plain.text_parts {
            json!([{"text": "hello there"}])
        } else {
            json!("hello there")
        };
        let mut message = json!({"role": role});
        message[plain.text_key] = text;
        if let Some((key, value)) = plain.extra {
            message[key] = json!(value.unwrap_or("someone"));
        }
        message
    }

    /// Each format's plain messages are what the core takes for plain ones: one logical
    /// message of their role, holding text only, no call, no reply, no note.
    #[test]
    fn plain_messages_split_as_plain() {
        for format in FORMATS.iter().map(|f| Format::from_name(f.name()).unwrap()) {
            let plain = &format.traits().plain;
            let roles = [(plain.user, Role::User), (plain.model, Role::Assistant)];
            let others = plain.other_roles.iter().map(|r| (*r, Role::System));
            for (role, want) in roles.into_iter().chain(others) {
                let messages = json!([plain_message(plain, role)]).to_string();
                let doc = crate::raw::Doc::parse(&messages).unwrap();
                let (images, files) = (HashMap::new(), HashMap::new());
                let pricing = Pricing {
                    profile: format.default_profile(),
                    bytes_per_token: 4,
                    image_sizes: &images,
                    file_sizes: &files,
                };
                let input = crate::format::Input {
                    doc: &doc,
                    messages: &messages,
                    start: crate::format::split::Start::Whole(None),
                    pricing: &pricing,
                };
                let session = format.adapter().split(&input).unwrap();
                assert_eq!(session.messages.len(), 1, "{} {role}", format.name());
                let m = &session.messages[0];
                let role_ok = match want {
                    Role::System => matches!(m.role, Some(Role::System | Role::Developer)),
                    _ => m.role == Some(want),
                };
                assert!(role_ok, "{} {role}: {:?}", format.name(), m.role);
                assert!(m.tool_call_id.is_none() && !m.has_note && !m.has_refusal);
                assert!(session.units[m.unit_range()]
                    .iter()
                    .all(|u| matches!(u.kind, UnitKind::Text)));
            }
        }
    }

    #[test]
    fn the_description_names_every_format_and_the_default() {
        let d = describe_formats();
        assert_eq!(d["default"], Format::default().name());
        let names: Vec<&str> = d["formats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, FORMATS.iter().map(|f| f.name()).collect::<Vec<_>>());
        for f in d["formats"].as_array().unwrap() {
            let stand_in = f["stand_in"].as_object().unwrap();
            assert_eq!(stand_in["longer_than"], StandIn::LONGER_THAN);
            assert_eq!(stand_in["replacement"], StandIn::REPLACEMENT);
            assert!(!stand_in["text_keys"].as_array().unwrap().is_empty());
        }
    }
}

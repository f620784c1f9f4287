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
/// "extra_key", "extra_value"}}, ...]}` (`ankita_formats`).
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
    }
}

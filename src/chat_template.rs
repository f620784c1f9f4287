//! A model's chat template (`chat_template` of the `tokenizer_config.json` beside its
//! `tokenizer.json`), rendered with `minijinja` to learn what it adds around messages: a
//! message's framing is what rendering it adds, in tokens, beyond its content's tokens.
//!
//! Each role's framing is measured once, when the tokenizer is loaded, by rendering short
//! canonical chats and counting their difference: the assistant's as `[user, assistant]` less
//! `[user]`, the user's as `[user, assistant, user]` less `[user, assistant]`, the system's as
//! `[system, user]` less `[user]`, a tool result's as `[user, assistant, tool]` less
//! `[user, assistant]` (a role whose chat the template refuses, as Gemma's refuses tool
//! messages, keeps OpenAI's framing); the chat's own tokens (a begin-of-text token, a
//! generation prompt the template always adds) are `[user]` less the user's framing and
//! content. Token merges across a content's edges make these exact to a token or two. A
//! template that refuses `[assistant, user]` wants a chat to open on the user's turn
//! ([`Framing::opens_on_user`]).
//!
//! Rendering a template ([`measure`]) is part of the `tokenizer-files` feature.

#[cfg(feature = "tokenizer-files")]
use {
    minijinja::value::Serde,
    minijinja::{Environment, Error as JinjaError, ErrorKind, Value},
    serde_json::{json, Map},
};

/// Tokens a chat template adds: per role and per chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Framing {
    /// Per message of each role (system, user, assistant, tool): `None` where the template
    /// refuses the role in a short chat.
    pub roles: [Option<u64>; 4],
    /// Per chat: what `[user]` renders beyond the user's framing and content.
    pub chat: u64,
    /// Whether the template refuses a chat that opens on the assistant's turn (`[assistant,
    /// user]`; Gemma's wants the roles to alternate from the user's): a trim then starts the
    /// answer on the user's turn in every format, as the Anthropic and Gemini formats always do.
    pub opens_on_user: bool,
}

/// The index of `role` in [`Framing::roles`]: system (and developer), user, assistant, tool.
pub fn role_index(role: &str) -> Option<usize> {
    Some(match role {
        "system" | "developer" => 0,
        "user" => 1,
        "assistant" => 2,
        "tool" => 3,
        _ => return None,
    })
}

#[cfg(feature = "tokenizer-files")]
const CONTENT: &str = "Hello there";

/// Measures `template`'s framing with `count` (the tokenizer's count of rendered text, special
/// tokens included). `config` is the `tokenizer_config.json` object (for `bos_token` and
/// `eos_token`). Errors say why the template does not render.
#[cfg(feature = "tokenizer-files")]
pub fn measure(
    template: &str,
    config: &Map<String, serde_json::Value>,
    count: impl Fn(&str) -> usize,
) -> Result<Framing, String> {
    let mut env = Environment::new();
    env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
    env.add_function(
        "raise_exception",
        |message: String| -> Result<Value, JinjaError> {
            Err(JinjaError::new(ErrorKind::InvalidOperation, message))
        },
    );
    env.add_template("chat", template)
        .map_err(|e| format!("its chat_template does not parse: {e}"))?;
    let template = env.get_template("chat").map_err(|e| e.to_string())?;
    let special = |key: &str| -> String {
        match config.get(key) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Object(o)) => o
                .get("content")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            _ => String::new(),
        }
    };
    let (bos, eos) = (special("bos_token"), special("eos_token"));
    let render = |roles: &[&str]| -> Result<u64, String> {
        let messages: Vec<serde_json::Value> = roles
            .iter()
            .map(|role| match *role {
                "tool" => json!({"role": "tool", "content": CONTENT, "tool_call_id": "call_1"}),
                _ => json!({"role": role, "content": CONTENT}),
            })
            .collect();
        let context = Value::from(Serde(json!({
            "messages": messages,
            "bos_token": bos,
            "eos_token": eos,
            "add_generation_prompt": false,
        })));
        template
            .render(context)
            .map(|text| count(&text) as u64)
            .map_err(|e| format!("its chat_template does not render: {e}"))
    };
    let content = count(CONTENT) as u64;
    let user_alone = render(&["user"])?;
    let pair = render(&["user", "assistant"])?;
    let assistant = pair.saturating_sub(user_alone + content);
    let user = render(&["user", "assistant", "user"])?.saturating_sub(pair + content);
    let system = render(&["system", "user"])
        .ok()
        .map(|t| t.saturating_sub(user_alone + content));
    let tool = render(&["user", "assistant", "tool"])
        .ok()
        .map(|t| t.saturating_sub(pair + content));
    Ok(Framing {
        roles: [system, Some(user), Some(assistant), tool],
        chat: user_alone.saturating_sub(user + content),
        opens_on_user: render(&["assistant", "user"]).is_err(),
    })
}

#[cfg(all(test, feature = "tokenizer-files"))]
mod tests {
    use super::*;

    /// Counts words and markers: `<|x|>` is one token, every other run of letters one.
    fn words(text: &str) -> usize {
        text.split(|c: char| c.is_whitespace() || c == '>')
            .filter(|w| !w.is_empty())
            .count()
    }

    #[test]
    fn a_chatml_template_frames_each_message() {
        let template = "{{ bos_token }}{% for m in messages %}<|im_start|> {{ m.role }} \
                        {{ m.content | trim }} <|im_end|> {% endfor %}";
        let config = json!({"bos_token": "<s>"});
        let f = measure(template, config.as_object().unwrap(), words).unwrap();
        // "<|im_start|>", role, "<|im_end|>" per message; "<s>" per chat.
        assert_eq!(f.roles, [Some(3), Some(3), Some(3), Some(3)]);
        assert_eq!(f.chat, 1);
        assert!(!f.opens_on_user, "ChatML takes any first role");
    }

    /// The rule of Gemma's template (written here): after an optional system message, the
    /// roles alternate from the user's.
    #[test]
    fn a_template_that_alternates_from_the_user_opens_on_the_user() {
        let template = "{% if messages[0].role == 'system' %}{% set rest = messages[1:] %}\
                        {% else %}{% set rest = messages %}{% endif %}\
                        {% for m in rest %}{% if (m.role == 'user') != (loop.index0 % 2 == 0) %}\
                        {{ raise_exception('roles must alternate') }}{% endif %}\
                        <turn> {{ m.role }} {{ m.content }} {% endfor %}";
        let f = measure(template, &Map::new(), words).unwrap();
        assert!(f.opens_on_user);
        assert_eq!(f.roles[1], Some(2));
        // It refuses a tool message after the assistant's turn too (not the user's).
        assert_eq!(f.roles[3], None);
    }

    #[test]
    fn a_refused_role_keeps_none_and_python_methods_work() {
        let template = "{% for m in messages %}{% if m.role == 'tool' %}\
                        {{ raise_exception('no tools') }}{% endif %}\
                        [{{ m.role.upper() }}] {{ m.content.strip() }} {% endfor %}";
        let f = measure(template, &Map::new(), words).unwrap();
        assert_eq!(f.roles[3], None);
        assert_eq!(f.roles[1], Some(1));
    }

    #[test]
    fn a_broken_template_says_why() {
        let e = measure("{% for %}", &Map::new(), words).unwrap_err();
        assert!(e.contains("does not parse"), "{e}");
        let e = measure("{{ raise_exception('nope') }}", &Map::new(), words).unwrap_err();
        assert!(e.contains("does not render") && e.contains("nope"), "{e}");
    }
}

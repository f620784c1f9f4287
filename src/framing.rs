//! A message's framing in tokens when a tokenizer file's chat template says it
//! ([`crate::chat_template`]): how much it differs from OpenAI's (3 tokens and the role).

use crate::chat_template;
use crate::model::Role;
use crate::tokens::{Measure, Tokenizer};

/// What a file tokenizer's chat template adds to a message of `role` beyond OpenAI's framing
/// (3 tokens and the role's own tokens, which a message's cost already holds): 0 without a
/// template, or for a role the template refuses in a short chat.
pub fn framing_adjust(measure: &Measure, role: Option<Role>) -> i64 {
    let (Tokenizer::File(file), Some(role)) = (measure.tokenizer, role) else {
        return 0;
    };
    let name = match role {
        Role::System | Role::Developer => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let Some(Some(framing)) = file
        .framing
        .and_then(|f| chat_template::role_index(name).map(|i| f.roles[i]))
    else {
        return 0;
    };
    framing as i64 - 3 - measure.text(name) as i64
}

/// The tokens a file tokenizer's chat template adds once per chat (a begin-of-text token, a
/// generation prompt it always writes); 0 otherwise.
pub fn chat_tokens(measure: &Measure) -> u64 {
    match measure.tokenizer {
        Tokenizer::File(file) => file.framing.map_or(0, |f| f.chat),
        _ => 0,
    }
}

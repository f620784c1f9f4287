//! Option keys spliced into a request's JSON text, as text. Nothing the caller wrote is read
//! into values and written again, so a number as written (`1.0e5`, a 30-digit integer, `-0`,
//! `1E400`), an escape or an unknown field reaches the core unchanged: the command line's
//! `ankita trim FILE --context-tokens N` and a batch with defaults ([`crate::batch`]) answer
//! byte for byte what `ankita_trim_n` answers for the same text with the same keys.
//!
//! Only the root is looked at here: where its fields start and end, and whether it is an object
//! or a bare messages array. A bare array becomes `{"messages":ARRAY,…}`; a key is appended to
//! the root object as `"key":value`. An object read by the core keeps a key given twice in its
//! first place with its last value (`ankita::raw::Fields`), so an appended key replaces the
//! request's own; a request's key that must go (the other half of `image_profile`/`model`, or a
//! trim answer's `ok` and `report` given to `count`) is appended as `null`, which the contract
//! reads as "not given". Appending leaves every byte before the root's closing brace where the
//! caller wrote it, so an error's line and column are the caller's own; when the core finds an
//! object's text invalid, it is answered for the caller's text as read (the splice undone, see
//! [`answer`]). A bare array's request is `{"messages":ARRAY}`: its errors are the core's for
//! that text (on the first line, 12 columns past the caller's).

use std::borrow::Cow;

/// How the spliced keys meet the request's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precedence {
    /// The keys replace the request's (one request: `ankita trim FILE --model M`).
    Replace,
    /// They fill in the keys a request lacks (defaults of a batch: `ankita trim --jsonl`,
    /// [`crate::batch`]); a `null` is lacking, but for `max_messages`, where it means no limit.
    FillIn,
}

/// `image_profile` and `model` are one choice: a request naming either keeps its own, and a
/// command line naming either replaces both.
const PROFILE_KEYS: [&str; 2] = ["image_profile", "model"];

/// A request key and its value as JSON text.
pub type Key = (Cow<'static, str>, String);

/// The root of a JSON text, as far as splicing needs it.
enum Root<'t> {
    /// An object: its fields (key decoded, value text) and where its closing brace is.
    Object {
        fields: Vec<(Cow<'t, str>, &'t str)>,
        close: usize,
    },
    /// An array: a bare messages array.
    Array,
    /// Anything else (or text whose root is not even well formed): the core says what is wrong.
    Other,
}

/// A request text spliced, and how to get the caller's text back.
pub struct Spliced {
    text: String,
    undo: Undo,
}

enum Undo {
    Nothing,
    /// `{"messages":` (this many bytes) + the text + what followed it.
    Wrapped {
        prefix: usize,
        len: usize,
    },
    /// Fields appended at `at`, where the closing brace and what followed it (`tail`) were.
    Appended {
        at: usize,
        tail: String,
    },
}

impl Spliced {
    /// The text the core reads.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether fields were appended to the caller's object (and can be taken back).
    pub fn is_appended(&self) -> bool {
        matches!(self.undo, Undo::Appended { .. })
    }

    /// Whether the caller's bare array was wrapped in a request object.
    pub fn is_wrapped(&self) -> bool {
        matches!(self.undo, Undo::Wrapped { .. })
    }

    /// The caller's own text, as read.
    pub fn into_original(self) -> String {
        let mut text = self.text;
        match self.undo {
            Undo::Nothing => {}
            Undo::Wrapped { prefix, len } => {
                text.truncate(prefix + len);
                text.drain(..prefix);
            }
            Undo::Appended { at, tail } => {
                text.truncate(at);
                text.push_str(&tail);
            }
        }
        text
    }

    /// The caller's own text, as read, keeping the spliced one.
    pub fn original(&self) -> String {
        match &self.undo {
            Undo::Nothing => self.text.clone(),
            Undo::Wrapped { prefix, len } => self.text[*prefix..prefix + len].to_owned(),
            Undo::Appended { at, tail } => format!("{}{tail}", &self.text[..*at]),
        }
    }
}

/// What to splice into a request.
#[derive(Default)]
pub struct Splice<'k> {
    /// The keys to splice in.
    pub keys: &'k [Key],
    pub precedence: Option<Precedence>,
    /// Keys of the request that are not part of the request the core reads (`count` given a
    /// trim answer: `ok`, `report`).
    pub ignore: &'k [&'static str],
    /// Decides a key from the request's own fields when neither the command line nor the
    /// request gives it (`count` given a trim answer: the `format` its report names).
    pub derive: Option<Derive>,
}

/// A key read from one of the request's fields.
pub struct Derive {
    pub key: &'static str,
    pub from: &'static str,
    pub read: fn(&str) -> Option<String>,
}

/// Splices `splice` into `text`, in place.
pub fn splice(mut text: String, splice: &Splice<'_>) -> Spliced {
    let (at, comma, appended) = match root(&text) {
        Root::Other => {
            return Spliced {
                text,
                undo: Undo::Nothing,
            }
        }
        Root::Array => return wrap(text, splice.keys),
        Root::Object { fields, close } => {
            (close, !fields.is_empty(), appended_keys(&fields, splice))
        }
    };
    if appended.is_empty() {
        return Spliced {
            text,
            undo: Undo::Nothing,
        };
    }
    let tail = text[at..].to_string();
    text.truncate(at);
    for (i, (key, value)) in appended.iter().enumerate() {
        push_field(&mut text, key, value, comma || i > 0);
    }
    text.push('}');
    Spliced {
        text,
        undo: Undo::Appended { at, tail },
    }
}

/// A bare messages array as the request `{"messages":ARRAY,…keys}`.
fn wrap(mut text: String, keys: &[Key]) -> Spliced {
    const PREFIX: &str = "{\"messages\":";
    let len = text.len();
    let mut suffix = String::new();
    for (key, value) in keys {
        push_field(&mut suffix, key, value, true);
    }
    suffix.push('}');
    text.reserve(PREFIX.len() + suffix.len());
    text.insert_str(0, PREFIX);
    text.push_str(&suffix);
    Spliced {
        text,
        undo: Undo::Wrapped {
            prefix: PREFIX.len(),
            len,
        },
    }
}

/// Calls `call` with `text` spliced; when the core finds the spliced text invalid JSON, calls
/// it again with the caller's text as read, so the error's line and column are the caller's
/// own. (A wrapped array that is valid JSON alone was one level too deep once wrapped: that
/// error stands.)
pub fn answer<T>(
    text: String,
    splice: &Splice<'_>,
    call: impl for<'t> Fn(&'t str) -> Result<T, crate::Error>,
) -> Result<T, crate::Error> {
    use crate::ErrorCode::InvalidJson;
    let spliced = self::splice(text, splice);
    match call(spliced.text()) {
        Err(e) if e.code == InvalidJson && spliced.is_appended() => call(&spliced.into_original()),
        Err(e) if e.code == InvalidJson && spliced.is_wrapped() => {
            match call(&spliced.into_original()) {
                Err(own) if own.code == InvalidJson => Err(own),
                _ => Err(e),
            }
        }
        answered => answered,
    }
}

/// The fields to append to a request object with `fields`, in order.
fn appended_keys<'k>(
    fields: &[(Cow<'_, str>, &str)],
    splice: &Splice<'k>,
) -> Vec<(&'k str, Cow<'k, str>)> {
    let precedence = splice.precedence.unwrap_or(Precedence::Replace);
    let own = |key: &str| fields.iter().rev().find(|(k, _)| k == key).map(|(_, v)| *v);
    let given = |value: Option<&str>| value.is_some_and(|v| v != "null");
    let is_profile = |key: &str| PROFILE_KEYS.contains(&key);
    let mut appended: Vec<(&'k str, Cow<'k, str>)> = Vec::new();
    let keys_name_profile = splice
        .keys
        .iter()
        .any(|(k, v)| is_profile(k) && v != "null");
    let request_names_profile = PROFILE_KEYS.iter().any(|k| given(own(k)));
    if precedence == Precedence::Replace && keys_name_profile {
        for key in PROFILE_KEYS {
            let named = splice.keys.iter().any(|(k, _)| k == key);
            if !named && given(own(key)) {
                appended.push((key, Cow::Borrowed("null")));
            }
        }
    }
    for (key, value) in splice.keys {
        let keep_own = if is_profile(key) {
            request_names_profile
        } else if key == "max_messages" {
            // A request's `"max_messages": null` is its own choice: no count limit.
            own(key).is_some()
        } else {
            given(own(key))
        };
        if precedence == Precedence::Replace || !keep_own {
            appended.push((key, Cow::Borrowed(value)));
        }
    }
    for key in splice.ignore {
        if given(own(key)) {
            appended.push((key, Cow::Borrowed("null")));
        }
    }
    if let Some(derive) = &splice.derive {
        let named = splice.keys.iter().any(|(k, _)| k == derive.key);
        if !named && !given(own(derive.key)) {
            if let Some(value) = own(derive.from).and_then(derive.read) {
                appended.push((derive.key, Cow::Owned(value)));
            }
        }
    }
    appended
}

fn push_field(out: &mut String, key: &str, value: &str, comma: bool) {
    if comma {
        out.push(',');
    }
    if key.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        // A key from a caller (a binding's keyword) written as a JSON string.
        out.push_str(&serde_json::Value::from(key).to_string());
    } else {
        out.push('"');
        out.push_str(key);
        out.push('"');
    }
    out.push(':');
    out.push_str(value);
}

/// The root of `text`: an object's fields and closing brace, an array, or something else.
/// Values are skipped, not validated: the core validates the spliced text (and a text this
/// reads wrongly is not valid JSON, so its splice is undone).
fn root(text: &str) -> Root<'_> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    match b.get(i) {
        Some(b'[') => return Root::Array,
        Some(b'{') => {}
        _ => return Root::Other,
    }
    i = skip_ws(b, i + 1);
    let mut fields = Vec::new();
    if b.get(i) == Some(&b'}') {
        return Root::Object { fields, close: i };
    }
    loop {
        let key_start = i;
        let Some(key_end) = skip_string(b, i) else {
            return Root::Other;
        };
        let token = &text[key_start..key_end];
        let key = if token[1..].contains('\\') {
            match serde_json::from_str::<String>(token) {
                Ok(key) => Cow::Owned(key),
                Err(_) => return Root::Other,
            }
        } else {
            Cow::Borrowed(&token[1..token.len() - 1])
        };
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return Root::Other;
        }
        let value_start = skip_ws(b, i + 1);
        let Some(value_end) = skip_value(b, value_start) else {
            return Root::Other;
        };
        fields.push((key, &text[value_start..value_end]));
        i = skip_ws(b, value_end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => {
                // Only white space may follow the root.
                if skip_ws(b, i + 1) != b.len() {
                    return Root::Other;
                }
                return Root::Object { fields, close: i };
            }
            _ => return Root::Other,
        }
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The end of the string token starting at `i` (after its closing quote).
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut i = i + 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        if b[i] == b'"' {
            return Some(i + 1);
        }
        i += 2;
    }
}

/// The end of the value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = i;
            loop {
                match b.get(i)? {
                    b'"' => {
                        i = skip_string(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let end = b[i..]
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .map_or(b.len(), |n| i + n);
            (end > i).then_some(end)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spliced(text: &str, keys: &[Key], precedence: Precedence) -> String {
        let s = splice(
            text.to_string(),
            &Splice {
                keys,
                precedence: Some(precedence),
                ..Splice::default()
            },
        );
        let out = s.text().to_string();
        assert_eq!(s.into_original(), text, "the splice undoes");
        out
    }

    fn key(k: &'static str, v: &str) -> Key {
        (Cow::Borrowed(k), v.to_string())
    }

    #[test]
    fn keys_are_appended_and_the_text_kept() {
        let text = "{ \"messages\" : [1.0e5, -0, 123456789012345678901234567890] }\n";
        assert_eq!(spliced(text, &[], Precedence::Replace), text);
        assert_eq!(
            spliced(text, &[key("max_bytes", "100")], Precedence::Replace),
            "{ \"messages\" : [1.0e5, -0, 123456789012345678901234567890] ,\"max_bytes\":100}"
        );
        assert_eq!(
            spliced(
                "[{\"a\":\"}\"}]",
                &[key("format", "\"gemini\"")],
                Precedence::Replace
            ),
            "{\"messages\":[{\"a\":\"}\"}],\"format\":\"gemini\"}"
        );
        assert_eq!(
            spliced("{}", &[key("max_bytes", "1")], Precedence::Replace),
            "{\"max_bytes\":1}"
        );
    }

    #[test]
    fn precedence_and_the_profile_pair() {
        let text = r#"{"messages":[],"max_bytes":5,"image_profile":"openai","max_messages":null}"#;
        let keys = [
            key("max_bytes", "9"),
            key("model", "\"gpt-4o\""),
            key("max_messages", "3"),
            key("memory", "\"m\""),
        ];
        assert_eq!(
            spliced(text, &keys, Precedence::FillIn),
            text.trim_end_matches('}').to_string() + r#","memory":"m"}"#
        );
        assert_eq!(
            spliced(text, &keys, Precedence::Replace),
            text.trim_end_matches('}').to_string()
                + r#","image_profile":null,"max_bytes":9,"model":"gpt-4o","max_messages":3,"memory":"m"}"#
        );
    }

    #[test]
    fn malformed_roots_are_left_to_the_core() {
        for text in [
            "",
            "  7",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "{\"a\":1} x",
            "{\"a\":\"x",
            "{\"a\":[}",
        ] {
            assert_eq!(
                spliced(text, &[key("max_bytes", "1")], Precedence::Replace),
                text,
                "{text:?}"
            );
        }
    }
}

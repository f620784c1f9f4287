//! The one table of a trim request's options (every key but `messages`): each front end's
//! options are generated from it or checked against it (`tests/option_table.rs`: the Python
//! keywords, the Node option types, the command line's flags, the framework adapters'
//! keywords), and `ankita_options` answers it.

use serde_json::{json, Value};

/// One option of a trim request.
#[derive(Debug, Clone, Copy)]
pub struct TrimOption {
    /// The request key.
    pub name: &'static str,
    /// Its JSON type, as the contract writes it (`integer`, `string | string[]`, …).
    pub kind: &'static str,
    /// What it does, in one sentence.
    pub doc: &'static str,
}

const fn option(name: &'static str, kind: &'static str, doc: &'static str) -> TrimOption {
    TrimOption { name, kind, doc }
}

/// Every option of a trim request, in the contract's order.
pub static OPTIONS: &[TrimOption] = &[
    option("max_bytes", "integer", "the history budget in bytes; with context_tokens too, the smaller wins"),
    option("context_tokens", "integer", "the model's context window in tokens; the history budget is derived from it"),
    option("max_output_tokens", "integer", "tokens kept for the model's answer"),
    option("tools", "array", "the tool schemas sent with the request; their cost comes off the budget"),
    option("memory", "string | string[]", "text placed elsewhere in the prompt; its cost comes off the budget"),
    option("overhead_bytes", "integer", "request framing the caller does not list (default 1024)"),
    option("bytes_per_token", "integer", "budget bytes per token (default 4)"),
    option("max_messages", "integer | null", "the most messages returned (default: no count limit with a budget, 40 without one; null: no count limit)"),
    option("image_profile", "string", "the image pricing rule (ankita, openai, anthropic, gemini, …)"),
    option("model", "string", "the target model: its image pricing, tokenizer and context window"),
    option("image_sizes", "object", "pixel sizes of remote images by URL: {url: [width, height]}"),
    option("file_sizes", "object", "pages or seconds of remote files and file ids: {url or id: n}"),
    option("on_image_overflow", "string", "what becomes of an image that must go: placeholder, drop or error"),
    option("format", "string", "the messages' wire format (ankita_formats; default openai)"),
    option("system", "any", "the system prompt given outside the messages, in formats that take one"),
    option("tokenizer", "string | object", "count text in o200k_base, cl100k_base or bytes, or with {\"file\": a tokenizer.json}"),
    option("token_factor", "number", "multiply token counts by this factor"),
    option("overhead_tokens", "integer", "request framing in tokens, when costs are tokens"),
    option("clear_tool_results", "boolean | object", "clear old tool results before dropping whole groups: true or {keep, exclude_tools, placeholder, clear_at_least, clear_tool_inputs}"),
    option("strict_model", "boolean", "a model no family claims is an error rather than a warning"),
    option("fill", "boolean", "the group where selection stopped comes back shrunk into the room left (default true)"),
    option("trim_to", "number | null", "when something must go, remove down to this fraction of the budget and of max_messages (a session's default: 0.75, the cut carried; null: not cache-stable)"),
    option("cut", "integer | null", "the previous result's cut: keep exactly the messages from it on while they fit"),
    option("summary", "object | null", "the caller's summary of its messages up to an index: {text, through}; placed right after the pinned message in their stead"),
    option("cache_breakpoint", "boolean", "put an Anthropic cache_control breakpoint before the newest user message"),
];

/// Whether `name` is an option of a trim request.
pub fn is_option(name: &str) -> bool {
    OPTIONS.iter().any(|o| o.name == name)
}

/// The options' names, comma-separated (for error messages).
pub fn option_names() -> String {
    OPTIONS
        .iter()
        .map(|o| o.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The table as JSON: `{"options": [{"name", "type", "doc"}, ...]}` (`ankita_options`).
pub fn describe_options() -> Value {
    let options: Vec<Value> = OPTIONS
        .iter()
        .map(|o| json!({"name": o.name, "type": o.kind, "doc": o.doc}))
        .collect();
    json!({ "options": options })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::TrimOptions;
    use serde_json::Map;

    /// The parser knows every option of the table (whatever it makes of a value), and answers
    /// a key the table lacks as unknown, listing the table.
    #[test]
    fn the_parser_reads_the_options_of_the_table() {
        for option in OPTIONS {
            for value in [json!("?"), json!(1), json!(true), json!({}), json!([])] {
                let mut request = Map::new();
                request.insert(option.name.to_owned(), value.clone());
                if let Err(e) = TrimOptions::from_map(&request) {
                    assert!(
                        !e.message.contains("unknown request key"),
                        "{} = {value}: {}",
                        option.name,
                        e.message
                    );
                }
            }
        }
        let mut request = Map::new();
        request.insert("max_byte".into(), json!(1));
        let e = TrimOptions::from_map(&request).unwrap_err();
        assert!(e.message.ends_with(&option_names()), "{}", e.message);
        assert!(is_option("cut") && !is_option("messages") && !is_option("max_byte"));
    }
}

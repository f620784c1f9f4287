//! The one table of a trim request's options (every key but `messages`): each option is defined
//! here once, and the front ends' declarations are generated from the table or checked against
//! it. `tests/option_table.rs` writes the Python option TypedDicts, the stub's keywords and the
//! native `trim`'s text_signature, the Node `TrimOptions` and the reference table of
//! docs/options.md from it (and fails when one is stale: `UPDATE_OPTIONS=1` rewrites them), and
//! checks what is written by hand (the typed overloads, the framework adapters); the command
//! line makes its flags and their help from it; `ankita_options` answers it. Adding an option:
//! docs/contributing.md.
//!
//! The parse stays a match in `TrimOptions::from_map`: half the options are read together with
//! others (`tokenizer` with `token_factor` and `overhead_tokens`, `image_profile` with `model`
//! and `format`, the cache keys with one another), so a parse function per option would be
//! half no-ops. A table option the match lacks is an unknown key there, which the test below
//! catches.

use serde_json::{json, Value};

/// One option of a trim request.
#[derive(Debug, Clone, Copy)]
pub struct TrimOption {
    /// The request key.
    pub name: &'static str,
    /// Its JSON type, as the contract writes it (`integer`, `string | string[]`, …).
    pub kind: &'static str,
    /// What it does, for every front end: Markdown, with option names and JSON values in
    /// backticks (each front end writes them its way: ``None`` in Python, `--flag` on the
    /// command line).
    pub doc: &'static str,
    /// Its default.
    pub default: OptionDefault,
    /// Its Python type, None left out, when the JSON type says too little (a `Literal`, a
    /// TypedDict of the package's `_types.py`).
    pub python: Option<&'static str>,
    /// Its TypeScript type, `null` left out, when the JSON type says too little (a type of
    /// index.d.ts).
    pub typescript: Option<&'static str>,
    /// Why the framework adapters (`ankita.langchain`, `ankita.pydantic_ai`) do not offer it,
    /// when they do not.
    pub adapters_leave_out: Option<&'static str>,
    /// Whether it decides the messages' type (`format`, `system`): Python's typed `trim` takes
    /// it as a keyword of its own overloads, not in its `TrimOptions`.
    pub types_the_messages: bool,
    /// Its command line flag.
    pub flag: OptionFlag,
}

/// An option's default, as the front ends show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionDefault {
    /// None: not given.
    Absent,
    /// This JSON value.
    Json(&'static str),
    /// Depends on other options (Python's stub shows `...`).
    Depends,
}

/// How the command line gives an option.
#[derive(Debug, Clone, Copy)]
pub struct OptionFlag {
    /// The long name, when it is not the option's name with dashes.
    pub long: Option<&'static str>,
    /// Another long name.
    pub alias: Option<&'static str>,
    /// The value's name in the help, when the type's is not right (`N`, `X`, `JSON`, …).
    pub value: Option<&'static str>,
    /// Where the value comes from.
    pub read: FlagRead,
}

/// Where a flag's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagRead {
    /// The argument, read by the option's type: a string when it takes one (another form
    /// needs a flag of its own, as `--tokenizer-file` is), else an integer, a number,
    /// `true`/`false` (a switch when the default is false), or JSON.
    Argument,
    /// The text of the file the argument names.
    TextFile,
    /// The JSON of the file the argument names.
    JsonFile,
}

const fn option(name: &'static str, kind: &'static str, doc: &'static str) -> TrimOption {
    TrimOption {
        name,
        kind,
        doc,
        default: OptionDefault::Absent,
        python: None,
        typescript: None,
        adapters_leave_out: None,
        types_the_messages: false,
        flag: OptionFlag {
            long: None,
            alias: None,
            value: None,
            read: FlagRead::Argument,
        },
    }
}

impl TrimOption {
    const fn default(self, json: &'static str) -> Self {
        TrimOption {
            default: OptionDefault::Json(json),
            ..self
        }
    }

    const fn depends(self) -> Self {
        TrimOption {
            default: OptionDefault::Depends,
            ..self
        }
    }

    const fn python(self, ty: &'static str) -> Self {
        TrimOption {
            python: Some(ty),
            ..self
        }
    }

    const fn typescript(self, ty: &'static str) -> Self {
        TrimOption {
            typescript: Some(ty),
            ..self
        }
    }

    const fn not_in_adapters(self, why: &'static str) -> Self {
        TrimOption {
            adapters_leave_out: Some(why),
            ..self
        }
    }

    const fn types_the_messages(self) -> Self {
        TrimOption {
            types_the_messages: true,
            ..self
        }
    }

    const fn flag(self, long: &'static str, alias: Option<&'static str>) -> Self {
        TrimOption {
            flag: OptionFlag {
                long: Some(long),
                alias,
                ..self.flag
            },
            ..self
        }
    }

    const fn value(self, name: &'static str) -> Self {
        TrimOption {
            flag: OptionFlag {
                value: Some(name),
                ..self.flag
            },
            ..self
        }
    }

    const fn read(self, read: FlagRead) -> Self {
        TrimOption {
            flag: OptionFlag { read, ..self.flag },
            ..self
        }
    }

    /// The JSON types it takes, `null` included when it is one.
    pub fn kinds(&self) -> impl Iterator<Item = &'static str> {
        self.kind.split(" | ")
    }

    /// Whether `null` means something other than "not given" (`max_messages`, `trim_to`).
    pub fn nullable(&self) -> bool {
        self.kinds().any(|k| k == "null")
    }

    /// Its Python type, None left out: the table's, or the JSON type's.
    pub fn python_type(&self) -> String {
        self.python.map(str::to_owned).unwrap_or_else(|| {
            self.kinds()
                .filter(|k| *k != "null")
                .map(|k| match k {
                    "integer" => "int",
                    "number" => "float",
                    "string" => "str",
                    "boolean" => "bool",
                    "string[]" => "Sequence[str]",
                    "array" => "Sequence[Any]",
                    "object" => "Mapping[str, Any]",
                    _ => "Any",
                })
                .collect::<Vec<_>>()
                .join(" | ")
        })
    }

    /// Its TypeScript type, `| null` included when `null` is one of its values.
    pub fn typescript_type(&self) -> String {
        let mut ty = self.typescript.map(str::to_owned).unwrap_or_else(|| {
            self.kinds()
                .filter(|k| *k != "null")
                .map(|k| match k {
                    "integer" | "number" => "number",
                    "string" => "string",
                    "boolean" => "boolean",
                    "string[]" => "string[]",
                    "array" => "unknown[]",
                    "object" => "Record<string, unknown>",
                    _ => "unknown",
                })
                .collect::<Vec<_>>()
                .join(" | ")
        });
        if self.nullable() {
            ty.push_str(" | null");
        }
        ty
    }

    /// Its default as Python writes it (`None`, `True`, `"ankita"`, `...`).
    pub fn python_default(&self) -> String {
        match self.default {
            OptionDefault::Absent => "None".into(),
            OptionDefault::Depends => "...".into(),
            OptionDefault::Json("true") => "True".into(),
            OptionDefault::Json("false") => "False".into(),
            // A number, or a string without escapes: the same in Python.
            OptionDefault::Json(text) => text.into(),
        }
    }

    /// Its command line flag's long name: the table's, or the option's name with dashes.
    pub fn flag_long(&self) -> String {
        self.flag
            .long
            .map(str::to_owned)
            .unwrap_or_else(|| self.name.replace('_', "-"))
    }
}

/// Every option of a trim request, in the contract's order.
pub static OPTIONS: &[TrimOption] = &[
    option(
        "max_bytes",
        "integer",
        "The history budget in bytes, given directly; with `context_tokens` too, the smaller wins.",
    ),
    option(
        "context_tokens",
        "integer",
        "The model's context window in tokens: the history budget is derived from it, less \
         `max_output_tokens`, `tools`, `memory` and the request's framing.",
    ),
    option(
        "max_output_tokens",
        "integer",
        "Tokens kept for the model's answer.",
    )
    .default("0"),
    option(
        "tools",
        "array",
        "The tool schemas sent with the request: their cost comes off the budget.",
    )
    .python("Sequence[Mapping[str, Any]]")
    .read(FlagRead::JsonFile),
    option(
        "memory",
        "string | string[]",
        "Text placed elsewhere in the prompt: its cost comes off the budget.",
    )
    .read(FlagRead::TextFile),
    option(
        "overhead_bytes",
        "integer",
        "Request framing the caller does not list, in bytes (default 1024).",
    )
    .default("1024"),
    option(
        "bytes_per_token",
        "integer",
        "Budget bytes per token, when costs are bytes (default 4).",
    )
    .default("4"),
    option(
        "max_messages",
        "integer | null",
        "The most messages returned, tool exchanges kept whole; the pinned message and the \
         anchors are kept even beyond it (default: no limit with a budget or a model's window, \
         40 without one; `null`: no limit).",
    )
    .depends(),
    option(
        "image_profile",
        "string",
        "The image pricing rule: `ankita` (the default), `openai`, `openai-patch`, `anthropic`, \
         `anthropic-highres`, `anthropic-legacy`, `gemini`, `gemini-1.5`, `gemini-3`, \
         `qwen2-vl` or `pixtral`; give this or `model`, not both.",
    )
    .default("\"ankita\"")
    .typescript("ImageProfile")
    .flag("profile", Some("image-profile")),
    option(
        "model",
        "string",
        "The target model (`gpt-4o`, `claude-sonnet-4`, `gemini-2.5-flash`, …): its images are \
         priced as its provider bills them, its text counted in its tokens when its tokenizer \
         is known (exact for Gemini 2.0, 2.5 and 3, counted with Gemma 3's tokenizer; an \
         estimate for Claude and the other Gemini models), and its context window is the budget \
         when none is given. Any name answers (provider prefixes and routes, Bedrock ids, dated \
         suffixes): one no family claims is priced by the default recipe, counted with \
         `o200k_base` × 1.35, and the report warns `unknown_model`.",
    ),
    option(
        "image_sizes",
        "object",
        "Pixel sizes of remote (http/https) images by URL: `{url: [width, height]}`.",
    )
    .python("Mapping[str, Sequence[int]]")
    .typescript("Record<string, [number, number] | { width: number; height: number }>")
    .read(FlagRead::JsonFile),
    option(
        "file_sizes",
        "object",
        "Pages (documents) or seconds (audio) of remote files and file ids: \
         `{url or id: n}`.",
    )
    .python("Mapping[str, float]")
    .typescript("Record<string, number>")
    .read(FlagRead::JsonFile),
    option(
        "on_image_overflow",
        "string",
        "What becomes of an image that must go: `placeholder` (a short text in its stead, the \
         default), `drop` or `error` (the call fails).",
    )
    .default("\"placeholder\"")
    .python("OnImageOverflow")
    .typescript("OnImageOverflow")
    .value("MODE"),
    option(
        "format",
        "string",
        "The messages' wire format: `openai` (Chat Completions, the default), `anthropic` \
         (Messages API), `responses` (Responses API input items), `gemini` (Gemini contents, in \
         either spelling) or `ai-sdk` (the Vercel AI SDK's model messages).",
    )
    .default("\"openai\"")
    .python("MessageFormat")
    .typescript("MessageFormat")
    .not_in_adapters("the adapter chooses the format it sends its messages in")
    .types_the_messages(),
    option(
        "system",
        "any",
        "The system prompt given outside the messages: the `anthropic` format's top-level system \
         (a string or text blocks), the `responses` format's instructions (a string) or the \
         `gemini` format's system instruction (a string, a content or parts); pinned, never \
         trimmed, its cost counted.",
    )
    .typescript("SystemInput")
    .not_in_adapters("the system prompt is one of the framework's messages")
    .types_the_messages()
    .read(FlagRead::TextFile),
    option(
        "tokenizer",
        "string | object",
        "What text is counted in: `o200k_base` (GPT-4o, 4.1, 5.x, o-series), `cl100k_base` \
         (GPT-4, 3.5) or `bytes`; or `{\"file\": PATH}`, a Hugging Face tokenizer.json (or the \
         folder holding it): its exact text counts, framing estimated. Default: the tokenizer \
         of `model` when known, else `o200k_base` (an estimate) with `context_tokens`, bytes \
         with `max_bytes`.",
    )
    .python("Tokenizer | TokenizerFile")
    .typescript("Tokenizer | TokenizerFile")
    .value("NAME"),
    option(
        "token_factor",
        "number",
        "Multiplies token counts (default 1; 1.35 for Claude and 1.25 for the Gemini models \
         counted with `o200k_base`: 1.5, 3.1 and later).",
    ),
    option(
        "observed_usage",
        "array",
        "The provider's counts of earlier requests, `[[counted, input_tokens], ...]`: each \
         answer's report.token_factor.counted and the input tokens the provider reported for \
         it; the factor of a model counted with a margin (Claude, Gemini) is then set from them \
         (`token_factor` wins).",
    )
    .python("Sequence[Sequence[int]]")
    .typescript("[number, number][]"),
    option(
        "overhead_tokens",
        "integer",
        "Request framing the caller does not list, in tokens, when costs are tokens (default \
         256).",
    ),
    option(
        "clear_tool_results",
        "boolean | object",
        "Before dropping whole tool exchanges, replace the results of those older than the \
         newest `keep` (default 3) with a placeholder, oldest first: `true`, or `{keep, \
         exclude_tools, placeholder, clear_at_least, clear_tool_inputs}` (exchanges calling a \
         tool of exclude_tools keep theirs; once clearing starts it clears at least \
         clear_at_least; clear_tool_inputs: the cleared exchanges' call arguments become `{}` \
         too).",
    )
    .python("bool | ClearToolResults")
    .typescript("boolean | ClearToolResults"),
    option(
        "strict_model",
        "boolean",
        "A `model` no family claims is an error rather than a warning.",
    )
    .default("false"),
    option(
        "fill",
        "boolean",
        "The room left goes to the newest first: texts shedding cut get it back, then the group \
         where selection stopped comes back shrunk into it (default `true`; `false`: whole \
         groups only).",
    )
    .default("true"),
    option(
        "trim_to",
        "number | null",
        "Cache-stable trimming: when something must go, remove down to this share (0 < share \
         ≤ 1) of the budget and of `max_messages`, so the calls after it only append; the \
         report's cut says where the kept run starts. A session trims with 0.75 by default and \
         carries each answer's cut to the next trim (`null` opts it out).",
    )
    .value("SHARE"),
    option(
        "cut",
        "integer | null",
        "The previous answer's report.cut: while the messages from that index on fit, keep \
         exactly them (the cut never moves back).",
    ),
    option(
        "summary",
        "object | null",
        "The caller's summary of its messages up to an index, `{\"text\": ..., \"through\": \
         n}`: placed right after the pinned message in their stead; the report's compaction \
         says what to summarise next when the cut moves.",
    )
    .python("Summary")
    .typescript("{ text: string; through: number }")
    .not_in_adapters(
        "the answer is mapped back to the framework's own messages, and a placed summary is \
         none of them",
    )
    .flag("summary-json", None),
    option(
        "cache_breakpoint",
        "boolean",
        "Put the provider's prompt-cache breakpoint on the last block that can carry one before \
         the newest user message: Anthropic's cache_control, or OpenAI's prompt_cache_breakpoint \
         in the chat, Responses and AI SDK formats for GPT-5.6 and later (other models: a \
         warning, none placed); never a fifth breakpoint.",
    )
    .default("false")
    .not_in_adapters("an Anthropic-format option; the adapters send another format"),
];

/// The option named `name`.
pub fn option_named(name: &str) -> Option<&'static TrimOption> {
    OPTIONS.iter().find(|o| o.name == name)
}

/// Whether `name` is an option of a trim request.
pub fn is_option(name: &str) -> bool {
    option_named(name).is_some()
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

    /// An option's default is what the parser takes when it is not given: a request giving the
    /// default answers as one leaving the option out.
    #[test]
    fn the_defaults_are_the_parsers() {
        for option in OPTIONS {
            let OptionDefault::Json(text) = option.default else {
                continue;
            };
            let value: Value = serde_json::from_str(text)
                .unwrap_or_else(|e| panic!("{}'s default {text}: {e}", option.name));
            let mut request = Map::new();
            request.insert(option.name.to_owned(), value);
            let given = TrimOptions::from_map(&request)
                .unwrap_or_else(|e| panic!("{} = {text}: {}", option.name, e.message));
            let absent = TrimOptions::from_map(&Map::new()).unwrap();
            assert_eq!(given, absent, "{}'s default {text}", option.name);
        }
    }

    #[test]
    fn types_and_defaults_derive_from_the_json_type() {
        let named = |n| option_named(n).unwrap();
        assert_eq!(named("max_bytes").python_type(), "int");
        assert_eq!(named("memory").python_type(), "str | Sequence[str]");
        assert_eq!(named("max_messages").typescript_type(), "number | null");
        assert_eq!(named("fill").python_default(), "True");
        assert_eq!(named("image_profile").python_default(), "\"ankita\"");
        assert_eq!(named("max_messages").python_default(), "...");
        assert_eq!(named("max_output_tokens").flag_long(), "max-output-tokens");
        assert_eq!(named("image_profile").flag_long(), "profile");
    }
}

//! Every option of every command, one [`Flag`] each with its own docs, parsed with `lexopt`
//! from `OsString` arguments (`--flag value` and `--flag=value` alike). The help text of a
//! command is generated from its table, so an option cannot exist without its docs.

use crate::Failure;
use lexopt::{Arg, Parser, ValueExt};
use serde_json::Value;
use std::ffi::OsString;
use std::path::PathBuf;

/// One command line option.
pub struct Flag {
    /// The long name, without the dashes.
    pub long: &'static str,
    /// Another long name for the same option.
    pub alias: Option<&'static str>,
    /// A one-letter form.
    pub short: Option<char>,
    /// What the value is called in the help (`N`, `FILE`), or `None` for a switch.
    pub value: Option<&'static str>,
    /// The help text, wrapped when printed.
    pub doc: &'static str,
    /// What the option sets.
    pub sets: Sets,
}

/// What an option sets.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Sets {
    /// A request key holding a non-negative integer.
    Integer(&'static str),
    /// A request key holding a number.
    Number(&'static str),
    /// A request key holding the option's text read as JSON (`true`, `{"keep": 2}`).
    Json(&'static str),
    /// A request key set to `true` by a switch.
    Switch(&'static str),
    /// A request key holding `{"file": the option's text}`.
    FileRef(&'static str),
    /// A request key holding the option's text.
    Text(&'static str),
    /// A request key holding the text of a file.
    FileText(&'static str),
    /// A request key holding the JSON of a file.
    FileJson(&'static str),
    /// A setting of the command itself (not part of the request).
    Setting(Setting),
}

impl Sets {
    /// The request key the option sets, if it sets one.
    pub fn request_key(self) -> Option<&'static str> {
        match self {
            Sets::Integer(key)
            | Sets::Number(key)
            | Sets::Json(key)
            | Sets::Switch(key)
            | Sets::FileRef(key)
            | Sets::Text(key)
            | Sets::FileText(key)
            | Sets::FileJson(key) => Some(key),
            Sets::Setting(_) => None,
        }
    }
}

/// Settings of a command that are not request keys.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Setting {
    Help,
    Summary,
    Jsonl,
    Threads,
    Json,
    Detail,
}

const HELP: Flag = Flag {
    long: "help",
    alias: None,
    short: Some('h'),
    value: None,
    doc: "print this help and exit",
    sets: Sets::Setting(Setting::Help),
};

const FORMAT: Flag = Flag {
    long: "format",
    alias: None,
    short: None,
    value: Some("FORMAT"),
    doc: "the shape of the messages: openai (Chat Completions, the default), anthropic \
          (Messages API), responses (Responses API input items) or gemini (Gemini contents, in \
          either spelling)",
    sets: Sets::Text("format"),
};

const PROFILE: Flag = Flag {
    long: "profile",
    alias: Some("image-profile"),
    short: None,
    value: Some("PROFILE"),
    doc: "the image pricing rule: ankita (default), openai, openai-patch, anthropic, \
          anthropic-highres, anthropic-legacy, gemini, gemini-1.5, gemini-3, qwen2-vl, \
          pixtral",
    sets: Sets::Text("image_profile"),
};

const MODEL: Flag = Flag {
    long: "model",
    alias: None,
    short: None,
    value: Some("MODEL"),
    doc: "the target model (gpt-4o, claude-sonnet-4, gemini-2.5-flash, …): its images are \
          priced as it bills them, and its text counted in its tokens when its tokenizer is \
          known (an estimate for Claude and Gemini); give --profile or --model, not both",
    sets: Sets::Text("model"),
};

const STRICT_MODEL: Flag = Flag {
    long: "strict-model",
    alias: None,
    short: None,
    value: None,
    doc: "make a --model no family claims an error (by default it is priced by the default \
          recipe, counted with o200k_base × 1.35, and the report warns unknown_model)",
    sets: Sets::Switch("strict_model"),
};

const TOKENIZER: Flag = Flag {
    long: "tokenizer",
    alias: None,
    short: None,
    value: Some("NAME"),
    doc: "count text in tokens of o200k_base (GPT-4o, 4.1, 5.x, o-series) or cl100k_base \
          (GPT-4, 3.5), or in bytes; default: the tokenizer of --model when known, else \
          o200k_base (an estimate) with --context-tokens, bytes with --max-bytes",
    sets: Sets::Text("tokenizer"),
};

const TOKENIZER_FILE: Flag = Flag {
    long: "tokenizer-file",
    alias: None,
    short: None,
    value: Some("PATH"),
    doc: "count text with a Hugging Face tokenizer.json (or the folder holding it, with its \
          tokenizer_config.json, whose chat template frames the messages); replaces \
          --tokenizer",
    sets: Sets::FileRef("tokenizer"),
};

const TOKEN_FACTOR: Flag = Flag {
    long: "token-factor",
    alias: None,
    short: None,
    value: Some("X"),
    doc: "multiply token counts by X (default 1; 1.35 for Claude and 1.25 for Gemini models, \
          counted with o200k_base)",
    sets: Sets::Number("token_factor"),
};

const BYTES_PER_TOKEN: Flag = Flag {
    long: "bytes-per-token",
    alias: None,
    short: None,
    value: Some("N"),
    doc: "budget bytes per token (default 4)",
    sets: Sets::Integer("bytes_per_token"),
};

const TOOLS: Flag = Flag {
    long: "tools",
    alias: None,
    short: None,
    value: Some("FILE"),
    doc: "a JSON array of the tool schemas sent with the request; their bytes (or tokens) come \
          off the budget",
    sets: Sets::FileJson("tools"),
};

/// The options of `ankita trim`.
pub const TRIM: &[Flag] = &[
    Flag {
        long: "context-tokens",
        alias: None,
        short: None,
        value: Some("N"),
        doc: "the model's context window; the history budget is derived from it \
              (DESIGN §7)",
        sets: Sets::Integer("context_tokens"),
    },
    Flag {
        long: "max-output-tokens",
        alias: None,
        short: None,
        value: Some("N"),
        doc: "tokens kept for the model's answer",
        sets: Sets::Integer("max_output_tokens"),
    },
    Flag {
        long: "max-bytes",
        alias: None,
        short: None,
        value: Some("N"),
        doc: "a history budget in bytes, given directly; with --context-tokens the smaller \
              wins",
        sets: Sets::Integer("max_bytes"),
    },
    Flag {
        long: "overhead-bytes",
        alias: None,
        short: None,
        value: Some("N"),
        doc: "request framing not listed elsewhere (default 1024)",
        sets: Sets::Integer("overhead_bytes"),
    },
    Flag {
        long: "overhead-tokens",
        alias: None,
        short: None,
        value: Some("N"),
        doc: "request framing not listed elsewhere when counting in tokens (default 256)",
        sets: Sets::Integer("overhead_tokens"),
    },
    BYTES_PER_TOKEN,
    TOKENIZER,
    TOKENIZER_FILE,
    TOKEN_FACTOR,
    Flag {
        long: "clear-tool-results",
        alias: None,
        short: None,
        value: Some("JSON"),
        doc: "before dropping whole tool exchanges, replace the results of those older than the \
              newest 3 with a placeholder: true, or {\"keep\": N, \"exclude_tools\": [...], \
              \"placeholder\": \"...\", \"clear_at_least\": N, \"clear_tool_inputs\": true} \
              (clear_tool_inputs: the cleared exchanges' call arguments become {} too)",
        sets: Sets::Json("clear_tool_results"),
    },
    Flag {
        long: "fill",
        alias: None,
        short: None,
        value: Some("BOOL"),
        doc: "the room left goes to the newest first: texts shedding cut get it back, then the \
              group where selection stopped comes back shrunk into it (default true; false: \
              whole groups only)",
        sets: Sets::Json("fill"),
    },
    Flag {
        long: "trim-to",
        alias: None,
        short: None,
        value: Some("SHARE"),
        doc: "cache-stable trimming: when something must go, remove down to SHARE (0 < SHARE \
              <= 1) of the budget and of --max-messages, so the next calls only append; the \
              report says where the kept run starts (cut)",
        sets: Sets::Number("trim_to"),
    },
    Flag {
        long: "cut",
        alias: None,
        short: None,
        value: Some("N"),
        doc: "the previous answer's report.cut: while the messages from index N on fit, keep \
              exactly them (the cut never moves back)",
        sets: Sets::Integer("cut"),
    },
    Flag {
        long: "summary-json",
        alias: None,
        short: None,
        value: Some("JSON"),
        doc:
            "the caller's summary of the messages up to an index, {\"text\": ..., \"through\": N}: \
              placed right after the pinned message in their stead (request key summary)",
        sets: Sets::Json("summary"),
    },
    Flag {
        long: "cache-breakpoint",
        alias: None,
        short: None,
        value: None,
        doc: "Anthropic format: put a cache_control breakpoint on the last block of the last \
              message before the newest user message (never a fifth breakpoint)",
        sets: Sets::Switch("cache_breakpoint"),
    },
    Flag {
        long: "max-messages",
        alias: None,
        short: None,
        value: Some("N"),
        doc: "return at most N messages (default: no limit when a budget or a model's window is \
              given, 40 otherwise; `none`: no limit; the pinned message and the anchors are \
              kept even beyond it)",
        sets: Sets::Integer("max_messages"),
    },
    TOOLS,
    Flag {
        long: "memory",
        alias: None,
        short: None,
        value: Some("FILE"),
        doc: "text placed elsewhere in the prompt; its bytes come off the budget",
        sets: Sets::FileText("memory"),
    },
    Flag {
        long: "system",
        alias: None,
        short: None,
        value: Some("FILE"),
        doc: "the system prompt kept outside the messages: Anthropic's top-level system \
              (--format anthropic), the Responses instructions (--format responses) or \
              Gemini's system instruction (--format gemini), the file's text as is",
        sets: Sets::FileText("system"),
    },
    Flag {
        long: "image-sizes",
        alias: None,
        short: None,
        value: Some("FILE"),
        doc: "a JSON object giving the pixel size of remote images by URL: \
              {\"https://…/cat.png\": [1920, 1080]}",
        sets: Sets::FileJson("image_sizes"),
    },
    Flag {
        long: "file-sizes",
        alias: None,
        short: None,
        value: Some("FILE"),
        doc: "a JSON object giving the pages (documents) or seconds (audio) of remote files and \
              file ids: {\"https://…/q3.pdf\": 10}",
        sets: Sets::FileJson("file_sizes"),
    },
    PROFILE,
    MODEL,
    STRICT_MODEL,
    Flag {
        long: "on-image-overflow",
        alias: None,
        short: None,
        value: Some("MODE"),
        doc: "an image that must go becomes a placeholder text (default), is dropped, or \
              fails the call: placeholder, drop, error",
        sets: Sets::Text("on_image_overflow"),
    },
    FORMAT,
    Flag {
        long: "summary",
        alias: None,
        short: None,
        value: None,
        doc: "also print what was kept, dropped and shrunk, and every image with its price, \
              on stderr",
        sets: Sets::Setting(Setting::Summary),
    },
    Flag {
        long: "jsonl",
        alias: None,
        short: None,
        value: None,
        doc: "batch mode: the input (FILE, --jsonl=FILE or stdin) holds one request per line; \
              answer one line each, in input order",
        sets: Sets::Setting(Setting::Jsonl),
    },
    Flag {
        long: "threads",
        alias: None,
        short: None,
        value: Some("N"),
        doc: "batch mode: trim on N threads (default: every core)",
        sets: Sets::Setting(Setting::Threads),
    },
    HELP,
];

/// The options of `ankita count`.
pub const COUNT: &[Flag] = &[
    MODEL,
    STRICT_MODEL,
    TOOLS,
    TOKENIZER,
    TOKENIZER_FILE,
    TOKEN_FACTOR,
    PROFILE,
    FORMAT,
    Flag {
        long: "system",
        alias: None,
        short: None,
        value: Some("FILE"),
        doc: "the system prompt kept outside the messages (--format anthropic, responses or \
              gemini), the file's text as is",
        sets: Sets::FileText("system"),
    },
    HELP,
];

/// The options of `ankita sanitize`.
pub const SANITIZE: &[Flag] = &[FORMAT, HELP];

/// The options of `ankita probe`.
pub const PROBE: &[Flag] = &[
    PROFILE,
    MODEL,
    STRICT_MODEL,
    Flag {
        long: "detail",
        alias: None,
        short: None,
        value: Some("LEVEL"),
        doc: "the detail level passed to the profile (openai: low, high, auto; gemini-3: \
              low, medium, high, ultra_high)",
        sets: Sets::Setting(Setting::Detail),
    },
    BYTES_PER_TOKEN,
    Flag {
        long: "json",
        alias: None,
        short: None,
        value: None,
        doc: "print one JSON object per input instead of a line of text",
        sets: Sets::Setting(Setting::Json),
    },
    HELP,
];

/// Where a request key's value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyValue {
    Value(Value),
    TextFile(PathBuf),
    JsonFile(PathBuf),
}

/// A command's arguments, as given.
#[derive(Debug, Default)]
pub struct Parsed {
    /// Request keys, in the order given (a later one replaces an earlier one).
    pub keys: Vec<(&'static str, KeyValue)>,
    /// Settings given, each with its value (`None` for a switch).
    pub settings: Vec<(Setting, Option<String>)>,
    pub positionals: Vec<OsString>,
}

impl Parsed {
    pub fn has(&self, setting: Setting) -> bool {
        self.settings.iter().any(|(s, _)| *s == setting)
    }

    /// The last value given for a setting.
    pub fn setting(&self, setting: Setting) -> Option<&str> {
        self.settings
            .iter()
            .rev()
            .find(|(s, _)| *s == setting)
            .and_then(|(_, v)| v.as_deref())
    }
}

fn usage(error: lexopt::Error) -> Failure {
    Failure::Usage(error.to_string())
}

/// Reads the rest of the command line against `flags`.
pub fn parse(parser: &mut Parser, flags: &[Flag]) -> Result<Parsed, Failure> {
    let mut parsed = Parsed::default();
    while let Some(arg) = parser.next().map_err(usage)? {
        let flag = match &arg {
            Arg::Value(_) => None,
            Arg::Long(name) => Some(
                flags
                    .iter()
                    .find(|f| f.long == *name || f.alias == Some(name))
                    .ok_or_else(|| Failure::Usage(format!("unknown option --{name}")))?,
            ),
            Arg::Short(c) => Some(
                flags
                    .iter()
                    .find(|f| f.short == Some(*c))
                    .ok_or_else(|| Failure::Usage(format!("unknown option -{c}")))?,
            ),
        };
        let Some(flag) = flag else {
            if let Arg::Value(value) = arg {
                parsed.positionals.push(value);
            }
            continue;
        };
        let name = format!("--{}", flag.long);
        let value = match flag.value {
            None => None,
            Some(_) => Some(parser.value().map_err(usage)?),
        };
        // `--jsonl=FILE` names the input like a FILE argument does.
        if flag.sets == Sets::Setting(Setting::Jsonl) {
            parsed.positionals.extend(parser.optional_value());
        }
        let text = |value: Option<OsString>| -> Result<String, Failure> {
            value
                .unwrap_or_default()
                .string()
                .map_err(|_| Failure::Usage(format!("the value of {name} is not valid UTF-8")))
        };
        match flag.sets {
            Sets::Integer(key) => {
                let text = text(value)?;
                if key == "max_messages" && text == "none" {
                    parsed.keys.push((key, KeyValue::Value(Value::Null)));
                    continue;
                }
                let n: u64 = text.parse().map_err(|_| {
                    Failure::Usage(format!("{name} takes a non-negative integer, not {text:?}"))
                })?;
                parsed.keys.push((key, KeyValue::Value(n.into())));
            }
            Sets::Number(key) => {
                let text = text(value)?;
                let n = text
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .ok_or_else(|| {
                        Failure::Usage(format!("{name} takes a number, not {text:?}"))
                    })?;
                parsed.keys.push((key, KeyValue::Value(Value::Number(n))));
            }
            Sets::Json(key) => {
                let text = text(value)?;
                let json: Value = serde_json::from_str(&text)
                    .map_err(|e| Failure::Usage(format!("{name} takes JSON, not {text:?}: {e}")))?;
                parsed.keys.push((key, KeyValue::Value(json)));
            }
            Sets::Switch(key) => parsed.keys.push((key, KeyValue::Value(true.into()))),
            Sets::FileRef(key) => {
                let path = text(value)?;
                let value = serde_json::json!({ "file": path });
                parsed.keys.push((key, KeyValue::Value(value)));
            }
            Sets::Text(key) => parsed
                .keys
                .push((key, KeyValue::Value(text(value)?.into()))),
            Sets::FileText(key) => parsed
                .keys
                .push((key, KeyValue::TextFile(value.unwrap_or_default().into()))),
            Sets::FileJson(key) => parsed
                .keys
                .push((key, KeyValue::JsonFile(value.unwrap_or_default().into()))),
            Sets::Setting(setting) => {
                let value = match value {
                    Some(v) => Some(text(Some(v))?),
                    None => None,
                };
                parsed.settings.push((setting, value));
            }
        }
    }
    Ok(parsed)
}

/// The options part of a command's help, generated from its table.
pub fn render(flags: &[Flag]) -> String {
    const DOC_COLUMN: usize = 28;
    const WIDTH: usize = 100;
    let mut out = String::from("options ([key]: the request key an option sets):\n");
    for flag in flags {
        let mut names = String::from("  ");
        if let Some(c) = flag.short {
            names += &format!("-{c}, ");
        }
        names += &format!("--{}", flag.long);
        if let Some(alias) = flag.alias {
            names += &format!(", --{alias}");
        }
        if let Some(value) = flag.value {
            names += &format!(" {value}");
        }
        let mut words: Vec<String> = flag.doc.split_whitespace().map(str::to_owned).collect();
        if let Some(key) = flag.sets.request_key() {
            words.push(format!("[{key}]"));
        }
        let lines = wrap(&words, WIDTH - DOC_COLUMN);
        let width = names.chars().count();
        if width + 1 < DOC_COLUMN {
            out += &format!("{names}{}", " ".repeat(DOC_COLUMN - width));
        } else {
            out += &format!("{names}\n{}", " ".repeat(DOC_COLUMN));
        }
        out += &lines.join(&format!("\n{}", " ".repeat(DOC_COLUMN)));
        out += "\n";
    }
    out
}

/// Words in lines of at most `width` characters (a longer word gets a line of its own).
fn wrap(words: &[String], width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in words {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.clone()),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_args(args: &[&str], flags: &[Flag]) -> Result<Parsed, Failure> {
        parse(&mut Parser::from_args(args.iter().copied()), flags)
    }

    #[test]
    fn equals_and_space_forms_agree() {
        let a = parse_args(&["--max-bytes=5", "x.json"], TRIM).ok().unwrap();
        let b = parse_args(&["--max-bytes", "5", "x.json"], TRIM)
            .ok()
            .unwrap();
        assert_eq!(a.keys, b.keys);
        assert_eq!(a.keys, vec![("max_bytes", KeyValue::Value(5.into()))]);
        assert_eq!(a.positionals, vec![OsString::from("x.json")]);
    }

    #[test]
    fn alias_and_errors() {
        let p = parse_args(&["--image-profile", "openai"], TRIM)
            .ok()
            .unwrap();
        assert_eq!(p.keys[0].0, "image_profile");
        for (args, needle) in [
            (&["--max-bytez", "5"][..], "--max-bytez"),
            (&["--max-bytes", "-5"][..], "--max-bytes"),
            (&["--max-bytes"][..], "--max-bytes"),
            (&["--summary=yes"][..], "--summary"),
            (&["-x"][..], "-x"),
        ] {
            match parse_args(args, TRIM) {
                Err(Failure::Usage(message)) => {
                    assert!(message.contains(needle), "{args:?}: {message}")
                }
                _ => panic!("{args:?} should be a usage error"),
            }
        }
    }

    #[test]
    fn every_flag_has_a_documented_line() {
        for table in [TRIM, COUNT, SANITIZE, PROBE] {
            let help = render(table);
            for flag in table {
                assert!(help.contains(&format!("--{}", flag.long)));
                assert!(!flag.doc.is_empty());
            }
        }
    }

    /// `ankita trim` sets every option of the request's one table (`ankita::request::OPTIONS`),
    /// and only those: an option added to the table fails here until it has its flag.
    #[test]
    fn trim_flags_are_the_option_table() {
        use std::collections::BTreeSet;
        let table: BTreeSet<&str> = ankita::request::OPTIONS.iter().map(|o| o.name).collect();
        let flags: BTreeSet<&str> = TRIM.iter().filter_map(|f| f.sets.request_key()).collect();
        assert_eq!(flags, table, "the request keys of ankita trim's flags");
    }
}

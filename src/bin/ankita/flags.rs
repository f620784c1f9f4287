//! Every option of every command, one [`Flag`] each with its own docs, parsed with `lexopt`
//! from `OsString` arguments (`--flag value` and `--flag=value` alike). The help text of a
//! command is generated from its table, so an option cannot exist without its docs.
//!
//! A request key's flag is made from the request's option table (`ankita::request::OPTIONS`):
//! its name (`max_output_tokens` → `--max-output-tokens`), how its value is read (by the
//! option's JSON type, or from a file), its value's name and its docs, so an option added to
//! the table has its flag and its help line. The flags here are the command's own settings
//! (`--summary`, `--jsonl`, …) and the second form of a key (`--tokenizer-file`).

use crate::Failure;
use ankita::request::{option_named, FlagRead, OptionDefault, TrimOption, OPTIONS};
use lexopt::{Arg, Parser, ValueExt};
use serde_json::Value;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::LazyLock;

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
    /// A request key holding a non-negative integer (or null, given as `none`, when the
    /// option takes null).
    Integer(&'static str),
    /// A request key holding a number (or null, given as `none`, when the option takes null).
    Number(&'static str),
    /// A request key holding `true` or `false`.
    Boolean(&'static str),
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
            | Sets::Boolean(key)
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

/// The flag of the request's option `name` (one of the table's).
fn option_flag(name: &str) -> Flag {
    let option = option_named(name).unwrap_or_else(|| panic!("{name} is not a request option"));
    table_flag(option)
}

/// The flag of a request option, made from the table: its name with dashes (or the table's),
/// its value read by its JSON type or from a file, its docs with option names written as flags.
fn table_flag(option: &'static TrimOption) -> Flag {
    let key = option.name;
    let has = |kind: &str| option.kinds().any(|k| k == kind);
    let (sets, value) = match option.flag.read {
        FlagRead::TextFile => (Sets::FileText(key), Some("FILE")),
        FlagRead::JsonFile => (Sets::FileJson(key), Some("FILE")),
        FlagRead::Argument if has("string") => {
            let last = key.rsplit('_').next().unwrap_or(key).to_uppercase();
            (Sets::Text(key), Some(leak(last)))
        }
        FlagRead::Argument if has("integer") => (Sets::Integer(key), Some("N")),
        FlagRead::Argument if has("number") => (Sets::Number(key), Some("X")),
        FlagRead::Argument if option.kind == "boolean" => {
            if option.default == OptionDefault::Json("true") {
                (Sets::Boolean(key), Some("BOOL"))
            } else {
                (Sets::Switch(key), None)
            }
        }
        FlagRead::Argument => (Sets::Json(key), Some("JSON")),
    };
    Flag {
        long: leak(option.flag_long()),
        alias: option.flag.alias,
        short: None,
        value: value.map(|v| option.flag.value.unwrap_or(v)),
        doc: leak(flag_doc(option)),
        sets,
    }
}

/// A table doc as the help writes it: an option's name in backticks becomes its flag, `null`
/// becomes `none` (what the flags take for it), other backticks go; lower case and no full stop
/// at the ends, like the other lines of the help; where a file's value comes from.
fn flag_doc(option: &TrimOption) -> String {
    let mut doc = String::new();
    for (i, piece) in option.doc.split('`').enumerate() {
        if i % 2 == 0 {
            doc.push_str(piece);
        } else if let Some(named) = option_named(piece) {
            doc.push_str("--");
            doc.push_str(&named.flag_long());
        } else if piece == "null" {
            doc.push_str("none");
        } else {
            doc.push_str(piece);
        }
    }
    let mut doc = match doc.chars().next() {
        Some(first) => first.to_lowercase().chain(doc.chars().skip(1)).collect(),
        None => doc,
    };
    if doc.ends_with('.') {
        doc.pop();
    }
    match option.flag.read {
        FlagRead::TextFile => doc.push_str(" (the text of FILE, as is)"),
        FlagRead::JsonFile => doc.push_str(" (FILE holds it as JSON)"),
        FlagRead::Argument => {}
    }
    doc
}

/// Text that lives as long as the program: the flags are made once.
fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

// The tables are made on first use; each is a reference, which a `&[Flag]` parameter takes.

/// The options of `ankita trim`: a flag for every option of the request's table, then the
/// command's own.
pub static TRIM: &LazyLock<Vec<Flag>> = &TRIM_FLAGS;
static TRIM_FLAGS: LazyLock<Vec<Flag>> = LazyLock::new(|| {
    let mut flags = Vec::new();
    for option in OPTIONS {
        flags.push(table_flag(option));
        if option.name == "tokenizer" {
            flags.push(TOKENIZER_FILE);
        }
    }
    flags.extend([
        Flag {
            long: "summary",
            alias: None,
            short: None,
            value: None,
            doc: "also print what was kept, dropped and shrunk, and every image with its \
                  price, on stderr",
            sets: Sets::Setting(Setting::Summary),
        },
        Flag {
            long: "jsonl",
            alias: None,
            short: None,
            value: None,
            doc: "batch mode: the input (FILE, --jsonl=FILE or stdin) holds one request per \
                  line; answer one line each, in input order",
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
    ]);
    flags
});

/// The options of `ankita count`.
pub static COUNT: &LazyLock<Vec<Flag>> = &COUNT_FLAGS;
static COUNT_FLAGS: LazyLock<Vec<Flag>> = LazyLock::new(|| {
    let mut flags: Vec<Flag> = ["model", "strict_model", "tools", "tokenizer"]
        .into_iter()
        .map(option_flag)
        .collect();
    flags.push(TOKENIZER_FILE);
    flags.extend(
        ["token_factor", "image_profile", "format", "system"]
            .into_iter()
            .map(option_flag),
    );
    flags.push(HELP);
    flags
});

/// The options of `ankita sanitize`.
pub static SANITIZE: &LazyLock<Vec<Flag>> = &SANITIZE_FLAGS;
static SANITIZE_FLAGS: LazyLock<Vec<Flag>> = LazyLock::new(|| vec![option_flag("format"), HELP]);

/// The options of `ankita probe`.
pub static PROBE: &LazyLock<Vec<Flag>> = &PROBE_FLAGS;
static PROBE_FLAGS: LazyLock<Vec<Flag>> = LazyLock::new(|| {
    let mut flags: Vec<Flag> = ["image_profile", "model", "strict_model"]
        .into_iter()
        .map(option_flag)
        .collect();
    flags.push(Flag {
        long: "detail",
        alias: None,
        short: None,
        value: Some("LEVEL"),
        doc: "the detail level passed to the profile (openai: low, high, auto; gemini-3: \
              low, medium, high, ultra_high)",
        sets: Sets::Setting(Setting::Detail),
    });
    flags.push(option_flag("bytes_per_token"));
    flags.push(Flag {
        long: "json",
        alias: None,
        short: None,
        value: None,
        doc: "print one JSON object per input instead of a line of text",
        sets: Sets::Setting(Setting::Json),
    });
    flags.push(HELP);
    flags
});

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
            Sets::Integer(key) | Sets::Number(key)
                if option_named(key).is_some_and(|o| o.nullable())
                    && value.as_deref() == Some(std::ffi::OsStr::new("none")) =>
            {
                parsed.keys.push((key, KeyValue::Value(Value::Null)));
            }
            Sets::Integer(key) => {
                let text = text(value)?;
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
            Sets::Boolean(key) => {
                let text = text(value)?;
                let b = match text.as_str() {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(Failure::Usage(format!(
                            "{name} takes true or false, not {text:?}"
                        )))
                    }
                };
                parsed.keys.push((key, KeyValue::Value(b.into())));
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
            for flag in table.iter() {
                assert!(help.contains(&format!("--{}", flag.long)));
                assert!(!flag.doc.is_empty());
            }
        }
    }

    #[test]
    fn table_flags_read_values_by_type() {
        let p = parse_args(
            &[
                "--max-messages",
                "none",
                "--trim-to=none",
                "--fill",
                "false",
                "--cut",
                "3",
            ],
            TRIM,
        )
        .ok()
        .unwrap();
        assert_eq!(
            p.keys,
            vec![
                ("max_messages", KeyValue::Value(Value::Null)),
                ("trim_to", KeyValue::Value(Value::Null)),
                ("fill", KeyValue::Value(false.into())),
                ("cut", KeyValue::Value(3.into())),
            ]
        );
        for (args, needle) in [
            (&["--fill", "0"][..], "--fill takes true or false"),
            (
                &["--max-bytes", "none"][..],
                "--max-bytes takes a non-negative integer",
            ),
            (&["--cache-breakpoint=yes"][..], "--cache-breakpoint"),
        ] {
            match parse_args(args, TRIM) {
                Err(Failure::Usage(message)) => {
                    assert!(message.contains(needle), "{args:?}: {message}")
                }
                _ => panic!("{args:?} should be a usage error"),
            }
        }
    }

    /// An option of the table alone makes its flag: the name with dashes, the value read by
    /// its type, the docs with option names as flags.
    #[test]
    fn a_table_option_makes_its_flag() {
        use ankita::request::{OptionFlag, TrimOption};
        static NEW: TrimOption = TrimOption {
            name: "max_tool_calls",
            kind: "integer | null",
            doc: "The most tool calls kept, with `max_messages` (`null`: no limit).",
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
        };
        let flag = table_flag(&NEW);
        assert_eq!(flag.long, "max-tool-calls");
        assert_eq!(flag.value, Some("N"));
        assert_eq!(flag.sets, Sets::Integer("max_tool_calls"));
        assert_eq!(
            flag.doc,
            "the most tool calls kept, with --max-messages (none: no limit)"
        );
        let help = render(&[flag]);
        assert!(help.contains("--max-tool-calls N"), "{help}");
        assert!(help.contains("[max_tool_calls]"), "{help}");
        let doc = table_flag(option_named("memory").unwrap()).doc;
        assert!(doc.ends_with("(the text of FILE, as is)"), "{doc}");
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

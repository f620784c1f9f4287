//! One option table (`ankita::request::OPTIONS`, answered by `ankita_options`), and the front
//! ends' declarations made from it or checked against it.
//!
//! Generated: the regions between `<options NAME>` and `</options>` marker comments of the
//! Python option TypedDicts (_types.py), the stub's keywords of `_ankita.trim` (_ankita.pyi),
//! the Node `TrimOptions` (index.d.ts) and the reference table of docs/options.md are written
//! from the table, and `MessageFormat` (_types.py, types/names.d.ts) from the formats' table: `regions_are_generated_from_the_table` fails with a diff when one is stale,
//! and `UPDATE_OPTIONS=1 cargo test --release --test option_table regions` rewrites them.
//!
//! Checked, where a declaration is written by hand: the keywords and defaults of the native
//! `trim` (its `text_signature`), the typed wrapper's overloads, the framework adapters'
//! keywords (langchain.py, pydantic_ai.py: the table says which options they leave out, and
//! why), and the types the table names in each language, read back as kinds of JSON values.
//! The command line makes its flags from the table (`flags::tests` in the binary).

use ankita::request::{TrimOption, OPTIONS};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const TYPES_PY: &str = "bindings/python/python/ankita/_types.py";

fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn table() -> BTreeSet<String> {
    OPTIONS.iter().map(|o| o.name.to_owned()).collect()
}

// The generated regions.

const WIDTH: usize = 100;

/// Each generated region: the file, the region's name (its start marker is `<options NAME>`),
/// and its lines as the table writes them.
fn regions() -> Vec<(&'static str, &'static str, String)> {
    let typed = |keep: fn(&TrimOption) -> bool| -> String {
        OPTIONS
            .iter()
            .filter(|o| keep(o))
            .map(python_field)
            .collect()
    };
    vec![
        (
            TYPES_PY,
            "adapter-options",
            typed(|o| o.adapters_leave_out.is_none()),
        ),
        (
            TYPES_PY,
            "trim-options",
            typed(|o| o.adapters_leave_out.is_some() && !o.types_the_messages),
        ),
        (TYPES_PY, "request-options", typed(|o| o.types_the_messages)),
        (STUB_PYI, "trim-keywords", stub_keywords()),
        (NATIVE_TRIM, "text-signature", text_signature()),
        (INDEX_D_TS, "trim-options", node_members()),
        (OPTIONS_MD, "reference", docs_table()),
        (
            TYPES_PY,
            "message-format",
            message_formats("MessageFormat = Literal[", "]"),
        ),
        (
            NAMES_D_TS,
            "message-format",
            message_formats("export type MessageFormat = ", ";"),
        ),
    ]
}

const STUB_PYI: &str = "bindings/python/python/ankita/_ankita.pyi";
const NATIVE_TRIM: &str = "bindings/python/src/trim.rs";
const INDEX_D_TS: &str = "bindings/node/index.d.ts";
const OPTIONS_MD: &str = "docs/options.md";
const NAMES_D_TS: &str = "bindings/node/types/names.d.ts";

/// The names of the core's formats (`ankita::format::FORMATS`, in order), quoted and joined as
/// one line of a declaration: a format is one file and one line of that table, and the
/// bindings' `MessageFormat` follow it.
fn message_formats(open: &str, close: &str) -> String {
    let names: Vec<String> = ankita::format::FORMATS
        .iter()
        .map(|adapter| format!("\"{}\"", adapter.traits().name))
        .collect();
    let separator = if close == "]" { ", " } else { " | " };
    format!("{open}{}{close}\n", names.join(separator))
}

/// A Python annotation that typing can evaluate on Python 3.9: `Optional[Union[A, B]]`.
fn python_annotation(option: &TrimOption) -> String {
    let ty = option.python_type();
    if ty == "Any" {
        return ty;
    }
    let parts = split_top(&ty, '|');
    if parts.len() == 1 {
        format!("Optional[{ty}]")
    } else {
        format!("Optional[Union[{}]]", parts.join(", "))
    }
}

/// A table doc in Python's docstring markup: ``code``, with JSON's null and booleans as
/// Python's.
fn python_doc(doc: &str) -> String {
    let mut out = String::new();
    for (i, piece) in doc.split('`').enumerate() {
        if i % 2 == 0 {
            out.push_str(piece);
        } else {
            let piece = match piece {
                "null" => "None",
                "true" => "True",
                "false" => "False",
                other => other,
            };
            out.push_str(&format!("``{piece}``"));
        }
    }
    out
}

/// `text`'s words in lines of at most `width` characters after `first` (the first line's
/// prefix) or `rest` (the others'), each line's prefix included.
fn wrap(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = first.to_owned();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::replace(&mut line, rest.to_owned()));
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    lines.push(line);
    lines
}

/// A TypedDict key with its docstring.
fn python_field(option: &TrimOption) -> String {
    let mut out = format!("    {}: {}\n", option.name, python_annotation(option));
    let doc = format!("\"\"\"{}\"\"\"", python_doc(option.doc));
    for line in wrap(&doc, WIDTH, "    ", "    ") {
        out += &line;
        out += "\n";
    }
    out
}

/// The keyword parameters of the stub's `trim`.
fn stub_keywords() -> String {
    OPTIONS
        .iter()
        .map(|o| {
            let ty = o.python_type();
            let ty = if ty == "Any" {
                ty
            } else {
                format!("{ty} | None")
            };
            format!("    {}: {ty} = {},\n", o.name, o.python_default())
        })
        .collect()
}

/// The `text_signature` of the native `trim` (what `help()` and `inspect.signature` show; the
/// keywords it declares are those of older options, the others come through `**unknown`).
fn text_signature() -> String {
    let keywords: Vec<String> = OPTIONS
        .iter()
        .map(|o| format!("{}={}", o.name, o.python_default().replace('"', "'")))
        .collect();
    let text = format!("\"(messages, *, {})\"", keywords.join(", "));
    let lines = wrap(&text, WIDTH - 2, "text_signature = ", "    ");
    lines.join(" \\\n") + "\n"
}

/// The members of Node's `TrimOptions`, each with its JSDoc.
fn node_members() -> String {
    let mut out = String::new();
    for option in OPTIONS {
        let one_line = format!("  /** {} */", option.doc);
        if one_line.chars().count() <= WIDTH {
            out += &one_line;
            out += "\n";
        } else {
            out += "  /**\n";
            for line in wrap(option.doc, WIDTH, "   * ", "   * ") {
                out += &line;
                out += "\n";
            }
            out += "   */\n";
        }
        out += &format!("  {}?: {};\n", option.name, option.typescript_type());
    }
    out
}

/// The reference table of docs/options.md.
fn docs_table() -> String {
    let cell = |text: &str| text.replace('|', "\\|");
    let mut out = String::from(
        "| Key | JSON type | Default | Flag | Python | TypeScript | What it does |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for option in OPTIONS {
        let default = match option.default {
            ankita::request::OptionDefault::Absent => "—".to_owned(),
            ankita::request::OptionDefault::Depends => "see the doc".to_owned(),
            ankita::request::OptionDefault::Json(json) => format!("`{json}`"),
        };
        let mut flag = format!("`--{}`", option.flag_long());
        if let Some(alias) = option.flag.alias {
            flag += &format!(", `--{alias}`");
        }
        let mut doc = option.doc.to_owned();
        if let Some(why) = option.adapters_leave_out {
            doc += &format!(" Not an option of the framework adapters: {why}.");
        }
        out += &format!(
            "| `{}` | `{}` | {default} | {flag} | `{}` | `{}` | {} |\n",
            option.name,
            cell(option.kind),
            cell(&option.python_type()),
            cell(&option.typescript_type()),
            cell(&doc),
        );
    }
    out
}

/// `text` with the lines between the markers of region `name` replaced by `body`.
fn with_region(text: &str, file: &str, name: &str, body: &str) -> String {
    let start = format!("<options {name}>");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let at = lines
        .iter()
        .position(|l| l.contains(&start))
        .unwrap_or_else(|| panic!("{file}: no {start} marker"));
    let end = at
        + lines[at..]
            .iter()
            .position(|l| l.contains("</options>"))
            .unwrap_or_else(|| panic!("{file}: no </options> after {start}"));
    let mut out: String = lines[..=at].concat();
    out += body;
    out += &lines[end..].concat();
    out
}

/// The lines removed (`-`) and added (`+`) from `old` to `new`, with a line of context.
fn line_diff(old: &str, new: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    // The longest common subsequence, from the ends.
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut rows: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            rows.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            rows.push(('-', a[i]));
            i += 1;
        } else {
            rows.push(('+', b[j]));
            j += 1;
        }
    }
    let near = |k: usize| {
        rows[k.saturating_sub(1)..(k + 2).min(rows.len())]
            .iter()
            .any(|(c, _)| *c != ' ')
    };
    let mut out = String::new();
    let mut gap = false;
    for (k, (c, line)) in rows.iter().enumerate() {
        if near(k) {
            out += &format!("{c}{line}\n");
            gap = false;
        } else if !gap {
            out += "…\n";
            gap = true;
        }
    }
    out
}

/// The generated regions are what the table writes: a stale one fails with its diff, and
/// `UPDATE_OPTIONS=1` rewrites it.
#[test]
fn regions_are_generated_from_the_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let update = std::env::var_os("UPDATE_OPTIONS").is_some_and(|v| v == "1");
    let mut files: BTreeMap<&str, (String, String)> = BTreeMap::new();
    for (file, name, body) in regions() {
        let (_, new) = files.entry(file).or_insert_with(|| {
            let text = read(file);
            (text.clone(), text)
        });
        *new = with_region(new, file, name, &body);
    }
    let mut stale = Vec::new();
    for (file, (old, new)) in &files {
        if old == new {
            continue;
        }
        if update {
            std::fs::write(root.join(file), new).unwrap_or_else(|e| panic!("{file}: {e}"));
            eprintln!("option_table: rewrote the options of {file}");
        } else {
            stale.push(format!("--- {file}\n{}", line_diff(old, new)));
        }
    }
    assert!(
        stale.is_empty(),
        "the options generated from src/request/options.rs are stale: run \
         `UPDATE_OPTIONS=1 cargo test --release --test option_table regions` and commit the files\n{}",
        stale.join("\n")
    );
}

#[test]
fn the_generator_writes() {
    let option = OPTIONS.iter().find(|o| o.name == "tokenizer").unwrap();
    assert_eq!(
        python_annotation(option),
        "Optional[Union[Tokenizer, TokenizerFile]]"
    );
    assert_eq!(python_doc("`null`: `max_bytes`"), "``None``: ``max_bytes``");
    assert_eq!(
        wrap("aa bb cc", 8, "  ", "  "),
        ["  aa bb", "  cc"].map(String::from)
    );
    let text = "a\n# <options x> made\nold\n# </options>\nb\n";
    assert_eq!(
        with_region(text, "f", "x", "new\n"),
        "a\n# <options x> made\nnew\n# </options>\nb\n"
    );
    assert_eq!(line_diff("a\nb\n", "a\nc\n"), " a\n-b\n+c\n");
}

/// The keyword parameters of each `def name(` in a Python file whose parameters are one a line
/// (each overload), `messages` left out: the names at the start of the lines up to the line
/// that closes the parameters, and the keys of the TypedDict of `**options: Unpack[...]`.
fn python_keywords(text: &str, name: &str) -> Vec<BTreeSet<String>> {
    let header = format!("def {name}(");
    let mut out = Vec::new();
    for (at, _) in text.match_indices(&header) {
        let before = text[..at].chars().last();
        if before.is_some_and(|c| c != '\n' && c != ' ') {
            continue;
        }
        let rest = &text[at + header.len()..];
        if !rest.starts_with('\n') {
            // A one-line signature: the implementation behind the overloads (`**options`).
            continue;
        }
        let mut names = BTreeSet::new();
        for line in rest.lines().skip(1) {
            let trimmed = line.trim_start();
            if trimmed.starts_with(')') {
                break;
            }
            if trimmed.starts_with('#') {
                continue;
            }
            if let Some(typed) = trimmed
                .strip_prefix("**options: Unpack[")
                .and_then(|t| t.strip_suffix("],"))
            {
                names.extend(typed_dict(typed).into_keys());
                continue;
            }
            let Some((param, _)) = trimmed.split_once(':') else {
                continue;
            };
            let param = param.trim();
            if param != "messages" && param.chars().all(|c| c.is_alphanumeric() || c == '_') {
                names.insert(param.to_owned());
            }
        }
        out.push(names);
    }
    assert!(!out.is_empty(), "no def {name}( found");
    out
}

/// The keys of TypedDict `name` in `_types.py` with their annotations, its bases' included.
fn typed_dict(name: &str) -> BTreeMap<String, String> {
    let text = read(TYPES_PY);
    let header = format!("\nclass {name}(");
    let at = text
        .find(&header)
        .unwrap_or_else(|| panic!("class {name} in {TYPES_PY}"));
    let rest = &text[at + header.len()..];
    let bases = &rest[..rest.find(')').expect("the bases' end")];
    let mut keys = BTreeMap::new();
    for base in bases.split(',').map(str::trim) {
        if base != "TypedDict" && !base.starts_with("total") {
            keys.extend(typed_dict(base));
        }
    }
    let mut in_docstring = false;
    for line in rest.lines().skip(1) {
        if !line.is_empty() && !line.starts_with("    ") {
            break;
        }
        // A key's or the class's docstring: no keys inside.
        let quotes = line.matches("\"\"\"").count();
        if in_docstring || quotes > 0 {
            in_docstring ^= quotes % 2 == 1;
            continue;
        }
        let Some((key, annotation)) = line.trim().split_once(": ") else {
            continue;
        };
        if key.chars().all(|c| c.is_alphanumeric() || c == '_') {
            keys.insert(key.to_owned(), annotation.to_owned());
        }
    }
    keys
}

/// The kinds of values a table type names: `integer`, `number`, `string`, `boolean`, `array`,
/// `object`, `null`, `any`.
fn table_kinds(ty: &str) -> BTreeSet<&'static str> {
    ty.split(" | ")
        .map(|t| match t {
            "integer" => "integer",
            "number" => "number",
            "string" => "string",
            "boolean" => "boolean",
            "array" | "string[]" => "array",
            "object" => "object",
            "null" => "null",
            "any" => "any",
            other => panic!("a table type this test does not know: {other}"),
        })
        .collect()
}

/// `text` split at `sep` outside brackets.
fn split_top(text: &str, sep: char) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0i32, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' | '{' | '<' => depth += 1,
            ']' | ')' | '}' | '>' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(text[start..i].trim());
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(text[start..].trim());
    out.into_iter().filter(|t| !t.is_empty()).collect()
}

/// The kinds of a Python annotation of `_types.py` (aliases and TypedDicts read from it).
fn python_kinds(annotation: &str) -> BTreeSet<&'static str> {
    let types = read(TYPES_PY);
    let mut out = BTreeSet::new();
    let inner = |t: &str, head: &str| {
        t.strip_prefix(head)
            .and_then(|t| t.strip_suffix(']'))
            .map(str::to_owned)
    };
    if let Some(t) = inner(annotation, "Optional[") {
        out.insert("null");
        out.extend(python_kinds(&t));
        return out;
    }
    if let Some(t) = inner(annotation, "Union[") {
        for part in split_top(&t, ',') {
            out.extend(python_kinds(part));
        }
        return out;
    }
    let head = annotation.split('[').next().unwrap();
    out.insert(match head {
        "int" => "integer",
        "float" => "number",
        "str" | "Literal" => "string",
        "bool" => "boolean",
        "Sequence" | "list" => "array",
        "Mapping" | "dict" => "object",
        "Any" => "any",
        alias if types.contains(&format!("\n{alias} = Literal[")) => "string",
        class if types.contains(&format!("\nclass {class}(")) => "object",
        other => panic!("a Python type this test does not know: {other}"),
    });
    out
}

/// The kinds of a TypeScript type of the Node package's declarations (aliases and interfaces
/// read from index.d.ts and the files of types/ it re-exports); a number is either of `integer`
/// and `number`.
fn ts_kinds(ty: &str) -> BTreeSet<&'static str> {
    let dts = ["index.d.ts", "types/names.d.ts", "types/report.d.ts"]
        .map(|f| read(&format!("bindings/node/{f}")))
        .join("\n");
    let mut out = BTreeSet::new();
    for part in split_top(ty, '|') {
        let kind = match part {
            "number" => "number",
            "string" | "(string & {})" => "string",
            "boolean" => "boolean",
            "null" => "null",
            "unknown" | "any" => "any",
            "object" => "object",
            t if t.starts_with('"') => "string",
            t if t.ends_with("[]") || t.starts_with("Array<") => "array",
            t if t.starts_with("Record<") || t.starts_with('{') => "object",
            name if dts.contains(&format!("export interface {name} ")) => "object",
            name => {
                let header = format!("export type {name} =");
                let at = dts
                    .find(&header)
                    .unwrap_or_else(|| panic!("a TypeScript type this test does not know: {name}"));
                let rest = &dts[at + header.len()..];
                out.extend(ts_kinds(rest[..rest.find(';').unwrap()].trim()));
                continue;
            }
        };
        out.insert(kind);
    }
    out
}

/// Each member of `export interface TrimOptions` with its type (members over several lines
/// joined).
fn node_option_types() -> BTreeMap<String, String> {
    let text = read("bindings/node/index.d.ts");
    let at = text
        .find("export interface TrimOptions {")
        .expect("TrimOptions in index.d.ts");
    let body = &text[at + "export interface TrimOptions {".len()..];
    let body = &body[..body.find("\n}").expect("the end of TrimOptions")];
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut last: Option<String> = None;
    for line in body.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("/*") || trimmed.starts_with('*') || trimmed.starts_with("//") {
            continue;
        }
        match line.strip_prefix("  ") {
            Some(member) if !member.starts_with(' ') => {
                let Some((name, ty)) = member.split_once(':') else {
                    continue;
                };
                let name = name.trim_end_matches('?').to_owned();
                if !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                out.insert(name.clone(), ty.trim().to_owned());
                last = Some(name);
            }
            _ => {
                if let Some(name) = &last {
                    let ty = out.get_mut(name).unwrap();
                    ty.push(' ');
                    ty.push_str(trimmed);
                }
            }
        }
    }
    for ty in out.values_mut() {
        *ty = ty.trim_end_matches(';').trim().to_owned();
        if let Some(t) = ty.strip_prefix("| ") {
            *ty = t.to_owned();
        }
    }
    out
}

/// The keywords of the `text_signature` of the native `trim` (bindings/python/src/trim.rs).
fn native_signature() -> BTreeSet<String> {
    native_defaults().into_keys().collect()
}

/// The keywords of the `text_signature` of the native `trim` with their defaults.
fn native_defaults() -> BTreeMap<String, String> {
    let text = read(NATIVE_TRIM);
    let at = text
        .find("pub fn trim<")
        .expect("pub fn trim in bindings/python/src/trim.rs");
    let start = text[..at]
        .rfind("text_signature = \"(")
        .expect("a text_signature before pub fn trim");
    let rest = &text[start + "text_signature = \"(".len()..];
    let signature = &rest[..rest.find(")\"").expect("the signature's end")];
    signature
        .split(',')
        .filter_map(|p| {
            let p = p.trim_matches(|c: char| c.is_whitespace() || c == '\\');
            let (name, default) = p.split_once('=').unwrap_or((p, ""));
            (!name.is_empty() && name != "*" && name != "messages")
                .then(|| (name.to_owned(), default.to_owned()))
        })
        .collect()
}

/// The members of `export interface TrimOptions` in index.d.ts.
fn node_options() -> BTreeSet<String> {
    node_option_types().into_keys().collect()
}

fn differences(got: &BTreeSet<String>, want: &BTreeSet<String>) -> String {
    let missing: Vec<&String> = want.difference(got).collect();
    let extra: Vec<&String> = got.difference(want).collect();
    format!("missing {missing:?}, not in the table {extra:?}")
}

#[test]
fn python_keywords_are_the_table() {
    let want = table();
    let native = native_signature();
    assert_eq!(
        native,
        want,
        "_ankita.trim's text_signature: {}",
        differences(&native, &want)
    );
    let defaults = native_defaults();
    for option in OPTIONS {
        assert_eq!(
            defaults[option.name].replace('\'', "\""),
            option.python_default(),
            "the default of {} in _ankita.trim's text_signature, and the table's",
            option.name
        );
    }
    for (file, what) in [
        (
            "bindings/python/python/ankita/_messages.py",
            "ankita.trim's overloads",
        ),
        (
            "bindings/python/python/ankita/_ankita.pyi",
            "the stub of _ankita.trim",
        ),
    ] {
        for (k, got) in python_keywords(&read(file), "trim").iter().enumerate() {
            assert_eq!(
                got,
                &want,
                "{what} ({file}, #{k}): {}",
                differences(got, &want)
            );
        }
    }
    // The overloads' own keywords are the options that decide the messages' type; the others
    // come in the TypedDict they unpack.
    let typed: BTreeSet<String> = typed_dict("TrimOptions").into_keys().collect();
    let own: BTreeSet<String> = OPTIONS
        .iter()
        .filter(|o| o.types_the_messages)
        .map(|o| o.name.to_owned())
        .collect();
    let overloads = python_keywords(&read("bindings/python/python/ankita/_messages.py"), "trim");
    for (k, got) in overloads.iter().enumerate() {
        let got: BTreeSet<String> = got.difference(&typed).cloned().collect();
        assert_eq!(
            got,
            own,
            "the keywords of ankita.trim's overload #{k} beside **options: {}",
            differences(&got, &own)
        );
    }
}

#[test]
fn node_option_types_are_the_table() {
    let want = table();
    let got = node_options();
    assert_eq!(
        got,
        want,
        "TrimOptions in index.d.ts: {}",
        differences(&got, &want)
    );
}

/// The framework adapters offer the table's options but those the table says they leave out.
#[test]
fn adapter_keywords_are_the_table_but_the_documented_exceptions() {
    let want: BTreeSet<String> = OPTIONS
        .iter()
        .filter(|o| o.adapters_leave_out.is_none())
        .map(|o| o.name.to_owned())
        .collect();
    for (file, functions) in [
        (
            "bindings/python/python/ankita/langchain.py",
            &["trim_messages", "trim_messages_with_report", "trimmer"][..],
        ),
        (
            "bindings/python/python/ankita/pydantic_ai.py",
            &[
                "trim_messages",
                "trim_messages_with_report",
                "history_processor",
            ][..],
        ),
    ] {
        let text = read(file);
        for function in functions {
            for got in python_keywords(&text, function) {
                assert_eq!(got, want, "{file} {function}: {}", differences(&got, &want));
            }
        }
    }
}

/// The Python options' types: `RequestOptions` (every request key but `messages`: `Session`,
/// `trim_many`), whose base `TrimOptions` every `**options` of `trim` unpacks (and
/// `AdapterOptions` the adapters'), holds exactly the table's options, each taking the table's
/// kinds of values and None besides (None means "not given").
#[test]
fn python_option_types_are_the_table() {
    let options = typed_dict("RequestOptions");
    let got: BTreeSet<String> = options.keys().cloned().collect();
    assert_eq!(
        got,
        table(),
        "RequestOptions: {}",
        differences(&got, &table())
    );
    for option in OPTIONS {
        let annotation = &options[option.name];
        let mut want = table_kinds(option.kind);
        let got = python_kinds(annotation);
        if !want.contains("any") {
            want.insert("null");
        }
        assert_eq!(
            got, want,
            "RequestOptions.{}: {annotation} takes {got:?}; the table says {} (and None)",
            option.name, option.kind
        );
    }
}

/// Node's option types take exactly the table's kinds of values (a number may be an integer).
#[test]
fn node_option_types_take_the_table_kinds() {
    let types = node_option_types();
    for option in OPTIONS {
        let ty = types
            .get(option.name)
            .unwrap_or_else(|| panic!("{} is not in TrimOptions", option.name));
        let mut want = table_kinds(option.kind);
        if want.remove("integer") {
            want.insert("number");
        }
        let got = ts_kinds(ty);
        if want.contains("any") {
            continue; // the system prompt: typed by the format it goes with
        }
        assert_eq!(
            got, want,
            "TrimOptions.{}: {ty} takes {got:?}; the table says {}",
            option.name, option.kind
        );
    }
}

/// The readers above find what the files hold (a reader that found nothing would pass).
#[test]
fn the_readers_read() {
    let python = "def trim(\n    messages: Sequence[_M],\n    *,\n    max_bytes: int | None = None,\n    fill: bool = True,\n) -> X: ...\n";
    let got = python_keywords(python, "trim");
    assert_eq!(got.len(), 1);
    assert_eq!(
        got[0].iter().map(String::as_str).collect::<Vec<_>>(),
        ["fill", "max_bytes"]
    );
    assert!(native_signature().contains("max_bytes"));
    assert!(node_options().contains("clear_tool_results"));
    assert!(typed_dict("TrimOptions").contains_key("max_bytes")); // from the base AdapterOptions
    assert_eq!(
        python_kinds("Optional[Union[str, Sequence[str]]]"),
        ["array", "null", "string"].into()
    );
    assert_eq!(
        ts_kinds("boolean | { keep?: number }"),
        ["boolean", "object"].into()
    );
    assert_eq!(
        ts_kinds("Tokenizer | TokenizerFile"),
        ["object", "string"].into()
    );
    let types = node_option_types();
    assert_eq!(types["clear_tool_results"], "boolean | ClearToolResults");
    assert_eq!(
        ts_kinds(&types["clear_tool_results"]),
        ["boolean", "object"].into()
    );
}

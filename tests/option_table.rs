//! One option table (`ankita::request::OPTIONS`, answered by `ankita_options`): every front
//! end offers exactly its options, taking the kinds of values the table says. Read from the
//! sources: the Python keywords of `trim` (the native signature, the typed wrapper's overloads,
//! the stub) and the package's option TypedDicts (`RequestOptions`, `TrimOptions`,
//! `AdapterOptions` in _types.py, with their types), the Node option type (`TrimOptions` in
//! index.d.ts, with its types), and the framework adapters' keywords (langchain.py,
//! pydantic_ai.py). The command line's flags are checked in its own tests
//! (`flags::tests::trim_flags_are_the_option_table`). An option added to the table fails here
//! until each front end has it (or is listed below as not offering it, with the reason).

use ankita::request::OPTIONS;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Options the framework adapters do not offer, and why.
const ADAPTERS_LEAVE_OUT: &[(&str, &str)] = &[
    (
        "format",
        "the adapter chooses the format it sends its messages in",
    ),
    (
        "system",
        "the system prompt is one of the framework's messages",
    ),
    (
        "cache_breakpoint",
        "an Anthropic-format option; the adapters send another format",
    ),
    (
        "summary",
        "the answer is mapped back to the framework's own messages, and a placed summary is \
         none of them",
    ),
];

const TYPES_PY: &str = "bindings/python/python/ankita/_types.py";

fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn table() -> BTreeSet<String> {
    OPTIONS.iter().map(|o| o.name.to_owned()).collect()
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
    for line in rest.lines().skip(1) {
        if !line.is_empty() && !line.starts_with("    ") {
            break;
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

/// The kinds of a TypeScript type of index.d.ts (aliases and interfaces read from it); a
/// number is either of `integer` and `number`.
fn ts_kinds(ty: &str) -> BTreeSet<&'static str> {
    let dts = read("bindings/node/index.d.ts");
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
    let text = read("bindings/python/src/trim.rs");
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
        .map(|p| {
            let name = p.split('=').next().unwrap();
            name.trim_matches(|c: char| c.is_whitespace() || c == '\\')
        })
        .filter(|p| !p.is_empty() && *p != "*" && *p != "messages")
        .map(str::to_owned)
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

#[test]
fn adapter_keywords_are_the_table_but_the_documented_exceptions() {
    let left_out: BTreeSet<String> = ADAPTERS_LEAVE_OUT
        .iter()
        .map(|(n, _)| (*n).to_owned())
        .collect();
    let all = table();
    let unknown: Vec<&String> = left_out.difference(&all).collect();
    assert!(unknown.is_empty(), "left out but not options: {unknown:?}");
    let want: BTreeSet<String> = all.difference(&left_out).cloned().collect();
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
    assert!(types["clear_tool_results"].contains("keep?: number"));
}

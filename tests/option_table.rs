//! One option table (`ankita::request::OPTIONS`, answered by `ankita_options`): every front
//! end offers exactly its options. Read from the sources: the Python keywords of `trim` (the
//! native signature, the typed wrapper's overloads, the stub), the Node option type
//! (`TrimOptions` in index.d.ts), and the framework adapters' keywords (langchain.py,
//! pydantic_ai.py). The command line's flags are checked in its own tests
//! (`flags::tests::trim_flags_are_the_option_table`). An option added to the table fails here
//! until each front end has it (or is listed below as not offering it, with the reason).

use ankita::request::OPTIONS;
use std::collections::BTreeSet;
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
];

fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn table() -> BTreeSet<String> {
    OPTIONS.iter().map(|o| o.name.to_owned()).collect()
}

/// The keyword parameters of each `def name(` in a Python file whose parameters are one a line
/// (each overload), `messages` left out: the names at the start of the lines up to the line
/// that closes the parameters.
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
    let text = read("bindings/node/index.d.ts");
    let at = text
        .find("export interface TrimOptions {")
        .expect("TrimOptions in index.d.ts");
    let body = &text[at..];
    let body = &body[..body.find("\n}").expect("the end of TrimOptions")];
    body.lines()
        .filter_map(|line| {
            let member = line.strip_prefix("  ")?;
            if member.starts_with(' ') {
                return None;
            }
            let (name, _) = member.split_once(':')?;
            let name = name.trim_end_matches('?');
            name.chars()
                .all(|c| c.is_alphanumeric() || c == '_')
                .then(|| name.to_owned())
        })
        .collect()
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
            &["trim_messages", "trim_messages_with_report"][..],
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
}

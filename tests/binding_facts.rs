//! The bindings hold no per-format policy: no source file of the Python or Node binding
//! compares anything against a format's name (they read the core's facts, `format::facts`,
//! through the Python binding's link to the core or `ankita_formats`). The scan reads each
//! file's code without its comments and docstrings and fails on every string literal that is
//! a format's name, and on every object key in JavaScript that is one (a per-format table);
//! only the value given to a `format` keyword or key (`format="ai-sdk"`: a front end that
//! speaks one format, not a branch on one) is no comparison, and a provider's key in the AI
//! SDK's `providerOptions` (`{"openai": {"imageDetail": ...}}`) is a provider's name.
//! The type declarations that list the names (`MessageFormat` in the Node package's
//! types/names.d.ts, `MessageFormat` in _types.py) must list exactly the core's formats.

use ankita::format::FORMATS;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lang {
    Rust,
    Python,
    JavaScript,
}

/// A string literal of the code (outside comments and docstrings): its text and line.
#[derive(Debug)]
struct Literal {
    text: String,
    line: usize,
    /// The code right before it, white space left out (`format=`, `f!=`).
    before: String,
}

/// The string literals of `source`, and the code with every comment, docstring and literal
/// blanked (for the object keys of JavaScript).
fn lex(source: &str, lang: Lang) -> (Vec<Literal>, String) {
    let chars: Vec<char> = source.chars().collect();
    let mut literals = Vec::new();
    let mut code = String::with_capacity(source.len());
    let (mut i, mut line) = (0, 1);
    let starts = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    // Skips to the end of the line (a line comment).
    let line_end = |i: usize| {
        (i..chars.len())
            .find(|&k| chars[k] == '\n')
            .unwrap_or(chars.len())
    };
    while i < chars.len() {
        let c = chars[i];
        let comment_line = match lang {
            Lang::Rust | Lang::JavaScript => starts(i, "//"),
            Lang::Python => c == '#',
        };
        if comment_line {
            i = line_end(i);
            continue;
        }
        if lang != Lang::Python && starts(i, "/*") {
            let end = (i + 2..chars.len())
                .find(|&k| starts(k, "*/"))
                .map_or(chars.len(), |k| k + 2);
            line += chars[i..end].iter().filter(|&&c| c == '\n').count();
            code.extend(chars[i..end].iter().filter(|&&c| c == '\n'));
            i = end;
            continue;
        }
        if lang == Lang::Python && (starts(i, "\"\"\"") || starts(i, "'''")) {
            // A docstring or a long text: never a format's name.
            let quote: String = chars[i..i + 3].iter().collect();
            let end = (i + 3..chars.len())
                .find(|&k| starts(k, &quote))
                .map_or(chars.len(), |k| k + 3);
            line += chars[i..end].iter().filter(|&&c| c == '\n').count();
            code.extend(chars[i..end].iter().filter(|&&c| c == '\n'));
            i = end;
            continue;
        }
        if lang == Lang::Rust && c == '\'' {
            // A char literal ('x', '\n', '"'), or a lifetime.
            let len = if chars.get(i + 1) == Some(&'\\') {
                4
            } else {
                3
            };
            if chars.get(i + len - 1) == Some(&'\'') {
                i += len;
            } else {
                i += 1;
            }
            code.push(' ');
            continue;
        }
        let raw = lang == Lang::Rust
            && c == 'r'
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'))
            && matches!(chars.get(i + 1), Some('"' | '#'));
        let quoted =
            c == '"' || (lang != Lang::Rust && c == '\'') || (lang == Lang::JavaScript && c == '`');
        if raw || quoted {
            let mut k = i;
            let close: String = if raw {
                k += 1;
                let hashes = chars[k..].iter().take_while(|&&c| c == '#').count();
                k += hashes;
                format!("\"{}", "#".repeat(hashes))
            } else {
                c.to_string()
            };
            k += 1; // the opening quote
            let start_line = line;
            let mut text = String::new();
            while k < chars.len() && !starts(k, &close) {
                if chars[k] == '\\' && !raw {
                    text.push(chars[k]);
                    k += 1;
                }
                if let Some(&c) = chars.get(k) {
                    if c == '\n' {
                        line += 1;
                        code.push('\n');
                    }
                    text.push(c);
                }
                k += 1;
            }
            let before: String = chars[i.saturating_sub(24)..i]
                .iter()
                .filter(|c| !c.is_whitespace())
                .collect();
            literals.push(Literal {
                text,
                line: start_line,
                before,
            });
            code.push_str("\"\"");
            i = k + close.chars().count();
            continue;
        }
        if c == '\n' {
            line += 1;
        }
        code.push(c);
        i += 1;
    }
    (literals, code)
}

/// What in `source` names a format: `(line, what)` for each string literal that is a format's
/// name, and each JavaScript object key that is one.
fn format_names_in(source: &str, lang: Lang, names: &[&str]) -> Vec<(usize, String)> {
    let source = without_literal_types(source, lang);
    let (literals, code) = lex(&source, lang);
    let mut found: Vec<(usize, String)> = literals
        .iter()
        .filter(|l| names.contains(&l.text.as_str()))
        .filter(|l| {
            let given = ["format=", "format:", "\"format\":", "'format':"];
            // The AI SDK keys its `providerOptions` by provider ("openai", "google"): a
            // provider's name there, not a format's.
            let provider = ["\"providerOptions\":{", "providerOptions:{"];
            !given.iter().chain(&provider).any(|g| l.before.ends_with(g))
        })
        .map(|l| (l.line, format!("the string {:?}", l.text)))
        .collect();
    if lang == Lang::JavaScript {
        for (n, line) in code.lines().enumerate() {
            for name in names {
                let mut rest = line;
                while let Some(at) = rest.find(name) {
                    let before = rest[..at].chars().last();
                    let after = rest[at + name.len()..].trim_start();
                    let word_start = !before.is_some_and(|c| c.is_alphanumeric() || c == '_');
                    let key = after.starts_with(':') && !after.starts_with("::");
                    let member = before == Some('.');
                    if word_start && !member && key {
                        found.push((n + 1, format!("the object key {name}")));
                    }
                    rest = &rest[at + name.len()..];
                }
            }
        }
    }
    found.sort();
    found
}

/// `source` with Python's `Literal[...]` types blanked (their lines kept): a type that lists
/// the format names is no comparison (it is checked against the core's formats below).
fn without_literal_types(source: &str, lang: Lang) -> String {
    if lang != Lang::Python {
        return source.to_owned();
    }
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find("Literal[") {
        out.push_str(&rest[..at]);
        let end = rest[at..].find(']').map_or(rest.len(), |e| at + e + 1);
        out.extend(rest[at..end].chars().filter(|&c| c == '\n'));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn format_names() -> Vec<&'static str> {
    FORMATS.iter().map(|f| f.name()).collect()
}

/// The binding source files the scan reads.
fn binding_sources(root: &Path) -> Vec<(PathBuf, Lang)> {
    let mut out = Vec::new();
    let mut add = |dir: &str, ext: &str, lang: Lang| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        files.sort();
        out.extend(files.into_iter().map(|p| (p, lang)));
    };
    add("bindings/python/src", "rs", Lang::Rust);
    add("bindings/python/python/ankita", "py", Lang::Python);
    add("bindings/node", "js", Lang::JavaScript);
    add("bindings/node/lib", "js", Lang::JavaScript);
    out
}

#[test]
fn no_binding_source_names_a_format() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let names = format_names();
    let sources = binding_sources(root);
    assert!(
        sources.len() >= 15,
        "the scan found only {} files",
        sources.len()
    );
    let mut failures = Vec::new();
    for (path, lang) in &sources {
        let text = std::fs::read_to_string(path).unwrap();
        for (line, what) in format_names_in(&text, *lang, &names) {
            let path = path.strip_prefix(root).unwrap().display();
            failures.push(format!("{path}:{line}: {what}"));
        }
    }
    assert!(
        failures.is_empty(),
        "the bindings name formats (read the core's facts instead: format::facts, \
         ankita_formats):\n{}",
        failures.join("\n")
    );
}

/// The scan finds what the bindings used to hold, and leaves comments and docs alone.
#[test]
fn the_scan_finds_format_names_in_code_only() {
    let names = format_names();
    let rust = r#"
        /// `format="anthropic"` repairs Anthropic Messages.
        fn f<'py>(f: &str) -> bool { let c = '"'; f != "openai" } // "gemini"
        match name { "responses" => 1, _ => 2 }
    "#;
    let found = format_names_in(rust, Lang::Rust, &names);
    assert_eq!(
        found.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
        [3, 4],
        "{found:?}"
    );
    let python = "\"\"\"format=\"gemini\" docs\"\"\"\n_REBUILT = ('anthropic', \"responses\")  # \"openai\"\nF = Literal[\"openai\"]\ntrim(m, format=\"ai-sdk\")\nif format == \"ai-sdk\": pass\np = {\"providerOptions\": {\"openai\": {}}, \"x\": {\"openai\": 1}}\n";
    let found = format_names_in(python, Lang::Python, &names);
    assert_eq!(
        found.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
        [2, 2, 5, 6],
        "{found:?}"
    );
    let js = "// openai: no\nconst PLAIN = {\n  openai: read,\n  \"ai-sdk\": read,\n};\nx.gemini: 1;\nconst s = `${a}gemini`; f(format ?? \"openai\");\n";
    let found = format_names_in(js, Lang::JavaScript, &names);
    assert_eq!(
        found.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
        [3, 4, 7],
        "{found:?}"
    );
}

/// The names listed in the first `[...]`, `= ...;` or union after `anchor` in a file.
fn listed_after(text: &str, anchor: &str, names: &[&str]) -> Vec<String> {
    let at = text
        .find(anchor)
        .unwrap_or_else(|| panic!("{anchor} is not in the file"));
    let rest = &text[at + anchor.len()..];
    let end = rest.find([']', ';']).unwrap_or(rest.len());
    let (literals, _) = lex(&rest[..end], Lang::Python);
    let listed: Vec<String> = literals.into_iter().map(|l| l.text).collect();
    assert!(
        listed.iter().any(|l| names.contains(&l.as_str())),
        "no format name after {anchor}"
    );
    listed
}

#[test]
fn the_format_types_list_the_core_formats() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let names = format_names();
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let python = listed_after(
        &read("bindings/python/python/ankita/_types.py"),
        "MessageFormat = Literal[",
        &names,
    );
    assert_eq!(python, names, "MessageFormat in _types.py");
    let node = listed_after(
        &read("bindings/node/types/names.d.ts"),
        "export type MessageFormat =",
        &names,
    );
    assert_eq!(node, names, "MessageFormat in types/names.d.ts");
}

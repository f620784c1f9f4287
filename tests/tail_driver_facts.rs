//! The bindings' tail drivers (Python: bindings/python/src/tail.rs; Node: lib/tail.js and
//! lib/tail-trim.js) take every number and rule from the core's facts (`tail` of
//! `ankita_formats`, `ankita::format::facts::TAIL_DRIVER`): each fact is read where the driver
//! decides, and no number of the driver's is written in either binding. Each binding's walk over
//! its own objects stays its own; what it decides with does not.

use ankita::format::describe_formats;
use std::path::Path;

fn read(path: &str) -> String {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// `text` without its comments (`//` to the end of a line, `/* … */`) and, in Rust, its tests.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("/*") {
        out.push_str(&rest[..at]);
        rest = rest[at..]
            .find("*/")
            .map_or("", |end| &rest[at + end + 2..]);
    }
    out.push_str(rest);
    out.lines()
        .map(|line| match line.find("//") {
            // `//` inside a string (a URL) is kept whole.
            Some(at) if line[..at].matches('"').count() % 2 == 0 => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The number literals of `code` (not the digits of a name such as `u32` or `\ud800`).
fn numbers(code: &str) -> Vec<String> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let before = i.checked_sub(1).map(|k| bytes[k]);
        let in_name = before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'\\');
        if c.is_ascii_digit() && !in_name {
            let start = i;
            // Digits, a suffix (`2usize`), a fraction (`1.25`; not a range's `..`).
            let fraction =
                |k: usize| bytes[k] == b'.' && bytes.get(k + 1).is_some_and(|b| b.is_ascii_digit());
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || fraction(i))
            {
                i += 1;
            }
            out.push(code[start..i].to_owned());
        } else {
            i += 1;
        }
    }
    out
}

/// The numbers a driver may write: counts of a message's keys and parts (a plain message has
/// two or three), indices and steps.
const STRUCTURAL: &[&str] = &["0", "1", "2", "3"];

#[test]
fn both_bindings_take_the_tail_drivers_numbers_from_the_facts() {
    let facts = describe_formats();
    let tail = facts["tail"].as_object().unwrap();
    let python = code(&read("bindings/python/src/tail.rs"));
    let node =
        code(&read("bindings/node/lib/tail.js")) + &code(&read("bindings/node/lib/tail-trim.js"));
    // Every fact is read by both: Python through TAIL_DRIVER (its fields, or its first_tail and
    // widened, which read them), Node by its name in the facts.
    let python_reads = |field: &str| {
        python.contains(&format!("TAIL_DRIVER.{field}"))
            || match field {
                "first_with_budget"
                | "count_times"
                | "count_plus"
                | "first_at_least"
                | "default_max_messages"
                | "budget_keys"
                | "default_budget_keys" => python.contains("TAIL_DRIVER.first_tail("),
                "widen_times" | "widen_by_scale" | "widen_at_least" => {
                    python.contains("TAIL_DRIVER.widened(")
                }
                _ => false,
            }
    };
    for field in tail.keys() {
        assert!(
            python_reads(field),
            "bindings/python/src/tail.rs does not read the fact {field}"
        );
        assert!(
            node.contains(&format!(".{field}")),
            "bindings/node/lib/tail.js and tail-trim.js do not read the fact {field}"
        );
    }
    // And no number of the driver's is written in either.
    for (binding, code) in [
        ("bindings/python/src/tail.rs", &python),
        ("bindings/node/lib/tail.js, tail-trim.js", &node),
    ] {
        let written: Vec<String> = numbers(code)
            .into_iter()
            .filter(|n| !STRUCTURAL.contains(&n.as_str()))
            .collect();
        assert!(
            written.is_empty(),
            "{binding} writes numbers of its own: {written:?}"
        );
    }
}

#[test]
fn numbers_are_found_outside_names_and_comments() {
    let text = "let a = size * 4; // 64\nconst b = 1.25 * x; /* 256 */ u32 \\ud800 x2 0..n\n";
    assert_eq!(numbers(&code(text)), vec!["4", "1.25", "0"]);
}

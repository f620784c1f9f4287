//! The bindings' stateless trims and sanitizes of long histories (Python:
//! bindings/python/src/tail.rs, turns.rs; Node: lib/tail.js, turns.js and lib/tail-trim.js)
//! hold no rule of the tail's selection: they read their own objects into shapes and ask the
//! core (`ankita::tail::select`, `ankita_tail_select`), which decides where a tail starts,
//! which older messages go, how calls pair with replies and how a tail widens. Neither reads
//! the driver's facts (`tail` of `ankita_formats`) but Node its one shortcut (`min_before`:
//! a history that short is not asked about) and `pair_run` (how far the shapes pair calls,
//! which Python reads too), writes a number of them, or names a rule's function.

use ankita::tail::driver::describe_formats;
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

/// The numbers a binding may write: counts of a message's keys and parts (a plain message has
/// two or three), indices and steps, the shapes' record kinds (0 to 4) and their word of no
/// length.
const STRUCTURAL: &[&str] = &["0", "1", "2", "3", "4", "0xffffffff"];

#[test]
fn the_bindings_ask_the_core_and_hold_no_rule_of_their_own() {
    let facts = describe_formats();
    let tail = facts["tail"].as_object().unwrap();
    let python =
        code(&read("bindings/python/src/tail.rs")) + &code(&read("bindings/python/src/turns.rs"));
    let node = code(&read("bindings/node/lib/tail.js"))
        + &code(&read("bindings/node/lib/tail-trim.js"))
        + &code(&read("bindings/node/lib/turns.js"));
    assert!(python.contains("select::start(") && python.contains("select::select("));
    assert!(node.contains("tailSelect("));
    // Python reads one fact, `pair_run` (how far its shapes pair calls); Node that one and its
    // shortcut, `min_before`.
    let python_reads = python.matches("TAIL_DRIVER").count();
    let allowed = python.matches("TAIL_DRIVER.pair_run").count()
        + python.matches("driver::TAIL_DRIVER").count();
    assert_eq!(python_reads, allowed, "Python reads the driver's facts");
    for field in tail
        .keys()
        .filter(|f| *f != "min_before" && *f != "pair_run")
    {
        assert!(
            !node.contains(&format!(".{field}")),
            "Node reads the driver's fact {field}"
        );
    }
    // The rules' functions, as the bindings named them before the core held them.
    for rule in [
        "plain_runs",
        "older_with_turns",
        "tail_of",
        "give_to",
        "fn exchange",
        "widened(",
        "first_tail",
        "plainRuns",
        "olderWithTurns",
        "olderRuns",
        "tailOf",
        "firstTail",
        "sizedOf",
        "windows(",
        "answered",
    ] {
        assert!(!python.contains(rule), "Python holds {rule}");
        assert!(!node.contains(rule), "Node holds {rule}");
    }
    // And no number of the driver's is written in either (turns.js's one number is how deep
    // plain data may nest, the conversion's limit).
    let node_driver =
        code(&read("bindings/node/lib/tail.js")) + &code(&read("bindings/node/lib/tail-trim.js"));
    for (binding, code) in [
        ("bindings/python/src/tail.rs, turns.rs", &python),
        ("bindings/node/lib/tail.js, tail-trim.js", &node_driver),
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

//! The command line answers what the C ABI answers, byte for byte: `ankita trim FILE`,
//! `ankita trim --jsonl` and `ankita sanitize FILE` against `ankita_trim_n` and
//! `ankita_sanitize_n` given the same text, over every shared case (tests/cases) and generated
//! requests whose text a JSON value could not hold as written (30-digit integers, `1.0e5`, `-0`,
//! numbers past f64 such as `1E400`, escapes of every kind, deep unknown values, odd white
//! space). Keys moved from the request to
//! flags must not change the answer either.

use ankita::ffi::{ankita_sanitize_n, ankita_string_free, ankita_trim_n};
use ankita::raw::{get, Doc};
use std::ffi::CStr;
use std::os::raw::c_char;
use std::path::{Path, PathBuf};
use std::process::Command;

fn through_c(
    call: unsafe extern "C" fn(*const c_char, usize) -> *mut c_char,
    text: &str,
) -> String {
    // SAFETY: `text` is `len` readable bytes for the call; the answer is a NUL-terminated
    // library string, read once and released with `ankita_string_free`.
    unsafe {
        let answer = call(text.as_ptr().cast(), text.len());
        let owned = CStr::from_ptr(answer)
            .to_str()
            .expect("UTF-8 answer")
            .to_string();
        ankita_string_free(answer);
        owned
    }
}

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("ankita-cli-c-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The CLI's stdout, without the line end it adds.
fn cli(args: &[&std::ffi::OsStr]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_ankita"))
        .args(args)
        .output()
        .expect("the binary runs");
    let mut stdout = String::from_utf8(output.stdout).expect("UTF-8 stdout");
    assert_eq!(stdout.pop(), Some('\n'), "{args:?}: one answer line");
    stdout
}

/// `ankita trim --jsonl` over `lines`, one answer per line.
fn cli_jsonl(scratch: &Scratch, lines: &[String], flags: &[String]) -> Vec<String> {
    let path = scratch.file("requests.jsonl", &(lines.join("\n") + "\n"));
    let mut args: Vec<&std::ffi::OsStr> = vec!["trim".as_ref(), "--jsonl".as_ref(), path.as_ref()];
    args.extend(flags.iter().map(std::ffi::OsStr::new));
    let output = Command::new(env!("CARGO_BIN_EXE_ankita"))
        .args(&args)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 stdout");
    stdout.lines().map(str::to_string).collect()
}

/// A request on one line: JSON's line breaks between tokens become spaces (a string holds none).
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// The request's keys given as flags instead: (the request without them, the flags). Keys the
/// command line has no flag for, and values a flag cannot carry as written, stay.
fn as_flags(request: &str, scratch: &Scratch, n: usize) -> Option<(String, Vec<String>)> {
    let doc = Doc::parse(request).ok()?;
    let fields = doc.fields(doc.root())?;
    let mut kept = Vec::new();
    let mut flags = Vec::new();
    for (key, value) in &fields {
        let scalar = !value.starts_with(['{', '[', '"', 'n']);
        let string = ankita::raw::string(value);
        let flag = match (key.as_ref(), scalar, &string) {
            (
                "max_bytes" | "context_tokens" | "max_output_tokens" | "overhead_bytes"
                | "overhead_tokens" | "bytes_per_token" | "max_messages",
                true,
                _,
            ) if value.bytes().all(|b| b.is_ascii_digit()) => {
                Some(format!("--{}={value}", key.replace('_', "-")))
            }
            ("token_factor", true, _) => Some(format!("--token-factor={value}")),
            ("format" | "model" | "tokenizer" | "on_image_overflow", _, Some(s)) => {
                Some(format!("--{}={s}", key.replace('_', "-")))
            }
            ("image_profile", _, Some(s)) => Some(format!("--profile={s}")),
            ("clear_tool_results", _, _) => Some(format!("--clear-tool-results={value}")),
            ("tools" | "image_sizes", _, _) => {
                let file = scratch.file(&format!("{key}-{n}.json"), value);
                Some(format!("--{}={}", key.replace('_', "-"), file.display()))
            }
            // Text is spliced as the CLI encodes it: only text it writes as the request does.
            ("memory" | "system", _, Some(s)) if serde_json::to_string(s).ok()? == *value => {
                let file = scratch.file(&format!("{key}-{n}.txt"), s);
                Some(format!("--{key}={}", file.display()))
            }
            _ => None,
        };
        match flag {
            Some(flag) => flags.push(flag),
            None if key == "messages" => kept.push(format!("\"messages\":{value}")),
            None => kept.push(format!(
                "{}:{value}",
                serde_json::to_string(key.as_ref()).ok()?
            )),
        }
    }
    (!flags.is_empty()).then(|| (format!("{{{}}}", kept.join(",")), flags))
}

/// Checks one trim request every way; answers how many comparisons were made.
fn check_trim(request: &str, scratch: &Scratch, n: usize, what: &str) -> usize {
    let expected = through_c(ankita_trim_n, request);
    let file = scratch.file(&format!("request-{n}.json"), request);
    assert_eq!(
        cli(&["trim".as_ref(), file.as_ref()]),
        expected,
        "{what}: ankita trim FILE"
    );
    let mut compared = 1;
    if let Some((rest, flags)) = as_flags(request, scratch, n) {
        let file = scratch.file(&format!("rest-{n}.json"), &rest);
        let mut args: Vec<&std::ffi::OsStr> = vec!["trim".as_ref(), file.as_ref()];
        args.extend(flags.iter().map(std::ffi::OsStr::new));
        assert_eq!(cli(&args), expected, "{what}: ankita trim FILE {flags:?}");
        compared += 1;
    }
    compared
}

fn cases() -> Vec<(String, String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let doc = Doc::parse(&text).unwrap();
            let fields = doc.fields(doc.root()).unwrap();
            let function = ankita::raw::string(get(&fields, "function").unwrap())
                .unwrap()
                .to_string();
            let request = get(&fields, "request").unwrap().to_string();
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                function,
                request,
            )
        })
        .collect()
}

#[test]
fn every_shared_case_answers_as_the_c_abi() {
    let scratch = Scratch::new("cases");
    let mut compared = 0;
    let mut lines = Vec::new();
    let mut expected_lines = Vec::new();
    for (n, (name, function, request)) in cases().iter().enumerate() {
        if function == "sanitize" {
            let expected = through_c(ankita_sanitize_n, request);
            let file = scratch.file(&format!("sanitize-{n}.json"), request);
            assert_eq!(
                cli(&["sanitize".as_ref(), file.as_ref()]),
                expected,
                "{name}"
            );
            compared += 1;
            continue;
        }
        compared += check_trim(request, &scratch, n, name);
        let line = one_line(request);
        expected_lines.push(through_c(ankita_trim_n, &line));
        lines.push(line);
    }
    let answers = cli_jsonl(&scratch, &lines, &[]);
    assert_eq!(
        answers, expected_lines,
        "ankita trim --jsonl over the shared cases"
    );
    compared += answers.len();
    assert!(compared > 250, "{compared} comparisons");
}

/// A small deterministic generator (xorshift64*), so a failure names a reproducible seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// Numbers as a JSON text may write them and a JSON value would rewrite them.
const NUMBERS: &[&str] = &[
    "123456789012345678901234567890",
    "-98765432109876543210",
    "18446744073709551616",
    "1.0e5",
    "1E+2",
    "2.50",
    "-0",
    "-0.0",
    "0.1",
    "1e-7",
    "1.7976931348623157e308",
    "5e-324",
    "1E400",
    "-1e+99999",
    "0",
    "42",
];

/// String contents with escapes of every kind (JSON text, inside the quotes).
const STRINGS: &[&str] = &[
    "plain words",
    "line\\nbreak\\ttab",
    "quote \\\" and backslash \\\\",
    "solidus \\/ escaped",
    "\\u00e9t\\u00E9 in escapes, \u{e9}t\u{e9} as is",
    "an emoji \\ud83d\\ude00 as a pair, \u{1f600} as is",
    "control \\u0001\\u001f\\b\\f\\r",
    "",
    "\u{4e2d}\u{6587} and \u{0627}\u{0644}\u{0639}\u{0631}\u{0628}\u{064a}\u{0629}",
];

/// White space between tokens.
fn ws(rng: &mut Rng) -> &'static str {
    ["", "", " ", "\n  ", "\t", " \r\n "][rng.below(6) as usize]
}

/// An unknown value, nested `depth` levels at most.
fn unknown(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 || rng.below(3) == 0 {
        return match rng.below(4) {
            0 => rng.pick(NUMBERS).to_string(),
            1 => format!("\"{}\"", rng.pick(STRINGS)),
            2 => rng.pick(&["true", "false", "null"]).to_string(),
            _ => "{}".to_string(),
        };
    }
    let (w1, w2) = (ws(rng), ws(rng));
    if rng.below(2) == 0 {
        let items: Vec<String> = (0..1 + rng.below(3))
            .map(|_| unknown(rng, depth - 1))
            .collect();
        format!("[{w1}{}{w2}]", items.join(&format!(",{w1}")))
    } else {
        let n = 1 + rng.below(3);
        let fields: Vec<String> = (0..n)
            .map(|i| format!("\"k{i}\\u0041\"{w1}:{w2}{}", unknown(rng, depth - 1)))
            .collect();
        format!("{{{w1}{}{w2}}}", fields.join(","))
    }
}

/// A value nested exactly `depth` levels (past the scanner's 100, or serde_json's 128).
fn deep(depth: usize) -> String {
    format!("{}1e5{}", "[".repeat(depth), "]".repeat(depth))
}

fn text(rng: &mut Rng) -> String {
    let words = 1 + rng.below(60) as usize;
    (0..words)
        .map(|_| rng.pick(STRINGS))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Extra fields of a message: unknown keys with values a JSON value cannot keep as written.
fn extras(rng: &mut Rng) -> String {
    let mut out = String::new();
    for i in 0..rng.below(3) {
        let value = match rng.below(40) {
            // Past the scanner's 100 levels (serde_json's pass), and now and then past 128.
            0 => deep(95 + rng.below(30) as usize),
            1 if rng.below(4) == 0 => deep(130),
            _ => {
                let depth = 1 + rng.below(6) as u32;
                unknown(rng, depth)
            }
        };
        out += &format!(",{}\"x_{i}\"{}:{}{value}", ws(rng), ws(rng), ws(rng));
    }
    out
}

fn openai_messages(rng: &mut Rng) -> Vec<String> {
    let mut messages = Vec::new();
    if rng.below(2) == 0 {
        messages.push(format!(
            "{{\"role\":\"system\",\"content\":\"{}\"{}}}",
            text(rng),
            extras(rng)
        ));
    }
    for turn in 0..1 + rng.below(8) {
        messages.push(format!(
            "{{\"role\":{}\"user\",\"content\":{}\"{}\"{}}}",
            ws(rng),
            ws(rng),
            text(rng),
            extras(rng)
        ));
        if rng.below(3) == 0 {
            let id = format!("call_{turn}\\u005f{}", rng.below(100));
            messages.push(format!(
                "{{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{{\"id\":\"{id}\",\
                 \"type\":\"function\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{\\\"n\\\":{}}}\"}}{}}}]}}",
                rng.pick(NUMBERS),
                extras(rng)
            ));
            messages.push(format!(
                "{{\"role\":\"tool\",\"tool_call_id\":\"{id}\",\"content\":\"{}\"{}}}",
                text(rng),
                extras(rng)
            ));
        }
        messages.push(format!(
            "{{\"role\":\"assistant\",\"content\":\"{}\"{}}}",
            text(rng),
            extras(rng)
        ));
    }
    messages.push(format!(
        "{{\"role\":\"user\",\"content\":\"{}\"}}",
        text(rng)
    ));
    messages
}

fn anthropic_messages(rng: &mut Rng) -> Vec<String> {
    let mut messages = Vec::new();
    for _ in 0..1 + rng.below(6) {
        messages.push(format!(
            "{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{}\"{}}}]{}}}",
            text(rng),
            extras(rng),
            extras(rng)
        ));
        messages.push(format!(
            "{{\"role\":\"assistant\",\"content\":\"{}\"{}}}",
            text(rng),
            extras(rng)
        ));
    }
    messages.push(format!(
        "{{\"role\":\"user\",\"content\":\"{}\"}}",
        text(rng)
    ));
    messages
}

fn gemini_messages(rng: &mut Rng) -> Vec<String> {
    let mut messages = Vec::new();
    for _ in 0..1 + rng.below(6) {
        for role in ["user", "model"] {
            messages.push(format!(
                "{{\"role\":\"{role}\",\"parts\":[{{\"text\":\"{}\"{}}}]{}}}",
                text(rng),
                extras(rng),
                extras(rng)
            ));
        }
    }
    messages.push(format!(
        "{{\"role\":\"user\",\"parts\":[{{\"text\":\"{}\"}}]}}",
        text(rng)
    ));
    messages
}

fn responses_messages(rng: &mut Rng) -> Vec<String> {
    let mut items = Vec::new();
    for turn in 0..1 + rng.below(6) {
        items.push(format!(
            "{{\"role\":\"user\",\"content\":\"{}\"{}}}",
            text(rng),
            extras(rng)
        ));
        if rng.below(2) == 0 {
            items.push(format!(
                "{{\"type\":\"function_call\",\"call_id\":\"c{turn}\",\"name\":\"f\",\"arguments\":\"{{}}\"{}}}",
                extras(rng)
            ));
            items.push(format!(
                "{{\"type\":\"function_call_output\",\"call_id\":\"c{turn}\",\"output\":\"{}\"}}",
                text(rng)
            ));
        }
        items.push(format!(
            "{{\"role\":\"assistant\",\"content\":\"{}\"{}}}",
            text(rng),
            extras(rng)
        ));
    }
    items.push(format!(
        "{{\"role\":\"user\",\"content\":\"{}\"}}",
        text(rng)
    ));
    items
}

/// A generated request: a format, its messages, and budget keys.
fn request(rng: &mut Rng) -> String {
    let (format, messages) = match rng.below(4) {
        0 => ("openai", openai_messages(rng)),
        1 => ("anthropic", anthropic_messages(rng)),
        2 => ("gemini", gemini_messages(rng)),
        _ => ("responses", responses_messages(rng)),
    };
    let sep = format!(",{}", ws(rng));
    let mut fields = vec![format!("\"messages\":{}[{}]", ws(rng), messages.join(&sep))];
    if format != "openai" || rng.below(2) == 0 {
        fields.push(format!("\"format\":\"{format}\""));
    }
    match rng.below(4) {
        0 => fields.push(format!("\"max_bytes\":{}", 600 + rng.below(8000))),
        1 => fields.push(format!(
            "\"context_tokens\":{},\"max_output_tokens\":{}",
            1500 + rng.below(3000),
            rng.below(500)
        )),
        2 => fields.push(format!(
            "\"max_bytes\":{},\"model\":\"gpt-4o\"",
            800 + rng.below(6000)
        )),
        _ => {}
    }
    if rng.below(4) == 0 {
        fields.push(format!("\"max_messages\":{}", 2 + rng.below(10)));
    }
    if rng.below(5) == 0 {
        fields.push(format!("\"memory\":\"{}\"", text(rng)));
    }
    format!("{{{}{}{}}}", ws(rng), fields.join(&sep), ws(rng))
}

#[test]
fn generated_requests_answer_as_the_c_abi() {
    let scratch = Scratch::new("generated");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let count = 1_000;
    let mut compared = 0;
    let mut lines = Vec::new();
    let mut expected_lines = Vec::new();
    let mut outcomes = std::collections::BTreeMap::new();
    for n in 0..count {
        let request = request(&mut rng);
        // Every request through --jsonl below (one process); every other one also as a file
        // (a process each, with its keys as flags too).
        if n % 2 == 0 {
            compared += check_trim(
                &request,
                &scratch,
                n,
                &format!("generated request {n}: {request}"),
            );
        }
        let line = one_line(&request);
        let expected = through_c(ankita_trim_n, &line);
        let outcome = if expected.starts_with("{\"ok\":true") {
            "ok".to_string()
        } else {
            let v: serde_json::Value = serde_json::from_str(&expected).unwrap();
            v["error"]["code"].as_str().unwrap().to_string()
        };
        *outcomes.entry(outcome).or_insert(0) += 1;
        expected_lines.push(expected);
        lines.push(line);
    }
    let answers = cli_jsonl(&scratch, &lines, &[]);
    assert_eq!(answers.len(), count);
    for (n, (answer, expected)) in answers.iter().zip(&expected_lines).enumerate() {
        assert_eq!(answer, expected, "ankita trim --jsonl, line {}", n + 1);
    }
    compared += count;
    // The requests are varied: most are trimmed, some fail (deep nesting past serde_json's
    // limit, budgets too small), and every one compared at least once, half of them twice.
    assert!(
        outcomes.get("ok").copied().unwrap_or(0) > count / 2,
        "{outcomes:?}"
    );
    assert!(outcomes.len() > 1, "{outcomes:?}");
    assert!(compared >= count + count / 2, "{compared}");
}

#[test]
fn flags_in_batch_mode_fill_in_as_the_request_would() {
    // Defaults from the command line against the same keys in each request.
    let scratch = Scratch::new("batch-flags");
    let mut rng = Rng(7);
    let mut lines = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..100 {
        let messages = one_line(&openai_messages(&mut rng).join(","));
        let body = format!("\"messages\":[{messages}]");
        lines.push(format!("{{{body}}}"));
        expected.push(through_c(
            ankita_trim_n,
            &format!("{{{body},\"max_bytes\":20000,\"model\":\"gpt-4o\"}}"),
        ));
        lines.push(format!("[{messages}]"));
        let wrapped = through_c(
            ankita_trim_n,
            &format!("{{{body},\"max_bytes\":20000,\"model\":\"gpt-4o\"}}"),
        );
        // A bare array is read as {"messages": ARRAY}; its JSON errors are placed in the
        // caller's own line.
        expected.push(if wrapped.contains("\"invalid_json\"") {
            through_c(ankita_trim_n, &format!("[{messages}]"))
        } else {
            wrapped
        });
        lines.push(format!("{{{body},\"max_bytes\":6000}}"));
        expected.push(through_c(
            ankita_trim_n,
            &format!("{{{body},\"max_bytes\":6000,\"model\":\"gpt-4o\"}}"),
        ));
    }
    let flags = [
        "--max-bytes=20000".to_string(),
        "--model=gpt-4o".to_string(),
    ];
    assert_eq!(cli_jsonl(&scratch, &lines, &flags), expected);
}

//! What the `ankita` binary reads: `count` given trim's own answer (its messages, and its system
//! where the format has one) in every wire format, `count --tools`, and input errors — files that
//! cannot be read, binary files — answered with the error JSON on stdout and exit code 3.

use ankita::api::{count_json, trim_json};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], stdin: &[u8]) -> Run {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_ankita"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let run = Run {
        code: output.status.code().expect("exited, not killed"),
        stdout: String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
    run
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-inputs-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, file: &str, bytes: &[u8]) -> String {
    let path = dir.join(file);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text.trim_end()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A history in each wire format, with a system prompt outside the messages where the format
/// has one, long enough that a small budget drops some of it.
fn requests() -> Vec<(&'static str, Value)> {
    let turns = 12;
    let text = |i: usize| format!("turn {i}: {}", "words and more words ".repeat(8));
    let openai: Vec<Value> = std::iter::once(json!({"role": "system", "content": "Be brief."}))
        .chain((0..turns).map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            json!({"role": role, "content": text(i)})
        }))
        .collect();
    let chat = |i: usize| {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        json!({"role": role, "content": text(i)})
    };
    let anthropic: Vec<Value> = (0..=turns)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            json!({"role": role, "content": [{"type": "text", "text": text(i)}]})
        })
        .collect();
    let gemini: Vec<Value> = (0..=turns)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "model" };
            json!({"role": role, "parts": [{"text": text(i)}]})
        })
        .collect();
    vec![
        ("openai", json!({"messages": openai, "max_bytes": 2000})),
        (
            "anthropic",
            json!({"format": "anthropic", "system": "Be brief.", "messages": anthropic, "max_bytes": 2000}),
        ),
        (
            "responses",
            json!({"format": "responses", "system": "Be brief.",
                   "messages": (0..=turns).map(chat).collect::<Vec<_>>(), "max_bytes": 2000}),
        ),
        (
            "gemini",
            json!({"format": "gemini", "system": "Be brief.", "messages": gemini, "max_bytes": 2000}),
        ),
    ]
}

#[test]
fn count_reads_trims_own_answer_in_every_format() {
    let dir = scratch("count-answer");
    for (format, request) in requests() {
        let answer = parse(&trim_json(&request.to_string()));
        assert_eq!(answer["ok"], true, "{format}: {answer}");
        let kept = answer["messages"].as_array().unwrap().len();
        assert!(
            kept < request["messages"].as_array().unwrap().len(),
            "{format}: trimmed"
        );
        let file = write(
            &dir,
            &format!("{format}.json"),
            answer.to_string().as_bytes(),
        );
        // The answer names its format in its report: no --format needed.
        let counted = run(&["count", &file], b"");
        assert_eq!(
            counted.code, 0,
            "{format}: {}{}",
            counted.stdout, counted.stderr
        );
        let counted = parse(&counted.stdout);
        // What the contract counts for the answer's messages and system, in its format.
        let mut same = json!({"messages": answer["messages"], "format": format});
        if let Some(system) = answer.get("system") {
            same["system"] = system.clone();
        }
        assert_eq!(counted, parse(&count_json(&same.to_string())), "{format}");
        assert_eq!(
            counted["messages"].as_array().unwrap().len(),
            kept,
            "{format}"
        );
        // And what the trim said the kept history costs.
        assert_eq!(counted["total"], answer["report"]["cost_bytes"], "{format}");
        assert_eq!(
            counted.get("system").is_some(),
            format != "openai",
            "{format}: the system prompt outside the messages is counted"
        );
        // In tokens too, and from stdin.
        let tokens = run(
            &["count", "--model", "gpt-4o"],
            answer.to_string().as_bytes(),
        );
        assert_eq!(tokens.code, 0, "{format}: {}", tokens.stdout);
        let mut in_tokens = same.clone();
        in_tokens["model"] = "gpt-4o".into();
        assert_eq!(
            parse(&tokens.stdout),
            parse(&count_json(&in_tokens.to_string())),
            "{format}"
        );
    }
    // A failed trim's answer is not a history: its error key is named.
    let failed = write(
        &dir,
        "failed.json",
        br#"{"ok":false,"error":{"code":"x","message":"y"}}"#,
    );
    let r = run(&["count", &failed], b"");
    assert_eq!(r.code, 3);
    assert_eq!(
        parse(&r.stdout)["error"]["code"],
        "invalid_request",
        "{}",
        r.stdout
    );
}

#[test]
fn count_takes_tools() {
    let dir = scratch("count-tools");
    let tools = r#"[{"type": "function", "function": {"name": "read_file", "description": "Read a file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]"#;
    let tools_file = write(&dir, "tools.json", tools.as_bytes());
    let compact = serde_json::to_string(&parse(tools)).unwrap();
    for (format, request) in requests() {
        let messages = json!({"messages": request["messages"], "format": format});
        let request_file = write(
            &dir,
            &format!("{format}.json"),
            messages.to_string().as_bytes(),
        );
        let without = parse(&run(&["count", &request_file], b"").stdout);
        let with = run(&["count", &request_file, "--tools", &tools_file], b"");
        assert_eq!(with.code, 0, "{format}: {}", with.stdout);
        let with = parse(&with.stdout);
        assert_eq!(
            with["tools"],
            compact.len(),
            "{format}: the schemas' compact bytes"
        );
        assert_eq!(
            with["total"].as_u64().unwrap(),
            without["total"].as_u64().unwrap() + compact.len() as u64,
            "{format}"
        );
        assert_eq!(with["messages"], without["messages"], "{format}");
        // In tokens: the contract's count of the same request with its tools.
        let mut keyed = messages.clone();
        keyed["tools"] = parse(tools);
        keyed["model"] = "gpt-4o".into();
        let tokens = parse(
            &run(
                &[
                    "count",
                    &request_file,
                    "--tools",
                    &tools_file,
                    "--model",
                    "gpt-4o",
                ],
                b"",
            )
            .stdout,
        );
        assert_eq!(tokens, parse(&count_json(&keyed.to_string())), "{format}");
        assert!(tokens["tools"].as_u64().unwrap() > 10, "{format}: {tokens}");
    }
}

#[test]
fn input_errors_are_error_json_on_stdout_with_exit_code_3() {
    let dir = scratch("input-errors");
    let binary = write(
        &dir,
        "screenshot.png",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe\0\x01",
    );
    let latin1 = write(
        &dir,
        "latin1.json",
        b"{\"messages\":[{\"role\":\"user\",\"content\":\"caf\xe9\"}]}",
    );
    let missing = dir.join("missing.json").to_str().unwrap().to_owned();
    let good = write(
        &dir,
        "good.json",
        br#"{"messages":[{"role":"user","content":"hi"}]}"#,
    );
    let cases: Vec<(Vec<&str>, &[u8], &str, &str)> = vec![
        (vec!["trim", &binary], b"", "invalid_json", "not UTF-8"),
        (
            vec!["trim", &latin1, "--max-bytes", "900"],
            b"",
            "invalid_json",
            "offset 42",
        ),
        (
            vec!["trim", &missing],
            b"",
            "invalid_argument",
            "cannot be read",
        ),
        (
            vec!["trim"],
            b"\xff\xfe{}",
            "invalid_json",
            "stdin: not UTF-8",
        ),
        (vec!["count", &binary], b"", "invalid_json", "not UTF-8"),
        (
            vec!["count", &missing],
            b"",
            "invalid_argument",
            "missing.json",
        ),
        (vec!["sanitize", &binary], b"", "invalid_json", "not UTF-8"),
        (
            vec!["sanitize", &missing, "--format", "gemini"],
            b"",
            "invalid_argument",
            "missing.json",
        ),
        (
            vec!["trim", &good, "--tools", &binary],
            b"",
            "invalid_json",
            "screenshot.png",
        ),
        (
            vec!["trim", &good, "--memory", &binary],
            b"",
            "invalid_json",
            "screenshot.png",
        ),
        (
            vec!["count", &good, "--tools", &missing],
            b"",
            "invalid_argument",
            "missing.json",
        ),
        (
            vec!["trim", &good, "--image-sizes", &latin1],
            b"",
            "invalid_json",
            "latin1.json",
        ),
        (
            vec!["trim", &good, "--tools", &good],
            b"",
            "invalid_request",
            "tools",
        ),
    ];
    for (args, stdin, code, needle) in cases {
        let r = run(&args, stdin);
        assert_eq!(r.code, 3, "{args:?}: {}{}", r.stdout, r.stderr);
        let answer = parse(&r.stdout);
        assert_eq!(answer["ok"], false, "{args:?}");
        assert_eq!(answer["error"]["code"], code, "{args:?}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(needle), "{args:?}: {message}");
        assert!(
            r.stderr.contains(code),
            "{args:?}: stderr says it too: {}",
            r.stderr
        );
    }
    // A tools file that is not JSON names itself, with the position of the error.
    let broken = write(&dir, "broken.json", b"[{\"type\": ]");
    let r = run(&["trim", &good, "--tools", &broken], b"");
    assert_eq!(r.code, 3);
    let message = parse(&r.stdout)["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.starts_with(&format!("{broken}: invalid JSON: ")) && message.contains("column 11"),
        "{message}"
    );
}

#[test]
fn numbers_past_f64_pass_through_unknown_fields_in_every_format() {
    let dir = scratch("wide-numbers");
    let long = "9".repeat(400);
    let requests = [
        (
            "openai",
            format!(
                r#"{{"messages":[{{"role":"user","content":"hi","x_big":1E400,"x_long":{long}}}]}}"#
            ),
        ),
        (
            "anthropic",
            format!(
                r#"{{"format":"anthropic","messages":[{{"role":"user","content":[{{"type":"text","text":"hi","x_big":1E400}}],"x_long":{long}}}]}}"#
            ),
        ),
        (
            "responses",
            format!(
                r#"{{"format":"responses","messages":[{{"role":"user","content":"hi","x_big":1E400,"x_long":{long}}}]}}"#
            ),
        ),
        (
            "gemini",
            format!(
                r#"{{"format":"gemini","messages":[{{"role":"user","parts":[{{"text":"hi","x_big":1E400}}],"x_long":{long}}}]}}"#
            ),
        ),
    ];
    for (format, request) in requests {
        let file = write(&dir, &format!("{format}.json"), request.as_bytes());
        let r = run(&["trim", &file, "--max-bytes", "4000"], b"");
        assert_eq!(r.code, 0, "{format}: {}", r.stdout);
        assert!(
            r.stdout.contains("\"x_big\":1E400"),
            "{format}: {}",
            r.stdout
        );
        assert!(r.stdout.contains(&format!("\"x_long\":{long}")), "{format}");
        // Priced as written.
        let counted = run(&["count", &file], b"");
        assert_eq!(counted.code, 0, "{format}: {}", counted.stdout);
        assert_eq!(counted.stdout.trim_end(), count_json(&request), "{format}");
        let deep = format!("{}1E400{}", "[".repeat(110), "]".repeat(110));
        let nested = request.replacen("1E400", &deep, 1);
        let file = write(&dir, &format!("{format}-deep.json"), nested.as_bytes());
        let r = run(&["trim", &file], b"");
        assert_eq!(
            r.code, 0,
            "{format}: past the scanner's depth: {}",
            r.stdout
        );
        assert!(r.stdout.contains(&deep), "{format}");
    }
}

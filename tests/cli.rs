//! The `ankita` binary driven as a user drives it: help, flag forms, odd arguments, every request
//! flag against the JSON contract, and batch mode against per-request `trim_json`.

use ankita::api::trim_json;
use serde_json::{json, Map, Value};
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_with_stdin<I, S>(args: I, stdin: &[u8]) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
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
        // The binary may exit before reading (usage errors): a broken pipe is fine.
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let run = Run {
        code: output.status.code().expect("exited, not killed"),
        stdout: String::from_utf8(output.stdout).expect("UTF-8 stdout"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "the binary panicked: {}",
        run.stderr
    );
    run
}

fn run<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    run_with_stdin(args, b"")
}

/// A scratch directory for this test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn case_request(name: &str) -> Map<String, Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/cases/{name}.json"));
    let case: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    match &case["request"] {
        Value::Object(request) => request.clone(),
        other => panic!("{name}: request is not an object: {other}"),
    }
}

fn write(dir: &std::path::Path, file: &str, text: &str) -> String {
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text.trim_end()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn trim(request: &Map<String, Value>) -> Value {
    parse(&trim_json(&Value::Object(request.clone()).to_string()))
}

#[test]
fn help_for_every_command_exits_0_on_stdout() {
    let cases: &[(&[&str], &str)] = &[
        (&["--help"], "ankita trim"),
        (&["-h"], "ankita trim"),
        (&["help"], "ankita probe"),
        (&["trim", "--help"], "--max-output-tokens"),
        (&["trim", "-h"], "--jsonl"),
        (&["help", "trim"], "--overhead-bytes"),
        (&["sanitize", "--help"], "ankita sanitize"),
        (&["count", "--help"], "--token-factor"),
        (&["help", "count"], "--tokenizer"),
        (&["sanitize", "-h"], "--format"),
        (&["probe", "--help"], "--detail"),
        (&["probe", "-h"], "--bytes-per-token"),
        // Help wins over the rest of the line, even a missing file.
        (
            &["trim", "missing.json", "--max-bytes", "9", "-h"],
            "--summary",
        ),
    ];
    for (args, needle) in cases {
        let r = run(*args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(
            r.stdout.contains(needle),
            "{args:?}: no {needle} in\n{}",
            r.stdout
        );
        assert!(r.stderr.is_empty(), "{args:?}: {}", r.stderr);
    }
    let trim_help = run(["trim", "--help"]).stdout;
    for flag in [
        "--context-tokens",
        "--max-output-tokens",
        "--max-bytes",
        "--overhead-bytes",
        "--bytes-per-token",
        "--max-messages",
        "--tools",
        "--memory",
        "--system",
        "--image-sizes",
        "--file-sizes",
        "--profile",
        "--image-profile",
        "--model",
        "--on-image-overflow",
        "--format",
        "--summary",
        "--jsonl",
        "--threads",
    ] {
        assert!(trim_help.contains(flag), "trim --help lacks {flag}");
    }
}

#[test]
fn equals_and_space_forms_give_the_same_answer() {
    let dir = scratch("forms");
    let request = write(
        &dir,
        "request.json",
        &Value::Object(case_request("max_messages")).to_string(),
    );
    let spaced = run([
        "trim",
        &request,
        "--max-bytes",
        "600",
        "--max-messages",
        "3",
        "--profile",
        "openai",
    ]);
    let joined = run([
        "trim",
        &request,
        "--max-bytes=600",
        "--max-messages=3",
        "--profile=openai",
    ]);
    assert_eq!(spaced.code, 0, "{}", spaced.stderr);
    assert_eq!(spaced.stdout, joined.stdout);
    let answer = parse(&spaced.stdout);
    assert_eq!(answer["report"]["budget_bytes"], 600);
    assert_eq!(answer["report"]["output_messages"], 3);
}

#[test]
fn unknown_flags_exit_2_naming_the_flag() {
    for args in [
        &["trim", "--max-bytez", "5"][..],
        &["trim", "--max-bytez=5"][..],
        &["sanitize", "--max-bytes", "5"][..],
        &["probe", "--summary", "x.png"][..],
        &["trim", "-q"][..],
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "{args:?}");
        let flag = args[1].split('=').next().unwrap();
        assert!(
            r.stderr.contains(&format!("unknown option {flag}")),
            "{args:?}: {}",
            r.stderr
        );
        assert!(r.stdout.is_empty());
    }
    // Flags with a missing, extra or malformed value name themselves too.
    for (args, needle) in [
        (&["trim", "--max-bytes"][..], "--max-bytes"),
        (&["trim", "--summary=yes"][..], "--summary"),
        (&["trim", "--max-messages", "-3"][..], "--max-messages"),
        (&["trim", "--context-tokens=lots"][..], "--context-tokens"),
        (&["trim", "--jsonl", "--threads", "0"][..], "--threads"),
        (&["frob"][..], "frob"),
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "{args:?}");
        assert!(r.stderr.contains(needle), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn non_utf8_arguments_are_errors_not_panics() {
    let bad = OsStr::from_bytes(b"\xff\xfe.json").to_owned();
    let cases: Vec<(Vec<OsString>, i32)> = vec![
        // A file name need not be UTF-8: it is looked up, and missing.
        (vec!["trim".into(), bad.clone()], 3),
        (vec!["sanitize".into(), bad.clone()], 3),
        (vec!["probe".into(), bad.clone()], 3),
        (vec!["trim".into(), "--tools".into(), bad.clone()], 3),
        // A value that must be text is a usage error naming its flag.
        (vec!["trim".into(), "--model".into(), bad.clone()], 2),
        (vec!["trim".into(), "--max-bytes".into(), bad.clone()], 2),
        (vec![bad.clone()], 2),
        (vec!["trim".into(), OsStr::from_bytes(b"--\xff").into()], 2),
    ];
    for (args, code) in cases {
        let r = run(&args);
        assert_eq!(r.code, code, "{args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with("ankita: "), "{args:?}: {}", r.stderr);
    }
    let r = run(["trim".into(), "--model".into(), bad]);
    assert!(r.stderr.contains("--model"), "{}", r.stderr);
}

/// One flag, the case it is tried on, and the request key and value it must set.
struct FlagCase {
    case: &'static str,
    args: Vec<String>,
    key: &'static str,
    value: Value,
    /// Keys removed from the case's request before the flag is applied (the flag is then the
    /// only source of the key).
    without: &'static [&'static str],
}

#[test]
fn every_flag_reaches_the_request() {
    let dir = scratch("flags");
    let tools = json!([{"type": "function", "function": {"name": "lookup", "parameters": {}}}]);
    let tools_file = write(&dir, "tools.json", &tools.to_string());
    let memory_file = write(&dir, "memory.txt", "The user prefers metric units.\n");
    let system_file = write(&dir, "system.txt", "You are terse. Answer in one line.");
    let remote = "https://example.com/screens/settings.png";
    let sizes = json!({remote: [4000, 3000]});
    let sizes_file = write(&dir, "sizes.json", &sizes.to_string());
    let flag = |case, args: &[&str], key, value, without| FlagCase {
        case,
        args: args.iter().map(|s| s.to_string()).collect(),
        key,
        value,
        without,
    };
    let cases = vec![
        flag(
            "agent_side_budget",
            &["--context-tokens", "3000"],
            "context_tokens",
            json!(3000),
            &[],
        ),
        flag(
            "agent_side_budget",
            &["--max-output-tokens=100"],
            "max_output_tokens",
            json!(100),
            &[],
        ),
        flag(
            "agent_side_budget",
            &["--overhead-bytes", "10"],
            "overhead_bytes",
            json!(10),
            &[],
        ),
        flag(
            "agent_side_budget",
            &["--bytes-per-token=3"],
            "bytes_per_token",
            json!(3),
            &[],
        ),
        flag(
            "agent_side_budget",
            &["--tools", &tools_file],
            "tools",
            tools.clone(),
            &[],
        ),
        flag(
            "agent_side_budget",
            &["--memory", &memory_file],
            "memory",
            json!("The user prefers metric units.\n"),
            &[],
        ),
        flag(
            "image_priced_by_pixels",
            &["--max-bytes", "3000"],
            "max_bytes",
            json!(3000),
            &[],
        ),
        flag(
            "max_messages",
            &["--max-messages", "3"],
            "max_messages",
            json!(3),
            &[],
        ),
        flag(
            "image_priced_by_pixels",
            &["--profile", "gemini"],
            "image_profile",
            json!("gemini"),
            &[],
        ),
        flag(
            "image_priced_by_pixels",
            &["--image-profile=anthropic"],
            "image_profile",
            json!("anthropic"),
            &[],
        ),
        flag(
            "image_priced_by_pixels",
            &["--model", "gpt-4o-mini"],
            "model",
            json!("gpt-4o-mini"),
            &[],
        ),
        flag(
            "tokenizer_file_missing_names_the_path",
            &["--tokenizer-file", "/no/such/model-dir"],
            "tokenizer",
            json!({"file": "/no/such/model-dir"}),
            &["tokenizer"],
        ),
        flag(
            "unknown_model_answers_with_a_warning",
            &["--strict-model"],
            "strict_model",
            json!(true),
            &[],
        ),
        flag(
            "remote_image_priced_as_typical",
            &["--image-sizes", &sizes_file],
            "image_sizes",
            sizes.clone(),
            &[],
        ),
        flag(
            "shed_images_oldest_first_placeholder",
            &["--on-image-overflow", "drop"],
            "on_image_overflow",
            json!("drop"),
            &[],
        ),
        flag(
            "agent_side_budget",
            &["--tokenizer", "o200k_base"],
            "tokenizer",
            json!("o200k_base"),
            &[],
        ),
        flag(
            "image_priced_by_pixels",
            &["--model", "gpt-4o", "--token-factor=1.5"],
            "token_factor",
            json!(1.5),
            &[],
        ),
        flag(
            "tokens_cl100k_tools_and_memory",
            &["--overhead-tokens", "10"],
            "overhead_tokens",
            json!(10),
            &[],
        ),
        flag(
            "clear_tool_results_is_off_by_default",
            &["--clear-tool-results", "true"],
            "clear_tool_results",
            json!(true),
            &[],
        ),
        flag(
            "clear_tool_results_is_off_by_default",
            &["--clear-tool-results={\"keep\": 2}"],
            "clear_tool_results",
            json!({"keep": 2}),
            &[],
        ),
        flag(
            "anthropic_repair",
            &["--format", "anthropic"],
            "format",
            json!("anthropic"),
            &["format"],
        ),
        flag(
            "responses_repair",
            &["--format", "responses"],
            "format",
            json!("responses"),
            &["format"],
        ),
        flag(
            "responses_tool_loop_reasoning_dropped_whole",
            &["--system", &system_file],
            "system",
            json!("You are terse. Answer in one line."),
            &[],
        ),
        flag(
            "anthropic_tool_exchange_kept",
            &["--system", &system_file],
            "system",
            json!("You are terse. Answer in one line."),
            &[],
        ),
    ];
    for c in cases {
        let mut request = case_request(c.case);
        for key in c.without {
            request.shift_remove(*key);
        }
        let path = write(
            &dir,
            &format!("{}.json", c.case),
            &Value::Object(request.clone()).to_string(),
        );
        let mut args = vec!["trim".to_owned(), path];
        args.extend(c.args.iter().cloned());
        let r = run(&args);
        let mut expected_request = request.clone();
        expected_request.insert(c.key.into(), c.value.clone());
        let expected = trim(&expected_request);
        assert_eq!(parse(&r.stdout), expected, "{:?}", c.args);
        // The flag changed the answer: the comparison above is not vacuous.
        assert_ne!(
            expected,
            trim(&request),
            "{:?} changes nothing on {}",
            c.args,
            c.case
        );
    }
}

#[test]
fn flags_replace_a_files_keys_and_profile_and_model_are_one_choice() {
    let dir = scratch("replace");
    // The case names a model; --profile replaces it instead of conflicting with it.
    let request = case_request("model_selects_pricing");
    let path = write(
        &dir,
        "request.json",
        &Value::Object(request.clone()).to_string(),
    );
    let r = run(["trim", &path, "--profile", "gemini"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut expected = request.clone();
    expected.shift_remove("model");
    expected.insert("image_profile".into(), "gemini".into());
    assert_eq!(parse(&r.stdout), trim(&expected));
}

#[test]
fn exit_codes_and_error_json() {
    let dir = scratch("exit");
    let too_small = write(
        &dir,
        "small.json",
        &Value::Object(case_request("history_budget_too_small")).to_string(),
    );
    let r = run(["trim", &too_small]);
    assert_eq!(r.code, 1);
    assert_eq!(
        parse(&r.stdout)["error"]["code"],
        "history_budget_too_small"
    );
    assert!(r.stderr.contains("history_budget_too_small"));

    let unknown = write(
        &dir,
        "unknown.json",
        &Value::Object(case_request("unknown_request_key")).to_string(),
    );
    let r = run(["trim", &unknown]);
    assert_eq!(r.code, 3);
    assert_eq!(parse(&r.stdout)["error"]["code"], "invalid_request");

    let r = run_with_stdin(["trim", "-"], b"{not json");
    assert_eq!(r.code, 3);
    assert_eq!(parse(&r.stdout)["error"]["code"], "invalid_json");

    let bad_tools = write(&dir, "tools.json", "[{");
    let r = run_with_stdin(["trim", "--tools", &bad_tools], b"[]");
    assert_eq!(r.code, 3);
    assert!(r.stderr.contains("tools.json"), "{}", r.stderr);

    // A bare messages array on stdin.
    let r = run_with_stdin(
        ["trim", "--max-bytes", "4096"],
        br#"[{"role": "user", "content": "hi"}]"#,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        parse(&r.stdout)["messages"],
        json!([{"role": "user", "content": "hi"}])
    );
}

#[test]
fn summary_lists_long_index_runs_as_ranges() {
    let dir = scratch("summary");
    let messages: Vec<Value> = (0..300)
        .map(|i| json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": format!("turn {i}")}))
        .collect();
    let path = write(
        &dir,
        "long.json",
        &json!({"messages": messages}).to_string(),
    );
    let r = run(["trim", &path, "--max-messages", "10", "--summary"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let dropped = parse(&r.stdout)["report"]["dropped_messages"].clone();
    let dropped = dropped.as_array().unwrap();
    assert!(dropped.len() > 200);
    let line = r.stderr.lines().find(|l| l.contains("dropped")).unwrap();
    assert_eq!(
        line,
        format!(
            "  dropped {} messages: {}–{}",
            dropped.len(),
            dropped[0],
            dropped[dropped.len() - 1]
        )
    );
}

#[test]
fn summary_says_which_limit_bound_the_answer() {
    let dir = scratch("summary-limit");
    let messages: Vec<Value> = (0..302)
        .map(|i| json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": format!("turn {i}")}))
        .collect();
    let path = write(
        &dir,
        "long.json",
        &json!({"messages": messages}).to_string(),
    );
    // Without a budget the count is the limit (40 by default); with one, the budget alone
    // decides: all 302 short messages fit a 128k window.
    let r = run(["trim", &path, "--summary"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(parse(&r.stdout)["report"]["limited_by"], "max_messages");
    assert!(
        r.stderr
            .starts_with("ankita: kept 40 of 302 messages (limited by max_messages);"),
        "{}",
        r.stderr
    );
    let r = run(["trim", &path, "--context-tokens", "128000", "--summary"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(parse(&r.stdout)["report"]["limited_by"], Value::Null);
    assert!(
        r.stderr.starts_with("ankita: kept 302 of 302 messages;"),
        "{}",
        r.stderr
    );
    let r = run([
        "trim",
        &path,
        "--model",
        "gpt-4o",
        "--max-messages",
        "40",
        "--summary",
    ]);
    assert_eq!(parse(&r.stdout)["report"]["limited_by"], "max_messages");
    let r = run(["trim", &path, "--max-messages", "none", "--summary"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(parse(&r.stdout)["report"]["limited_by"], Value::Null);
    assert!(
        r.stderr.starts_with("ankita: kept 302 of 302 messages;"),
        "{}",
        r.stderr
    );
    let r = run(["trim", &path, "--max-bytes", "600", "--summary"]);
    assert!(r.stderr.contains("(limited by the budget)"), "{}", r.stderr);
}

#[test]
fn probe_flags_reach_the_pricing() {
    let png = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/screenshots");
    let png = std::fs::read_dir(png)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "png"))
        .unwrap();
    let png = png.to_str().unwrap();
    let r = run([
        "probe",
        "--json",
        "--profile=openai",
        "--detail",
        "low",
        "--bytes-per-token",
        "3",
        png,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = parse(&r.stdout);
    let (w, h) = (
        line["width"].as_u64().unwrap(),
        line["height"].as_u64().unwrap(),
    );
    let expected = ankita::api::estimate_image_tokens(
        w as u32,
        h as u32,
        &json!({"image_profile": "openai", "detail": "low", "bytes_per_token": 3}),
    )
    .unwrap();
    assert_eq!(line["tokens"], expected["tokens"]);
    assert_eq!(line["budget_bytes"], expected["budget_bytes"]);
    assert_eq!(line["tokens"], 85, "openai at detail low is the base price");

    let r = run(["probe", "--profile", "openai", "--model", "gpt-4o", png]);
    assert_eq!(r.code, 3);
    assert_eq!(parse(&r.stdout)["error"]["code"], "invalid_request");
}

/// A few thousand lines: requests of every shared trim case with varied budgets, bare messages
/// arrays, and bad lines of each kind in between.
fn batch_lines() -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    let requests: Vec<Map<String, Value>> = names
        .iter()
        .filter_map(|p| {
            let case: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
            match (&case["function"], &case["request"]) {
                (f, Value::Object(r)) if f == "trim" => Some(r.clone()),
                _ => None,
            }
        })
        .collect();
    let mut lines = Vec::new();
    for i in 0..5000usize {
        let line = match i % 50 {
            7 => b"{\"messages\": [".to_vec(),
            19 => Vec::new(),
            23 => b"{\"messages\": [], \"max_bites\": 5}".to_vec(),
            31 => b"\xff\xfe{}".to_vec(),
            37 => json!([{"role": "user", "content": format!("bare {i}")}])
                .to_string()
                .into_bytes(),
            _ => {
                let mut request = requests[i % requests.len()].clone();
                if i % 3 == 0 && request.contains_key("max_bytes") {
                    request.insert("max_bytes".into(), json!(600 + (i * 37) % 6000));
                }
                if i % 4 == 0 {
                    request.shift_remove("max_messages");
                }
                Value::Object(request).to_string().into_bytes()
            }
        };
        lines.push(line);
    }
    lines
}

/// What the batch must answer for one line, given the default keys of the command line.
fn expected_answer(line: &[u8], defaults: &Map<String, Value>) -> Value {
    let Ok(text) = std::str::from_utf8(line) else {
        return json!("invalid_json");
    };
    if text.is_empty() {
        return json!("invalid_json");
    }
    let mut request = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(r)) => r,
        Ok(Value::Array(m)) => {
            let mut r = Map::new();
            r.insert("messages".into(), Value::Array(m));
            r
        }
        _ => return parse(&trim_json(text)),
    };
    for (k, v) in defaults {
        request.entry(k.clone()).or_insert_with(|| v.clone());
    }
    trim(&request)
}

fn check_batch(args: &[&str], defaults: &Map<String, Value>, lines: &[Vec<u8>]) {
    let mut input = Vec::new();
    for line in lines {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    let r = run_with_stdin(args, &input);
    let answers: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(answers.len(), lines.len(), "one answer per line");
    let (mut ok, mut errors) = (0, 0);
    for (i, (line, answer)) in lines.iter().zip(&answers).enumerate() {
        let got = parse(answer);
        let expected = expected_answer(line, defaults);
        if let Some(code) = expected.as_str() {
            assert_eq!(got["error"]["code"], code, "line {i}");
        } else {
            assert_eq!(got, expected, "line {i}");
        }
        if got["ok"] == true {
            ok += 1;
        } else {
            errors += 1;
        }
    }
    assert!(ok > 3000 && errors > 400, "ok {ok}, errors {errors}");
    let tally = format!("{} lines: {ok} ok, {errors} errors", lines.len());
    assert!(r.stderr.contains(&tally), "no {tally:?} in {}", r.stderr);
    assert_eq!(r.code, 3, "some lines are invalid");
}

#[test]
fn batch_answers_every_line_in_order() {
    let lines = batch_lines();
    check_batch(&["trim", "--jsonl"], &Map::new(), &lines);
    check_batch(
        &["trim", "--jsonl", "-", "--threads", "1"],
        &Map::new(),
        &lines,
    );
}

#[test]
fn batch_flags_are_defaults_that_requests_override() {
    let lines = batch_lines();
    let mut defaults = Map::new();
    defaults.insert("max_messages".into(), json!(3));
    defaults.insert("max_output_tokens".into(), json!(10));
    check_batch(
        &[
            "trim",
            "--jsonl",
            "--threads=3",
            "--max-messages",
            "3",
            "--max-output-tokens=10",
        ],
        &defaults,
        &lines,
    );
}

#[test]
fn batch_from_a_file_with_only_good_lines_exits_0() {
    let dir = scratch("batch-file");
    let request = Value::Object(case_request("max_messages")).to_string();
    let path = write(
        &dir,
        "requests.jsonl",
        &format!("{request}\n{request}\r\n{request}"),
    );
    let expected = trim_json(&request);
    let joined = format!("--jsonl={path}");
    for args in [vec!["trim", "--jsonl", &path], vec!["trim", &joined]] {
        let r = run(&args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.stdout, format!("{expected}\n{expected}\n{expected}\n"));
        assert!(r.stderr.contains("3 lines: 3 ok, 0 errors"), "{}", r.stderr);
    }
    let r = run(["trim", &format!("--jsonl={path}"), &path]);
    assert_eq!(r.code, 2, "one input only: {}", r.stderr);
}

#[test]
fn batch_answers_a_line_before_the_next_one_is_sent() {
    use std::io::BufRead;
    let request = Value::Object(case_request("max_messages")).to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ankita"))
        .args(["trim", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let (answers, received) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut line = String::new();
        while stdout.read_line(&mut line).unwrap_or(0) > 0 {
            answers.send(std::mem::take(&mut line)).unwrap();
        }
    });
    let timeout = std::time::Duration::from_secs(20);
    for _ in 0..3 {
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        let answer = received.recv_timeout(timeout).unwrap_or_else(|_| {
            let _ = child.kill();
            panic!("no answer while the input stays open");
        });
        assert_eq!(answer.trim_end(), trim_json(&request));
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}

#[test]
fn count_answers_as_the_json_contract_and_reads_token_flags() {
    let messages = json!([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "2026-11-30 12:00:07 status installed libfoo:amd64 1.2"},
    ]);
    let dir = scratch("count");
    let file = write(&dir, "history.json", &messages.to_string());
    for (flags, request) in [
        (
            vec!["--model", "gpt-4o"],
            json!({"messages": messages, "model": "gpt-4o"}),
        ),
        (
            vec!["--tokenizer", "cl100k_base", "--token-factor", "1.5"],
            json!({"messages": messages, "tokenizer": "cl100k_base", "token_factor": 1.5}),
        ),
        (vec![], json!({"messages": messages})),
    ] {
        let mut args = vec!["count", file.as_str()];
        args.extend(&flags);
        let out = run(&args);
        assert_eq!(out.code, 0, "{flags:?}: {}", out.stderr);
        let expected = ankita::api::count_json(&request.to_string());
        assert_eq!(parse(&out.stdout), parse(&expected), "{flags:?}");
    }
    let estimate = parse(&run(["count", file.as_str(), "--model", "claude-opus-4-1"]).stdout);
    assert_eq!(
        (&estimate["unit"], &estimate["exact"]),
        (&json!("tokens"), &json!(false))
    );
    let bad = run(["count", file.as_str(), "--tokenizer", "p50k_base"]);
    assert_eq!(bad.code, 3);
    assert_eq!(parse(&bad.stdout)["error"]["path"], "tokenizer");
    let bad = run(["count", file.as_str(), "--token-factor", "x"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("--token-factor"), "{}", bad.stderr);
}

#[test]
fn probe_reads_pdfs_and_audio() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/files");
    let pdf = dir.join("pdf-10-objstm.pdf");
    let mp3 = dir.join("mp3-30s-cbr.mp3");
    let r = run([
        "probe",
        "--json",
        "--model",
        "gemini-2.5-flash",
        pdf.to_str().unwrap(),
        mp3.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        (&lines[0]["kind"], &lines[0]["pages"]),
        (&json!("document"), &json!(10))
    );
    assert_eq!(lines[0]["tokens"], 2580);
    assert_eq!(
        (&lines[1]["format"], &lines[1]["exact"]),
        (&json!("mp3"), &json!(true))
    );
    let seconds = lines[1]["seconds"].as_u64().unwrap();
    assert_eq!(lines[1]["tokens"].as_u64(), Some(32 * seconds));
    // The text line says what was read.
    let r = run(["probe", pdf.to_str().unwrap()]);
    assert!(
        r.stdout.contains("PDF, 10 page(s), first page 612×792 pt"),
        "{}",
        r.stdout
    );
}

/// A file whose structure claims more than its size can hold (fuzz/regressions: a page tree of
/// 10⁹ pages in 209 bytes, an Ogg Opus granule position of −2) is flagged as the trim flags
/// it (`implausible_file`), with the price the trim gives it instead; a real file is not.
#[test]
fn probe_flags_files_claiming_more_than_their_size() {
    use base64::Engine;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let pdf = root.join("fuzz/regressions/probe_pdf/implausible-count-1e9");
    let opus = root.join("fuzz/regressions/probe_audio/implausible-opus-granule-minus-2");
    let real = root.join("tests/fixtures/files/pdf-3-classic.pdf");
    let bytes = std::fs::read(&pdf).unwrap();
    let url = format!(
        "data:application/pdf;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    let paths = [&pdf, &opus, &real].map(|p| p.to_str().unwrap().to_string());
    let mut args = vec!["probe", "--json", "--profile", "gemini"];
    args.extend(paths.iter().map(String::as_str));
    args.push(&url);
    let r = run(args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<Value> = (r.stdout.lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{}", r.stdout);
    let warning = |line: &Value| line["warnings"].as_array().unwrap().clone();
    for (line, claim) in [
        (
            &lines[0],
            "the PDF's page tree states 1000000000 pages, more than a file of 209 bytes",
        ),
        (
            &lines[1],
            "the Ogg Opus header states 384307168202283 s, more than a file of 122 bytes",
        ),
        (
            &lines[3],
            "the PDF's page tree states 1000000000 pages, more than a file of 209 bytes",
        ),
    ] {
        let w = warning(line);
        assert_eq!(w.len(), 1, "{line}");
        assert_eq!(w[0]["code"], "implausible_file", "{line}");
        assert!(
            w[0]["message"].as_str().unwrap().starts_with(claim),
            "{line}"
        );
    }
    assert_eq!(warning(&lines[2]), Vec::<Value>::new(), "{}", lines[2]);
    // The price named is the trim's: an unreadable PDF of 209 bytes, one page, 258 tokens
    // under the gemini profile (as read, the page tree's claim prices at 2.58 × 10¹¹).
    let message = lines[0]["warnings"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("~258 tokens = 1032 budget bytes"),
        "{message}"
    );
    let request = json!({"image_profile": "gemini", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "What is in it?"},
        {"type": "file", "file": {"filename": "claims.pdf", "file_data": url}}]}]});
    let dir = scratch("probe_implausible");
    let trimmed = run(["trim", &write(&dir, "claims.json", &request.to_string())]);
    let answer: Value = serde_json::from_str(&trimmed.stdout).unwrap();
    let trim_warning = answer["report"]["warnings"][0]["message"].as_str().unwrap();
    assert!(trim_warning.ends_with("~258 tokens"), "{trim_warning}");
    // The text line says it under the file's line.
    let r = run(["probe", "--profile", "gemini", &paths[0], &paths[2]]);
    let text: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(text.len(), 3, "{}", r.stdout);
    assert!(
        text[1].starts_with("  implausible_file: the PDF's page tree states 1000000000 pages"),
        "{}",
        r.stdout
    );
    assert!(text[2].contains("PDF, 3 page(s)"), "{}", r.stdout);
}

#[test]
fn summary_lists_dropped_documents() {
    use base64::Engine;
    let dir = scratch("summary_files");
    let pdf = std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/files/pdf-10-objstm.pdf"),
    )
    .unwrap();
    let data = base64::engine::general_purpose::STANDARD.encode(pdf);
    let request = json!({"format": "anthropic", "max_bytes": 1000, "overhead_bytes": 0,
        "image_profile": "gemini", "messages": [{"role": "user", "content": [
            {"type": "text", "text": "Summarise."},
            {"type": "document", "title": "Q3 report",
             "source": {"type": "base64", "media_type": "application/pdf", "data": data}}]}]});
    let path = write(&dir, "pdf.json", &request.to_string());
    let r = run(["trim", &path, "--summary"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "  dropped document messages[0].content[1]: \"Q3 report\" pdf 10 pages, ~2580 tokens"
        ),
        "{}",
        r.stderr
    );
}

/// An invalid-JSON answer gives the line and column in the caller's own file (not in the
/// request a bare array or a flag made of it), and the line on stderr names the file, for every
/// command that reads a request; serde_json's own reading of the file says where the error is.
#[test]
fn invalid_json_names_the_file_and_its_own_line_and_column() {
    let dir = scratch("invalid-json");
    let texts = [
        ("bare.json", "[{\"role\": \"user\", \"content\": \"hi\"},,]"),
        (
            "bare-lines.json",
            "[\n  {\"role\": \"user\",\n   \"content\": \"hi\"} ]]",
        ),
        (
            "object.json",
            "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"},,]}",
        ),
    ];
    for (name, text) in texts {
        let file = write(&dir, name, text);
        let e = serde_json::from_str::<Value>(text).unwrap_err();
        let at = format!("line {} column {}", e.line(), e.column());
        let commands: [&[&str]; 5] = [
            &["trim"],
            &["trim", "--max-bytes", "4096"],
            &["count"],
            &["count", "--model", "gpt-4o"],
            &["sanitize"],
        ];
        for command in commands {
            let mut args: Vec<&str> = command.to_vec();
            args.push(&file);
            let r = run(&args);
            assert_eq!(r.code, 3, "{args:?}: {}", r.stderr);
            let error = &parse(&r.stdout)["error"];
            assert_eq!(error["code"], "invalid_json", "{args:?}");
            let message = error["message"].as_str().unwrap();
            assert!(
                message.ends_with(&at),
                "{args:?}: {message} (serde_json: {at})"
            );
            assert_eq!(
                r.stderr.trim_end(),
                format!("ankita: invalid_json: {file}: {message}"),
                "{args:?}"
            );
        }
    }
    let r = run_with_stdin(["trim", "--max-bytes", "4096"], b"[1,,]");
    assert!(
        r.stderr.starts_with("ankita: invalid_json: stdin: "),
        "{}",
        r.stderr
    );
}

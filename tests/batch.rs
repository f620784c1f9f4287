//! A batch (`ankita_trim_many`, `ankita::batch::trim_many`) answers each request as
//! `ankita_trim_n` answers it, row for row and in order, on one thread and on several: every
//! shared trim case (tests/cases, all four formats), bad rows among them, and each case again
//! with its option keys given as the batch's defaults instead.

use ankita::batch::{defaults_from_json, trim_many};
use ankita::ffi::{ankita_string_free, ankita_trim_many, ankita_trim_n};
use serde_json::{json, Map, Value};
use std::ffi::{c_char, CStr, CString};
use std::path::Path;

/// A library string, read once and released.
///
/// # Safety
/// `ptr` is a string returned by the library, not used again.
unsafe fn take(ptr: *mut c_char) -> String {
    assert!(!ptr.is_null());
    // SAFETY: per the contract above.
    let text = unsafe { CStr::from_ptr(ptr) }.to_str().unwrap().to_string();
    // SAFETY: per the contract above.
    unsafe { ankita_string_free(ptr) };
    text
}

fn trim_n(text: &[u8]) -> String {
    // SAFETY: `text` is `len` readable bytes for the call.
    unsafe { take(ankita_trim_n(text.as_ptr().cast(), text.len())) }
}

/// `ankita_trim_many` over `rows` (`None`: a NULL pointer): its own answer, and each row's.
fn trim_many_c(
    rows: &[Option<&[u8]>],
    defaults: Option<&str>,
    threads: usize,
) -> (Value, Vec<Option<String>>) {
    let ptrs: Vec<*const c_char> = rows
        .iter()
        .map(|r| r.map_or(std::ptr::null(), |r| r.as_ptr().cast()))
        .collect();
    let lens: Vec<usize> = rows.iter().map(|r| r.map_or(0, <[u8]>::len)).collect();
    let defaults = defaults.map(|d| CString::new(d).unwrap());
    let mut answers: Vec<*mut c_char> = vec![std::ptr::NonNull::dangling().as_ptr(); rows.len()];
    // SAFETY: every pointer is valid for its length, `answers` has a slot per row, and every
    // returned string is released once by `take`.
    unsafe {
        let status = take(ankita_trim_many(
            ptrs.as_ptr(),
            lens.as_ptr(),
            rows.len(),
            defaults.as_ref().map_or(std::ptr::null(), |d| d.as_ptr()),
            threads,
            answers.as_mut_ptr(),
        ));
        let answers = answers
            .into_iter()
            .map(|p| (!p.is_null()).then(|| take(p)))
            .collect();
        (serde_json::from_str(&status).unwrap(), answers)
    }
}

/// Every shared trim case's request, as JSON text.
fn trim_cases() -> Vec<(String, Map<String, Value>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let case: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).ok()?;
            if case["function"] != "trim" {
                return None;
            }
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            Some((name, case["request"].as_object()?.clone()))
        })
        .collect()
}

/// What `ankita_trim_n` answers for a row: a bare messages array is `{"messages": ARRAY}`.
fn expected(row: &[u8]) -> String {
    if row.first() == Some(&b'[') {
        trim_n(&[b"{\"messages\":", row, b"}"].concat())
    } else {
        trim_n(row)
    }
}

const BAD_ROWS: &[&[u8]] = &[
    b"",
    b"{\"messages\": [",
    b"\xff\xfe{}",
    b"[1, 2]",
    b"{\"messages\": [], \"max_byte\": 1}",
    b"{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"max_bytes\": 1}",
    b"7",
];

#[test]
fn every_case_and_bad_row_answers_as_trim_n_in_order() {
    let texts: Vec<Vec<u8>> = trim_cases()
        .iter()
        .map(|(_, r)| Value::Object(r.clone()).to_string().into_bytes())
        .chain(BAD_ROWS.iter().map(|r| r.to_vec()))
        .collect();
    assert!(texts.len() > 150, "{} rows", texts.len());
    let mut rows: Vec<Option<&[u8]>> = texts.iter().map(|t| Some(t.as_slice())).collect();
    rows.insert(3, None);
    for threads in [1, 2, 0] {
        let (status, answers) = trim_many_c(&rows, None, threads);
        let failed = answers
            .iter()
            .filter(|a| !a.as_deref().unwrap().starts_with("{\"ok\":true"))
            .count();
        assert_eq!(
            status,
            json!({"ok": true, "requests": rows.len(), "failed": failed})
        );
        assert!(failed > BAD_ROWS.len(), "{failed} failed");
        for (i, (row, answer)) in rows.iter().zip(&answers).enumerate() {
            let answer = answer.as_deref().unwrap();
            match row {
                None => assert_eq!(
                    answer,
                    json!({"ok": false, "error": {"code": "invalid_argument",
                        "message": "requests[3] is NULL"}})
                    .to_string()
                ),
                Some(text) if std::str::from_utf8(text).is_err() => {
                    let v: Value = serde_json::from_str(answer).unwrap();
                    assert_eq!(v["error"]["code"], "invalid_json");
                    let message = v["error"]["message"].as_str().unwrap();
                    assert_eq!(
                        message,
                        format!("requests[{i}] is not valid UTF-8 (invalid byte at offset 0)")
                    );
                }
                Some(text) => assert_eq!(answer, expected(text), "row {i} on {threads} threads"),
            }
        }
        // The Rust entry answers the same.
        let same: Vec<String> = trim_many(&texts, &[], threads)
            .into_iter()
            .map(|a| a.text)
            .collect();
        let mut c_rows: Vec<String> = answers.into_iter().map(Option::unwrap).collect();
        c_rows.remove(3);
        // Only the UTF-8 row's message names its index, which the inserted NULL row shifted.
        for (a, b) in same.iter().zip(&c_rows) {
            if !a.contains("is not valid UTF-8") {
                assert_eq!(a, b);
            }
        }
    }
}

#[test]
fn option_keys_as_defaults_answer_as_the_request_holding_them() {
    let mut compared = 0;
    for (name, request) in trim_cases() {
        let (defaults, bare): (Map<String, Value>, Map<String, Value>) = request
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .partition(|(k, _)| k != "messages");
        if defaults.is_empty()
            || defaults_from_json(&Value::Object(defaults.clone()).to_string()).is_err()
        {
            continue;
        }
        let full = Value::Object(request.clone()).to_string();
        let bare = Value::Object(bare).to_string();
        // A bare messages array reads as {"messages": [...]} and takes the defaults too.
        let array = request["messages"].to_string();
        let rows: Vec<Option<&[u8]>> = vec![Some(bare.as_bytes()), Some(array.as_bytes())];
        let defaults = Value::Object(defaults).to_string();
        let (status, answers) = trim_many_c(&rows, Some(&defaults), 2);
        assert_eq!(status["ok"], true, "{name}");
        let expected = trim_n(full.as_bytes());
        assert_eq!(answers[0].as_deref(), Some(expected.as_str()), "{name}");
        assert_eq!(answers[1].as_deref(), Some(expected.as_str()), "{name}");
        compared += 1;
    }
    assert!(compared > 100, "{compared} cases compared");
}

#[test]
fn a_request_keeps_its_own_keys_over_the_defaults() {
    let own = r#"{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"user","content":"c"}],"max_messages":2,"model":"gpt-4o"}"#;
    let rows = [Some(own.as_bytes())];
    let (_, answers) = trim_many_c(
        &rows,
        Some(r#"{"max_messages": 1, "image_profile": "anthropic", "max_bytes": 100000}"#),
        1,
    );
    let expected = trim_n(own.replace("}]", "}],\"max_bytes\":100000").as_bytes());
    assert_eq!(answers[0].as_deref(), Some(expected.as_str()));
    // The default would have answered otherwise.
    let overridden = own.replace("\"max_messages\":2", "\"max_messages\":1");
    assert_ne!(
        answers[0].as_deref(),
        Some(trim_n(overridden.as_bytes()).as_str())
    );
}

#[test]
fn bad_arguments_fail_the_call_and_leave_no_answers() {
    let row = b"{\"messages\": []}";
    let rows = [Some(&row[..])];
    for (defaults, code, path) in [
        ("{\"max_byte\": 1}", "invalid_request", Some("max_byte")),
        (
            "{\"context_tokens\": \"many\"}",
            "invalid_request",
            Some("context_tokens"),
        ),
        ("{\"messages\": []}", "invalid_request", Some("messages")),
        ("[1]", "invalid_request", None),
        ("{", "invalid_json", None),
    ] {
        let (status, answers) = trim_many_c(&rows, Some(defaults), 2);
        assert_eq!(status["ok"], false, "{defaults}");
        assert_eq!(status["error"]["code"], code, "{defaults}");
        if let Some(path) = path {
            assert_eq!(status["error"]["path"], path, "{defaults}");
        }
        assert_eq!(answers, vec![None], "{defaults}");
    }
    // SAFETY: NULL arrays with a nonzero count are refused before being read.
    let status = unsafe {
        take(ankita_trim_many(
            std::ptr::null(),
            std::ptr::null(),
            2,
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
        ))
    };
    assert!(
        status.contains("\"message\":\"requests is NULL\""),
        "{status}"
    );
    // SAFETY: no requests: nothing is read or written.
    let status = unsafe {
        take(ankita_trim_many(
            std::ptr::null(),
            std::ptr::null(),
            0,
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
        ))
    };
    assert_eq!(status, r#"{"ok":true,"requests":0,"failed":0}"#);
    // NUL-terminated requests (no lengths).
    let texts = [c"{\"messages\": []}", c"{"];
    let ptrs: Vec<*const c_char> = texts.iter().map(|t| t.as_ptr()).collect();
    let mut answers = [std::ptr::null_mut(); 2];
    // SAFETY: NUL-terminated strings, a slot per request, each answer released by `take`.
    unsafe {
        let status = take(ankita_trim_many(
            ptrs.as_ptr(),
            std::ptr::null(),
            2,
            std::ptr::null(),
            2,
            answers.as_mut_ptr(),
        ));
        assert_eq!(status, r#"{"ok":true,"requests":2,"failed":1}"#);
        assert_eq!(take(answers[0]), trim_n(b"{\"messages\": []}"));
        assert_eq!(take(answers[1]), trim_n(b"{"));
    }
}

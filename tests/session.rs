//! Incremental sessions: over random append / truncate / trim sequences, a session's answer is
//! the stateless trim's answer for the same history and options, in every format and in both
//! units; its plan answer rebuilds the same messages from the ones given. Sessions opted out of
//! cache-stable trimming (`trim_to: null`) answer as a stateless trim without it; a default
//! session answers as the stateless trim with `trim_to` 0.75 and the previous answer's cut.

use ankita::api::trim_json;
use ankita::session::TrimSession;
use base64::{engine::general_purpose::STANDARD, Engine};
use proptest::prelude::*;
use serde_json::{json, Value};

fn gif(w: u16, h: u16) -> String {
    let mut bytes = b"GIF89a".to_vec();
    bytes.extend(w.to_le_bytes());
    bytes.extend(h.to_le_bytes());
    bytes.extend([0xF7, 0, 0]);
    // Padding: a long payload, as a screenshot's.
    bytes.extend(std::iter::repeat_n(7u8, 300));
    STANDARD.encode(bytes)
}

fn text(n: usize, seed: u64) -> String {
    let unit = match seed % 3 {
        0 => format!("word{seed} é世 "),
        1 => format!("line {seed}\n\t\"quoted\" "),
        _ => format!("plain{seed} text "),
    };
    unit.repeat(n / unit.len() + 1).chars().take(n).collect()
}

/// One step of a history, in `format`: a few messages (a tool exchange is several).
fn messages(format: &str, kind: u8, size: usize, seed: u64) -> Vec<Value> {
    let t = text(size, seed);
    let id = format!("call_{seed}");
    match (format, kind % 7) {
        ("openai", 0) => vec![json!({"role": "user", "content": t})],
        ("openai", 1) => vec![json!({"role": "user", "content": [
            {"type": "text", "text": t},
            {"type": "image_url", "image_url": {"url": format!("data:image/gif;base64,{}", gif(size as u16 + 1, 700))}}
        ]})],
        ("openai", 2) => vec![json!({"role": "assistant", "content": t})],
        ("openai", 3) => vec![
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": id, "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}}]}),
            json!({"role": "tool", "tool_call_id": id, "content": t}),
        ],
        ("openai", 4) => vec![json!({"role": "tool", "tool_call_id": "orphan", "content": t})],
        ("openai", 5) => vec![json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "read", "arguments": "{}"}}]})],
        ("openai", _) => vec![json!({"role": "user", "content": [
            {"type": "text", "text": format!("Attached file: notes.txt\n{t}")}]})],
        ("anthropic", 0 | 6) => vec![json!({"role": "user", "content": t})],
        ("anthropic", 1) => vec![json!({"role": "user", "content": [
            {"type": "text", "text": t},
            {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": gif(size as u16 + 1, 500)}}
        ]})],
        ("anthropic", 2) => vec![json!({"role": "assistant", "content": t})],
        ("anthropic", 3) => vec![
            json!({"role": "assistant", "content": [{"type": "text", "text": "checking"},
                {"type": "tool_use", "id": id, "name": "read", "input": {"path": "a"}}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": t}]}),
        ],
        ("anthropic", 4) => vec![json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "orphan", "content": t}]})],
        ("anthropic", _) => vec![json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": "read", "input": {}}]})],
        ("gemini", 0 | 6) => vec![json!({"role": "user", "parts": [{"text": t}]})],
        ("gemini", 1) => vec![json!({"role": "user", "parts": [
            {"text": t},
            {"inlineData": {"mimeType": "image/gif", "data": gif(size as u16 + 1, 600)}}
        ]})],
        ("gemini", 2) => vec![json!({"role": "model", "parts": [{"text": t}]})],
        // Calls and responses without ids: matched by order and name across appends.
        ("gemini", 3) => vec![
            json!({"role": "model", "parts": [{"functionCall": {"name": "read", "args": {"path": "a"}}}]}),
            json!({"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {"output": t}}}]}),
        ],
        ("gemini", 4) => vec![json!({"role": "user", "parts": [
            {"functionResponse": {"name": "read", "response": {"output": t}}}]})],
        ("gemini", _) => vec![json!({"role": "model", "parts": [
            {"functionCall": {"name": "read", "args": {}}}]})],
        (_, 0 | 6) => vec![json!({"role": "user", "content": t})],
        (_, 1) => vec![json!({"role": "user", "content": [
            {"type": "input_text", "text": t},
            {"type": "input_image", "image_url": format!("data:image/gif;base64,{}", gif(size as u16 + 1, 900))}
        ]})],
        (_, 2) => vec![json!({"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": t}]})],
        // A step: reasoning (now and then), calls, their outputs.
        (_, 3) if seed % 2 == 1 => vec![
            json!({"type": "reasoning", "id": format!("rs_{seed}"), "summary": []}),
            json!({"type": "function_call", "call_id": id, "name": "read", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": id, "output": t}),
        ],
        (_, 3) => vec![
            json!({"type": "function_call", "call_id": id, "name": "read", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": id, "output": t}),
        ],
        (_, 4) => vec![json!({"type": "function_call_output", "call_id": "orphan", "output": t})],
        (_, _) if seed % 2 == 1 => vec![
            json!({"type": "reasoning", "id": format!("rs_{seed}"), "summary": []}),
            json!({"type": "function_call", "call_id": id, "name": "read", "arguments": "{}"}),
        ],
        (_, _) => {
            vec![json!({"type": "function_call", "call_id": id, "name": "read", "arguments": "{}"})]
        }
    }
}

#[derive(Debug, Clone)]
enum Op {
    Append(Vec<(u8, usize, u64)>, bool),
    Truncate(usize),
    /// Cuts the last few messages (an edit or a regeneration).
    CutLast(usize),
    Trim,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (prop::collection::vec((0..7u8, 0..1500usize, any::<u64>()), 0..4), any::<bool>())
            .prop_map(|(steps, pretty)| Op::Append(steps, pretty)),
        1 => (0..30usize).prop_map(Op::Truncate),
        3 => Just(Op::Trim),
    ]
}

/// The options of a session (a JSON object's fields, without braces) in `format`.
fn options(format: &str, which: u8) -> String {
    let system = match format {
        "anthropic" => r#","system":"You are terse.""#,
        "responses" => r#","system":"Answer in French.""#,
        "gemini" => r#","system":"Be brief.""#,
        _ => "",
    };
    let budget = match which % 4 {
        0 => r#""max_bytes":6000"#,
        1 => r#""max_bytes":20000,"max_messages":12"#,
        2 => r#""context_tokens":3000,"max_output_tokens":200,"model":"gpt-4o","overhead_bytes":0"#,
        _ => r#""context_tokens":5000,"tokenizer":"cl100k_base","max_messages":1000"#,
    };
    // Opted out of cache-stable trimming: the old answers.
    format!(r#""format":"{format}",{budget}{system},"trim_to":null"#)
}

fn run(format: &str, which: u8, ops: &[Op]) -> Result<(), TestCaseError> {
    run_from(format, which, None, ops).map(|_| ())
}

/// [`run`] for a session with the default options (cache-stable): each answer is the stateless
/// trim's with `trim_to` 0.75 and the cut of the previous answer (forgotten when a truncation
/// goes back before it).
fn run_default(format: &str, which: u8, ops: &[Op]) -> Result<(), TestCaseError> {
    let opted_out = options(format, which);
    let options = opted_out.replace(r#","trim_to":null"#, "");
    let mut session = TrimSession::new(&format!("{{{options}}}")).unwrap();
    let mut held: Vec<String> = Vec::new();
    let mut cut: Option<u64> = None;
    let mut ops = ops.to_vec();
    ops.push(Op::Trim);
    for op in &ops {
        match op {
            Op::Append(steps, _) => {
                for &(kind, size, seed) in steps {
                    let added: Vec<String> = messages(format, kind, size, seed)
                        .iter()
                        .map(Value::to_string)
                        .collect();
                    session.append(&format!("[{}]", added.join(","))).unwrap();
                    held.extend(added);
                }
            }
            Op::Truncate(n) | Op::CutLast(n) => {
                let n = match op {
                    Op::CutLast(_) => held.len().saturating_sub(*n),
                    _ => *n,
                };
                session.truncate(n);
                held.truncate(n);
                if cut.is_some_and(|c| (n as u64) < c) {
                    cut = None;
                }
            }
            Op::Trim => {
                let cut_key = cut.map_or("null".to_owned(), |c| c.to_string());
                let request = format!(
                    "{{\"messages\":[{}],{options},\"trim_to\":0.75,\"cut\":{cut_key}}}",
                    held.join(",")
                );
                let stateless = trim_json(&request);
                let answer = match session.trim_answer() {
                    Ok(a) => a.into_string(),
                    Err(e) => e.to_response().to_string(),
                };
                prop_assert_eq!(&answer, &stateless);
                let v: Value = serde_json::from_str(&answer).unwrap();
                if v["ok"] == true {
                    cut = v["report"]["cut"].as_u64();
                }
            }
        }
    }
    Ok(())
}

/// [`run`], the history starting with `first` when given; returns how many trims the session
/// answered from the newest messages only.
fn run_from(
    format: &str,
    which: u8,
    first: Option<Value>,
    ops: &[Op],
) -> Result<usize, TestCaseError> {
    let options = options(format, which);
    let mut session = TrimSession::new(&format!("{{{options}}}")).unwrap();
    let mut held: Vec<String> = Vec::new();
    if let Some(first) = first {
        held.push(first.to_string());
        session.append(&format!("[{}]", held[0])).unwrap();
    }
    let mut ops = ops.to_vec();
    ops.push(Op::Trim);
    for op in &ops {
        match op {
            Op::Append(steps, pretty) => {
                let mut added = Vec::new();
                for &(kind, size, seed) in steps {
                    for m in messages(format, kind, size, seed) {
                        added.push(if *pretty {
                            serde_json::to_string_pretty(&m).unwrap()
                        } else {
                            m.to_string()
                        });
                    }
                }
                let len = session
                    .append(&format!("[ {} ]", added.join(" ,\n")))
                    .unwrap();
                held.extend(added);
                prop_assert_eq!(len, held.len());
            }
            Op::Truncate(n) => {
                let len = session.truncate(*n);
                held.truncate(*n);
                prop_assert_eq!(len, held.len());
            }
            Op::CutLast(k) => {
                let n = held.len().saturating_sub(*k);
                prop_assert_eq!(session.truncate(n), n);
                held.truncate(n);
            }
            Op::Trim => {
                let request = format!("{{\"messages\":[{}],{options}}}", held.join(","));
                let stateless = trim_json(&request);
                let answer = match session.trim_answer() {
                    Ok(a) => a.into_string(),
                    Err(e) => e.to_response().to_string(),
                };
                prop_assert_eq!(&answer, &stateless);
                // The plan answer names the same messages.
                let v: Value = serde_json::from_str(&stateless).unwrap();
                if v["ok"] == true {
                    let plan: Value =
                        serde_json::from_str(&session.plan_answer().unwrap().into_string())
                            .unwrap();
                    let rebuilt: Vec<Value> = plan["plan"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|item| match item.as_u64() {
                            Some(i) => serde_json::from_str(&held[i as usize]).unwrap(),
                            None => item.clone(),
                        })
                        .collect();
                    prop_assert_eq!(&Value::Array(rebuilt), &v["messages"]);
                    prop_assert_eq!(&expand_ranges(&plan["report"]), &v["report"]);
                }
            }
        }
        let messages: Value = serde_json::from_str(session.messages_json()).unwrap();
        prop_assert_eq!(messages.as_array().unwrap().len(), held.len());
    }
    Ok(session.trims_from_newest())
}

/// A plan answer's report as a trim's: `dropped_ranges` (`[start, end)` pairs) listed out as
/// `dropped_messages`.
fn expand_ranges(report: &Value) -> Value {
    let mut report = report.clone();
    let map = report.as_object_mut().unwrap();
    let ranges = map.remove("dropped_ranges").expect("dropped_ranges");
    let listed: Vec<Value> = ranges
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r[0].as_u64().unwrap()..r[1].as_u64().unwrap())
        .map(Value::from)
        .collect();
    map.insert("dropped_messages".into(), Value::Array(listed));
    report
}

/// A long history: many short steps (tool exchanges, orphan replies, unanswered calls,
/// implausible images among them), trimmed often, now and then cut back.
fn long_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (prop::collection::vec((0..7u8, 0..300usize, any::<u64>()), 1..6), Just(false))
            .prop_map(|(steps, pretty)| Op::Append(steps, pretty)),
        1 => (100..400usize).prop_map(Op::Truncate),
        2 => (1..6usize).prop_map(Op::CutLast),
        4 => Just(Op::Trim),
    ]
}

/// A long agent loop: mostly tool exchanges and the model's own messages, a user message now
/// and then.
fn agent_op() -> impl Strategy<Value = Op> {
    let kind = prop_oneof![12 => Just(3u8), 3 => Just(2u8), 1 => Just(5u8), 1 => Just(0u8), 1 => Just(4u8)];
    prop_oneof![
        12 => (prop::collection::vec((kind, 0..300usize, any::<u64>()), 1..4), Just(false))
            .prop_map(|(steps, pretty)| Op::Append(steps, pretty)),
        2 => (1..6usize).prop_map(Op::CutLast),
        4 => Just(Op::Trim),
    ]
}

fn first_message() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        Just(Some(
            json!({"role": "system", "content": "You are a desktop companion."})
        )),
        Just(Some(
            json!({"role": "developer", "content": "Answer briefly."})
        )),
        Just(Some(json!({"role": "system", "content": ""}))),
        Just(Some(
            json!({"role": "user", "content": "What changed since yesterday?"})
        )),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn openai_session_answers_as_stateless_trim(which in 0..4u8, ops in prop::collection::vec(op(), 1..24)) {
        run("openai", which, &ops)?;
    }

    /// Long OpenAI histories, which a session trims from their newest messages when it can
    /// (some 80% of these trims).
    #[test]
    fn long_openai_session_answers_as_stateless_trim(
        which in 0..4u8,
        first in first_message(),
        ops in prop::collection::vec(long_op(), 40..120),
    ) {
        run_from("openai", which, first, &ops)?;
    }

    /// Long agent loops, whose request and anchors lie far back.
    #[test]
    fn long_agent_session_answers_as_stateless_trim(
        which in 0..4u8,
        anthropic in any::<bool>(),
        ops in prop::collection::vec(agent_op(), 60..160),
    ) {
        let format = if anthropic { "anthropic" } else { "openai" };
        let first = json!({"role": "user", "content": "Fix the build."});
        run_from(format, which, Some(first), &ops)?;
    }

    /// Long Gemini histories (responses without ids matched to the content before them).
    #[test]
    fn long_gemini_session_answers_as_stateless_trim(
        which in 0..4u8,
        first in prop_oneof![Just(None), Just(Some(json!({"role": "user", "parts": [{"text": "Hello"}]})))],
        ops in prop::collection::vec(long_op(), 40..120),
    ) {
        run_from("gemini", which, first, &ops)?;
    }

    /// Long Anthropic histories (tool results in user messages, outside system prompt).
    #[test]
    fn long_anthropic_session_answers_as_stateless_trim(
        which in 0..4u8,
        first in prop_oneof![Just(None), Just(Some(json!({"role": "user", "content": "Hello"})))],
        ops in prop::collection::vec(long_op(), 40..120),
    ) {
        run_from("anthropic", which, first, &ops)?;
    }

    /// Long Responses histories (steps of reasoning, calls and outputs between messages).
    #[test]
    fn long_responses_session_answers_as_stateless_trim(
        which in 0..4u8,
        first in prop_oneof![
            Just(None),
            Just(Some(json!({"role": "user", "content": "Hello"}))),
            Just(Some(json!({"role": "developer", "content": "Answer briefly."}))),
        ],
        ops in prop::collection::vec(long_op(), 40..120),
    ) {
        run_from("responses", which, first, &ops)?;
    }

    /// Sessions with the default options, in every format: cache-stable.
    #[test]
    fn default_sessions_answer_as_the_stateless_trim_given_the_previous_cut(
        format in prop::sample::select(vec!["openai", "anthropic", "responses", "gemini"]),
        which in 0..4u8,
        ops in prop::collection::vec(agent_op(), 10..60),
    ) {
        run_default(format, which, &ops)?;
    }

    #[test]
    fn anthropic_session_answers_as_stateless_trim(which in 0..4u8, ops in prop::collection::vec(op(), 1..24)) {
        run("anthropic", which, &ops)?;
    }

    #[test]
    fn responses_session_answers_as_stateless_trim(which in 0..4u8, ops in prop::collection::vec(op(), 1..24)) {
        run("responses", which, &ops)?;
    }

    #[test]
    fn gemini_session_answers_as_stateless_trim(which in 0..4u8, ops in prop::collection::vec(op(), 1..24)) {
        run("gemini", which, &ops)?;
    }
}

#[test]
fn a_long_session_is_trimmed_from_its_newest_messages() {
    // 400 steps of the generator (tool exchanges, orphans, unanswered calls, images), trimmed
    // after each: the answers are the stateless ones, and after the first trims the session
    // reads only the newest messages.
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    for (format, which) in (0..4u8).flat_map(|w| {
        [
            ("openai", w),
            ("anthropic", w),
            ("responses", w),
            ("gemini", w),
        ]
    }) {
        let ops: Vec<Op> = (0..400)
            .flat_map(|_| {
                let step = (next(7) as u8, next(400) as usize, next(1 << 40));
                [Op::Append(vec![step], false), Op::Trim]
            })
            .collect();
        let first = Some(match format {
            "openai" => json!({"role": "system", "content": "You are a desktop companion."}),
            "gemini" => json!({"role": "user", "parts": [{"text": "Where were we?"}]}),
            _ => json!({"role": "user", "content": "Where were we?"}),
        });
        let windowed = run_from(format, which, first, &ops).unwrap();
        assert!(
            windowed >= 300,
            "{format}, options {which}: {windowed} of 401 trims read only the newest messages"
        );
    }
}

#[test]
fn an_agent_loop_is_trimmed_from_its_newest_messages() {
    // One request, then a long tool loop, a user message now and then (a correction): the
    // request and the anchors lie far back, and the window carries them in.
    for (format, which) in [
        ("openai", 0u8),
        ("openai", 2),
        ("anthropic", 1),
        ("anthropic", 3),
    ] {
        let mut ops = vec![Op::Append(vec![(0, 200, 1)], false)];
        for step in 0..800u64 {
            let kind = if step % 300 == 299 { 0 } else { 3 };
            ops.push(Op::Append(
                vec![(kind, 50 + (step as usize * 37) % 300, step + 2)],
                false,
            ));
            if step % 4 == 3 {
                ops.push(Op::Trim);
            }
            if step % 350 == 349 {
                ops.push(Op::CutLast(2));
            }
        }
        let first = match format {
            "openai" => Some(json!({"role": "system", "content": "You are an agent."})),
            _ => None,
        };
        let windowed = run_from(format, which, first, &ops).unwrap();
        assert!(
            windowed >= 160,
            "{format}, options {which}: {windowed} of 201 trims read only the newest messages"
        );
    }
}

#[test]
fn a_long_session_lets_go_of_the_split_of_old_messages() {
    // Thousands of short messages, trimmed every fourth step and now and then cut back far:
    // the answers stay the stateless ones while the session keeps split only the messages a
    // trim may read, and splits the history again when a trim needs all of it.
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    for (format, which) in [
        ("openai", 0u8),
        ("openai", 2),
        ("anthropic", 0),
        ("responses", 2),
    ] {
        let mut ops = Vec::new();
        for step in 0..2000 {
            let kind = [0u8, 2, 3, 3, 4, 5][next(6) as usize];
            ops.push(Op::Append(
                vec![(kind, next(120) as usize, next(1 << 40))],
                false,
            ));
            if step % 4 == 3 {
                ops.push(Op::Trim);
            }
            if step % 700 == 699 {
                ops.push(Op::Truncate(next(3000) as usize));
            }
        }
        let first = match format {
            "openai" => json!({"role": "system", "content": "You are a desktop companion."}),
            _ => json!({"role": "user", "content": "Where were we?"}),
        };
        let windowed = run_from(format, which, Some(first.clone()), &ops).unwrap();
        assert!(
            windowed >= 400,
            "{format}, options {which}: {windowed} of 500 trims windowed"
        );
        // Split kept for what trims read: far fewer messages than the history holds.
        let options = options(format, which);
        let mut session = TrimSession::new(&format!("{{{options}}}")).unwrap();
        let mut held = vec![first.to_string()];
        session.append(&format!("[{first}]")).unwrap();
        for (k, op) in ops.iter().enumerate() {
            if let Op::Append(steps, _) = op {
                let &(kind, size, seed) = &steps[0];
                let added: Vec<Value> = messages(format, kind, size, seed);
                held.extend(added.iter().map(Value::to_string));
                session.append(&Value::Array(added).to_string()).unwrap();
            }
            if k % 7 == 0 {
                session.trim_answer().unwrap();
            }
        }
        session.trim_answer().unwrap();
        let split = session.messages_split();
        assert!(
            split * 2 < session.len(),
            "{format}, options {which}: {split} of {} messages split",
            session.len()
        );
        // Cut back to just after the messages let go: the next trim needs them, splits the
        // history again, and answers as the stateless trim.
        let len = session.len() - split + 8;
        session.truncate(len);
        held.truncate(len);
        let request = format!("{{\"messages\":[{}],{options}}}", held.join(","));
        assert_eq!(
            session.trim_answer().unwrap().into_string(),
            trim_json(&request)
        );
        assert!(
            session.messages_split() >= len,
            "the whole history is split again"
        );
    }
}

#[test]
fn options_may_carry_the_first_messages_and_errors_match() {
    let mut s = TrimSession::new(
        r#"{"max_bytes": 4096, "trim_to": null, "messages": [{"role": "user", "content": "hi"}]}"#,
    )
    .unwrap();
    assert_eq!(s.len(), 1);
    s.append(r#"[{"role": "user", "content": 5}]"#).unwrap();
    let err = s.trim_answer().err().unwrap().to_response().to_string();
    let stateless = trim_json(
        r#"{"messages": [{"role": "user", "content": "hi"}, {"role": "user", "content": 5}], "max_bytes": 4096}"#,
    );
    assert_eq!(err, stateless);
    assert!(TrimSession::new(r#"{"max_byts": 1}"#).is_err());
    assert!(s.append("{").is_err());
    assert!(s.append(r#"{"role": "user"}"#).is_err());
    assert_eq!(s.truncate(1), 1);
    assert!(s.trim_answer().is_ok());
}

#[test]
fn memory_held_is_within_one_and_a_half_times_what_was_given() {
    // Opted out of cache-stable trimming, whose trims read the whole history.
    let mut s = TrimSession::new(r#"{"max_bytes": 100000, "trim_to": null}"#).unwrap();
    for turn in 0..2000u64 {
        let m = json!([{"role": "user", "content": text(200 + (turn as usize % 7) * 100, turn)},
            {"role": "assistant", "content": text(300, turn + 1)}]);
        s.append(&m.to_string()).unwrap();
        if turn % 50 == 0 {
            s.trim_answer().unwrap();
        }
    }
    let (held, given) = (s.bytes_held(), s.bytes_given());
    eprintln!(
        "{} messages: held {held} bytes for {given} given ({:.2}×)",
        s.len(),
        held as f64 / given as f64
    );
    // The buffer grows by a quarter at most past what it holds, 24 bytes a message say
    // where it ends and where its long strings are, and the split (some 300 bytes a message)
    // is kept for the messages trims read: within 1.5× what was given.
    assert!(held * 2 <= given * 3, "held {held} for {given} given");
    assert!(s.messages_split() < 1000, "{} split", s.messages_split());
}

//! Cache-stable trimming over generated agent sessions in every format, in bytes and in tokens:
//! the prefix holds while the cut stands, the cut never moves back, no answer is over the
//! budget, and sessions answer exactly as the stateless trim given the previous answer's cut,
//! through appends, truncations and regenerations.

#[path = "../examples/agent_loop/mod.rs"]
mod agent_loop;

use agent_loop::{calls, common_prefix, request, steps, system_first, write, Step, FORMATS};
use ankita::api::trim_json;
use ankita::session::TrimSession;
use proptest::prelude::*;
use serde_json::{json, Value};

fn trim(request: &Value) -> Value {
    let answer: Value = serde_json::from_str(&trim_json(&request.to_string())).unwrap();
    assert_eq!(answer["ok"], true, "{answer}");
    answer
}

fn options(tokens: bool, window: u64, trim_to: f64) -> Value {
    let mut options = json!({"max_messages": null, "trim_to": trim_to});
    if tokens {
        options["model"] = json!("gpt-4o");
        options["context_tokens"] = json!(window);
        options["max_output_tokens"] = json!(0);
        options["overhead_tokens"] = json!(0);
    } else {
        options["max_bytes"] = json!(window * 4);
    }
    options
}

fn used(report: &Value) -> (u64, u64) {
    let unit = report["unit"].as_str().unwrap();
    (
        report[format!("cost_{unit}")].as_u64().unwrap(),
        report[format!("budget_{unit}")].as_u64().unwrap(),
    )
}

/// Replays the session's calls statelessly with `cut` carried; checks every call.
fn replay(format: &str, steps: &[Step], base: &Value) {
    let mut previous: Vec<Value> = Vec::new();
    let mut cut = Value::Null;
    let mut moves = 0;
    for len in calls(steps) {
        let mut options = base.clone();
        options["cut"] = cut.clone();
        let answer = trim(&request(format, &steps[..len], &options));
        let report = &answer["report"];
        let (cost, budget) = used(report);
        assert!(
            cost <= budget,
            "{format}: over the budget at {len}: {report}"
        );
        let messages = answer["messages"].as_array().unwrap().clone();
        let new_cut = report["cut"].clone();
        if !cut.is_null() && new_cut == cut {
            // The cut stood: the previous answer is the start of this one.
            assert_eq!(
                common_prefix(&previous, &messages),
                previous.len(),
                "{format}: the prefix moved at {len} with the cut at {cut}"
            );
        } else if !cut.is_null() {
            moves += 1;
            assert!(
                new_cut.as_u64() > cut.as_u64(),
                "{format}: the cut moved back from {cut} to {new_cut}"
            );
        }
        if !new_cut.is_null() {
            cut = new_cut;
        }
        previous = messages;
    }
    // The window filled and the cut moved, but rarely (a move frees trim_to's share).
    assert!(!cut.is_null(), "{format}: the window never filled");
    assert!(moves * 3 < calls(steps).len(), "{format}: {moves} moves");
}

#[test]
fn the_prefix_holds_while_the_cut_stands_in_every_format() {
    let steps = steps(3, 30);
    for format in FORMATS {
        for tokens in [false, true] {
            replay(format, &steps, &options(tokens, 6000, 0.75));
        }
    }
}

/// The session's messages as the format writes them, one JSON text per step.
fn texts(format: &str, steps: &[Step]) -> Vec<String> {
    write(format, steps)
        .0
        .into_iter()
        .skip(usize::from(system_first(format)))
        .map(|m| m.to_string())
        .collect()
}

fn session_matches_stateless(format: &str, seed: u64, tokens: bool, trim_to: f64, edits: &[usize]) {
    let steps = steps(seed, 12);
    let alternative = agent_loop::steps(seed + 1000, 12);
    let base = options(tokens, 3000, trim_to);
    let (first, system) = write(format, &steps[..0]);
    let mut session_options = base.clone();
    session_options["format"] = json!(format);
    if let Some(system) = system {
        session_options["system"] = system;
    }
    let mut session = TrimSession::new(&session_options.to_string()).unwrap();
    if let Some(system) = first.first() {
        session.append(&format!("[{system}]")).unwrap();
    }
    let head = usize::from(system_first(format));
    // The history as held: steps, and at each edit a regeneration from an earlier point.
    let mut held: Vec<Step> = Vec::new();
    let mut cut = Value::Null;
    let mut source = steps.clone();
    let mut k = 0;
    let mut edits = edits.iter().copied().peekable();
    let mut filled = false;
    while k < source.len() {
        held.push(source[k].clone());
        session
            .append(&format!("[{}]", texts(format, &held[held.len() - 1..])[0]))
            .unwrap();
        k += 1;
        if !matches!(held.last(), Some(Step::User(_) | Step::Result(..))) {
            continue;
        }
        let answer: Value =
            serde_json::from_str(&session.trim_answer().unwrap().into_string()).unwrap();
        let mut options = base.clone();
        options["cut"] = cut.clone();
        let stateless = trim(&request(format, &held, &options));
        assert_eq!(answer, stateless, "{format}: at {} messages", held.len());
        cut = answer["report"]["cut"].clone();
        filled |= !cut.is_null();
        if cut.is_null() {
            cut = options["cut"].clone();
        }
        // A regeneration: the tail goes back to an earlier step and another version follows.
        if edits.peek().is_some_and(|&e| e <= held.len()) {
            let back = held.len() - edits.next().unwrap().min(held.len() - 1);
            let back = (0..=back)
                .rev()
                .find(|&b| b == 0 || matches!(held[b - 1], Step::User(_) | Step::Answer(_)))
                .unwrap_or(0);
            held.truncate(back);
            session.truncate(back + head);
            if cut.as_u64().is_some_and(|c| c as usize > back + head) {
                cut = Value::Null;
            }
            source = held
                .iter()
                .cloned()
                .chain(alternative.iter().cloned())
                .collect();
            k = held.len();
        }
    }
    assert!(filled, "{format}: the window never filled");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    #[test]
    fn sessions_answer_as_the_stateless_trim_given_the_previous_cut(
        format in 0..FORMATS.len(),
        seed in 0..1000u64,
        tokens in any::<bool>(),
        trim_to in prop::sample::select(vec![0.5, 0.75, 0.9, 1.0]),
        edits in prop::collection::vec(1..12usize, 0..3),
    ) {
        session_matches_stateless(FORMATS[format], seed, tokens, trim_to, &edits);
    }
}

#[test]
fn without_the_new_keys_answers_have_no_cut() {
    let steps = steps(5, 6);
    for format in FORMATS {
        let answer = trim(&request(format, &steps, &json!({"max_bytes": 4000})));
        assert!(answer["report"].get("cut").is_none(), "{format}");
    }
}

/// Feeds the agent loop to a session made with `extra` options (over a 32k gpt-4o window, as examples/cache_stability),
/// trimming before every model call; over the calls after the window first filled, the share
/// of the answers' bytes that repeat the previous answer as a prefix, the median use of the
/// budget, and whether every answer fits.
fn session_loop(format: &str, steps: &[Step], extra: &Value) -> (f64, f64) {
    let mut options = json!({"model": "gpt-4o", "context_tokens": 32768, "max_output_tokens": 4096,
                             "max_messages": null, "format": format});
    for (k, v) in extra.as_object().unwrap() {
        options[k] = v.clone();
    }
    let (first, system) = write(format, &steps[..0]);
    if let Some(system) = system {
        options["system"] = system;
    }
    let mut session = TrimSession::new(&options.to_string()).unwrap();
    if let Some(system) = first.first() {
        session.append(&format!("[{system}]")).unwrap();
    }
    let (mut previous, mut filled) = (Vec::<Value>::new(), false);
    let (mut repeated, mut total, mut uses) = (0usize, 0usize, Vec::new());
    let mut at = 0;
    for len in calls(steps) {
        for k in at..len {
            session
                .append(&format!("[{}]", texts(format, &steps[k..=k])[0]))
                .unwrap();
        }
        at = len;
        let answer: Value =
            serde_json::from_str(&session.trim_answer().unwrap().into_string()).unwrap();
        let report = &answer["report"];
        let (cost, budget) = used(report);
        assert!(
            cost <= budget,
            "{format}: over the budget at {len}: {report}"
        );
        let messages = answer["messages"].as_array().unwrap().clone();
        filled |= report["dropped_messages"]
            .as_array()
            .is_some_and(|d| !d.is_empty());
        if filled {
            let same = common_prefix(&previous, &messages);
            let size = |m: &[Value]| m.iter().map(|m| m.to_string().len()).sum::<usize>();
            repeated += size(&messages[..same]);
            total += size(&messages);
            uses.push(cost as f64 / budget as f64);
        }
        previous = messages;
    }
    assert!(filled, "{format}: the window never filled");
    uses.sort_by(f64::total_cmp);
    (repeated as f64 / total as f64, uses[uses.len() / 2])
}

/// A session given no cache options keeps its prefix from call to call in every format (the
/// cut carried, `trim_to` 0.75), where one opted out (`trim_to: null`) rewrites it on nearly
/// every call.
#[test]
fn a_default_session_keeps_the_prefix_in_every_format() {
    let steps = steps(7, 120);
    for format in FORMATS {
        let (share, median) = session_loop(format, &steps, &json!({}));
        let (old_share, _) = session_loop(format, &steps, &json!({"trim_to": null}));
        eprintln!(
            "{format}: prefix share {share:.3} (opted out {old_share:.3}), median use {median:.3}"
        );
        assert!(share >= 0.85, "{format}: prefix share {share:.3}");
        assert!(median >= 0.6, "{format}: median use {median:.3}");
        assert!(
            old_share < 0.5,
            "{format}: opted out, prefix share {old_share:.3}"
        );
    }
}

/// A default session answers as the stateless trim with `trim_to` 0.75 and the previous
/// answer's cut, through appends and regenerations (the opted-out session's answers are those
/// of the stateless trim without them: `tests/session.rs`).
#[test]
fn a_default_session_answers_as_the_stateless_trim_with_the_cut_carried() {
    for (k, format) in FORMATS.iter().enumerate() {
        for tokens in [false, true] {
            session_matches_stateless_default(format, 40 + k as u64, tokens);
        }
    }
}

fn session_matches_stateless_default(format: &str, seed: u64, tokens: bool) {
    let steps = steps(seed, 12);
    let base = options(tokens, 3000, 0.75);
    let (first, system) = write(format, &steps[..0]);
    let mut session_options = base.clone();
    session_options.as_object_mut().unwrap().remove("trim_to");
    session_options["format"] = json!(format);
    if let Some(system) = system {
        session_options["system"] = system;
    }
    let mut session = TrimSession::new(&session_options.to_string()).unwrap();
    if let Some(system) = first.first() {
        session.append(&format!("[{system}]")).unwrap();
    }
    let mut cut = Value::Null;
    let mut filled = false;
    for (k, step) in steps.iter().enumerate() {
        session
            .append(&format!(
                "[{}]",
                texts(format, std::slice::from_ref(step))[0]
            ))
            .unwrap();
        if !matches!(step, Step::User(_) | Step::Result(..)) {
            continue;
        }
        let answer: Value =
            serde_json::from_str(&session.trim_answer().unwrap().into_string()).unwrap();
        let mut options = base.clone();
        options["cut"] = cut.clone();
        assert_eq!(
            answer,
            trim(&request(format, &steps[..=k], &options)),
            "{format} at {k}"
        );
        cut = answer["report"]["cut"].clone();
        filled |= !cut.is_null();
    }
    assert!(filled, "{format}: the window never filled");
}

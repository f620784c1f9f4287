//! Property tests of the Anthropic format: the trimming invariants, plus what the Messages API
//! itself demands (first message from the user, alternating roles, every tool_use answered in
//! the next message), over random sessions and budgets.

use ankita::api::trim_value;
use base64::{engine::general_purpose::STANDARD, Engine};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::HashSet;

fn gif_b64(w: u16, h: u16) -> String {
    let mut bytes = b"GIF89a".to_vec();
    bytes.extend(w.to_le_bytes());
    bytes.extend(h.to_le_bytes());
    bytes.extend([0xF7, 0, 0]);
    STANDARD.encode(bytes)
}

#[derive(Debug, Clone)]
enum Turn {
    User {
        text: usize,
        image: Option<(u16, u16)>,
    },
    Assistant {
        text: usize,
        thinking: bool,
    },
    Exchange {
        calls: usize,
        result_bytes: usize,
        rotate: usize,
        words_after: bool,
    },
    OrphanResult,
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        4 => (1..2500usize, prop::option::of((1..3000u16, 1..3000u16)))
            .prop_map(|(text, image)| Turn::User { text, image }),
        3 => (1..2000usize, any::<bool>()).prop_map(|(text, thinking)| Turn::Assistant { text, thinking }),
        3 => (1..4usize, 0..4000usize, 0..4usize, any::<bool>())
            .prop_map(|(calls, result_bytes, rotate, words_after)| Turn::Exchange { calls, result_bytes, rotate, words_after }),
        1 => Just(Turn::OrphanResult),
    ]
}

fn text(n: usize, tag: &str) -> String {
    let unit = format!("{tag} é世 ");
    unit.repeat(n / unit.len() + 1).chars().take(n).collect()
}

fn build(turns: &[Turn]) -> Vec<Value> {
    let mut out = Vec::new();
    for (t, turn) in turns.iter().enumerate() {
        let tag = format!("t{t}");
        match turn {
            Turn::User { text: n, image } => {
                let mut blocks = vec![json!({"type": "text", "text": text(*n, &tag)})];
                if let Some((w, h)) = image {
                    blocks.push(json!({"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": gif_b64(*w, *h)}}));
                }
                out.push(json!({"role": "user", "content": blocks}));
            }
            Turn::Assistant { text: n, thinking } => {
                let mut blocks = Vec::new();
                if *thinking {
                    blocks.push(json!({"type": "thinking", "thinking": format!("plan {tag}"), "signature": format!("sig{t}")}));
                }
                blocks.push(json!({"type": "text", "text": text(*n, &tag)}));
                out.push(json!({"role": "assistant", "content": blocks}));
            }
            Turn::Exchange {
                calls,
                result_bytes,
                rotate,
                words_after,
            } => {
                let ids: Vec<String> = (0..*calls).map(|c| format!("tu_{t}_{c}")).collect();
                let uses: Vec<Value> = ids
                    .iter()
                    .map(|id| json!({"type": "tool_use", "id": id, "name": "f", "input": {"q": 1}}))
                    .collect();
                out.push(json!({"role": "assistant", "content": uses}));
                let mut order: Vec<usize> = (0..*calls).collect();
                order.rotate_left(rotate % calls);
                let mut results: Vec<Value> = order
                    .into_iter()
                    .map(|c| json!({"type": "tool_result", "tool_use_id": ids[c], "content": text(*result_bytes, &tag)}))
                    .collect();
                if *words_after {
                    results.push(json!({"type": "text", "text": format!("and also {tag}")}));
                }
                out.push(json!({"role": "user", "content": results}));
            }
            Turn::OrphanResult => out.push(json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("gone_{t}"), "content": "stale"},
                {"type": "text", "text": format!("orphan turn {tag}")},
            ]})),
        }
    }
    out
}

fn blocks(message: &Value) -> Vec<Value> {
    match &message["content"] {
        Value::Array(b) => b.clone(),
        Value::String(s) => vec![json!({"type": "text", "text": s})],
        _ => Vec::new(),
    }
}

fn only_tool_results(message: &Value) -> bool {
    let b = blocks(message);
    !b.is_empty() && b.iter().all(|x| x["type"] == "tool_result")
}

fn check_api_shape(out: &[Value]) -> Result<(), String> {
    if let Some(first) = out.first() {
        if first["role"] != "user" {
            return Err("first message is not a user message".into());
        }
    }
    for (i, pair) in out.windows(2).enumerate() {
        if pair[0]["role"] == pair[1]["role"] {
            return Err(format!("messages {i} and {} share a role", i + 1));
        }
    }
    for (i, message) in out.iter().enumerate() {
        let uses: HashSet<String> = blocks(message)
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| b["id"].as_str().unwrap().to_owned())
            .collect();
        let answered_here: Vec<String> = blocks(message)
            .iter()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| b["tool_use_id"].as_str().unwrap().to_owned())
            .collect();
        if !answered_here.is_empty() {
            let previous: HashSet<String> = i
                .checked_sub(1)
                .map(|p| {
                    blocks(&out[p])
                        .iter()
                        .filter(|b| b["type"] == "tool_use")
                        .map(|b| b["id"].as_str().unwrap().to_owned())
                        .collect()
                })
                .unwrap_or_default();
            if answered_here.iter().any(|id| !previous.contains(id)) {
                return Err(format!(
                    "message {i} answers a tool_use not in the message before it"
                ));
            }
        }
        if !uses.is_empty() {
            let next: Vec<String> = out
                .get(i + 1)
                .map(|n| {
                    blocks(n)
                        .iter()
                        .filter(|b| b["type"] == "tool_result")
                        .map(|b| b["tool_use_id"].as_str().unwrap().to_owned())
                        .collect()
                })
                .unwrap_or_default();
            let next_set: HashSet<String> = next.iter().cloned().collect();
            if next_set != uses || next.len() != uses.len() {
                return Err(format!(
                    "tool_use blocks of message {i} are not answered one-to-one next"
                ));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn anthropic_invariants(
        turns in prop::collection::vec(turn(), 1..30),
        budget in prop::option::of(512u64..30_000),
        max_messages in 1usize..50,
        system in any::<bool>(),
    ) {
        let messages = build(&turns);
        let mut request = json!({"format": "anthropic", "messages": messages, "max_messages": max_messages});
        if system {
            request["system"] = json!([{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]);
        }
        if let Some(b) = budget {
            request["max_bytes"] = json!(b);
        }
        let response = match trim_value(request.clone()) {
            Ok(r) => r,
            Err(e) => {
                prop_assert_eq!(e.code.as_str(), "context_budget_exceeded", "unexpected error {}", e);
                return Ok(());
            }
        };
        prop_assert_eq!(&response["report"]["format"], "anthropic");
        let out = response["messages"].as_array().unwrap();
        if let Err(why) = check_api_shape(out) {
            prop_assert!(false, "{}", why);
        }
        if let Some(b) = budget {
            prop_assert!(response["report"]["cost_bytes"].as_u64().unwrap() <= b);
        }
        // The request (newest user message that is not only tool results) keeps its words.
        let request_text = messages
            .iter()
            .rev()
            .find(|m| m["role"] == "user" && !only_tool_results(m))
            .and_then(|m| blocks(m).into_iter().find(|b| b["type"] == "text"))
            .map(|b| b["text"].clone());
        if let Some(words) = request_text {
            let present = out.iter().any(|m| blocks(m).iter().any(|b| b["text"] == words));
            prop_assert!(present, "the request's text is missing");
        }
        // Thinking blocks are never edited.
        let thinking_in: HashSet<String> = messages.iter().flat_map(blocks)
            .filter(|b| b["type"] == "thinking").map(|b| b.to_string()).collect();
        for b in out.iter().flat_map(blocks).filter(|b| b["type"] == "thinking") {
            prop_assert!(thinking_in.contains(&b.to_string()), "thinking block edited: {}", b);
        }
        // A second pass with the same budget changes nothing.
        request["messages"] = Value::Array(out.clone());
        let again = trim_value(request).map_err(|e| TestCaseError::fail(format!("second pass: {e}")))?;
        prop_assert_eq!(&again["messages"], &response["messages"]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A compaction block (server compaction) is the conversation before it: whenever the trim
    /// keeps anything, it keeps the block, unedited, in the first message it returns (what
    /// stood before it, which the API ignores, is gone), and the answer fits its budget.
    #[test]
    fn a_compaction_block_survives_every_budget_that_fits_it(
        before in prop::collection::vec(turn(), 0..8),
        after in prop::collection::vec(turn(), 0..8),
        summary in 1..3000usize,
        request_words in 1..400usize,
        budget in prop::option::of(512u64..20_000),
        max_messages in 1usize..20,
        system in any::<bool>(),
    ) {
        let block = json!({"type": "compaction", "content": text(summary, "summary"),
            "encrypted_content": "EqQB".repeat(summary / 8 + 1)});
        let mut messages = build(&before);
        messages.push(json!({"role": "assistant", "content": [block.clone(), {"type": "text", "text": "Resuming."}]}));
        messages.extend(build(&after));
        messages.push(json!({"role": "user", "content": text(request_words, "request")}));
        let mut request = json!({"format": "anthropic", "messages": messages, "max_messages": max_messages});
        if system {
            request["system"] = json!("Be brief.");
        }
        // What the least answer that keeps it costs: the compaction's message and the request.
        let mut least = request.clone();
        let n = messages.len();
        least["messages"] = json!([messages[n - 2 - build(&after).len()], messages[n - 1]]);
        least["max_messages"] = json!(2);
        let least = trim_value(least).map_err(|e| TestCaseError::fail(format!("least: {e}")))?;
        let fits = budget.is_none_or(|b| least["report"]["cost_bytes"].as_u64().unwrap() <= b)
            && max_messages >= 2;
        if let Some(b) = budget {
            request["max_bytes"] = json!(b);
        }
        let response = match trim_value(request) {
            Ok(r) => r,
            Err(e) => {
                prop_assert_eq!(e.code.as_str(), "context_budget_exceeded", "unexpected error {}", e);
                return Ok(());
            }
        };
        if let Some(b) = budget {
            prop_assert!(response["report"]["cost_bytes"].as_u64().unwrap() <= b);
        }
        let out = response["messages"].as_array().unwrap();
        let count = out.iter().flat_map(blocks).filter(|b| b["type"] == "compaction").count();
        if !fits && count == 0 {
            return Ok(());
        }
        prop_assert!(!out.is_empty() && blocks(&out[0]).contains(&block),
            "the compaction block is not first: {:?}", out.first());
        prop_assert_eq!(count, 1, "blocks from before the compaction came back");
    }
}

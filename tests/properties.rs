//! Property tests of the trimming invariants over random sessions and budgets.

use ankita::api::trim_value;
use base64::{engine::general_purpose::STANDARD, Engine};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};

/// A GIF header of the given size as a data URL: the cheapest real image to carry around.
fn gif_url(w: u16, h: u16) -> String {
    let mut bytes = b"GIF89a".to_vec();
    bytes.extend(w.to_le_bytes());
    bytes.extend(h.to_le_bytes());
    bytes.extend([0xF7, 0, 0]);
    format!("data:image/gif;base64,{}", STANDARD.encode(bytes))
}

#[derive(Debug, Clone)]
enum Turn {
    User {
        text: usize,
        images: Vec<(u16, u16)>,
        attachment: Option<usize>,
    },
    Assistant {
        text: usize,
    },
    Exchange {
        calls: usize,
        reply_bytes: Vec<usize>,
        order_seed: u64,
    },
    Orphan,
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        4 => (1..3000usize, prop::collection::vec((1..4000u16, 1..4000u16), 0..3), prop::option::of(10..5000usize))
            .prop_map(|(text, images, attachment)| Turn::User { text, images, attachment }),
        3 => (0..2000usize).prop_map(|text| Turn::Assistant { text }),
        3 => (1..4usize, prop::collection::vec(0..4000usize, 4), any::<u64>())
            .prop_map(|(calls, reply_bytes, order_seed)| Turn::Exchange { calls, reply_bytes, order_seed }),
        1 => Just(Turn::Orphan),
    ]
}

fn text(n: usize, seed: usize) -> String {
    // Mixed-width characters so shrinking must respect UTF-8 boundaries.
    let unit = format!("word{seed} é世 ");
    unit.repeat(n / unit.len() + 1).chars().take(n).collect()
}

fn build(turns: &[Turn], system: bool) -> Vec<Value> {
    let mut messages = Vec::new();
    let mut id = 0usize;
    let mut push = |messages: &mut Vec<Value>, mut m: Value| {
        m["x_id"] = json!(id);
        id += 1;
        messages.push(m);
    };
    if system {
        push(
            &mut messages,
            json!({"role": "system", "content": "Be helpful."}),
        );
    }
    for (t, turn) in turns.iter().enumerate() {
        match turn {
            Turn::User {
                text: n,
                images,
                attachment,
            } => {
                let mut parts = vec![json!({"type": "text", "text": text(*n, t)})];
                for &(w, h) in images {
                    parts.push(json!({"type": "image_url", "image_url": {"url": gif_url(w, h)}}));
                }
                if let Some(a) = attachment {
                    parts.push(json!({"type": "text", "text": format!("Attached file: f{t}.txt\n{}", text(*a, t))}));
                }
                push(&mut messages, json!({"role": "user", "content": parts}));
            }
            Turn::Assistant { text: n } => push(
                &mut messages,
                json!({"role": "assistant", "content": text(*n, t)}),
            ),
            Turn::Exchange {
                calls,
                reply_bytes,
                order_seed,
            } => {
                let ids: Vec<String> = (0..*calls).map(|c| format!("call_{t}_{c}")).collect();
                let tool_calls: Vec<Value> = ids
                    .iter()
                    .map(|i| json!({"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}}))
                    .collect();
                push(
                    &mut messages,
                    json!({"role": "assistant", "content": null, "tool_calls": tool_calls}),
                );
                let mut order: Vec<usize> = (0..*calls).collect();
                order.rotate_left((*order_seed as usize) % calls);
                for c in order {
                    push(
                        &mut messages,
                        json!({"role": "tool", "tool_call_id": ids[c], "content": text(reply_bytes[c], c)}),
                    );
                }
            }
            Turn::Orphan => push(
                &mut messages,
                json!({"role": "tool", "tool_call_id": "nobody", "content": "x"}),
            ),
        }
    }
    messages
}

/// DESIGN §2, computed independently of the library.
fn cost(message: &Value, prices: &HashMap<String, u64>) -> u64 {
    let obj = message.as_object().unwrap();
    let meta: Map<String, Value> = obj
        .iter()
        .filter(|(k, _)| *k != "content")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let body = match obj.get("content") {
        Some(Value::String(s)) => s.len() as u64,
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|p| match p["type"].as_str() {
                Some("text") => p["text"].as_str().unwrap().len() as u64,
                Some("image_url") => prices[p["image_url"]["url"].as_str().unwrap()],
                _ => p.to_string().len() as u64,
            })
            .sum(),
        _ => 0,
    };
    Value::Object(meta).to_string().len() as u64 + body
}

fn check_tool_structure(messages: &[Value]) -> Result<(), String> {
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        if m["role"] == "tool" {
            return Err(format!("tool message {i} without its call"));
        }
        if let Some(calls) = m.get("tool_calls").and_then(Value::as_array) {
            let ids: HashSet<&str> = calls.iter().map(|c| c["id"].as_str().unwrap()).collect();
            let mut seen = HashSet::new();
            let mut j = i + 1;
            while j < messages.len() && messages[j]["role"] == "tool" {
                let id = messages[j]["tool_call_id"].as_str().unwrap();
                if !ids.contains(id) || !seen.insert(id) {
                    return Err(format!("reply {j} does not match the calls of {i}"));
                }
                j += 1;
            }
            if seen.len() != ids.len() {
                return Err(format!("calls of {i} are missing replies"));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    Ok(())
}

/// The input indices of the group message `i` belongs to: a tool exchange (the assistant with
/// `tool_calls` and the tool replies after it) or the message alone.
fn group_of(messages: &[Value], i: usize) -> Vec<usize> {
    let mut start = i;
    while messages[start]["role"] == "tool" && start > 0 {
        start -= 1;
    }
    if messages[start].get("tool_calls").is_none() {
        return vec![i];
    }
    let mut end = start + 1;
    while end < messages.len() && messages[end]["role"] == "tool" {
        end += 1;
    }
    (start..end).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn trimming_invariants(
        turns in prop::collection::vec(turn(), 1..40),
        system in any::<bool>(),
        budget in prop::option::of(512u64..40_000),
        max_messages in 1usize..60,
        mode in prop::sample::select(vec!["placeholder", "drop", "error"]),
        clear in prop::option::of(0usize..4),
    ) {
        let messages = build(&turns, system);
        let mut prices = HashMap::new();
        for turn in &turns {
            if let Turn::User { images, .. } = turn {
                for &(w, h) in images {
                    prices.insert(gif_url(w, h), 4 * ankita::pricing::ankita_tokens(w.into(), h.into()));
                }
            }
        }
        let mut request = json!({"messages": messages, "max_messages": max_messages, "on_image_overflow": mode});
        if let Some(keep) = clear {
            request["clear_tool_results"] = json!({"keep": keep});
        }
        if let Some(b) = budget {
            request["max_bytes"] = json!(b);
        }
        let response = match trim_value(request.clone()) {
            Ok(r) => r,
            Err(e) => {
                let allowed = ["context_budget_exceeded", "image_overflow"];
                prop_assert!(allowed.contains(&e.code.as_str()), "unexpected error {e}");
                prop_assert!(e.code.as_str() != "image_overflow" || mode == "error");
                return Ok(());
            }
        };
        let out = response["messages"].as_array().unwrap();

        // Within budget, by an independent cost model.
        let total: u64 = out.iter().map(|m| cost(m, &prices)).sum();
        prop_assert_eq!(total, response["report"]["cost_bytes"].as_u64().unwrap());
        if let Some(b) = budget {
            prop_assert!(total <= b, "cost {} over budget {}", total, b);
        }
        // Tool exchanges are whole.
        if let Err(why) = check_tool_structure(out) {
            prop_assert!(false, "{}", why);
        }
        // Input order is kept, and the newest user message is there.
        let ids: Vec<u64> = out.iter().map(|m| m["x_id"].as_u64().unwrap()).collect();
        prop_assert!(ids.windows(2).all(|w| w[0] < w[1]), "order {:?}", ids);
        let newest_user = messages.iter().rev().find(|m| m["role"] == "user").map(|m| m["x_id"].clone());
        if let Some(id) = newest_user {
            prop_assert!(out.iter().any(|m| m["x_id"] == id), "newest user message missing");
        }
        // Refill: after shedding, selection went on where it stopped, so the newest group left
        // out (the one the contiguity rule would take next) does not fit in the unused budget,
        // unless max_messages is what stopped it.
        let report = &response["report"];
        let dropped: Vec<usize> = report["dropped_messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_u64().unwrap() as usize)
            .collect();
        if let (Some(b), Some(&newest), "budget") =
            (budget, dropped.last(), report["limited_by"].as_str().unwrap_or(""))
        {
            let group = group_of(&messages, newest);
            let repaired: HashSet<u64> = report["repaired"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["index"].as_u64().unwrap())
                .collect();
            if !group.iter().any(|&i| repaired.contains(&(i as u64))) {
                let group_cost: u64 = group.iter().map(|&i| cost(&messages[i], &prices)).sum();
                prop_assert!(
                    group_cost > b - total,
                    "group {:?} ({} bytes) fits the {} bytes left",
                    group, group_cost, b - total
                );
            }
        } else if !dropped.is_empty() && budget.is_some() {
            prop_assert!(
                report["limited_by"] == "max_messages",
                "messages dropped but limited_by is {}", report["limited_by"]
            );
        }
        // Trimming the output again with the same budget changes nothing.
        request["messages"] = Value::Array(out.clone());
        let again = trim_value(request).map_err(|e| TestCaseError::fail(format!("second pass failed: {e}")))?;
        prop_assert_eq!(&again["messages"], &response["messages"]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Token mode: the answer fits the window in the model's tokens, its cost is what counting
    /// the answer gives, the structure rules hold as in bytes, and a second pass changes nothing.
    #[test]
    fn token_mode_invariants(
        turns in prop::collection::vec(turn(), 1..40),
        system in any::<bool>(),
        context in 600u64..12_000,
        tokenizer in prop::sample::select(vec!["o200k_base", "cl100k_base"]),
        factor in prop::sample::select(vec![1.0, 1.35]),
    ) {
        let messages = build(&turns, system);
        let mut request = json!({
            "messages": messages, "tokenizer": tokenizer, "context_tokens": context,
            "max_output_tokens": 100, "max_messages": 1_000_000,
        });
        if factor != 1.0 {
            request["token_factor"] = json!(factor);
        }
        let response = match trim_value(request.clone()) {
            Ok(r) => r,
            Err(e) => {
                let allowed = ["context_budget_exceeded", "history_budget_too_small"];
                prop_assert!(allowed.contains(&e.code.as_str()), "unexpected error {e}");
                return Ok(());
            }
        };
        let report = &response["report"];
        prop_assert_eq!(&report["unit"], "tokens");
        prop_assert_eq!(report["exact"].as_bool(), Some(factor == 1.0));
        let out = response["messages"].as_array().unwrap();
        let cost = report["cost_tokens"].as_u64().unwrap();
        prop_assert!(cost <= report["budget_tokens"].as_u64().unwrap());
        // The report's cost is the count of what was returned.
        let mut count_request = request.clone();
        count_request["messages"] = Value::Array(out.clone());
        for key in ["context_tokens", "max_output_tokens", "max_messages"] {
            count_request.as_object_mut().unwrap().remove(key);
        }
        let count: Value = serde_json::from_str(&ankita::api::count_json(&count_request.to_string())).unwrap();
        prop_assert_eq!(count["total"].as_u64(), Some(cost));
        if let Err(why) = check_tool_structure(out) {
            prop_assert!(false, "{}", why);
        }
        let ids: Vec<u64> = out.iter().map(|m| m["x_id"].as_u64().unwrap()).collect();
        prop_assert!(ids.windows(2).all(|w| w[0] < w[1]), "order {:?}", ids);
        request["messages"] = Value::Array(out.clone());
        let again = trim_value(request).map_err(|e| TestCaseError::fail(format!("second pass failed: {e}")))?;
        prop_assert_eq!(&again["messages"], &response["messages"]);
    }
}

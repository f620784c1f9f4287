//! Property tests of the Responses format: the trimming invariants, plus what the Responses API
//! itself demands (every kept call has its output and every output its call; a reasoning item
//! is never last in its step nor parted from the item after it), over random histories with
//! defects, and random budgets.

use ankita::api::trim_value;
use base64::{engine::general_purpose::STANDARD, Engine};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

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
        image: Option<(u16, u16)>,
    },
    Said {
        text: usize,
    },
    Step {
        reasoning: bool,
        calls: usize,
        output_bytes: usize,
        rotate: usize,
        /// Outputs right after their calls (fc, fco, fc, fco) instead of after all of them.
        interleave: bool,
        /// This call gets no output (a session saved mid-call).
        unanswered: Option<usize>,
        image: Option<(u16, u16)>,
        said_after: bool,
    },
    Computer {
        screenshot: (u16, u16),
    },
    OrphanOutput,
    LoneReasoning,
}

fn turn() -> impl Strategy<Value = Turn> {
    let step = (
        any::<bool>(),
        1..4usize,
        0..3000usize,
        0..4usize,
        any::<bool>(),
        prop::option::weighted(0.15, 0..4usize),
        prop::option::weighted(0.3, (1..3000u16, 1..3000u16)),
        any::<bool>(),
    )
        .prop_map(
            |(
                reasoning,
                calls,
                output_bytes,
                rotate,
                interleave,
                unanswered,
                image,
                said_after,
            )| {
                Turn::Step {
                    reasoning,
                    calls,
                    output_bytes,
                    rotate,
                    interleave,
                    unanswered,
                    image,
                    said_after,
                }
            },
        );
    prop_oneof![
        4 => (1..2500usize, prop::option::of((1..3000u16, 1..3000u16)))
            .prop_map(|(text, image)| Turn::User { text, image }),
        2 => (1..1500usize).prop_map(|text| Turn::Said { text }),
        4 => step,
        1 => (1..3000u16, 1..3000u16).prop_map(|screenshot| Turn::Computer { screenshot }),
        1 => Just(Turn::OrphanOutput),
        1 => Just(Turn::LoneReasoning),
    ]
}

fn text(n: usize, tag: &str) -> String {
    let unit = format!("{tag} é世 ");
    unit.repeat(n / unit.len() + 1).chars().take(n).collect()
}

fn reasoning(id: &str) -> Value {
    json!({"type": "reasoning", "id": id, "summary": [{"type": "summary_text", "text": "plan"}],
           "encrypted_content": format!("enc-{id}")})
}

/// Every item carries a unique `id`, so the output can be matched to the input.
fn build(turns: &[Turn]) -> Vec<Value> {
    let mut out = Vec::new();
    for (t, turn) in turns.iter().enumerate() {
        let tag = format!("t{t}");
        match turn {
            Turn::User { text: n, image } => {
                let mut parts = vec![json!({"type": "input_text", "text": text(*n, &tag)})];
                if let Some((w, h)) = image {
                    parts.push(json!({"type": "input_image", "image_url": gif_url(*w, *h), "detail": "auto"}));
                }
                out.push(json!({"type": "message", "id": format!("u{t}"), "role": "user", "content": parts}));
            }
            Turn::Said { text: n } => {
                out.push(json!({"type": "message", "id": format!("m{t}"),
                "role": "assistant", "content": [{"type": "output_text", "text": text(*n, &tag)}]}))
            }
            Turn::Step {
                reasoning: r,
                calls,
                output_bytes,
                rotate,
                interleave,
                unanswered,
                image,
                said_after,
            } => {
                if *r {
                    out.push(reasoning(&format!("rs{t}")));
                }
                let ids: Vec<String> = (0..*calls).map(|c| format!("call_{t}_{c}")).collect();
                let call = |c: usize| {
                    json!({"type": "function_call", "id": format!("fc_{t}_{c}"), "call_id": ids[c],
                           "name": "f", "arguments": "{\"q\":1}"})
                };
                let output = |c: usize| {
                    let body = text(*output_bytes, &tag);
                    let output = match image {
                        Some((w, h)) if c == 0 => json!([
                            {"type": "input_text", "text": body},
                            {"type": "input_image", "image_url": gif_url(*w, *h)}
                        ]),
                        _ => json!(body),
                    };
                    json!({"type": "function_call_output", "id": format!("fco_{t}_{c}"),
                           "call_id": ids[c], "output": output})
                };
                let answered = |c: usize| *unanswered != Some(c);
                if *interleave {
                    for c in 0..*calls {
                        out.push(call(c));
                        if answered(c) {
                            out.push(output(c));
                        }
                    }
                } else {
                    out.extend((0..*calls).map(call));
                    let mut order: Vec<usize> = (0..*calls).collect();
                    order.rotate_left(rotate % calls);
                    out.extend(order.into_iter().filter(|&c| answered(c)).map(output));
                }
                if *said_after {
                    out.push(
                        json!({"type": "message", "id": format!("m{t}"), "role": "assistant",
                        "content": [{"type": "output_text", "text": format!("done {tag}")}]}),
                    );
                }
            }
            Turn::Computer { screenshot: (w, h) } => {
                out.push(reasoning(&format!("rs{t}")));
                out.push(json!({"type": "computer_call", "id": format!("cu{t}"), "call_id": format!("cc{t}"),
                    "action": {"type": "screenshot"}, "pending_safety_checks": [], "status": "completed"}));
                out.push(json!({"type": "computer_call_output", "id": format!("cco{t}"), "call_id": format!("cc{t}"),
                    "output": {"type": "computer_screenshot", "image_url": gif_url(*w, *h)}}));
            }
            Turn::OrphanOutput => out.push(
                json!({"type": "function_call_output", "id": format!("orphan{t}"),
                "call_id": format!("gone_{t}"), "output": "stale"}),
            ),
            Turn::LoneReasoning => out.push(reasoning(&format!("lone{t}"))),
        }
    }
    out
}

fn is_output(item: &Value) -> bool {
    item["type"]
        .as_str()
        .is_some_and(|t| t.ends_with("_call_output"))
}

fn is_call(item: &Value) -> bool {
    matches!(
        item["type"].as_str(),
        Some("function_call" | "computer_call")
    )
}

fn is_turn(item: &Value) -> bool {
    item["type"] == "message" && item["role"] != "assistant"
}

fn check_api_shape(out: &[Value]) -> Result<(), String> {
    // Calls and outputs pair up one-to-one, each output after its call.
    let mut open: HashMap<String, usize> = HashMap::new();
    let mut answered = HashSet::new();
    for (j, item) in out.iter().enumerate() {
        let id = item["call_id"].as_str().unwrap_or_default().to_owned();
        if is_call(item) {
            open.insert(id, j);
        } else if is_output(item) {
            if !open.contains_key(&id) {
                return Err(format!("output {j} ({id}) has no call before it"));
            }
            if !answered.insert(id.clone()) {
                return Err(format!("call {id} answered twice"));
            }
        }
    }
    for id in open.keys() {
        if !answered.contains(id) {
            return Err(format!("call {id} has no output"));
        }
    }
    // A reasoning item is followed by an item of the model's.
    for (j, item) in out.iter().enumerate() {
        if item["type"] == "reasoning" {
            let next = out.iter().skip(j + 1).find(|n| !is_output(n));
            if next.is_none_or(is_turn) {
                return Err(format!("reasoning {j} is last in its step"));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn responses_invariants(
        turns in prop::collection::vec(turn(), 1..30),
        budget in prop::option::of(512u64..30_000),
        max_messages in 1usize..60,
        instructions in any::<bool>(),
    ) {
        let items = build(&turns);
        let mut request = json!({"format": "responses", "messages": items, "max_messages": max_messages});
        if instructions {
            request["system"] = json!("Be brief.");
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
        prop_assert_eq!(&response["report"]["format"], "responses");
        let out = response["messages"].as_array().unwrap();
        if let Err(why) = check_api_shape(out) {
            prop_assert!(false, "{}", why);
        }
        if let Some(b) = budget {
            prop_assert!(response["report"]["cost_bytes"].as_u64().unwrap() <= b);
        }
        // The output keeps the input's order, and every item is the caller's (by id).
        let position: HashMap<&str, usize> = items.iter().enumerate()
            .map(|(k, i)| (i["id"].as_str().unwrap(), k)).collect();
        let kept: Vec<usize> = out.iter().map(|i| position[i["id"].as_str().unwrap()]).collect();
        prop_assert!(kept.windows(2).all(|w| w[0] < w[1]), "order changed: {:?}", kept);
        // A kept reasoning item keeps the item after it (unless repair removed that item).
        let repaired: HashSet<u64> = response["report"]["repaired"].as_array().unwrap().iter()
            .map(|r| r["index"].as_u64().unwrap()).collect();
        let kept_set: HashSet<usize> = kept.iter().copied().collect();
        for &k in &kept {
            if items[k]["type"] == "reasoning" {
                if let Some(next) = (k + 1..items.len()).find(|&n| !is_output(&items[n])) {
                    if !repaired.contains(&(next as u64)) && !is_turn(&items[next]) {
                        prop_assert!(kept_set.contains(&next), "reasoning {} kept without item {}", k, next);
                    }
                }
            }
        }
        // Reasoning items are never edited.
        for item in out.iter().filter(|i| i["type"] == "reasoning") {
            prop_assert_eq!(item, &items[position[item["id"].as_str().unwrap()]]);
        }
        // The request (the newest user message item) is kept.
        if let Some(request_id) = items.iter().rev().find(|i| is_turn(i)).map(|i| i["id"].clone()) {
            prop_assert!(out.iter().any(|i| i["id"] == request_id), "the request is missing");
        }
        // A second pass with the same budget changes nothing.
        request["messages"] = Value::Array(out.clone());
        let again = trim_value(request).map_err(|e| TestCaseError::fail(format!("second pass: {e}")))?;
        prop_assert_eq!(&again["messages"], &response["messages"]);
        prop_assert_eq!(&again["report"]["repaired"], &json!([]));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A compaction item (server compaction) is the conversation before it: whenever the budget
    /// fits it beside the request, the trim keeps it, unedited and first (what stood before it,
    /// which the API ignores, is gone); when it keeps it at all, it is first.
    #[test]
    fn a_compaction_item_survives_every_budget_that_fits_it(
        before in prop::collection::vec(turn(), 0..8),
        after in prop::collection::vec(turn(), 0..8),
        encrypted in 1..4000usize,
        request_words in 1..400usize,
        budget in prop::option::of(512u64..20_000),
        max_messages in 1usize..20,
        instructions in any::<bool>(),
    ) {
        let compaction = json!({"type": "compaction", "id": "cmp_1",
            "encrypted_content": "gAAAAAB".repeat(encrypted / 7 + 1)});
        let user = json!({"role": "user", "content": text(request_words, "request")});
        let mut items = build(&before);
        items.push(compaction.clone());
        items.extend(build(&after));
        items.push(user.clone());
        let mut request = json!({"format": "responses", "messages": items, "max_messages": max_messages});
        if instructions {
            request["system"] = json!("Be brief.");
        }
        // What the least answer that keeps it costs: the compaction and the request.
        let mut least = request.clone();
        least["messages"] = json!([compaction, user]);
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
        let kept = out.iter().any(|i| i == &compaction);
        if !fits && !kept {
            return Ok(());
        }
        prop_assert_eq!(out.first(), Some(&compaction), "the compaction item is not first");
    }
}

/// The property's first failure, kept: two user messages after the compaction are anchors, and
/// over the budget the anchors yield oldest first — the compaction went before the messages it
/// stands before. It now yields last, after them.
#[test]
fn over_the_budget_the_compaction_yields_after_the_anchors_that_follow_it() {
    let compaction = json!({"type": "compaction", "id": "cmp_1",
        "encrypted_content": "gAAAAAB".repeat(763 / 7 + 1)});
    let mut items = vec![compaction.clone()];
    items.extend(build(&[
        Turn::User {
            text: 1,
            image: None,
        },
        Turn::User {
            text: 99,
            image: None,
        },
    ]));
    items.push(json!({"role": "user", "content": text(224, "request")}));
    let request = json!({"format": "responses", "messages": items, "max_messages": 2,
        "max_bytes": 1106});
    let response = trim_value(request).unwrap();
    let out = response["messages"].as_array().unwrap();
    assert_eq!(out.first(), Some(&compaction), "{out:?}");
    assert!(response["report"]["cost_bytes"].as_u64().unwrap() <= 1106);
}

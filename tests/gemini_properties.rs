//! Property tests of the Gemini format: the trimming invariants, plus what the Gemini API itself
//! demands (the first content is the user's, so a history never starts with a function call;
//! every kept function call turn is answered by the next content with as many function
//! responses, matched by id or by order and name), over random histories in both spellings.

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
    Model {
        text: usize,
        thought: bool,
    },
    Exchange {
        calls: usize,
        ids: bool,
        signed: bool,
        response_bytes: usize,
        image: Option<(u16, u16)>,
        /// Responses given: all, or one missing (a session saved mid-call).
        missing: bool,
        words_after: bool,
    },
    OrphanResponse,
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        4 => (1..2500usize, prop::option::of((1..3000u16, 1..3000u16)))
            .prop_map(|(text, image)| Turn::User { text, image }),
        3 => (1..2000usize, any::<bool>()).prop_map(|(text, thought)| Turn::Model { text, thought }),
        3 => (1..4usize, any::<bool>(), any::<bool>(), 0..4000usize,
              prop::option::of((1..3000u16, 1..3000u16)), prop::bool::weighted(0.15), any::<bool>())
            .prop_map(|(calls, ids, signed, response_bytes, image, missing, words_after)| Turn::Exchange {
                calls, ids, signed, response_bytes, image, missing, words_after,
            }),
        1 => Just(Turn::OrphanResponse),
    ]
}

fn text(n: usize, tag: &str) -> String {
    let unit = format!("{tag} é世 ");
    unit.repeat(n / unit.len() + 1).chars().take(n).collect()
}

/// The keys of one spelling.
struct Keys {
    inline: &'static str,
    mime: &'static str,
    call: &'static str,
    response: &'static str,
    signature: &'static str,
}

const CAMEL: Keys = Keys {
    inline: "inlineData",
    mime: "mimeType",
    call: "functionCall",
    response: "functionResponse",
    signature: "thoughtSignature",
};
const SNAKE: Keys = Keys {
    inline: "inline_data",
    mime: "mime_type",
    call: "function_call",
    response: "function_response",
    signature: "thought_signature",
};

fn build(turns: &[Turn], k: &Keys) -> Vec<Value> {
    let image = |w: u16, h: u16| {
        let mut part = serde_json::Map::new();
        part.insert(
            k.inline.into(),
            json!({k.mime: "image/gif", "data": gif_b64(w, h)}),
        );
        Value::Object(part)
    };
    let mut out = Vec::new();
    for (t, turn) in turns.iter().enumerate() {
        let tag = format!("t{t}");
        match turn {
            Turn::User { text: n, image: i } => {
                let mut parts = vec![json!({"text": text(*n, &tag)})];
                if let Some((w, h)) = i {
                    parts.push(image(*w, *h));
                }
                out.push(json!({"role": "user", "parts": parts}));
            }
            Turn::Model { text: n, thought } => {
                let mut parts = Vec::new();
                if *thought {
                    parts.push(json!({"text": format!("plan {tag}"), "thought": true, k.signature: format!("sig{t}")}));
                }
                parts.push(json!({"text": text(*n, &tag)}));
                out.push(json!({"role": "model", "parts": parts}));
            }
            Turn::Exchange {
                calls,
                ids,
                signed,
                response_bytes,
                image: i,
                missing,
                words_after,
            } => {
                let mut parts = Vec::new();
                for c in 0..*calls {
                    let mut call = json!({"name": format!("f{c}"), "args": {"q": c}});
                    if *ids {
                        call["id"] = json!(format!("id_{t}_{c}"));
                    }
                    let mut part = json!({k.call: call});
                    if *signed && c == 0 {
                        part[k.signature] = json!(format!("c2ln{t}"));
                    }
                    parts.push(part);
                }
                out.push(json!({"role": "model", "parts": parts}));
                let answered = if *missing { calls - 1 } else { *calls };
                let mut order: Vec<usize> = (0..answered).collect();
                if *ids {
                    order.reverse();
                }
                let mut responses: Vec<Value> = order
                    .into_iter()
                    .map(|c| {
                        let mut body = json!({"name": format!("f{c}"), "response": {"output": text(*response_bytes, &tag)}});
                        if *ids {
                            body["id"] = json!(format!("id_{t}_{c}"));
                        }
                        if let (Some((w, h)), 0) = (i, c) {
                            body["parts"] = json!([image(*w, *h)]);
                        }
                        json!({k.response: body})
                    })
                    .collect();
                if *words_after || responses.is_empty() {
                    responses.push(json!({"text": format!("and also {tag}")}));
                }
                out.push(json!({"role": "user", "parts": responses}));
            }
            Turn::OrphanResponse => out.push(json!({"role": "user", "parts": [
                {k.response: {"name": "gone", "response": {"output": "stale"}}},
                {"text": format!("orphan turn {tag}")},
            ]})),
        }
    }
    out
}

fn parts(content: &Value) -> Vec<Value> {
    content["parts"].as_array().cloned().unwrap_or_default()
}

fn only_responses(content: &Value, k: &Keys) -> bool {
    let p = parts(content);
    !p.is_empty() && p.iter().all(|x| x.get(k.response).is_some())
}

/// (id, name) of the calls or the responses of a content.
fn pairs(content: &Value, key: &str) -> Vec<(Option<String>, String)> {
    parts(content)
        .iter()
        .filter_map(|p| p.get(key))
        .map(|c| {
            (
                c["id"].as_str().map(str::to_owned),
                c["name"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn check_api_shape(out: &[Value], k: &Keys) -> Result<(), String> {
    if let Some(first) = out.first() {
        if first["role"] != "user" {
            return Err("first content is not the user's".into());
        }
        if parts(first).iter().any(|p| p.get(k.response).is_some()) {
            return Err("the history starts with a function response".into());
        }
    }
    for (i, content) in out.iter().enumerate() {
        let calls = pairs(content, k.call);
        let responses = pairs(content, k.response);
        if !responses.is_empty() {
            let previous = i
                .checked_sub(1)
                .map(|p| pairs(&out[p], k.call))
                .unwrap_or_default();
            if previous.len() != responses.len() {
                return Err(format!(
                    "content {i} has {} function responses for {} calls",
                    responses.len(),
                    previous.len()
                ));
            }
        }
        if !calls.is_empty() {
            let next = out
                .get(i + 1)
                .map(|n| pairs(n, k.response))
                .unwrap_or_default();
            if next.len() != calls.len() {
                return Err(format!(
                    "the calls of content {i} are not answered one-to-one"
                ));
            }
            let with_ids: HashSet<&String> = calls.iter().filter_map(|c| c.0.as_ref()).collect();
            let mut unmatched = calls.iter().filter(|c| c.0.is_none());
            for (id, name) in &next {
                match id {
                    Some(id) if with_ids.contains(id) => {}
                    Some(_) => return Err(format!("content {}: unknown response id", i + 1)),
                    None => {
                        if unmatched.next().map(|c| &c.1) != Some(name) {
                            return Err(format!("content {}: order and names differ", i + 1));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn gemini_invariants(
        turns in prop::collection::vec(turn(), 1..30),
        budget in prop::option::of(512u64..30_000),
        max_messages in 1usize..50,
        system in any::<bool>(),
        camel in any::<bool>(),
    ) {
        let k = if camel { &CAMEL } else { &SNAKE };
        let contents = build(&turns, k);
        let mut request = json!({"format": "gemini", "messages": contents, "max_messages": max_messages});
        if system {
            request["system"] = json!({"parts": [{"text": "Be brief."}]});
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
        prop_assert_eq!(&response["report"]["format"], "gemini");
        if system {
            prop_assert_eq!(&response["system"], &request["system"]);
        }
        let out = response["messages"].as_array().unwrap();
        if let Err(why) = check_api_shape(out, k) {
            prop_assert!(false, "{}", why);
        }
        if let Some(b) = budget {
            prop_assert!(response["report"]["cost_bytes"].as_u64().unwrap() <= b);
        }
        // The request (newest user content that is not only function responses) keeps its words.
        let request_text = contents
            .iter()
            .rev()
            .find(|c| c["role"] == "user" && !only_responses(c, k))
            .and_then(|c| parts(c).into_iter().find(|p| p.get("text").is_some()))
            .map(|p| p["text"].clone());
        if let Some(words) = request_text {
            let present = out.iter().any(|c| parts(c).iter().any(|p| p["text"] == words));
            prop_assert!(present, "the request's text is missing");
        }
        // Signed parts (thoughts, calls) are byte-identical, and a signed call keeps its place
        // first among its content's calls.
        let signed_in: HashSet<String> = contents.iter().flat_map(parts)
            .filter(|p| p.get(k.signature).is_some()).map(|p| p.to_string()).collect();
        for p in out.iter().flat_map(parts).filter(|p| p.get(k.signature).is_some()) {
            prop_assert!(signed_in.contains(&p.to_string()), "signed part edited: {}", p);
        }
        // No id the library made up is ever written.
        for p in out.iter().flat_map(parts) {
            for key in [k.call, k.response] {
                if let Some(id) = p.get(key).and_then(|c| c.get("id")) {
                    prop_assert!(id.as_str().unwrap().starts_with("id_"), "made-up id {}", id);
                }
            }
        }
        // A second pass with the same budget changes nothing.
        request["messages"] = Value::Array(out.clone());
        let again = trim_value(request).map_err(|e| TestCaseError::fail(format!("second pass: {e}")))?;
        prop_assert_eq!(&again["messages"], &response["messages"]);
    }
}

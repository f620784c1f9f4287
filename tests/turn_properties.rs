//! Property tests of a follow-up after a tool loop, the commonest shape of an agent conversation:
//! the user's long first message (too long to be anchored), a tool loop, the model's answer, a
//! short follow-up. The same generated conversation is written in every wire format and trimmed
//! in bytes and in tokens; in every format the answer keeps the newest exchanges that fit, and
//! uses at least half of the budget whenever the newest three exchanges fit in it; where the
//! provider wants the history to start with the user's turn (Anthropic, Gemini), it does.

use ankita::api::{count_json, trim_json};
use proptest::prelude::*;
use serde_json::{json, Value};

#[derive(Debug, Clone)]
struct Conversation {
    /// Words of the first user message (always over the anchors' limit).
    spec: usize,
    /// Per exchange: the number of calls and the words of each result.
    exchanges: Vec<(usize, usize)>,
    answer: bool,
}

fn conversation() -> impl Strategy<Value = Conversation> {
    (
        900..2500usize,
        prop::collection::vec((1..3usize, 20..700usize), 3..24),
        any::<bool>(),
    )
        .prop_map(|(spec, exchanges, answer)| Conversation {
            spec,
            exchanges,
            answer,
        })
}

/// Real words (this crate's README), `n` of them from `at`.
fn words(n: usize, at: usize) -> String {
    static TEXT: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let all = TEXT.get_or_init(|| {
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
            .unwrap()
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    });
    (0..n)
        .map(|i| all[(at * 7919 + i) % all.len()].as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

const FORMATS: [&str; 4] = ["openai", "anthropic", "responses", "gemini"];
const FOLLOW_UP: &str = "Does it look right now?";

/// The conversation in `format`'s messages, and for each of its messages the exchange it belongs
/// to (`None` for the user's messages and the answer).
fn render(c: &Conversation, format: &str) -> (Vec<Value>, Vec<Option<usize>>) {
    let mut out = Vec::new();
    let mut owner = Vec::new();
    let user = |text: String| match format {
        "gemini" => json!({"role": "user", "parts": [{"text": text}]}),
        _ => json!({"role": "user", "content": text}),
    };
    out.push(user(words(c.spec, 1)));
    owner.push(None);
    for (e, &(calls, result)) in c.exchanges.iter().enumerate() {
        let ids: Vec<String> = (0..calls).map(|k| format!("zqcall_{e}_{k}")).collect();
        let results: Vec<String> = (0..calls).map(|k| words(result, 10 + e * 3 + k)).collect();
        let args = |k: usize| json!({"path": format!("src/file{e}_{k}.rs")});
        match format {
            "openai" => {
                let tool_calls: Vec<Value> = (0..calls)
                    .map(|k| json!({"id": ids[k], "type": "function", "function": {"name": "read", "arguments": args(k).to_string()}}))
                    .collect();
                out.push(json!({"role": "assistant", "content": null, "tool_calls": tool_calls}));
                for k in 0..calls {
                    out.push(
                        json!({"role": "tool", "tool_call_id": ids[k], "content": results[k]}),
                    );
                }
            }
            "anthropic" => {
                let uses: Vec<Value> = (0..calls)
                    .map(|k| json!({"type": "tool_use", "id": ids[k], "name": "read", "input": args(k)}))
                    .collect();
                let replies: Vec<Value> = (0..calls)
                    .map(|k| json!({"type": "tool_result", "tool_use_id": ids[k], "content": results[k]}))
                    .collect();
                out.push(json!({"role": "assistant", "content": uses}));
                out.push(json!({"role": "user", "content": replies}));
            }
            "responses" => {
                for (k, id) in ids.iter().enumerate() {
                    out.push(json!({"type": "function_call", "call_id": id, "name": "read", "arguments": args(k).to_string()}));
                }
                for (id, result) in ids.iter().zip(&results) {
                    out.push(
                        json!({"type": "function_call_output", "call_id": id, "output": result}),
                    );
                }
            }
            "gemini" => {
                let fcalls: Vec<Value> = (0..calls)
                    .map(|k| json!({"functionCall": {"id": ids[k], "name": "read", "args": args(k)}}))
                    .collect();
                let responses: Vec<Value> = (0..calls)
                    .map(|k| json!({"functionResponse": {"id": ids[k], "name": "read", "response": {"output": results[k]}}}))
                    .collect();
                out.push(json!({"role": "model", "parts": fcalls}));
                out.push(json!({"role": "user", "parts": responses}));
            }
            _ => unreachable!(),
        }
        owner.resize(out.len(), Some(e));
    }
    if c.answer {
        let text = "I changed the CSS.";
        out.push(match format {
            "gemini" => json!({"role": "model", "parts": [{"text": text}]}),
            _ => json!({"role": "assistant", "content": text}),
        });
        owner.push(None);
    }
    out.push(user(FOLLOW_UP.to_owned()));
    owner.push(None);
    (out, owner)
}

fn request(messages: &[Value], format: &str, tokens: bool, budget: u64) -> Value {
    let mut req = json!({"messages": messages, "format": format, "max_messages": null});
    if tokens {
        let model = match format {
            "anthropic" => "claude-sonnet-4-5",
            "gemini" => "gemini-2.5-flash",
            _ => "gpt-4o",
        };
        req["model"] = model.into();
        req["context_tokens"] = (budget + 1256).into();
        req["max_output_tokens"] = 1000.into();
    } else {
        req["max_bytes"] = budget.into();
    }
    req
}

fn call(f: fn(&str) -> String, req: &Value) -> Value {
    serde_json::from_str(&f(&req.to_string())).unwrap()
}

/// The call ids an answer's messages carry, once for each call and once for each reply.
fn ids_in(messages: &[Value]) -> Vec<String> {
    let text = serde_json::to_string(messages).unwrap();
    let mut ids: Vec<String> = text
        .match_indices("zqcall_")
        .map(|(i, _)| {
            text[i..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect();
    ids.sort();
    ids
}

fn exchange_of(id: &str) -> usize {
    id.split('_').nth(1).unwrap().parse().unwrap()
}

fn starts_on_user_turn(first: &Value) -> bool {
    if first["role"] != "user" {
        return false;
    }
    let parts = first
        .get("content")
        .or_else(|| first.get("parts"))
        .cloned()
        .unwrap_or(Value::Null);
    match parts {
        Value::Array(parts) => parts.iter().any(|p| {
            p.get("text").is_some() || (p.get("type").is_some() && p["type"] != "tool_result")
        }),
        _ => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn follow_up_after_a_tool_loop(c in conversation(), tokens in any::<bool>(), share in 0.05f64..1.2) {
        for format in FORMATS {
            let (messages, owner) = render(&c, format);
            let whole = request(&messages, format, tokens, 0);
            let counted = call(count_json, &whole);
            prop_assert_eq!(&counted["ok"], &true, "{}", counted);
            let costs: Vec<u64> = counted["messages"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
            let all: u64 = costs.iter().sum();
            // A budget from a share of the whole conversation, never below what the follow-up
            // and the newest exchange need.
            let budget = ((all as f64 * share) as u64).max(costs[costs.len() - 1] + 200).max(600);
            let req = request(&messages, format, tokens, budget);
            let answer = call(trim_json, &req);
            prop_assert_eq!(&answer["ok"], &true, "{}: {}", format, answer);
            let report = &answer["report"];
            let unit = if tokens { "tokens" } else { "bytes" };
            let budget = report[format!("budget_{unit}")].as_u64().unwrap();
            let cost = report[format!("cost_{unit}")].as_u64().unwrap();
            prop_assert!(cost <= budget, "{}: {} over {}", format, cost, budget);
            let out = answer["messages"].as_array().unwrap();
            prop_assert!(out.last().unwrap().to_string().contains(FOLLOW_UP));
            if matches!(format, "anthropic" | "gemini") {
                prop_assert!(starts_on_user_turn(&out[0]), "{}: starts with {}", format, out[0]);
            }
            // The kept exchanges are the newest ones, a run without a gap, and each is whole.
            let ids = ids_in(out);
            let kept: Vec<usize> = ids.iter().map(|id| exchange_of(id)).collect();
            let mut exchanges: Vec<usize> = kept.clone();
            exchanges.sort_unstable();
            exchanges.dedup();
            let n = c.exchanges.len();
            if let Some(&oldest) = exchanges.first() {
                prop_assert_eq!(exchanges.clone(), (oldest..n).collect::<Vec<_>>(), "{}: not the newest run", format);
            }
            for &e in &exchanges {
                prop_assert_eq!(kept.iter().filter(|&&k| k == e).count(), 2 * c.exchanges[e].0, "{}: exchange {} split", format, e);
            }
            // Whenever the newest three exchanges (with the answer and the follow-up) fit,
            // they are kept and the answer uses at least half of the budget.
            let newest_three: u64 = owner.iter().zip(&costs)
                .filter(|(o, _)| o.is_none_or(|e| e + 3 >= n))
                .skip(1) // the first user message
                .map(|(_, c)| c)
                .sum();
            // Where the answer starts on the user's turn, that turn needs room too: at the
            // least the placeholder that stands for the message that began it.
            let turn = if matches!(format, "anthropic" | "gemini") {
                let (placeholder, _) = render(&Conversation { spec: 0, exchanges: vec![], answer: false }, format);
                let mut one = request(&placeholder[..1], format, tokens, 0);
                one["messages"][0] = match format {
                    "gemini" => json!({"role": "user", "parts": [{"text": ankita::turn::TURN_PLACEHOLDER}]}),
                    _ => json!({"role": "user", "content": ankita::turn::TURN_PLACEHOLDER}),
                };
                call(count_json, &one)["total"].as_u64().unwrap()
            } else {
                0
            };
            if newest_three + turn <= budget {
                prop_assert!(exchanges.len() >= 3, "{}: {} of the newest three exchanges kept within {} (they need {})", format, exchanges.len(), budget, newest_three);
                // Where nothing brings the first message back (the chat and Responses formats
                // take a history that starts with the model's tool calls), a short loop may
                // hold less than half of the budget: then all of it is kept.
                let rest: u64 = costs[1..].iter().sum();
                let floor = if turn > 0 { budget } else { budget.min(rest) };
                prop_assert!(cost * 2 >= floor, "{}: uses {} of {}", format, cost, budget);
            }
        }
    }
}

fn long_loop() -> impl Strategy<Value = Conversation> {
    (
        900..2500usize,
        prop::collection::vec((1..3usize, 5..200usize), 30..90),
        any::<bool>(),
    )
        .prop_map(|(spec, exchanges, answer)| Conversation {
            spec,
            exchanges,
            answer,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// A session fed the loop as an agent makes it (an exchange at a time, trimming before
    /// every call) answers each call as the stateless trim of the history so far, in every
    /// format: the window of newest messages it trims must bring back the same turn start.
    #[test]
    fn sessions_answer_the_follow_up_as_the_stateless_trim(c in long_loop(), tokens in any::<bool>(), budget in 1500u64..6000) {
        for format in FORMATS {
            let (messages, owner) = render(&c, format);
            let options = request(&[], format, tokens, budget);
            let mut options_text = options.to_string();
            options_text = options_text.replacen("\"messages\":[],", "", 1);
            // Opted out of cache-stable trimming: the stateless trim without trim_to.
            options_text = options_text.replacen('{', "{\"trim_to\":null,", 1);
            let mut session = ankita::session::TrimSession::new(&options_text).unwrap();
            let mut at = 0;
            while at < messages.len() {
                // An exchange (or the closing messages) at a time.
                let mut end = at + 1;
                while end < messages.len() && owner[end].is_some() && owner[end] == owner[at] {
                    end += 1;
                }
                session.append(&serde_json::to_string(&messages[at..end]).unwrap()).unwrap();
                at = end;
                let stateless = trim_json(&request(&messages[..at], format, tokens, budget).to_string());
                let answer = match session.trim_answer() {
                    Ok(a) => a.into_string(),
                    Err(e) => e.to_response().to_string(),
                };
                prop_assert_eq!(&answer, &stateless, "{} after {} messages", format, at);
            }
        }
    }
}

//! A model whose chat template refuses a chat that opens on the assistant's turn (Gemma's: the
//! roles alternate from the user's) gets answers that start on the user's turn in every
//! format, as the Anthropic and Gemini formats always do; without such a template the chat and
//! Responses formats keep the run as selection left it.
//!
//! The tokenizer is a word-level `tokenizer.json` written here (a word, or a run of
//! punctuation, is a token) and the template states Gemma's rule in its own words; the real
//! Gemma 3 files are tested from Python (bindings/python/tests/test_tokenizer_file.py, with
//! transformers rendering the answers).

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const TOKENIZER: &str = r#"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
    "normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,
    "decoder":null,"model":{"type":"WordLevel","vocab":{"question":0,"answer":1,"word":2,
    "[UNK]":3},"unk_token":"[UNK]"}}"#;

/// Gemma's rule: after an optional system message, the roles alternate from the user's.
const ALTERNATING: &str = "{{ bos_token }}{% if messages[0]['role'] == 'system' %}\
    {% set rest = messages[1:] %}{% else %}{% set rest = messages %}{% endif %}\
    {% for m in rest %}{% if (m['role'] == 'user') != (loop.index0 % 2 == 0) %}\
    {{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}\
    {% endif %}<turn> {{ 'model' if m['role'] == 'assistant' else m['role'] }} \
    {{ m['content'] | trim }} <end> {% endfor %}";

/// Any order of roles.
const ANY_ORDER: &str = "{{ bos_token }}{% for m in messages %}<turn> {{ m['role'] }} \
    {{ m['content'] | trim }} <end> {% endfor %}";

struct Folder(PathBuf);

impl Folder {
    fn new(name: &str, template: Option<&str>) -> Folder {
        let dir = std::env::temp_dir().join(format!("ankita-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("tokenizer.json"), TOKENIZER).unwrap();
        if let Some(t) = template {
            let config = json!({"chat_template": t, "bos_token": "<bos>"});
            std::fs::write(dir.join("tokenizer_config.json"), config.to_string()).unwrap();
        }
        Folder(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A plain chat of `turns` exchanges and a last question, as (role, text).
fn chat(turns: usize) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for i in 0..turns {
        out.push((
            "user",
            format!("question {i} {}", "word ".repeat(30 + i % 7)),
        ));
        out.push((
            "assistant",
            format!("answer {i} {}", "word ".repeat(20 + i % 5)),
        ));
    }
    out.push(("user", "question and now ?".to_string()));
    out
}

const FORMATS: [&str; 5] = ["openai", "responses", "anthropic", "gemini", "ai-sdk"];

/// The chat as `format`'s messages.
fn messages(format: &str, chat: &[(&str, String)]) -> Vec<Value> {
    chat.iter()
        .map(|(role, text)| match format {
            "gemini" => {
                let role = if *role == "assistant" { "model" } else { role };
                json!({"role": role, "parts": [{"text": text}]})
            }
            _ => json!({"role": role, "content": text}),
        })
        .collect()
}

fn trim(format: &str, chat: &[(&str, String)], folder: &Folder, window: u64) -> Value {
    let request = json!({
        "format": format,
        "messages": messages(format, chat),
        "tokenizer": {"file": folder.path()},
        "context_tokens": window,
        "max_output_tokens": 100,
        "overhead_tokens": 0,
    });
    let answer: Value =
        serde_json::from_str(&ankita::api::trim_json(&request.to_string())).unwrap();
    assert_eq!(answer["ok"], true, "{format} {window}: {answer}");
    answer
}

fn first_role(answer: &Value) -> String {
    answer["messages"][0]["role"].as_str().unwrap().to_string()
}

#[test]
fn a_template_that_alternates_from_the_user_starts_every_answer_on_the_users_turn() {
    let alternating = Folder::new("alternating", Some(ALTERNATING));
    let any_order = Folder::new("any-order", Some(ANY_ORDER));
    let chat = chat(12);
    let (mut brought_back, mut let_go, mut kept_as_is) = (0, 0, 0);
    for window in (240..900).step_by(23) {
        for format in FORMATS {
            // The same framing in tokens, the one template refusing an assistant's turn first.
            let control = trim(format, &chat, &any_order, window);
            let answer = trim(format, &chat, &alternating, window);
            let report = &answer["report"];
            let kept = answer["messages"].as_array().unwrap();
            assert!(kept.len() >= 2, "{format} {window}: {answer}");
            // From the user's turn, the roles alternate (earlier user messages kept as anchors
            // may stand before it: the answer is not merged into alternating turns).
            let model = if format == "gemini" {
                "model"
            } else {
                "assistant"
            };
            assert_eq!(kept[0]["role"], "user", "{format} {window}: {answer}");
            let lead = kept.iter().take_while(|m| m["role"] == "user").count();
            for (k, m) in kept.iter().enumerate().skip(lead - 1) {
                let want = if (k + 1 - lead) % 2 == 0 {
                    "user"
                } else {
                    model
                };
                assert_eq!(
                    m["role"], want,
                    "{format} {window}: message {k} of {answer}"
                );
            }
            if !matches!(format, "openai" | "responses") {
                // These formats start on the user's turn whatever the template.
                assert_eq!(answer["messages"], control["messages"], "{format} {window}");
                assert_eq!(report["turn_start"], control["report"]["turn_start"]);
                continue;
            }
            if first_role(&control) == "assistant" {
                // Selection left a run that opens on the assistant's turn: the user's message
                // that began it came back (whole, shrunk or as the placeholder) and the report
                // says which, or, with no room for even the placeholder, the assistant's
                // message went.
                let turn = &report["turn_start"];
                if turn.is_object() {
                    let index = turn["index"].as_u64().unwrap() as usize;
                    assert_eq!(chat[index].0, "user", "{format} {window}: {report}");
                    brought_back += 1;
                } else {
                    let rest = &control["messages"].as_array().unwrap()[1..];
                    assert_eq!(kept, rest, "{format} {window}: {report}");
                    let_go += 1;
                }
                assert_eq!(report["output_messages"].as_u64(), Some(kept.len() as u64));
            } else {
                assert_eq!(answer["messages"], control["messages"], "{format} {window}");
                assert!(
                    report.get("turn_start").is_none(),
                    "{format} {window}: {report}"
                );
                kept_as_is += 1;
            }
        }
    }
    // Each happened, over the windows tried in the two formats.
    assert!(brought_back >= 10, "{brought_back} brought back");
    assert!(let_go >= 1, "{let_go} let go");
    assert!(kept_as_is >= 10, "{kept_as_is} kept as they were");
}

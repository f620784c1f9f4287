//! Every model name of a framework's public model map answers (tests/fixtures/models): a trim
//! with the name succeeds, in tokens and in bytes; a name no family claims carries the
//! `unknown_model` warning and fails only under `strict_model`. The share of names a family
//! claims is printed (`cargo test --release --test model_names -- --nocapture`).

use ankita::api::{count_value, trim_json};
use serde_json::{json, Value};

const NAMES: &str = include_str!("fixtures/models/litellm_chat_models.tsv");

/// The model names of the fixture (its first column).
fn names() -> Vec<&'static str> {
    NAMES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').next().unwrap_or(""))
        .collect()
}

const GIF_1X1: &str = "data:image/gif;base64,R0lGODlhAQABAAAAACw=";

fn request(model: &str, extra: Value) -> Value {
    let mut r = json!({
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [
                {"type": "text", "text": "What is this? Было бы здорово. 画像を見て。"},
                {"type": "image_url", "image_url": {"url": GIF_1X1}}
            ]},
            {"role": "assistant", "content": "A pixel."},
            {"role": "user", "content": "Thanks!"}
        ],
        "model": model,
    });
    for (k, v) in extra.as_object().unwrap() {
        r[k] = v.clone();
    }
    r
}

fn trim(request: &Value) -> Value {
    serde_json::from_str(&trim_json(&request.to_string())).unwrap()
}

fn unknown(answer: &Value) -> bool {
    answer["report"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["code"] == "unknown_model")
}

#[test]
fn every_name_of_the_list_answers() {
    let names = names();
    assert!(names.len() > 3000, "{}", names.len());
    let mut unclaimed = Vec::new();
    for name in &names {
        for extra in [
            json!({"context_tokens": 8192, "max_output_tokens": 1024}),
            json!({"max_bytes": 20_000}),
        ] {
            let answer = trim(&request(name, extra));
            assert_eq!(answer["ok"], true, "{name}: {answer}");
            let kept = answer["messages"].as_array().unwrap();
            assert_eq!(kept.last().unwrap()["content"], "Thanks!", "{name}");
        }
        let answer = trim(&request(name, json!({"context_tokens": 8192})));
        if unknown(&answer) {
            unclaimed.push(*name);
            let strict = trim(&request(
                name,
                json!({"context_tokens": 8192, "strict_model": true}),
            ));
            assert_eq!(strict["ok"], false, "{name}");
            assert_eq!(strict["error"]["path"], "model", "{name}");
        } else {
            let strict = trim(&request(
                name,
                json!({"context_tokens": 8192, "strict_model": true}),
            ));
            assert_eq!(strict["ok"], true, "{name}: {strict}");
        }
        let count = count_value(&request(name, json!({})).to_string()).unwrap();
        assert_eq!(count["unit"], "tokens", "{name}");
    }
    let claimed = names.len() - unclaimed.len();
    println!(
        "{claimed} of {} names ({:.1}%) claimed by a family; the others answer with \
         unknown_model",
        names.len(),
        100.0 * claimed as f64 / names.len() as f64
    );
    if std::env::var_os("ANKITA_LIST_UNCLAIMED").is_some() {
        for name in &unclaimed {
            println!("unclaimed: {name}");
        }
    }
}

/// Names the issue lists, each claimed by a family (no warning).
#[test]
fn framework_spellings_are_claimed() {
    for name in [
        "gpt-3.5-turbo",
        "gpt-4",
        "llama3.1",
        "qwen2.5-7b-instruct",
        "mistral-large",
        "deepseek-chat",
        "ollama/llama3.1",
        "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0",
        "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
        "vertex_ai/gemini-2.5-pro",
        "openrouter/openai/gpt-4o",
        "azure/gpt-4o-2024-08-06",
        "gemini/gemini-2.0-flash",
        "groq/llama-3.3-70b-versatile",
        "together_ai/meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo",
        "fireworks_ai/accounts/fireworks/models/llama-v3p1-70b-instruct",
    ] {
        let answer = trim(&request(name, json!({"context_tokens": 8192})));
        assert_eq!(answer["ok"], true, "{name}: {answer}");
        assert!(!unknown(&answer), "{name}: {answer}");
    }
}

/// gpt-4 and gpt-3.5 count in cl100k_base, exactly; an unknown name in o200k_base × 1.35,
/// an estimate, and the warning says so.
#[test]
fn tokenizers_of_names() {
    let count = |model: &str| count_value(&request(model, json!({})).to_string()).unwrap();
    for model in ["gpt-4", "gpt-4-0613", "gpt-3.5-turbo", "azure/gpt-35-turbo"] {
        let c = count(model);
        assert_eq!(
            (c["tokenizer"].as_str(), c["exact"].as_bool()),
            (Some("cl100k_base"), Some(true)),
            "{model}"
        );
    }
    let c = count("house-model-7");
    assert_eq!(
        (c["tokenizer"].as_str(), c["exact"].as_bool()),
        (Some("o200k_base"), Some(false))
    );
    let message = c["warnings"][0]["message"].as_str().unwrap();
    assert!(message.contains("o200k_base × 1.35"), "{message}");
    // Text alone (images are priced by their rule, not scaled): every count is o200k's × 1.35.
    let text = |key: &str, value: &str| {
        let r = json!({"messages": [{"role": "user", "content": "Было бы здорово. 画像を見て。"}],
                       key: value});
        count_value(&r.to_string()).unwrap()
    };
    let (exact, estimate) = (
        text("tokenizer", "o200k_base"),
        text("model", "house-model-7"),
    );
    let scaled = (exact["total"].as_u64().unwrap() as f64 * 1.35).ceil() as u64;
    assert!(
        estimate["total"].as_u64().unwrap() >= scaled,
        "{exact} {estimate}"
    );
    assert!(
        estimate["total"].as_u64().unwrap() <= scaled + 3,
        "{exact} {estimate}"
    );
}

/// The history the window table allows (window less reserve) is never more than the input
/// LiteLLM's map gives for the same name: a trim for a framework's name never overflows what
/// its host accepts.
#[test]
fn windows_fit_the_maps_inputs() {
    let mut checked = 0;
    let mut over = Vec::new();
    for line in NAMES.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        let (name, input) = (fields[0], fields.get(2).and_then(|n| n.parse::<u64>().ok()));
        let (Some(window), Some(input)) = (ankita::context_windows::for_model(name), input) else {
            continue;
        };
        checked += 1;
        let history = window.context_tokens - window.output_reserve;
        if history > input {
            over.push(format!("{name}: {history} > {input}"));
        }
    }
    println!("{checked} names of the map have a window entry");
    assert!(checked > 300, "{checked}");
    assert!(over.is_empty(), "{} over:\n{}", over.len(), over.join("\n"));
}

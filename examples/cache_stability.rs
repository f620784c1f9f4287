//! What each call of an agent loop costs, and how much of its history a provider's prompt
//! cache can serve: a simulated coding agent (`examples/agent_loop`) trimmed before every model
//! call in four ways —
//!
//! - "opted out": a session made with `trim_to: null`, which answers as the stateless trim
//!   without the cache keys (the baseline, 1×);
//! - "session": a session given no cache option (cache-stable by default: `trim_to` 0.75, the
//!   cut carried from call to call);
//! - "trim_to S + cut": the stateless trim, each call given `trim_to` and the previous answer's
//!   `report.cut` (the same answers as the session at 0.75);
//! - "session + summaries": the default session with a deterministic stand-in summariser:
//!   when the cut moves, the messages `report.compaction` names are folded into the summary
//!   placed after the pinned message (what `Session(summarize=fn)` does).
//!
//! ```text
//! cargo run --release --example cache_stability [-- --tasks N --context-tokens N --shares 0.5,0.75]
//! ```
//!
//! For every format it prints, over the calls after the window first filled: the share of the
//! history's tokens that repeat the previous call's answer as a prefix, the median and
//! 10th-percentile use of the budget, the calls over the budget, how often the cut moved, and
//! the mean input cost per call (thousands of tokens at the model's uncached input price, and
//! relative to the opted-out session) at each provider's published cache prices ([`PRICES`]).

#[path = "agent_loop/mod.rs"]
mod agent_loop;

use agent_loop::{calls, common_prefix, request, session_calls, steps, FORMATS};
use serde_json::{json, Value};

/// A provider's prompt-cache prices, as multiples of its uncached input price.
struct Prices {
    name: &'static str,
    /// What the tokens not served from the cache cost (written to it for the next call).
    write: f64,
    /// What the tokens served from the cache cost.
    read: f64,
    /// The shortest prefix the provider caches, in tokens (a shorter one is billed in full).
    min_prefix: u64,
}

/// Anthropic: a cache write (5-minute TTL) is 1.25× the input price, a read 0.1×; OpenAI from
/// GPT-5.6 on bills the same (before it, cached input at 0.5× and no write billed); Gemini's
/// implicit caching bills the tokens that create a cache at the input price and a hit 0.1×
/// (Google Cloud's context-cache overview: "a 90% discount on cached tokens", no storage
/// cost), from 4,096 tokens for Gemini 3 (2,048 for 2.5), hits not guaranteed.
const PRICES: &[Prices] = &[
    Prices {
        name: "Anthropic, GPT-5.6+",
        write: 1.25,
        read: 0.1,
        min_prefix: 1024,
    },
    Prices {
        name: "GPT before 5.6",
        write: 1.0,
        read: 0.5,
        min_prefix: 1024,
    },
    Prices {
        name: "Gemini implicit",
        write: 1.0,
        read: 0.1,
        min_prefix: 4096,
    },
];

struct Figures {
    prefix_share: f64,
    /// Each call's history tokens and those repeating the previous call's answer.
    tokens: Vec<(u64, u64)>,
    median_use: f64,
    p10_use: f64,
    over: usize,
    moves: usize,
    summaries: usize,
}

impl Figures {
    /// The mean input cost per call at `prices`, in tokens at the uncached price.
    fn cost(&self, prices: &Prices) -> f64 {
        let total: f64 = (self.tokens.iter())
            .map(|&(all, prefix)| {
                let hit = if prefix >= prices.min_prefix {
                    prefix
                } else {
                    0
                };
                prices.read * hit as f64 + prices.write * (all - hit) as f64
            })
            .sum();
        total / self.tokens.len() as f64
    }
}

fn main() {
    let mut tasks = 120;
    let mut context = 32768u64;
    let mut shares = vec![0.75];
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).map_or("", String::as_str);
        match (pair[0].as_str(), value.parse::<u64>().ok()) {
            ("--tasks", Some(n)) => tasks = n as usize,
            ("--context-tokens", Some(n)) => context = n,
            ("--shares", _) => {
                shares = value
                    .split(',')
                    .map(|s| s.parse().expect("--shares takes numbers: 0.5,0.75"))
                    .collect()
            }
            _ => panic!(
                "usage: cache_stability [--tasks N] [--context-tokens N] [--shares 0.5,0.75]"
            ),
        }
    }
    let steps = steps(7, tasks);
    let calls = calls(&steps);
    let base = json!({
        "model": "gpt-4o", "context_tokens": context, "max_output_tokens": 4096,
        "max_messages": null
    });
    println!(
        "{} calls ({} tasks), gpt-4o, context_tokens {context}, max_output_tokens 4096, no \
         message cap; input cost per call in thousands of tokens at the uncached price (× the \
         opted-out session's)",
        calls.len(),
        tasks
    );
    print!(
        "{:<10} {:<20} {:>6} {:>6} {:>6} {:>4} {:>5} {:>5}",
        "format", "trim", "prefix", "median", "p10", "over", "moves", "summ."
    );
    for prices in PRICES {
        print!(" {:>20}", prices.name);
    }
    println!();
    for format in FORMATS {
        let opted_out = json!({"trim_to": null});
        let answers = |extra: &Value, summaries: bool| -> Vec<(Value, bool)> {
            let mut options = base.clone();
            for (k, v) in extra.as_object().expect("options") {
                options[k] = v.clone();
            }
            let calls = session_calls(format, &steps, &options, summaries);
            calls
                .into_iter()
                .map(|c| (c.answer, c.summarised))
                .collect()
        };
        let mut rows = vec![
            (
                "opted out".to_owned(),
                figures(format, &answers(&opted_out, false)),
            ),
            (
                "session".to_owned(),
                figures(format, &answers(&json!({}), false)),
            ),
        ];
        for &share in &shares {
            let answers = stateless(format, &steps, &calls, &base, share);
            rows.push((format!("trim_to {share} + cut"), figures(format, &answers)));
        }
        let summarised = figures(format, &answers(&json!({}), true));
        rows.push(("session + summaries".to_owned(), summarised));
        let baseline: Vec<f64> = PRICES.iter().map(|p| rows[0].1.cost(p)).collect();
        for (name, f) in &rows {
            print!(
                "{format:<10} {name:<20} {:>6.3} {:>6.3} {:>6.3} {:>4} {:>5} {:>5}",
                f.prefix_share, f.median_use, f.p10_use, f.over, f.moves, f.summaries
            );
            for (prices, base) in PRICES.iter().zip(&baseline) {
                let cost = f.cost(prices);
                print!(" {:>12.1}k {:>5.3}×", cost / 1000.0, cost / base);
            }
            println!();
        }
    }
}

/// The stateless trim's answers, each call given `trim_to` and the previous answer's cut.
fn stateless(
    format: &str,
    steps: &[agent_loop::Step],
    calls: &[usize],
    base: &Value,
    trim_to: f64,
) -> Vec<(Value, bool)> {
    let mut cut = Value::Null;
    let mut out = Vec::new();
    for &len in calls {
        let mut options = base.clone();
        options["trim_to"] = json!(trim_to);
        options["cut"] = cut.clone();
        let answer: Value = serde_json::from_str(&ankita::api::trim_json(
            &request(format, &steps[..len], &options).to_string(),
        ))
        .expect("the answer is JSON");
        assert_eq!(answer["ok"], true, "{answer}");
        cut = answer["report"]["cut"].clone();
        out.push((answer, false));
    }
    out
}

/// The figures of a loop's answers (each with whether a new summary was placed), over the
/// calls after the window first filled.
fn figures(format: &str, answers: &[(Value, bool)]) -> Figures {
    let mut previous: Vec<Value> = Vec::new();
    let mut cut = Value::Null;
    let (mut tokens, mut uses) = (Vec::new(), Vec::new());
    let (mut over, mut moves, mut summaries, mut filled) = (0, 0, 0, false);
    for (answer, summarised) in answers {
        let report = &answer["report"];
        let messages = answer["messages"].as_array().expect("messages").clone();
        let new_cut = report.get("cut").cloned().unwrap_or(Value::Null);
        moves += usize::from(!cut.is_null() && new_cut != cut);
        cut = new_cut;
        summaries += usize::from(*summarised);
        filled |= !report["dropped_messages"]
            .as_array()
            .is_none_or(|d| d.is_empty());
        if filled {
            let counts = count(format, &messages, answer.get("system"));
            let same = common_prefix(&previous, &messages);
            let system = counts.0;
            let all: u64 = system + counts.1.iter().sum::<u64>();
            let prefix: u64 = system + counts.1[..same].iter().sum::<u64>();
            tokens.push((all, prefix));
            let budget = report["budget_tokens"].as_u64().expect("a budget");
            let used = report["cost_tokens"].as_u64().expect("a cost");
            over += usize::from(used > budget);
            uses.push(used as f64 / budget as f64);
        }
        previous = messages;
    }
    uses.sort_by(f64::total_cmp);
    let at = |q: f64| uses[((uses.len() - 1) as f64 * q) as usize];
    let (all, repeated) = tokens
        .iter()
        .fold((0, 0), |(a, r), &(all, prefix)| (a + all, r + prefix));
    Figures {
        prefix_share: repeated as f64 / all as f64,
        tokens,
        median_use: at(0.5),
        p10_use: at(0.1),
        over,
        moves,
        summaries,
    }
}

/// The answer's tokens: its outside system prompt's and each message's.
fn count(format: &str, messages: &[Value], system: Option<&Value>) -> (u64, Vec<u64>) {
    let mut request = json!({"messages": messages, "model": "gpt-4o", "format": format});
    if let Some(system) = system {
        request["system"] = system.clone();
    }
    let counted: Value =
        serde_json::from_str(&ankita::api::count_json(&request.to_string())).expect("JSON");
    let per: Vec<u64> = counted["messages"]
        .as_array()
        .expect("counts")
        .iter()
        .map(|c| c.as_u64().unwrap_or(0))
        .collect();
    (counted["system"].as_u64().unwrap_or(0), per)
}

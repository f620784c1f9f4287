//! How much of each call's history a provider's prompt cache can serve: a simulated coding
//! agent (`examples/agent_loop`) trimmed before every model call, statelessly without the cache
//! keys ("plain": what a session opted out with `trim_to: null` answers) and with cache-stable
//! trimming (`trim_to`, each call given the previous answer's `cut`: what a session answers by
//! default, with `trim_to` 0.75).
//!
//! ```text
//! cargo run --release --example cache_stability [-- --tasks N --context-tokens N --shares 0.5,0.75]
//! ```
//!
//! For every format it prints, over the calls after the window first filled: the share of the
//! history's tokens that repeat the previous call's answer as a prefix, the input cost relative
//! to the plain trim at Anthropic's prices and OpenAI's from GPT-5.6 on (0.1× for the repeated
//! prefix, 1.25× for the cache write of the rest) and at OpenAI's before GPT-5.6 (0.5× cached,
//! 1× the rest), the median and 10th-percentile use of the budget, and the calls over the
//! budget.

#[path = "agent_loop/mod.rs"]
mod agent_loop;

use agent_loop::{calls, common_prefix, request, steps, FORMATS};
use serde_json::{json, Value};

struct Figures {
    prefix_share: f64,
    cost: f64,
    cost_before_56: f64,
    median_use: f64,
    p10_use: f64,
    over: usize,
    moves: usize,
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
         message cap",
        calls.len(),
        tasks
    );
    println!(
        "{:<10} {:<22} {:>13} {:>10} {:>10} {:>11} {:>8} {:>5} {:>10}",
        "format",
        "trim",
        "prefix share",
        "cost",
        "cost <5.6",
        "median use",
        "p10 use",
        "over",
        "cut moves"
    );
    for format in FORMATS {
        let today = replay(format, &steps, &calls, &base, None);
        let mut rows = vec![("plain".to_owned(), today)];
        for &share in &shares {
            let name = format!("trim_to {share} + cut");
            rows.push((name, replay(format, &steps, &calls, &base, Some(share))));
        }
        let today = &rows[0].1;
        for (name, f) in &rows {
            println!(
                "{format:<10} {name:<22} {:>13.3} {:>9.3}× {:>9.3}× {:>11.3} {:>8.3} {:>5} {:>10}",
                f.prefix_share,
                f.cost / today.cost,
                f.cost_before_56 / today.cost_before_56,
                f.median_use,
                f.p10_use,
                f.over,
                f.moves
            );
        }
    }
}

fn replay(
    format: &str,
    steps: &[agent_loop::Step],
    calls: &[usize],
    base: &Value,
    trim_to: Option<f64>,
) -> Figures {
    let mut previous: Vec<Value> = Vec::new();
    let mut cut = Value::Null;
    let (mut repeated, mut total, mut cost, mut cost_before_56) = (0u64, 0u64, 0f64, 0f64);
    let mut uses = Vec::new();
    let (mut over, mut moves, mut filled) = (0, 0, false);
    for &len in calls {
        let mut options = base.clone();
        if let Some(share) = trim_to {
            options["trim_to"] = json!(share);
            options["cut"] = cut.clone();
        }
        let answer: Value = serde_json::from_str(&ankita::api::trim_json(
            &request(format, &steps[..len], &options).to_string(),
        ))
        .expect("the answer is JSON");
        assert_eq!(answer["ok"], true, "{answer}");
        let report = &answer["report"];
        let messages = answer["messages"].as_array().expect("messages").clone();
        if trim_to.is_some() {
            if report["cut"] != cut && !cut.is_null() {
                moves += 1;
            }
            cut = report["cut"].clone();
        }
        filled |= !report["dropped_messages"]
            .as_array()
            .is_none_or(|d| d.is_empty());
        if filled {
            let counts = count(format, &messages, answer.get("system"));
            let same = common_prefix(&previous, &messages);
            let system = counts.0;
            let all: u64 = system + counts.1.iter().sum::<u64>();
            let prefix: u64 = system + counts.1[..same].iter().sum::<u64>();
            repeated += prefix;
            total += all;
            cost += 0.1 * prefix as f64 + 1.25 * (all - prefix) as f64;
            cost_before_56 += 0.5 * prefix as f64 + (all - prefix) as f64;
            let budget = report["budget_tokens"].as_u64().expect("a budget");
            let used = report["cost_tokens"].as_u64().expect("a cost");
            over += usize::from(used > budget);
            uses.push(used as f64 / budget as f64);
        }
        previous = messages;
    }
    uses.sort_by(f64::total_cmp);
    let at = |q: f64| uses[((uses.len() - 1) as f64 * q) as usize];
    Figures {
        prefix_share: repeated as f64 / total as f64,
        cost,
        cost_before_56,
        median_use: at(0.5),
        p10_use: at(0.1),
        over,
        moves,
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

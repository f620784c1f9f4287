//! A simulated coding-agent session, written in every wire format: a system prompt, user tasks,
//! 2–8 tool calls each (file reads, test and build logs, searches of 200–5,000 bytes), and the
//! model called after every user message and every tool result. Shared by the
//! `cache_stability` example and `tests/cache_stable.rs`.

#![allow(dead_code)]

use serde_json::{json, Value};

/// One message of the session, in no format yet.
#[derive(Debug, Clone)]
pub enum Step {
    User(String),
    /// The model's words before its call, the call's id, tool name and arguments.
    Call(Option<String>, String, String, Value),
    /// A tool's result: the call's id and tool name, the output.
    Result(String, String, String),
    Answer(String),
}

pub const SYSTEM: &str = "You are a coding agent working in the user's repository. Read files \
    before you edit them, run the tests after every change, and explain what you changed.";

/// A small deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.range(0, items.len() - 1)]
    }
}

const WORDS: &[&str] = &[
    "config", "parser", "session", "window", "buffer", "token", "render", "layout", "cache",
    "request", "handler", "result", "error", "value", "index", "message", "report", "budget",
    "image", "stream", "thread", "queue", "client", "server", "schema", "field", "option",
];
const FILES: &[&str] = &[
    "src/main.rs",
    "src/lib.rs",
    "src/parser.rs",
    "src/cache.rs",
    "tests/api.rs",
    "src/server/handler.rs",
    "README.md",
    "Cargo.toml",
    "src/render/layout.rs",
];
const TOOLS: &[&str] = &["read_file", "run_tests", "grep", "build", "list_dir"];

fn text_of(rng: &mut Rng, bytes: usize, tool: &str) -> String {
    let mut out = String::with_capacity(bytes + 80);
    let mut line = 0;
    while out.len() < bytes {
        line += 1;
        let (a, b, c) = (rng.pick(WORDS), rng.pick(WORDS), rng.pick(WORDS));
        let l = match tool {
            "read_file" => format!("    let {a}_{b} = self.{c}.get({line}).map(|v| v.{a}());\n"),
            "run_tests" => format!("test {a}::{b}_{c}_{line} ... ok\n"),
            "grep" => format!("{}:{line}: fn {a}_{b}(&self) -> {c} {{\n", rng.pick(FILES)),
            "build" => format!("   Compiling {a}-{b} v0.{line}.0 ({c})\n"),
            _ => format!("{a}_{b}_{line}.{c}\n"),
        };
        out.push_str(&l);
    }
    out.truncate(bytes);
    out
}

/// The session's steps: `tasks` user tasks, each with 2–8 tool calls and an answer.
pub fn steps(seed: u64, tasks: usize) -> Vec<Step> {
    let mut rng = Rng::new(seed);
    let mut steps = Vec::new();
    let mut id = 0;
    for t in 0..tasks {
        let (a, b) = (rng.pick(WORDS), rng.pick(WORDS));
        steps.push(Step::User(format!(
            "Task {t}: the {a} {b} is wrong when the {} is empty. Find why and fix it; keep the \
             public API as it is.",
            rng.pick(WORDS)
        )));
        for _ in 0..rng.range(2, 8) {
            id += 1;
            let tool = rng.pick(TOOLS).to_owned();
            let args = match tool.as_str() {
                "read_file" => json!({"path": rng.pick(FILES)}),
                "grep" => json!({"pattern": rng.pick(WORDS), "path": "src"}),
                "run_tests" => json!({"filter": rng.pick(WORDS)}),
                _ => json!({}),
            };
            let words =
                (rng.range(0, 2) == 0).then(|| format!("Let me look at the {}.", rng.pick(WORDS)));
            let call = format!("call_{id}");
            steps.push(Step::Call(words, call.clone(), tool.clone(), args));
            let size = rng.range(200, 5000);
            steps.push(Step::Result(
                call,
                tool.clone(),
                text_of(&mut rng, size, &tool),
            ));
        }
        steps.push(Step::Answer(format!(
            "Fixed: the {} now checks the {} first; the tests pass.",
            rng.pick(WORDS),
            rng.pick(WORDS)
        )));
    }
    steps
}

/// The indices after which the model is called: after every user message and tool result.
pub fn calls(steps: &[Step]) -> Vec<usize> {
    (0..steps.len())
        .filter(|&k| matches!(steps[k], Step::User(_) | Step::Result(..)))
        .map(|k| k + 1)
        .collect()
}

/// Every wire format.
pub const FORMATS: &[&str] = &["openai", "anthropic", "responses", "gemini", "ai-sdk"];

/// Whether the format's system prompt is its first message (else it is outside them).
pub fn system_first(format: &str) -> bool {
    matches!(format, "openai" | "ai-sdk")
}

/// The session's first `len` steps as a request's `messages` (and its `system`, outside the
/// messages where the format has one).
pub fn write(format: &str, steps: &[Step]) -> (Vec<Value>, Option<Value>) {
    let mut out = Vec::new();
    let system = match format {
        "openai" | "ai-sdk" => {
            out.push(json!({"role": "system", "content": SYSTEM}));
            None
        }
        "gemini" => Some(json!({"parts": [{"text": SYSTEM}]})),
        _ => Some(json!(SYSTEM)),
    };
    for step in steps {
        out.push(match (format, step) {
            ("gemini", Step::User(t)) => json!({"role": "user", "parts": [{"text": t}]}),
            (_, Step::User(t)) => json!({"role": "user", "content": t}),
            ("gemini", Step::Answer(t)) => json!({"role": "model", "parts": [{"text": t}]}),
            (_, Step::Answer(t)) => json!({"role": "assistant", "content": t}),
            ("openai", Step::Call(words, id, name, args)) => json!({
                "role": "assistant", "content": words,
                "tool_calls": [{"id": id, "type": "function",
                    "function": {"name": name, "arguments": args.to_string()}}]
            }),
            ("openai", Step::Result(id, _, output)) => {
                json!({"role": "tool", "tool_call_id": id, "content": output})
            }
            ("anthropic", Step::Call(words, id, name, args)) => {
                let mut blocks = Vec::new();
                if let Some(w) = words {
                    blocks.push(json!({"type": "text", "text": w}));
                }
                blocks.push(json!({"type": "tool_use", "id": id, "name": name, "input": args}));
                json!({"role": "assistant", "content": blocks})
            }
            ("anthropic", Step::Result(id, _, output)) => json!({
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": id, "content": output}]
            }),
            ("responses", Step::Call(_, id, name, args)) => json!({
                "type": "function_call", "call_id": id, "name": name,
                "arguments": args.to_string()
            }),
            ("responses", Step::Result(id, _, output)) => {
                json!({"type": "function_call_output", "call_id": id, "output": output})
            }
            ("ai-sdk", Step::Call(words, id, name, args)) => {
                let mut parts = Vec::new();
                if let Some(w) = words {
                    parts.push(json!({"type": "text", "text": w}));
                }
                parts.push(
                    json!({"type": "tool-call", "toolCallId": id, "toolName": name,
                    "input": args}),
                );
                json!({"role": "assistant", "content": parts})
            }
            ("ai-sdk", Step::Result(id, name, output)) => json!({
                "role": "tool",
                "content": [{"type": "tool-result", "toolCallId": id, "toolName": name,
                    "output": {"type": "text", "value": output}}]
            }),
            ("gemini", Step::Call(words, id, name, args)) => {
                let mut parts = Vec::new();
                if let Some(w) = words {
                    parts.push(json!({"text": w}));
                }
                parts.push(json!({"functionCall": {"id": id, "name": name, "args": args}}));
                json!({"role": "model", "parts": parts})
            }
            ("gemini", Step::Result(id, name, output)) => json!({
                "role": "user",
                "parts": [{"functionResponse": {"id": id, "name": name,
                    "response": {"output": output}}}]
            }),
            (f, _) => panic!("unknown format {f}"),
        });
    }
    (out, system)
}

/// A trim request for the session's first steps.
pub fn request(format: &str, steps: &[Step], options: &Value) -> Value {
    let (messages, system) = write(format, steps);
    let mut request = options.clone();
    request["messages"] = Value::Array(messages);
    request["format"] = json!(format);
    if let Some(system) = system {
        request["system"] = system;
    }
    request
}

/// How many of `answer`'s messages repeat `previous`'s from the start.
pub fn common_prefix(previous: &[Value], answer: &[Value]) -> usize {
    previous
        .iter()
        .zip(answer)
        .take_while(|(a, b)| a == b)
        .count()
}

/// The stand-in summariser: a line naming the messages it folds in, after the previous
/// summary's text (what a model would write, deterministic).
pub fn summarise(previous: Option<&str>, messages: &[u64]) -> String {
    let mut text = previous.unwrap_or("").to_owned();
    if let (Some(first), Some(last)) = (messages.first(), messages.last()) {
        text.push_str(&format!(
            "Messages {first} to {last}: the agent read files and ran the build. "
        ));
    }
    text
}

/// One call of a session over the loop.
pub struct Call {
    /// How many steps the session held.
    pub len: usize,
    /// The answer: `{"ok", "messages", "report", "system"?}`.
    pub answer: Value,
    /// A new summary was placed on this call.
    pub summarised: bool,
}

/// Feeds the loop to a session (`ankita::session::TrimSession`) made with `options` (the
/// format's system prompt given apart where it has one), trimming before every model call.
/// With `summaries`, a trim whose cut moved folds the messages `report.compaction` names into
/// the stand-in summary and trims again with it, as the bindings' `summarize` does (a summary
/// that does not fit is taken back).
pub fn session_calls(format: &str, steps: &[Step], options: &Value, summaries: bool) -> Vec<Call> {
    use ankita::cache_keys::Summary;
    let mut options = options.clone();
    options["format"] = json!(format);
    let (first, system) = write(format, &steps[..0]);
    if let Some(system) = system {
        options["system"] = system;
    }
    let mut session = ankita::session::TrimSession::new(&options.to_string()).expect("options");
    for message in &first {
        session.append(&format!("[{message}]")).expect("a message");
    }
    let trim = |session: &mut ankita::session::TrimSession| -> Value {
        serde_json::from_str(&session.trim_answer().expect("a trim").into_string()).expect("JSON")
    };
    let (mut out, mut at) = (Vec::new(), 0);
    for len in calls(steps) {
        // `write` starts with the system prompt where it is the first message: held already.
        let (messages, _) = write(format, &steps[at..len]);
        at = len;
        let added = &messages[usize::from(system_first(format))..];
        let text: Vec<String> = added.iter().map(Value::to_string).collect();
        session
            .append(&format!("[{}]", text.join(",")))
            .expect("messages");
        let mut answer = trim(&mut session);
        let mut summarised = false;
        let compaction = answer["report"].get("compaction").cloned();
        if let Some(compaction) = compaction.filter(|_| summaries) {
            let named: Vec<u64> = compaction["messages"]
                .as_array()
                .expect("indices")
                .iter()
                .filter_map(Value::as_u64)
                .collect();
            let previous = session.summary().cloned();
            let text = summarise(previous.as_ref().map(|s| s.text.as_str()), &named);
            let through = compaction["through"].as_u64().expect("through") as usize;
            session.set_summary(Some(Summary { text, through }));
            let again = trim(&mut session);
            let over = again["report"]["warnings"]
                .as_array()
                .is_some_and(|w| w.iter().any(|w| w["code"] == "summary_over_budget"));
            if over {
                session.set_summary(previous);
            } else {
                (answer, summarised) = (again, true);
            }
        }
        out.push(Call {
            len,
            answer,
            summarised,
        });
    }
    out
}

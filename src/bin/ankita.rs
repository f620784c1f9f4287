//! The `ankita` command line.
//!
//! Exit codes: 0 success; 1 the budget cannot be met (`context_budget_exceeded`,
//! `history_budget_too_small`, `image_overflow`); 2 usage error; 3 invalid input (unreadable
//! file, invalid JSON, invalid request).

use ankita::api;
use ankita::format::openai::image_url_of_value as image_url_of;
use ankita::pricing::{price_image_url, price_probe, ImagePrice};
use ankita::probe;
use ankita::shed::describe_image;
use ankita::{Error, ErrorCode};
use serde_json::{Map, Value};
use std::io::Read;
use std::process::ExitCode;

const USAGE: &str = "\
usage:
  ankita trim [FILE|-] [--max-bytes N] [--context-tokens N] [--max-output-tokens N]
              [--max-messages N] [--tools FILE] [--memory FILE] [--profile P | --model M]
              [--on-image-overflow placeholder|drop|error] [--format openai|anthropic] [--summary]
      FILE holds a request object ({\"messages\": [...], ...}) or a bare messages array.
      Prints the response JSON; --summary also prints a readable report to stderr.
  ankita sanitize [FILE|-] [--format openai|anthropic]
      repair a restored session (orphan tool messages, broken calls)
  ankita probe [--json] [--profile P | --model M] [--detail low|high|auto] FILE|DATA_URL...
      format, pixel size and price of images
  ankita --version";

/// Prints a line on stdout. A reader that went away (`ankita trim big.json | head`) ends the
/// program quietly instead of panicking in `println!`.
macro_rules! out {
    ($($arg:tt)*) => {
        emit(format_args!($($arg)*))
    };
}

fn emit(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("ankita: cannot write the answer: {e}");
        std::process::exit(i32::from(EXIT_INVALID_INPUT));
    }
}

const EXIT_BUDGET: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_INVALID_INPUT: u8 = 3;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("trim") => trim_command(&args[1..]),
        Some("sanitize") => sanitize_command(&args[1..]),
        Some("probe") => probe_command(&args[1..]),
        Some("--version") | Some("-V") => {
            out!("ankita {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        Some("--help") | Some("-h") => {
            out!("{USAGE}");
            Ok(())
        }
        _ => Err(Failure::Usage("missing or unknown command".into())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            eprintln!("ankita: {message}\n{USAGE}");
            ExitCode::from(EXIT_USAGE)
        }
        Err(Failure::Input(message)) => {
            eprintln!("ankita: {message}");
            ExitCode::from(EXIT_INVALID_INPUT)
        }
        Err(Failure::Api(error)) => {
            out!("{}", error.to_response());
            eprintln!("ankita: {error}");
            let budget = matches!(
                error.code,
                ErrorCode::ContextBudgetExceeded
                    | ErrorCode::HistoryBudgetTooSmall
                    | ErrorCode::ImageOverflow
            );
            ExitCode::from(if budget {
                EXIT_BUDGET
            } else {
                EXIT_INVALID_INPUT
            })
        }
    }
}

enum Failure {
    Usage(String),
    Input(String),
    Api(Error),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure::Api(error)
    }
}

/// The value after a flag such as `--max-bytes`.
fn flag_value(args: &mut std::slice::Iter<'_, String>, flag: &str) -> Result<String, Failure> {
    args.next()
        .cloned()
        .ok_or_else(|| Failure::Usage(format!("{flag} needs a value")))
}

fn read_input(path: Option<&str>) -> Result<String, Failure> {
    let mut text = String::new();
    match path {
        None | Some("-") => std::io::stdin()
            .read_to_string(&mut text)
            .map(|_| text)
            .map_err(|e| Failure::Input(format!("stdin: {e}"))),
        Some(path) => {
            std::fs::read_to_string(path).map_err(|e| Failure::Input(format!("{path}: {e}")))
        }
    }
}

fn parse_json(text: &str, what: &str) -> Result<Value, Failure> {
    serde_json::from_str(text).map_err(|e| {
        Failure::Api(Error::new(
            ErrorCode::InvalidJson,
            format!("{what}: invalid JSON: {e}"),
        ))
    })
}

fn trim_command(args: &[String]) -> Result<(), Failure> {
    let mut file = None;
    let mut summary = false;
    let mut overrides = Map::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| flag_value(&mut it, name);
        let number = |name: &str, v: String| -> Result<Value, Failure> {
            v.parse::<u64>().map(Value::from).map_err(|_| {
                Failure::Usage(format!("{name} takes a non-negative integer, not {v:?}"))
            })
        };
        match arg.as_str() {
            "--summary" => summary = true,
            "--max-bytes" => {
                overrides.insert("max_bytes".into(), number(arg, value(arg)?)?);
            }
            "--context-tokens" => {
                overrides.insert("context_tokens".into(), number(arg, value(arg)?)?);
            }
            "--max-output-tokens" => {
                overrides.insert("max_output_tokens".into(), number(arg, value(arg)?)?);
            }
            "--max-messages" => {
                overrides.insert("max_messages".into(), number(arg, value(arg)?)?);
            }
            "--profile" => {
                overrides.insert("image_profile".into(), value(arg)?.into());
            }
            "--model" => {
                overrides.insert("model".into(), value(arg)?.into());
            }
            "--format" => {
                overrides.insert("format".into(), value(arg)?.into());
            }
            "--on-image-overflow" => {
                overrides.insert("on_image_overflow".into(), value(arg)?.into());
            }
            "--tools" => {
                let path = value(arg)?;
                overrides.insert(
                    "tools".into(),
                    parse_json(&read_input(Some(&path))?, &path)?,
                );
            }
            "--memory" => {
                let path = value(arg)?;
                overrides.insert("memory".into(), read_input(Some(&path))?.into());
            }
            flag if flag.starts_with("--") => {
                return Err(Failure::Usage(format!("unknown option {flag}")))
            }
            path if file.is_none() => file = Some(path.to_owned()),
            extra => return Err(Failure::Usage(format!("unexpected argument {extra:?}"))),
        }
    }
    let input = parse_json(
        &read_input(file.as_deref())?,
        file.as_deref().unwrap_or("stdin"),
    )?;
    let mut request = match input {
        Value::Array(messages) => {
            let mut request = Map::new();
            request.insert("messages".into(), Value::Array(messages));
            request
        }
        Value::Object(request) => request,
        _ => {
            return Err(Failure::Input(
                "the input must be a request object or a messages array".into(),
            ))
        }
    };
    request.extend(overrides);
    let images = if summary {
        image_inventory(&request)
    } else {
        Vec::new()
    };
    let response = api::trim_value(Value::Object(request))?;
    out!("{response}");
    if summary {
        eprint!("{}", render_summary(&response["report"], &images));
    }
    Ok(())
}

fn sanitize_command(args: &[String]) -> Result<(), Failure> {
    let mut format = None;
    let mut file = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--format" => format = Some(flag_value(&mut it, arg)?),
            flag if flag.starts_with("--") => {
                return Err(Failure::Usage(format!("unknown option {flag}")))
            }
            path if file.is_none() => file = Some(path.to_owned()),
            _ => return Err(Failure::Usage("sanitize takes one FILE".into())),
        }
    }
    let mut input = parse_json(&read_input(file.as_deref())?, "input")?;
    if let Some(format) = format {
        let messages = match input {
            Value::Object(mut request) => request.remove("messages").unwrap_or(Value::Null),
            other => other,
        };
        input = serde_json::json!({"messages": messages, "format": format});
    }
    let response = api::sanitize_value(input)?;
    out!("{response}");
    Ok(())
}

/// The price and encoded length of an Anthropic image block.
fn anthropic_image_price(
    block: &Value,
    profile: ankita::ImageProfile,
    bpt: u64,
) -> Option<(ImagePrice, usize)> {
    if block["type"] != "image" {
        return None;
    }
    let source = &block["source"];
    let (url, bytes) = match (source["data"].as_str(), source["url"].as_str()) {
        (Some(data), _) => (format!("data:image/*;base64,{data}"), data.len()),
        (None, Some(url)) => (url.to_owned(), url.len()),
        _ => return None,
    };
    Some((price_image_url(&url, profile, None, bpt), bytes))
}

/// Every image of the request with its price, for the summary.
fn image_inventory(request: &Map<String, Value>) -> Vec<(usize, usize, ImagePrice, usize)> {
    let profile = ankita::request::profile_of(request).unwrap_or_default();
    let bpt = request
        .get("bytes_per_token")
        .and_then(Value::as_u64)
        .unwrap_or(4);
    let mut images = Vec::new();
    let messages = request.get("messages").and_then(Value::as_array);
    for (i, message) in messages.into_iter().flatten().enumerate() {
        let parts = message.get("content").and_then(Value::as_array);
        for (p, part) in parts.into_iter().flatten().enumerate() {
            match part.get("type").and_then(Value::as_str) {
                Some("image_url") => {
                    if let Some((url, detail)) = part.as_object().and_then(image_url_of) {
                        images.push((i, p, price_image_url(url, profile, detail, bpt), url.len()));
                    }
                }
                // Anthropic: images inside a tool result are listed under its block.
                Some("tool_result") => {
                    for inner in part["content"].as_array().into_iter().flatten() {
                        if let Some(price) = anthropic_image_price(inner, profile, bpt) {
                            images.push((i, p, price.0, price.1));
                        }
                    }
                }
                // Anthropic image blocks: base64 data or a URL.
                Some("image") => {
                    if let Some((price, bytes)) = anthropic_image_price(part, profile, bpt) {
                        images.push((i, p, price, bytes));
                    }
                }
                _ => {}
            }
        }
    }
    images
}

fn render_summary(report: &Value, images: &[(usize, usize, ImagePrice, usize)]) -> String {
    let list = |key: &str| -> Vec<Value> { report[key].as_array().cloned().unwrap_or_default() };
    let mut out = String::new();
    let budget = match report["budget_bytes"].as_u64() {
        Some(b) => format!("{b} bytes (~{} tokens)", report["budget_tokens"]),
        None => "none (max_messages only)".into(),
    };
    out += &format!(
        "ankita: kept {} of {} messages; cost {} bytes (~{} tokens); budget {budget}\n",
        report["output_messages"],
        report["input_messages"],
        report["cost_bytes"],
        report["cost_tokens"]
    );
    let dropped = list("dropped_messages");
    if !dropped.is_empty() {
        let indices: Vec<String> = dropped.iter().map(Value::to_string).collect();
        out += &format!(
            "  dropped {} messages: {}\n",
            dropped.len(),
            indices.join(", ")
        );
    }
    for t in list("truncated") {
        out += &format!(
            "  shrunk messages[{}]{}: {} → {} bytes\n",
            t["index"],
            part_suffix(&t["part"]),
            t["from_bytes"],
            t["to_bytes"]
        );
    }
    for a in list("dropped_attachments") {
        out += &format!(
            "  dropped attachment body messages[{}].content[{}]: {} bytes\n",
            a["index"], a["part"], a["bytes"]
        );
    }
    for r in list("repaired") {
        out += &format!(
            "  repaired messages[{}]: {} ({})\n",
            r["index"],
            r["action"].as_str().unwrap_or(""),
            r["reason"].as_str().unwrap_or("")
        );
    }
    let dropped_images = list("dropped_images");
    let budget_bytes = report["budget_bytes"].as_u64();
    for &(i, p, price, url_bytes) in images {
        let was_dropped = dropped_images
            .iter()
            .any(|d| d["index"] == i && d["part"] == p)
            || dropped.iter().any(|d| *d == i);
        let as_text = match budget_bytes {
            Some(b) if url_bytes as u64 > b && !was_dropped => {
                "; measured as text it alone would exceed the budget"
            }
            _ => "",
        };
        out += &format!(
            "  image messages[{i}].content[{p}]: {} = {} budget bytes (encoded {} bytes) — {}{as_text}\n",
            describe_image(&price),
            price.budget_bytes,
            url_bytes,
            if was_dropped { "dropped" } else { "kept" }
        );
    }
    out
}

fn part_suffix(part: &Value) -> String {
    match part.as_u64() {
        Some(p) => format!(".content[{p}]"),
        None => String::new(),
    }
}

fn probe_command(args: &[String]) -> Result<(), Failure> {
    let mut json = false;
    let mut inputs = Vec::new();
    let mut profile_keys = Map::new();
    let mut detail = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| flag_value(&mut it, name);
        match arg.as_str() {
            "--json" => json = true,
            "--profile" => {
                profile_keys.insert("image_profile".into(), value(arg)?.into());
            }
            "--model" => {
                profile_keys.insert("model".into(), value(arg)?.into());
            }
            "--detail" => detail = Some(value(arg)?),
            flag if flag.starts_with("--") => {
                return Err(Failure::Usage(format!("unknown option {flag}")))
            }
            input => inputs.push(input.to_owned()),
        }
    }
    if inputs.is_empty() {
        return Err(Failure::Usage(
            "probe needs at least one FILE or data URL".into(),
        ));
    }
    let profile = ankita::request::profile_of(&profile_keys)?;
    let mut failed = None;
    for input in &inputs {
        let (label, result, size) = if probe::is_data_url(input) {
            let shown: String = input.chars().take(40).collect();
            (format!("{shown}…"), probe::probe_text(input), input.len())
        } else {
            match std::fs::read(input) {
                Ok(bytes) => {
                    let result = probe::probe_bytes(&bytes).or_else(|e| {
                        // A text file may hold a data URL or base64.
                        std::str::from_utf8(&bytes)
                            .ok()
                            .and_then(|text| probe::probe_text(text).ok())
                            .ok_or(e)
                    });
                    (input.clone(), result, bytes.len())
                }
                Err(e) => {
                    eprintln!("ankita: {input}: {e}");
                    failed = Some(Failure::Input(format!("{input}: {e}")));
                    continue;
                }
            }
        };
        let price = price_probe(result, size, profile, detail.as_deref(), 4);
        if json {
            let mut line = Map::new();
            line.insert("input".into(), label.into());
            line.extend(ankita::price_fields(&price));
            line.insert("input_bytes".into(), size.into());
            out!("{}", Value::Object(line));
        } else {
            match price.probe {
                Ok(_) => out!(
                    "{label}: {} = {} budget bytes (input {} bytes)",
                    describe_image(&price),
                    price.budget_bytes,
                    size
                ),
                Err(e) => out!(
                    "{label}: not decodable ({e}); costs its {} bytes",
                    price.budget_bytes
                ),
            }
        }
    }
    failed.map_or(Ok(()), Err)
}

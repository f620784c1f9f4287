//! The `ankita` command line: probe images (and, with the trimming engine, trim and sanitize
//! sessions). Exit codes: 0 success, 1 budget failure, 2 usage error, 3 invalid input.

use ankita::pricing::{price_probe, ImageProfile, DEFAULT_BYTES_PER_TOKEN};
use ankita::probe;
use std::process::ExitCode;

const USAGE: &str = "\
usage:
  ankita probe [--json] FILE|DATA_URL...   format, pixel size and price of images
  ankita --version";

const EXIT_USAGE: u8 = 2;
const EXIT_INVALID_INPUT: u8 = 3;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("probe") => probe_command(&args[1..]),
        Some("--version") | Some("-V") => {
            println!("ankita {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some("--help") | Some("-h") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => usage_error("missing or unknown command"),
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("ankita: {message}\n{USAGE}");
    ExitCode::from(EXIT_USAGE)
}

fn probe_command(args: &[String]) -> ExitCode {
    let json = args.iter().any(|a| a == "--json");
    let inputs: Vec<&String> = args.iter().filter(|a| *a != "--json").collect();
    if let Some(flag) = inputs.iter().find(|a| a.starts_with("--")) {
        return usage_error(&format!("unknown option {flag}"));
    }
    if inputs.is_empty() {
        return usage_error("probe needs at least one FILE or data URL");
    }
    let profile = ImageProfile::default();
    let mut status = ExitCode::SUCCESS;
    for input in inputs {
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
                    status = ExitCode::from(EXIT_INVALID_INPUT);
                    continue;
                }
            }
        };
        let price = price_probe(result, size, profile, None, DEFAULT_BYTES_PER_TOKEN);
        if json {
            let info = price.probe.ok();
            println!(
                "{}",
                serde_json::json!({
                    "input": label,
                    "format": info.map(|i| i.format.as_str()),
                    "width": info.map(|i| i.width),
                    "height": info.map(|i| i.height),
                    "tokens": price.tokens,
                    "budget_bytes": price.budget_bytes,
                    "input_bytes": size,
                })
            );
        } else {
            match price.probe {
                Ok(info) => println!(
                    "{label}: {} {}×{}, {} tokens = {} budget bytes (input {} bytes)",
                    info.format,
                    info.width,
                    info.height,
                    price.tokens.unwrap_or(0),
                    price.budget_bytes,
                    size
                ),
                Err(e) => println!(
                    "{label}: not decodable ({e}); costs its {} bytes",
                    price.budget_bytes
                ),
            }
        }
    }
    status
}

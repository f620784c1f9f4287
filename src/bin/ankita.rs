//! The `ankita` command line: `trim` (one request, or one per line with `--jsonl`), `count`,
//! `sanitize` and `probe`. Arguments are `OsString`s parsed with `lexopt`; every option is
//! described once, with its docs, in [`flags`]. The request the core reads is the caller's text
//! itself with the command line's keys spliced in ([`ankita::splice`]), answered by the core's JSON
//! contract ([`ankita::api`]): the command line answers what the C ABI and every binding answer
//! for the same text.
//!
//! Exit codes: 0 success; 1 the budget cannot be met (`context_budget_exceeded`,
//! `history_budget_too_small`, `image_overflow`); 2 usage error; 3 invalid input (unreadable
//! file, invalid JSON, invalid request).

// The command's modules live in src/bin/ankita/, beside this file.
#[path = "ankita/batch.rs"]
mod batch;
#[path = "ankita/flags.rs"]
mod flags;
#[path = "ankita/summary.rs"]
mod summary;

use ankita::splice::{self, answer, Key, Precedence, Splice};
use ankita::{api, probe, Error, ErrorCode};
use flags::{KeyValue, Parsed, Setting};
use lexopt::Arg;
use serde_json::{Map, Value};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const EXIT_OK: u8 = 0;
const EXIT_BUDGET: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_INVALID_INPUT: u8 = 3;

const USAGE: &str = "\
usage:
  ankita trim [OPTIONS] [FILE|-]           trim one request (object or bare messages array)
  ankita trim --jsonl [OPTIONS] [FILE|-]   trim one request per line, on every core
  ankita count [OPTIONS] [FILE|-]          count a history's tokens as trim prices them
  ankita sanitize [--format F] [FILE|-]    repair a restored session (orphan tool messages,
                                           broken calls)
  ankita probe [OPTIONS] FILE|DATA_URL...  format, size and price of images, PDFs and audio
  ankita help [COMMAND]                    this text, or a command's options
  ankita --version

Run `ankita COMMAND --help` for a command's options.";

const TRIM_HELP: &str = "\
ankita trim: fit a chat history into a model's context budget

usage: ankita trim [OPTIONS] [FILE|-]
       ankita trim --jsonl [OPTIONS] [FILE|-]

FILE holds a request object ({\"messages\": [...], ...}) or a bare messages array; without FILE,
or with -, it is read from stdin. The response JSON goes to stdout. Each option below sets a key
of the request (DESIGN §8), replacing that key in FILE.

With --jsonl each input line is one request (an object or a bare messages array) and each output
line is its answer, in input order; a bad line is answered with its error JSON and the run goes
on. Here the options are defaults: they fill in the keys a request lacks, and a request's own keys
win (image_profile and model count as one key). A progress line goes to stderr while stderr is a
terminal, and a tally (lines, ok, errors) at the end.

exit codes: 0 success; 1 the budget cannot be met (context_budget_exceeded,
history_budget_too_small, image_overflow; the error JSON is still printed); 2 usage error;
3 invalid input (unreadable file, invalid JSON or request). With --jsonl: 0 when every line
succeeded, else 3 when some line was invalid, else 1.
";

const COUNT_HELP: &str = "\
ankita count: count a chat history the way trim prices it

usage: ankita count [OPTIONS] [FILE|-]

FILE holds a request object ({\"messages\": [...], ...}), a bare messages array, or trim's own
answer ({\"ok\": true, \"messages\": [...], \"report\": {...}}: its messages, and its system
where the format has one, counted in the format its report names); without FILE, or with -, it
is read from stdin. The answer is {\"ok\": true, \"unit\", \"tokenizer\", \"exact\", \"total\",
\"messages\": [each message's cost], \"system\"?, \"tools\"?}: the model's tokens when --model
names a model whose tokenizer is known (or --tokenizer is given), else bytes; total is the sum
of the messages, the system prompt and the tool schemas. Nothing is repaired or trimmed.
Exit code 3 for invalid input (its error JSON on stdout).
";

const SANITIZE_HELP: &str = "\
ankita sanitize: repair a restored session without trimming it

usage: ankita sanitize [OPTIONS] [FILE|-]

FILE holds a messages array or {\"messages\": [...]}; without FILE, or with -, it is read from
stdin. Orphan tool messages go, assistant messages whose tool calls are broken or unanswered lose
them (with a visible note), unknown roles and empty messages go. The response JSON goes to stdout.
Exit codes as for trim.
";

const PROBE_HELP: &str = "\
ankita probe: format, pixel size and price of images, read from their headers alone; page
count of PDFs and duration of audio files, read from their structure

usage: ankita probe [OPTIONS] FILE|DATA_URL...

Each input is a data URL, or a file holding an image, a data URL or bare base64. An image that
cannot be decoded costs its input's length. A PDF or audio file whose structure claims more
than its size can hold is flagged implausible_file, with the price a trim gives it instead (an
unreadable file of its size). Exit code 3 when a file cannot be read.
";

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
        let _ = write_failure(e);
    }
}

/// What a failed write to stdout means: a reader that went away ends the program quietly.
fn write_failure(e: std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("ankita: cannot write the answer: {e}");
    std::process::exit(i32::from(EXIT_INVALID_INPUT));
}

/// Why a command stopped.
enum Failure {
    /// A usage error (exit 2).
    Usage(String),
    /// Input that cannot be read (exit 3).
    Input(String),
    /// An error of the JSON contract found before the core was called (its JSON is printed).
    Api(Error),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure::Api(error)
    }
}

fn main() -> ExitCode {
    let mut parser = lexopt::Parser::from_env();
    match run(&mut parser) {
        Ok(code) => ExitCode::from(code),
        Err(Failure::Usage(message)) => {
            eprintln!("ankita: {message}\n{USAGE}");
            ExitCode::from(EXIT_USAGE)
        }
        Err(Failure::Input(message)) => {
            eprintln!("ankita: {message}");
            ExitCode::from(EXIT_INVALID_INPUT)
        }
        Err(Failure::Api(error)) => {
            let response = error.to_response();
            out!("{response}");
            eprintln!("ankita: {error}");
            ExitCode::from(exit_code(outcome_of_code(error.code.as_str())))
        }
    }
}

/// Runs the command named by the first argument; answers the exit code.
fn run(parser: &mut lexopt::Parser) -> Result<u8, Failure> {
    let first = parser.next().map_err(|e| Failure::Usage(e.to_string()))?;
    match first {
        None => Err(Failure::Usage("missing command".into())),
        Some(Arg::Long("help") | Arg::Short('h')) => {
            out!("{USAGE}");
            Ok(EXIT_OK)
        }
        Some(Arg::Long("version") | Arg::Short('V')) => {
            out!("ankita {}", env!("CARGO_PKG_VERSION"));
            Ok(EXIT_OK)
        }
        Some(Arg::Long(name)) => Err(Failure::Usage(format!("unknown option --{name}"))),
        Some(Arg::Short(c)) => Err(Failure::Usage(format!("unknown option -{c}"))),
        Some(Arg::Value(command)) => match command.to_str() {
            Some("trim") => trim_command(flags::parse(parser, flags::TRIM)?),
            Some("count") => count_command(flags::parse(parser, flags::COUNT)?),
            Some("sanitize") => sanitize_command(flags::parse(parser, flags::SANITIZE)?),
            Some("probe") => probe_command(flags::parse(parser, flags::PROBE)?),
            Some("help") => help_command(parser),
            _ => Err(Failure::Usage(format!("unknown command {command:?}"))),
        },
    }
}

fn help_command(parser: &mut lexopt::Parser) -> Result<u8, Failure> {
    let topic = match parser.next().map_err(|e| Failure::Usage(e.to_string()))? {
        None => None,
        Some(Arg::Value(topic)) => Some(topic),
        Some(other) => return Err(Failure::Usage(other.unexpected().to_string())),
    };
    match topic.as_ref().map(|t| t.to_str()) {
        None => out!("{USAGE}"),
        Some(Some("trim")) => out!("{}", help(TRIM_HELP, flags::TRIM)),
        Some(Some("count")) => out!("{}", help(COUNT_HELP, flags::COUNT)),
        Some(Some("sanitize")) => out!("{}", help(SANITIZE_HELP, flags::SANITIZE)),
        Some(Some("probe")) => out!("{}", help(PROBE_HELP, flags::PROBE)),
        Some(_) => {
            return Err(Failure::Usage(format!(
                "unknown command {:?}",
                topic.unwrap_or_default()
            )))
        }
    }
    Ok(EXIT_OK)
}

fn help(text: &str, table: &[flags::Flag]) -> String {
    format!("{text}\n{}", flags::render(table).trim_end())
}

/// How an answer of the core ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    /// The budget cannot be met.
    Budget,
    /// The input is not a valid request.
    Invalid,
}

/// The outcome of an error code.
fn outcome_of_code(code: &str) -> Outcome {
    const BUDGET: [ErrorCode; 3] = [
        ErrorCode::ContextBudgetExceeded,
        ErrorCode::HistoryBudgetTooSmall,
        ErrorCode::ImageOverflow,
    ];
    if BUDGET.iter().any(|c| c.as_str() == code) {
        Outcome::Budget
    } else {
        Outcome::Invalid
    }
}

/// The outcome of a response of the JSON contract. Reads only the head of a success answer
/// (`{"ok":true` comes first); anything else is parsed.
fn outcome_of(response: &str) -> Outcome {
    if response.starts_with(r#"{"ok":true"#) {
        return Outcome::Ok;
    }
    let Ok(value) = serde_json::from_str::<Value>(response) else {
        return Outcome::Invalid;
    };
    if value["ok"] == true {
        return Outcome::Ok;
    }
    outcome_of_code(value["error"]["code"].as_str().unwrap_or(""))
}

fn exit_code(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Ok => EXIT_OK,
        Outcome::Budget => EXIT_BUDGET,
        Outcome::Invalid => EXIT_INVALID_INPUT,
    }
}

/// Prints a response of the core on stdout, and on failure its error on stderr; answers the
/// exit code. The answer is the contract's, as the C ABI gives it; for a request read from
/// `input` (a file, or stdin when `None`), the line on stderr says which file an
/// `invalid_json` error's line and column are in.
fn deliver(response: &str, input: Option<&Path>) -> u8 {
    out!("{response}");
    let outcome = outcome_of(response);
    if outcome != Outcome::Ok {
        let value: Value = serde_json::from_str(response).unwrap_or(Value::Null);
        let error = &value["error"];
        let at = match error["path"].as_str() {
            Some(path) => format!(" (at {path})"),
            None => String::new(),
        };
        let code = error["code"].as_str().unwrap_or("error");
        let message = error["message"].as_str().unwrap_or("");
        let label = input.map_or("stdin".into(), |p| p.display().to_string());
        let from = if code == "invalid_json" && !message.starts_with(&format!("{label}: ")) {
            format!("{label}: ")
        } else {
            String::new()
        };
        eprintln!("ankita: {code}: {from}{message}{at}");
    }
    exit_code(outcome)
}

/// The request keys given on the command line, as JSON text, files read. A JSON file is
/// validated as the core validates a request and spliced as written.
fn load_keys(parsed: &Parsed) -> Result<Vec<Key>, Failure> {
    let mut keys: Vec<Key> = Vec::new();
    for (key, value) in &parsed.keys {
        let value = match value {
            KeyValue::Value(v) => v.to_string(),
            KeyValue::TextFile(path) => Value::String(read_text(Some(path))?).to_string(),
            KeyValue::JsonFile(path) => {
                let text = read_text(Some(path))?;
                if let Err(e) = ankita::raw::Doc::parse(&text) {
                    let what = format!("{}: invalid JSON: {e}", path.display());
                    return Err(Failure::Api(Error::new(ErrorCode::InvalidJson, what)));
                }
                text.trim_matches([' ', '\t', '\n', '\r']).to_string()
            }
        };
        // A later flag replaces an earlier one.
        keys.retain(|(k, _)| k != key);
        keys.push((std::borrow::Cow::Borrowed(key), value));
    }
    Ok(keys)
}

/// The one FILE a command takes, if given (`-` is stdin).
fn input_path(parsed: &Parsed, command: &str) -> Result<Option<PathBuf>, Failure> {
    match parsed.positionals.as_slice() {
        [] => Ok(None),
        [one] if one == "-" => Ok(None),
        [one] => Ok(Some(PathBuf::from(one))),
        [_, extra, ..] => Err(Failure::Usage(format!(
            "{command} takes one FILE; unexpected argument {extra:?}"
        ))),
    }
}

/// The text of a file, or of stdin when `path` is `None`. A file that cannot be read and bytes
/// that are not UTF-8 (a binary file) are errors of the contract: their JSON goes to stdout.
fn read_text(path: Option<&Path>) -> Result<String, Failure> {
    let label = path.map_or("stdin".into(), |p| p.display().to_string());
    let mut bytes = Vec::new();
    let read = match path {
        None => std::io::stdin().read_to_end(&mut bytes).map(|_| ()),
        Some(path) => std::fs::read(path).map(|b| bytes = b),
    };
    if let Err(e) = read {
        return Err(Failure::Api(Error::new(
            ErrorCode::InvalidArgument,
            format!("{label}: cannot be read: {e}"),
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        Failure::Api(Error::new(
            ErrorCode::InvalidJson,
            format!(
                "{label}: not UTF-8 text (invalid byte at offset {}); a request is JSON",
                e.utf8_error().valid_up_to()
            ),
        ))
    })
}

fn trim_command(parsed: Parsed) -> Result<u8, Failure> {
    if parsed.has(Setting::Help) {
        out!("{}", help(TRIM_HELP, flags::TRIM));
        return Ok(EXIT_OK);
    }
    let path = input_path(&parsed, "trim")?;
    let summary = parsed.has(Setting::Summary);
    if parsed.has(Setting::Jsonl) {
        if summary {
            return Err(Failure::Usage(
                "--summary describes one request; it does not combine with --jsonl".into(),
            ));
        }
        let threads = match parsed.setting(Setting::Threads) {
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
            Some(n) => n.parse::<usize>().ok().filter(|&n| n > 0).ok_or_else(|| {
                Failure::Usage(format!("--threads takes a positive integer, not {n:?}"))
            })?,
        };
        let flags = load_keys(&parsed)?;
        let source = match &path {
            None => batch::Source::Stdin,
            Some(path) => batch::Source::File(
                std::fs::File::open(path)
                    .map_err(|e| Failure::Input(format!("{}: {e}", path.display())))?,
            ),
        };
        let tally = batch::run(source, &flags, threads)?;
        return Ok(if tally.invalid > 0 {
            EXIT_INVALID_INPUT
        } else if tally.budget > 0 {
            EXIT_BUDGET
        } else {
            EXIT_OK
        });
    }
    if parsed.has(Setting::Threads) {
        return Err(Failure::Usage("--threads applies to --jsonl only".into()));
    }
    let keys = load_keys(&parsed)?;
    let text = read_text(path.as_deref())?;
    let splice = Splice {
        keys: &keys,
        precedence: Some(Precedence::Replace),
        ..Splice::default()
    };
    let spliced = splice::splice(text, &splice);
    let response = match api::trim_answer(spliced.text()) {
        Ok(answer) => answer.into_string(),
        // The caller's own text answers, so an error's line and column are in their file (a
        // wrapped array that is valid JSON alone was one level too deep once wrapped: that
        // error stands).
        Err(e) if e.code == ErrorCode::InvalidJson && spliced.is_appended() => {
            return Ok(deliver(
                &api::trim_json(&spliced.original()),
                path.as_deref(),
            ));
        }
        Err(e) if e.code == ErrorCode::InvalidJson && spliced.is_wrapped() => {
            match api::trim_answer(&spliced.original()) {
                Err(own) if own.code == ErrorCode::InvalidJson => own.to_response().to_string(),
                _ => e.to_response().to_string(),
            }
        }
        Err(e) => e.to_response().to_string(),
    };
    let code = deliver(&response, path.as_deref());
    if summary && code == EXIT_OK {
        // The summary reads the report as a value, and the request's images as the core
        // reads them.
        let response: Value = serde_json::from_str(&response).unwrap_or(Value::Null);
        let images = summary::image_inventory(spliced.text());
        eprint!("{}", summary::render(&response["report"], &images));
    }
    Ok(code)
}

/// The `format` a trim answer's report names, as JSON text.
fn report_format(report: &str) -> Option<String> {
    let doc = ankita::raw::Doc::parse(report).ok()?;
    let fields = doc.fields(doc.root())?;
    let format = ankita::raw::get(&fields, "format")?;
    (ankita::raw::kind(format) == ankita::raw::Kind::String).then(|| format.to_string())
}

fn count_command(parsed: Parsed) -> Result<u8, Failure> {
    if parsed.has(Setting::Help) {
        out!("{}", help(COUNT_HELP, flags::COUNT));
        return Ok(EXIT_OK);
    }
    let path = input_path(&parsed, "count")?;
    let keys = load_keys(&parsed)?;
    let text = read_text(path.as_deref())?;
    // A trim answer is counted as the request it answers: its `ok` and `report` are not part
    // of it, and its report names its format.
    let splice = Splice {
        keys: &keys,
        precedence: Some(Precedence::Replace),
        ignore: &["ok", "report"],
        derive: Some(splice::Derive {
            key: "format",
            from: "report",
            read: report_format,
        }),
    };
    let response = match answer(text, &splice, api::count_value) {
        Ok(value) => value.to_string(),
        Err(e) => e.to_response().to_string(),
    };
    Ok(deliver(&response, path.as_deref()))
}

fn sanitize_command(parsed: Parsed) -> Result<u8, Failure> {
    if parsed.has(Setting::Help) {
        out!("{}", help(SANITIZE_HELP, flags::SANITIZE));
        return Ok(EXIT_OK);
    }
    let path = input_path(&parsed, "sanitize")?;
    let keys = load_keys(&parsed)?;
    let text = read_text(path.as_deref())?;
    // Without --format a bare array is what sanitize takes as it is.
    let response = if keys.is_empty() {
        api::sanitize_json(&text)
    } else {
        let splice = Splice {
            keys: &keys,
            precedence: Some(Precedence::Replace),
            ..Splice::default()
        };
        match answer(text, &splice, |t| {
            api::sanitize_answer(t).map(|a| a.into_string())
        }) {
            Ok(text) => text,
            Err(e) => e.to_response().to_string(),
        }
    };
    Ok(deliver(&response, path.as_deref()))
}

fn probe_command(parsed: Parsed) -> Result<u8, Failure> {
    if parsed.has(Setting::Help) {
        out!("{}", help(PROBE_HELP, flags::PROBE));
        return Ok(EXIT_OK);
    }
    if parsed.positionals.is_empty() {
        return Err(Failure::Usage(
            "probe needs at least one FILE or data URL".into(),
        ));
    }
    let mut options = Map::new();
    for (key, value) in load_keys(&parsed)? {
        options.insert(
            key.into(),
            serde_json::from_str(&value).unwrap_or(Value::Null),
        );
    }
    if let Some(detail) = parsed.setting(Setting::Detail) {
        options.insert("detail".into(), detail.into());
    }
    let options = Value::Object(options);
    // Checks the options once (unknown profile, both profile and model, …), and says what was
    // assumed for a model no family claims.
    let checked = api::estimate_image_tokens(1, 1, &options)?;
    for w in checked["warnings"].as_array().into_iter().flatten() {
        eprintln!("warning: {}", w["message"].as_str().unwrap_or_default());
    }
    let json = parsed.has(Setting::Json);
    let mut failed = None;
    let (profile, detail, bytes_per_token, _) = api::pricing_options(&options)?;
    for input in &parsed.positionals {
        let Some((label, info, size, file, file_bytes)) = probe_one(input, &mut failed) else {
            continue;
        };
        // Not an image but a document or audio file: its pages or duration.
        if let (Err(_), Some(Ok(found))) = (info, file) {
            let mut answer = api::probe_file_response(Ok(found), profile, detail, bytes_per_token);
            let implausible =
                implausible_claim(found, file_bytes, profile, detail, bytes_per_token);
            if json {
                answer["input"] = label.into();
                answer["input_bytes"] = size.into();
                answer["warnings"] = Value::Array(
                    (implausible.iter())
                        .map(|m| serde_json::json!({"code": "implausible_file", "message": m}))
                        .collect(),
                );
                answer.as_object_mut().map(|o| o.remove("ok"));
                out!("{answer}");
            } else {
                let what = match found {
                    probe::file::FileInfo::Document(d) => {
                        let size = d
                            .page_size
                            .map_or(String::new(), |(w, h)| format!(", first page {w}×{h} pt"));
                        format!("PDF, {} page(s){size}", d.pages)
                    }
                    probe::file::FileInfo::Audio(a) => format!(
                        "{}, {}.{:03} s",
                        a.format.display_name(),
                        a.millis / 1000,
                        a.millis % 1000
                    ),
                };
                out!(
                    "{label}: {what}, ~{} tokens = {} budget bytes (input {size} bytes){}",
                    answer["tokens"],
                    answer["budget_bytes"],
                    implausible.map_or(String::new(), |m| format!("\n  implausible_file: {m}"))
                );
            }
            continue;
        }
        let (tokens, budget_bytes) = match info {
            Ok(info) => {
                let price = api::estimate_image_tokens(info.width, info.height, &options)?;
                (price["tokens"].as_u64(), price["budget_bytes"].clone())
            }
            Err(_) => (None, size.into()),
        };
        if json {
            let line = serde_json::json!({
                "input": label,
                "format": info.ok().map(|i| i.format.as_str()),
                "width": info.ok().map(|i| i.width),
                "height": info.ok().map(|i| i.height),
                "tokens": tokens,
                "budget_bytes": budget_bytes,
                "input_bytes": size,
            });
            out!("{line}");
        } else {
            match (info, tokens) {
                (Ok(i), Some(tokens)) => out!(
                    "{label}: {} {}×{}, ~{tokens} tokens = {budget_bytes} budget bytes (input {size} bytes)",
                    i.format,
                    i.width,
                    i.height,
                ),
                (Err(e), _) => out!("{label}: not decodable ({e}); costs its {budget_bytes} bytes"),
                (Ok(_), None) => out!("{label}: {budget_bytes} budget bytes (input {size} bytes)"),
            }
        }
    }
    Ok(if failed.is_some() {
        EXIT_INVALID_INPUT
    } else {
        EXIT_OK
    })
}

/// A probe input's label, image header, size, (when it is not an image) what the file probe
/// reads, and the file's size in bytes (decoded from base64 where it was given so).
type ProbeInput = (
    String,
    Result<probe::ImageInfo, probe::ProbeError>,
    usize,
    Option<Result<probe::file::FileInfo, probe::file::FileError>>,
    u64,
);

/// What a trim warns about a file whose structure claims more than its `bytes` can hold
/// (`implausible_file`, [`probe::plausible::is_implausible_file`]): the claim, and the price
/// a trim gives it instead (an unreadable file of its size); `None` for a plausible file.
fn implausible_claim(
    found: probe::file::FileInfo,
    bytes: u64,
    profile: ankita::ImageProfile,
    detail: Option<&str>,
    bytes_per_token: u64,
) -> Option<String> {
    use ankita::pricing::{price_file_probe, Header};
    use probe::file::FileInfo;
    if !probe::plausible::is_implausible_file(&found, bytes) {
        return None;
    }
    let claim = match found {
        FileInfo::Document(d) => format!(
            "the PDF's page tree states {} pages, more than a file of {bytes} bytes can hold (a \
             page a byte)",
            d.pages
        ),
        FileInfo::Audio(a) => format!(
            "the {} header states {} s, more than a file of {bytes} bytes can hold at the codec's \
             lowest rate",
            a.format.display_name(),
            a.seconds()
        ),
    };
    let price = price_file_probe(
        Ok(found),
        found.kind(),
        bytes,
        profile,
        detail,
        bytes_per_token,
        Header::Checked,
    );
    Some(format!(
        "{claim}; a trim prices it as an unreadable file of its size, ~{} tokens = {} budget \
         bytes, and warns",
        price.tokens.unwrap_or(0),
        price.budget_bytes
    ))
}

/// The bytes that `text` (a data URL, or base64 alone) decodes to, about.
fn decoded_len(text: &str) -> u64 {
    let payload = text.rsplit_once(',').map_or(text, |(_, data)| data).trim();
    (payload.trim_end_matches('=').len() as u64) * 3 / 4
}

/// Reads one probe input: a data URL, or a file holding an image, a document or audio file,
/// a data URL or base64.
/// Answers its label, what its header says and its size; `None` (with `failed` set) when the
/// file cannot be read.
fn probe_one(input: &OsString, failed: &mut Option<()>) -> Option<ProbeInput> {
    if let Some(text) = input.to_str().filter(|t| probe::is_data_url(t)) {
        let shown: String = text.chars().take(40).collect();
        let info = probe::probe_text(text);
        let file = info.is_err().then(|| probe::file::probe_file_text(text));
        return Some((
            format!("{shown}…"),
            info,
            text.len(),
            file,
            decoded_len(text),
        ));
    }
    let path = Path::new(input);
    match std::fs::read(path) {
        Ok(bytes) => {
            let info = probe::probe_bytes(&bytes).or_else(|e| {
                // A text file may hold a data URL or base64.
                std::str::from_utf8(&bytes)
                    .ok()
                    .and_then(|text| probe::probe_text(text).ok())
                    .ok_or(e)
            });
            let mut file_bytes = bytes.len() as u64;
            let file = info.is_err().then(|| {
                probe::file::probe_file_bytes(&bytes).or_else(|e| {
                    let text = std::str::from_utf8(&bytes).ok().map(str::trim);
                    let found = text.and_then(|text| probe::file::probe_file_text(text).ok());
                    if let (Some(text), Some(_)) = (text, found) {
                        file_bytes = decoded_len(text);
                    }
                    found.ok_or(e)
                })
            });
            Some((
                path.display().to_string(),
                info,
                bytes.len(),
                file,
                file_bytes,
            ))
        }
        Err(e) => {
            eprintln!("ankita: {}: {e}", path.display());
            *failed = Some(());
            None
        }
    }
}

//! The JSON contract (DESIGN §8): what the C ABI, the CLI and the bindings speak.
//!
//! A request is read in place ([`crate::raw`]); the answer splices the caller's unchanged
//! messages and parts from the request text and writes only what changed, into one buffer of
//! the answer's exact size.
//!
//! ```
//! let response = ankita::api::trim_json(r#"{"messages": [
//!     {"role": "system", "content": "Be brief."},
//!     {"role": "tool", "tool_call_id": "gone", "content": "orphan"},
//!     {"role": "user", "content": "Hi"}
//! ], "max_bytes": 4096}"#);
//! let v: serde_json::Value = serde_json::from_str(&response).unwrap();
//! assert_eq!(v["ok"], true);
//! assert_eq!(v["messages"].as_array().unwrap().len(), 2);
//! assert_eq!(v["report"]["repaired"][0]["action"], "orphan_tool_removed");
//! ```

use crate::error::{Error, ErrorCode};
use crate::format::write::{write_edited, Sink};
use crate::format::{Format, Out};
use crate::json::write_str;
use crate::pricing::{self, ImageProfile, MediaPrice, DEFAULT_BYTES_PER_TOKEN};
use crate::probe;
use crate::raw::{get, kind, Doc, Fields, Kind, Raw};
use crate::report::{Bytes, Report, RequestWarning, Style};
use crate::request::{format_of, TrimOptions};
use crate::trim::{plan_count, plan_sanitize, plan_trim, Plan};
use serde_json::{json, Map, Value};

mod chunks;
mod images;
mod probing;
pub mod typed;
pub use images::RequestImage;
use probing::add_warning;
pub use probing::{
    estimate_image_tokens, price_fields, pricing_options, probe_file, probe_file_response,
    probe_image, probe_response, probe_response_with,
};

/// Trims a request given as JSON text; always answers JSON text (success or error).
pub fn trim_json(request: &str) -> String {
    text_of(trim_answer(request))
}

/// Repairs a messages array (or `{"messages": [...], "format"?}`) given as JSON text.
pub fn sanitize_json(messages: &str) -> String {
    text_of(sanitize_answer(messages))
}

/// Counts a request's messages (`{"messages": [...], "model"? | "tokenizer"?, "format"?,
/// "system"?, "tools"?, ...}`) the way trim prices them: `{"ok": true, "unit", "tokenizer",
/// "exact", "total", "messages": [cost of each], "system"?, "tools"?}`; `total` is the sum of
/// the messages, the system prompt and the tool schemas. Always answers JSON text.
///
/// ```
/// let answer = ankita::api::count_json(
///     r#"{"messages": [{"role": "user", "content": "Hello, world"}], "model": "gpt-4o"}"#,
/// );
/// let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
/// assert_eq!((v["unit"].as_str(), v["exact"].as_bool()), (Some("tokens"), Some(true)));
/// // 3 framing tokens + "user" 1 + "Hello, world" 3
/// assert_eq!(v["total"], 7);
/// ```
pub fn count_json(request: &str) -> String {
    count_value(request).map_or_else(|error| error.to_response().to_string(), |v| v.to_string())
}

pub fn count_value(text: &str) -> Result<Value, Error> {
    let request = Request::parse(text)?;
    let count = plan_count(
        &request.doc,
        request.messages,
        request.system,
        &request.options,
    )?;
    let measure = count.measure;
    // The tool schemas, when given, as trim takes them off the budget.
    let options = &request.options;
    let tools = (options.tools_bytes > 0).then_some(if measure.in_tokens() {
        options.tools_tokens
    } else {
        options.tools_bytes
    });
    let mut answer = json!({
        "ok": true,
        "unit": if measure.in_tokens() { "tokens" } else { "bytes" },
        "tokenizer": measure.tokenizer.name(),
        "exact": measure.in_tokens() && !measure.estimate,
        "total": count
            .total()
            .saturating_add(tools.unwrap_or(0))
            .saturating_add(crate::framing::chat_tokens(&measure)),
        "messages": count.messages,
    });
    if let Some(system) = count.system {
        answer["system"] = system.into();
    }
    if let Some(tools) = tools {
        answer["tools"] = tools.into();
    }
    // A count has no budget: only what was assumed about the counting is said.
    for w in request
        .options
        .warnings
        .iter()
        .filter(|w| w.code == "unknown_model")
    {
        add_warning(&mut answer, Some(w.clone()));
    }
    Ok(answer)
}

/// A trim request read in place: the validated text, the caller's messages (and the format's
/// outside system prompt) as spans of it, and the options.
pub struct Request<'a> {
    pub doc: Doc<'a>,
    /// The `messages` array.
    pub messages: Raw<'a>,
    /// The request's `system` key, when the request has one (the format takes it).
    pub system: Option<Raw<'a>>,
    pub options: TrimOptions,
}

impl<'a> Request<'a> {
    /// Reads a trim request: `{"messages": [...], ...options}`.
    pub fn parse(text: &'a str) -> Result<Request<'a>, Error> {
        Self::read(Doc::parse(text).map_err(invalid_json)?)
    }

    /// Reads a trim request from its document.
    pub(crate) fn read(doc: Doc<'a>) -> Result<Request<'a>, Error> {
        let (doc, fields, messages) = read_request(doc)?;
        let (system, options) = options_of(&fields)?;
        Ok(Request {
            doc,
            messages,
            system,
            options,
        })
    }

    /// Plans the trim: which messages to return and what changed in them.
    pub fn plan(&self) -> Result<Plan<'a>, Error> {
        let system = self.system.filter(|s| kind(s) != Kind::Null);
        plan_trim(&self.doc, self.messages, system, &self.options)
    }
}

/// A request's document, its fields and its `messages` array; an error when the text is not
/// JSON, not an object, or has no array of messages.
pub(crate) fn read_request(doc: Doc<'_>) -> Result<(Doc<'_>, Fields<'_>, Raw<'_>), Error> {
    let fields = doc.fields(doc.root()).ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidRequest,
            "the request must be a JSON object",
        )
    })?;
    let messages = match get(&fields, "messages") {
        Some(m) if kind(m) == Kind::Array => m,
        Some(_) => {
            return Err(Error::invalid_request(
                "messages must be an array",
                "messages",
            ))
        }
        None => return Err(Error::invalid_request("messages is missing", "messages")),
    };
    Ok((doc, fields, messages))
}

/// The options of a request object's fields (every field but `messages`), and its `system`
/// value when it has one.
pub(crate) fn options_of<'a>(
    fields: &crate::raw::Fields<'a>,
) -> Result<(Option<Raw<'a>>, TrimOptions), Error> {
    let mut map = Map::new();
    let mut system = None;
    for (key, value) in fields {
        match key.as_ref() {
            "messages" => {}
            "system" => {
                system = Some(*value);
                // The options only need to know it is there.
                let given = kind(value) != Kind::Null;
                map.insert(
                    "system".into(),
                    if given { true.into() } else { Value::Null },
                );
            }
            _ => {
                let value = serde_json::from_str(value).map_err(invalid_json)?;
                map.insert(key.to_string(), value);
            }
        }
    }
    Ok((system, TrimOptions::from_map(&map)?))
}

/// A sanitize request read in place: the messages array, or `{"messages": [...], "format"?}`.
pub struct SanitizeRequest<'a> {
    pub doc: Doc<'a>,
    /// The messages array.
    pub messages: Raw<'a>,
    pub format: Format,
}

impl<'a> SanitizeRequest<'a> {
    pub fn parse(text: &'a str) -> Result<SanitizeRequest<'a>, Error> {
        let doc = Doc::parse(text).map_err(invalid_json)?;
        let usage = || {
            Error::invalid_request(
                format!(
                    "sanitize takes the messages array, or {{\"messages\": [...], \"format\"?: {}}}",
                    Format::names().replace(", ", " | ")
                ),
                "messages",
            )
        };
        let root = doc.root();
        let (messages, format) = match kind(root) {
            Kind::Array => (root, Format::default()),
            Kind::Object => {
                let fields = doc.fields(root).unwrap_or_default();
                if fields.iter().any(|(k, _)| k != "messages" && k != "format") {
                    return Err(usage());
                }
                let mut map = Map::new();
                if let Some(f) = get(&fields, "format") {
                    map.insert(
                        "format".into(),
                        serde_json::from_str(f).map_err(invalid_json)?,
                    );
                }
                let format = format_of(&map)?;
                let messages = get(&fields, "messages")
                    .filter(|m| kind(m) == Kind::Array)
                    .ok_or_else(usage)?;
                (messages, format)
            }
            _ => return Err(usage()),
        };
        Ok(SanitizeRequest {
            doc,
            messages,
            format,
        })
    }

    pub fn plan(&self) -> Result<Plan<'a>, Error> {
        plan_sanitize(&self.doc, self.messages, self.format)
    }
}

/// The answer to a trim request, assembled from the request's own bytes and what changed.
pub fn trim_answer(text: &str) -> Result<Answer<'_>, Error> {
    request_answer(Request::parse(text)?)
}

/// [`trim_answer`] for a request read into its document.
pub(crate) fn request_answer(request: Request<'_>) -> Result<Answer<'_>, Error> {
    let plan = request.plan()?;
    Ok(write_trim_answer(
        &request.doc,
        request.system,
        &request.options,
        plan,
    ))
}

/// The answer to a trim: `{"ok": true, "system"?, "messages": [...], "report": {...}}`.
pub(crate) fn write_trim_answer<'a>(
    doc: &Doc<'a>,
    system: Option<Raw<'a>>,
    options: &TrimOptions,
    plan: Plan<'a>,
) -> Answer<'a> {
    let mut w = Answer::default();
    w.push_str("{\"ok\":true,");
    if let (Some(system), true) = (system, options.format.takes_system()) {
        w.push_str("\"system\":");
        w.push_raw(system);
        w.push_str(",");
    }
    w.push_str("\"messages\":");
    write_messages(&mut w, doc, &plan.inputs, &plan.messages);
    w.push_str(",\"report\":");
    w.push_report(plan.report, Style::Trim);
    w.push_str("}");
    w
}

/// The answer to a trim as a plan: `{"ok": true, "plan": [...], "report": {...}}` where each
/// item of `plan` is the input index of a message returned unchanged (a number) or a message
/// that changed or is new (an object). The format's outside system is not repeated.
pub(crate) fn write_plan_answer<'a>(doc: &Doc<'a>, plan: Plan<'a>) -> Answer<'a> {
    write_plan_answer_styled(doc, plan, Style::Plan)
}

/// [`write_plan_answer`] with the report written in `style` (a sanitize's: its repairs).
pub(crate) fn write_plan_answer_styled<'a>(
    doc: &Doc<'a>,
    plan: Plan<'a>,
    style: Style,
) -> Answer<'a> {
    let mut w = Answer::default();
    w.push_str("{\"ok\":true,\"plan\":[");
    for (k, out) in plan.messages.iter().enumerate() {
        if k > 0 {
            w.push_str(",");
        }
        match out {
            Out::Same(i) => w.push_str(&i.to_string()),
            Out::New(text) => w.push_str(text),
            Out::Edited(edit) => write_edited(&mut w, doc, plan.inputs[edit.index], edit),
        }
    }
    w.push_str("],\"report\":");
    w.push_report(plan.report, style);
    w.push_str("}");
    w
}

/// The answer to a sanitize request.
pub fn sanitize_answer(text: &str) -> Result<Answer<'_>, Error> {
    let request = SanitizeRequest::parse(text)?;
    let plan = request.plan()?;
    let mut w = Answer::default();
    w.push_str("{\"ok\":true,\"messages\":");
    write_messages(&mut w, &request.doc, &plan.inputs, &plan.messages);
    w.push_str(",\"report\":");
    w.push_report(plan.report, Style::Repairs);
    w.push_str("}");
    Ok(w)
}

fn write_messages<'a>(w: &mut Answer<'a>, doc: &Doc<'a>, messages: &[Raw<'a>], out: &[Out]) {
    w.push_str("[");
    let mut k = 0;
    while k < out.len() {
        if k > 0 {
            w.push_str(",");
        }
        match &out[k] {
            Out::Same(i) => {
                // A run of unchanged messages separated by bare commas is one span of the
                // request: spliced at once.
                // (Told by where they lie: the text between is not read.)
                let mut last = *i;
                while let Some(&Out::Same(next)) = out.get(k + 1) {
                    let (a, b) = (messages[last], messages[next]);
                    let a_end = a.as_ptr() as usize + a.len();
                    if next != last + 1 || b.as_ptr() as usize != a_end + 1 {
                        break;
                    }
                    last = next;
                    k += 1;
                }
                w.push_raw(doc.span(messages[*i], messages[last]));
            }
            Out::New(text) => w.push_str(text),
            Out::Edited(edit) => write_edited(w, doc, messages[edit.index], edit),
        }
        k += 1;
    }
    w.push_str("]");
}

/// An answer being assembled: runs of the caller's bytes and of new text, copied once into a
/// buffer of the exact size at the end.
#[derive(Default)]
pub struct Answer<'a> {
    pieces: Vec<Piece<'a>>,
    /// New text not yet closed into a piece.
    buf: Vec<u8>,
    len: usize,
    /// A report written at the end (a [`Piece::Report`]) has characters beyond ASCII.
    wide_report: bool,
}

enum Piece<'a> {
    Borrowed(&'a str),
    Owned(Vec<u8>),
    /// A large report, written straight into the answer (`true`: repairs only).
    Report(Box<Report<'a>>, Style),
}

/// Reports with more repair entries than this (one per message of a broken history) are
/// measured first and written once, into the answer itself, so their text is not held twice.
const LARGE_REPORT: usize = 4096;

/// Shorter runs of the caller's bytes are copied into the current piece.
const SPLICE: usize = 256;

impl<'a> Answer<'a> {
    /// An answer made of `text` alone.
    pub(crate) fn text(text: String) -> Answer<'a> {
        Answer {
            len: text.len(),
            buf: text.into_bytes(),
            pieces: Vec::new(),
            wide_report: false,
        }
    }

    fn flush(&mut self) {
        if !self.buf.is_empty() {
            self.pieces
                .push(Piece::Owned(std::mem::take(&mut self.buf)));
        }
    }

    fn push_str(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
        self.len += s.len();
    }

    fn push_report(&mut self, report: Report<'a>, style: Style) {
        self.flush();
        if report.repaired.len() <= LARGE_REPORT {
            let mut text = String::with_capacity(256 + 64 * report.repaired.len());
            report.write(&mut text, style);
            self.len += text.len();
            self.pieces.push(Piece::Owned(text.into_bytes()));
            return;
        }
        let mut measure = chunks::Measure::default();
        report.write(&mut measure, style);
        self.len += measure.len;
        self.wide_report |= measure.wide;
        self.pieces.push(Piece::Report(Box::new(report), style));
    }

    /// The caller's bytes, as written.
    fn push_raw(&mut self, raw: &'a str) {
        if raw.len() < SPLICE {
            self.push_str(raw);
        } else {
            self.flush();
            self.len += raw.len();
            self.pieces.push(Piece::Borrowed(raw));
        }
    }

    fn push_json_str(&mut self, s: &str) {
        let before = self.buf.len();
        write_str(s, &mut self.buf);
        self.len += self.buf.len() - before;
    }

    /// The answer's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies the answer into `out` (which should have room for [`Answer::len`] more bytes).
    pub fn write_into(mut self, out: &mut Vec<u8>) {
        self.flush();
        for piece in &self.pieces {
            match piece {
                Piece::Borrowed(s) => out.extend_from_slice(s.as_bytes()),
                Piece::Owned(b) => out.extend_from_slice(b),
                Piece::Report(report, style) => report.write(&mut Bytes(out), *style),
            }
        }
    }

    /// The answer as one string of its exact size.
    pub fn into_string(self) -> String {
        let mut out = Vec::with_capacity(self.len);
        self.write_into(&mut out);
        String::from_utf8(out).expect("the answer is made of UTF-8 pieces")
    }
}

impl<'a> Sink<'a> for Answer<'a> {
    fn push_str(&mut self, s: &str) {
        Answer::push_str(self, s);
    }

    fn push_raw(&mut self, raw: &'a str) {
        Answer::push_raw(self, raw);
    }

    fn push_json_str(&mut self, s: &str) {
        Answer::push_json_str(self, s);
    }
}

/// The text of an answer, or of the error that stood in its way.
pub(crate) fn text_of(answer: Result<Answer<'_>, Error>) -> String {
    answer.map_or_else(|error| error.to_response().to_string(), Answer::into_string)
}

/// Trims a parsed request and returns the whole success response (a convenience over
/// [`trim_json`] for callers holding a `serde_json::Value`).
pub fn trim_value(request: Value) -> Result<Value, Error> {
    value_call(&request, trim_answer)
}

/// Repairs parsed messages (or `{"messages": [...], "format"?}`) and returns the response.
pub fn sanitize_value(messages: Value) -> Result<Value, Error> {
    value_call(&messages, sanitize_answer)
}

fn value_call(
    input: &Value,
    call: impl for<'t> Fn(&'t str) -> Result<Answer<'t>, Error>,
) -> Result<Value, Error> {
    let text = crate::json::to_json_string(input);
    let answer = call(&text)?.into_string();
    Ok(serde_json::from_str(&answer).expect("the answer is valid JSON"))
}

pub(crate) fn invalid_json(e: serde_json::Error) -> Error {
    Error::new(ErrorCode::InvalidJson, format!("invalid JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_id_among_many_calls_is_found() {
        let id = |c: usize| if c == 18 { 3 } else { c };
        let calls: Vec<String> = (0..20)
            .map(|c| {
                format!(
                    r#"{{"id":"c{}","type":"function","function":{{"name":"f","arguments":"{{}}"}}}}"#,
                    id(c)
                )
            })
            .collect();
        let text = format!(
            r#"{{"messages":[{{"role":"user","content":"go"}},{{"role":"assistant","content":null,"tool_calls":[{}]}}]}}"#,
            calls.join(",")
        );
        let v: Value = serde_json::from_str(&trim_json(&text)).unwrap();
        assert_eq!(
            v["report"]["repaired"][0]["path"],
            "messages[1].tool_calls[18].id"
        );
        let uses: Vec<String> = (0..20)
            .map(|c| {
                format!(
                    r#"{{"type":"tool_use","id":"c{}","name":"f","input":{{}}}}"#,
                    id(c)
                )
            })
            .collect();
        let text = format!(
            r#"{{"format":"anthropic","messages":[{{"role":"user","content":"go"}},{{"role":"assistant","content":[{}]}}]}}"#,
            uses.join(",")
        );
        let v: Value = serde_json::from_str(&trim_json(&text)).unwrap();
        assert_eq!(
            v["report"]["repaired"][0]["path"],
            "messages[1].content[18].id"
        );
    }

    #[test]
    fn a_large_report_is_written_into_the_answer_as_a_small_one_is() {
        for n in [3, LARGE_REPORT + 1] {
            let broken = vec![r#"{"role":"x"}"#; n].join(",");
            let text = format!(
                r#"{{"messages":[{broken},{{"role":"user","content":"hi"}}],"max_messages":40}}"#
            );
            let answer = trim_answer(&text).unwrap();
            let len = answer.len();
            let answer = answer.into_string();
            assert_eq!(answer.len(), len);
            let report = Request::parse(&text).unwrap().plan().unwrap().report;
            assert!(answer.ends_with(&format!(",\"report\":{}}}", report.to_json_string())));
            let messages = format!("[{broken}]");
            let sanitized = sanitize_answer(&messages).unwrap().into_string();
            let report = SanitizeRequest::parse(&messages)
                .unwrap()
                .plan()
                .unwrap()
                .report;
            let tail = format!(",\"report\":{}}}", report.repairs_json_string());
            assert!(sanitized.ends_with(&tail));
        }
    }
}

//! `trim` and `sanitize` (core: `ankita::trim`): Python messages → JSON values → a plan made
//! with the GIL released → the result built from the caller's own objects (`plan.rs`).
//!
//! Only the plan crosses back: an unchanged message is returned as the very object the caller
//! passed in, a changed one as a shallow copy; megabytes of image data are never copied out.
//! A long history is read from its newest messages (`tail.rs`).

use ankita::api::SanitizeRequest;
use ankita::format::Format;
use ankita::{Error, Request};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::{Map, Value};

use crate::convert::{items, message_to_value, request_text, to_py, to_value, Path};
use crate::error::to_py_err;
use crate::plan::{build_messages, report_dict, trim_report_dict};
// Session (session.rs) reaches these through this module.
pub(crate) use crate::plan::{
    build_messages_from, options, session_report_dict, without_gil, DroppedRun,
};

/// What `trim` returns: the trimmed messages and the report of what was removed or changed.
///
/// `messages` shares the caller's objects: a message that trimming left alone is the very dict
/// that was passed in (not a copy), and a changed one is a shallow copy of it whose unchanged
/// parts are again the caller's own objects. Copy before mutating either side if both are kept.
///
/// `report` is a dict shaped like the JSON contract's report: `budget_bytes`, `cost_bytes`,
/// `input_messages`, `output_messages`, `dropped_messages` (input indices), `truncated`,
/// `dropped_images`, `dropped_attachments`, `repaired`.
#[pyclass(frozen, generic, module = "ankita")]
pub struct TrimResult {
    /// The messages to send, in order.
    #[pyo3(get)]
    pub(crate) messages: Py<PyList>,
    /// What was removed or changed, by input index (a dict shaped like the JSON report).
    #[pyo3(get)]
    pub(crate) report: Py<PyDict>,
    /// The system prompt given outside the messages (Anthropic's top-level `system`, the
    /// Responses format's instructions, Gemini's system instruction), as given (the caller's
    /// own object), or None.
    #[pyo3(get)]
    pub(crate) system: Py<PyAny>,
}

#[pymethods]
impl TrimResult {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let report = self.report.bind(py);
        let field = |key: &str| -> PyResult<String> {
            Ok(match report.get_item(key)? {
                Some(v) => v.repr()?.to_string(),
                None => "None".into(),
            })
        };
        Ok(format!(
            "TrimResult(messages=<{} messages>, cost_bytes={}, budget_bytes={})",
            self.messages.bind(py).len(),
            field("cost_bytes")?,
            field("budget_bytes")?,
        ))
    }
}

/// Fits a chat history into a context budget.
///
/// `messages` is a list (or tuple) of OpenAI-style message dicts, as the openai SDK or
/// `json.load` give them (`None` content and extra keys are fine). The keyword options are the
/// request keys of the JSON contract:
///
/// - `max_bytes`: the history budget in bytes; or `context_tokens` (the model's window) with
///   `max_output_tokens`, `tools` (the tool schemas), `memory` (text placed elsewhere in the
///   prompt) and `overhead_bytes` (default 1024) to derive it; when both are given the smaller
///   wins; with neither only `max_messages` applies;
/// - `bytes_per_token` (default 4), `max_messages` (not given: no count limit with a budget, 40
///   without one; `None`: no limit);
/// - `image_profile` (default "ankita") or `model` (e.g. "gpt-4o"): how images are priced;
///   `image_sizes`: `{url: (width, height)}` for remote images whose size the caller knows;
/// - `on_image_overflow`: "placeholder" (default), "drop" or "error";
/// - `format`: "openai" (default), "anthropic" for Anthropic Messages, whose top-level
///   `system` (a string or text blocks) is then given as `system` and returned as
///   `TrimResult.system`; "responses" for OpenAI Responses input items, whose `instructions`
///   string is given as `system`; or "gemini" for Gemini contents (google-genai
///   `types.Content` or their dicts, either spelling), whose system instruction is given as
///   `system` alike.
///
/// `None` means "not given". An unknown keyword raises `InvalidRequest`, like an unknown
/// request key.
///
/// Returns a `TrimResult`. Its messages share the caller's objects: an unchanged message is the
/// same dict object that was passed in, a changed one a shallow copy (`dict.copy()`) with
/// `content` replaced and/or `tool_calls` removed, whose unchanged parts are again the caller's
/// objects. (Anthropic messages and Gemini contents that changed or were merged, and
/// Responses items that changed, come back as new dicts.) The caller's list and dicts are
/// never mutated.
///
/// Raises `InvalidRequest` (a malformed message, an unknown or invalid option, a value that is
/// not JSON, with `path` saying where), `ContextBudgetExceeded`, `HistoryBudgetTooSmall` or
/// `ImageOverflow`; all are `AnkitaError`, a `ValueError`. The GIL is released while the plan
/// is computed, so threads can trim at the same time.
#[pyfunction]
#[pyo3(signature = (
    messages,
    *,
    max_bytes = None,
    context_tokens = None,
    max_output_tokens = None,
    tools = None,
    memory = None,
    overhead_bytes = None,
    bytes_per_token = None,
    tokenizer = None,
    token_factor = None,
    overhead_tokens = None,
    clear_tool_results = None,
    image_profile = None,
    on_image_overflow = None,
    model = None,
    image_sizes = None,
    format = None,
    system = None,
    strict_model = None,
    fill = None,
    **unknown
),
// <options text-signature> generated from src/request/options.rs by tests/option_table.rs
text_signature = "(messages, *, max_bytes=None, context_tokens=None, max_output_tokens=0, \
    tools=None, memory=None, overhead_bytes=1024, bytes_per_token=4, max_messages=..., \
    image_profile='ankita', model=None, image_sizes=None, file_sizes=None, \
    on_image_overflow='placeholder', format='openai', system=None, tokenizer=None, \
    token_factor=None, observed_usage=None, overhead_tokens=None, clear_tool_results=None, \
    strict_model=False, fill=True, trim_to=None, cut=None, summary=None, cache_breakpoint=False)"
// </options>
)]
#[allow(clippy::too_many_arguments)]
pub fn trim<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    max_bytes: Option<&Bound<'py, PyAny>>,
    context_tokens: Option<&Bound<'py, PyAny>>,
    max_output_tokens: Option<&Bound<'py, PyAny>>,
    tools: Option<&Bound<'py, PyAny>>,
    memory: Option<&Bound<'py, PyAny>>,
    overhead_bytes: Option<&Bound<'py, PyAny>>,
    bytes_per_token: Option<&Bound<'py, PyAny>>,
    tokenizer: Option<&Bound<'py, PyAny>>,
    token_factor: Option<&Bound<'py, PyAny>>,
    overhead_tokens: Option<&Bound<'py, PyAny>>,
    clear_tool_results: Option<&Bound<'py, PyAny>>,
    image_profile: Option<&Bound<'py, PyAny>>,
    on_image_overflow: Option<&Bound<'py, PyAny>>,
    model: Option<&Bound<'py, PyAny>>,
    image_sizes: Option<&Bound<'py, PyAny>>,
    format: Option<&Bound<'py, PyAny>>,
    system: Option<&Bound<'py, PyAny>>,
    strict_model: Option<&Bound<'py, PyAny>>,
    fill: Option<&Bound<'py, PyAny>>,
    unknown: Option<&Bound<'py, PyDict>>,
) -> PyResult<TrimResult> {
    let given = [
        ("max_bytes", max_bytes),
        ("context_tokens", context_tokens),
        ("max_output_tokens", max_output_tokens),
        ("tools", tools),
        ("memory", memory),
        ("overhead_bytes", overhead_bytes),
        ("bytes_per_token", bytes_per_token),
        ("tokenizer", tokenizer),
        ("token_factor", token_factor),
        ("overhead_tokens", overhead_tokens),
        ("clear_tool_results", clear_tool_results),
        ("image_profile", image_profile),
        ("on_image_overflow", on_image_overflow),
        ("model", model),
        ("image_sizes", image_sizes),
        ("format", format),
        ("system", system),
        ("strict_model", strict_model),
        ("fill", fill),
    ];
    // Messages of formats that rebuild them come back written from the text the core reads:
    // they must be the whole messages, not header-only stand-ins.
    let stand_ins = stand_ins(format);
    let run = || -> Result<(Vec<Bound<'py, PyAny>>, String), Error> {
        let originals = items(messages, "messages")?;
        let values = message_values(&originals, stand_ins)?;
        let mut request = Map::new();
        request.insert("messages".into(), Value::Array(values));
        request.extend(options(&given, unknown)?);
        Ok((originals, request_text(&Value::Object(request))))
    };
    let system = system.map_or_else(|| py.None(), |s| s.clone().unbind());
    // A long history is read from its newest messages (tail.rs); else it is sent whole.
    if let (Ok(originals), Ok(options)) = (items(messages, "messages"), options(&given, unknown)) {
        if let Some((list, report)) =
            crate::tail::trim_from_tail(py, &originals, &options, stand_ins)?
        {
            return Ok(TrimResult {
                messages: list.unbind(),
                report: report.unbind(),
                system,
            });
        }
    }
    let (originals, text) = run().map_err(|e| to_py_err(py, &e))?;
    let plan = without_gil(py, || Request::parse(&text)?.plan()).map_err(|e| to_py_err(py, &e))?;
    Ok(TrimResult {
        messages: build_messages(py, &originals, &plan.messages)?.unbind(),
        report: trim_report_dict(py, &plan.report)?.unbind(),
        system,
    })
}

/// Counts `messages` the way `trim` prices them: in the model's tokens when its tokenizer is
/// known (`model`, or `tokenizer`: "o200k_base", "cl100k_base"; Claude and Gemini models are
/// estimates, counted with o200k_base times a safety factor, `token_factor` overriding it),
/// else in bytes. Returns `{"unit", "tokenizer", "exact", "total", "messages": [each message's
/// cost], "system"?}`. Raises `InvalidRequest`.
#[pyfunction]
#[pyo3(signature = (
    messages,
    *,
    model = None,
    tokenizer = None,
    token_factor = None,
    format = None,
    system = None,
    image_profile = None,
    strict_model = None,
    **unknown
))]
#[allow(clippy::too_many_arguments)]
pub fn count_tokens<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    model: Option<&Bound<'py, PyAny>>,
    tokenizer: Option<&Bound<'py, PyAny>>,
    token_factor: Option<&Bound<'py, PyAny>>,
    format: Option<&Bound<'py, PyAny>>,
    system: Option<&Bound<'py, PyAny>>,
    image_profile: Option<&Bound<'py, PyAny>>,
    strict_model: Option<&Bound<'py, PyAny>>,
    unknown: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let given = [
        ("model", model),
        ("tokenizer", tokenizer),
        ("token_factor", token_factor),
        ("format", format),
        ("system", system),
        ("image_profile", image_profile),
        ("strict_model", strict_model),
    ];
    let run = || -> Result<String, Error> {
        let originals = items(messages, "messages")?;
        let values = message_values(&originals, true)?;
        let mut request = Map::new();
        request.insert("messages".into(), Value::Array(values));
        request.extend(options(&given, unknown)?);
        Ok(request_text(&Value::Object(request)))
    };
    let text = run().map_err(|e| to_py_err(py, &e))?;
    let count =
        without_gil(py, || ankita::api::count_value(&text)).map_err(|e| to_py_err(py, &e))?;
    to_py(py, &count)?.cast_into::<PyDict>().map_err(Into::into)
}

/// Repairs a restored session (DESIGN §5) without trimming: orphan tool replies, malformed or
/// unanswered tool calls, unknown roles and empty messages go. Returns the messages; unchanged
/// ones are the caller's own dict objects (see `trim`). `format="anthropic"` repairs Anthropic
/// Messages, `format="gemini"` Gemini contents (those changed or merged come back as new
/// dicts), `format="responses"` Responses input items. A long history in a format that merges
/// no turns is read from its last message (tail.rs). Raises `InvalidRequest`.
#[pyfunction]
#[pyo3(signature = (messages, *, format = None))]
pub fn sanitize<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    format: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    Ok(sanitized(py, messages, format)?.0)
}

/// Like `sanitize`, but also returns the report: `(messages, {"repaired": [...]})`.
#[pyfunction]
#[pyo3(signature = (messages, *, format = None))]
pub fn sanitize_with_report<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    format: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyDict>)> {
    sanitized(py, messages, format)
}

fn sanitized<'py>(
    py: Python<'py>,
    messages: &Bound<'py, PyAny>,
    format: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyDict>)> {
    let stand_ins = stand_ins(format);
    // A long history is sent as its last message and the older ones the answer may depend on
    // (tail.rs); else it is sent whole.
    if let Ok(originals) = items(messages, "messages") {
        if let Some(done) = crate::tail::sanitize_from_tail(py, &originals, format, stand_ins)? {
            return Ok(done);
        }
    }
    let run = || -> Result<(Vec<Bound<'py, PyAny>>, String), Error> {
        let originals = items(messages, "messages")?;
        let values = message_values(&originals, stand_ins)?;
        let mut request = Map::new();
        request.insert("messages".into(), Value::Array(values));
        if let Some(format) = format.filter(|f| !f.is_none()) {
            request.insert("format".into(), to_value(format, Path::Root("format"))?);
        }
        Ok((originals, request_text(&Value::Object(request))))
    };
    let (originals, text) = run().map_err(|e| to_py_err(py, &e))?;
    let plan =
        without_gil(py, || SanitizeRequest::parse(&text)?.plan()).map_err(|e| to_py_err(py, &e))?;
    Ok((
        build_messages(py, &originals, &plan.messages)?,
        report_dict(py, &plan.report.repairs_json_string())?,
    ))
}

/// The format a `format` keyword names (`None`: the default); `None` for a name no format has
/// or a value that is not a str (the core answers those).
pub(crate) fn format_named(format: Option<&Bound<'_, PyAny>>) -> Option<Format> {
    match format.filter(|f| !f.is_none()) {
        None => Some(Format::default()),
        Some(f) => Format::from_name(&f.cast::<PyString>().ok()?.to_cow().ok()?),
    }
}

/// Whether large screenshots may cross as header-only stand-ins (`standins.rs`): only when the
/// format edits the caller's messages, never rebuilds one from what the core read.
pub(crate) fn stand_ins(format: Option<&Bound<'_, PyAny>>) -> bool {
    format_named(format).is_some_and(|f| !f.traits().rebuilds_messages)
}

/// Whether `messages` is a list of dicts whose contents, where they are lists, hold dicts
/// (exact types each): the package hands such a list over as it is (`_messages.py`). Read
/// through the C API: a long history is read from its newest messages, and this pass over every
/// message would be most of a trim's cost in Python.
#[pyfunction]
pub fn _all_dicts(messages: &Bound<'_, PyAny>) -> bool {
    let Ok(list) = messages.cast_exact::<PyList>() else {
        return false;
    };
    let content = pyo3::intern!(messages.py(), "content");
    list.iter().all(|message| {
        let Ok(message) = message.cast_exact::<PyDict>() else {
            return false;
        };
        match message.get_item(content) {
            Ok(Some(content)) => content.cast_exact::<PyList>().map_or(true, |parts| {
                parts.iter().all(|p| p.cast_exact::<PyDict>().is_ok())
            }),
            Ok(None) => true,
            Err(_) => false,
        }
    })
}

/// Every format's facts (`ankita::tail::driver::describe_formats`): `{"default": name, "formats":
/// [{"name", "takes_system", "merges_turns", "rebuilds_messages", "plain", ...}]}`, read by the
/// Python package instead of a list of format names of its own.
#[pyfunction]
pub fn formats(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    to_py(py, &ankita::tail::driver::describe_formats())
}

/// The messages as JSON values for planning; with `stand_ins`, large screenshots are read as
/// their header only (see `standins.rs`), so the values must not be returned to the caller.
fn message_values(originals: &[Bound<'_, PyAny>], stand_ins: bool) -> Result<Vec<Value>, Error> {
    let root = Path::Root("messages");
    originals
        .iter()
        .enumerate()
        .map(|(i, m)| message_to_value(m, Path::Index(&root, i), stand_ins))
        .collect()
}

//! The JSON contract and the pricing helpers (core: `ankita::api`).

use ankita::{Error, ErrorCode};
use pyo3::prelude::*;
use pyo3::types::PyString;
use serde_json::{Map, Value};

use crate::error::to_py_err;

/// Trims a request given as JSON text and answers JSON text: the raw contract (DESIGN §8) that
/// the C ABI speaks. Never raises for a bad request: failures are `{"ok": false, "error": ...}`
/// (a `str` holding a lone surrogate, which no JSON text can, is `invalid_json` naming where).
/// `trim` is faster from Python: it does not serialise the messages.
#[pyfunction]
pub fn trim_json<'py>(
    py: Python<'py>,
    request: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyString>> {
    let Ok(request) = request.to_cow() else {
        return Ok(PyString::new(py, &not_unicode_answer(request)));
    };
    let reply = py.detach(|| match ankita::api::trim_answer(&request) {
        Ok(answer) if answer.is_ascii() => Ok(answer),
        Ok(answer) => Err(answer.into_string()),
        Err(error) => Err(error.to_response().to_string()),
    });
    match reply {
        Ok(answer) => answer_str(py, answer),
        Err(text) => Ok(PyString::new(py, &text)),
    }
}

/// The answer's pieces handed to Python at a time (see [`answer_str`]).
const ANSWER_CHUNK: usize = 1 << 20;

/// An ASCII answer as a Python `str`, built without a whole second copy of it: each piece of
/// at most [`ANSWER_CHUNK`] bytes becomes a short `str` appended to the answer's own, which
/// grows in place (CPython's `PyUnicode_Append` resizes a `str` nothing else refers to, of the
/// same kind; a large one grows without a copy). Made from the joined text at once, the answer
/// would be held twice for an instant: the core's bytes and the `str` decoded from them (8.4×
/// the input for 10 MB of unknown roles, whose answer is 84 MB). An answer with characters
/// beyond ASCII is not built so: its `str` would be copied whole into a wider one at its first
/// such character (the stable ABI has no way to make a `str` of a given width), which costs
/// more than the joined text does.
fn answer_str<'py>(
    py: Python<'py>,
    answer: ankita::api::Answer<'_>,
) -> PyResult<Bound<'py, PyString>> {
    let mut whole: Option<Bound<'py, PyString>> = None;
    answer.write_chunks(ANSWER_CHUNK, |piece| {
        let piece = PyString::new(py, piece);
        match whole.take() {
            None => whole = Some(piece),
            Some(left) => {
                let mut ptr = left.into_ptr();
                // SAFETY: `ptr` is an owned reference to a `str` (released or replaced by the
                // call, which sets it to NULL with an exception on failure); `piece` is a
                // `str` borrowed for the call.
                unsafe { pyo3::ffi::PyUnicode_Append(&mut ptr, piece.as_ptr()) };
                // SAFETY: an owned reference, or NULL with the exception set.
                whole =
                    Some(unsafe { Bound::from_owned_ptr_or_err(py, ptr)?.cast_into_unchecked() });
            }
        }
        Ok::<(), PyErr>(())
    })?;
    Ok(whole.unwrap_or_else(|| PyString::new(py, "")))
}

/// Repairs a messages array (or `{"messages": [...]}`) given as JSON text; answers JSON text
/// `{"ok": true, "messages": [...], "report": {"repaired": [...]}}` or an error object.
#[pyfunction]
pub fn sanitize_json(py: Python<'_>, messages: &Bound<'_, PyString>) -> String {
    match messages.to_cow() {
        Ok(messages) => py.detach(|| ankita::api::sanitize_json(&messages)),
        Err(_) => not_unicode_answer(messages),
    }
}

/// The `invalid_json` answer to JSON text given as a `str` that holds a lone surrogate: no
/// JSON text can (nor UTF-8), so it is named with its position rather than raised as Python's
/// `UnicodeEncodeError`.
fn not_unicode_answer(text: &Bound<'_, PyString>) -> String {
    let error = Error::new(
        ErrorCode::InvalidJson,
        format!("the JSON text {}", crate::convert::not_unicode(text)),
    );
    error.to_response().to_string()
}

/// Vision tokens of an image of `width` × `height` pixels.
///
/// `profile` names the pricing rule ("ankita" by default: DESIGN §3; "openai", "anthropic",
/// "gemini", … : IMAGE_TOKENS.md) and `model` picks the rule and parameters of a model
/// ("gpt-4o", "claude-sonnet-4-5", …); give one or the other. `detail` is the part's
/// `image_url.detail` ("low", "high", "auto"). Raises `InvalidRequest` for an unknown profile
/// or model, or both given; `AnkitaError` with code "invalid_argument" for a side that is not
/// between 1 and 2**32 - 1.
///
/// >>> estimate_image_tokens(1700, 2200)
/// 765
#[pyfunction]
#[pyo3(signature = (width, height, *, profile = None, model = None, detail = None, strict_model = None))]
pub fn estimate_image_tokens(
    py: Python<'_>,
    width: i64,
    height: i64,
    profile: Option<String>,
    model: Option<String>,
    detail: Option<String>,
    strict_model: Option<bool>,
) -> PyResult<u64> {
    let side = |n: i64| u32::try_from(n).ok().filter(|&n| n > 0);
    let (Some(w), Some(h)) = (side(width), side(height)) else {
        let error = Error::new(
            ErrorCode::InvalidArgument,
            format!("image size {width}×{height} is out of range: each side must be 1 to 4294967295 pixels"),
        );
        return Err(to_py_err(py, &error));
    };
    let mut options = Map::new();
    for (key, value) in [
        ("image_profile", profile),
        ("model", model),
        ("detail", detail),
    ] {
        if let Some(value) = value {
            options.insert(key.into(), Value::String(value));
        }
    }
    if let Some(strict) = strict_model {
        options.insert("strict_model".into(), Value::Bool(strict));
    }
    let answer = ankita::api::estimate_image_tokens(w, h, &Value::Object(options))
        .map_err(|e| to_py_err(py, &e))?;
    if let Some(message) = answer["warnings"][0]["message"].as_str() {
        warn_unknown_model(py, message)?;
    }
    answer["tokens"].as_u64().ok_or_else(|| {
        to_py_err(
            py,
            &Error::new(
                ErrorCode::Internal,
                "estimate_image_tokens answered no tokens",
            ),
        )
    })
}

/// Tells the caller what was assumed for a model no family claims: a `UserWarning` (the answer
/// is a number or an `ImageInfo`, with no report to carry it).
pub(crate) fn warn_unknown_model(py: Python<'_>, message: &str) -> PyResult<()> {
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    let message = std::ffi::CString::new(message).unwrap_or_default();
    PyErr::warn(py, &category, &message, 1)
}

//! The JSON contract and the pricing helpers (core: `ankita::api`).

use ankita::{Error, ErrorCode};
use pyo3::prelude::*;
use serde_json::{Map, Value};

use crate::error::to_py_err;

/// Trims a request given as JSON text and answers JSON text: the raw contract (DESIGN §8) that
/// the C ABI speaks. Never raises for a bad request: failures are `{"ok": false, "error": ...}`.
/// `trim` is faster from Python: it does not serialise the messages.
#[pyfunction]
pub fn trim_json(py: Python<'_>, request: &str) -> String {
    py.detach(|| ankita::api::trim_json(request))
}

/// Repairs a messages array (or `{"messages": [...]}`) given as JSON text; answers JSON text
/// `{"ok": true, "messages": [...], "report": {"repaired": [...]}}` or an error object.
#[pyfunction]
pub fn sanitize_json(py: Python<'_>, messages: &str) -> String {
    py.detach(|| ankita::api::sanitize_json(messages))
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

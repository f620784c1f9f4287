//! `probe_image` (core: `ankita::probe` and `ankita::pricing`): format, pixel size and price of
//! an image, from its header alone; `probe_file`: a PDF's pages or an audio file's duration.

use ankita::api::probe_file_response;
use ankita::pricing::{price_probe, Header, DEFAULT_BYTES_PER_TOKEN};
use ankita::probe::file::{probe_file_bytes, probe_file_text};
use ankita::probe::{probe_bytes, probe_text};
use ankita::request::{profile_of, unknown_model};
use ankita::{Error, ImageProfile};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};
use serde_json::{Map, Value};

use crate::error::to_py_err;

/// What an image's header says, and its price.
///
/// `format` is "png", "jpeg", "gif" or "webp"; `width` and `height` are pixels; `tokens` are
/// vision tokens under the profile asked for; `budget_bytes` is what the image costs against a
/// byte budget (tokens × 4).
#[pyclass(frozen, eq, get_all, module = "ankita")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageInfo {
    /// "png", "jpeg", "gif" or "webp" (sniffed from the magic bytes, never from a MIME type).
    format: &'static str,
    /// Width in pixels.
    width: u32,
    /// Height in pixels.
    height: u32,
    /// Vision tokens under the profile asked for (default `ankita`).
    tokens: u64,
    /// What the image costs against a byte budget: tokens × 4.
    budget_bytes: u64,
}

#[pymethods]
impl ImageInfo {
    fn __repr__(&self) -> String {
        format!(
            "ImageInfo(format={:?}, width={}, height={}, tokens={}, budget_bytes={})",
            self.format, self.width, self.height, self.tokens, self.budget_bytes
        )
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (self.format, self.width, self.height, self.tokens).hash(&mut h);
        h.finish()
    }
}

/// The pricing rule `profile` or `model` names (`strict_model`: a model no family claims is an
/// error); a model no family claims is a warning, as in a trim.
fn rule(
    py: Python<'_>,
    profile: Option<String>,
    model: Option<String>,
    strict_model: Option<bool>,
) -> PyResult<ImageProfile> {
    let mut choice = Map::new();
    for (key, value) in [("image_profile", profile), ("model", model)] {
        if let Some(value) = value {
            choice.insert(key.into(), Value::String(value));
        }
    }
    if let Some(strict) = strict_model {
        choice.insert("strict_model".into(), Value::Bool(strict));
    }
    let (profile, unknown) =
        profile_of(&choice, ImageProfile::default()).map_err(|e| to_py_err(py, &e))?;
    if let Some(model) = unknown {
        crate::api::warn_unknown_model(py, &unknown_model(model, profile, None).message)?;
    }
    Ok(profile)
}

/// `data` read by `text` (a data URL or base64 `str`, read without the GIL) or by `bytes`
/// (`bytes`, `bytearray`); another type is a TypeError naming `function` and what it takes.
fn read_data<T: Send>(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    function: &str,
    raw: &str,
    text: impl Fn(&str) -> T + Send + Sync,
    bytes: impl Fn(&[u8]) -> T,
) -> PyResult<T> {
    if let Ok(s) = data.cast::<PyString>() {
        let s = s.to_cow().map_err(|_| {
            let message = format!("data {}", crate::convert::not_unicode(s));
            to_py_err(py, &Error::invalid_request(message, "data"))
        })?;
        Ok(py.detach(|| text(&s)))
    } else if let Ok(b) = data.cast::<PyBytes>() {
        Ok(bytes(b.as_bytes()))
    } else if let Ok(b) = data.cast::<PyByteArray>() {
        Ok(bytes(&b.to_vec()))
    } else {
        let name = data.get_type().name()?;
        Err(PyTypeError::new_err(format!(
            "{function} takes a data URL or base64 text (str) or {raw} (bytes), not {name}"
        )))
    }
}

/// Reads an image's format and pixel size from its header, and prices it.
///
/// `data` is a data URL (`data:image/png;base64,...`) or bare base64 text (`str`), or the raw
/// image bytes (`bytes` or `bytearray`). Only the header is read: a 20 MB screenshot costs the
/// same as a 20 KB one. `profile` or `model` choose the pricing rule and `detail` is the part's
/// `image_url.detail`, as for `estimate_image_tokens`.
///
/// Returns an `ImageInfo`, or `None` when the image cannot be decoded (not base64, an unknown
/// format such as BMP or TIFF, a truncated header, a zero size); in a trim such an image costs
/// the byte length of its URL. Raises `InvalidRequest` for an unknown profile or model.
#[pyfunction]
#[pyo3(signature = (data, *, profile = None, model = None, detail = None, strict_model = None))]
pub fn probe_image(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    profile: Option<String>,
    model: Option<String>,
    detail: Option<String>,
    strict_model: Option<bool>,
) -> PyResult<Option<ImageInfo>> {
    let profile = rule(py, profile, model, strict_model)?;
    let probe = read_data(
        py,
        data,
        "probe_image",
        "the image bytes",
        probe_text,
        probe_bytes,
    )?;
    let price = price_probe(
        probe,
        0,
        profile,
        detail.as_deref(),
        DEFAULT_BYTES_PER_TOKEN,
        Header::AsRead,
    );
    Ok(match (price.probe, price.tokens) {
        (Ok(info), Some(tokens)) => Some(ImageInfo {
            format: info.format.as_str(),
            width: info.width,
            height: info.height,
            tokens,
            budget_bytes: price.budget_bytes,
        }),
        _ => None,
    })
}

/// Reads a PDF's page count and page size, or an audio file's duration (WAV, FLAC, MP3, Ogg
/// Vorbis/Opus, MP4), from its structure, and prices it.
///
/// `data` is a data URL or bare base64 text (`str`), or the raw bytes (`bytes` or
/// `bytearray`). `profile` or `model` choose the pricing rule (Gemini 2.5: 258 tokens a page,
/// 32 a second) and `detail` is Gemini 3's media resolution.
///
/// Returns a dict (`kind`, `format`, `pages`, `page_width`, `page_height`, `seconds`,
/// `millis`, `tokens`, `budget_bytes`, `exact`), or `None` when the file cannot be read
/// (encrypted, damaged, not a PDF or audio). Raises `InvalidRequest` for an unknown profile or
/// model.
#[pyfunction]
#[pyo3(signature = (data, *, profile = None, model = None, detail = None, strict_model = None))]
pub fn probe_file<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    profile: Option<String>,
    model: Option<String>,
    detail: Option<String>,
    strict_model: Option<bool>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let profile = rule(py, profile, model, strict_model)?;
    let probe = read_data(
        py,
        data,
        "probe_file",
        "the file's bytes",
        probe_file_text,
        probe_file_bytes,
    )?;
    if probe.is_err() {
        return Ok(None);
    }
    let mut answer =
        probe_file_response(probe, profile, detail.as_deref(), DEFAULT_BYTES_PER_TOKEN);
    if let Some(fields) = answer.as_object_mut() {
        fields.remove("ok");
    }
    crate::convert::to_py(py, &answer).map(Some)
}

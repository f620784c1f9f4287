//! Python objects ↔ `serde_json::Value`, directly: no JSON text in between.
//!
//! Python → JSON takes what agents hold: `dict` (and other mappings with `str` keys), `list`,
//! `tuple` (and other sequences except `str`/`bytes`), `str`, `bool`, `int` (of any size), finite
//! `float`, `None`, `bytes` under a `data` key (a blob's, written as base64), and at any depth
//! the objects SDKs hand out: a pydantic model (the openai and anthropic SDKs'
//! `ChatCompletionMessage`, `TextBlock`, google-genai's `Content`, …) is read as
//! `model_dump(mode="json", exclude_none=True)`, another object with a `to_dict()` method as
//! what that returns. Anything else is an `invalid_request` error whose path says where it is
//! (`messages[2].content[0].image_url`), so a stray `set` is found at once.
//!
//! Messages of the OpenAI shape can be read with stand-ins (see [`crate::standins`]): a large
//! data-URL image becomes the first kilobytes of its URL, which the core prices the same.

use ankita::Error;
use pyo3::exceptions::PyAttributeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyMapping, PyMemoryView,
    PySequence, PyString, PyTuple, PyType,
};
use serde_json::{Map, Number, Value};
use std::fmt;
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::standins;

/// The nesting limit (serde_json parses 128 levels too): a reference cycle ends in an error
/// instead of a stack overflow.
pub const MAX_DEPTH: usize = 128;

/// Where a value sits in the request, rendered only when an error needs it.
#[derive(Clone, Copy)]
pub enum Path<'a> {
    Root(&'a str),
    Index(&'a Path<'a>, usize),
    Key(&'a Path<'a>, &'a str),
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root(name) => f.write_str(name),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
            Path::Key(parent, key) => write!(f, "{parent}.{key}"),
        }
    }
}

/// The prefix of the string that stands for an integer beyond 64 bits: a NUL and a key
/// drawn once per process, which no caller's string can be expected to start with.
fn big_int_marker() -> &'static str {
    static MARKER: OnceLock<String> = OnceLock::new();
    MARKER.get_or_init(|| {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let salt = &MARKER as *const _ as usize as u128;
        format!(
            "\u{0}ankita-int-{:x}:",
            nanos ^ (salt << 17) ^ u128::from(std::process::id())
        )
    })
}

/// The JSON text of a request converted by [`to_value`]: integers beyond 64 bits, carried as
/// marked strings, are written back as their digits.
pub fn request_text(value: &Value) -> String {
    let text = ankita::json::to_json_string(value);
    // As the JSON writer escapes it: the NUL is `\u0000`.
    let marker = format!("\"\\u0000{}", &big_int_marker()[1..]);
    if !text.contains(&marker) {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find(&marker) {
        out.push_str(&rest[..at]);
        let after = &rest[at + marker.len()..];
        let end = after.find('"').unwrap_or(after.len());
        out.push_str(&after[..end]);
        rest = after.get(end + 1..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// Converts a Python value to JSON; `path` names it in errors.
pub fn to_value(obj: &Bound<'_, PyAny>, path: Path<'_>) -> Result<Value, Error> {
    convert(obj, &path, 0, Slot::Any)
}

/// Converts a message; with `stand_ins`, large data-URL images of `image_url` parts become
/// header-only stand-ins. Only for planning: the result must never be returned to the caller.
pub fn message_to_value(
    obj: &Bound<'_, PyAny>,
    path: Path<'_>,
    stand_ins: bool,
) -> Result<Value, Error> {
    let slot = if stand_ins { Slot::Message } else { Slot::Any };
    convert(obj, &path, 0, slot)
}

/// Where a value sits in an OpenAI message, as far as stand-ins are concerned.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    Any,
    Message,
    /// A message's `content`.
    Content,
    /// An item of `content`.
    Part,
    /// A part whose `type` is `image_url`.
    ImagePart,
    /// The part's `image_url` (the URL itself, or the object holding `url`).
    ImageUrl,
}

impl Slot {
    fn key(self, key: &str) -> Slot {
        match (self, key) {
            (Slot::Message, "content") => Slot::Content,
            (Slot::ImagePart, "image_url") | (Slot::ImageUrl, "url") => Slot::ImageUrl,
            _ => Slot::Any,
        }
    }

    fn item(self) -> Slot {
        if self == Slot::Content {
            Slot::Part
        } else {
            Slot::Any
        }
    }
}

/// The items of a list or tuple (or other sequence), for the top-level `messages` argument.
pub fn items<'py>(obj: &Bound<'py, PyAny>, path: &str) -> Result<Vec<Bound<'py, PyAny>>, Error> {
    if let Ok(list) = obj.cast::<PyList>() {
        return Ok(list.iter().collect());
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return Ok(tuple.iter().collect());
    }
    match obj.cast::<PySequence>() {
        Ok(seq) if !is_text_or_bytes(obj) => seq
            .try_iter()
            .and_then(|it| it.collect::<PyResult<Vec<_>>>())
            .map_err(|e| python_error(obj.py(), e, &Path::Root(path))),
        _ => Err(Error::invalid_request(
            format!("{path} must be a list, not {}", type_name(obj)),
            path,
        )),
    }
}

fn convert(
    obj: &Bound<'_, PyAny>,
    path: &Path<'_>,
    depth: usize,
    slot: Slot,
) -> Result<Value, Error> {
    // Most frequent first: strings and dicts make up nearly every message.
    if let Ok(s) = obj.cast::<PyString>() {
        if slot == Slot::ImageUrl {
            if let Some(stand_in) = standins::stand_in(s) {
                return Ok(Value::String(stand_in));
            }
        }
        return s
            .to_cow()
            .map(|s| Value::String(s.into_owned()))
            .map_err(|_| {
                Error::invalid_request(format!("the string {}", not_unicode(s)), path.to_string())
            });
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        check_depth(path, depth)?;
        let slot = if slot == Slot::Part && standins::is_image_part(dict) {
            Slot::ImagePart
        } else {
            slot
        };
        let mut map = Map::with_capacity(dict.len());
        for (key, value) in dict.iter() {
            insert(&mut map, &key, &value, path, depth, slot)?;
        }
        return Ok(Value::Object(map));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    // `bool` before `int`: in Python a bool is an int.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::Number(u.into()));
        }
        // Beyond 64 bits: a Python int of any size is JSON, and passes through unchanged. A
        // `Value` cannot hold it, so it travels as a marked string that [`request_text`] turns
        // back into the integer's digits in the request text.
        let digits = obj
            .str()
            .map_err(|e| python_error(obj.py(), e, path))?
            .to_string();
        return Ok(Value::String(format!("{}{digits}", big_int_marker())));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Number::from_f64(f.value())
            .map(Value::Number)
            .ok_or_else(|| {
                Error::invalid_request(
                    format!("{} is not a JSON number", f.value()),
                    path.to_string(),
                )
            });
    }
    // Lists and tuples (what Python agents hand over where JSON has arrays) convert alike.
    let items = match (obj.cast::<PyList>(), obj.cast::<PyTuple>()) {
        (Ok(list), _) => Some(list.iter().collect::<Vec<_>>()),
        (_, Ok(tuple)) => Some(tuple.iter().collect::<Vec<_>>()),
        _ => None,
    };
    if let Some(items) = items {
        check_depth(path, depth)?;
        let mut array = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            array.push(convert(
                item,
                &Path::Index(path, i),
                depth + 1,
                slot.item(),
            )?);
        }
        return Ok(Value::Array(array));
    }
    convert_abstract(obj, path, depth, slot)
}

/// The slow path: mappings and sequences that are not `dict`, `list` or `tuple`, and objects
/// that say how they are written as JSON (pydantic models, `to_dict()`).
fn convert_abstract(
    obj: &Bound<'_, PyAny>,
    path: &Path<'_>,
    depth: usize,
    slot: Slot,
) -> Result<Value, Error> {
    let py = obj.py();
    if is_text_or_bytes(obj) {
        return Err(not_json(obj, path, "is not a JSON value"));
    }
    if let Ok(mapping) = obj.cast::<PyMapping>() {
        check_depth(path, depth)?;
        let items = mapping.items().map_err(|e| python_error(py, e, path))?;
        let mut map = Map::new();
        for pair in items.iter() {
            let (key, value) = pair
                .extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()
                .map_err(|e| python_error(py, e, path))?;
            insert(&mut map, &key, &value, path, depth, Slot::Any)?;
        }
        return Ok(Value::Object(map));
    }
    if let Ok(seq) = obj.cast::<PySequence>() {
        check_depth(path, depth)?;
        let mut array = Vec::new();
        let iter = seq.try_iter().map_err(|e| python_error(py, e, path))?;
        for (i, item) in iter.enumerate() {
            let item = item.map_err(|e| python_error(py, e, path))?;
            array.push(convert(&item, &Path::Index(path, i), depth + 1, Slot::Any)?);
        }
        return Ok(Value::Array(array));
    }
    if is_langchain_message(obj) {
        // Its model_dump() has `type`, not `role`: say what to use instead of "role is missing".
        return Err(Error::invalid_request(
            format!(
                "a {} is a LangChain message, not a chat message: trim LangChain messages with \
                 ankita.langchain.trim_messages",
                type_name(obj)
            ),
            path.to_string(),
        ));
    }
    if let Some(dumped) = dump(obj).map_err(|e| python_error(py, e, path))? {
        // What the object dumps to is read like the value it stands for (a message, a part);
        // the depth limit also ends a `to_dict()` that returns its own object.
        check_depth(path, depth)?;
        return convert(&dumped, path, depth + 1, slot);
    }
    Err(not_json(obj, path, "is not a JSON value"))
}

/// The JSON form of an SDK object: `model_dump(mode="json", exclude_none=True)` of a pydantic
/// (v2) model, `to_dict()` of another object; `None` when it has neither. A class is never
/// called: its `model_dump` is an unbound function.
fn dump<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    if obj.is_instance_of::<PyType>() {
        return Ok(None);
    }
    let py = obj.py();
    if let Some(model_dump) = attribute(obj, intern!(py, "model_dump"))? {
        let kwargs = PyDict::new(py);
        kwargs.set_item(intern!(py, "mode"), intern!(py, "json"))?;
        kwargs.set_item(intern!(py, "exclude_none"), true)?;
        return model_dump.call((), Some(&kwargs)).map(Some);
    }
    if let Some(to_dict) = attribute(obj, intern!(py, "to_dict"))? {
        return to_dict.call0().map(Some);
    }
    Ok(None)
}

/// Whether `obj` is one of langchain-core's message classes.
fn is_langchain_message(obj: &Bound<'_, PyAny>) -> bool {
    obj.get_type().module().is_ok_and(|m| {
        m.to_cow()
            .is_ok_and(|m| m.starts_with("langchain_core.messages"))
    })
}

/// A callable attribute, or `None` when there is none.
fn attribute<'py>(
    obj: &Bound<'py, PyAny>,
    name: &Bound<'py, PyString>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    match obj.getattr(name) {
        Ok(value) if value.is_callable() => Ok(Some(value)),
        Ok(_) => Ok(None),
        Err(e) if e.is_instance_of::<PyAttributeError>(obj.py()) => Ok(None),
        Err(e) => Err(e),
    }
}

fn insert(
    map: &mut Map<String, Value>,
    key: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
    path: &Path<'_>,
    depth: usize,
    slot: Slot,
) -> Result<(), Error> {
    let Ok(key) = key.cast::<PyString>() else {
        let repr = key.repr().map(|r| r.to_string()).unwrap_or_default();
        return Err(Error::invalid_request(
            format!("the key {repr} is not a string (JSON object keys are strings)"),
            path.to_string(),
        ));
    };
    let key = key.to_cow().map_err(|_| {
        Error::invalid_request(format!("a key {}", not_unicode(key)), path.to_string())
    })?;
    // A blob's bytes (google-genai's `Blob.data`, as `model_dump()` gives it) are written as
    // base64, as the SDK's JSON mode writes them and its validation reads them back.
    if key == "data" {
        if let Ok(bytes) = value.cast::<PyBytes>() {
            map.insert(
                key.into_owned(),
                Value::String(ankita::json::base64(bytes.as_bytes())),
            );
            return Ok(());
        }
    }
    let value = convert(value, &Path::Key(path, &key), depth + 1, slot.key(&key))?;
    map.insert(key.into_owned(), value);
    Ok(())
}

fn check_depth(path: &Path<'_>, depth: usize) -> Result<(), Error> {
    if depth >= MAX_DEPTH {
        return Err(Error::invalid_request(
            format!("the value is nested more than {MAX_DEPTH} levels deep (a reference cycle?)"),
            path.to_string(),
        ));
    }
    Ok(())
}

fn is_text_or_bytes(obj: &Bound<'_, PyAny>) -> bool {
    obj.cast::<PyString>().is_ok()
        || obj.cast::<PyBytes>().is_ok()
        || obj.cast::<PyByteArray>().is_ok()
        || obj.cast::<PyMemoryView>().is_ok()
}

/// `a set is not a JSON value`, with what is accepted instead.
fn not_json(obj: &Bound<'_, PyAny>, path: &Path<'_>, what: &str) -> Error {
    let name = type_name(obj);
    let hint = " (JSON values are dict, list, tuple, str, int, float, bool and None; objects \
                with model_dump() or to_dict() are read through it)";
    Error::invalid_request(format!("a {name} {what}{hint}"), path.to_string())
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// A Python exception raised while reading a value (a misbehaving mapping or sequence).
fn python_error(py: Python<'_>, err: PyErr, path: &Path<'_>) -> Error {
    Error::invalid_request(
        format!("reading the value raised {}", err.value(py)),
        path.to_string(),
    )
}

/// Converts JSON to Python objects (for reports and new parts).
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// Why a `str` is not text that UTF-8 and JSON can carry: it holds a lone surrogate (Python
/// allows them, `"\ud800"`), named with its position: `is not valid Unicode: a lone surrogate
/// (U+D800) at character 40`. For a `str` whose `to_cow` failed.
pub(crate) fn not_unicode(text: &Bound<'_, PyString>) -> String {
    match lone_surrogate(text) {
        Some((at, unit)) => {
            format!("is not valid Unicode: a lone surrogate (U+{unit:04X}) at character {at}")
        }
        None => "is not valid Unicode".to_owned(),
    }
}

/// The character index and the code unit of the first lone surrogate of `text`: read from its
/// UTF-8 bytes with surrogates let through (`surrogatepass`), where a surrogate is the only
/// 3-byte sequence led by `ED` with a second byte of `A0` or more.
pub(crate) fn lone_surrogate(text: &Bound<'_, PyString>) -> Option<(usize, u32)> {
    let bytes = text
        .call_method1("encode", ("utf-8", "surrogatepass"))
        .ok()?;
    let bytes = bytes.cast::<pyo3::types::PyBytes>().ok()?.as_bytes();
    let mut chars = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == 0xED && bytes.get(i + 1).is_some_and(|&n| n >= 0xA0) {
            let unit = 0xD000
                | (u32::from(bytes[i + 1] & 0x3F) << 6)
                | u32::from(bytes.get(i + 2).copied().unwrap_or(0x80) & 0x3F);
            return Some((chars, unit));
        }
        // Each character has one byte that is not a continuation byte.
        if b & 0xC0 != 0x80 {
            chars += 1;
        }
    }
    None
}

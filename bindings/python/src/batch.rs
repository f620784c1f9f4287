//! `trim_many`: many requests at once (a dataset), on every core (core: `ankita::batch`).
//!
//! Each row is read into request text while the GIL is held (a `str` or `bytes` as it is, a
//! request dict or a messages list converted as `trim` converts messages), then every row is
//! trimmed with the GIL released on the core's scoped threads, and the answers come back in
//! order as the JSON texts `trim_json` answers. A pyarrow string or binary array is read from
//! its buffers through the Arrow C data interface ([`crate::arrow`]), without a Python object
//! per row.

use ankita::batch::{self, Answer};
use ankita::{Error, ErrorCode};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyMapping, PyString, PyTuple};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::arrow;
use crate::convert::{request_text, to_value, Path};
use crate::error::{panic_error, to_py_err};

/// Trims many requests at once, in order, on `threads` threads (default: every core), with
/// the GIL released: the answers are the JSON texts `trim_json` answers, one per request.
///
/// A request is JSON text (`str` or `bytes`: an object, or a bare messages array read as
/// `{"messages": [...]}`), a request dict (`{"messages": [...], "context_tokens": 8000}`) or a
/// messages list. `requests` is any iterable of them, or a pyarrow string or binary array (or
/// chunked array), read without a Python object per row. `options` are request keys
/// (`context_tokens=8000`, `model="gpt-4o"`, `format="anthropic"`, …) that fill in the keys a
/// request lacks — a request's own keys win — as the command line's `trim --jsonl` does with
/// its flags; `None` is not given, but for `max_messages`, where it means no count limit.
///
/// A bad request is answered with its error JSON (`{"ok": false, "error": ...}`), never an
/// exception for the whole batch. Raises `InvalidRequest` for an unknown option or a bad
/// option value (checked once, before any row), `ValueError` for `threads` below 1, and
/// `TypeError` when `requests` is a single request or not iterable.
#[pyfunction]
#[pyo3(signature = (requests, *, threads = None, **options))]
pub fn trim_many<'py>(
    py: Python<'py>,
    requests: &Bound<'py, PyAny>,
    threads: Option<&Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let threads = thread_count(threads)?;
    let defaults = defaults(options).map_err(|e| to_py_err(py, &e))?;
    let answers = match arrow::strings(requests)? {
        Some(column) => {
            let rows = column.rows();
            py.detach(|| {
                guarded(|| {
                    batch::map_in_order(&rows, threads, |i, row| row_answer(i, row, &defaults))
                })
            })
        }
        None => {
            let items = iterate(requests)?;
            let texts: Vec<Row<'_>> = items.iter().map(row_text).collect();
            let rows: Vec<Option<&[u8]>> = texts.iter().map(Row::bytes).collect();
            let answers = py.detach(|| {
                guarded(|| {
                    batch::map_in_order(&rows, threads, |i, row| match row {
                        Some(row) => batch::trim_one_bytes(row, i, &defaults),
                        None => Answer::failure(&Error::new(ErrorCode::Internal, "no text")),
                    })
                })
            });
            answers.map(|answers| {
                answers
                    .into_iter()
                    .zip(texts)
                    .map(|(answer, text)| match text {
                        Row::Failed(failure) => failure,
                        _ => answer,
                    })
                    .collect()
            })
        }
    };
    let answers = answers.map_err(|e| to_py_err(py, &e))?;
    PyList::new(py, answers.iter().map(|a| PyString::new(py, &a.text)))
}

/// An Arrow row (`None`: a null) answered; a null is an `invalid_request` error naming it.
fn row_answer(i: usize, row: &Option<&[u8]>, defaults: &[ankita::splice::Key]) -> Answer {
    match row {
        Some(bytes) => batch::trim_one_bytes(bytes, i, defaults),
        None => Answer::failure(&Error::new(
            ErrorCode::InvalidRequest,
            format!("requests[{i}] is null; each row must hold one request"),
        )),
    }
}

/// Runs the batch; a panic (the core catches its own) becomes an `internal` error.
fn guarded(f: impl FnOnce() -> Vec<Answer>) -> Result<Vec<Answer>, Error> {
    catch_unwind(AssertUnwindSafe(f)).map_err(panic_error)
}

/// `threads`: `None` for every core (0 to the core), else a positive integer.
fn thread_count(threads: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    let Some(threads) = threads.filter(|t| !t.is_none()) else {
        return Ok(0);
    };
    if threads.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err("threads must be an int, not bool"));
    }
    match threads.extract::<i64>() {
        Ok(n) if n >= 1 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        Ok(n) => Err(PyValueError::new_err(format!(
            "threads must be at least 1, not {n}"
        ))),
        Err(_) => Err(PyTypeError::new_err(format!(
            "threads must be an int or None, not {}",
            type_name(threads)
        ))),
    }
}

/// The options as the batch's defaults, checked as request options.
fn defaults(options: Option<&Bound<'_, PyDict>>) -> Result<Vec<ankita::splice::Key>, Error> {
    let mut map = Map::new();
    for (key, value) in options.iter().flat_map(|d| d.iter()) {
        let key = key.str().map(|k| k.to_string()).unwrap_or_default();
        // `None` is "not given", as in `trim`; `max_messages=None` is no count limit.
        if value.is_none() && key != "max_messages" {
            continue;
        }
        let value = to_value(&value, Path::Root(&key))?;
        map.insert(key, value);
    }
    batch::defaults_from_map(&map)
}

/// The rows of `requests`: a list, a tuple or any other iterable, but not one request.
fn iterate<'py>(requests: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if let Ok(list) = requests.cast::<PyList>() {
        return Ok(list.iter().collect());
    }
    if let Ok(tuple) = requests.cast::<PyTuple>() {
        return Ok(tuple.iter().collect());
    }
    let single = requests.is_instance_of::<PyString>()
        || requests.is_instance_of::<PyBytes>()
        || requests.is_instance_of::<PyByteArray>()
        || requests.is_instance_of::<PyDict>()
        || requests.cast::<PyMapping>().is_ok();
    if single {
        return Err(PyTypeError::new_err(format!(
            "requests must be an iterable of requests, not one request ({}); \
             pass [request] for one",
            type_name(requests)
        )));
    }
    requests
        .try_iter()
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "requests must be an iterable of requests, not {}",
                type_name(requests)
            ))
        })?
        .collect()
}

/// A row read into request text (borrowed from the caller's `str` or `bytes` when it can be).
enum Row<'a> {
    Text(Cow<'a, str>),
    Bytes(&'a [u8]),
    Owned(Vec<u8>),
    Failed(Answer),
}

impl Row<'_> {
    fn bytes(&self) -> Option<&[u8]> {
        match self {
            Row::Text(text) => Some(text.as_bytes()),
            Row::Bytes(bytes) => Some(bytes),
            Row::Owned(bytes) => Some(bytes),
            Row::Failed(_) => None,
        }
    }
}

/// The request text of a row: a `str` or `bytes` as it is, a dict as its JSON, a messages
/// list as `{"messages": [...]}`; anything else is that row's `invalid_request` error.
fn row_text<'a>(item: &'a Bound<'_, PyAny>) -> Row<'a> {
    if let Ok(text) = item.cast::<PyString>() {
        return match text.to_cow() {
            Ok(text) => Row::Text(text),
            // A lone surrogate: not Unicode, so not JSON.
            Err(_) => Row::Failed(Answer::failure(&Error::new(
                ErrorCode::InvalidJson,
                "the request holds a lone surrogate (not valid Unicode)",
            ))),
        };
    }
    if let Ok(bytes) = item.cast::<PyBytes>() {
        return Row::Bytes(bytes.as_bytes());
    }
    if let Ok(bytes) = item.cast::<PyByteArray>() {
        return Row::Owned(bytes.to_vec());
    }
    let converted = if item.is_instance_of::<PyDict>() || item.cast::<PyMapping>().is_ok() {
        request_object(item)
    } else if item.is_instance_of::<PyList>() || item.is_instance_of::<PyTuple>() {
        to_value(item, Path::Root("messages")).map(|messages| {
            let mut request = Map::new();
            request.insert("messages".into(), messages);
            Value::Object(request)
        })
    } else {
        Err(Error::new(
            ErrorCode::InvalidRequest,
            format!(
                "a request must be JSON text (str or bytes), a request dict or a messages \
                 list, not {}",
                type_name(item)
            ),
        ))
    };
    match converted {
        Ok(value) => Row::Owned(request_text(&value).into_bytes()),
        Err(error) => Row::Failed(Answer::failure(&error)),
    }
}

/// A request dict as a JSON object; a value that is not JSON is an error naming its key.
fn request_object(item: &Bound<'_, PyAny>) -> Result<Value, Error> {
    let mapping = item
        .cast::<PyMapping>()
        .map_err(|_| Error::new(ErrorCode::InvalidRequest, "the request is not a mapping"))?;
    let items = mapping.items().map_err(|e| {
        Error::new(
            ErrorCode::InvalidRequest,
            format!("the request's items: {e}"),
        )
    })?;
    let mut request = Map::new();
    for pair in items.iter() {
        let (key, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = pair.extract().map_err(|e| {
            Error::new(
                ErrorCode::InvalidRequest,
                format!("the request's items: {e}"),
            )
        })?;
        let Ok(key) = key.cast::<PyString>().map(|k| k.to_string()) else {
            return Err(Error::new(
                ErrorCode::InvalidRequest,
                format!("a request's keys must be str, not {}", type_name(&key)),
            ));
        };
        let value = to_value(&value, Path::Root(&key))?;
        request.insert(key, value);
    }
    Ok(Value::Object(request))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "an object".into(), |n| n.to_string())
}

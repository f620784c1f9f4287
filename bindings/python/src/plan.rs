//! Between a binding function and the core: its keywords as the request's options, the core
//! run with the GIL released, and the plan it answers made Python objects: the returned
//! messages built from the caller's own objects (an unchanged message is the very object passed
//! in, a changed one a shallow copy; megabytes of image data are never copied out) and the
//! report as a dict. `trim`, `sanitize` (trim.rs), the trim of a long history from its tail
//! (tail.rs) and `Session` (session.rs) answer through it.

use ankita::{Error, NewContent, NewPart, Out};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping};
use serde_json::{Map, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::convert::{to_py, to_value, Path};
use crate::error::panic_error;

/// The request options, every keyword but the messages: the named ones given (`None` is not
/// given), then those `**unknown` holds, as they are. `max_messages` comes through `unknown`,
/// where an explicit `None` stays a JSON null: no count limit (not given, it is 40). A misspelt
/// keyword gets the core's answer (unknown key, with the known ones listed).
pub(crate) fn options(
    given: &[(&str, Option<&Bound<'_, PyAny>>)],
    unknown: Option<&Bound<'_, PyDict>>,
) -> Result<Map<String, Value>, Error> {
    let mut map = Map::new();
    for (key, value) in given {
        if let Some(value) = value.filter(|v| !v.is_none()) {
            map.insert((*key).to_owned(), to_value(value, Path::Root(key))?);
        }
    }
    for (key, value) in unknown.iter().flat_map(|d| d.iter()) {
        let key = key.str().map(|k| k.to_string()).unwrap_or_default();
        let value = to_value(&value, Path::Root(&key))?;
        map.insert(key, value);
    }
    Ok(map)
}

/// A trim's report as a dict: its JSON, with the dropped messages listed from their runs
/// (`dropped_ranges`), not parsed one by one.
pub(crate) fn trim_report_dict<'py>(
    py: Python<'py>,
    report: &ankita::Report<'_>,
) -> PyResult<Bound<'py, PyDict>> {
    session_report_dict(py, report, None)
}

/// The int objects of a session's longest-lived run of dropped messages (the first run: the
/// older messages, which grows from turn to turn): each report's list copies them from here
/// rather than making each int again, so a turn does not cost one object per message dropped.
#[derive(Default)]
pub(crate) struct DroppedRun {
    /// `ints[k]` is `start + k`.
    start: usize,
    ints: Option<Py<PyList>>,
}

/// `dropped` (ascending) as a new list, its first run taken from `cache` when there is one.
fn dropped_list<'py>(
    py: Python<'py>,
    dropped: &[usize],
    cache: Option<&mut DroppedRun>,
) -> PyResult<Bound<'py, PyList>> {
    let (Some(cache), Some(&start)) = (cache, dropped.first()) else {
        return PyList::new(py, dropped);
    };
    let run = 1 + dropped.windows(2).take_while(|w| w[1] == w[0] + 1).count();
    if cache.start != start {
        cache.ints = None;
        cache.start = start;
    }
    let ints = match &cache.ints {
        Some(ints) => ints.bind(py).clone(),
        None => PyList::empty(py),
    };
    for i in start + ints.len()..start + run {
        ints.append(i)?;
    }
    let list = ints.get_slice(0, run);
    cache.ints = Some(ints.unbind());
    for &i in &dropped[run..] {
        list.append(i)?;
    }
    Ok(list)
}

/// A trim's report as a dict (see [`trim_report_dict`]), for a session that keeps the ints of
/// its dropped messages between trims (`cache`).
pub(crate) fn session_report_dict<'py>(
    py: Python<'py>,
    report: &ankita::Report<'_>,
    mut cache: Option<&mut DroppedRun>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut json = String::with_capacity(512 + 64 * report.repaired.len());
    report.write(&mut json, ankita::report::Style::Plan);
    let value: Value = serde_json::from_str(&json).expect("the core writes valid JSON");
    let dict = PyDict::new(py);
    for (key, value) in value.as_object().expect("a report is an object") {
        if key == "dropped_ranges" {
            dict.set_item(
                "dropped_messages",
                dropped_list(py, &report.dropped_messages, cache.as_deref_mut())?,
            )?;
        } else {
            dict.set_item(key, to_py(py, value)?)?;
        }
    }
    Ok(dict)
}

pub(crate) fn report_dict<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyDict>> {
    let value: Value = serde_json::from_str(json).expect("the core writes valid JSON");
    to_py(py, &value)?.cast_into::<PyDict>().map_err(Into::into)
}

/// Runs the core with the GIL released; a panic becomes an `internal` error.
pub(crate) fn without_gil<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> Result<T, Error> + Send,
) -> Result<T, Error> {
    py.detach(|| catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(panic_error(p))))
}

/// The returned messages, built from the caller's own objects (see the module doc).
pub(crate) fn build_messages<'py>(
    py: Python<'py>,
    originals: &[Bound<'py, PyAny>],
    plan: &[Out],
) -> PyResult<Bound<'py, PyList>> {
    let original = |i: usize| originals[i].clone();
    build_messages_from(py, original, original, plan)
}

/// [`build_messages`], where the caller's message `i` is `same(i)` when it is returned as
/// given, and a changed message is a copy of `original(i)` (its dict form, say).
pub(crate) fn build_messages_from<'py>(
    py: Python<'py>,
    same: impl Fn(usize) -> Bound<'py, PyAny>,
    original: impl Fn(usize) -> Bound<'py, PyAny>,
    plan: &[Out],
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for planned in plan {
        let edit = match planned {
            Out::Same(index) => {
                out.append(same(*index))?;
                continue;
            }
            Out::New(json) => {
                let value: Value = serde_json::from_str(json).expect("the core writes valid JSON");
                out.append(to_py(py, &value)?)?;
                continue;
            }
            Out::Edited(edit) => edit,
        };
        let original = &original(edit.index);
        let message = shallow_copy(original)?;
        if edit.remove_tool_calls && message.contains("tool_calls")? {
            message.del_item("tool_calls")?;
        }
        match &edit.content {
            None => {}
            Some(NewContent::Text(text)) => message.set_item("content", text)?,
            Some(NewContent::Parts(parts)) => {
                let old = original.get_item("content")?;
                let new = PyList::empty(py);
                for part in parts {
                    match part {
                        NewPart::Keep(p) => new.append(old.get_item(p)?)?,
                        NewPart::Text {
                            from: Some(p),
                            text,
                        } => {
                            let part = shallow_copy(&old.get_item(p)?)?;
                            part.set_item("text", text)?;
                            new.append(part)?;
                        }
                        NewPart::Text { from: None, text } => {
                            let part = PyDict::new(py);
                            part.set_item("type", "text")?;
                            part.set_item("text", text)?;
                            new.append(part)?;
                        }
                    }
                }
                message.set_item("content", new)?;
            }
        }
        out.append(message)?;
    }
    Ok(out)
}

/// `dict.copy()` for a dict; a new dict with the same items for another mapping.
fn shallow_copy<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    match obj.cast::<PyDict>() {
        Ok(dict) => dict.copy(),
        Err(_) => {
            let copy = PyDict::new(obj.py());
            copy.update(obj.cast::<PyMapping>()?)?;
            Ok(copy)
        }
    }
}

//! The core's one error type, mapped to Python exception classes.
//!
//! Every class subclasses `ValueError` through `AnkitaError`. An instance carries the JSON
//! contract's error object as attributes: `code`, `message`, `path` (or `None`) and `details`
//! (the other keys, such as `breakdown`, which is also an attribute of its own).

use ankita::{Error, ErrorCode};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::to_py;

create_exception!(
    ankita,
    AnkitaError,
    PyValueError,
    "Base class of every error ankita raises; a ValueError.\n\n\
     Attributes: code (the JSON contract's error code, e.g. \"invalid_request\"), message (the \
     text without the path), path (where in the request, e.g. \"messages[3].content[1].type\", \
     or None) and details (a dict of the other keys of the error object, e.g. \"breakdown\")."
);
create_exception!(
    ankita,
    InvalidRequest,
    AnkitaError,
    "The request does not follow the contract (code \"invalid_request\"): a message of the \
     wrong shape, an unknown or invalid option, a value that is not JSON. `path` says where."
);
create_exception!(
    ankita,
    ContextBudgetExceeded,
    AnkitaError,
    "The pinned system message, the current request and the tool schemas alone exceed the \
     budget (code \"context_budget_exceeded\"). `breakdown` says where the budget went."
);
create_exception!(
    ankita,
    HistoryBudgetTooSmall,
    AnkitaError,
    "The context window leaves fewer than 512 bytes for the history once the output, \
     overhead, tool schemas and memory are reserved (code \"history_budget_too_small\"). \
     `breakdown` says where the budget went."
);
create_exception!(
    ankita,
    ImageOverflow,
    AnkitaError,
    "An image had to be dropped and on_image_overflow is \"error\" (code \"image_overflow\"). \
     `path` names the image part."
);

/// Adds the exception classes to the module; each subclass has its `code` as a class attribute.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("AnkitaError", py.get_type::<AnkitaError>())?;
    let subclasses = [
        ("InvalidRequest", py.get_type::<InvalidRequest>()),
        (
            "ContextBudgetExceeded",
            py.get_type::<ContextBudgetExceeded>(),
        ),
        (
            "HistoryBudgetTooSmall",
            py.get_type::<HistoryBudgetTooSmall>(),
        ),
        ("ImageOverflow", py.get_type::<ImageOverflow>()),
    ];
    let codes = [
        ErrorCode::InvalidRequest,
        ErrorCode::ContextBudgetExceeded,
        ErrorCode::HistoryBudgetTooSmall,
        ErrorCode::ImageOverflow,
    ];
    for ((name, class), code) in subclasses.into_iter().zip(codes) {
        class.setattr("code", code.as_str())?;
        m.add(name, class)?;
    }
    Ok(())
}

/// The Python exception for a core error.
pub fn to_py_err(py: Python<'_>, error: &Error) -> PyErr {
    let text = match &error.path {
        Some(path) => format!("{} (at {path})", error.message),
        None => error.message.clone(),
    };
    let err = match error.code {
        ErrorCode::InvalidRequest => InvalidRequest::new_err(text),
        ErrorCode::ContextBudgetExceeded => ContextBudgetExceeded::new_err(text),
        ErrorCode::HistoryBudgetTooSmall => HistoryBudgetTooSmall::new_err(text),
        ErrorCode::ImageOverflow => ImageOverflow::new_err(text),
        ErrorCode::InvalidJson | ErrorCode::InvalidArgument | ErrorCode::Internal => {
            AnkitaError::new_err(text)
        }
    };
    match annotate(py, &err, error) {
        Ok(()) => err,
        Err(failure) => failure,
    }
}

fn annotate(py: Python<'_>, err: &PyErr, error: &Error) -> PyResult<()> {
    let value = err.value(py);
    value.setattr("code", error.code.as_str())?;
    value.setattr("message", &error.message)?;
    value.setattr("path", error.path.as_deref())?;
    let details = PyDict::new(py);
    for (key, detail) in error.details.iter().flat_map(|d| d.iter()) {
        let detail = to_py(py, detail)?;
        details.set_item(key, &detail)?;
        // `breakdown` and any future detail read naturally as attributes, unless a name is taken.
        if !matches!(
            key.as_str(),
            "code" | "message" | "path" | "details" | "args"
        ) {
            value.setattr(key.as_str(), detail)?;
        }
    }
    value.setattr("details", details)?;
    Ok(())
}

/// An `internal` error for a panic caught in the core.
pub fn panic_error(payload: Box<dyn std::any::Any + Send>) -> Error {
    Error::from_panic(&*payload)
}

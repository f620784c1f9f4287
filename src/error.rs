//! The one error type of the core. Each front end maps it to its host's idiom (C: the error
//! JSON; Python: exception classes; JavaScript: an `Error` with `.code`).

use serde_json::{Map, Value};
use std::fmt;

/// A stable, machine-readable error code (the `error.code` string of the JSON contract).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The input is not JSON.
    InvalidJson,
    /// The JSON does not follow the request contract; `path` says where.
    InvalidRequest,
    /// The pinned system message, the current request and the tool schemas alone exceed the
    /// budget.
    ContextBudgetExceeded,
    /// The agent-side budget leaves fewer than 512 bytes for the history.
    HistoryBudgetTooSmall,
    /// An image had to be dropped and `on_image_overflow` is `error`.
    ImageOverflow,
    /// A C argument is NULL or not UTF-8.
    InvalidArgument,
    /// A bug: a panic caught at the boundary.
    Internal,
}

impl ErrorCode {
    /// The code as it appears in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::ContextBudgetExceeded => "context_budget_exceeded",
            ErrorCode::HistoryBudgetTooSmall => "history_budget_too_small",
            ErrorCode::ImageOverflow => "image_overflow",
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::Internal => "internal",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with its code, a message for people, the JSON path it concerns (if any), and
/// structured details (such as the budget breakdown of `context_budget_exceeded`).
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    pub path: Option<String>,
    pub details: Option<Box<Map<String, Value>>>,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            path: None,
            details: None,
        }
    }

    /// An `invalid_request` error at `path` (e.g. `messages[3].content[1]`).
    pub fn invalid_request(message: impl Into<String>, path: impl Into<String>) -> Self {
        Error::new(ErrorCode::InvalidRequest, message).at(path)
    }

    pub fn at(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    pub fn with_details(mut self, details: Map<String, Value>) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// The `internal` error a caught panic becomes, with the panic's message: every front end
    /// reports a panic in these words.
    pub fn from_panic(payload: &(dyn std::any::Any + Send)) -> Self {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Error::new(ErrorCode::Internal, format!("internal error: {what}"))
    }

    /// The `"error"` object of the JSON contract.
    pub fn to_json(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), self.code.as_str().into());
        error.insert("message".into(), self.message.clone().into());
        if let Some(path) = &self.path {
            error.insert("path".into(), path.clone().into());
        }
        if let Some(details) = &self.details {
            for (k, v) in details.iter() {
                error.insert(k.clone(), v.clone());
            }
        }
        Value::Object(error)
    }

    /// The whole failure response: `{"ok": false, "error": {...}}`.
    pub fn to_response(&self) -> Value {
        let mut response = Map::new();
        response.insert("ok".into(), false.into());
        response.insert("error".into(), self.to_json());
        Value::Object(response)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{}: {} (at {path})", self.code, self.message),
            None => write!(f, "{}: {}", self.code, self.message),
        }
    }
}

impl std::error::Error for Error {}

//! The request keys of cache-stable trimming (DESIGN §6, "Cache stability"): `trim_to`, `cut`,
//! `summary` and `cache_breakpoint`, read apart from the other options ([`crate::request`]).

use crate::error::Error;
use serde_json::{Map, Value};

/// How a trim keeps the history's prefix from call to call.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheOptions {
    /// `trim_to` or `cut` was given (`null` is not given): the trim keeps its prefix stable
    /// ([`crate::stable`]) and the report says where the kept run starts (`report.cut`).
    pub stable: bool,
    /// When a trim has to remove something, it removes down to this share of the history
    /// budget (and of `max_messages`); in (0, 1], 1 when not given.
    pub trim_to: f64,
    /// The previous answer's `report.cut`: the caller's index of the first message of the kept
    /// run, which never moves back.
    pub cut: Option<usize>,
    /// Anthropic format: a `cache_control` breakpoint on the last block of the last message
    /// before the newest user message.
    pub cache_breakpoint: bool,
    /// The caller's summary of the messages up to an index (`crate::summary`).
    pub summary: Option<Summary>,
}

/// `summary: {"text", "through"}`: the caller's summary of its messages up to `through`
/// (inclusive), placed in their stead right after the pinned message.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub text: String,
    pub through: usize,
}

impl Default for CacheOptions {
    fn default() -> Self {
        CacheOptions {
            stable: false,
            trim_to: 1.0,
            cut: None,
            cache_breakpoint: false,
            summary: None,
        }
    }
}

impl CacheOptions {
    /// Reads `trim_to`, `cut` and `cache_breakpoint` from a request object.
    pub fn from_map(request: &Map<String, Value>) -> Result<Self, Error> {
        let mut cache = CacheOptions::default();
        if let Some(value) = request.get("trim_to").filter(|v| !v.is_null()) {
            let share = value.as_f64().filter(|s| *s > 0.0 && *s <= 1.0);
            cache.trim_to = share.ok_or_else(|| {
                Error::invalid_request(
                    format!("trim_to must be a number in (0, 1], not {value}"),
                    "trim_to",
                )
            })?;
            cache.stable = true;
        }
        if let Some(value) = request.get("cut").filter(|v| !v.is_null()) {
            let index = value.as_u64().ok_or_else(|| {
                Error::invalid_request(
                    format!(
                        "cut must be a non-negative integer (the previous answer's report.cut) \
                         or null, not {value}"
                    ),
                    "cut",
                )
            })?;
            cache.cut = Some(usize::try_from(index).unwrap_or(usize::MAX));
            cache.stable = true;
        }
        if let Some(value) = request.get("summary").filter(|v| !v.is_null()) {
            let bad = || {
                Error::invalid_request(
                    format!(
                        "summary must be {{\"text\": a string, \"through\": the index of the last \
                         message it summarises}} or null, not {value}"
                    ),
                    "summary",
                )
            };
            let fields = value.as_object().ok_or_else(bad)?;
            if fields.keys().any(|k| k != "text" && k != "through") {
                return Err(bad());
            }
            let text = fields.get("text").and_then(Value::as_str).ok_or_else(bad)?;
            let through = fields
                .get("through")
                .and_then(Value::as_u64)
                .ok_or_else(bad)?;
            cache.summary = Some(Summary {
                text: text.to_owned(),
                through: usize::try_from(through).unwrap_or(usize::MAX),
            });
        }
        if let Some(value) = request.get("cache_breakpoint").filter(|v| !v.is_null()) {
            cache.cache_breakpoint = value.as_bool().ok_or_else(|| {
                Error::invalid_request(
                    format!("cache_breakpoint must be true or false, not {value}"),
                    "cache_breakpoint",
                )
            })?;
        }
        Ok(cache)
    }
}

//! How a long history is sent as tails, as numbers ([`TAIL_DRIVER`]): the first tail, its
//! widening, the shortest history sent as a tail, the options that send it whole. The rules
//! that read them are [`super::select`]'s; `ankita_formats` states them (`tail`) beside each
//! format's facts ([`describe_formats`]).

use serde_json::{json, Value};

/// How a front end drives the trim of a long history from its newest messages (the requests
/// of `ankita_trim_tail` and `ankita_sanitize_tail`, [`crate::tail`]): every number and rule
/// of the driver, so that each binding holds only its walk over its own language's objects
/// (which older messages are plain), and the bindings cannot drift apart.
#[derive(Debug)]
pub struct TailDriver {
    /// A trim's history with fewer messages than this before its first tail is sent whole; a
    /// sanitize's, or a trim's that nothing limits, of at most this many messages.
    pub min_before: usize,
    /// The first tail of a trim with a budget and no count limit (`max_messages` null or
    /// not a count).
    pub first_with_budget: usize,
    /// The first tail of a trim with a count limit (`max_messages`, or its default when
    /// neither it nor a budget is given): `count_times × max_messages + count_plus`, at least
    /// `first_at_least`.
    pub count_times: usize,
    pub count_plus: usize,
    pub first_at_least: usize,
    /// The count limit when neither `max_messages` nor a budget is given.
    pub default_max_messages: usize,
    /// The options that make a budget (given and not null).
    pub budget_keys: &'static [&'static str],
    /// With `max_messages` not given, these make a budget too (a model's context window).
    pub default_budget_keys: &'static [&'static str],
    /// Options under which no tail is sent (given and not null): the whole history answers.
    /// (A `window` of the caller's is sent whole too: that key is the tail request's own.)
    pub whole_with: &'static [&'static str],
    /// How many times longer the next tail is when no message to start one is near, or when
    /// the core asks for a wider one without a `scale`.
    pub widen_times: usize,
    /// With a `scale`: `widen_by_scale × scale` times longer, at least `widen_at_least`.
    pub widen_by_scale: f64,
    pub widen_at_least: f64,
    /// How many calls of a run of call messages a front end's shapes pair with their replies
    /// (by comparing strings; a longer run's replies get numbers of their own, so the core gives
    /// those messages): the cost of reading a history stays linear.
    pub pair_run: usize,
}

/// The driver of every front end's tails (`tail` of `ankita_formats`).
pub const TAIL_DRIVER: TailDriver = TailDriver {
    min_before: 64,
    first_with_budget: 256,
    count_times: 2,
    count_plus: 32,
    first_at_least: 64,
    default_max_messages: crate::request::DEFAULT_MAX_MESSAGES,
    budget_keys: &["max_bytes", "context_tokens"],
    default_budget_keys: &["max_bytes", "context_tokens", "model"],
    whole_with: &["clear_tool_results"],
    widen_times: 4,
    widen_by_scale: 1.25,
    widen_at_least: 2.0,
    pair_run: 64,
};

impl TailDriver {
    /// The facts as JSON, field for field (`tail` of `ankita_formats`).
    pub fn describe(&self) -> Value {
        json!({
            "min_before": self.min_before,
            "first_with_budget": self.first_with_budget,
            "count_times": self.count_times,
            "count_plus": self.count_plus,
            "first_at_least": self.first_at_least,
            "default_max_messages": self.default_max_messages,
            "budget_keys": self.budget_keys,
            "default_budget_keys": self.default_budget_keys,
            "whole_with": self.whole_with,
            "widen_times": self.widen_times,
            "widen_by_scale": self.widen_by_scale,
            "widen_at_least": self.widen_at_least,
            "pair_run": self.pair_run,
        })
    }

    /// The first tail of a trim with these options (a JSON object's keys), or `None` when
    /// nothing limits the trim (a count limit `max_messages` that is a number but no count
    /// gives `first_with_budget`).
    pub fn first_tail(
        &self,
        max_messages: Option<&Value>,
        given: impl Fn(&str) -> bool,
    ) -> Option<usize> {
        let any = |keys: &[&str]| keys.iter().any(|k| given(k));
        let count = |max: usize| {
            max.saturating_mul(self.count_times)
                .saturating_add(self.count_plus)
                .max(self.first_at_least)
        };
        match max_messages {
            None if any(self.default_budget_keys) => Some(self.first_with_budget),
            None => Some(count(self.default_max_messages)),
            Some(Value::Number(n)) => Some(n.as_u64().map_or(self.first_with_budget, |max| {
                count(usize::try_from(max).unwrap_or(usize::MAX))
            })),
            Some(Value::Null) if !any(self.budget_keys) => None,
            Some(_) => Some(self.first_with_budget),
        }
    }

    /// The tail after `size` when the core asks for a wider one: `scale` when every message
    /// given fit; `None` (the whole history) for a scale that is no number.
    pub fn widened(&self, size: usize, scale: Option<f64>) -> Option<usize> {
        match scale {
            None => Some(size.saturating_mul(self.widen_times)),
            Some(scale) if scale.is_finite() => {
                let times = (self.widen_by_scale * scale).max(self.widen_at_least);
                Some((size as f64 * times).min(usize::MAX as f64) as usize)
            }
            Some(_) => None,
        }
    }
}

/// Every format's facts and the tail's driver: `ankita_formats`' answer but `ok`
/// ([`crate::format::describe_formats`] and `"tail"`: [`TAIL_DRIVER`]).
pub fn describe_formats() -> Value {
    let mut facts = crate::format::describe_formats();
    facts["tail"] = TAIL_DRIVER.describe();
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tail driver's facts as JSON are its fields, and its rules answer as the bindings'
    /// drivers did when each held them.
    #[test]
    fn the_tail_driver_is_described_and_answers() {
        let d = describe_formats();
        let tail = d["tail"].as_object().unwrap();
        assert_eq!(tail["min_before"], 64);
        assert_eq!(tail["widen_by_scale"], 1.25);
        assert_eq!(tail["default_max_messages"], crate::DEFAULT_MAX_MESSAGES);
        assert_eq!(tail["whole_with"], json!(["clear_tool_results"]));
        assert_eq!(tail.len(), 13);
        let first = |options: Value| {
            let map = options.as_object().unwrap().clone();
            let given = |k: &str| map.get(k).is_some_and(|v| !v.is_null());
            TAIL_DRIVER.first_tail(map.get("max_messages"), given)
        };
        assert_eq!(first(json!({})), Some(2 * crate::DEFAULT_MAX_MESSAGES + 32));
        assert_eq!(first(json!({"max_messages": 12})), Some(64));
        assert_eq!(first(json!({"max_messages": 100})), Some(232));
        assert_eq!(first(json!({"max_bytes": 9000})), Some(256));
        assert_eq!(first(json!({"model": "gpt-4o"})), Some(256));
        assert_eq!(
            first(json!({"max_messages": null, "model": "gpt-4o"})),
            None
        );
        assert_eq!(
            first(json!({"max_messages": null, "context_tokens": 8000})),
            Some(256)
        );
        assert_eq!(first(json!({"max_messages": null})), None);
        assert_eq!(first(json!({"max_messages": -1})), Some(256));
        assert_eq!(TAIL_DRIVER.widened(256, None), Some(1024));
        assert_eq!(TAIL_DRIVER.widened(256, Some(1.0)), Some(512));
        assert_eq!(TAIL_DRIVER.widened(256, Some(4.0)), Some(1280));
        assert_eq!(TAIL_DRIVER.widened(256, Some(f64::INFINITY)), None);
    }
}

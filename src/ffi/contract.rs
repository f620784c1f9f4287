//! The C entries that describe the contract itself: what each format is
//! ([`crate::format::facts`]) and which request keys there are ([`crate::request::OPTIONS`]),
//! for front ends that read these facts once instead of holding their own copies.

use super::boundary;
use serde_json::{json, Value};
use std::ffi::c_char;

/// Describes every format: `{"ok": true, "default": "openai", "formats": [{"name",
/// "takes_system", "merges_turns", "user_turn_first", "rebuilds_messages", "content_key",
/// "plain": {"user", "model", "other_roles", "text_key", "text_parts", "extra_key",
/// "extra_value"}}, ...], "tail": {"min_before", "first_with_budget", "count_times",
/// "count_plus", "first_at_least", "default_max_messages", "budget_keys", "default_budget_keys",
/// "whole_with", "widen_times", "widen_by_scale", "widen_at_least"}}`. `takes_system`: the
/// system prompt is the request key `system`; `merges_turns`: adjacent turns of one role may come
/// back merged; `rebuilds_messages`: a changed message comes back rebuilt whole, never as an edit
/// of the caller's; `plain`: what a message a long history's tail request may leave out looks
/// like; `tail`: how a front end sends a long history as tails (docs/long-histories.md): the
/// first tail, the shortest history sent as tails, the widening, the options that send it whole.
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
#[no_mangle]
pub extern "C" fn ankita_formats() -> *mut c_char {
    boundary(|| Ok(with_ok(crate::tail::driver::describe_formats())))
}

/// `{"ok": true}` followed by the fields of `value` (an object).
fn with_ok(value: Value) -> Value {
    let mut out = json!({"ok": true});
    if let (Some(out), Value::Object(fields)) = (out.as_object_mut(), value) {
        out.extend(fields);
    }
    out
}

/// Describes every option of a trim request (every key but `messages`), the one table the
/// front ends' options follow: `{"ok": true, "options": [{"name": "max_bytes", "type":
/// "integer", "doc": "..."}, ...]}`.
///
/// Ownership: the returned string is owned by the caller and must be released with
/// `ankita_string_free`. Thread safety: may be called from any thread concurrently.
#[no_mangle]
pub extern "C" fn ankita_options() -> *mut c_char {
    boundary(|| Ok(with_ok(crate::request::describe_options())))
}

//! Which messages a tail request gives (DESIGN §13, `ankita_tail_select`): the rules of the
//! stateless trim's and sanitize's tails, written once for every front end.
//!
//! A front end reads each of the caller's messages once into its *shape* — what the rules read
//! of it: whether it is plain (and its role, and for a trim nothing limits its text's UTF-8
//! length), a message of the user's text parts, a message of tool calls or of replies (their
//! ids and names, as numbers the front end gives each distinct string) or something else — as
//! each format's facts describe them ([`crate::format::Plain`], [`crate::format::facts::Turns`]).
//! From the shapes and the options, [`select`] answers what to send: the whole history, or a
//! tail — `from`, the runs of older messages given, what each gap between them holds, the
//! left-out plain messages' sizes, and how the given older messages go (as they are, or as
//! stand-ins). The front end writes that request from its own objects; when the core answers
//! `widen`, [`select`] is asked again with that answer ([`After`]), and answers a wider tail or
//! the whole history.
//!
//! Only the reading of the caller's objects is the front end's: where a tail starts, which
//! plain messages are given, where runs of whole turns lie and how calls pair with replies, how
//! long the first tail is and how it widens are here.

use super::driver::TAIL_DRIVER;
use super::GapKind;
use crate::error::Error;
use crate::format::Format;
use serde_json::{json, Map, Value};
use std::ops::Range;

/// What a message is, as the selection reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// None of the others: always given when older than the tail.
    Other,
    /// A plain message: its role ([`ROLE_USER`], [`ROLE_MODEL`], or [`ROLE_OTHER`] + the
    /// index of the format's other role) and, when it holds its role and text alone and the
    /// front end measured it, its text's UTF-8 length.
    Plain { role: u32, len: Option<u64> },
    /// A message of the user's holding text parts only.
    UserParts,
    /// A message of tool calls; `alone`: the message is one call itself.
    Calls { alone: bool },
    /// A message of replies to calls.
    Replies,
}

/// A plain message's role: the user's.
pub const ROLE_USER: u32 = 0;
/// A plain message's role: the model's.
pub const ROLE_MODEL: u32 = 1;
/// A plain message's role: the format's other roles (`system`, `developer`), from this on.
pub const ROLE_OTHER: u32 = 2;

/// A length no front end measured (a plain message's words give it for none).
const NO_LENGTH: u32 = u32::MAX;

/// The shapes of a history's messages, in order (see the module documentation). Built by a
/// front end with the `push_*` methods, or read from the C ABI's words ([`Shapes::from_words`]).
#[derive(Default, Debug)]
pub struct Shapes {
    kinds: Vec<Kind>,
    /// Each message's calls or replies, `(id, name)`, as a range of `items`.
    spans: Vec<(u32, u32)>,
    items: Vec<(u32, u32)>,
}

impl Shapes {
    /// No message yet, room for `n`.
    pub fn with_capacity(n: usize) -> Shapes {
        Shapes {
            kinds: Vec::with_capacity(n),
            spans: Vec::with_capacity(n),
            items: Vec::new(),
        }
    }

    /// The number of messages.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Whether there is no message.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    fn push(&mut self, kind: Kind) {
        let at = self.items.len() as u32;
        self.kinds.push(kind);
        self.spans.push((at, at));
    }

    /// A message that is none of the others.
    pub fn push_other(&mut self) {
        self.push(Kind::Other);
    }

    /// A plain message of `role` ([`ROLE_USER`], ...); `len`: its text's UTF-8 length when it
    /// holds its role and a string text alone.
    pub fn push_plain(&mut self, role: u32, len: Option<u64>) {
        self.push(Kind::Plain { role, len });
    }

    /// A message of the user's text parts.
    pub fn push_user_parts(&mut self) {
        self.push(Kind::UserParts);
    }

    /// A message of tool calls `(id, name)` (`name` 0: none), in order; `alone`: the message
    /// is one call itself.
    pub fn push_calls(&mut self, alone: bool, calls: impl IntoIterator<Item = (u32, u32)>) {
        self.push(Kind::Calls { alone });
        self.items.extend(calls);
        self.close_span();
    }

    /// A message of replies `(id, name)` (`name` 0: none), in order.
    pub fn push_replies(&mut self, replies: impl IntoIterator<Item = (u32, u32)>) {
        self.push(Kind::Replies);
        self.items.extend(replies);
        self.close_span();
    }

    fn close_span(&mut self) {
        let end = self.items.len() as u32;
        if let Some(span) = self.spans.last_mut() {
            span.1 = end;
        }
    }

    /// The calls or replies of message `i`.
    fn items(&self, i: usize) -> &[(u32, u32)] {
        let (start, end) = self.spans[i];
        &self.items[start as usize..end as usize]
    }

    /// Reads the C ABI's words (native-endian `u32`s, one record a message, in order):
    /// `0` another message; `1, role, len` a plain one (`len` `0xFFFFFFFF`: not measured);
    /// `2` the user's text parts; `3, alone, n, id, name, ...` calls; `4, n, id, name, ...`
    /// replies. A malformed record is `invalid_request` at `shape[k]` (its word).
    pub fn from_words(words: &[u32]) -> Result<Shapes, Error> {
        let mut shapes = Shapes::default();
        let mut k = 0;
        let bad = |what: &str, at: usize| {
            Error::invalid_request(format!("the shape {what}"), format!("shape[{at}]"))
        };
        let word = |at: usize| {
            words
                .get(at)
                .copied()
                .ok_or_else(|| bad("ends inside a message", at))
        };
        while k < words.len() {
            match words[k] {
                0 => {
                    shapes.push_other();
                    k += 1;
                }
                1 => {
                    let (role, len) = (word(k + 1)?, word(k + 2)?);
                    shapes.push_plain(role, (len != NO_LENGTH).then_some(u64::from(len)));
                    k += 3;
                }
                2 => {
                    shapes.push_user_parts();
                    k += 1;
                }
                3 | 4 => {
                    let calls = words[k] == 3;
                    let at = if calls { k + 2 } else { k + 1 };
                    let n = word(at)? as usize;
                    let end = (at + 1).saturating_add(n.saturating_mul(2));
                    if end > words.len() {
                        return Err(bad("ends inside a message", words.len()));
                    }
                    let pairs = words[at + 1..end].chunks_exact(2).map(|p| (p[0], p[1]));
                    if calls {
                        shapes.push_calls(word(k + 1)? != 0, pairs);
                    } else {
                        shapes.push_replies(pairs);
                    }
                    k = end;
                }
                other => return Err(bad(&format!("has no message kind {other}"), k)),
            }
        }
        Ok(shapes)
    }

    /// A plain message's role.
    fn plain(&self, i: usize) -> Option<u32> {
        match self.kinds[i] {
            Kind::Plain { role, .. } => Some(role),
            _ => None,
        }
    }

    /// A plain message's role when it holds its role and text alone, measured.
    fn bare(&self, i: usize) -> Option<u32> {
        match self.kinds[i] {
            Kind::Plain { role, len: Some(_) } => Some(role),
            _ => None,
        }
    }
}

/// What a selection is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// `trim` (its options: a trim request's, without `messages`).
    Trim,
    /// `sanitize` (its options: `format` alone).
    Sanitize,
}

/// How the given older messages go (every one but message 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StandIns {
    /// As they are.
    None,
    /// As their stand-ins ([`crate::format::StandIn`]).
    Replace,
    /// As their stand-ins, with the UTF-8 and JSON lengths of what each replaced string stood
    /// for (`window.stood_in`: a trim that prices what it keeps).
    Note,
}

/// A tail to send.
#[derive(Debug, PartialEq)]
pub struct Tail {
    /// The tail's length asked for (`None`: no wider tail follows: the next is the whole
    /// history); give it back in [`After`].
    pub size: Option<usize>,
    /// The first message of the tail (`window.from`).
    pub from: usize,
    /// The given messages before `from`, as runs.
    pub earlier: Vec<Range<usize>>,
    /// What each gap between the runs (and before `from`) holds, in order.
    pub gaps: Vec<GapKind>,
    /// Of each left-out message, its role and text's UTF-8 length (`window.sizes`).
    pub sizes: Option<Vec<(&'static str, u64)>>,
    /// How the given older messages go.
    pub stand_ins: StandIns,
}

/// What to send.
#[derive(Debug, PartialEq)]
pub enum Next {
    /// The whole history (the plain request, without `window`).
    Whole,
    /// Read the history's shapes (with the plain messages' lengths, when `lengths`), and ask
    /// again.
    Shapes { lengths: bool },
    /// A tail.
    Tail(Tail),
}

/// What the core answered the tail sent before: `widen`, with its `scale` (`None`: not given;
/// infinite: `"scale": null`, the whole history).
#[derive(Clone, Copy, Debug)]
pub struct After {
    /// The tail's `size` ([`Tail::size`]).
    pub size: Option<usize>,
    pub scale: Option<f64>,
}

/// What a selection reads of the options: the format, and the first tail (`None`: nothing
/// limits the trim), or that the whole history goes.
enum Plan {
    Whole,
    Limited(usize),
    Sized(Format),
    Sanitize,
}

fn plan(call: Call, options: &Map<String, Value>, n: usize) -> Plan {
    let driver = &TAIL_DRIVER;
    // A format that names none: the whole history's request answers the error.
    let Ok(format) = crate::request::format_of(options) else {
        return Plan::Whole;
    };
    let traits = format.traits();
    match call {
        Call::Sanitize => {
            let only_format = options.keys().all(|k| k == "format");
            if only_format && !traits.merges_turns && n > driver.min_before {
                Plan::Sanitize
            } else {
                Plan::Whole
            }
        }
        Call::Trim => {
            let given = |key: &str| options.get(key).is_some_and(|v| !v.is_null());
            // A `window` of the caller's is no trim option: the whole history's trim names it.
            if options.contains_key("window") || driver.whole_with.iter().any(|k| given(k)) {
                return Plan::Whole;
            }
            match driver.first_tail(options.get("max_messages"), given) {
                Some(size) if n >= size.saturating_add(driver.min_before) => Plan::Limited(size),
                Some(_) => Plan::Whole,
                None if !traits.merges_turns
                    && !traits.plain.text_parts
                    && n > driver.min_before =>
                {
                    Plan::Sized(format)
                }
                None => Plan::Whole,
            }
        }
    }
}

/// What to send first, before the shapes are read: the whole history, or the shapes (and
/// whether with lengths).
pub fn start(call: Call, options: &Map<String, Value>, n: usize) -> Next {
    match plan(call, options, n) {
        Plan::Whole => Next::Whole,
        Plan::Sized(_) => Next::Shapes { lengths: true },
        Plan::Limited(_) | Plan::Sanitize => Next::Shapes { lengths: false },
    }
}

/// What to send for a history of `shapes` (see the module documentation); `after`: the core
/// answered `widen` to the tail sent before.
pub fn select(
    call: Call,
    options: &Map<String, Value>,
    shapes: &Shapes,
    after: Option<After>,
) -> Next {
    let n = shapes.len();
    match (plan(call, options, n), after) {
        (Plan::Whole, _) => Next::Whole,
        (Plan::Sized(format), None) => sized(format, shapes).map_or(Next::Whole, Next::Tail),
        (Plan::Sanitize, None) => {
            let from = n - 1;
            let (earlier, gaps) = older_with_turns(shapes, from);
            Next::Tail(Tail {
                size: None,
                from,
                earlier,
                gaps,
                sizes: None,
                stand_ins: StandIns::None,
            })
        }
        (Plan::Limited(first), after) => {
            let size = match after {
                None => Some(first),
                Some(After { size: None, .. }) => None,
                Some(After {
                    size: Some(size),
                    scale,
                }) => TAIL_DRIVER.widened(size, scale),
            };
            size.and_then(|size| limited(shapes, size))
                .map_or(Next::Whole, Next::Tail)
        }
        // A tail that needs no widening was answered: the whole history is next.
        (Plan::Sized(_) | Plan::Sanitize, Some(_)) => Next::Whole,
    }
}

/// The tail of a trim with a limit, from `size` messages on, widened until one starts on a
/// plain message of the user's; `None` once it would hold the whole history.
fn limited(shapes: &Shapes, mut size: usize) -> Option<Tail> {
    let n = shapes.len();
    while n >= size.saturating_add(TAIL_DRIVER.min_before) {
        // The tail starts on a plain user message, no further back than twice its size.
        let mut from = n - size;
        let lowest = from.saturating_sub(size).max(1);
        while shapes.plain(from) != Some(ROLE_USER) && from > lowest {
            from -= 1;
        }
        if shapes.plain(from) == Some(ROLE_USER) {
            let (earlier, gaps) = older_with_turns(shapes, from);
            return Some(Tail {
                size: Some(size),
                from,
                earlier,
                gaps,
                sizes: None,
                stand_ins: StandIns::Replace,
            });
        }
        size = size.saturating_mul(TAIL_DRIVER.widen_times);
    }
    None
}

/// The request of a trim nothing limits: the last message, the older ones the answer may
/// depend on (the plain rule, with a plain message holding anything but its role and text
/// given), and of the plain ones left out their roles and lengths.
fn sized(format: Format, shapes: &Shapes) -> Option<Tail> {
    let from = shapes.len() - 1;
    let mut runs = Runs::default();
    runs.give(0);
    plain_runs(|i| shapes.bare(i), 1, from, &mut |i| runs.give(i));
    let plain = &format.traits().plain;
    let (mut sizes, mut gaps) = (Vec::new(), Vec::new());
    for (k, run) in runs.runs.iter().enumerate() {
        let next = runs.runs.get(k + 1).map_or(from, |r| r.start);
        if next > run.end {
            gaps.push(GapKind::Plain);
        }
        for i in run.end..next {
            let Kind::Plain {
                role,
                len: Some(len),
            } = shapes.kinds[i]
            else {
                return None;
            };
            let name = match role {
                ROLE_USER => plain.user,
                ROLE_MODEL => plain.model,
                other => *plain
                    .other_roles
                    .get(usize::try_from(other - ROLE_OTHER).ok()?)?,
            };
            sizes.push((name, len));
        }
    }
    Some(Tail {
        size: None,
        from,
        earlier: runs.runs,
        gaps,
        sizes: Some(sizes),
        stand_ins: StandIns::Note,
    })
}

/// Runs of given messages.
#[derive(Default)]
struct Runs {
    runs: Vec<Range<usize>>,
}

impl Runs {
    /// Gives message `i` (past every one given so far).
    fn give(&mut self, i: usize) {
        match self.runs.last_mut() {
            Some(run) if run.end == i => run.end += 1,
            _ => self.runs.push(i..i + 1),
        }
    }

    /// Where the runs end (the next message not given).
    fn end(&self) -> usize {
        self.runs.last().map_or(0, |r| r.end)
    }
}

/// Of the messages `lo..hi` (the one before `lo` given, or `lo` = 1), gives every message
/// `plain` reads no role of, and of each run of plain ones its first and last — and, when both
/// are the model's, the first one that is not (a gap is bounded by one), or all of them when
/// none is.
fn plain_runs(
    plain: impl Fn(usize) -> Option<u32>,
    lo: usize,
    hi: usize,
    give: &mut impl FnMut(usize),
) {
    let mut i = lo;
    while i < hi {
        let Some(role) = plain(i) else {
            give(i);
            i += 1;
            continue;
        };
        let (mut end, mut last, mut turn) = (i + 1, role, (role != ROLE_MODEL).then_some(i));
        while end < hi {
            let Some(next) = plain(end) else {
                break;
            };
            if turn.is_none() && next != ROLE_MODEL {
                turn = Some(end);
            }
            last = next;
            end += 1;
        }
        give(i);
        if end - i > 2 && role == ROLE_MODEL && last == ROLE_MODEL {
            match turn {
                Some(t) => give(t),
                None => (i + 1..end - 1).for_each(&mut *give),
            }
        }
        if end - i > 1 {
            give(end - 1);
        }
        i = end;
    }
}

/// The end of the whole tool exchange starting at message `i` (before `hi`), if one does: a
/// message of calls (or a run of them, where the first is one call itself), then the messages
/// of replies answering its calls one to one, in order — ids distinct and matching, a reply's
/// name, where it has one, its call's.
fn exchange(shapes: &Shapes, i: usize, hi: usize) -> Option<usize> {
    let Kind::Calls { alone } = shapes.kinds[i] else {
        return None;
    };
    let mut calls: Vec<(u32, u32)> = shapes.items(i).to_vec();
    let mut j = i + 1;
    while alone && j < hi && matches!(shapes.kinds[j], Kind::Calls { .. }) {
        calls.extend_from_slice(shapes.items(j));
        j += 1;
    }
    if calls.is_empty() {
        return None;
    }
    for (k, call) in calls.iter().enumerate() {
        if calls[..k].iter().any(|c| c.0 == call.0) {
            return None;
        }
    }
    let mut answered = 0;
    while answered < calls.len() && j < hi {
        if shapes.kinds[j] != Kind::Replies || shapes.items(j).is_empty() {
            return None;
        }
        for &(id, name) in shapes.items(j) {
            let call = calls.get(answered)?;
            if id != call.0 || (name != 0 && name != call.1) {
                return None;
            }
            answered += 1;
        }
        j += 1;
    }
    (answered == calls.len()).then_some(j)
}

/// The older messages given before `from`, as runs, and what each gap holds: the runs of
/// whole turns left out first — from a message of the user's (plain, or of text parts) to
/// right before the last one of its stretch of plain messages, user parts and whole exchanges,
/// which is given and is never `from` —, the plain rule between them.
fn older_with_turns(shapes: &Shapes, from: usize) -> (Vec<Range<usize>>, Vec<GapKind>) {
    let mut turns: Vec<Range<usize>> = Vec::new();
    let (mut start, mut last): (Option<usize>, Option<usize>) = (None, None);
    let mut close = |start: &mut Option<usize>, last: &mut Option<usize>| {
        if let (Some(s), Some(q)) = (start.take(), last.take()) {
            if q > s {
                turns.push(s..q);
            }
        }
    };
    let mut i = 1;
    while i < from {
        let kind = shapes.kinds[i];
        if kind == Kind::UserParts || shapes.plain(i) == Some(ROLE_USER) {
            start.get_or_insert(i);
            last = Some(i);
            i += 1;
        } else if matches!(kind, Kind::Plain { .. }) {
            i += 1;
        } else if let Some(end) = exchange(shapes, i, from) {
            i = end;
        } else {
            close(&mut start, &mut last);
            i += 1;
        }
    }
    close(&mut start, &mut last);
    let mut runs = Runs::default();
    let mut gaps = Vec::new();
    let mut give = |runs: &mut Runs, i: usize| {
        if i > runs.end() {
            let ends_turns = turns.iter().any(|r| r.end == i);
            gaps.push(if ends_turns {
                GapKind::Turns
            } else {
                GapKind::Plain
            });
        }
        runs.give(i);
    };
    give(&mut runs, 0);
    let plain = |i: usize| shapes.plain(i);
    let mut lo = 1;
    for run in &turns {
        plain_runs(plain, lo, run.start, &mut |i| give(&mut runs, i));
        lo = run.end;
    }
    plain_runs(plain, lo, from, &mut |i| give(&mut runs, i));
    if from > runs.end() {
        gaps.push(GapKind::Plain);
    }
    (runs.runs, gaps)
}

impl Next {
    /// The answer of `ankita_tail_select`: `{"ok": true, "send": "whole"}`, `{"ok": true,
    /// "send": "shapes", "lengths": <bool>}`, or `{"ok": true, "send": "tail", "size": <n or
    /// null>, "earlier": [[start, end], ...], "stand_ins": "none" | "replace" | "note",
    /// "window": {"from", "gaps"?, "sizes"?}}` (`window` is the request's, but for `earlier`'s
    /// messages and `stood_in`).
    pub fn to_json(&self) -> Value {
        match self {
            Next::Whole => json!({"ok": true, "send": "whole"}),
            Next::Shapes { lengths } => json!({"ok": true, "send": "shapes", "lengths": lengths}),
            Next::Tail(tail) => {
                let mut window = Map::new();
                window.insert("from".into(), tail.from.into());
                if tail.gaps.iter().any(|g| *g != GapKind::Plain) {
                    let names = tail.gaps.iter().map(|g| g.name()).collect::<Vec<_>>();
                    window.insert("gaps".into(), names.into());
                }
                if let Some(sizes) = &tail.sizes {
                    let flat: Vec<Value> = sizes
                        .iter()
                        .flat_map(|&(role, len)| [Value::from(role), Value::from(len)])
                        .collect();
                    window.insert("sizes".into(), flat.into());
                }
                let earlier: Vec<Value> = tail
                    .earlier
                    .iter()
                    .map(|r| json!([r.start, r.end]))
                    .collect();
                json!({
                    "ok": true,
                    "send": "tail",
                    "size": tail.size,
                    "earlier": earlier,
                    "stand_ins": match tail.stand_ins {
                        StandIns::None => "none",
                        StandIns::Replace => "replace",
                        StandIns::Note => "note",
                    },
                    "window": window,
                })
            }
        }
    }
}

/// `ankita_tail_select`'s request, `{"call": "trim" | "sanitize", "messages": <n>, "options":
/// {...}, "after"?: {"size": <n or null>, "widen": <the core's widen answer>}}`, with the
/// shapes (`None`: not read yet), answered as [`Next::to_json`].
pub fn select_answer(request: &str, shapes: Option<&[u32]>) -> Result<Value, Error> {
    let bad = |what: &str, path: &str| Error::invalid_request(what, path);
    let value: Value = serde_json::from_str(request).map_err(crate::api::invalid_json)?;
    let Value::Object(fields) = value else {
        return Err(bad("the request must be an object", "request"));
    };
    if let Some(key) = fields
        .keys()
        .find(|k| !["call", "messages", "options", "after"].contains(&k.as_str()))
    {
        return Err(bad(&format!("unknown key {key:?}"), key));
    }
    let call = match fields.get("call").and_then(Value::as_str) {
        Some("trim") => Call::Trim,
        Some("sanitize") => Call::Sanitize,
        _ => return Err(bad("call must be \"trim\" or \"sanitize\"", "call")),
    };
    let n = fields
        .get("messages")
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| bad("messages must be the history's length", "messages"))?;
    let empty = Map::new();
    let options = match fields.get("options") {
        None => &empty,
        Some(Value::Object(o)) => o,
        Some(_) => return Err(bad("options must be an object", "options")),
    };
    let after = match fields.get("after") {
        None | Some(Value::Null) => None,
        Some(Value::Object(a)) => {
            let size = match a.get("size") {
                None | Some(Value::Null) => None,
                Some(v) => Some(
                    v.as_u64()
                        .and_then(|s| usize::try_from(s).ok())
                        .ok_or_else(|| bad("after.size must be a count or null", "after.size"))?,
                ),
            };
            let scale = match a.get("widen").and_then(|w| w.get("scale")) {
                None => None,
                Some(Value::Null) => Some(f64::INFINITY),
                Some(v) => Some(v.as_f64().ok_or_else(|| {
                    bad("after.widen.scale must be a number", "after.widen.scale")
                })?),
            };
            Some(After { size, scale })
        }
        Some(_) => return Err(bad("after must be an object", "after")),
    };
    let Some(words) = shapes else {
        return Ok(start(call, options, n).to_json());
    };
    let shapes = Shapes::from_words(words)?;
    if shapes.len() != n {
        return Err(bad(
            &format!(
                "the shape holds {} messages where messages is {n}",
                shapes.len()
            ),
            "shape",
        ));
    }
    Ok(select(call, options, &shapes, after).to_json())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A history: message 0, then `f` pushes the rest.
    fn shapes(f: impl FnOnce(&mut Shapes)) -> Shapes {
        let mut s = Shapes::default();
        s.push_plain(ROLE_OTHER, None);
        f(&mut s);
        s
    }

    #[test]
    fn an_exchange_pairs_calls_with_replies_one_to_one_in_order() {
        let pair = |calls: Vec<(u32, u32)>, replies: Vec<Vec<(u32, u32)>>| {
            let s = shapes(|s| {
                s.push_calls(false, calls);
                for r in replies {
                    s.push_replies(r);
                }
                s.push_plain(ROLE_USER, None);
            });
            exchange(&s, 1, s.len())
        };
        assert_eq!(
            pair(vec![(1, 10), (2, 11)], vec![vec![(1, 10)], vec![(2, 11)]]),
            Some(4)
        );
        assert_eq!(
            pair(vec![(1, 10), (2, 11)], vec![vec![(1, 10), (2, 0)]]),
            Some(3)
        );
        // A reply's name, where it has one, is its call's.
        assert_eq!(pair(vec![(1, 10)], vec![vec![(1, 12)]]), None);
        // In order, ids distinct, every call answered, no reply left over.
        assert_eq!(
            pair(vec![(1, 10), (2, 11)], vec![vec![(2, 11)], vec![(1, 10)]]),
            None
        );
        assert_eq!(
            pair(vec![(1, 10), (1, 10)], vec![vec![(1, 10)], vec![(1, 10)]]),
            None
        );
        assert_eq!(pair(vec![(1, 10), (2, 11)], vec![vec![(1, 10)]]), None);
        assert_eq!(pair(vec![(1, 10)], vec![vec![(1, 10), (2, 11)]]), None);
        assert_eq!(pair(vec![(1, 10)], vec![vec![]]), None);
        // Calls that are each a message (Responses' items) make one exchange.
        let s = shapes(|s| {
            s.push_calls(true, [(1, 10)]);
            s.push_calls(true, [(2, 11)]);
            s.push_replies([(1, 0)]);
            s.push_replies([(2, 0)]);
        });
        assert_eq!(exchange(&s, 1, s.len()), Some(5));
        assert_eq!(exchange(&s, 1, 4), None);
    }

    #[test]
    fn a_run_of_whole_turns_ends_before_the_last_message_of_the_users() {
        // 0 | user, calls, reply, model, user, calls, reply, user | user (from)
        let s = shapes(|s| {
            s.push_plain(ROLE_USER, None);
            s.push_calls(false, [(1, 10)]);
            s.push_replies([(1, 10)]);
            s.push_plain(ROLE_MODEL, None);
            s.push_user_parts();
            s.push_calls(false, [(2, 10)]);
            s.push_replies([(2, 10)]);
            s.push_plain(ROLE_USER, None);
            s.push_plain(ROLE_USER, None);
        });
        let (earlier, gaps) = older_with_turns(&s, 9);
        assert_eq!(earlier, vec![0..1, 8..9]);
        assert_eq!(gaps, vec![GapKind::Turns]);
        // An unanswered call closes the run before it; it is given.
        let s = shapes(|s| {
            s.push_plain(ROLE_USER, None);
            s.push_plain(ROLE_MODEL, None);
            s.push_plain(ROLE_USER, None);
            s.push_calls(false, [(1, 10)]);
            s.push_plain(ROLE_USER, None);
        });
        let (earlier, gaps) = older_with_turns(&s, 5);
        assert_eq!(earlier, vec![0..1, 3..5]);
        assert_eq!(gaps, vec![GapKind::Turns]);
    }

    #[test]
    fn plain_runs_give_their_ends_and_a_turn_between_the_models() {
        let roles = [ROLE_MODEL, ROLE_MODEL, ROLE_USER, ROLE_MODEL, ROLE_MODEL];
        let mut given = Vec::new();
        plain_runs(|i| Some(roles[i - 1]), 1, 6, &mut |i| given.push(i));
        assert_eq!(given, vec![1, 3, 5]);
        let mut given = Vec::new();
        plain_runs(|_| Some(ROLE_MODEL), 1, 5, &mut |i| given.push(i));
        assert_eq!(given, vec![1, 2, 3, 4]);
    }

    #[test]
    fn a_tail_starts_on_a_plain_message_of_the_users_and_widens() {
        let n = 200;
        let mut s = Shapes::default();
        for i in 0..n {
            s.push_plain(if i % 10 == 0 { ROLE_USER } else { ROLE_MODEL }, None);
        }
        let options = Map::new();
        let Next::Tail(tail) = select(Call::Trim, &options, &s, None) else {
            panic!("a tail")
        };
        // The first tail: 2 × 40 + 32 = 112 messages, started back on the user's message 80.
        assert_eq!((tail.size, tail.from), (Some(112), 80));
        let after = After {
            size: tail.size,
            scale: None,
        };
        // 4 × 112 would hold the whole history with the 64 before it: the whole history.
        assert_eq!(select(Call::Trim, &options, &s, Some(after)), Next::Whole);
        let mut options = Map::new();
        options.insert("window".into(), json!({}));
        assert_eq!(start(Call::Trim, &options, n), Next::Whole);
    }
}

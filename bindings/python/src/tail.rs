//! `trim` of a long history from its newest messages (core: `ankita::tail`;
//! docs/long-histories.md): the core is given a tail of the history and, of the older
//! messages, only those the answer may depend on, found by a light pass over each message's
//! keys, role and content type (not its text): every message that is not *plain* (a role and a
//! non-empty string, nothing else), message 0, and the ends of each run of plain messages. The
//! core answers the whole history's trim as a plan when the tail is enough, or asks for a
//! longer one; `None` here sends the whole history (as do short histories, and any error: the
//! whole history's trim raises it, in its order).
//!
//! A trim with a limit also leaves out runs of *whole turns* (turns.rs, `window.gaps`): from a
//! message of the user's to right before a later one, plain messages, messages of user text
//! parts and tool exchanges whose calls are all answered, in order, right after them, as each
//! format's `Turns` facts describe them; on agent histories, nearly every older message.
//!
//! In a trim with a limit the older messages given go as *stand-ins* (stood_in.rs): written
//! straight from the caller's objects with their long free text replaced, as each format's
//! `StandIn` facts allow (the answer never keeps them; message 0, which a pinned system
//! message is, goes whole). A trim that nothing limits keeps and prices every message: its
//! stand-ins go with the UTF-8 and JSON lengths of the text each replaced.
//!
//! Every number and rule of the driver (the first tail, its widening, the shortest history
//! sent as a tail, the options that send it whole), what a plain message is and what may be
//! stood in are the core's facts (`ankita::format::facts::TAIL_DRIVER`, each format's `Plain`,
//! `Turns` and `StandIn`; `ankita_formats` gives the same to the other front ends, Node's lib/tail.js
//! among them). Only the walk over the caller's dicts is here, and it has to be: its point is
//! that the older messages are never converted, so it reads Python objects where they are.

use ankita::format::facts::TAIL_DRIVER;
use ankita::format::Format;
use ankita::tail::{TailPlan, TailRequest};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::{Map, Value};
use std::ffi::{CStr, CString};

use crate::convert::{message_to_value, request_text, Path};
use crate::plan::{build_messages, report_dict, trim_report_dict, without_gil};
use crate::stood_in::StoodIn;
use crate::turns::{is_unicode, WholeTurns};

/// A plain message's role: the user's, the model's, or another (system, developer).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plain {
    User,
    Model,
    Other,
}

/// Reads messages: `plain` tells a plain message's role (see the module documentation). The
/// pass runs once over every older message, so it reads the dicts through the C API: borrowed
/// lookups, no reference counted, nothing allocated for ASCII text.
struct Reader<'py> {
    /// The format's plain messages, as the core describes them.
    plain: &'static ankita::format::Plain,
    /// Its roles and its extra key's one value, NUL-terminated for the C API.
    user: CString,
    model: CString,
    others: Vec<CString>,
    extra_value: Option<CString>,
    /// Interned keys and the name of `str.isascii`.
    role: Bound<'py, PyString>,
    text_key: Bound<'py, PyString>,
    text: Bound<'py, PyString>,
    extra_key: Option<Bound<'py, PyString>>,
    isascii: Bound<'py, PyString>,
}

/// Whether the str `text` equals `ascii` (no copy, no allocation).
///
/// # Safety
/// `text` is a live str.
unsafe fn is(text: *mut ffi::PyObject, ascii: &CStr) -> bool {
    // SAFETY: forwarded; `ascii` is NUL-terminated ASCII.
    unsafe { ffi::PyUnicode_CompareWithASCIIString(text, ascii.as_ptr()) == 0 }
}

impl<'py> Reader<'py> {
    fn new(py: Python<'py>, format: Format) -> Reader<'py> {
        let plain = &format.traits().plain;
        let key = |k: &str| PyString::intern(py, k);
        // The core's names hold no NUL.
        let c = |name: &str| CString::new(name).unwrap_or_default();
        Reader {
            plain,
            user: c(plain.user),
            model: c(plain.model),
            others: plain.other_roles.iter().map(|r| c(r)).collect(),
            extra_value: plain.extra.and_then(|(_, value)| value).map(c),
            role: key("role"),
            text_key: key(plain.text_key),
            text: key("text"),
            extra_key: plain.extra.map(|(k, _)| key(k)),
            isascii: key("isascii"),
        }
    }

    /// The value of `key` in `dict` (borrowed), or null.
    ///
    /// # Safety
    /// `dict` is a live dict.
    unsafe fn get(dict: *mut ffi::PyObject, key: &Bound<'py, PyString>) -> *mut ffi::PyObject {
        // SAFETY: forwarded; the key is a str (its hash cached: no error to swallow).
        unsafe { ffi::PyDict_GetItem(dict, key.as_ptr()) }
    }

    /// Whether `value` (borrowed, maybe null) is a non-empty str (not a subclass) that is
    /// Unicode (no lone surrogate): ASCII text is (`str.isascii` reads a flag); other text is
    /// encoded to tell.
    ///
    /// # Safety
    /// `value` is null or a live object, the GIL held.
    unsafe fn is_text(&self, value: *mut ffi::PyObject) -> bool {
        // SAFETY: forwarded.
        unsafe { is_unicode(value, &self.isascii, true) }
    }

    /// The role of a plain message with no key but its role and text, and its role's name and
    /// text's UTF-8 length (what `window.sizes` gives of a message left out); `None` else.
    fn sized(&self, message: &Bound<'py, PyAny>) -> Option<(Plain, &'static str, usize)> {
        let role = self.plain(message)?;
        let m = message.as_ptr();
        // SAFETY: as in `plain`: an exact dict (plain read it), borrowed reads, the GIL held.
        unsafe {
            if ffi::PyDict_Size(m) != 2 || self.plain.text_parts {
                return None;
            }
            let name = match role {
                Plain::User => self.plain.user,
                Plain::Model => self.plain.model,
                Plain::Other => {
                    let written = Self::get(m, &self.role);
                    let k = self.others.iter().position(|other| is(written, other))?;
                    self.plain.other_roles[k]
                }
            };
            let text = Self::get(m, &self.text_key);
            Some((role, name, self.utf8_len(text)?))
        }
    }

    /// The UTF-8 length of the str `text`: its length when it is ASCII, else its encoding's.
    ///
    /// # Safety
    /// `text` is a live exact str, the GIL held.
    unsafe fn utf8_len(&self, text: *mut ffi::PyObject) -> Option<usize> {
        // SAFETY: forwarded.
        unsafe {
            let ascii = ffi::PyObject_CallMethodObjArgs(
                text,
                self.isascii.as_ptr(),
                std::ptr::null_mut::<ffi::PyObject>(),
            );
            if ascii.is_null() {
                ffi::PyErr_Clear();
                return None;
            }
            let yes = ascii == ffi::Py_True();
            ffi::Py_DecRef(ascii);
            let len = if yes {
                ffi::PyUnicode_GetLength(text)
            } else {
                let bytes = ffi::PyUnicode_AsUTF8String(text);
                if bytes.is_null() {
                    ffi::PyErr_Clear();
                    return None;
                }
                let len = ffi::PyBytes_Size(bytes);
                ffi::Py_DecRef(bytes);
                len
            };
            usize::try_from(len).ok()
        }
    }

    /// The role of a plain message, or `None`.
    fn plain(&self, message: &Bound<'py, PyAny>) -> Option<Plain> {
        let m = message.as_ptr();
        // SAFETY: `message` is alive for the call and the GIL is held; every object read is
        // borrowed from `message`, which is not changed meanwhile: only exact dicts, lists and
        // strs are read, and no Python code runs but `str.isascii` of an exact str.
        unsafe {
            if ffi::PyDict_CheckExact(m) == 0 {
                return None;
            }
            let n = ffi::PyDict_Size(m);
            let role = Self::get(m, &self.role);
            if role.is_null() || ffi::PyUnicode_CheckExact(role) == 0 {
                return None;
            }
            let role = if is(role, &self.user) {
                Plain::User
            } else if is(role, &self.model) {
                Plain::Model
            } else if self.others.iter().any(|other| is(role, other)) {
                Plain::Other
            } else {
                return None;
            };
            let text = Self::get(m, &self.text_key);
            if self.plain.text_parts {
                if n != 2 || text.is_null() || ffi::PyList_CheckExact(text) == 0 {
                    return None;
                }
                let len = ffi::PyList_Size(text);
                if len <= 0 {
                    return None;
                }
                for k in 0..len {
                    let part = ffi::PyList_GetItem(text, k);
                    if part.is_null()
                        || ffi::PyDict_CheckExact(part) == 0
                        || ffi::PyDict_Size(part) != 1
                    {
                        return None;
                    }
                    if !self.is_text(Self::get(part, &self.text)) {
                        return None;
                    }
                }
                return Some(role);
            }
            if !self.is_text(text) {
                return None;
            }
            match (n, &self.extra_key) {
                (2, _) => Some(role),
                (3, Some(key)) => {
                    let extra = Self::get(m, key);
                    let fits = match &self.extra_value {
                        None => self.is_text(extra),
                        Some(value) => {
                            !extra.is_null()
                                && ffi::PyUnicode_CheckExact(extra) != 0
                                && is(extra, value)
                        }
                    };
                    fits.then_some(role)
                }
                _ => None,
            }
        }
    }
}

/// A tail: messages `from..`, the older messages given, as runs `(start, indices)`, and what
/// each gap between them holds (`"plain"`, `"turns"`).
struct Tail {
    from: usize,
    earlier: Vec<(usize, Vec<usize>)>,
    gaps: Vec<&'static str>,
}

/// The tail of about `size` messages, starting on a plain user message; `None` when none is
/// near. The older messages given are those `older_with_turns` gives.
fn tail_of<'py>(
    messages: &[Bound<'py, PyAny>],
    reader: &Reader<'py>,
    turns: &WholeTurns<'py>,
    size: usize,
) -> Option<Tail> {
    let n = messages.len();
    let mut from = n - size;
    let lowest = from.saturating_sub(size).max(1);
    while reader.plain(&messages[from]) != Some(Plain::User) {
        if from <= lowest {
            return None;
        }
        from -= 1;
    }
    let (earlier, gaps) = older_with_turns(messages, reader, turns, from);
    Some(Tail {
        from,
        earlier,
        gaps,
    })
}

/// The older messages given before `from`, as runs `(start, indices)`: message 0, then what
/// `plain_runs` gives of the others.
fn older<'py>(
    messages: &[Bound<'py, PyAny>],
    plain: impl Fn(&Bound<'py, PyAny>) -> Option<Plain>,
    from: usize,
) -> Vec<(usize, Vec<usize>)> {
    let mut earlier: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut give = |i: usize| give_to(&mut earlier, i);
    give(0);
    plain_runs(messages, &plain, 1, from, &mut give);
    earlier
}

/// Adds message `i` (past every message given so far) to the runs `earlier`.
fn give_to(earlier: &mut Vec<(usize, Vec<usize>)>, i: usize) {
    match earlier.last_mut() {
        Some((start, run)) if *start + run.len() == i => run.push(i),
        _ => earlier.push((i, vec![i])),
    }
}

/// Of the messages `lo..hi` (the one before `lo` given, or `lo` = 1), gives every message
/// `plain` does not read, and of each run of plain ones its ends (see `tail_of`).
fn plain_runs<'py>(
    messages: &[Bound<'py, PyAny>],
    plain: &impl Fn(&Bound<'py, PyAny>) -> Option<Plain>,
    lo: usize,
    hi: usize,
    give: &mut impl FnMut(usize),
) {
    let mut i = lo;
    while i < hi {
        let Some(role) = plain(&messages[i]) else {
            give(i);
            i += 1;
            continue;
        };
        // A run of plain messages [i, end): its first and last are given, and the first one
        // not the model's when neither is (a gap is bounded by one); all of them when none is.
        let (mut end, mut last, mut turn) = (i + 1, role, (role != Plain::Model).then_some(i));
        while end < hi {
            let Some(next) = plain(&messages[end]) else {
                break;
            };
            if turn.is_none() && next != Plain::Model {
                turn = Some(end);
            }
            last = next;
            end += 1;
        }
        give(i);
        if end - i > 2 && role == Plain::Model && last == Plain::Model {
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

/// The older messages given before `from` in a trim with a limit, as runs, and what each gap
/// between them holds (`window.gaps`): the runs of whole turns (turns.rs) left out first, the
/// plain rule between them. A run of whole turns starts with a message of the user's and ends
/// right before the last one of its stretch (messages that are plain, of user parts or whole
/// exchanges), which is given and never `from`.
fn older_with_turns<'py>(
    messages: &[Bound<'py, PyAny>],
    reader: &Reader<'py>,
    turns: &WholeTurns<'py>,
    from: usize,
) -> (Vec<(usize, Vec<usize>)>, Vec<&'static str>) {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    let (mut start, mut last): (Option<usize>, Option<usize>) = (None, None);
    let mut close = |start: &mut Option<usize>, last: &mut Option<usize>| {
        if let (Some(s), Some(q)) = (start.take(), last.take()) {
            if q > s {
                runs.push(s..q);
            }
        }
    };
    let mut i = 1;
    while i < from {
        let message = &messages[i];
        let plain = reader.plain(message);
        if plain == Some(Plain::User) || (plain.is_none() && turns.user_parts(message)) {
            start.get_or_insert(i);
            last = Some(i);
            i += 1;
        } else if plain.is_some() {
            i += 1;
        } else if let Some(end) = turns.exchange(messages, i, from) {
            i = end;
        } else {
            close(&mut start, &mut last);
            i += 1;
        }
    }
    close(&mut start, &mut last);
    let mut earlier: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut kinds = Vec::new();
    let mut give = |i: usize| {
        // A gap before `i`: of whole turns when one of them ends there.
        let next = earlier.last().map_or(0, |(s, r)| s + r.len());
        if i > next {
            kinds.push(if runs.iter().any(|r| r.end == i) {
                "turns"
            } else {
                "plain"
            });
        }
        give_to(&mut earlier, i);
    };
    give(0);
    let plain = |m: &Bound<'py, PyAny>| reader.plain(m);
    let mut lo = 1;
    for run in &runs {
        plain_runs(messages, &plain, lo, run.start, &mut give);
        lo = run.end;
    }
    plain_runs(messages, &plain, lo, from, &mut give);
    let next = earlier.last().map_or(0, |(s, r)| s + r.len());
    if from > next {
        kinds.push("plain");
    }
    (earlier, kinds)
}

/// Writes message `i` as JSON into the request; `false` when it cannot be written (the whole
/// history's trim then raises what is wrong with it).
type Write<'a> = &'a dyn Fn(usize, &mut Vec<u8>) -> bool;

/// The text of a tail request: the options, messages `from..n` (`whole(i, out)` writes message
/// `i`), and the window: where the messages start, the older runs the answer may depend on
/// (`earlier`: each run's start and its messages, written by `older`), what each gap holds
/// (`gaps`, when not all plain) and, when given, the roles and lengths of the plain messages
/// left out (`sizes`) and the lengths of what the stand-ins `stood_in` wrote stand for. `None`
/// when a message cannot be written.
#[allow(clippy::too_many_arguments)]
fn tail_request(
    options: &Map<String, Value>,
    from: usize,
    n: usize,
    earlier: &[(usize, Vec<usize>)],
    gaps: &[&str],
    sizes: Option<Vec<Value>>,
    whole: Write<'_>,
    older: Write<'_>,
    stood_in: Option<&StoodIn<'_>>,
) -> Option<String> {
    let mut out = request_text(&Value::Object(options.clone())).into_bytes();
    // The options' object, open: the messages and the window follow.
    out.pop();
    if !options.is_empty() {
        out.push(b',');
    }
    out.extend_from_slice(b"\"messages\":[");
    for i in from..n {
        if i > from {
            out.push(b',');
        }
        if !whole(i, &mut out) {
            return None;
        }
    }
    out.extend_from_slice(format!("],\"window\":{{\"from\":{from},\"earlier\":[").as_bytes());
    for (k, (start, run)) in earlier.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        out.extend_from_slice(format!("[{start},[").as_bytes());
        for (j, &i) in run.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            // Message 0 is kept when it is a pinned system message: it is given whole.
            let write = if i == 0 { whole } else { older };
            if !write(i, &mut out) {
                return None;
            }
        }
        out.extend_from_slice(b"]]");
    }
    out.push(b']');
    if gaps.iter().any(|&g| g != "plain") {
        out.extend_from_slice(b",\"gaps\":");
        out.extend_from_slice(request_text(&Value::from(gaps.to_vec())).as_bytes());
    }
    if let Some(sizes) = sizes {
        out.extend_from_slice(b",\"sizes\":");
        out.extend_from_slice(request_text(&Value::Array(sizes)).as_bytes());
    }
    if let Some(lengths) = stood_in.and_then(|s| s.lengths()) {
        out.extend_from_slice(b",\"stood_in\":");
        out.extend_from_slice(request_text(&Value::from(lengths)).as_bytes());
    }
    out.extend_from_slice(b"}}");
    String::from_utf8(out).ok()
}

/// The trim of `messages` that nothing limits, in a format that merges no turns: the last
/// message, the older ones the answer may depend on as stand-ins with the lengths of what they
/// stand for (`window.stood_in`), and of the plain ones left out their role and text's UTF-8
/// length (`window.sizes`): the core keeps them as given and prices them as the caller's.
/// `None`: send the whole history (a short one, tokens, a format that merges turns, an error).
fn trim_sized<'py>(
    py: Python<'py>,
    messages: &[Bound<'py, PyAny>],
    options: &Map<String, Value>,
    format: Format,
    whole: Write<'_>,
) -> PyResult<Option<(Bound<'py, PyList>, Bound<'py, PyDict>)>> {
    let n = messages.len();
    if format.traits().merges_turns || n <= TAIL_DRIVER.min_before {
        return Ok(None);
    }
    let reader = Reader::new(py, format);
    let from = n - 1;
    let mut sizes = Vec::new();
    let earlier = older(messages, |m| reader.sized(m).map(|(role, _, _)| role), from);
    for (k, (start, run)) in earlier.iter().enumerate() {
        let end = start + run.len();
        let next = earlier.get(k + 1).map_or(from, |(s, _)| *s);
        for message in &messages[end..next] {
            let Some((_, role, len)) = reader.sized(message) else {
                return Ok(None);
            };
            sizes.push(Value::from(role));
            sizes.push(Value::from(len));
        }
    }
    // The given messages are priced: their stand-ins go with what each stands for.
    let stood_in = StoodIn::new(py, &format.traits().stand_in, true);
    let older = |i: usize, out: &mut Vec<u8>| stood_in.message(&messages[i], out) || whole(i, out);
    let Some(text) = tail_request(
        options,
        from,
        n,
        &earlier,
        &[],
        Some(sizes),
        whole,
        &older,
        Some(&stood_in),
    ) else {
        return Ok(None);
    };
    match without_gil(py, || TailRequest::parse(&text)?.plan()) {
        Ok(TailPlan::Plan(plan)) => {
            let list = build_messages(py, messages, &plan.messages)?;
            Ok(Some((list, trim_report_dict(py, &plan.report)?)))
        }
        _ => Ok(None),
    }
}

/// The sanitize of `messages` (the caller's, in order) from their last message, as the
/// result's messages and report (`{"repaired": [...]}`): of the older messages, those
/// `older_with_turns` gives are given (whole: every message comes back); the runs of whole
/// turns and of plain messages left out come back as the caller's own, in place. `None` when the whole history is to be sent: a short history, a format that
/// merges turns (a left-out message could merge with a neighbour), a `format` that names none,
/// a message that cannot be written, or the core's `widen` (a message repair made).
pub(crate) fn sanitize_from_tail<'py>(
    py: Python<'py>,
    messages: &[Bound<'py, PyAny>],
    format: Option<&Bound<'py, PyAny>>,
    stand_ins: bool,
) -> PyResult<Option<(Bound<'py, PyList>, Bound<'py, PyDict>)>> {
    let n = messages.len();
    let name = match format.filter(|f| !f.is_none()) {
        None => None,
        Some(f) => match f.cast::<PyString>() {
            Ok(s) => Some(s.to_cow()?.into_owned()),
            Err(_) => return Ok(None),
        },
    };
    let Some(named) = name
        .as_deref()
        .map_or(Some(Format::default()), Format::from_name)
    else {
        return Ok(None);
    };
    if named.traits().merges_turns || n <= TAIL_DRIVER.min_before {
        return Ok(None);
    }
    let mut options = Map::new();
    if let Some(name) = name {
        options.insert("format".into(), Value::String(name));
    }
    let root = Path::Root("messages");
    let whole = |i: usize, out: &mut Vec<u8>| {
        let Ok(value) = message_to_value(&messages[i], Path::Index(&root, i), stand_ins) else {
            return false;
        };
        out.extend_from_slice(request_text(&value).as_bytes());
        true
    };
    let reader = Reader::new(py, named);
    let turns = WholeTurns::new(py, &named.traits().turns);
    let from = n - 1;
    let (earlier, gaps) = older_with_turns(messages, &reader, &turns, from);
    let Some(text) = tail_request(
        &options, from, n, &earlier, &gaps, None, &whole, &whole, None,
    ) else {
        return Ok(None);
    };
    let answer = without_gil(py, || {
        let request = TailRequest::parse_sanitize(&text)?;
        match request.plan_sanitize()? {
            TailPlan::Plan(plan) => Ok(Some((plan.messages, plan.report.repairs_json_string()))),
            TailPlan::Widen { .. } => Ok(None),
        }
    });
    match answer {
        Ok(Some((outs, report))) => Ok(Some((
            build_messages(py, messages, &outs)?,
            report_dict(py, &report)?,
        ))),
        _ => Ok(None),
    }
}

/// The trim of `messages` (the caller's, in order) from a tail, as the result's messages and
/// report; `None` when the whole history is to be sent.
pub(crate) fn trim_from_tail<'py>(
    py: Python<'py>,
    messages: &[Bound<'py, PyAny>],
    options: &Map<String, Value>,
    stand_ins: bool,
) -> PyResult<Option<(Bound<'py, PyList>, Bound<'py, PyDict>)>> {
    let format = match options.get("format") {
        None | Some(Value::Null) => Some(Format::default()),
        Some(Value::String(name)) => Format::from_name(name),
        Some(_) => return Ok(None),
    };
    let given = |key: &str| options.get(key).is_some_and(|v| !v.is_null());
    let whole = TAIL_DRIVER.whole_with.iter().any(|key| given(key));
    // A `window` of the caller's is no trim option: the whole history's trim names it.
    let (Some(format), false, false) = (format, whole, options.contains_key("window")) else {
        return Ok(None);
    };
    let root = Path::Root("messages");
    let whole = |i: usize, out: &mut Vec<u8>| {
        let Ok(value) = message_to_value(&messages[i], Path::Index(&root, i), stand_ins) else {
            return false;
        };
        out.extend_from_slice(request_text(&value).as_bytes());
        true
    };
    let Some(mut size) = TAIL_DRIVER.first_tail(options.get("max_messages"), given) else {
        // Nothing limits the trim: every message is kept and priced.
        return trim_sized(py, messages, options, format, &whole);
    };
    let stood_in = StoodIn::new(py, &format.traits().stand_in, false);
    let older = |i: usize, out: &mut Vec<u8>| stood_in.message(&messages[i], out) || whole(i, out);
    let reader = Reader::new(py, format);
    let turns = WholeTurns::new(py, &format.traits().turns);
    while messages.len() >= size.saturating_add(TAIL_DRIVER.min_before) {
        let Some(tail) = tail_of(messages, &reader, &turns, size) else {
            size = size.saturating_mul(TAIL_DRIVER.widen_times);
            continue;
        };
        let n = messages.len();
        let (earlier, gaps) = (&tail.earlier, &tail.gaps);
        let Some(text) = tail_request(
            options, tail.from, n, earlier, gaps, None, &whole, &older, None,
        ) else {
            return Ok(None);
        };
        match without_gil(py, || TailRequest::parse(&text)?.plan()) {
            Err(_) => return Ok(None),
            Ok(TailPlan::Widen { scale }) => match TAIL_DRIVER.widened(size, scale) {
                Some(wider) => size = wider,
                None => return Ok(None),
            },
            Ok(TailPlan::Plan(plan)) => {
                let list = build_messages(py, messages, &plan.messages)?;
                return Ok(Some((list, trim_report_dict(py, &plan.report)?)));
            }
        }
    }
    Ok(None)
}

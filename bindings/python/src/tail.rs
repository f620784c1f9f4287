//! `trim` and `sanitize` of a long history from its newest messages (core: `ankita::tail`,
//! `ankita::tail::select`; docs/long-histories.md). The history is read once into its shapes
//! (what the core's selection reads of each message: plain and its role, the user's text parts,
//! tool calls or replies and their ids and names — `Reader` here, `WholeTurns` in turns.rs),
//! the core's selection answers which messages to send, and this module writes that request
//! from the caller's dicts: the messages from `from` on, the older runs given (as stand-ins,
//! stood_in.rs, where the selection says), and the window. The core answers the whole history's
//! trim as a plan, or `widen`, which goes back to the selection; `None` here sends the whole
//! history (as do short histories, and any error: the whole history's trim raises it, in its
//! order).
//!
//! What a plain message is and what may be stood in are the core's facts (each format's
//! `Plain`, `Turns` and `StandIn`); where a tail starts, which older messages go, how calls pair
//! and how a tail widens are the core's rules (`ankita_tail_select` gives the same to the other
//! front ends, Node's lib/tail.js among them). Only the walk over the caller's dicts is here,
//! and it has to be: its point is that the older messages are never converted, so it reads
//! Python objects where they are.

use ankita::format::Format;
use ankita::request::format_of;
use ankita::tail::select::{
    self, After, Call, Next, Shapes, StandIns, Tail, ROLE_MODEL, ROLE_OTHER, ROLE_USER,
};
use ankita::tail::{TailPlan, TailRequest};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::{Map, Value};
use std::ffi::{CStr, CString};

use crate::convert::{message_to_value, request_text, Path};
use crate::plan::{build_messages, report_dict, trim_report_dict, without_gil};
use crate::stood_in::StoodIn;
use crate::turns::{is_unicode, Ids, WholeTurns};

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

    /// The UTF-8 length of a plain message's text when it holds its role and a str text alone.
    fn bare_len(&self, message: &Bound<'py, PyAny>) -> Option<u64> {
        let m = message.as_ptr();
        // SAFETY: an exact dict (`plain` read it), borrowed reads, the GIL held.
        unsafe {
            if ffi::PyDict_Size(m) != 2 || self.plain.text_parts {
                return None;
            }
            let len = self.utf8_len(Self::get(m, &self.text_key))?;
            u64::try_from(len).ok()
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

    /// The role of a plain message (`select::ROLE_*`), or `None`.
    fn plain(&self, message: &Bound<'py, PyAny>) -> Option<u32> {
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
                ROLE_USER
            } else if is(role, &self.model) {
                ROLE_MODEL
            } else {
                let k = self.others.iter().position(|other| is(role, other))?;
                ROLE_OTHER + k as u32
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

/// The shapes of `messages` (the plain messages' lengths with `lengths`).
fn shapes_of<'py>(
    py: Python<'py>,
    messages: &[Bound<'py, PyAny>],
    format: Format,
    lengths: bool,
) -> Shapes {
    let reader = Reader::new(py, format);
    let turns = WholeTurns::new(py, &format.traits().turns);
    let mut ids = Ids::new();
    let mut shapes = Shapes::with_capacity(messages.len());
    for message in messages {
        if let Some(role) = reader.plain(message) {
            let len = if lengths {
                reader.bare_len(message)
            } else {
                None
            };
            shapes.push_plain(role, len);
        } else if turns.user_parts(message) {
            shapes.push_user_parts();
        } else if !turns.push_exchange(message, &mut ids, &mut shapes) {
            shapes.push_other();
        }
    }
    shapes
}

/// Writes message `i` as JSON into the request; `false` when it cannot be written (the whole
/// history's trim then raises what is wrong with it).
type Write<'a> = &'a dyn Fn(usize, &mut Vec<u8>) -> bool;

/// The text of a tail request: the options, messages `from..n` (`whole(i, out)` writes message
/// `i`), and the window the selection answered: the older runs given (written by `older`, but
/// message 0, which is given whole), what each gap holds (when not all plain), the left-out
/// messages' sizes and the lengths of what the stand-ins `stood_in` wrote stand for. `None`
/// when a message cannot be written.
fn tail_request(
    options: &Map<String, Value>,
    tail: &Tail,
    n: usize,
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
    for i in tail.from..n {
        if i > tail.from {
            out.push(b',');
        }
        if !whole(i, &mut out) {
            return None;
        }
    }
    let from = tail.from;
    out.extend_from_slice(format!("],\"window\":{{\"from\":{from},\"earlier\":[").as_bytes());
    for (k, run) in tail.earlier.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        out.extend_from_slice(format!("[{},[", run.start).as_bytes());
        for i in run.clone() {
            if i > run.start {
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
    if tail.gaps.iter().any(|&g| g != ankita::tail::GapKind::Plain) {
        let names: Vec<&str> = tail.gaps.iter().map(|g| g.name()).collect();
        out.extend_from_slice(b",\"gaps\":");
        out.extend_from_slice(request_text(&Value::from(names)).as_bytes());
    }
    if let Some(sizes) = &tail.sizes {
        let flat: Vec<Value> = sizes
            .iter()
            .flat_map(|&(role, len)| [Value::from(role), Value::from(len)])
            .collect();
        out.extend_from_slice(b",\"sizes\":");
        out.extend_from_slice(request_text(&Value::Array(flat)).as_bytes());
    }
    if let Some(lengths) = stood_in.and_then(|s| s.lengths()) {
        out.extend_from_slice(b",\"stood_in\":");
        out.extend_from_slice(request_text(&Value::from(lengths)).as_bytes());
    }
    out.extend_from_slice(b"}}");
    String::from_utf8(out).ok()
}

/// The messages and report of a plan of the core's.
type Done<'py> = (Bound<'py, PyList>, Bound<'py, PyDict>);

/// The stateless conversation with the core over `messages` (`call`, with `options`): the
/// selection's tails, written from the caller's dicts (`whole` writes a message as it is),
/// until the core answers a plan; `None`: send the whole history.
fn converse<'py>(
    py: Python<'py>,
    messages: &[Bound<'py, PyAny>],
    call: Call,
    options: &Map<String, Value>,
    format: Format,
    whole: Write<'_>,
) -> PyResult<Option<Done<'py>>> {
    let n = messages.len();
    let Next::Shapes { lengths } = select::start(call, options, n) else {
        return Ok(None);
    };
    let shapes = shapes_of(py, messages, format, lengths);
    let mut after = None;
    loop {
        let Next::Tail(tail) = select::select(call, options, &shapes, after) else {
            return Ok(None);
        };
        let facts = &format.traits().stand_in;
        let stood_in = match tail.stand_ins {
            StandIns::None => None,
            StandIns::Replace => Some(StoodIn::new(py, facts, false)),
            StandIns::Note => Some(StoodIn::new(py, facts, true)),
        };
        let older = |i: usize, out: &mut Vec<u8>| match &stood_in {
            Some(s) => s.message(&messages[i], out) || whole(i, out),
            None => whole(i, out),
        };
        let Some(text) = tail_request(options, &tail, n, whole, &older, stood_in.as_ref()) else {
            return Ok(None);
        };
        let answer = without_gil(py, || match call {
            Call::Trim => TailRequest::parse(&text)?.plan(),
            Call::Sanitize => TailRequest::parse_sanitize(&text)?.plan_sanitize(),
        });
        match answer {
            Err(_) => return Ok(None),
            Ok(TailPlan::Widen { scale }) => {
                after = Some(After {
                    size: tail.size,
                    scale,
                })
            }
            Ok(TailPlan::Plan(plan)) => {
                let list = build_messages(py, messages, &plan.messages)?;
                let report = match call {
                    Call::Trim => trim_report_dict(py, &plan.report)?,
                    Call::Sanitize => report_dict(py, &plan.report.repairs_json_string())?,
                };
                return Ok(Some((list, report)));
            }
        }
    }
}

/// The writer of the caller's message `i` as it is.
fn writer<'a, 'py>(
    messages: &'a [Bound<'py, PyAny>],
    stand_ins: bool,
) -> impl Fn(usize, &mut Vec<u8>) -> bool + 'a {
    move |i: usize, out: &mut Vec<u8>| {
        let root = Path::Root("messages");
        let Ok(value) = message_to_value(&messages[i], Path::Index(&root, i), stand_ins) else {
            return false;
        };
        out.extend_from_slice(request_text(&value).as_bytes());
        true
    }
}

/// The sanitize of `messages` (the caller's, in order) from their last message, as the
/// result's messages and report (`{"repaired": [...]}`); the messages left out come back as the
/// caller's own, in place. `None` when the whole history is to be sent (the selection's
/// answer, a `format` that is no str, a message that cannot be written, the core's `widen`).
pub(crate) fn sanitize_from_tail<'py>(
    py: Python<'py>,
    messages: &[Bound<'py, PyAny>],
    format: Option<&Bound<'py, PyAny>>,
    stand_ins: bool,
) -> PyResult<Option<Done<'py>>> {
    let mut options = Map::new();
    if let Some(f) = format.filter(|f| !f.is_none()) {
        match f.cast::<PyString>() {
            Ok(s) => options.insert("format".into(), Value::String(s.to_cow()?.into_owned())),
            Err(_) => return Ok(None),
        };
    }
    let Ok(format) = format_of(&options) else {
        return Ok(None);
    };
    let whole = writer(messages, stand_ins);
    converse(py, messages, Call::Sanitize, &options, format, &whole)
}

/// The trim of `messages` (the caller's, in order) from a tail, as the result's messages and
/// report; `None` when the whole history is to be sent.
pub(crate) fn trim_from_tail<'py>(
    py: Python<'py>,
    messages: &[Bound<'py, PyAny>],
    options: &Map<String, Value>,
    stand_ins: bool,
) -> PyResult<Option<Done<'py>>> {
    let Ok(format) = format_of(options) else {
        return Ok(None);
    };
    let whole = writer(messages, stand_ins);
    converse(py, messages, Call::Trim, options, format, &whole)
}

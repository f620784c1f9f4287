//! The shapes of messages of whole turns (tail.rs; core: `ankita::tail::select`, each
//! format's `ankita::format::facts::Turns`): whether a message is the user's text parts, or a
//! message of tool calls or of replies, and their ids and names (as numbers: [`Ids`]). Where
//! runs of whole turns lie and how calls pair with replies is the core's to decide.
//!
//! The facts are compiled once a trim into objects the walk reads through the C API: interned
//! keys, NUL-terminated constants. The walk reads keys, types, ids and names; of the text only
//! whether it is a non-empty str that is Unicode (`str.isascii` reads a flag; other text is
//! encoded to tell), and of a call's input or a reply's data that it is JSON (exact dicts with
//! str keys, lists, strs, ints of 64 bits, finite floats, bools, `None`): a message whose
//! conversion could fail, or that holds anything else (a subclass, a tuple, an SDK object), is
//! none of these kinds, and is given.

use ankita::format::facts::{Field, PartKind, Turns, Val};
use ankita::tail::driver::TAIL_DRIVER;
use ankita::tail::select::Shapes;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::ffi::CString;

use crate::convert::MAX_DEPTH;

/// A value of a compiled field (see [`Val`]).
enum Want<'py> {
    Is(CString),
    Text,
    Str,
    StrOrNull,
    Id,
    Name,
    Object,
    Json,
    Fields(Members<'py>),
    Parts(Vec<(PartKind, Members<'py>)>),
}

/// A compiled [`Field`]: its key (interned), what its value is, whether it may be absent.
struct Member<'py> {
    key: Bound<'py, PyString>,
    want: Want<'py>,
    optional: bool,
}

type Members<'py> = Vec<Member<'py>>;

/// An item met in a message: the kind of part (`None`: the message itself) and the id and
/// name it holds (borrowed strs).
#[derive(Clone, Copy)]
struct Item {
    kind: Option<PartKind>,
    id: *mut ffi::PyObject,
    name: *mut ffi::PyObject,
}

impl Item {
    fn new(kind: Option<PartKind>) -> Item {
        Item {
            kind,
            id: std::ptr::null_mut(),
            name: std::ptr::null_mut(),
        }
    }
}

/// The numbers standing for ids and names in a history's shapes, as far as pairing needs
/// them: a call's replies come right after its run of call messages, so a string is looked up
/// among the calls of the latest run alone (compared, never hashed): a reply's id or name found
/// there gets its call's number, one not found a new number — it could pair with nothing else,
/// and the core, seeing no pair, gives those messages. Two different strs never share a
/// number (0: none). A run of more calls than the core's `pair_run` pairs nothing.
pub(crate) struct Ids {
    /// The latest run's calls: id, its number, name, its number (borrowed strs).
    run: Vec<[(*mut ffi::PyObject, u32); 2]>,
    next: u32,
    /// Whether the message before was one of calls (a run goes on).
    in_run: bool,
}

impl Ids {
    pub(crate) fn new() -> Ids {
        Ids {
            run: Vec::new(),
            next: 1,
            in_run: false,
        }
    }

    /// The next message is of no calls: the run ends.
    pub(crate) fn end_run(&mut self) {
        self.in_run = false;
    }

    /// The number of the str `text` (null: 0) among the run's ids (`k` 0) or names (1).
    ///
    /// # Safety
    /// `text` is null or a live exact str, as the run's are, the GIL held.
    unsafe fn lookup(&mut self, text: *mut ffi::PyObject, k: usize) -> u32 {
        if text.is_null() {
            return 0;
        }
        if self.run.len() <= TAIL_DRIVER.pair_run {
            for call in &self.run {
                let (seen, n) = call[k];
                // SAFETY: forwarded; exact strs compare without running Python code.
                if !seen.is_null()
                    && (seen == text || unsafe { ffi::PyUnicode_Compare(seen, text) } == 0)
                {
                    return n;
                }
            }
        }
        self.next += 1;
        self.next - 1
    }

    /// The numbers of a call's id and name; the call joins the run.
    ///
    /// # Safety
    /// As [`Ids::lookup`], for the item's strs, which outlive the reading of the history.
    unsafe fn call(&mut self, item: &Item) -> (u32, u32) {
        // SAFETY: forwarded.
        let (id, name) = unsafe { (self.lookup(item.id, 0), self.lookup(item.name, 1)) };
        self.run.push([(item.id, id), (item.name, name)]);
        (id, name)
    }

    /// The numbers of a reply's id and name.
    ///
    /// # Safety
    /// As [`Ids::lookup`].
    unsafe fn reply(&mut self, item: &Item) -> (u32, u32) {
        // SAFETY: forwarded.
        unsafe { (self.lookup(item.id, 0), self.lookup(item.name, 1)) }
    }
}

/// A format's [`Turns`] facts, compiled for the walk.
pub(crate) struct WholeTurns<'py> {
    user_parts: Option<Members<'py>>,
    call: Members<'py>,
    reply: Members<'py>,
    isascii: Bound<'py, PyString>,
}

/// Whether `value` (borrowed, maybe null) is an exact str that is Unicode (no lone
/// surrogate), and non-empty when `nonempty`.
///
/// # Safety
/// `value` is null or a live object, the GIL held.
pub(crate) unsafe fn is_unicode(
    value: *mut ffi::PyObject,
    isascii: &Bound<'_, PyString>,
    nonempty: bool,
) -> bool {
    // SAFETY: forwarded.
    unsafe {
        if value.is_null() || ffi::PyUnicode_CheckExact(value) == 0 {
            return false;
        }
        let len = ffi::PyUnicode_GetLength(value);
        if len < 0 || (nonempty && len == 0) {
            ffi::PyErr_Clear();
            return false;
        }
        if len == 0 {
            return true;
        }
        let ascii = ffi::PyObject_CallMethodObjArgs(
            value,
            isascii.as_ptr(),
            std::ptr::null_mut::<ffi::PyObject>(),
        );
        if ascii.is_null() {
            ffi::PyErr_Clear();
            return false;
        }
        let yes = ascii == ffi::Py_True();
        ffi::Py_DecRef(ascii);
        if yes {
            return true;
        }
        let bytes = ffi::PyUnicode_AsUTF8String(value);
        if bytes.is_null() {
            ffi::PyErr_Clear();
            return false;
        }
        ffi::Py_DecRef(bytes);
        true
    }
}

impl<'py> WholeTurns<'py> {
    pub(crate) fn new(py: Python<'py>, turns: &Turns) -> WholeTurns<'py> {
        WholeTurns {
            user_parts: turns.user_parts.map(|f| compile(py, f)),
            call: compile(py, turns.call),
            reply: compile(py, turns.reply),
            isascii: PyString::intern(py, "isascii"),
        }
    }

    /// Whether `message` is a message of user parts.
    pub(crate) fn user_parts(&self, message: &Bound<'py, PyAny>) -> bool {
        let Some(fields) = &self.user_parts else {
            return false;
        };
        let mut item = Item::new(None);
        // SAFETY: `message` is alive and the GIL held; the walk reads borrowed references and
        // runs no Python code but `str.isascii` of exact strs.
        unsafe { self.fits(fields, message.as_ptr(), &mut item, &mut Vec::new()) }
    }

    /// Pushes the shape of `message` when it is a message of calls or of replies (each id and
    /// name as its number in `ids`), and tells whether it was.
    pub(crate) fn push_exchange(
        &self,
        message: &Bound<'py, PyAny>,
        ids: &mut Ids,
        shapes: &mut Shapes,
    ) -> bool {
        // SAFETY: as in `user_parts`; the items' strs are borrowed from `message`, alive while
        // the caller's messages are (the whole reading of the history).
        unsafe {
            if let Some((calls, alone)) = self.items(&self.call, PartKind::Call, message) {
                if !ids.in_run {
                    ids.run.clear();
                }
                ids.in_run = true;
                let calls: Vec<_> = calls.iter().map(|c| ids.call(c)).collect();
                shapes.push_calls(alone, calls);
                return true;
            }
            ids.end_run();
            if let Some((replies, _)) = self.items(&self.reply, PartKind::Reply, message) {
                let replies: Vec<_> = replies.iter().map(|r| ids.reply(r)).collect();
                shapes.push_replies(replies);
                return true;
            }
        }
        false
    }

    /// The calls or replies (`kind`) of a message of `fields`, and whether the message is one
    /// itself; `None` when it does not fit or holds none.
    ///
    /// # Safety
    /// As in `user_parts`.
    unsafe fn items(
        &self,
        fields: &[Member<'py>],
        kind: PartKind,
        message: &Bound<'py, PyAny>,
    ) -> Option<(Vec<Item>, bool)> {
        let mut item = Item::new(None);
        let mut parts = Vec::new();
        // SAFETY: forwarded.
        if !unsafe { self.fits(fields, message.as_ptr(), &mut item, &mut parts) } {
            return None;
        }
        if !item.id.is_null() {
            return Some((vec![item], true));
        }
        parts.retain(|p| p.kind == Some(kind));
        (!parts.is_empty()).then_some((parts, false))
    }

    /// Whether `value` is an exact dict of the members `fields` and no other, noting the id
    /// and name met into `item` and the parts of a parts list into `parts`.
    ///
    /// # Safety
    /// `value` is a live object, the GIL held.
    unsafe fn fits(
        &self,
        fields: &[Member<'py>],
        value: *mut ffi::PyObject,
        item: &mut Item,
        parts: &mut Vec<Item>,
    ) -> bool {
        // SAFETY: every object read is `value` or borrowed from it.
        unsafe {
            if ffi::PyDict_CheckExact(value) == 0 {
                return false;
            }
            let mut present = 0;
            for f in fields {
                let v = ffi::PyDict_GetItem(value, f.key.as_ptr());
                if v.is_null() {
                    if f.optional {
                        continue;
                    }
                    return false;
                }
                present += 1;
                let ok = match &f.want {
                    Want::Is(s) => {
                        ffi::PyUnicode_CheckExact(v) != 0
                            && ffi::PyUnicode_CompareWithASCIIString(v, s.as_ptr()) == 0
                    }
                    Want::Text => is_unicode(v, &self.isascii, true),
                    Want::Str => is_unicode(v, &self.isascii, false),
                    Want::StrOrNull => v == ffi::Py_None() || is_unicode(v, &self.isascii, false),
                    Want::Id => {
                        item.id = v;
                        is_unicode(v, &self.isascii, true)
                    }
                    Want::Name => {
                        item.name = v;
                        is_unicode(v, &self.isascii, true)
                    }
                    Want::Object => ffi::PyDict_CheckExact(v) != 0 && self.json(v, 0),
                    Want::Json => self.json(v, 0),
                    Want::Fields(inner) => self.fits(inner, v, item, parts),
                    Want::Parts(shapes) => {
                        if ffi::PyList_CheckExact(v) == 0 {
                            return false;
                        }
                        let len = ffi::PyList_Size(v);
                        if len <= 0 {
                            return false;
                        }
                        (0..len).all(|k| {
                            let p = ffi::PyList_GetItem(v, k);
                            !p.is_null()
                                && shapes.iter().any(|(kind, fields)| {
                                    let mut found = Item::new(Some(*kind));
                                    let fit = self.fits(fields, p, &mut found, &mut Vec::new());
                                    if fit {
                                        parts.push(found);
                                    }
                                    fit
                                })
                        })
                    }
                };
                if !ok {
                    return false;
                }
            }
            ffi::PyDict_Size(value) == present
        }
    }

    /// Whether `value` is JSON as the conversion reads it without fail (see the module
    /// documentation).
    ///
    /// # Safety
    /// `value` is a live object, the GIL held.
    unsafe fn json(&self, value: *mut ffi::PyObject, depth: usize) -> bool {
        // SAFETY: every object read is `value` or borrowed from it.
        unsafe {
            if ffi::PyUnicode_CheckExact(value) != 0 {
                return is_unicode(value, &self.isascii, false);
            }
            if value == ffi::Py_None() || value == ffi::Py_True() || value == ffi::Py_False() {
                return true;
            }
            if ffi::PyLong_CheckExact(value) != 0 {
                let mut overflow = 0;
                let int = ffi::PyLong_AsLongLongAndOverflow(value, &mut overflow);
                if int == -1 && !ffi::PyErr_Occurred().is_null() {
                    ffi::PyErr_Clear();
                    return false;
                }
                return overflow == 0;
            }
            if ffi::PyFloat_CheckExact(value) != 0 {
                return ffi::PyFloat_AsDouble(value).is_finite();
            }
            if depth >= MAX_DEPTH {
                return false;
            }
            if ffi::PyDict_CheckExact(value) != 0 {
                let (mut pos, mut key, mut item) = (0, std::ptr::null_mut(), std::ptr::null_mut());
                while ffi::PyDict_Next(value, &mut pos, &mut key, &mut item) != 0 {
                    if !is_unicode(key, &self.isascii, false) || !self.json(item, depth + 1) {
                        return false;
                    }
                }
                return true;
            }
            if ffi::PyList_CheckExact(value) != 0 {
                let len = ffi::PyList_Size(value);
                return (0..len).all(|k| {
                    let item = ffi::PyList_GetItem(value, k);
                    !item.is_null() && self.json(item, depth + 1)
                });
            }
            false
        }
    }
}

/// The fields compiled: keys interned, constants NUL-terminated (the core's hold no NUL).
fn compile<'py>(py: Python<'py>, fields: &[Field]) -> Members<'py> {
    fields
        .iter()
        .map(|f| Member {
            key: PyString::intern(py, f.key),
            want: match &f.value {
                Val::Is(s) => Want::Is(CString::new(*s).unwrap_or_default()),
                Val::Text => Want::Text,
                Val::Str => Want::Str,
                Val::StrOrNull => Want::StrOrNull,
                Val::Id => Want::Id,
                Val::Name => Want::Name,
                Val::Object => Want::Object,
                Val::Json => Want::Json,
                Val::Fields(inner) => Want::Fields(compile(py, inner)),
                Val::Parts(parts) => Want::Parts(
                    parts
                        .iter()
                        .map(|p| (p.kind, compile(py, p.fields)))
                        .collect(),
                ),
            },
            optional: f.optional,
        })
        .collect()
}

//! The older messages of a long history written as JSON text straight from the caller's
//! objects, their long free text stood in (tail.rs; core: `ankita::tail`).
//!
//! A message before the tail is read by the trim only for what repair and the tail's checks
//! read (roles, tool calls' ids, types and names, replies' ids, whether a content is empty, the
//! JSON type of a call's input), and the answer never keeps it. So each format's facts
//! (`ankita::format::StandIn`) name the keys whose strings are free text (`text_keys`: a
//! string that is such a member's value, at any depth) or whose whole value is the caller's
//! data (`data_keys`: any string inside it), and such a string, when it is longer than
//! `StandIn::LONGER_THAN` characters and well-formed Unicode, is written as
//! `StandIn::REPLACEMENT`: a tool result of kilobytes crosses as a few bytes, and is never
//! copied into a `serde_json::Value` first.
//!
//! The writer reads dicts, lists, strs, ints, floats, bools and `None` through the C API
//! (borrowed references, items as stored, as `convert.rs` reads them; no Python code is run: a
//! str subclass is written whole and no method of it is called). Anything else (a tuple,
//! another mapping, an SDK object, bytes, a nesting too deep) makes it give up on the message,
//! which is then converted whole (`convert.rs`), errors and all.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::cell::RefCell;

use ankita::format::StandIn;

use crate::convert::MAX_DEPTH;

/// Where a value sits, as far as standing in is concerned.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Written as it is.
    Kept,
    /// The value of a text key: a long string is stood in.
    Text,
    /// Inside the value of a data key: every long string is stood in.
    Data,
}

/// A key seen: the str (kept alive, so that its address stays its own), its JSON, the slot of
/// its value.
type Key<'py> = (Bound<'py, PyAny>, Vec<u8>, Slot);

/// Writes messages with their long free text stood in, for one format's facts.
pub(crate) struct StoodIn<'py> {
    longer_than: isize,
    /// The stand-in, as JSON text (a quoted string).
    stand_in: String,
    /// The facts' keys, as JSON strings.
    text_keys: Vec<Vec<u8>>,
    data_keys: Vec<Vec<u8>>,
    isascii: Bound<'py, PyString>,
    /// With `Some`, the UTF-8 and JSON lengths of every string written as the stand-in, or
    /// equal to it where a stand-in may be, in order (`window.stood_in` of a trim that nothing
    /// limits, which prices the caller's messages).
    lengths: Option<RefCell<Vec<u64>>>,
    /// The keys seen, each with its JSON and its value's slot (see `key`).
    keys: RefCell<Vec<Key<'py>>>,
}

impl<'py> StoodIn<'py> {
    /// A writer for a format's facts; with `lengths`, one that keeps what each stand-in
    /// stands for (see [`StoodIn::lengths`]).
    pub(crate) fn new(py: Python<'py>, facts: &StandIn, lengths: bool) -> StoodIn<'py> {
        let quoted = |name: &&str| {
            let mut out = Vec::new();
            write_str(name.as_bytes(), &mut out);
            out
        };
        let mut stand_in = Vec::new();
        write_str(StandIn::REPLACEMENT.as_bytes(), &mut stand_in);
        StoodIn {
            longer_than: isize::try_from(StandIn::LONGER_THAN).unwrap_or(isize::MAX),
            stand_in: String::from_utf8(stand_in).unwrap_or_default(),
            text_keys: facts.text_keys.iter().map(quoted).collect(),
            data_keys: facts.data_keys.iter().map(quoted).collect(),
            isascii: PyString::intern(py, "isascii"),
            lengths: lengths.then(|| RefCell::new(Vec::new())),
            keys: RefCell::new(Vec::new()),
        }
    }

    /// The UTF-8 and JSON lengths of the strings the messages written hold as stand-ins, in
    /// order: `window.stood_in`.
    pub(crate) fn lengths(&self) -> Option<Vec<u64>> {
        self.lengths.as_ref().map(|l| l.borrow().clone())
    }

    /// Writes `message` as JSON into `out`, its long free text stood in; `false` (and `out` as
    /// it was) when it holds a value the writer does not read (see the module documentation).
    pub(crate) fn message(&self, message: &Bound<'py, PyAny>, out: &mut Vec<u8>) -> bool {
        let start = out.len();
        let counted = self.lengths.as_ref().map_or(0, |l| l.borrow().len());
        // SAFETY: `message` is alive and the GIL held; the writer reads borrowed references of
        // containers' items while it runs no Python code, so nothing changes them.
        let written = unsafe { self.value(message.as_ptr(), out, 0, Slot::Kept) };
        if !written {
            out.truncate(start);
            if let Some(lengths) = &self.lengths {
                lengths.borrow_mut().truncate(counted);
            }
        }
        written
    }

    /// # Safety
    /// `value` is a live object, the GIL held.
    unsafe fn value(
        &self,
        value: *mut ffi::PyObject,
        out: &mut Vec<u8>,
        depth: usize,
        slot: Slot,
    ) -> bool {
        // SAFETY: every object read is `value` or borrowed from it (see `message`).
        unsafe {
            if ffi::PyUnicode_Check(value) != 0 {
                return self.string(value, out, slot);
            }
            if depth >= MAX_DEPTH {
                return false;
            }
            if ffi::PyDict_Check(value) != 0 {
                out.push(b'{');
                let (mut pos, mut key, mut item) = (0, std::ptr::null_mut(), std::ptr::null_mut());
                let mut first = true;
                while ffi::PyDict_Next(value, &mut pos, &mut key, &mut item) != 0 {
                    if ffi::PyUnicode_Check(key) == 0 {
                        return false;
                    }
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    let Some(key_slot) = self.key(key, out) else {
                        return false;
                    };
                    let inner = if slot == Slot::Data {
                        Slot::Data
                    } else {
                        key_slot
                    };
                    out.push(b':');
                    if !self.value(item, out, depth + 1, inner) {
                        return false;
                    }
                }
                out.push(b'}');
                return true;
            }
            if ffi::PyList_Check(value) != 0 {
                out.push(b'[');
                let inner = if slot == Slot::Data {
                    Slot::Data
                } else {
                    Slot::Kept
                };
                for k in 0..ffi::PyList_Size(value) {
                    if k > 0 {
                        out.push(b',');
                    }
                    let item = ffi::PyList_GetItem(value, k);
                    if item.is_null() || !self.value(item, out, depth + 1, inner) {
                        ffi::PyErr_Clear();
                        return false;
                    }
                }
                out.push(b']');
                return true;
            }
            if value == ffi::Py_None() {
                out.extend_from_slice(b"null");
                return true;
            }
            if ffi::PyBool_Check(value) != 0 {
                let text: &[u8] = if value == ffi::Py_True() {
                    b"true"
                } else {
                    b"false"
                };
                out.extend_from_slice(text);
                return true;
            }
            if ffi::PyLong_Check(value) != 0 {
                let mut overflow = 0;
                let int = ffi::PyLong_AsLongLongAndOverflow(value, &mut overflow);
                if overflow != 0 || (int == -1 && !ffi::PyErr_Occurred().is_null()) {
                    ffi::PyErr_Clear();
                    return false;
                }
                out.extend_from_slice(int.to_string().as_bytes());
                return true;
            }
            if ffi::PyFloat_Check(value) != 0 {
                let float = ffi::PyFloat_AsDouble(value);
                let Some(number) = serde_json::Number::from_f64(float) else {
                    return false;
                };
                out.extend_from_slice(number.to_string().as_bytes());
                return true;
            }
            false
        }
    }

    /// Writes the key `key` (a str) and answers the slot of its value; `None` when it is not
    /// Unicode. Keys are few and shared by the messages (interned, or one object per key as
    /// `json.loads` makes them): each one seen is kept, written, with its slot.
    ///
    /// # Safety
    /// `key` is a live str, the GIL held.
    unsafe fn key(&self, key: *mut ffi::PyObject, out: &mut Vec<u8>) -> Option<Slot> {
        let mut keys = self.keys.borrow_mut();
        if let Some((_, json, slot)) = keys.iter().find(|(k, _, _)| k.as_ptr() == key) {
            out.extend_from_slice(json);
            return Some(*slot);
        }
        let at = out.len();
        // SAFETY: forwarded.
        if !unsafe { self.string(key, out, Slot::Kept) } {
            return None;
        }
        // The key as written, quoted: compared with the facts' keys, quoted too.
        let written = &out[at..];
        let slot = if self.data_keys.iter().any(|k| k == written) {
            Slot::Data
        } else if self.text_keys.iter().any(|k| k == written) {
            Slot::Text
        } else {
            Slot::Kept
        };
        if keys.len() < KEYS_KEPT {
            // SAFETY: `key` is a live object; the reference taken keeps it (and its address)
            // alive while it is compared with.
            let owned = unsafe { Bound::from_borrowed_ptr(self.isascii.py(), key) };
            keys.push((owned, written.to_vec(), slot));
        }
        Some(slot)
    }

    /// Writes the str `text`: the stand-in when `slot` allows it and the text is long and
    /// well-formed, else the text; `false` when it is not Unicode (a lone surrogate).
    ///
    /// # Safety
    /// `text` is a live str, the GIL held.
    unsafe fn string(&self, text: *mut ffi::PyObject, out: &mut Vec<u8>, slot: Slot) -> bool {
        // SAFETY: forwarded.
        unsafe {
            let len = ffi::PyUnicode_GetLength(text);
            let exact = ffi::PyUnicode_CheckExact(text) != 0;
            if slot != Slot::Kept && exact && len > self.longer_than {
                match &self.lengths {
                    // ASCII text is well-formed (`str.isascii` reads a flag); other text is
                    // encoded to tell.
                    None if self.is_ascii(text) => {}
                    lengths => {
                        let bytes = ffi::PyUnicode_AsUTF8String(text);
                        if bytes.is_null() {
                            ffi::PyErr_Clear();
                            return false;
                        }
                        if let Some(lengths) = lengths {
                            let utf8 = bytes_of(bytes);
                            let json = json_len(utf8);
                            lengths.borrow_mut().extend([utf8.len() as u64, json]);
                        }
                        ffi::Py_DecRef(bytes);
                    }
                }
                out.extend_from_slice(self.stand_in.as_bytes());
                return true;
            }
            let at = out.len();
            if !self.whole_string(text, len, out) {
                return false;
            }
            // The caller's own text equal to the stand-in, where one may be, is read as one.
            if let Some(lengths) = &self.lengths {
                if slot != Slot::Kept && out[at..] == *self.stand_in.as_bytes() {
                    let replacement = StandIn::REPLACEMENT.len() as u64;
                    lengths
                        .borrow_mut()
                        .extend([replacement, self.stand_in.len() as u64]);
                }
            }
            true
        }
    }

    /// Writes the str `text` of `len` code points as it is; `false` when it is not Unicode.
    ///
    /// # Safety
    /// `text` is a live str, the GIL held.
    unsafe fn whole_string(&self, text: *mut ffi::PyObject, len: isize, out: &mut Vec<u8>) -> bool {
        // SAFETY: forwarded.
        unsafe {
            // Short text (keys, roles, ids, names) is copied out as code points, with no
            // object made.
            if let Ok(short) = usize::try_from(len) {
                if short <= SHORT {
                    let mut chars = [0; SHORT];
                    let copied = ffi::PyUnicode_AsUCS4(text, chars.as_mut_ptr(), len, 0);
                    if copied.is_null() {
                        ffi::PyErr_Clear();
                        return false;
                    }
                    return write_chars(&chars[..short], out);
                }
            }
            let bytes = ffi::PyUnicode_AsUTF8String(text);
            if bytes.is_null() {
                ffi::PyErr_Clear();
                return false;
            }
            write_str(bytes_of(bytes), out);
            ffi::Py_DecRef(bytes);
            true
        }
    }

    /// `str.isascii()` of an exact str.
    ///
    /// # Safety
    /// `text` is a live exact str, the GIL held.
    unsafe fn is_ascii(&self, text: *mut ffi::PyObject) -> bool {
        // SAFETY: forwarded.
        unsafe {
            let ascii = ffi::PyObject_CallMethodObjArgs(
                text,
                self.isascii.as_ptr(),
                std::ptr::null_mut::<ffi::PyObject>(),
            );
            if ascii.is_null() {
                ffi::PyErr_Clear();
                return false;
            }
            let yes = ascii == ffi::Py_True();
            ffi::Py_DecRef(ascii);
            yes
        }
    }
}

/// How many distinct keys are kept written (`StoodIn::key`): more than the messages of any
/// format hold, fewer than a search of them would cost more than writing a key.
const KEYS_KEPT: usize = 32;

/// The longest text copied out as code points (longer text is encoded by Python).
const SHORT: usize = 64;

/// The contents of the bytes object `bytes`.
///
/// # Safety
/// `bytes` is a live bytes object, which outlives the slice.
unsafe fn bytes_of<'a>(bytes: *mut ffi::PyObject) -> &'a [u8] {
    // SAFETY: forwarded; a bytes object's buffer holds its size.
    unsafe {
        let data = ffi::PyBytes_AsString(bytes);
        let size = usize::try_from(ffi::PyBytes_Size(bytes)).unwrap_or(0);
        if data.is_null() {
            return &[];
        }
        std::slice::from_raw_parts(data.cast::<u8>(), size)
    }
}

/// The length of the UTF-8 text `text` written as a compact JSON string (as the core counts
/// it: `"`, `\\`, and the controls with a short escape take two bytes, other controls six).
fn json_len(text: &[u8]) -> u64 {
    let escaped = |b: u8| b < 0x20 || b == b'"' || b == b'\\';
    let escapes: u64 = if any_escaped(text) {
        text.iter()
            .filter(|&&b| escaped(b))
            .map(|&b| match b {
                b'"' | b'\\' | 0x08 | b'\t' | b'\n' | 0x0c | b'\r' => 1,
                _ => 5,
            })
            .sum()
    } else {
        0
    };
    2 + text.len() as u64 + escapes
}

/// Whether `text` holds a byte JSON escapes (a control, `"` or `\\`), read eight bytes at a
/// time: most text holds none.
fn any_escaped(text: &[u8]) -> bool {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    // The exact test for a byte below `n` (n ≤ 128) in a word: a borrow into its high bit.
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGH != 0;
    let words = text.chunks_exact(8);
    let rest = words.remainder();
    for word in words {
        let w = u64::from_le_bytes(word.try_into().unwrap_or_default());
        if below(w, 0x20)
            || below(w ^ (ONES * u64::from(b'"')), 1)
            || below(w ^ (ONES * u64::from(b'\\')), 1)
        {
            return true;
        }
    }
    rest.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// Writes the code points `chars` as a JSON string; `false` at a lone surrogate.
fn write_chars(chars: &[u32], out: &mut Vec<u8>) -> bool {
    out.push(b'"');
    for &c in chars {
        if let Ok(byte) = u8::try_from(c) {
            if (0x20..0x7f).contains(&byte) && byte != b'"' && byte != b'\\' {
                out.push(byte);
                continue;
            }
            if byte.is_ascii() {
                push_escaped(byte, out);
                continue;
            }
        }
        let Some(c) = char::from_u32(c) else {
            return false;
        };
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
    out.push(b'"');
    true
}

/// Writes the ASCII byte `b`, escaped as JSON needs.
fn push_escaped(b: u8, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match b {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        0x00..=0x1f => {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
        }
        _ => out.push(b),
    }
}

/// Writes the UTF-8 text `text` as a JSON string.
fn write_str(text: &[u8], out: &mut Vec<u8>) {
    out.reserve(text.len() + 2);
    out.push(b'"');
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        if b == b'"' || b == b'\\' || b < 0x20 {
            out.extend_from_slice(&text[start..i]);
            push_escaped(b, out);
            start = i + 1;
        }
    }
    out.extend_from_slice(&text[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::{any_escaped, json_len};

    #[test]
    fn json_lengths_count_escapes_as_the_core_does() {
        assert_eq!(json_len(b"plain text of some length"), 27);
        assert_eq!(json_len(b"a\"b\\c\nd\te\x08f\x0cg\rh"), 2 + 15 + 7);
        assert_eq!(json_len(b"\x01 and \x1f"), 2 + 7 + 10);
        assert_eq!(json_len("d\u{e9}j\u{e0}".as_bytes()), 2 + 6);
        for at in 0..20 {
            for b in [b'"', b'\\', 0x00, 0x1f] {
                let mut text = vec![b'x'; 20];
                text[at] = b;
                assert!(any_escaped(&text), "{at} {b}");
            }
        }
        assert!(!any_escaped(
            &[0x20, 0x7f, 0x80, 0xff, b'!', b'#', b'[', b']'].repeat(3)
        ));
    }
}

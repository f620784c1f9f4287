//! A pyarrow string or binary column read in place through the Arrow C data interface (the
//! `__arrow_c_array__` PyCapsule protocol, pyarrow 14 and later): each row is a slice of the
//! column's data buffer, so a dataset's batch reaches the core without a Python object per row.
//! pyarrow is never imported here; any object speaking the protocol works.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyList, PyTuple};
use std::ffi::{c_char, c_void, CStr};
use std::ptr::NonNull;

/// `struct ArrowSchema` of the Arrow C data interface.
#[repr(C)]
struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

/// `struct ArrowArray` of the Arrow C data interface.
#[repr(C)]
struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

/// A chunk: the capsules that own it (released when they are dropped) and where it is.
struct Chunk<'py> {
    _capsules: Bound<'py, PyTuple>,
    array: NonNull<ArrowArray>,
    large: bool,
}

/// The chunks of a string or binary column.
pub struct Column<'py> {
    chunks: Vec<Chunk<'py>>,
}

impl Column<'_> {
    /// Each row's bytes, `None` for a null, in order.
    pub fn rows(&self) -> Vec<Option<&[u8]>> {
        let mut rows = Vec::new();
        for chunk in &self.chunks {
            // SAFETY: the array was checked in `chunk` and stays alive with its capsule.
            let array = unsafe { chunk.array.as_ref() };
            let len = array.length as usize;
            let offset = array.offset as usize;
            // SAFETY: a string or binary array has 3 buffers: validity (may be NULL when no
            // row is null), offsets (length + 1 past `offset`) and data.
            unsafe {
                let validity = (*array.buffers).cast::<u8>();
                let offsets = *array.buffers.add(1);
                let data = (*array.buffers.add(2)).cast::<u8>();
                for i in offset..offset + len {
                    let valid = array.null_count == 0
                        || validity.is_null()
                        || *validity.add(i / 8) & (1 << (i % 8)) != 0;
                    if !valid {
                        rows.push(None);
                        continue;
                    }
                    let (start, end) = if chunk.large {
                        let o = offsets.cast::<i64>();
                        (*o.add(i) as usize, *o.add(i + 1) as usize)
                    } else {
                        let o = offsets.cast::<i32>();
                        (*o.add(i) as usize, *o.add(i + 1) as usize)
                    };
                    rows.push(Some(if end > start {
                        std::slice::from_raw_parts(data.add(start), end - start)
                    } else {
                        &[]
                    }));
                }
            }
        }
        rows
    }
}

/// A string or binary column when `obj` is an Arrow array (`__arrow_c_array__`) or chunked
/// array (`chunks` of them) of `string`, `large_string`, `binary` or `large_binary`; `None`
/// when it is not Arrow at all. Another Arrow type (a dictionary, `string_view`) is cast to
/// `large_string` (with pyarrow), another type is a TypeError.
pub fn strings<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Column<'py>>> {
    let py = obj.py();
    let arrays: Vec<Bound<'py, PyAny>> = if obj.hasattr("__arrow_c_array__")? {
        vec![obj.clone()]
    } else if obj.hasattr("__arrow_c_stream__")? && obj.hasattr("chunks")? {
        obj.getattr("chunks")?
            .cast_into::<PyList>()
            .map_err(|_| PyTypeError::new_err("an Arrow chunked array's chunks must be a list"))?
            .iter()
            .collect()
    } else {
        return Ok(None);
    };
    let mut chunks = Vec::with_capacity(arrays.len());
    for array in arrays {
        chunks.push(match chunk(&array)? {
            Read::Strings(chunk) => chunk,
            Read::Other(format) => {
                return Err(PyTypeError::new_err(format!(
                    "requests as an Arrow array must be strings or binary, not the Arrow \
                     type of format {format:?}"
                )))
            }
            Read::Castable => {
                let cast = array
                    .call_method1(
                        "cast",
                        (py.import("pyarrow")?.call_method0("large_string")?,),
                    )
                    .map_err(|e| {
                        PyTypeError::new_err(format!(
                            "requests as an Arrow array must be strings or binary: {e}"
                        ))
                    })?;
                match chunk(&cast)? {
                    Read::Strings(chunk) => chunk,
                    _ => {
                        return Err(PyTypeError::new_err(
                            "requests as an Arrow array must be strings or binary",
                        ))
                    }
                }
            }
        });
    }
    Ok(Some(Column { chunks }))
}

/// What an exported array is.
enum Read<'py> {
    Strings(Chunk<'py>),
    /// Strings in another layout (dictionary-encoded, string views): cast to read them.
    Castable,
    /// Another type, named by its format string.
    Other(String),
}

/// One exported array.
fn chunk<'py>(array: &Bound<'py, PyAny>) -> PyResult<Read<'py>> {
    let capsules = array
        .call_method0("__arrow_c_array__")?
        .cast_into::<PyTuple>()
        .map_err(|_| PyTypeError::new_err("__arrow_c_array__ must answer a tuple"))?;
    let schema = capsules.get_item(0)?;
    let schema = schema
        .cast::<PyCapsule>()
        .map_err(|_| PyTypeError::new_err("__arrow_c_array__ must answer capsules"))?
        .pointer_checked(Some(c"arrow_schema"))?
        .cast::<ArrowSchema>();
    let pointer = capsules
        .get_item(1)?
        .cast::<PyCapsule>()
        .map_err(|_| PyTypeError::new_err("__arrow_c_array__ must answer capsules"))?
        .pointer_checked(Some(c"arrow_array"))?
        .cast::<ArrowArray>();
    // SAFETY: the capsules hold a live schema and array until they are dropped (with `capsules`).
    let (schema, array_ref) = unsafe { (schema.as_ref(), pointer.as_ref()) };
    // SAFETY: a live schema's format is a NUL-terminated string.
    let format = unsafe { CStr::from_ptr(schema.format) };
    let large = match format.to_bytes() {
        _ if !schema.dictionary.is_null() => return Ok(Read::Castable),
        b"u" | b"z" => false,
        b"U" | b"Z" => true,
        b"vu" | b"vz" => return Ok(Read::Castable),
        other => return Ok(Read::Other(String::from_utf8_lossy(other).into_owned())),
    };
    if array_ref.n_buffers != 3 || array_ref.length < 0 || array_ref.offset < 0 {
        return Err(PyTypeError::new_err(
            "an Arrow string array must have 3 buffers and a non-negative length",
        ));
    }
    Ok(Read::Strings(Chunk {
        _capsules: capsules,
        array: pointer,
        large,
    }))
}

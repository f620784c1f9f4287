//! The C entries' arguments: checked for NULL and UTF-8 (and read as JSON), with an error that
//! names the argument.

use crate::error::{Error, ErrorCode};
use crate::raw::{BytesError, Doc};
use std::ffi::{c_char, CStr};

/// Borrows a C string argument as UTF-8, or says which argument is NULL or not UTF-8.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that outlives `'a`.
pub(super) unsafe fn str_arg<'a>(ptr: *const c_char, name: &str) -> Result<&'a str, Error> {
    if ptr.is_null() {
        return Err(null_error(name));
    }
    // SAFETY: non-NULL and NUL-terminated per the caller's contract.
    utf8(unsafe { CStr::from_ptr(ptr) }.to_bytes(), name)
}

/// Borrows `len` bytes at `ptr` as UTF-8, or says which argument is NULL or not UTF-8.
///
/// # Safety
/// `ptr` is NULL or points to `len` readable bytes that outlive `'a`.
pub(super) unsafe fn bytes_arg<'a>(
    ptr: *const c_char,
    len: usize,
    name: &str,
) -> Result<&'a str, Error> {
    if ptr.is_null() {
        return Err(null_error(name));
    }
    // SAFETY: non-NULL and `len` readable bytes per the caller's contract.
    utf8(
        unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) },
        name,
    )
}

pub(super) fn null_error(name: &str) -> Error {
    Error::new(ErrorCode::InvalidArgument, format!("{name} is NULL"))
}

/// Validates UTF-8 once, with a SIMD validator; the offset of the first bad byte on failure.
fn utf8<'a>(bytes: &'a [u8], name: &str) -> Result<&'a str, Error> {
    crate::raw::utf8(bytes).map_err(|e| bytes_error(e, name))
}

fn bytes_error(e: BytesError, name: &str) -> Error {
    match e {
        BytesError::Utf8 { valid_up_to } => Error::new(
            ErrorCode::InvalidArgument,
            format!("{name} is not valid UTF-8 (invalid byte at offset {valid_up_to})"),
        ),
        BytesError::Json(e) => crate::api::invalid_json(e),
    }
}

/// A JSON argument read into its document, or why it cannot be: NULL, not UTF-8 (that verdict
/// first, as [`str_arg`] gives it), not JSON. Its length is `len`, or found at its NUL.
///
/// # Safety
/// `ptr` is NULL or points to `len` readable bytes (with `len`) or to a NUL-terminated string
/// (without), valid for `'a`.
pub(super) unsafe fn doc_arg<'a>(
    ptr: *const c_char,
    len: Option<usize>,
    name: &str,
) -> Result<Doc<'a>, Error> {
    if ptr.is_null() {
        return Err(null_error(name));
    }
    let bytes = match len {
        // SAFETY: non-NULL and `len` readable bytes per the caller's contract.
        Some(len) => unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) },
        // SAFETY: non-NULL and NUL-terminated per the caller's contract.
        None => unsafe { CStr::from_ptr(ptr) }.to_bytes(),
    };
    Doc::parse_bytes(bytes).map_err(|e| bytes_error(e, name))
}

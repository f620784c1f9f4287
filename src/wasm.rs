//! The WebAssembly module's own exports (`wasm32-unknown-unknown`, docs/wasm.md). The module
//! exports the C ABI of [`crate::ffi`] as it is (a pointer is an offset into the module's
//! memory) and these two functions, with which its host writes the arguments into that memory:
//! a string argument is `ankita_alloc(len + 1)`, the UTF-8 bytes and a NUL; an answer is read
//! up to its NUL and released with `ankita_string_free`, as a C caller does.

use std::alloc::{alloc, dealloc, Layout};

/// A buffer of `len` bytes (at least one) in the module's memory for the host to write an
/// argument into; NULL when memory cannot grow. Released with [`ankita_dealloc`] and the same
/// `len`.
#[no_mangle]
pub extern "C" fn ankita_alloc(len: usize) -> *mut u8 {
    match Layout::from_size_align(len.max(1), 1) {
        // SAFETY: the layout's size is not zero.
        Ok(layout) => unsafe { alloc(layout) },
        Err(_) => std::ptr::null_mut(),
    }
}

/// Releases a buffer of [`ankita_alloc`].
///
/// # Safety
/// `ptr` came from `ankita_alloc(len)` and is released once; NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn ankita_dealloc(ptr: *mut u8, len: usize) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: the caller passes the pointer and length ankita_alloc made it with.
    unsafe { dealloc(ptr, Layout::from_size_align_unchecked(len.max(1), 1)) }
}

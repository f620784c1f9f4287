//! The WebAssembly module's own exports (`wasm32-unknown-unknown`, docs/wasm.md). The module
//! exports the C ABI of [`crate::ffi`] as it is (a pointer is an offset into the module's
//! memory) and these two functions, with which its host writes the arguments into that memory:
//! a string argument is `ankita_alloc(len + 1)`, the UTF-8 bytes and a NUL; an answer is read
//! up to its NUL and released with `ankita_string_free`, as a C caller does.

use crate::error::Error;
use std::alloc::{alloc, dealloc, Layout};
use std::ffi::c_char;
use std::sync::Mutex;

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

/// What the last call that panicked answers, as [`crate::ffi`]'s boundary answers a panic.
static PANIC: Mutex<String> = Mutex::new(String::new());

/// Sets the module up; the host calls it once, after instantiating. A panic in the module ends
/// the call in a trap (the target unwinds nothing): the panic hook set here first keeps the
/// answer the native library gives for the same panic (an `internal` error naming it), which
/// [`ankita_wasm_panic`] hands over.
#[no_mangle]
pub extern "C" fn ankita_wasm_init() {
    std::panic::set_hook(Box::new(|info| {
        let answer = Error::from_panic(info.payload()).to_response().to_string();
        if let Ok(mut slot) = PANIC.try_lock() {
            *slot = answer;
        }
    }));
}

/// The answer of the call that last trapped on a panic (empty when none did), released with
/// `ankita_string_free`.
#[no_mangle]
pub extern "C" fn ankita_wasm_panic() -> *mut c_char {
    let answer = match PANIC.try_lock() {
        Ok(mut slot) => std::mem::take(&mut *slot),
        Err(_) => String::new(),
    };
    crate::ffi::text_string(&answer)
}

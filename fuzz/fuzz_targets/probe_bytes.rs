//! The image probe over raw bytes: never panics; a decoded size has both sides ≥ 1 and is
//! priced by every profile without overflow (debug assertions are on in fuzz builds).

#![no_main]

#[path = "../checks.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check_probe_bytes(data));

//! The data-URL / base64 text path on arbitrary strings: `probe_text`, `probe_data_url`, the
//! JSON probe answer and image-URL pricing never panic, and agree with each other.

#![no_main]

#[path = "../checks.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| checks::check_probe_text(text));

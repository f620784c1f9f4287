//! The PDF reader over raw bytes (each input is made a PDF by a header when it lacks one): never
//! panics, never hangs; see `checks::check_probe_file`.

#![no_main]

#[path = "../checks.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.starts_with(b"%PDF-") {
        checks::check_probe_file(data);
    } else {
        let mut pdf = b"%PDF-1.7\n".to_vec();
        pdf.extend_from_slice(data);
        checks::check_probe_file(&pdf);
    }
});

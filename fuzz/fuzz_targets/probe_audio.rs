//! The audio readers (WAV, FLAC, MP3, Ogg, MP4) over raw bytes: never panic, never hang; see
//! `checks::check_probe_file`.

#![no_main]

#[path = "../checks.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| checks::check_probe_file(data));

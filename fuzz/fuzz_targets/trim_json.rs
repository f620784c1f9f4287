//! `trim_json` and `sanitize_json` over arbitrary text: never panic, always answer a JSON
//! object with a boolean `ok`: `messages` and `report` on success, an `error` with a known
//! code otherwise (never `internal`). The bytes as they are through `ankita_trim_n`: the answer
//! of their text when they are UTF-8, the error naming the first bad byte otherwise.

#![no_main]

#[path = "../checks.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Invalid UTF-8 is replaced, not skipped: every input reaches the parser.
    checks::check_bytes_request(data);
    let text = String::from_utf8_lossy(data);
    checks::check_answer(&ankita::api::trim_json(&text), false);
    checks::check_answer(&ankita::api::sanitize_json(&text), true);
});

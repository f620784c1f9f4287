//! The data-URL / base64 text path on arbitrary strings: `probe_text`, `probe_data_url`, the
//! JSON probe answer and image-URL pricing never panic, and agree with each other.

#![no_main]

use ankita::pricing::{price_image_url, ImageProfile};
use ankita::probe::{is_data_url, probe_base64, probe_data_url, probe_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let via_text = probe_text(text);
    let via_url = probe_data_url(text);
    if is_data_url(text) {
        assert_eq!(via_text, via_url);
    } else {
        assert_eq!(via_text, probe_base64(text.trim_start()));
    }
    if let Ok(info) = via_text {
        assert!(info.width > 0 && info.height > 0, "{info:?}");
    }
    let answer = ankita::probe_response(text, ImageProfile::default());
    assert_eq!(answer["ok"], true);
    assert_eq!(answer["format"].is_null(), via_text.is_err());
    if via_text.is_err() {
        assert_eq!(answer["budget_bytes"].as_u64(), Some(text.len() as u64));
    }
    let price = price_image_url(text, ImageProfile::default(), Some("auto"), 4);
    if via_url.is_err() && !ankita::pricing::is_remote_url(text) {
        assert_eq!(price.budget_bytes, text.len() as u64);
    }
    assert!(price.budget_bytes > 0 || text.is_empty());
});

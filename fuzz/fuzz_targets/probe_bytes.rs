//! The image probe over raw bytes: never panics; a decoded size has both sides ≥ 1 and is
//! priced by every profile without overflow (debug assertions are on in fuzz builds).

#![no_main]

use ankita::pricing::{price_probe, ImageProfile};
use ankita::probe::probe_bytes;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let result = probe_bytes(data);
    if let Ok(info) = result {
        assert!(info.width > 0 && info.height > 0, "{info:?}");
        for name in ImageProfile::NAMES {
            let profile = ImageProfile::from_name(name).unwrap();
            for detail in [None, Some("low"), Some("high"), Some("auto")] {
                let tokens = profile.tokens(info.width, info.height, detail);
                assert!(tokens >= 1, "{name} {info:?} {tokens}");
                let price = price_probe(result, data.len(), profile, detail, 4);
                assert_eq!(price.tokens, Some(tokens));
                assert_eq!(price.budget_bytes, tokens.saturating_mul(4));
            }
        }
    }
});

//! ankita: fit a multimodal chat history into a model's context budget.
//!
//! Images are priced by pixels from their header alone ([`probe`], [`pricing`]); the history
//! is trimmed in a fixed, explainable order; the report says what was removed. The C ABI
//! ([`ffi`]) and every binding speak the JSON contract of DESIGN §8.

pub mod anthropic;
pub mod api;
pub mod error;
pub mod ffi;
pub mod json;
pub mod message;
pub mod pricing;
pub mod probe;
pub mod profiles;
pub mod repair;
pub mod report;
pub mod request;
pub mod shed;
pub mod trim;

pub use error::{Error, ErrorCode};
pub use pricing::{ImagePrice, ImageProfile};
pub use probe::{ImageFormat, ImageInfo, ProbeError};
pub use report::Report;
pub use request::{OnImageOverflow, TrimOptions};
pub use trim::{plan_sanitize, plan_trim, NewContent, NewPart, Plan, PlannedMessage};

use serde_json::{json, Value};

/// The probe answer of the JSON contract for a data URL or bare base64 text:
/// `{"ok": true, "format", "width", "height", "tokens", "budget_bytes"}`.
///
/// ```
/// let v = ankita::probe_response("data:image/gif;base64,R0lGODlhAQABAAAAACw=", Default::default());
/// assert_eq!(v["format"], "gif");
/// assert_eq!(v["tokens"], 765);
/// ```
pub fn probe_response(text: &str, profile: ImageProfile) -> Value {
    probe_response_with(text, profile, None, pricing::DEFAULT_BYTES_PER_TOKEN)
}

/// [`probe_response`] with a `detail` level and a bytes-per-token rate.
pub fn probe_response_with(
    text: &str,
    profile: ImageProfile,
    detail: Option<&str>,
    bytes_per_token: u64,
) -> Value {
    let price = pricing::price_probe(
        probe::probe_text(text),
        text.len(),
        profile,
        detail,
        bytes_per_token,
    );
    let mut response = json!({"ok": true});
    response
        .as_object_mut()
        .expect("an object")
        .extend(price_fields(&price));
    response
}

/// `format`, `width`, `height`, `tokens`, `budget_bytes` of a priced image, as JSON fields
/// (the first four null when the image could not be decoded).
pub fn price_fields(price: &ImagePrice) -> serde_json::Map<String, Value> {
    let info = price.probe.ok();
    let fields = json!({
        "format": info.map(|i| i.format.as_str()),
        "width": info.map(|i| i.width),
        "height": info.map(|i| i.height),
        "tokens": price.tokens,
        "budget_bytes": price.budget_bytes,
    });
    match fields {
        Value::Object(map) => map,
        _ => unreachable!("json! of an object literal"),
    }
}

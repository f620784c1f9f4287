//! ankita: fit a multimodal chat history into a model's context budget.
//!
//! Images are priced by their pixels, read from their headers alone; the history is read in
//! its wire format (OpenAI chat, Anthropic Messages, OpenAI Responses, Gemini contents, AI SDK
//! model messages), repaired, trimmed in a fixed, explainable order, and the report says what
//! was removed. The same core answers the C ABI (`include/ankita.h`), the command line and the
//! Python and Node packages (DESIGN §8: the JSON contract).
//!
//! For Rust programs the crate root is the API: [`trim`], [`sanitize`], [`count_tokens`],
//! [`probe_image`], incremental sessions ([`TrimSession`]), the options ([`TrimOptions`], read
//! from a JSON object of the request's keys), the report ([`Report`]) and the [`Error`]. A
//! history is `serde_json::Value` messages as the provider's SDK writes them:
//!
//! ```
//! use serde_json::json;
//!
//! let history = vec![
//!     json!({"role": "system", "content": "You are a desktop companion."}),
//!     json!({"role": "user", "content": "What is on my screen?"}),
//!     json!({"role": "assistant", "content": "A terminal with a failing build."}),
//!     json!({"role": "user", "content": "Fix it."}),
//! ];
//! let trimmed = ankita::trim(&history, &json!({"max_messages": 3})).unwrap();
//! // The system prompt is pinned, the user's first request (their goal) anchored, the newest
//! // turn kept: the assistant's old answer goes.
//! let kept = [0, 1, 3].map(|i| history[i].clone());
//! assert_eq!(trimmed.messages, kept);
//! assert_eq!(trimmed.report["dropped_messages"], json!([2]));
//! ```
//!
//! The modules are the crate's own (the front ends' shared parts), hidden from this
//! documentation and not a stable interface.

#![warn(missing_docs)]

#[doc(hidden)]
pub mod api;
#[doc(hidden)]
pub mod batch;
#[doc(hidden)]
pub mod cache_keys;
#[doc(hidden)]
pub mod calibrate;
#[doc(hidden)]
pub mod chat_template;
#[doc(hidden)]
pub mod context_windows;
#[doc(hidden)]
pub mod count_cache;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod ffi;
#[doc(hidden)]
pub mod fill;
#[doc(hidden)]
pub mod format;
#[doc(hidden)]
pub mod framing;
#[doc(hidden)]
pub mod json;
#[doc(hidden)]
pub mod model;
#[doc(hidden)]
pub mod names;
#[doc(hidden)]
pub mod pricing;
#[doc(hidden)]
pub mod probe;
#[doc(hidden)]
pub mod profiles;
#[doc(hidden)]
pub mod raw;
#[doc(hidden)]
pub mod repair;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod request;
#[doc(hidden)]
pub mod session;
#[doc(hidden)]
pub mod shed;
#[doc(hidden)]
pub mod splice;
#[doc(hidden)]
pub mod stable;
#[doc(hidden)]
pub mod tail;
#[doc(hidden)]
pub mod tokenizer_file;
#[doc(hidden)]
pub mod tokens;
#[doc(hidden)]
pub mod trim;
mod trimmer;
#[doc(hidden)]
pub mod turn;
/// cbindgen:ignore
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;

pub use api::typed::{count_tokens, probe_image, sanitize, trim, Sanitized, Trimmed};
#[doc(hidden)]
pub use api::{price_fields, probe_response, Request};
pub use error::{Error, ErrorCode};
pub use format::Format;
#[doc(hidden)]
pub use format::{Edit, NewContent, NewPart, Out};
pub use pricing::{ImageProfile, MediaPrice};
pub use probe::{ImageFormat, ImageInfo, ProbeError};
pub use report::Report;
pub use request::{OnImageOverflow, TrimOptions, DEFAULT_MAX_MESSAGES};
pub use session::TrimSession;
pub use tokens::{Measure, Tokenizer};
#[doc(hidden)]
pub use trim::{plan_sanitize, plan_trim, Plan};

//! ankita: fit a multimodal chat history into a model's context budget.
//!
//! Images are priced by pixels from their header alone ([`probe`], [`pricing`]); the history
//! is read in place ([`raw`]), split by its wire format's adapter ([`format`]) into the neutral
//! model ([`model`]), repaired ([`repair`]), trimmed in a fixed, explainable order ([`trim`],
//! [`shed`]), and the report ([`report`]) says what was removed. The JSON contract ([`api`]) is
//! what the C ABI ([`ffi`]), the command line and every binding speak (DESIGN §8).

pub mod api;
pub mod batch;
pub mod cache_keys;
pub mod calibrate;
pub mod chat_template;
pub mod context_windows;
pub mod count_cache;
pub mod error;
pub mod ffi;
pub mod fill;
pub mod format;
pub mod framing;
pub mod json;
pub mod model;
pub mod names;
pub mod pricing;
pub mod probe;
pub mod profiles;
pub mod raw;
pub mod repair;
pub mod report;
pub mod request;
pub mod session;
pub mod shed;
pub mod splice;
pub mod stable;
pub mod tail;
pub mod tokenizer_file;
pub mod tokens;
pub mod trim;
mod trimmer;
pub mod turn;
/// cbindgen:ignore
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use api::plan_trim;
pub use api::{price_fields, probe_response, Request};
pub use error::{Error, ErrorCode};
pub use format::{Edit, Format, NewContent, NewPart, Out};
pub use pricing::{ImageProfile, MediaPrice};
pub use probe::{ImageFormat, ImageInfo, ProbeError};
pub use report::Report;
pub use request::{OnImageOverflow, TrimOptions, DEFAULT_MAX_MESSAGES};
pub use session::TrimSession;
pub use tokens::{Measure, Tokenizer};
pub use trim::{plan_sanitize, Plan};

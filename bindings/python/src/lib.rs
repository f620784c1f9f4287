//! Python bindings of ankita: the native module `ankita._ankita`, re-exported by the Python
//! package `ankita`. This file only registers things; each binding file follows a core module:
//!
//! - `trim.rs`    — `trim`, `sanitize`, `count_tokens`, `TrimResult` (core `trim`);
//! - `session.rs` — `Session`, an incremental session (core `session`);
//! - `probe.rs`   — `probe_image`, `ImageInfo` (core `probe`, `pricing`);
//! - `batch.rs`   — `trim_many`, many requests on every core (core `batch`; `arrow.rs` reads a
//!   pyarrow column in place);
//! - `api.rs`     — `trim_json`, `sanitize_json`, `estimate_image_tokens` (core `api`);
//! - `error.rs`   — the exception classes (core `error`);
//! - `plan.rs`    — keywords as request options, the core run without the GIL, its plan as
//!   Python objects (the caller's own for unchanged messages) and its report as a dict;
//! - `tail.rs`    — the trim of a long history from its newest messages (`stood_in.rs`: its
//!   older messages written as JSON with their long free text stood in; `turns.rs`: the runs
//!   of whole turns left out of it);
//! - `convert.rs` — Python objects ↔ `serde_json::Value`, without JSON text;
//! - `standins.rs` — large screenshots read as their header only.
//!
//! There is no global mutable state: every function may be called from many threads, and the
//! trimming itself runs with the GIL released.

use pyo3::prelude::*;

mod api;
mod arrow;
mod batch;
mod convert;
mod error;
mod plan;
mod probe;
mod session;
mod standins;
mod stood_in;
mod tail;
mod trim;
mod turns;

/// Fit multimodal chat histories into a context budget (native module; import `ankita`).
#[pymodule]
fn _ankita(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    error::register(m)?;
    m.add_class::<trim::TrimResult>()?;
    m.add_class::<probe::ImageInfo>()?;
    m.add_class::<session::Session>()?;
    m.add_function(wrap_pyfunction!(trim::trim, m)?)?;
    m.add_function(wrap_pyfunction!(trim::sanitize, m)?)?;
    m.add_function(wrap_pyfunction!(trim::count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(trim::sanitize_with_report, m)?)?;
    m.add_function(wrap_pyfunction!(trim::formats, m)?)?;
    m.add_function(wrap_pyfunction!(trim::_all_dicts, m)?)?;
    m.add_function(wrap_pyfunction!(probe::probe_image, m)?)?;
    m.add_function(wrap_pyfunction!(probe::probe_file, m)?)?;
    m.add_function(wrap_pyfunction!(api::estimate_image_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(api::trim_json, m)?)?;
    m.add_function(wrap_pyfunction!(batch::trim_many, m)?)?;
    m.add_function(wrap_pyfunction!(api::sanitize_json, m)?)?;
    Ok(())
}

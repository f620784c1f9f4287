//! The strict floor of `benches/floor.rs`: serde_json reading the bytes of a request into
//! `IgnoredAny`, one pass that validates the JSON and keeps nothing. It is a crate of its own so
//! that the pass is compiled as one codegen unit (`[profile.release.package.ankita-floor]` in
//! the root manifest), as a library built for speed would be, rather than with the profile of
//! the crate it is compared with.

/// Reads `text` as JSON into `IgnoredAny`; the error serde_json gives for invalid JSON.
pub fn parse(text: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<serde::de::IgnoredAny>(text).map(|_| ())
}

//! What a Gemini part is and costs: text, an image priced by its pixels, a PDF or audio blob
//! by its pages or seconds, a `text/plain` blob by its text, anything else by its JSON.

use super::{is_signed, pick, Loc};
use crate::error::Error;
use crate::format::units::{opaque, priced, text_unit};
use crate::format::Pricing;
use crate::model::{Unit, UnitKind};
use crate::raw::{self, canonical_len, get, kind, Doc, Fields, Kind, Raw};
use std::borrow::Cow;

/// The price of an image part (`inlineData` with an image type, `fileData` with an image type
/// or none); `None` when the part is not an image; an error (message, path rest) when an image
/// part lacks its data or URI.
pub(super) fn image_of<'a>(
    doc: &Doc<'a>,
    fields: &Fields<'a>,
    pricing: &Pricing<'_>,
    detail: Option<&str>,
) -> Option<Result<UnitKind, (&'static str, &'static str)>> {
    let is_image = |mime: Option<Cow<'_, str>>| {
        mime.is_none_or(|m| m.get(..6).is_some_and(|t| t.eq_ignore_ascii_case("image/")))
    };
    if let Some(blob) = pick(fields, "inlineData", "inline_data") {
        let blob = doc.fields(blob).unwrap_or_default();
        let mime = pick(&blob, "mimeType", "mime_type").and_then(raw::string);
        // An inline blob says what it is; without a type it is opaque.
        if mime.is_none() || !is_image(mime.clone()) {
            return None;
        }
        let Some(data) = get(&blob, "data").and_then(raw::string) else {
            let at = spelled(fields, ".inlineData.data", ".inline_data.data");
            return Some(Err(("inline image data must be a string", at)));
        };
        let mime = mime.unwrap_or_default();
        // What the data URL it stands for would cost when unreadable.
        let url_len = "data:".len() + mime.len() + ";base64,".len() + data.len();
        return Some(Ok(pricing.base64_with(&data, url_len, detail)));
    }
    if let Some(file) = pick(fields, "fileData", "file_data") {
        let file = doc.fields(file).unwrap_or_default();
        let mime = pick(&file, "mimeType", "mime_type").and_then(raw::string);
        if !is_image(mime) {
            return None;
        }
        let Some(uri) = pick(&file, "fileUri", "file_uri").and_then(raw::string) else {
            let at = spelled(fields, ".fileData.fileUri", ".file_data.file_uri");
            return Some(Err(("an image file needs a string file URI", at)));
        };
        return Some(Ok(pricing.remote(&uri, detail)));
    }
    None
}

/// The path `camel` when the part's key is written in camelCase (REST), else `snake` (the
/// Python SDK's `model_dump()`): an error names the key as the caller wrote it.
pub(super) fn spelled(
    fields: &Fields<'_>,
    camel: &'static str,
    snake: &'static str,
) -> &'static str {
    let key = camel.trim_start_matches('.');
    let key = &key[..key.find('.').unwrap_or(key.len())];
    if get(fields, key).is_some() {
        camel
    } else {
        snake
    }
}

/// A PDF or audio blob (`inlineData` with `application/pdf` or `audio/*` data, or
/// `fileData` with such a type and a file URI), priced by its pages or seconds.
pub(super) fn file_of<'a>(
    doc: &Doc<'a>,
    fields: &Fields<'a>,
    pricing: &Pricing<'_>,
    detail: Option<&str>,
) -> Option<UnitKind> {
    let (blob, data_key) = match pick(fields, "inlineData", "inline_data") {
        Some(b) => (b, "data"),
        None => (pick(fields, "fileData", "file_data")?, ""),
    };
    let blob = doc.fields(blob)?;
    let mime = pick(&blob, "mimeType", "mime_type").and_then(raw::string)?;
    crate::format::file_kind_of_media_type(&mime)?;
    let data = if data_key.is_empty() {
        None
    } else {
        Some(get(&blob, data_key).and_then(raw::string)?)
    };
    let uri = pick(&blob, "fileUri", "file_uri").and_then(raw::string);
    let label = pick(&blob, "displayName", "display_name").and_then(raw::string);
    let file = crate::format::FilePart {
        data: data.as_deref(),
        name: uri.as_deref(),
        media_type: Some(&mime),
        filename: label.as_deref(),
        detail,
        ..Default::default()
    };
    file.price(pricing)
}

/// The decoded length of a `text/plain` inline blob, counted from its base64 (not decoded).
pub(super) fn plain_text_len<'a>(doc: &Doc<'a>, fields: &Fields<'a>) -> Option<u64> {
    let blob = doc.fields(pick(fields, "inlineData", "inline_data")?)?;
    let mime = pick(&blob, "mimeType", "mime_type").and_then(raw::string)?;
    if !mime.eq_ignore_ascii_case("text/plain") {
        return None;
    }
    let data = get(&blob, "data").and_then(raw::string)?;
    let digits = data
        .bytes()
        .filter(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_'))
        .count() as u64;
    Some(digits * 3 / 4)
}

/// The placeholder of an image among a function response's parts, which hold only media: a
/// `text/plain` blob, in the spelling of the image part it replaces.
pub(super) fn text_blob(doc: &Doc<'_>, image: Raw<'_>, text: &str) -> String {
    let fields = doc.fields(image).unwrap_or_default();
    let camel = get(&fields, "inlineData").is_some() || get(&fields, "fileData").is_some();
    let (inline, mime) = if camel {
        ("inlineData", "mimeType")
    } else {
        ("inline_data", "mime_type")
    };
    format!(
        "{{\"{inline}\":{{\"{mime}\":\"text/plain\",\"data\":\"{}\"}}}}",
        crate::json::base64(text.as_bytes())
    )
}

/// A part's `media_resolution` (Gemini 3), read as the profile's `detail`.
pub(super) fn media_resolution<'a>(doc: &Doc<'a>, fields: &Fields<'a>) -> Option<Cow<'a, str>> {
    let value = pick(fields, "mediaResolution", "media_resolution")?;
    match kind(value) {
        Kind::String => raw::string(value),
        Kind::Object => get(&doc.fields(value)?, "level").and_then(raw::string),
        _ => None,
    }
}

/// One part (not a call or a response) as a unit: text is text, an image is priced, anything
/// else (thoughts, signed parts, other blobs, code) an opaque part priced as JSON.
pub(super) fn part_unit<'a>(
    doc: &Doc<'a>,
    part: Raw<'a>,
    fields: &Fields<'a>,
    loc: Loc,
    p: u32,
    pricing: &Pricing<'_>,
) -> Result<Unit<'a>, Error> {
    let opaque = opaque(Some(p), None, canonical_len(part));
    let thought = get(fields, "thought").is_some_and(|t| t == "true");
    if thought || is_signed(fields) {
        return Ok(opaque);
    }
    if let Some(text) = get(fields, "text") {
        if kind(text) != Kind::String {
            return Err(Error::invalid_request(
                "text must be a string",
                loc.at(".text"),
            ));
        }
        return Ok(text_unit(Some(p), text));
    }
    if let Some(bytes) = plain_text_len(doc, fields) {
        return Ok(Unit { bytes, ..opaque });
    }
    let detail = media_resolution(doc, fields);
    if let Some(kind) = file_of(doc, fields, pricing, detail.as_deref()) {
        return Ok(priced(Some(p), None, kind));
    }
    match image_of(doc, fields, pricing, detail.as_deref()) {
        None => Ok(opaque),
        Some(Err((what, rest))) => Err(Error::invalid_request(what, loc.at(rest))),
        Some(Ok(kind)) => Ok(priced(Some(p), None, kind)),
    }
}

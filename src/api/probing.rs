//! The probe and pricing calls of the JSON contract: an image's or a file's size and price
//! from its header, with the request's pricing options.

use super::*;

/// `{"ok": true, "tokens", "budget_bytes"}` for an image of `width` × `height` pixels.
/// `options` may hold `image_profile` (or `profile`) or `model`, `detail` and `bytes_per_token`.
pub fn estimate_image_tokens(width: u32, height: u32, options: &Value) -> Result<Value, Error> {
    if width == 0 || height == 0 {
        return Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("image size {width}×{height} has a zero side"),
        ));
    }
    let (profile, detail, bytes_per_token, warning) = pricing_options(options)?;
    let tokens = profile.tokens(width, height, detail);
    let mut out = Map::new();
    out.insert("ok".into(), true.into());
    out.insert("tokens".into(), tokens.into());
    out.insert(
        "budget_bytes".into(),
        tokens.saturating_mul(bytes_per_token).into(),
    );
    let mut out = Value::Object(out);
    add_warning(&mut out, warning);
    Ok(out)
}

/// The probe answer for a data URL or bare base64, priced with `options` as for
/// [`estimate_image_tokens`].
pub fn probe_image(image: &str, options: &Value) -> Result<Value, Error> {
    let (profile, detail, bytes_per_token, warning) = pricing_options(options)?;
    let mut out = probe_response_with(image, profile, detail, bytes_per_token);
    add_warning(&mut out, warning);
    Ok(out)
}

/// Adds `"warnings": [warning]` to an answer when there is one.
pub(super) fn add_warning(answer: &mut Value, warning: Option<RequestWarning>) {
    let (Some(w), Some(answer)) = (warning, answer.as_object_mut()) else {
        return;
    };
    let list = answer.entry("warnings").or_insert_with(|| json!([]));
    if let Some(list) = list.as_array_mut() {
        list.push(json!({
            "code": w.code, "index": null, "part": null, "path": w.path, "message": w.message,
        }));
    }
}

/// The file probe answer for a document or audio file given as a data URL or bare base64,
/// priced with `options` as for [`estimate_image_tokens`] ([`probe_file_response`]).
pub fn probe_file(text: &str, options: &Value) -> Result<Value, Error> {
    let (profile, detail, bytes_per_token, warning) = pricing_options(options)?;
    let probe = probe::file::probe_file_text(text);
    let mut out = probe_file_response(probe, profile, detail, bytes_per_token);
    add_warning(&mut out, warning);
    Ok(out)
}

/// The file probe answer of the JSON contract: `{"ok": true, "kind": "document" | "audio",
/// "format": "pdf" | "wav" | "flac" | "mp3" | "vorbis" | "opus" | "mp4", "pages",
/// "page_width", "page_height" (points; documents), "seconds", "millis" (audio), "tokens",
/// "budget_bytes", "exact"}`; every field but `ok` null, and `error` saying why, when the file
/// cannot be read (a trim then prices it by the conservative rule of what its part declares).
///
/// ```
/// use ankita::api::probe_file_response;
/// use ankita::pricing::ImageProfile;
/// use ankita::probe::file::probe_file_bytes;
/// let v = probe_file_response(probe_file_bytes(b"%PDF-1.7"), ImageProfile::default(), None, 4);
/// assert_eq!((v["kind"].is_null(), v["error"].as_str()), (true, Some("malformed document or audio file")));
/// ```
pub fn probe_file_response(
    probe: Result<probe::file::FileInfo, probe::file::FileError>,
    profile: ImageProfile,
    detail: Option<&str>,
    bytes_per_token: u64,
) -> Value {
    use probe::file::FileInfo;
    let info = match probe {
        Ok(info) => info,
        Err(e) => {
            return json!({"ok": true, "kind": null, "format": null, "pages": null,
                "page_width": null, "page_height": null, "seconds": null, "millis": null,
                "tokens": null, "budget_bytes": null, "exact": null, "error": e.to_string()})
        }
    };
    let price = pricing::price_file_probe(
        probe,
        info.kind(),
        0,
        profile,
        detail,
        bytes_per_token,
        pricing::Header::AsRead,
    );
    // As read, within what a JSON number holds exactly (an Ogg granule position of −2 claims
    // 3.8 × 10¹⁷ ms).
    let bounded = |n: u64| n.min(pricing::MAX_PRICE);
    let (pages, size, seconds, millis) = match info {
        FileInfo::Document(d) => (Some(d.pages), d.page_size, None, None),
        FileInfo::Audio(a) => (
            None,
            None,
            Some(bounded(a.seconds())),
            Some(bounded(a.millis)),
        ),
    };
    json!({
        "ok": true,
        "kind": info.kind().as_str(),
        "format": info.format_name(),
        "pages": pages,
        "page_width": size.map(|s| s.0),
        "page_height": size.map(|s| s.1),
        "seconds": seconds,
        "millis": millis,
        "tokens": price.tokens,
        "budget_bytes": price.budget_bytes,
        "exact": price.file.is_some_and(|f| f.exact),
    })
}

/// The probe answer of the JSON contract for a data URL or bare base64 text:
/// `{"ok": true, "format", "width", "height", "tokens", "budget_bytes"}`.
///
/// ```
/// let v = ankita::api::probe_response("data:image/gif;base64,R0lGODlhAQABAAAAACw=", Default::default());
/// assert_eq!(v["format"], "gif");
/// assert_eq!(v["tokens"], 765);
/// ```
pub fn probe_response(text: &str, profile: ImageProfile) -> Value {
    probe_response_with(text, profile, None, DEFAULT_BYTES_PER_TOKEN)
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
        pricing::Header::AsRead,
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
pub fn price_fields(price: &MediaPrice) -> Map<String, Value> {
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

/// What [`pricing_options`] reads: the profile, `detail`, bytes per token, and the
/// `unknown_model` warning when the model is one no family claims.
pub type Pricing<'a> = (ImageProfile, Option<&'a str>, u64, Option<RequestWarning>);

/// Reads `{"image_profile" | "profile" | "model", "detail", "bytes_per_token",
/// "strict_model"}`.
pub fn pricing_options(options: &Value) -> Result<Pricing<'_>, Error> {
    let options = match options {
        Value::Null => return Ok((ImageProfile::default(), None, DEFAULT_BYTES_PER_TOKEN, None)),
        Value::Object(options) => options,
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidRequest,
                "options must be a JSON object",
            ))
        }
    };
    let mut profile_keys = Map::new();
    for key in ["image_profile", "model", "strict_model"] {
        if let Some(v) = options.get(key) {
            profile_keys.insert(key.into(), v.clone());
        }
    }
    if let Some(v) = options.get("profile") {
        profile_keys.insert("image_profile".into(), v.clone());
    }
    let (profile, unknown) = crate::request::profile_of(&profile_keys, ImageProfile::default())?;
    let warning = unknown.map(|model| crate::request::unknown_model(model, profile, None));
    let mut detail = None;
    let mut bytes_per_token = DEFAULT_BYTES_PER_TOKEN;
    for (key, value) in options {
        match (key.as_str(), value) {
            (_, Value::Null) => {}
            ("image_profile" | "profile" | "model", Value::String(_)) => {}
            ("strict_model", Value::Bool(_)) => {}
            ("detail", Value::String(d)) => detail = Some(d.as_str()),
            ("bytes_per_token", v) if v.as_u64().is_some_and(|n| n > 0) => {
                bytes_per_token = v.as_u64().unwrap_or(1)
            }
            _ => {
                return Err(Error::invalid_request(
                    format!("unknown or invalid option {key:?} = {value}; known: image_profile or model (string), detail (string), bytes_per_token (integer ≥ 1), strict_model (boolean)"),
                    key.as_str(),
                ))
            }
        }
    }
    Ok((profile, detail, bytes_per_token, warning))
}

//! How a request counts (`tokenizer`, `model`, `token_factor`, a tokenizer file) and prices
//! images (`image_profile`, `model`).

use super::*;

/// How text is counted, from `tokenizer`, `model` and `token_factor`: `tokenizer` names it;
/// otherwise a model whose tokenizer is known selects it (Gemma 3's for Gemini 2.0, 2.5 and 3;
/// an estimate, with its family's factor, for Claude and the other Gemini models); otherwise
/// `context_tokens` counts in o200k_base tokens (an estimate) unless `bytes_per_token` asks for
/// the byte rule; otherwise bytes. A byte budget (`max_bytes`) keeps bytes unless `tokenizer` is
/// given, and then the two conflict.
pub fn measure_of(request: &Map<String, Value>) -> Result<Measure, Error> {
    let given = |key: &str| request.get(key).filter(|v| !v.is_null());
    let model_name = given("model").and_then(Value::as_str);
    let model = model_name.and_then(tokens::for_model);
    let named = match given("tokenizer") {
        None => None,
        Some(Value::String(name)) => Some(Tokenizer::from_name(name).ok_or_else(|| {
            Error::invalid_request(
                format!(
                    "tokenizer must be one of {}, not {name:?}",
                    Tokenizer::NAMES.join(", ")
                ),
                "tokenizer",
            )
        })?),
        Some(Value::Object(spec)) => Some(tokenizer_file(spec)?),
        Some(v) => {
            return Err(Error::invalid_request(
                format!(
                    "tokenizer must be one of {} or {{\"file\": PATH}}, not {v}",
                    Tokenizer::NAMES.join(", ")
                ),
                "tokenizer",
            ))
        }
    };
    if named.is_some_and(|t| t != Tokenizer::Bytes) && given("max_bytes").is_some() {
        return Err(Error::invalid_request(
            "max_bytes is a budget in bytes; with a tokenizer give context_tokens",
            "max_bytes",
        ));
    }
    let estimated = |tokenizer, factor: Option<f64>| Measure {
        tokenizer,
        factor: factor.unwrap_or(1.0),
        estimate: factor.is_some(),
    };
    let mut measure = match (named, model) {
        (Some(Tokenizer::Bytes), _) => Measure::BYTES,
        // The model's own tokenizer: its text counts are exact, its framing OpenAI's (3 tokens
        // and the role), so the whole is an estimate.
        (Some(file @ Tokenizer::File(_)), _) => Measure {
            tokenizer: file,
            factor: 1.0,
            estimate: true,
        },
        (Some(tokenizer), Some((_, factor))) => estimated(tokenizer, factor),
        (Some(tokenizer), None) => Measure::exact(tokenizer),
        (None, Some((tokenizer, factor))) if given("max_bytes").is_none() => {
            estimated(tokenizer, factor)
        }
        // A name no family claims: o200k_base with a margin, and the report says so.
        (None, None) if model_name.is_some() && given("max_bytes").is_none() => {
            estimated(Tokenizer::O200kBase, Some(tokens::UNKNOWN_FACTOR))
        }
        // A window in tokens and no model: counted in o200k_base tokens (an estimate: no
        // model says whose tokens), not in 4 bytes a token, which real text (logs, code, CJK)
        // overruns. `bytes_per_token` or `tokenizer: "bytes"` asks for the byte rule.
        (None, None)
            if given("context_tokens").is_some()
                && given("max_bytes").is_none()
                && given("bytes_per_token").is_none() =>
        {
            Measure {
                tokenizer: Tokenizer::O200kBase,
                factor: 1.0,
                estimate: true,
            }
        }
        (None, _) => Measure::BYTES,
    };
    if let Some(f) = given("token_factor") {
        let factor = f
            .as_f64()
            .filter(|f| (0.1..=10.0).contains(f))
            .ok_or_else(|| {
                Error::invalid_request(
                    format!("token_factor must be a number from 0.1 to 10, not {f}"),
                    "token_factor",
                )
            })?;
        if !measure.in_tokens() {
            return Err(Error::invalid_request(
                "token_factor scales token counts: give tokenizer or a model whose tokenizer is \
                 known",
                "token_factor",
            ));
        }
        measure.factor = factor;
        // Scaled counts are no tokenizer's own.
        measure.estimate |= factor != 1.0;
    }
    Ok(measure)
}

/// `{"file": PATH}`: a Hugging Face `tokenizer.json`, or a folder holding one.
fn tokenizer_file(spec: &Map<String, Value>) -> Result<Tokenizer, Error> {
    if let Some(key) = spec.keys().find(|k| *k != "file") {
        return Err(Error::invalid_request(
            format!("unknown key {key:?} of tokenizer; known key: file"),
            format!("tokenizer.{key}"),
        ));
    }
    match spec.get("file") {
        Some(Value::String(path)) => load_file(path).map(Tokenizer::File),
        _ => Err(Error::invalid_request(
            "tokenizer.file must be the path of a tokenizer.json or of a folder holding one",
            "tokenizer.file",
        )),
    }
}

/// The tokenizer file at `path`, loaded once and shared ([`crate::tokenizer_file::load`]).
#[cfg(feature = "tokenizer-files")]
fn load_file(path: &str) -> Result<&'static crate::tokenizer_file::FileTokenizer, Error> {
    crate::tokenizer_file::load(path, "tokenizer.file")
}

/// A build without tokenizer files (the WebAssembly build): every path is an `invalid_request`
/// error saying so and naming the built-in tokenizers.
#[cfg(not(feature = "tokenizer-files"))]
fn load_file(path: &str) -> Result<&'static crate::tokenizer_file::FileTokenizer, Error> {
    Err(Error::invalid_request(
        format!(
            "tokenizer file {path:?}: this build of ankita reads no tokenizer files (the \
             WebAssembly build leaves them out); use a built-in tokenizer: {}",
            Tokenizer::NAMES.join(", ")
        ),
        "tokenizer.file",
    ))
}

/// The pricing profile from `image_profile` or `model` (giving both is ambiguous), `default`
/// when neither is given. A model no family claims (neither the image tables nor the
/// tokenizer's) is priced by `default` too and its name returned, for the caller's warning;
/// with `"strict_model": true` it is an `invalid_request` error at `model` instead.
pub fn profile_of(
    options: &Map<String, Value>,
    default: ImageProfile,
) -> Result<(ImageProfile, Option<&str>), Error> {
    let string = |key: &str| -> Result<Option<&str>, Error> {
        match options.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(Error::invalid_request(
                format!("{key} must be a string"),
                key,
            )),
        }
    };
    match (string("image_profile")?, string("model")?) {
        (Some(_), Some(_)) => Err(Error::invalid_request(
            "give image_profile or model, not both",
            "model",
        )),
        (Some(name), None) => Ok((ImageProfile::from_name(name)?, None)),
        (None, Some(model)) => {
            if let Some(profile) = crate::names::read(model).and_then(|n| image_rule(&n)) {
                return Ok((profile, None));
            }
            if tokens::family_of(model).is_some() {
                // A text model (or a version without an image rule): the default recipe.
                return Ok((default, None));
            }
            let strict = options.get("strict_model").and_then(Value::as_bool);
            if strict == Some(true) {
                return Err(Error::invalid_request(
                    format!(
                        "unknown model {model:?} (strict_model): no family claims it; image \
                         families: {}; text families: {} (a provider prefix or route such as \
                         \"openrouter/openai/\" and a dated or variant suffix such as \
                         \"-2024-08-06\" are allowed)",
                        ImageProfile::KNOWN_MODELS.join(", "),
                        tokens::family_names().join(", ")
                    ),
                    "model",
                ));
            }
            Ok((default, Some(model)))
        }
        (None, None) => Ok((default, None)),
    }
}

/// The `unknown_model` warning: what was assumed for `model` (its image rule and, when the
/// request counts text, how).
pub fn unknown_model(
    model: &str,
    profile: ImageProfile,
    measure: Option<Measure>,
) -> RequestWarning {
    let mut message = format!(
        "no model family claims {model:?}; assumed: images priced by the {:?} rule (the \
         default)",
        profile.name()
    );
    match measure {
        Some(m) if m.in_tokens() => {
            message += &format!(
                ", text counted with {} × {} (an estimate)",
                m.tokenizer.name(),
                m.factor
            )
        }
        Some(_) => message += ", text counted in bytes",
        None => {}
    }
    message += "; strict_model: true makes an unknown model an error";
    RequestWarning {
        code: "unknown_model",
        path: "model",
        message,
    }
}

//! Hugging Face tokenizers read from disk, for open-weight models (`"tokenizer": {"file":
//! PATH}`): PATH is a `tokenizer.json`, or a folder holding one (as a model's folder does, beside
//! its weights). Text is counted by the `tokenizers` crate (pure Rust: the `fancy-regex`
//! pre-tokenizer, no Oniguruma and no C++), exactly as Hugging Face's `tokenizers` package
//! counts it without special tokens. A file is loaded once per path per process and kept for the
//! process's life; a path that fails to load is not kept (the next call tries again).
//!
//! The `tokenizer-files` feature (on by default) brings them; a build without it (the
//! WebAssembly one, docs/wasm.md) answers a request naming a file with an `invalid_request`
//! error saying so.

use crate::chat_template::Framing;
use std::fmt;
#[cfg(feature = "tokenizer-files")]
use {
    crate::error::Error,
    std::collections::HashMap,
    std::path::{Path, PathBuf},
    std::sync::{Mutex, OnceLock},
};

/// What counts a file's tokens: nothing in a build without tokenizer files, where no
/// [`FileTokenizer`] is ever made.
#[cfg(feature = "tokenizer-files")]
type Counter = tokenizers::Tokenizer;
#[cfg(not(feature = "tokenizer-files"))]
enum Counter {}

/// A tokenizer loaded from a file.
pub struct FileTokenizer {
    /// The path as the request gave it (reports name it).
    pub path: String,
    tokenizer: Counter,
    /// What the chat template of the `tokenizer_config.json` beside it adds, when there is one.
    pub framing: Option<Framing>,
}

impl fmt::Debug for FileTokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileTokenizer")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl PartialEq for FileTokenizer {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other) || self.path == other.path
    }
}

impl Eq for FileTokenizer {}

impl FileTokenizer {
    /// The tokens of rendered chat text: special tokens written in it count as themselves.
    #[cfg(feature = "tokenizer-files")]
    fn count_rendered(&self, text: &str) -> usize {
        self.count(text)
    }

    /// The tokens of `text`, without special tokens (no begin-of-text marker).
    #[cfg(feature = "tokenizer-files")]
    pub fn count(&self, text: &str) -> usize {
        match self.tokenizer.encode_fast(text, false) {
            Ok(encoding) => encoding.len(),
            // A text the model cannot encode (none is known: byte-level and byte-fallback
            // vocabularies encode any text) costs its bytes, an upper bound.
            Err(_) => text.len(),
        }
    }

    /// The tokens of `text` (never called: no file is loaded in this build).
    #[cfg(not(feature = "tokenizer-files"))]
    pub fn count(&self, _text: &str) -> usize {
        match self.tokenizer {}
    }
}

/// The tokenizer at `path` (a `tokenizer.json` or a folder holding one), loaded on first use
/// and shared by every call after it. Errors are `invalid_request` at `key` naming the path
/// and what is wrong.
#[cfg(feature = "tokenizer-files")]
pub fn load(path: &str, key: &str) -> Result<&'static FileTokenizer, Error> {
    static LOADED: OnceLock<Mutex<HashMap<PathBuf, &'static FileTokenizer>>> = OnceLock::new();
    let given = Path::new(path);
    let file = if given.is_dir() {
        given.join("tokenizer.json")
    } else {
        given.to_path_buf()
    };
    let loaded = LOADED.get_or_init(Default::default);
    if let Some(t) = loaded.lock().unwrap_or_else(|e| e.into_inner()).get(&file) {
        return Ok(t);
    }
    let fail = |what: String| Error::invalid_request(what, key);
    if !given.exists() {
        return Err(fail(format!(
            "tokenizer file {path:?}: no such file or folder"
        )));
    }
    if !file.is_file() {
        return Err(fail(format!(
            "tokenizer folder {path:?} holds no tokenizer.json"
        )));
    }
    let bytes = std::fs::read(&file)
        .map_err(|e| fail(format!("tokenizer file {:?}: {e}", file.display())))?;
    let tokenizer = tokenizers::Tokenizer::from_bytes(&bytes).map_err(|e| {
        fail(format!(
            "{:?} is not a Hugging Face tokenizer.json: {e}",
            file.display()
        ))
    })?;
    let mut loading = FileTokenizer {
        path: path.to_owned(),
        tokenizer,
        framing: None,
    };
    let config = file.with_file_name("tokenizer_config.json");
    if config.is_file() {
        loading.framing = framing_of(&config, &loading)
            .map_err(|what| fail(format!("tokenizer config {:?}: {what}", config.display())))?;
    }
    let mut loaded = loaded.lock().unwrap_or_else(|e| e.into_inner());
    // Another thread may have loaded it meanwhile: keep one.
    let t = *loaded
        .entry(file)
        .or_insert_with(|| Box::leak(Box::new(loading)));
    Ok(t)
}

/// The framing of the chat template in `config`, if it has one (a string, or the `default` of a
/// list of named templates).
#[cfg(feature = "tokenizer-files")]
fn framing_of(config: &Path, tokenizer: &FileTokenizer) -> Result<Option<Framing>, String> {
    let text = std::fs::read_to_string(config).map_err(|e| e.to_string())?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let Some(object) = value.as_object() else {
        return Err("not a JSON object".into());
    };
    let template = match object.get("chat_template") {
        None | Some(serde_json::Value::Null) => return Ok(None),
        Some(serde_json::Value::String(t)) => t.as_str(),
        Some(serde_json::Value::Array(named)) => named
            .iter()
            .find(|t| t["name"] == "default")
            .and_then(|t| t["template"].as_str())
            .ok_or("chat_template is a list without a \"default\" template")?,
        Some(_) => return Err("chat_template is neither a string nor a list".into()),
    };
    crate::chat_template::measure(template, object, |t| tokenizer.count_rendered(t)).map(Some)
}

#[cfg(all(test, feature = "tokenizer-files"))]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_path_and_the_key() {
        let e = load("/no/such/tokenizer.json", "tokenizer.file").unwrap_err();
        assert_eq!(e.path.as_deref(), Some("tokenizer.file"));
        assert!(
            e.message.contains("/no/such/tokenizer.json"),
            "{}",
            e.message
        );
        let dir = std::env::temp_dir().join(format!("ankita-tok-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = load(dir.to_str().unwrap(), "tokenizer.file").unwrap_err();
        assert!(
            e.message.contains("holds no tokenizer.json"),
            "{}",
            e.message
        );
        let bad = dir.join("tokenizer.json");
        std::fs::write(&bad, "{\"not\": \"a tokenizer\"}").unwrap();
        let e = load(bad.to_str().unwrap(), "tokenizer.file").unwrap_err();
        assert!(
            e.message.contains("is not a Hugging Face tokenizer.json"),
            "{}",
            e.message
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_small_tokenizer_counts_and_is_loaded_once() {
        // A word-level vocabulary written here: "hello world" is 2 tokens, an unknown word 1.
        let json = r#"{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
            "normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,
            "decoder":null,"model":{"type":"WordLevel","vocab":{"hello":0,"world":1,"[UNK]":2},
            "unk_token":"[UNK]"}}"#;
        let dir = std::env::temp_dir().join(format!("ankita-tok-ok-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("tokenizer.json"), json).unwrap();
        let t = load(dir.to_str().unwrap(), "tokenizer.file").unwrap();
        assert_eq!(t.count("hello world"), 2);
        assert_eq!(t.count("hello there world"), 3);
        let again = load(dir.join("tokenizer.json").to_str().unwrap(), "k").unwrap();
        assert!(std::ptr::eq(t, again));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

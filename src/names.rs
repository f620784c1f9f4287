//! How a model name is read before any table is consulted: the image rule
//! ([`crate::profiles::models`]) and the tokenizer ([`crate::tokens::for_model`]) look up the
//! same bare name.
//!
//! Frameworks pass their own spelling of a model through, so a name is stripped of:
//!
//! 1. case and surrounding white space;
//! 2. an OpenAI fine-tune's `ft:` (`ft:gpt-4o-mini-2024-07-18:org::id`);
//! 3. everything up to the last `/`: provider prefixes and routes (`openai/`, `azure/`,
//!    `openrouter/anthropic/`, `vertex_ai/`, `bedrock/converse/`, `ollama/`, `groq/`,
//!    `together_ai/meta-llama/`, `fireworks_ai/accounts/fireworks/models/`, Hugging Face's
//!    `Qwen/`, a Bedrock ARN's `…:inference-profile/`);
//! 4. a host's `databricks-` or `openai-` (`databricks-claude-sonnet-4`, `openai-gpt-4o`), and
//!    Bedrock's region and vendor segments ending in `.` (`us.anthropic.claude-…-v1:0`,
//!    `meta.llama3-1-70b-instruct-v1:0`, `apac.amazon.nova-pro-v1:0`): the leading
//!    `.`-separated words that are a known region or vendor (the vendor is kept aside:
//!    `deepseek.v3.2` names no family but its vendor's);
//! 5. a trailing `@` tag: `@2025` and `@2026` select that year's OpenAI documentation where the
//!    two disagree (none: the current one), and Vertex AI's version tags (an 8-digit date as in
//!    `claude-3-5-sonnet@20240620`, `@001`, `@default`, `@latest`) are dropped. Any other tag
//!    leaves the name unread.
//!
//! Suffixes (dates, sizes, `-instruct`, Ollama's `:8b` tags, Bedrock's `-v1:0`) are left in
//! place: each table matches a family at the start of the bare name (open-weight families also
//! after a separator: `meta-llama-3.1-8b`), so suffixes keep their family.
//!
//! ```
//! use ankita::names::{read, Edition};
//! let name = read("bedrock/us.anthropic.claude-3-5-sonnet-20240620-v1:0").unwrap();
//! assert_eq!(name.base, "claude-3-5-sonnet-20240620-v1:0");
//! let name = read("openrouter/openai/gpt-5-mini@2025").unwrap();
//! assert_eq!((name.base.as_str(), name.edition), ("gpt-5-mini", Edition::Y2025));
//! assert!(read("gpt-4o@someday").is_none());
//! ```

/// Which edition of OpenAI's documentation a name selects (its `@` tag).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edition {
    /// The current documentation (no tag, or `@2026`).
    Current,
    /// The 2025 documentation (`@2025`).
    Y2025,
}

/// A model name without prefixes, routes and tag (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// The bare name, in lower case.
    pub base: String,
    pub edition: Edition,
    /// The Bedrock vendor word dropped from the name (`deepseek` of `deepseek.v3.2`).
    pub vendor: Option<String>,
}

/// Bedrock's leading `.`-separated words: regions of cross-region inference profiles and the
/// model vendors of its ids.
const BEDROCK_WORDS: &[&str] = &[
    "us",
    "eu",
    "apac",
    "global",
    "us-gov",
    "jp",
    "au",
    "ca",
    "anthropic",
    "meta",
    "mistral",
    "amazon",
    "cohere",
    "ai21",
    "deepseek",
    "openai",
    "qwen",
    "google",
    "writer",
    "moonshot",
    "moonshotai",
    "minimax",
    "nvidia",
    "twelvelabs",
    "stability",
    "luma",
    "xai",
    "zai",
];

/// Bedrock's region words (the others of [`BEDROCK_WORDS`] are vendors).
const REGIONS: &[&str] = &["us", "eu", "apac", "global", "us-gov", "jp", "au", "ca"];

/// Reads `model` (see the module docs); `None` when its `@` tag is none of those known.
pub fn read(model: &str) -> Option<Name> {
    let lower = model.trim().to_ascii_lowercase();
    let name = lower.strip_prefix("ft:").unwrap_or(&lower);
    let mut name = name.rsplit('/').next().unwrap_or("");
    // Databricks and others serve a vendor's models as `databricks-<model>`, `openai-<model>`.
    for host in ["databricks-", "openai-"] {
        name = name.strip_prefix(host).unwrap_or(name);
    }
    let mut vendor = None;
    while let Some((word, rest)) = name.split_once('.') {
        if !BEDROCK_WORDS.contains(&word) || rest.is_empty() {
            break;
        }
        if !REGIONS.contains(&word) {
            vendor = Some(word.to_owned());
        }
        name = rest;
    }
    let (base, edition) = match name.rsplit_once('@') {
        None => (name, Edition::Current),
        Some((base, "2025")) => (base, Edition::Y2025),
        Some((base, "2026")) => (base, Edition::Current),
        // Vertex AI's versions: a date, `@001`, `@default`, `@latest`.
        Some((base, "default" | "latest")) => (base, Edition::Current),
        Some((base, tag))
            if matches!(tag.len(), 3 | 8) && tag.bytes().all(|b| b.is_ascii_digit()) =>
        {
            (base, Edition::Current)
        }
        Some(_) => return None,
    };
    Some(Name {
        base: base.to_owned(),
        edition,
        vendor,
    })
}

/// Whether `name` is `family` or starts with it followed by a separator (`-`, `:`, `_`): a
/// dated or variant suffix keeps the family, a longer family (`gpt-4o-mini` for `gpt-4o`) is
/// another one. A `.` does not separate (`gpt-5.3` is not `gpt-5`).
pub fn is_family(name: &str, family: &str) -> bool {
    name.strip_prefix(family)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', ':', '_']))
}

/// Whether `word` occurs in `name` at its start or after a separator (`-`, `_`, `.`, `:`),
/// for open-weight families that hosts prefix with their own words (`meta-llama-3.1-8b`,
/// `hermes-3-llama-3.1-405b`, `open-mistral-nemo`).
pub fn has_word(name: &str, word: &str) -> bool {
    name.match_indices(word)
        .any(|(i, _)| i == 0 || matches!(name.as_bytes()[i - 1], b'-' | b'_' | b'.' | b':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(model: &str) -> String {
        read(model).expect(model).base
    }

    #[test]
    fn prefixes_routes_and_tags_go() {
        for (model, want) in [
            ("GPT-4o ", "gpt-4o"),
            ("openai/gpt-4o-2024-08-06", "gpt-4o-2024-08-06"),
            ("azure/gpt-35-turbo", "gpt-35-turbo"),
            (
                "openrouter/anthropic/claude-3.5-sonnet",
                "claude-3.5-sonnet",
            ),
            (
                "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0",
                "claude-3-5-sonnet-20240620-v1:0",
            ),
            (
                "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
                "claude-3-7-sonnet-20250219-v1:0",
            ),
            (
                "meta.llama3-1-70b-instruct-v1:0",
                "llama3-1-70b-instruct-v1:0",
            ),
            ("apac.amazon.nova-pro-v1:0", "nova-pro-v1:0"),
            ("vertex_ai/claude-3-5-sonnet@20240620", "claude-3-5-sonnet"),
            ("ollama/llama3.1:8b", "llama3.1:8b"),
            (
                "ft:gpt-4o-mini-2024-07-18:org::abc",
                "gpt-4o-mini-2024-07-18:org::abc",
            ),
            (
                "fireworks_ai/accounts/fireworks/models/llama-v3p1-70b-instruct",
                "llama-v3p1-70b-instruct",
            ),
            ("qwen2.5-vl-7b", "qwen2.5-vl-7b"),
            ("gpt-4.1", "gpt-4.1"),
        ] {
            assert_eq!(base(model), want, "{model}");
        }
        assert_eq!(read("gpt-5-mini@2025").unwrap().edition, Edition::Y2025);
        assert_eq!(read("gpt-5-mini@2026").unwrap().edition, Edition::Current);
        assert_eq!(read("gpt-4o@2024"), None);
    }

    #[test]
    fn families_and_words() {
        assert!(is_family("gpt-4o-2024-08-06", "gpt-4o"));
        assert!(!is_family("gpt-4o-mini", "gpt-4o-m"));
        assert!(!is_family("gpt-5.3", "gpt-5"));
        assert!(has_word("meta-llama-3.1-8b", "llama"));
        assert!(has_word("llama3.1:8b", "llama"));
        assert!(!has_word("ollama-thing", "llama"));
    }
}

//! Which image profile (rule and parameters) a model name selects.
//!
//! The name is first read by [`crate::names::read`]: case, provider prefixes and routes
//! (`openai/`, `openrouter/anthropic/`, `Qwen/`), Bedrock's region and vendor (`us.anthropic.`)
//! and Vertex AI's `@date` go; `@2025` selects the 2025 OpenAI documentation where it differs
//! from the current one (an unknown `@` tag leaves the name unknown). Then:
//!
//! 1. Claude names are read by version, in either naming scheme (`claude-3-5-sonnet`,
//!    `claude-sonnet-4-5`, `claude-3.5-sonnet`, `claude-opus-4.7`): version 4.7 and later use the
//!    high-resolution tier, earlier ones the standard tier (Anthropic: "Claude Opus 4.7 and
//!    later"). Gemini names are read by version too: `gemini-1.5-*`, `gemini-2.*`, `gemini-3*`.
//! 2. Every other name is matched against the families of [`KNOWN_MODELS`]: the longest family
//!    that is the whole name or is followed by `-`, `:` or `_` wins, so that dated and variant
//!    suffixes (`gpt-4o-2024-08-06`, `qwen2-vl-72b-instruct`, `qwen2.5vl:7b`) select their
//!    family and `gpt-4o-mini` is not read as `gpt-4o`. A `.` does not separate (so `gpt-5.3`
//!    is not `gpt-5`).
//!
//! ```
//! use ankita::ImageProfile;
//! use ankita::profiles::{claude::Anthropic, openai::OpenAiPatch};
//! assert_eq!(
//!     ImageProfile::from_model("anthropic/claude-opus-4-7").unwrap(),
//!     ImageProfile::Anthropic(Anthropic::high_res())
//! );
//! assert_eq!(
//!     ImageProfile::from_model("gpt-5-mini@2025").unwrap(),
//!     ImageProfile::OpenAiPatch(OpenAiPatch::gpt_5_mini_2025())
//! );
//! ```

use super::claude::Anthropic;
use super::gemini::Gemini3;
use super::openai::{OpenAiPatch, OpenAiTile};
use super::qwen::QwenVl;
use super::ImageProfile;
use crate::error::Error;
use crate::names::{self, Edition, Name};

/// One model family: its name (a prefix, see the module docs), its profile under the current
/// documentation, and the profile of the 2025 documentation where that differs.
struct Family {
    name: &'static str,
    current: ImageProfile,
    y2025: Option<ImageProfile>,
}

const fn family(name: &'static str, current: ImageProfile) -> Family {
    Family {
        name,
        current,
        y2025: None,
    }
}

const fn family_2025(name: &'static str, current: ImageProfile, y2025: ImageProfile) -> Family {
    Family {
        name,
        current,
        y2025: Some(y2025),
    }
}

const fn tile(t: OpenAiTile) -> ImageProfile {
    ImageProfile::OpenAi(t)
}

const fn patch(p: OpenAiPatch) -> ImageProfile {
    ImageProfile::OpenAiPatch(p)
}

const FAMILIES: &[Family] = &[
    family("gpt-4o", tile(OpenAiTile::gpt_4o())),
    family("chatgpt-4o-latest", tile(OpenAiTile::gpt_4o())),
    family("gpt-4o-mini", tile(OpenAiTile::gpt_4o_mini())),
    family("gpt-4.1", tile(OpenAiTile::gpt_4o())),
    family("gpt-4.5", tile(OpenAiTile::gpt_4o())),
    family("gpt-4-turbo", tile(OpenAiTile::gpt_4o())),
    family("gpt-5", tile(OpenAiTile::gpt_5())),
    family("gpt-5-chat-latest", tile(OpenAiTile::gpt_5())),
    family("gpt-5.1", tile(OpenAiTile::gpt_5())),
    family("o1", tile(OpenAiTile::o_series())),
    family("o1-pro", tile(OpenAiTile::o_series())),
    family("o3", tile(OpenAiTile::o_series())),
    family("computer-use-preview", tile(OpenAiTile::computer_use())),
    family_2025(
        "gpt-4.1-mini",
        patch(OpenAiPatch::gpt_4_1_mini()),
        patch(OpenAiPatch::gpt_4_1_mini_2025()),
    ),
    family("gpt-4.1-nano", patch(OpenAiPatch::gpt_4_1_nano())),
    family("o4-mini", patch(OpenAiPatch::o4_mini())),
    family_2025(
        "gpt-5-mini",
        patch(OpenAiPatch::gpt_5_mini()),
        patch(OpenAiPatch::gpt_5_mini_2025()),
    ),
    family_2025(
        "gpt-5-nano",
        patch(OpenAiPatch::gpt_5_nano()),
        patch(OpenAiPatch::gpt_5_nano_2025()),
    ),
    family("gpt-5.2", patch(OpenAiPatch::gpt_5_2())),
    family("gpt-5.4", patch(OpenAiPatch::gpt_5_4())),
    family("gpt-5.5", patch(OpenAiPatch::gpt_5_4())),
    family("gpt-5.6", patch(OpenAiPatch::gpt_5_4())),
    family("qwen2-vl", ImageProfile::QwenVl(QwenVl::model_default())),
    family("qwen2.5-vl", ImageProfile::QwenVl(QwenVl::model_default())),
    family("qwen2.5vl", ImageProfile::QwenVl(QwenVl::model_default())),
    family("pixtral-12b", ImageProfile::Pixtral),
];

/// Every model family [`ImageProfile::from_model`] knows, as listed in its error message.
///
/// Each entry is a name `from_model` accepts. Claude and Gemini entries are examples of
/// version-read names (any Claude or Gemini 1.5 / 2.x / 3.x version is accepted); `@2025`
/// entries select the 2025 OpenAI documentation where it differs from the current one.
pub const KNOWN_MODELS: &[&str] = &[
    "gpt-4o",
    "chatgpt-4o-latest",
    "gpt-4o-mini",
    "gpt-4.1",
    "gpt-4.5",
    "gpt-4-turbo",
    "gpt-5",
    "gpt-5-chat-latest",
    "gpt-5.1",
    "o1",
    "o1-pro",
    "o3",
    "computer-use-preview",
    "gpt-4.1-mini",
    "gpt-4.1-mini@2025",
    "gpt-4.1-nano",
    "o4-mini",
    "gpt-5-mini",
    "gpt-5-mini@2025",
    "gpt-5-nano",
    "gpt-5-nano@2025",
    "gpt-5.2",
    "gpt-5.4",
    "gpt-5.5",
    "gpt-5.6",
    "claude-3-haiku",
    "claude-3-opus",
    "claude-3-5-sonnet",
    "claude-3-5-haiku",
    "claude-3-7-sonnet",
    "claude-sonnet-4",
    "claude-opus-4",
    "claude-opus-4-1",
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-opus-4-5",
    "claude-opus-4-7",
    "gemini-1.5",
    "gemini-2.0",
    "gemini-2.5",
    "gemini-3",
    "qwen2-vl",
    "qwen2.5-vl",
    "qwen2.5vl",
    "pixtral-12b",
];

/// The profile for `model`, or an `invalid_request` error at `model` listing
/// [`KNOWN_MODELS`].
pub fn profile_for_model(model: &str) -> Result<ImageProfile, Error> {
    resolve(model).ok_or_else(|| {
        Error::invalid_request(
            format!(
                "unknown model {model:?} for image pricing; known models: {} (a provider \
                 prefix such as \"openai/\" and a dated or variant suffix such as \
                 \"-2024-08-06\" are allowed; any Claude version and Gemini 1.5, 2.x and 3.x \
                 are read by version)",
                KNOWN_MODELS.join(", ")
            ),
            "model",
        )
    })
}

fn resolve(model: &str) -> Option<ImageProfile> {
    image_rule(&names::read(model)?)
}

/// The image profile of a name already read ([`crate::names::read`]), if a family of the
/// image tables claims it.
pub fn image_rule(name: &Name) -> Option<ImageProfile> {
    let (name, edition) = (name.base.as_str(), name.edition);
    if let Some(rest) = name.strip_prefix("claude-") {
        let version = read_version(rest)?;
        let tier = if version >= (4, 7) {
            Anthropic::high_res()
        } else {
            Anthropic::standard()
        };
        return Some(ImageProfile::Anthropic(tier));
    }
    if let Some(rest) = name.strip_prefix("gemini-") {
        return match read_version(rest.split('-').next()?)? {
            (1, 5) => Some(ImageProfile::Gemini15),
            (2, _) => Some(ImageProfile::Gemini),
            (3, _) => Some(ImageProfile::Gemini3(Gemini3::default())),
            _ => None,
        };
    }
    let family = FAMILIES
        .iter()
        .filter(|f| names::is_family(name, f.name))
        .max_by_key(|f| f.name.len())?;
    Some(match (edition, family.y2025) {
        (Edition::Y2025, Some(y2025)) => y2025,
        _ => family.current,
    })
}

/// The version of a Claude name without its `claude-` (`sonnet-4-5-20250929` is 4.5).
pub(crate) fn claude_version(rest: &str) -> Option<(u32, u32)> {
    read_version(rest)
}

/// The first `major[.minor]` or `major-minor` among the `-`-separated words of a Claude or
/// Gemini name. Words of more than two digits are dates or build numbers, not versions.
fn read_version(rest: &str) -> Option<(u32, u32)> {
    let small = |w: &str| -> Option<u32> {
        if (1..=2).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit()) {
            w.parse().ok()
        } else {
            None
        }
    };
    let words: Vec<&str> = rest.split('-').collect();
    for (i, word) in words.iter().enumerate() {
        if let Some((major, minor)) = word.split_once('.') {
            if let (Some(major), Some(minor)) = (small(major), small(minor)) {
                return Some((major, minor));
            }
        } else if let Some(major) = small(word) {
            let minor = words.get(i + 1).and_then(|w| small(w)).unwrap_or(0);
            return Some((major, minor));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_in_both_claude_schemes() {
        assert_eq!(read_version("3-5-sonnet-20241022"), Some((3, 5)));
        assert_eq!(read_version("sonnet-4-20250514"), Some((4, 0)));
        assert_eq!(read_version("opus-4-1-20250805"), Some((4, 1)));
        assert_eq!(read_version("3.5-sonnet"), Some((3, 5)));
        assert_eq!(read_version("opus-4.7"), Some((4, 7)));
        assert_eq!(read_version("3-haiku-20240307"), Some((3, 0)));
        assert_eq!(read_version("instant"), None);
    }

    #[test]
    fn every_known_model_resolves() {
        for name in KNOWN_MODELS {
            assert!(resolve(name).is_some(), "{name}");
        }
    }

    #[test]
    fn every_family_is_listed() {
        for f in FAMILIES {
            assert!(KNOWN_MODELS.contains(&f.name), "{}", f.name);
            if f.y2025.is_some() {
                let aliased = format!("{}@2025", f.name);
                assert!(KNOWN_MODELS.contains(&aliased.as_str()), "{aliased}");
            }
        }
    }
}

//! Context windows by model: a request with `model` and neither `context_tokens` nor
//! `max_bytes` takes its window and its default output reserve (`max_output_tokens` unless the
//! request gives one) from this table.
//!
//! Entries are the families whose window the model's vendor serves the same wherever the
//! model is reached (its own API, Azure, Bedrock, Vertex AI, OpenRouter): OpenAI, Anthropic,
//! Google's Gemini and DeepSeek's API. Open-weight families (Llama, Qwen, Gemma, Mistral's open
//! models, …) have no entry: the window they run with is the host's or the local runtime's
//! (Ollama's `num_ctx`, llama.cpp's `-c`), not the model's, so a request naming one keeps
//! today's behaviour (only `max_messages` limits the history) and a `no_context_window`
//! warning says so.
//!
//! **Output reserve.** The model's maximum output, at most a quarter of the window, except
//! where the vendor caps the input below the window (GPT-5: 272,000 input tokens of 400,000):
//! then the window less that cap. A caller that sends a larger `max_tokens` gives
//! `max_output_tokens`.
//!
//! **Sources** (window / maximum output; `tests/model_names.rs` checks every entry against
//! LiteLLM's map, below):
//! - OpenAI's model pages (platform.openai.com/docs/models): gpt-3.5-turbo-0125 16,385 / 4,096;
//!   gpt-4 8,192 / 8,192; gpt-4-32k 32,768 / 8,192; gpt-4-turbo 128,000 / 4,096; gpt-4o,
//!   gpt-4o-mini, chatgpt-4o-latest, gpt-4.5, gpt-5-chat-latest 128,000 / 16,384; gpt-4.1 (mini,
//!   nano) 1,047,576 / 32,768; gpt-5 (mini, nano), 5.1, 5.2 400,000 / 128,000 with 272,000
//!   input; o1, o1-pro, o3, o3-pro, o3-mini, o4-mini 200,000 / 100,000; o1-mini 128,000 /
//!   65,536.
//! - Anthropic's models overview (docs.anthropic.com/en/docs/about-claude/models): Claude 3.x
//!   and 4.0–4.5 200,000; output 4,096 (3 Haiku, 3 Opus), 8,192 (3.5 Sonnet, 3.5 Haiku), 32,000
//!   (Opus 4, 4.1), 64,000 (3.7 Sonnet, Sonnet 4, 4.5, Haiku 4.5, Opus 4.5).
//! - Google's Gemini models page (ai.google.dev/gemini-api/docs/models): 1.5 Pro 2,097,152 /
//!   8,192; 1.5 Flash, 2.0 Flash (Lite) 1,048,576 / 8,192; 2.5 and 3.x 1,048,576 / 65,536.
//! - DeepSeek's API docs (api-docs.deepseek.com): deepseek-chat 131,072 / 8,192,
//!   deepseek-reasoner 131,072 / 65,536.
//! - Where the model's version is newer than those pages, or hosts disagree, the smallest window
//!   LiteLLM's public model map (the `litellm` 1.110.2 package, vendored as
//!   tests/fixtures/models/litellm_chat_models.tsv) lists for the name on any host: gpt-5.4,
//!   5.5 and 5.6 400,000 with 272,000 input (the map lists up to 1,050,000 on OpenAI's API);
//!   Claude 4.6 and later 200,000 / 128,000 (1,000,000 on Anthropic's API, 200,000 elsewhere);
//!   gpt-3.5-turbo and Azure's gpt-35-turbo 4,096 (the first versions; 0125, 1106 and -16k
//!   16,385).
//! - Hosts that serve models with windows of their own (GitHub Copilot, Snowflake, the ChatGPT
//!   subscription route) and variants named by another word (`-audio`, `-tts`, `-image`,
//!   `-instruct`, `:thinking`, a `-mini` without an entry) get no entry.
//!
//! `tests/model_names.rs` checks every name of that map the table claims: the history the
//! table allows (window less reserve) is never more than the map's `max_input_tokens`.

use crate::names;

/// A model's context window and the output reserve taken when the request gives none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub context_tokens: u64,
    pub output_reserve: u64,
}

const fn window(context: u64, max_output: u64) -> Window {
    let quarter = context / 4;
    Window {
        context_tokens: context,
        output_reserve: if max_output < quarter {
            max_output
        } else {
            quarter
        },
    }
}

/// A window whose input the vendor caps below it: the reserve is the rest.
const fn capped(context: u64, input: u64) -> Window {
    Window {
        context_tokens: context,
        output_reserve: context - input,
    }
}

/// Families, matched on the bare name ([`names::read`]): the longest family that is the whole
/// name or is followed by suffix words that do not change the model ([`plain_suffix`]).
const FAMILIES: &[(&str, Window)] = &[
    // The first gpt-3.5-turbo (0301, 0613; Azure's gpt-35-turbo) had 4,096 tokens.
    ("gpt-3.5-turbo", window(4_096, 4_096)),
    ("gpt-35-turbo", window(4_096, 4_096)),
    ("gpt-3.5-turbo-0125", window(16_385, 4_096)),
    ("gpt-3.5-turbo-1106", window(16_385, 4_096)),
    ("gpt-3.5-turbo-16k", window(16_385, 4_096)),
    ("gpt-35-turbo-16k", window(16_385, 4_096)),
    ("gpt-4", window(8_192, 8_192)),
    ("gpt-4-32k", window(32_768, 8_192)),
    ("gpt-4-turbo", window(128_000, 4_096)),
    ("gpt-4-1106-preview", window(128_000, 4_096)),
    ("gpt-4-0125-preview", window(128_000, 4_096)),
    ("gpt-4o", window(128_000, 16_384)),
    ("gpt-4o-mini", window(128_000, 16_384)),
    ("chatgpt-4o-latest", window(128_000, 16_384)),
    ("gpt-4.1", window(1_047_576, 32_768)),
    ("gpt-4.1-mini", window(1_047_576, 32_768)),
    ("gpt-4.1-nano", window(1_047_576, 32_768)),
    ("gpt-4.5-preview", window(128_000, 16_384)),
    ("gpt-5", capped(400_000, 272_000)),
    ("gpt-5-mini", capped(400_000, 272_000)),
    ("gpt-5-nano", capped(400_000, 272_000)),
    ("gpt-5-chat", window(128_000, 16_384)),
    ("gpt-5.1", capped(400_000, 272_000)),
    ("gpt-5.1-chat", window(128_000, 16_384)),
    ("gpt-5.2", capped(400_000, 272_000)),
    ("gpt-5.2-chat", window(128_000, 16_384)),
    // Newer than OpenAI's pages as read: the smallest input any host of the map lists.
    ("gpt-5.4", capped(400_000, 272_000)),
    ("gpt-5.5", capped(400_000, 272_000)),
    ("gpt-5.6", capped(400_000, 272_000)),
    ("o1", window(200_000, 100_000)),
    ("o1-pro", window(200_000, 100_000)),
    ("o1-mini", window(128_000, 65_536)),
    ("o3", window(200_000, 100_000)),
    ("o3-pro", window(200_000, 100_000)),
    ("o3-mini", window(200_000, 100_000)),
    ("o4-mini", window(200_000, 100_000)),
    ("gemini-1.5-pro", window(2_097_152, 8_192)),
    ("gemini-1.5-flash", window(1_048_576, 8_192)),
    ("gemini-2.0-flash", window(1_048_576, 8_192)),
    ("gemini-2.0-flash-lite", window(1_048_576, 8_192)),
    ("gemini-2.5-pro", window(1_048_576, 65_536)),
    ("gemini-2.5-flash", window(1_048_576, 65_536)),
    ("gemini-2.5-flash-lite", window(1_048_576, 65_536)),
    ("gemini-3-pro", window(1_048_576, 65_536)),
    ("gemini-3-flash", window(1_048_576, 65_536)),
    ("gemini-3.1-pro", window(1_048_576, 65_536)),
    ("gemini-3.1-flash-lite", window(1_048_576, 65_536)),
    ("deepseek-chat", window(131_072, 8_192)),
    ("deepseek-reasoner", window(131_072, 65_536)),
];

/// Hosts that serve models with windows of their own (GitHub Copilot's, Snowflake's and the
/// ChatGPT subscription's are smaller than the vendors'): their routes get no entry.
const OWN_WINDOW_HOSTS: &[&str] = &["github_copilot/", "snowflake/", "chatgpt/"];

/// Whether the words after a family leave the model as it is: dates and numbers, `latest`,
/// `preview`, `exp`, Bedrock's `v1:0`. Any other word (`mini`, `audio`, `tts`, `image`,
/// `instruct`, `fast`, OpenRouter's `:thinking`) may name a model with another window.
fn plain_suffix(rest: &str) -> bool {
    rest.is_empty()
        || rest
            .strip_prefix('-')
            .is_some_and(|rest| rest.split('-').all(|w| plain_word(w, &[])))
}

/// A word of [`plain_suffix`], or one of `more`.
fn plain_word(word: &str, more: &[&str]) -> bool {
    let digits = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
    let (w, tag) = word.split_once(':').unwrap_or((word, "0"));
    digits(tag)
        && (digits(w)
            || matches!(w, "latest" | "preview" | "exp")
            || more.contains(&w)
            || w.strip_prefix('v').is_some_and(digits))
}

/// The window of `model`, when the table knows it.
pub fn for_model(model: &str) -> Option<Window> {
    let lower = model.trim().to_ascii_lowercase();
    if OWN_WINDOW_HOSTS.iter().any(|h| lower.starts_with(h)) {
        return None;
    }
    let name = names::read(model)?;
    if let Some(rest) = name.base.strip_prefix("claude-") {
        return claude(rest);
    }
    FAMILIES
        .iter()
        .filter(|(family, _)| name.base.strip_prefix(family).is_some_and(plain_suffix))
        .max_by_key(|(family, _)| family.len())
        .map(|&(_, w)| w)
}

/// Claude by version, in either naming scheme: 200,000 tokens, and the output by model. Claude
/// 4.6 and later: 200,000 / 128,000 (Anthropic's API gives 1,000,000, other hosts of the map
/// 200,000; the table takes the smaller: give context_tokens for more).
fn claude(rest: &str) -> Option<Window> {
    let plain = rest.split('-').all(|w| {
        let version = w
            .split_once('.')
            .is_some_and(|(a, b)| plain_word(a, &[]) && plain_word(b, &[]));
        version || plain_word(w, &["opus", "sonnet", "haiku"])
    });
    if !plain {
        return None;
    }
    let version = crate::profiles::models::claude_version(rest)?;
    let tier = |t: &str| rest.split('-').any(|w| w == t);
    let max_output = match version {
        v if v >= (4, 6) => 128_000,
        (3, 0) => 4_096,
        (3, 5) => 8_192,
        (3, 7) => 64_000,
        (4, 0) | (4, 1) if tier("opus") => 32_000,
        (4, 0..=5) => 64_000,
        _ => return None,
    };
    Some(window(200_000, max_output))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserves_follow_the_rule() {
        assert_eq!(
            for_model("gpt-4o-2024-08-06"),
            Some(window(128_000, 16_384))
        );
        assert_eq!(for_model("gpt-4o").unwrap().output_reserve, 16_384);
        assert_eq!(for_model("gpt-4").unwrap().output_reserve, 2_048);
        assert_eq!(
            for_model("openai/gpt-5-mini").unwrap().output_reserve,
            128_000
        );
        assert_eq!(for_model("o3").unwrap().output_reserve, 50_000);
        let sonnet = for_model("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0").unwrap();
        assert_eq!(
            (sonnet.context_tokens, sonnet.output_reserve),
            (200_000, 50_000)
        );
        let opus = for_model("claude-opus-4-1").unwrap();
        assert_eq!(opus.output_reserve, 32_000);
        let haiku = for_model("claude-3-haiku-20240307").unwrap();
        assert_eq!(haiku.output_reserve, 4_096);
        assert_eq!(for_model("claude-opus-4-7").unwrap().output_reserve, 50_000);
        assert_eq!(
            for_model("anthropic/claude-3.5-sonnet")
                .unwrap()
                .output_reserve,
            8_192
        );
        assert_eq!(
            for_model("vertex_ai/gemini-3-pro-preview")
                .unwrap()
                .context_tokens,
            1_048_576
        );
        assert_eq!(
            for_model("gemini-2.5-flash-lite").unwrap().output_reserve,
            65_536
        );
        assert_eq!(
            for_model("gemini-2.5-flash-preview-09-2025")
                .unwrap()
                .context_tokens,
            1_048_576
        );
    }

    #[test]
    fn open_weight_and_unknown_models_have_no_entry() {
        for name in [
            "ollama/llama3.1:8b",
            "qwen2.5-7b-instruct",
            "gemma3",
            "house-model",
            "gpt-4o@2024",
            // Variants whose window differs from their family's, and hosts with their own.
            "gemini-2.5-pro-preview-tts",
            "gpt-3.5-turbo-instruct",
            "gpt-5.4-mini",
            "claude-3.7-sonnet:thinking",
            "github_copilot/gpt-4o",
        ] {
            assert_eq!(for_model(name), None, "{name}");
        }
    }
}

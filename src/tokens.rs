//! The unit text is measured in (DESIGN §2, docs/design.md "Tokens"): UTF-8 bytes, the
//! default, or the model's own tokens when its tokenizer is public (`o200k_base`,
//! `cl100k_base`: their published vocabularies built into the library and read on first use,
//! a hand-written pre-tokenizer (`split.rs`) and tiktoken's byte-pair merge (`vocab.rs`), a
//! linear backtracking encoder on pieces over 1 KB (`backtrack.rs`); tests hold the counts to
//! the `bpe-openai` crate's and to tiktoken-rs's). Gemini 2.0, 2.5 and 3 are counted with Gemma
//! 3's tokenizer, as Google's SDK counts them (`gemma.rs`, the `gemma3` feature). For models
//! whose tokenizer is not public (Claude, later Gemini) text is counted with `o200k_base` and
//! multiplied by a per-family safety factor: an estimate, and the report says so.

mod backtrack;
mod count;
#[cfg(feature = "gemma3")]
mod gemma;
#[cfg(test)]
mod long_tests;
mod split;
#[cfg(test)]
mod split_tests;
mod vocab;

use count::Counter;
use split::Pattern;

/// What text is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tokenizer {
    /// UTF-8 bytes; the budget is `context_tokens × bytes_per_token`.
    #[default]
    Bytes,
    /// GPT-4o, GPT-4.1, GPT-4.5, GPT-5.x, o1/o3/o4.
    O200kBase,
    /// GPT-4, GPT-3.5.
    Cl100kBase,
    /// Gemma 3's, which Google's SDK counts Gemini 2.0, 2.5 and 3 text with.
    #[cfg(feature = "gemma3")]
    Gemma3,
    /// A Hugging Face `tokenizer.json` read from disk (`tokenizer: {"file": PATH}`).
    File(&'static crate::tokenizer_file::FileTokenizer),
}

impl Tokenizer {
    /// The names `tokenizer` takes (Gemma 3 is chosen by a Gemini model's name).
    pub const NAMES: &'static [&'static str] = &["bytes", "o200k_base", "cl100k_base"];

    pub fn from_name(name: &str) -> Option<Tokenizer> {
        Some(match name {
            "bytes" => Tokenizer::Bytes,
            "o200k_base" => Tokenizer::O200kBase,
            "cl100k_base" => Tokenizer::Cl100kBase,
            _ => return None,
        })
    }

    /// The name (a file tokenizer's path as given).
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Bytes => "bytes",
            Tokenizer::O200kBase => "o200k_base",
            Tokenizer::Cl100kBase => "cl100k_base",
            #[cfg(feature = "gemma3")]
            Tokenizer::Gemma3 => "gemma3",
            Tokenizer::File(file) => &file.path,
        }
    }

    /// How many pieces the pre-tokenizer splits `text` into (1 for bytes): for benchmarks.
    #[doc(hidden)]
    pub fn piece_count(self, text: &str) -> usize {
        self.pattern()
            .map_or(1, |pattern| split::split(text, pattern).count())
    }

    fn pattern(self) -> Option<Pattern> {
        match self {
            Tokenizer::Bytes | Tokenizer::File(_) => None,
            #[cfg(feature = "gemma3")]
            Tokenizer::Gemma3 => None,
            Tokenizer::O200kBase => Some(Pattern::O200k),
            Tokenizer::Cl100kBase => Some(Pattern::Cl100k),
        }
    }

    fn bpe(self) -> Option<Counter> {
        self.pattern().map(Counter::new)
    }
}

/// Safety factor for Claude 3 and later, counted with `o200k_base`: the same texts measured on
/// both tokenizers came out 16% (English prose), 21% (math) and 30% (Python code) higher on
/// Claude 3.5 Sonnet than on GPT-4o (VentureBeat, "Hidden costs in AI deployment", May 2025),
/// and Anthropic documents that the tokenizer of its newer models produces up to 35% more
/// tokens for the same text than the one before. 1.35 covers both.
pub const CLAUDE_FACTOR: f64 = 1.35;

/// Safety factor for the Gemini models Gemma 3 does not count (Gemini 1.5, and 3.1 and later,
/// which Google's SDK counts with Gemma 4), counted with `o200k_base`. Google documents about 4
/// characters per token for its models; `o200k_base` measures 4.0–4.5 bytes per token on
/// English prose and JSON and ~3.6 on code, and Gemini's SentencePiece vocabulary splits code
/// and non-Latin scripts at least as finely. No side-by-side public measurement is as solid as Claude's: 1.25 is a
/// margin, not a measurement; `token_factor` overrides it.
pub const GEMINI_FACTOR: f64 = 1.25;

/// Safety factor for open-weight families whose tokenizers the library does not ship (Llama,
/// Qwen, DeepSeek, Gemma, …: byte-level BPE or SentencePiece vocabularies of 128k–262k tokens),
/// counted with `o200k_base`: a margin, as for Gemini; `tokenizer: {"file": …}` counts exactly.
pub const OPEN_WEIGHT_FACTOR: f64 = 1.25;

/// Safety factor for Mistral's families and for names no family claims, counted with
/// `o200k_base`: Mistral's older models and many others use 32k-token SentencePiece
/// vocabularies, which split text more finely than 100k+ vocabularies; the margin is Claude's.
pub const UNKNOWN_FACTOR: f64 = 1.35;

/// How a family's names are matched (after [`crate::names::read`]).
enum Match {
    /// The name starts with this (any suffix).
    Prefix(&'static str),
    /// This is a word of the name: at its start or after `-`, `_`, `.` or `:`.
    Word(&'static str),
}

/// How Gemini 2.0, 2.5 and 3 are counted: with Gemma 3's tokenizer, as Google's SDK
/// (python-genai, `_local_tokenizer_loader.py`) maps them; `o200k_base` × [`GEMINI_FACTOR`] in a
/// build without it.
#[cfg(feature = "gemma3")]
const GEMMA3: (Tokenizer, Option<f64>) = (Tokenizer::Gemma3, None);
#[cfg(not(feature = "gemma3"))]
const GEMMA3: (Tokenizer, Option<f64>) = (Tokenizer::O200kBase, Some(GEMINI_FACTOR));

/// Text families: the family's name, how names are matched, the tokenizer and the factor when
/// counts are an estimate. The first family that matches wins.
const TEXT_FAMILIES: &[(&str, Match, Tokenizer, Option<f64>)] = {
    use Match::{Prefix, Word};
    use Tokenizer::{Cl100kBase as CL, O200kBase as O};
    const C: Option<f64> = Some(CLAUDE_FACTOR);
    const G: Option<f64> = Some(GEMINI_FACTOR);
    const W: Option<f64> = Some(OPEN_WEIGHT_FACTOR);
    const M: Option<f64> = Some(UNKNOWN_FACTOR);
    &[
        ("gpt-4o", Prefix("gpt-4o"), O, None),
        ("gpt-4o", Prefix("chatgpt-4o"), O, None),
        ("gpt-4.1", Prefix("gpt-4.1"), O, None),
        ("gpt-4.5", Prefix("gpt-4.5"), O, None),
        ("gpt-5", Prefix("gpt-5"), O, None),
        ("gpt-5", Prefix("chatgpt-5"), O, None),
        ("gpt-5", Prefix("codex-"), O, None),
        ("gpt-5", Prefix("gpt-realtime"), O, None),
        ("gpt-5", Prefix("gpt-audio"), O, None),
        ("o-series", Prefix("o1"), O, None),
        ("o-series", Prefix("o3"), O, None),
        ("o-series", Prefix("o4"), O, None),
        ("gpt-oss", Prefix("gpt-oss"), O, None),
        ("computer-use", Prefix("computer-use"), O, None),
        ("gpt-4", Prefix("gpt-4"), CL, None),
        ("gpt-3.5", Prefix("gpt-3.5"), CL, None),
        ("gpt-3.5", Prefix("gpt-35"), CL, None),
        ("text-embedding", Prefix("text-embedding-ada-002"), CL, None),
        ("text-embedding", Prefix("text-embedding-3"), CL, None),
        // OpenAI's later names (gpt-6, …): o200k_base assumed, so an estimate.
        ("gpt", Prefix("gpt-"), O, Some(1.0)),
        ("claude", Word("claude"), O, C),
        // Google's SDK counts these with Gemma 3 (its `gemini-3-pro-preview` and
        // `gemini-3-flash-preview`; `gemini-3.1-…` and `gemini-3.5-…` with Gemma 4).
        ("gemini", Prefix("gemini-2.0-"), GEMMA3.0, GEMMA3.1),
        ("gemini", Prefix("gemini-2.5-"), GEMMA3.0, GEMMA3.1),
        ("gemini", Prefix("gemini-live-2.5-"), GEMMA3.0, GEMMA3.1),
        ("gemini", Prefix("gemini-3-"), GEMMA3.0, GEMMA3.1),
        ("gemini", Word("gemini"), O, G),
        ("gemma", Word("gemma"), O, W),
        ("llama", Word("llama"), O, W),
        ("llama", Word("codellama"), O, W),
        ("qwen", Word("qwen"), O, W),
        ("qwen", Prefix("qwq"), O, W),
        ("qwen", Prefix("qvq"), O, W),
        ("deepseek", Word("deepseek"), O, W),
        ("phi", Prefix("phi-"), O, W),
        ("phi", Prefix("phi3"), O, W),
        ("phi", Prefix("phi4"), O, W),
        ("command", Prefix("command"), O, W),
        ("grok", Prefix("grok"), O, W),
        ("kimi", Word("kimi"), O, W),
        ("kimi", Prefix("moonshot"), O, W),
        ("glm", Word("glm"), O, W),
        ("glm", Prefix("chatglm"), O, W),
        ("nova", Prefix("nova-"), O, W),
        ("titan", Prefix("titan-"), O, W),
        ("minimax", Word("minimax"), O, W),
        ("nemotron", Word("nemotron"), O, W),
        ("granite", Word("granite"), O, W),
        ("jamba", Word("jamba"), O, W),
        ("sonar", Prefix("sonar"), O, W),
        ("sonar", Prefix("pplx-"), O, W),
        ("doubao", Word("doubao"), O, W),
        ("ernie", Word("ernie"), O, W),
        ("hunyuan", Word("hunyuan"), O, W),
        ("mimo", Word("mimo"), O, W),
        ("yi", Prefix("yi-"), O, W),
        ("hermes", Word("hermes"), O, W),
        ("starcoder", Word("starcoder"), O, W),
        ("muse", Word("muse"), O, W),
        ("step", Prefix("step-"), O, W),
        ("seed", Word("seed"), O, W),
        ("internvl", Word("internvl"), O, W),
        ("internlm", Word("internlm"), O, W),
        ("sonar", Word("perplexity"), O, W),
        ("mistral", Word("mistral"), O, M),
        ("mistral", Word("mixtral"), O, M),
        ("mistral", Word("codestral"), O, M),
        ("mistral", Word("ministral"), O, M),
        ("mistral", Word("pixtral"), O, M),
        ("mistral", Word("magistral"), O, M),
        ("mistral", Word("devstral"), O, M),
        ("mistral", Word("voxtral"), O, M),
        ("mistral", Prefix("open-mistral"), O, M),
    ]
};

/// The tokenizer a model name selects, the factor when the count is an estimate, and the
/// family that claimed the name; `None` when no family does.
pub fn family_of(model: &str) -> Option<(&'static str, Tokenizer, Option<f64>)> {
    let name = crate::names::read(model)?;
    let find = |name: &str| {
        TEXT_FAMILIES
            .iter()
            .find(|(_, m, _, _)| match m {
                Match::Prefix(p) => name.starts_with(p),
                Match::Word(w) => crate::names::has_word(name, w),
            })
            .map(|&(family, _, tokenizer, factor)| (family, tokenizer, factor))
    };
    // A Bedrock id that does not repeat its vendor (`deepseek.v3.2`) is read with it; a route
    // that names a family (`gemini/deep-research-…`, `novita/deepseek/deepseek-r1/community`)
    // gives it when the last segment names none.
    find(&name.base)
        .or_else(|| find(&format!("{}-{}", name.vendor.as_deref()?, name.base)))
        .or_else(|| {
            let lower = model.trim().to_ascii_lowercase();
            let mut route = lower.split('/').rev().skip(1);
            route.find_map(|segment| find(segment).filter(|f| f.0 == segment))
        })
}

/// The names of the text families, each once, in table order.
pub fn family_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for (family, ..) in TEXT_FAMILIES {
        if !names.contains(family) {
            names.push(family);
        }
    }
    names
}

/// The tokenizer a model name selects, and the factor when the count is an estimate; `None`
/// when no family claims the name.
pub fn for_model(model: &str) -> Option<(Tokenizer, Option<f64>)> {
    family_of(model).map(|(_, tokenizer, factor)| (tokenizer, factor))
}

/// How one call measures text: bytes, or tokens of a tokenizer times a factor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measure {
    pub tokenizer: Tokenizer,
    /// Multiplies token counts (rounded up); 1 unless they estimate another tokenizer.
    pub factor: f64,
    /// The counts estimate a tokenizer that is not public (Claude, Gemini).
    pub estimate: bool,
}

impl Default for Measure {
    fn default() -> Self {
        Measure::BYTES
    }
}

impl Measure {
    pub const BYTES: Measure = Measure {
        tokenizer: Tokenizer::Bytes,
        factor: 1.0,
        estimate: false,
    };

    /// Exact counts of `tokenizer`.
    pub const fn exact(tokenizer: Tokenizer) -> Measure {
        Measure {
            tokenizer,
            factor: 1.0,
            estimate: false,
        }
    }

    /// Whether costs are tokens (otherwise bytes).
    pub fn in_tokens(&self) -> bool {
        self.tokenizer != Tokenizer::Bytes
    }

    /// `"exact"`, `"estimate"`, or `"bytes"` for the byte rule.
    pub fn accuracy(&self) -> &'static str {
        match (self.tokenizer, self.estimate) {
            (Tokenizer::Bytes, _) => "bytes",
            (_, false) => "exact",
            (_, true) => "estimate",
        }
    }

    fn scale(&self, count: usize) -> u64 {
        if self.factor == 1.0 {
            count as u64
        } else {
            (count as f64 * self.factor).ceil() as u64
        }
    }

    /// The cost of `text`: its UTF-8 length, or its tokens.
    pub fn text(&self, text: &str) -> u64 {
        if let Tokenizer::File(file) = self.tokenizer {
            return self.scale(file.count(text));
        }
        #[cfg(feature = "gemma3")]
        if self.tokenizer == Tokenizer::Gemma3 {
            return self.scale(gemma::gemma3().count(text));
        }
        match self.tokenizer.bpe() {
            None => text.len() as u64,
            Some(bpe) => self.scale(bpe.count(text)),
        }
    }

    /// The cost of `text` when it is at most `limit`; `None` otherwise, found without counting
    /// past the limit (the work is bounded by the limit, not by the text).
    pub fn text_within(&self, text: &str, limit: u64) -> Option<u64> {
        if let Tokenizer::File(_) = self.tokenizer {
            // A file's tokenizer counts whole texts (no bounded count): a text of more bytes
            // than the limit allows tokens is still counted in full.
            let cost = self.text(text);
            return (cost <= limit).then_some(cost);
        }
        #[cfg(feature = "gemma3")]
        if self.tokenizer == Tokenizer::Gemma3 {
            let raw = if self.factor == 1.0 {
                limit
            } else {
                (limit as f64 / self.factor).floor() as u64
            };
            let raw = usize::try_from(raw).unwrap_or(usize::MAX);
            let cost = self.scale(gemma::gemma3().count_till_limit(text, raw)?);
            return (cost <= limit).then_some(cost);
        }
        let Some(bpe) = self.tokenizer.bpe() else {
            return (text.len() as u64 <= limit).then_some(text.len() as u64);
        };
        // Every token is at least one byte: a text no longer than the limit fits whatever it
        // counts, and is counted in full.
        let raw_limit = if self.factor == 1.0 {
            limit
        } else {
            (limit as f64 / self.factor).floor() as u64
        };
        let raw_limit = usize::try_from(raw_limit).unwrap_or(usize::MAX);
        let count = bpe.count_till_limit(text, raw_limit)?;
        let cost = self.scale(count);
        (cost <= limit).then_some(cost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const O200K: Measure = Measure::exact(Tokenizer::O200kBase);

    #[test]
    fn models_select_their_tokenizer() {
        assert_eq!(for_model("gpt-4o-mini"), Some((Tokenizer::O200kBase, None)));
        assert_eq!(
            for_model("openai/gpt-5.1"),
            Some((Tokenizer::O200kBase, None))
        );
        assert_eq!(for_model("o3-mini"), Some((Tokenizer::O200kBase, None)));
        assert_eq!(
            for_model("gpt-4-turbo"),
            Some((Tokenizer::Cl100kBase, None))
        );
        assert_eq!(
            for_model("gpt-3.5-turbo"),
            Some((Tokenizer::Cl100kBase, None))
        );
        assert_eq!(
            for_model("claude-sonnet-4-5"),
            Some((Tokenizer::O200kBase, Some(CLAUDE_FACTOR)))
        );
        for model in [
            "gemini-2.5-flash",
            "gemini/gemini-2.0-flash-001",
            "vertex_ai/gemini-2.5-pro",
            "gemini-live-2.5-flash",
            "gemini-3-pro-preview",
            "gemini-3-flash-preview",
        ] {
            assert_eq!(for_model(model), Some(GEMMA3), "{model}");
        }
        for model in [
            "gemini-1.5-pro",
            "gemini-3.1-pro-preview",
            "gemini-3.5-flash",
        ] {
            assert_eq!(
                for_model(model),
                Some((Tokenizer::O200kBase, Some(GEMINI_FACTOR))),
                "{model}"
            );
        }
        assert_eq!(
            for_model("azure/gpt-35-turbo"),
            Some((Tokenizer::Cl100kBase, None))
        );
        assert_eq!(
            for_model("bedrock/us.anthropic.claude-3-5-sonnet-20240620-v1:0"),
            Some((Tokenizer::O200kBase, Some(CLAUDE_FACTOR)))
        );
        for (model, family) in [
            ("ollama/llama3.1:8b", "llama"),
            (
                "together_ai/meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo",
                "llama",
            ),
            ("meta.llama3-1-70b-instruct-v1:0", "llama"),
            ("qwen2.5-7b-instruct", "qwen"),
            ("mistral-large-latest", "mistral"),
            ("deepseek-chat", "deepseek"),
            ("gemma3:4b", "gemma"),
        ] {
            assert_eq!(family_of(model).map(|f| f.0), Some(family), "{model}");
        }
        assert_eq!(for_model("some-house-model"), None);
    }

    #[test]
    fn within_agrees_with_the_full_count() {
        let text = "The quick brown fox jumps over the lazy dog. ".repeat(40);
        let n = O200K.text(&text);
        assert_eq!(O200K.text_within(&text, n), Some(n));
        assert_eq!(O200K.text_within(&text, n - 1), None);
        let estimate = Measure {
            factor: 1.35,
            estimate: true,
            ..O200K
        };
        let e = estimate.text(&text);
        assert_eq!(e, (n as f64 * 1.35).ceil() as u64);
        assert_eq!(estimate.text_within(&text, e), Some(e));
        assert_eq!(estimate.text_within(&text, e - 1), None);
    }

    #[test]
    fn every_token_merges_into_itself() {
        // Byte-pair encoding of every token of both vocabularies is that one token: counting
        // a piece found in the vocabulary as one is what the encoding would count. Tokens are
        // up to 128 bytes: both merge loops run.
        for tokenizer in [Tokenizer::O200kBase, Tokenizer::Cl100kBase] {
            let vocab = count::vocab(tokenizer.pattern().expect("a tokenizer"));
            for t in 0..vocab.len() as u32 {
                let bytes = vocab.token(t);
                assert_eq!(vocab.rank(bytes), Some(t));
                assert_eq!(vocab.count(bytes), 1, "{} token {t}", tokenizer.name());
            }
        }
    }
}

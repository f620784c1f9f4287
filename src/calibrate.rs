//! The token factor set from the provider's own counts (`TrimSession::observe_usage`).
//!
//! Claude's and Gemini's tokenizers are not public: their text is counted with `o200k_base`
//! times a fixed margin ([`crate::tokens::CLAUDE_FACTOR`], …) wide enough for any text, so a
//! history trimmed to the window uses some three quarters of it. Every response reports the
//! input tokens the provider counted (`usage.input_tokens`, `usage_metadata.prompt_token_count`),
//! and an agent loop sees one per call: a [`Calibration`] pairs each with its own count of the
//! request that was sent and sets the factor from that evidence.
//!
//! What is compared: the provider counts the whole prompt (the system prompt, the messages and
//! their framing, the tool schemas, its own framing of the request). Ours, as the trim budgeted
//! it, is the returned history's cost (`report.cost_tokens`, system prompt and message framing
//! included) plus the tools' and the memory's tokens, all scaled by the factor, and the fixed
//! reserve `overhead_tokens`, not scaled. An observation implies the factor
//! `input_tokens / (ours without the reserve / factor)`: the factor at which our scaled count
//! alone equals the provider's, the provider's own framing included in it, so the reserve stays
//! a reserve (a safety margin) and never stands in for text the factor undercounts.
//!
//! The factor set: the largest implied factor observed (the 100th percentile: never below the
//! evidence, since a lower quantile is below some of it by design), times
//! `1 +` [`CALIBRATION_MARGIN`], rounded up to a thousandth. Only observations of requests that
//! took at least a quarter of the window ([`INFORMATIVE_SHARE`]) imply a factor: a smaller
//! request is mostly framing, and its ratio overstates the text's (a first call of a system
//! prompt and one short question comes out some 20% over). Until such an observation, the
//! fixed margin stays, raised only if a smaller request would not have fit under it. A
//! caller's `token_factor` is never replaced, nor are the counts of a public tokenizer.

use crate::error::{Error, ErrorCode};
use crate::tokens::Measure;

/// The margin over the largest implied factor: room for a request whose text counts higher
/// than any observed before it. In an agent loop one request is mostly the one before it plus
/// a few messages, so the ratio moves little from call to call: over the 200 calls of
/// `tests/calibration.rs` it spans 1.6–4.2%, but rises at most 0.65% over the largest before
/// it (Qwen3's tokenizer as the provider's; 0.16% with Llama 3's).
pub const CALIBRATION_MARGIN: f64 = 0.02;

/// The share of the window (`context_tokens − max_output_tokens`) a request must take, by the
/// provider's count, for its observation to imply a factor.
pub const INFORMATIVE_SHARE: f64 = 0.25;

/// The range of a factor, as `token_factor`'s: an observation implying one outside it is not
/// the usage of the request the session counted.
const FACTOR_RANGE: std::ops::RangeInclusive<f64> = 0.1..=10.0;

/// Where a trim's token factor comes from (`report.token_factor.source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FactorSource {
    /// The tokenizer's own counts: no factor applies (it is 1).
    #[default]
    Tokenizer,
    /// The model family's fixed safety margin (an estimate until the provider's counts are
    /// observed).
    FixedMargin,
    /// The request's `token_factor`.
    Caller,
    /// The provider's reported input tokens ([`Calibration`]).
    Observed,
}

impl FactorSource {
    /// How a request's factor came about: `token_factor` given, an estimate's margin, or the
    /// tokenizer's own counts (a tokenizer file's text counts are its own: only its framing is
    /// estimated).
    pub fn of(measure: &Measure, token_factor_given: bool) -> FactorSource {
        match measure.tokenizer {
            _ if token_factor_given => FactorSource::Caller,
            crate::tokens::Tokenizer::File(_) => FactorSource::Tokenizer,
            _ if measure.estimate => FactorSource::FixedMargin,
            _ => FactorSource::Tokenizer,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FactorSource::Tokenizer => "tokenizer",
            FactorSource::FixedMargin => "fixed_margin",
            FactorSource::Caller => "caller",
            FactorSource::Observed => "observed",
        }
    }

    /// Whether observations may set the factor (the fixed margin's, or one they set).
    pub fn calibrates(self) -> bool {
        matches!(self, FactorSource::FixedMargin | FactorSource::Observed)
    }
}

/// The factor's origin as a request's options carry it to the report: its source and how
/// many provider counts were observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FactorOrigin {
    pub source: FactorSource,
    pub observations: usize,
    /// The tools' and the memory's tokens as scaled, which the request counts beside the
    /// history (set by the trim, for `report.token_factor.counted`).
    pub beside: u64,
}

impl FactorOrigin {
    /// `{"value":…,"source":…,"observations":…}` (what `observe_usage` answers).
    pub fn json(&self, value: f64) -> String {
        format!(
            "{{\"value\":{:?},\"source\":\"{}\",\"observations\":{}}}",
            value,
            self.source.as_str(),
            self.observations
        )
    }

    /// `report.token_factor`: [`FactorOrigin::json`] and `counted`, the trim's count of the
    /// request before the factor (the returned history's tokens, `history`, with the tools'
    /// and the memory's, before the factor; the overhead reserve left out), which a stateless
    /// caller pairs with the provider's count in the next request's `observed_usage`.
    pub fn report_json(&self, value: f64, history: u64) -> String {
        let mut text = self.json(value);
        text.pop();
        let counted = unscaled(history.saturating_add(self.beside), value).round();
        text.push_str(&format!(",\"counted\":{counted}}}"));
        text
    }
}

/// A count scaled by `factor`, before it.
fn unscaled(scaled: u64, factor: f64) -> f64 {
    scaled as f64 / factor
}

/// What a trim's answer sent, as the trim counted it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sent {
    /// The scaled tokens: the returned history's cost, the tools' and the memory's.
    pub counted: u64,
    /// The fixed reserve (`overhead_tokens`), not scaled.
    pub reserve: u64,
    /// The factor the counts were scaled by.
    pub factor: f64,
    /// The tokens the prompt may take (`context_tokens − max_output_tokens`), if known.
    pub window: Option<u64>,
}

/// The evidence of a session: the provider's counts paired with the session's own.
#[derive(Debug, Clone, Default)]
pub struct Calibration {
    /// The largest factor an informative observation implied.
    implied: Option<f64>,
    /// The least factor at which every observed request would have fit the budget.
    least: f64,
    observations: usize,
    /// What the last trim's answer sent; `None` before the first trim.
    sent: Option<Sent>,
}

impl Calibration {
    /// Records what a trim's answer sent, for the next observation.
    pub fn sent(&mut self, sent: Sent) {
        self.sent = Some(sent);
    }

    pub fn observations(&self) -> usize {
        self.observations
    }

    /// Pairs the provider's count of the last answer's request (`input_tokens`) with the
    /// session's own. Errors name what is wrong: no answer yet, a zero count, or a count no
    /// factor in `token_factor`'s range explains (the usage of another request).
    pub fn observe(&mut self, input_tokens: u64) -> Result<(), Error> {
        let Some(sent) = self.sent else {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "observe_usage pairs the provider's input tokens with the last trim's answer: \
                 trim first, send the answer, then observe its usage",
            ));
        };
        let counted = unscaled(sent.counted, sent.factor);
        self.pair(counted, input_tokens, sent.reserve, sent.window)
            .map_err(|why| {
                let message = format!(
                    "input_tokens {input_tokens} {why} (the last answer's request: {counted:.0} \
                     tokens before the factor, {} with it, and a reserve of {}); observe the \
                     usage of the call that sent the last trim's answer",
                    sent.counted, sent.reserve
                );
                Error::new(ErrorCode::InvalidArgument, message)
            })
    }

    /// The evidence of a stateless request's `observed_usage`: `[[counted, input_tokens],
    /// ...]`, each `counted` a report's `token_factor.counted` and `input_tokens` the
    /// provider's count of that request; `reserve` and `window` the request's own.
    pub fn of_pairs(
        usage: &serde_json::Value,
        reserve: u64,
        window: Option<u64>,
    ) -> Result<Calibration, Error> {
        let shape = |path: String| {
            Error::invalid_request(
                "observed_usage must be an array of [counted, input_tokens] pairs: a report's \
                 token_factor.counted and the provider's input tokens of that request, both \
                 integers",
                path,
            )
        };
        let pairs = usage
            .as_array()
            .ok_or_else(|| shape("observed_usage".into()))?;
        let mut calibration = Calibration::default();
        for (k, pair) in pairs.iter().enumerate() {
            let path = format!("observed_usage[{k}]");
            let (counted, input_tokens) = match pair.as_array().map(Vec::as_slice) {
                Some([c, i]) => (c.as_u64(), i.as_u64()),
                _ => (None, None),
            };
            let (Some(counted), Some(input_tokens)) = (counted, input_tokens) else {
                return Err(shape(path));
            };
            if counted == 0 {
                return Err(Error::invalid_request(
                    "counted must be a report's token_factor.counted, at least 1, not 0",
                    path,
                ));
            }
            calibration
                .pair(counted as f64, input_tokens, reserve, window)
                .map_err(|why| {
                    Error::invalid_request(
                        format!("input_tokens {input_tokens} {why} (counted {counted})"),
                        path,
                    )
                })?;
        }
        Ok(calibration)
    }

    /// One observation: the provider's `input_tokens` of a request the trim counted as
    /// `counted` before the factor. Fails with why when the pair cannot be evidence.
    fn pair(
        &mut self,
        counted: f64,
        input_tokens: u64,
        reserve: u64,
        window: Option<u64>,
    ) -> Result<(), String> {
        if input_tokens == 0 {
            return Err("is not the provider's count of a request (at least 1), not 0".into());
        }
        self.observations += 1;
        if counted <= 0.0 {
            // Nothing was counted: there is nothing to scale.
            return Ok(());
        }
        let observed = input_tokens as f64;
        let implied = observed / counted;
        let least = (observed - reserve as f64).max(0.0) / counted;
        let informative = window.is_none_or(|w| observed >= INFORMATIVE_SHARE * w as f64);
        if implied > *FACTOR_RANGE.end() || (informative && implied < *FACTOR_RANGE.start()) {
            self.observations -= 1;
            return Err(format!(
                "is {implied:.3}× the trim's count before the factor: no factor from 0.1 to 10 \
                 explains it"
            ));
        }
        self.least = self.least.max(least);
        if informative {
            self.implied = Some(self.implied.map_or(implied, |i| i.max(implied)));
        }
        Ok(())
    }

    /// The factor the evidence sets in place of `fixed` (the fixed margin), and whether it
    /// comes from the evidence: the fixed margin until an informative observation (raised if
    /// a smaller request would not have fit under it).
    pub fn factor(&self, fixed: f64) -> (f64, FactorSource) {
        let with_margin = |f: f64| {
            // Up to a thousandth (a product's last bit of rounding does not round it up).
            let f = (f * (1.0 + CALIBRATION_MARGIN) * 1000.0 - 1e-9).ceil() / 1000.0;
            f.clamp(*FACTOR_RANGE.start(), *FACTOR_RANGE.end())
        };
        match self.implied {
            Some(implied) => (with_margin(implied.max(self.least)), FactorSource::Observed),
            None if self.least > 0.0 && with_margin(self.least) > fixed => {
                (with_margin(self.least), FactorSource::Observed)
            }
            None => (fixed, FactorSource::FixedMargin),
        }
    }
}

/// A stateless request's `observed_usage` ([`Calibration::of_pairs`]): sets `measure`'s
/// factor from the evidence in place of a fixed margin (a caller's `token_factor` and a public
/// tokenizer's counts stay), and `origin` says so and how many pairs were given.
pub fn apply_observed(
    measure: &mut Measure,
    origin: &mut FactorOrigin,
    usage: &serde_json::Value,
    reserve: u64,
    window: Option<u64>,
) -> Result<(), Error> {
    let calibration = Calibration::of_pairs(usage, reserve, window)?;
    origin.observations = calibration.observations();
    if origin.source.calibrates() {
        (measure.factor, origin.source) = calibration.factor(measure.factor);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(counted: u64, factor: f64) -> Sent {
        Sent {
            counted,
            reserve: 256,
            factor,
            window: Some(28_672),
        }
    }

    #[test]
    fn the_fixed_margin_holds_until_a_large_request_is_observed() {
        let mut c = Calibration::default();
        assert!(c.observe(100).is_err(), "before any trim");
        c.sent(sent(135, 1.35));
        c.observe(120).unwrap();
        // 100 tokens before the factor, 120 observed: under the reserve, says little.
        assert_eq!(c.factor(1.35), (1.35, FactorSource::FixedMargin));
        c.sent(sent(13_500, 1.35));
        c.observe(10_500).unwrap();
        // 10,000 before the factor, 10,500 observed: 1.05, and the margin.
        assert_eq!(c.factor(1.35), (1.071, FactorSource::Observed));
        // A lower ratio later does not lower it: never below the evidence.
        c.sent(sent(21_420, 1.071));
        c.observe(20_000).unwrap();
        assert_eq!(c.factor(1.35), (1.071, FactorSource::Observed));
        c.sent(sent(21_420, 1.071));
        c.observe(21_500).unwrap();
        assert!(c.factor(1.35).0 > 1.071 * 21_500.0 / 21_420.0);
        assert_eq!(c.observations(), 4);
    }

    #[test]
    fn a_small_request_that_overflows_raises_the_margin() {
        let mut c = Calibration::default();
        c.sent(sent(1_350, 1.35));
        // 1,000 tokens before the factor; 2,000 observed is 1,744 past the reserve.
        c.observe(2_000).unwrap();
        let (factor, source) = c.factor(1.35);
        assert_eq!(source, FactorSource::Observed);
        assert!(factor >= 1.744, "{factor}");
    }

    #[test]
    fn counts_no_factor_explains_are_errors() {
        let mut c = Calibration::default();
        c.sent(sent(13_500, 1.35));
        let e = c.observe(200_000).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert!(e.message.contains("input_tokens 200000"), "{}", e.message);
        assert!(c.observe(0).is_err());
        assert_eq!(c.observations(), 0);
        assert_eq!(c.factor(1.35), (1.35, FactorSource::FixedMargin));
    }
}

//! Incremental sessions: a history fed message by message, trimmed at any time.
//!
//! A companion trims before every model call a history that grows by a few messages a turn.
//! Stateless, every call hands over (and the caller serialises) the whole history again. A
//! [`TrimSession`] is given the trim options once, then each message once ([`append`]); an
//! edit or a regeneration cuts the tail ([`truncate`]) and appends the new version. Its answer
//! ([`trim_answer`], [`plan`]) is always the stateless [`crate::api::trim_json`] answer for the
//! same history and options, given the previous answer's `report.cut`.
//!
//! A session is cache-stable by default ([`crate::stable`]): given neither `trim_to` nor `cut`,
//! it trims with `trim_to` [`SESSION_TRIM_TO`] and carries each answer's cut to the next trim,
//! so the history's prefix holds from call to call (a trim that must remove something removes
//! down to that share of the budget, and does not fill). `trim_to: null` opts out: the session
//! then answers as a stateless trim without `trim_to` or `cut`, fill included.
//!
//! What a session holds:
//!
//! - the messages' JSON text as given (validated once, when appended), one after the other in
//!   one buffer that reads as a messages array, grown by an eighth of its size when full (so
//!   the buffer's capacity stays within 1.125× its bytes, plus the latest append);
//! - the end of each message in the buffer (8 bytes a message) and where each long string
//!   without escapes lies (16 bytes per string of 24 bytes or more), so the buffer is read in
//!   place without validating or scanning those strings again;
//! - the messages split into the neutral model ([`crate::model`]: roles, units, prices), made
//!   when they are appended (an image's header is read once over the session's life) and kept
//!   (some 300 bytes a message) for the messages a trim may read: all of them, until trims
//!   read only the newest ones (see `Window`);
//! - in token mode, each counted message's token costs (its fields and each of its parts), so
//!   a text is tokenized once over the session's life, not once a turn;
//! - what trims found in the older messages: their repairs and warnings;
//! - the provider's counts observed ([`observe_usage`]) and what the last answer sent, as
//!   counted, which set the token factor of a model counted with a margin
//!   ([`crate::calibrate`]).
//!
//! A trim then runs the pipeline from repair on over a copy of the kept split (repair,
//! selection, shedding, the report, the answer), with no validation, no probing, no
//! serialisation by the caller and no tokenizing of what was counted before; for a long
//! history, over its newest messages only, when that gives the same answer (`Window`): a turn
//! costs what the newest messages cost, not what the history holds.
//!
//! [`append`]: TrimSession::append
//! [`truncate`]: TrimSession::truncate
//! [`trim_answer`]: TrimSession::trim_answer
//! [`plan`]: TrimSession::plan
//! [`observe_usage`]: TrimSession::observe_usage
//!
//! ```
//! use ankita::session::TrimSession;
//! let mut session = TrimSession::new(r#"{"max_bytes": 4096}"#).unwrap();
//! session.append(r#"[{"role": "system", "content": "Be brief."}]"#).unwrap();
//! session.append(r#"[{"role": "user", "content": "Hi"}]"#).unwrap();
//! let answer = session.trim_answer().unwrap().into_string();
//! let stateless = ankita::api::trim_json(&format!(
//!     r#"{{"messages": {}, "max_bytes": 4096, "trim_to": 0.75}}"#,
//!     session.messages_json()
//! ));
//! assert_eq!(answer, stateless);
//! // Opted out: as a stateless trim without trim_to.
//! let mut plain = TrimSession::new(r#"{"max_bytes": 4096, "trim_to": null}"#).unwrap();
//! plain.append(session.messages_json()).unwrap();
//! let stateless = ankita::api::trim_json(&format!(
//!     r#"{{"messages": {}, "max_bytes": 4096}}"#,
//!     session.messages_json()
//! ));
//! assert_eq!(plain.trim_answer().unwrap().into_string(), stateless);
//! ```

use crate::api::{options_of, write_plan_answer, write_trim_answer, Answer};
use crate::calibrate::{Calibration, FactorOrigin, FactorSource, Sent};
use crate::error::{Error, ErrorCode};
use crate::model::Session;
use crate::raw::{kind, Doc, Kind};
use crate::request::TrimOptions;
use crate::trim::{plan_split_reach, Plan, EARLIER_ANCHORS};

mod split;
mod window;

pub use crate::count_cache::CountCache;
use split::{grow, rebase, split_all, split_bytes, Split};
use window::{window_session, Window};

/// The `trim_to` of a session given neither `trim_to` nor `cut`: when the cut has to move,
/// the kept run is taken down to this share of the budget, so the calls after it only append
/// (measured with `cargo run --release --example cache_stability -- --shares`: see
/// `docs/cache-stable.md`).
pub const SESSION_TRIM_TO: f64 = 0.75;

/// A chat history held between trims (see the module documentation).
pub struct TrimSession {
    options: TrimOptions,
    /// The format's outside system prompt as given, then `\n[`, the messages separated by
    /// commas, and `]`.
    text: String,
    /// Where the outside system prompt is in `text`.
    system: Option<(usize, usize)>,
    /// Where the messages array starts in `text` (its `[`).
    open: usize,
    /// Where each message ends in `text` (it starts after the comma, or the `[`, before it).
    ends: Vec<usize>,
    /// The long strings without escapes of `text`, in order (see [`Doc::from_validated`]).
    noted: Vec<(usize, usize)>,
    counts: CountCache,
    /// The messages split into the neutral model, kept between trims (see [`Split`]).
    split: Option<Split>,
    /// Bytes given to the session (every `append` argument, and the options).
    given: usize,
    window: Window,
    /// Trims answered from the newest messages (see [`Window`]).
    windowed: usize,
    /// The provider's counts paired with the session's own ([`TrimSession::observe_usage`]).
    calibration: Calibration,
    /// The options as a JSON object without `messages`, kept when observations may set the
    /// token factor: read again with the new factor, the tools and the memory are counted
    /// as a request counts them.
    options_text: Option<String>,
    /// The factor the options give (the model's fixed margin).
    fixed_factor: f64,
}

impl TrimSession {
    /// A session with the trim options of a request (every request key but `messages`, which
    /// may be given too: the session then starts with those messages).
    pub fn new(options_json: &str) -> Result<TrimSession, Error> {
        let doc = Doc::parse(options_json).map_err(invalid_json)?;
        let fields = doc.fields(doc.root()).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidRequest,
                "the session options must be a JSON object",
            )
        })?;
        let (system, mut options) = options_of(&fields)?;
        // Cache-stable by default (crate::stable): a session is an agent's or a companion's
        // loop of calls, each of which a provider's prompt cache serves while the prefix holds.
        // `trim_to: null` (or a `cut` given) says otherwise.
        if crate::raw::get(&fields, "trim_to").is_none()
            && crate::raw::get(&fields, "cut").is_none()
        {
            options.cache.trim_to = SESSION_TRIM_TO;
            options.cache.stable = true;
        }
        let mut session = TrimSession {
            fixed_factor: options.measure.factor,
            options,
            text: String::new(),
            system: None,
            open: 0,
            ends: Vec::new(),
            noted: Vec::new(),
            counts: CountCache::default(),
            split: None,
            given: options_json.len(),
            window: Window::default(),
            windowed: 0,
            calibration: Calibration::default(),
            options_text: None,
        };
        if session.options.factor_origin.source.calibrates() {
            session.options_text = Some(options_without_messages(&fields));
        }
        if let Some(system) = system {
            let at = doc.offset_of(system);
            session.text.push_str(system);
            session.noted.extend(
                doc.noted()
                    .iter()
                    .filter(|&&(s, e)| s >= at && e <= at + system.len())
                    .map(|&(s, e)| (s - at, e - at)),
            );
            session.system = Some((0, system.len()));
            session.text.push('\n');
        }
        session.open = session.text.len();
        session.text.push_str("[]");
        if let Some(messages) = crate::raw::get(&fields, "messages") {
            if kind(messages) != Kind::Array {
                return Err(Error::invalid_request(
                    "messages must be an array",
                    "messages",
                ));
            }
            session.append_from(&doc, messages);
        }
        Ok(session)
    }

    /// Appends messages given as a JSON array (validated here, once). Returns how many
    /// messages the session holds. A message the trim cannot read is not refused here: the
    /// trim answers the error a stateless trim of the same history answers.
    pub fn append(&mut self, messages_json: &str) -> Result<usize, Error> {
        let doc = Doc::parse(messages_json).map_err(invalid_json)?;
        let root = doc.root();
        if kind(root) != Kind::Array {
            return Err(Error::invalid_request(
                "append takes a JSON array of messages",
                "messages",
            ));
        }
        self.given += messages_json.len();
        self.append_from(&doc, root);
        Ok(self.ends.len())
    }

    fn append_from(&mut self, doc: &Doc<'_>, array: &str) {
        let items = doc.items(array).unwrap_or_default();
        if items.is_empty() {
            return;
        }
        let add: usize = items.iter().map(|m| m.len() + 1).sum();
        self.reserve(add + 1);
        let noted = doc.noted();
        let mut n = noted.partition_point(|&(s, _)| s < doc.offset_of(array));
        let first = self.ends.len();
        let first_note = self.noted.len();
        self.text.pop(); // the closing `]`
                         // The new messages are written as an array of their own (`[` where the comma after
                         // the last message goes), split as such, then the `[` becomes that comma.
        let open = if first > 0 {
            self.text.push('[');
            self.text.len() - 1
        } else {
            self.open
        };
        for (k, item) in items.iter().enumerate() {
            if k > 0 {
                self.text.push(',');
            }
            let from = doc.offset_of(item);
            let to = self.text.len();
            self.text.push_str(item);
            while let Some(&(s, e)) = noted.get(n) {
                if s >= from + item.len() {
                    break;
                }
                self.noted.push((s - from + to, e - from + to));
                n += 1;
            }
            self.ends.push(self.text.len());
        }
        self.text.push(']');
        self.split_new(open, first, first_note);
        if first > 0 {
            // SAFETY: `open` < len is the `[` written above (ASCII, so the text stays UTF-8);
            // written through the vector's pointer, without a reference to its bytes, which
            // the split borrows elsewhere.
            unsafe { self.text.as_mut_vec().as_mut_ptr().add(open).write(b',') };
        }
    }

    /// Adds messages `first..` (the array at `open`) to the kept split, if there is one.
    fn split_new(&mut self, open: usize, first: usize, first_note: usize) {
        let Some(split) = &mut self.split else {
            return;
        };
        let text: &str = &self.text;
        // The message before the new ones (Gemini matches a response without an id to the
        // calls of the content before it), and the notes of its strings and theirs.
        let previous = first.checked_sub(1).map(|p| {
            let start = match p {
                0 => self.open + 1,
                _ => self.ends[p - 1] + 1,
            };
            (start, &text[start..self.ends[p]])
        });
        let notes_from = previous.map_or(first_note, |(start, _)| {
            self.noted.partition_point(|&(s, _)| s < start)
        });
        let doc = Doc::from_validated(text, self.noted[notes_from..].to_vec());
        let previous = previous.map(|(_, raw)| raw);
        let start = crate::trim::Start::After { first, previous };
        let Ok(part) = crate::trim::split(&doc, &text[open..], start, &self.options) else {
            // The trim answers the error, from a split of the whole history.
            self.split = None;
            return;
        };
        // SAFETY: see `Split`; the buffer did not move since the split was made (it is
        // dropped when it grows) and the new messages stay where they are.
        let part: Session<'static> = unsafe { std::mem::transmute(part) };
        debug_assert_eq!(split.base, self.text.as_ptr() as usize);
        let held = &mut split.session;
        grow(&mut held.messages, part.messages.len());
        grow(&mut held.units, part.units.len());
        grow(&mut held.inputs, part.inputs.len());
        let units = held.units.len() as u32;
        for mut msg in part.messages {
            msg.units = (msg.units.0 + units, msg.units.1 + units);
            held.messages.push(msg);
        }
        held.units.extend(part.units);
        held.inputs.extend(part.inputs);
    }

    /// Room for `add` more bytes, growing the buffer by an eighth of its size at least (not
    /// doubling it: the capacity stays within 1.125× what it holds, plus the latest append;
    /// a growth copies the buffer, some eight bytes copied per byte appended).
    fn reserve(&mut self, add: usize) {
        let len = self.text.len();
        if len + add > self.text.capacity() {
            // A new buffer, filled before the old one goes: the split moves to it at once
            // (it never refers to freed bytes), without splitting anything again.
            let mut grown = String::with_capacity(len + add.max(len / 8));
            grown.push_str(&self.text);
            if let Some(split) = &mut self.split {
                rebase(&mut split.session, &self.text, &grown);
                split.base = grown.as_ptr() as usize;
            }
            self.text = grown;
        }
    }

    /// Keeps the first `len` messages (an edit or a regeneration then appends the new tail).
    /// A `len` past the end changes nothing. Returns how many messages the session holds.
    pub fn truncate(&mut self, len: usize) -> usize {
        if len >= self.ends.len() {
            return self.ends.len();
        }
        let end = if len == 0 {
            self.open + 1
        } else {
            self.ends[len - 1]
        };
        let adapter = self.options.format.adapter();
        self.window.forget_from(len, self.split.as_ref(), adapter);
        // Messages before the cut were replaced: the next trim chooses its cut afresh.
        if self.options.cache.cut.is_some_and(|cut| len < cut) {
            self.options.cache.cut = None;
        }
        // So were messages the summary stands for.
        if (self.options.cache.summary.as_ref()).is_some_and(|s| len <= s.through) {
            self.options.cache.summary = None;
        }
        if self.split.as_ref().is_some_and(|s| len <= s.pruned) {
            self.split = None;
        }
        if let Some(split) = &mut self.split {
            let held = &mut split.session;
            let logical = held
                .messages
                .iter()
                .position(|m| m.physical.is_some_and(|p| p as usize >= len))
                .unwrap_or(held.messages.len());
            let units = held
                .messages
                .get(logical)
                .map_or(held.units.len(), |m| m.units.0 as usize);
            held.messages.truncate(logical);
            held.units.truncate(units);
            held.inputs.truncate(len);
        }
        self.text.truncate(end);
        self.text.push(']');
        self.ends.truncate(len);
        let keep = self.noted.partition_point(|&(s, _)| s < end);
        self.noted.truncate(keep);
        self.counts.forget_from(len);
        if self.text.capacity() > 2 * self.text.len() + 4096 {
            self.split = None;
            self.text.shrink_to(self.text.len() + self.text.len() / 4);
        }
        self.ends.len()
    }

    /// How many messages the session holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The messages as a JSON array, as given (what an application saves to restore the
    /// session later: a new session with the same options, then [`TrimSession::append`]).
    pub fn messages_json(&self) -> &str {
        &self.text[self.open..]
    }

    /// The trim options.
    pub fn options(&self) -> &TrimOptions {
        &self.options
    }

    /// Sets the summary the next trims place (the request key `summary`; `None`: none), e.g.
    /// after a trim whose report asked for a compaction ([`crate::stable`]).
    pub fn set_summary(&mut self, summary: Option<crate::cache_keys::Summary>) {
        self.options.cache.summary = summary;
    }

    /// The summary the trims place, if any.
    pub fn summary(&self) -> Option<&crate::cache_keys::Summary> {
        self.options.cache.summary.as_ref()
    }

    /// Bytes given to the session so far (options and every append, as passed).
    pub fn bytes_given(&self) -> usize {
        self.given
    }

    /// Bytes the session holds on the heap: its buffer's capacity, the message ends, the
    /// string notes, the token counts, the split and what trims found in older messages.
    pub fn bytes_held(&self) -> usize {
        self.text.capacity()
            + self.ends.capacity() * std::mem::size_of::<usize>()
            + self.noted.capacity() * std::mem::size_of::<(usize, usize)>()
            + self.counts.bytes_held()
            + self.split.as_ref().map_or(0, |s| split_bytes(&s.session))
            + self.window.bytes_held()
    }

    /// How many messages the session keeps split into the neutral model (all of them, until
    /// trims read only the newest; then those a trim may read).
    pub fn messages_split(&self) -> usize {
        self.split.as_ref().map_or(0, |s| s.session.messages.len())
    }

    /// How many trims so far read only the newest messages of the history (the others read
    /// all of it; the answers are the same, see the module documentation).
    pub fn trims_from_newest(&self) -> usize {
        self.windowed
    }

    /// Pairs the provider's count of the input tokens of the last answer's request (the
    /// response's `usage.input_tokens`, Gemini's `usage_metadata.prompt_token_count`: the
    /// whole prompt, system prompt, tools and framing included) with the session's own count
    /// of it, and sets the token factor of a model counted with a margin (Claude, Gemini,
    /// the o200k estimate of other models) from the evidence ([`crate::calibrate`]): the next
    /// trims count with it. A caller's `token_factor` and a public tokenizer's counts are
    /// kept (the observation is counted). Returns the factor the next trim uses and where it
    /// comes from (`report.token_factor`).
    ///
    /// An `invalid_argument` error when the session counts bytes, before the first trim, for
    /// 0, or for a count no factor from 0.1 to 10 explains (the usage of another request).
    ///
    /// ```
    /// use ankita::session::TrimSession;
    /// let mut session = TrimSession::new(
    ///     r#"{"model": "claude-sonnet-4-5", "context_tokens": 8000, "max_output_tokens": 1000}"#,
    /// )
    /// .unwrap();
    /// session.append(r#"[{"role": "user", "content": "Hi"}]"#).unwrap();
    /// session.trim_answer().unwrap();
    /// let factor = session.observe_usage(14).unwrap();
    /// // A request this small is mostly framing: the fixed margin stays.
    /// assert_eq!((factor.value, factor.source.as_str()), (1.35, "fixed_margin"));
    /// assert_eq!(factor.observations, 1);
    /// ```
    pub fn observe_usage(&mut self, input_tokens: u64) -> Result<TokenFactor, Error> {
        if !self.options.measure.in_tokens() {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                "observe_usage compares token counts: the session counts bytes (give \
                 context_tokens, or a model whose tokenizer is known)",
            ));
        }
        self.calibration.observe(input_tokens)?;
        // Counted on from the options' own (a stateless `observed_usage` given to the session).
        let origin = &mut self.options.factor_origin;
        origin.observations += 1;
        if origin.source.calibrates() {
            let (factor, source) = self.calibration.factor(self.fixed_factor);
            self.options.factor_origin.source = source;
            if factor != self.options.measure.factor {
                self.set_factor(factor)?;
            }
        }
        Ok(self.token_factor())
    }

    /// The token factor the next trim uses and where it comes from.
    pub fn token_factor(&self) -> TokenFactor {
        TokenFactor {
            value: self.options.measure.factor,
            source: self.options.factor_origin.source,
            observations: self.options.factor_origin.observations,
        }
    }

    /// Counts with `factor` from now on: the tools and the memory are counted again, and what
    /// the session kept of earlier counts (and the split, which holds costs) is let go.
    fn set_factor(&mut self, factor: f64) -> Result<(), Error> {
        let text = self.options_text.as_deref().expect("kept when calibrating");
        let open = &text[..text.len() - 1];
        let comma = if open.len() > 1 { "," } else { "" };
        let with_factor = format!("{open}{comma}\"token_factor\":{factor}}}");
        let doc = Doc::parse(&with_factor).map_err(invalid_json)?;
        let fields = doc.fields(doc.root()).unwrap_or_default();
        let (_, counted) = options_of(&fields)?;
        self.options.measure = counted.measure;
        self.options.tools_tokens = counted.tools_tokens;
        self.options.memory_tokens = counted.memory_tokens;
        self.counts = CountCache::default();
        self.split = None;
        self.window = Window::default();
        Ok(())
    }

    /// Plans the trim of the history held (see `crate::trim::plan_trim`).
    pub fn plan(&mut self) -> Result<Plan<'_>, Error> {
        self.with_plan(|_, _, plan| plan)
    }

    /// The answer a stateless trim of the same history gives (`{"ok": true, "messages",
    /// "report", "system"?}`).
    pub fn trim_answer(&mut self) -> Result<Answer<'_>, Error> {
        let options = self.options.clone();
        self.with_plan(|doc, system, plan| write_trim_answer(doc, system, &options, plan))
    }

    /// The answer as a plan: `{"ok": true, "plan": [...], "report": {...}}`, where each item
    /// of `plan` is the index of a message returned as given (a number) or a message that
    /// changed (an object); for callers that hold the messages themselves.
    pub fn plan_answer(&mut self) -> Result<Answer<'_>, Error> {
        self.with_plan(|doc, _, plan| write_plan_answer(doc, plan))
    }

    fn with_plan<'s, T>(
        &'s mut self,
        then: impl FnOnce(&Doc<'s>, Option<&'s str>, Plan<'s>) -> T,
    ) -> Result<T, Error> {
        // The errors in a stateless trim's order: the budget, then the messages.
        let budget = self.options.history_budget()?;
        if self.split.is_none() {
            self.split = Some(split_all(
                &self.text,
                &self.noted,
                self.system,
                self.open,
                &self.options,
            )?);
        }
        let TrimSession {
            options,
            text,
            system: system_at,
            open,
            noted,
            counts,
            split,
            window,
            windowed,
            calibration,
            ..
        } = self;
        let text: &'s str = text.as_str();
        let system = system_at.map(|(s, e)| &text[s..e]);
        let doc = Doc::from_validated(text, noted.clone());
        let held = split.as_mut().expect("split above");
        // First the window alone; when it anchors fewer earlier user messages than it could
        // (or holds no request), again with the older user messages carried into it.
        let mut attempt = window.start(held, options);
        while let Some(start) = attempt.take() {
            let session: Session<'s> = window_session(held, &start);
            let cache = options.measure.in_tokens().then_some(&mut *counts);
            let Ok((mut plan, reach)) =
                plan_split_reach(&doc, session, options, budget, cache, true)
            else {
                // The whole history's trim answers the error.
                break;
            };
            // Selection read back to where the window starts: older messages may have fit.
            if reach.stopped_at.is_none_or(|s| s < start.from) {
                break;
            }
            // Fewer anchors than there may be: the request and the anchors are the newest user
            // messages that fit, wherever they are. So is the user message that began the
            // kept run's turn, when the answer must start with one (crate::turn).
            if reach.anchors < EARLIER_ANCHORS || reach.missing_turn_start {
                if start.users.is_empty() {
                    match Window::with_users(held, options, &start) {
                        Some(with) if !with.users.is_empty() => {
                            attempt = Some(with);
                            continue;
                        }
                        // No user message before the window at all: its answer stands.
                        Some(_) if !held.pruned_users => {}
                        _ => break,
                    }
                } else if held.pruned_users {
                    // Every user message held was carried, and older ones were let go.
                    break;
                }
            }
            window.complete(&mut plan.report, &start);
            window.update(
                held,
                options.format.adapter(),
                &plan.report,
                start.from,
                reach,
            );
            held.prune(start.from, counts);
            *windowed += 1;
            crate::trim::finish_answer(&doc, system, options, &mut plan);
            calibration.sent(sent(options, &plan));
            return Ok(then(&doc, system, plan));
        }
        if held.pruned > 0 {
            *held = split_all(text, noted, *system_at, *open, options)?;
        }
        let held = &held.session;
        let cache = options.measure.in_tokens().then_some(counts);
        // Lent for the session's borrow `'s` only (`Session` is covariant in its lifetime).
        let session: Session<'s> = Session {
            messages: held.messages.clone(),
            units: held.units.clone(),
            inputs: held.inputs.clone(),
            notes_in_meta: false,
        };
        let windows = options.format.adapter().trims_newest_alone();
        let (mut plan, reach) = plan_split_reach(&doc, session, options, budget, cache, windows)?;
        let held = split.as_ref().expect("split above");
        window.update(held, options.format.adapter(), &plan.report, 0, reach);
        crate::trim::finish_answer(&doc, system, options, &mut plan);
        // The next trim goes on from this one's cut (crate::stable).
        if let Some(cut) = plan.report.cut {
            options.cache.cut = cut;
        }
        calibration.sent(sent(options, &plan));
        Ok(then(&doc, system, plan))
    }
}

/// The token factor of a session's next trim (`report.token_factor`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenFactor {
    pub value: f64,
    pub source: FactorSource,
    /// The provider's counts observed so far.
    pub observations: usize,
}

impl TokenFactor {
    /// `{"value":…,"source":…,"observations":…}`, as the report writes it.
    pub fn json(&self) -> String {
        FactorOrigin {
            source: self.source,
            observations: self.observations,
            beside: 0,
        }
        .json(self.value)
    }
}

/// What a trim's answer sent, as it was counted ([`crate::calibrate::Sent`]).
fn sent(options: &TrimOptions, plan: &Plan<'_>) -> Sent {
    Sent {
        counted: plan
            .report
            .cost_bytes
            .saturating_add(options.tools_tokens)
            .saturating_add(options.memory_tokens),
        reserve: options.overhead_tokens,
        factor: options.measure.factor,
        window: options
            .context_tokens
            .map(|c| c.saturating_sub(options.max_output_tokens)),
    }
}

/// The session options as a JSON object without `messages` (for [`TrimSession::set_factor`],
/// which adds `token_factor`: a calibrating session's is absent or null, and left out).
fn options_without_messages(fields: &crate::raw::Fields<'_>) -> String {
    let mut text = String::from("{");
    let kept = |key: &str| key != "messages" && key != "token_factor";
    for (key, value) in fields.iter().filter(|(k, _)| kept(k)) {
        if text.len() > 1 {
            text.push(',');
        }
        text.push_str(&serde_json::Value::from(key.as_ref()).to_string());
        text.push(':');
        text.push_str(value);
    }
    text.push('}');
    text
}

fn invalid_json(e: serde_json::Error) -> Error {
    Error::new(ErrorCode::InvalidJson, format!("invalid JSON: {e}"))
}

//! Stateless trims of a long history read from its newest messages (`ankita_trim_tail`).
//!
//! A caller that trims a long history on every turn hands over, and has serialised, every
//! message, to keep the newest few. Here the caller gives the messages from some index
//! `from` on, and of the older ones only those the answer may depend on; the trim tells
//! whether they were enough (the same check an incremental session makes, see
//! [`crate::session`]): when they were, the answer is the stateless trim's of the whole
//! history, as a plan (the indices of the caller's messages returned as given); when they
//! were not, the answer asks for more (`{"ok": true, "widen": true}`), and the caller sends
//! a longer tail, or the whole history.
//!
//! What the caller may leave out: a message before `from` that is *plain* — an object with a
//! `role` (`user`, `assistant`, `system` or `developer`; `model` in Gemini) and a non-empty
//! string `content` (Gemini: `parts`, a list of `{"text": <non-empty string>}`), and no other
//! key (`name` in the OpenAI format, `"type": "message"` in Responses) — when the messages
//! right before and after it are given or plain too. A run of left-out messages (a gap) is
//! bounded by given messages: both plain, and one of them not the model's (a gap then never
//! joins two of the model's steps). Message 0 is always given. Such messages are never
//! repaired, never warned about and never change how their neighbours are repaired, so the
//! report's repairs and warnings of the older messages are those of the given ones; the
//! left-out messages are listed among `dropped_messages` (the answer checks that no message
//! before `from` is kept but a pinned system message 0).
//!
//! A trim with a limit may also leave out runs of *whole turns* (`window.gaps` names each gap
//! `"plain"` or `"turns"`, in order; without it every gap is plain): each format's
//! [`crate::format::facts::Turns`] facts say what they hold — plain messages, messages of the
//! user's of text parts, and whole tool exchanges whose calls are answered one to one, in
//! order, ids and names matching, by non-empty replies right after them — messages that split
//! as written, need no repair and warn of nothing. Such a run starts with a message of the
//! user's, and the core checks that the given message after it is one too (the user's first,
//! no tool reply in it: [`crate::format::Adapter::closes_exchanges`]) and is not `from`: every
//! format's repair reads messages in order, and such a message ends every exchange and step
//! before it, so the given messages on either side are repaired and grouped as in the whole
//! history, and the messages left out, never kept (the check below), are all among
//! `dropped_messages` (sanitize puts them back in their places, as given). A trim that nothing
//! limits (`sizes`) takes plain gaps only.
//!
//! A given message before `from` but message 0 may be a *stand-in*: the caller's message with its long free text replaced, as each
//! format's [`crate::format::StandIn`] facts say (`stand_in` of `ankita_formats`: strings
//! longer than `longer_than` under a key of `text_keys`, and any such string inside the value
//! of a key of `data_keys`, become `replacement`). The trim reads of those strings only that
//! they are non-empty strings, or the JSON type of the value holding them: a stand-in splits
//! and is repaired as the caller's message, and only what it costs differs, which no answer
//! shows: the answer keeps no message before `from` but a pinned system message 0 (else
//! `widen`), and reports the older ones by index and by their repairs, which read ids, roles
//! and the presence of content. A trim that nothing limits (`window.sizes`) keeps and prices
//! every message: its stand-ins come with `window.stood_in`, the UTF-8 and compact JSON lengths
//! of every string replaced, in order (a string equal to the replacement where a stand-in may
//! be counts as one), and each kept message is priced as the caller's (a text a unit reads by
//! its UTF-8 length, any other string by its JSON); a message repair changes is written from what was given,
//! so unless its stand-ins all lie in the calls repair removed, the whole history answers.
//!
//! The request is a trim request whose `messages` are the caller's messages from index `from`
//! on, with the key `window`: `{"from": <index>, "earlier": [[<start>, [<messages>]], ...]}`,
//! `earlier` being the given messages before `from`, as runs of consecutive messages with the
//! index of their first, in order (and `sizes`, `stood_in`: see above). Without `window`,
//! `messages` is the whole history and the answer is its plan.

use crate::api::{
    options_of, read_request, text_of, write_plan_answer, write_plan_answer_styled, Answer,
};
use crate::error::{Error, ErrorCode};
use crate::format::{Out, StandIn};
use crate::model::{Role, Session};
use crate::raw::{get, kind, Doc, Kind, Raw};
use crate::report::Style;
use crate::request::format_of;
use crate::request::TrimOptions;
use crate::trim::{plan_sanitize_split, plan_split_reach, split, Plan, Start, EARLIER_ANCHORS};

pub mod driver;
mod gaps;
pub mod select;
mod window;
use gaps::{merge_runs, plain_role, put_back};
pub use window::GapKind;
use window::{read_window, Window};

/// A trim request for the tail of a history (see the module documentation).
pub struct TailRequest<'a> {
    pub doc: Doc<'a>,
    /// The caller's messages from `from` on.
    pub messages: Raw<'a>,
    pub system: Option<Raw<'a>>,
    pub options: TrimOptions,
    pub from: usize,
    /// The given messages before `from`: runs of consecutive messages (a JSON array each)
    /// with the caller's index of their first.
    pub earlier: Vec<(usize, Raw<'a>)>,
    /// `window.gaps`: what each run left out holds, in order (plain messages when not given).
    pub gaps: Vec<GapKind>,
    /// `window.sizes`: every left-out message's role (a JSON string) and content's UTF-8
    /// length, in order, when the caller gives them (a trim that nothing limits keeps them).
    pub sizes: Option<Vec<(Raw<'a>, u64)>>,
    /// `window.stood_in`: with `sizes`, the UTF-8 and compact JSON lengths of every string the
    /// given messages hold as a stand-in, in order (`TailRequest::stood_in_costs`).
    pub stood_in: Option<Vec<(u64, u64)>>,
}

/// What a tail trim answers.
#[derive(Debug)]
pub enum TailPlan<'a> {
    /// The plan of the whole history's trim.
    Plan(Box<Plan<'a>>),
    /// The messages given may not give the whole history's answer: send more. `scale`: every
    /// message given fit, using this part of the limits (the next tail may be that many times
    /// longer); `f64::INFINITY`: send the whole history (nothing limits the trim, or no tail
    /// can give its answer).
    Widen { scale: Option<f64> },
}

impl<'a> TailRequest<'a> {
    pub fn parse(text: &'a str) -> Result<TailRequest<'a>, Error> {
        Self::read(Doc::parse(text).map_err(crate::api::invalid_json)?)
    }

    /// Reads a tail request from its document.
    pub(crate) fn read(doc: Doc<'a>) -> Result<TailRequest<'a>, Error> {
        let (doc, mut fields, messages) = read_request(doc)?;
        let window = get(&fields, "window");
        fields.retain(|(k, _)| k != "window");
        let (system, options) = options_of(&fields)?;
        let window = match window {
            None => Window::whole(),
            Some(w) => read_window(&doc, w)?,
        };
        Ok(Self::of(doc, messages, system, options, window))
    }

    /// The request of these parts.
    fn of(
        doc: Doc<'a>,
        messages: Raw<'a>,
        system: Option<Raw<'a>>,
        options: TrimOptions,
        window: Window<'a>,
    ) -> TailRequest<'a> {
        TailRequest {
            doc,
            messages,
            system,
            options,
            from: window.from,
            earlier: window.earlier,
            gaps: window.gaps,
            sizes: window.sizes,
            stood_in: window.stood_in,
        }
    }

    /// Reads a sanitize request of a history's messages: `{"messages": [...], "format"?,
    /// "window"?}` (the messages from `window.from` on; see the module documentation).
    pub fn parse_sanitize(text: &'a str) -> Result<TailRequest<'a>, Error> {
        let doc = Doc::parse(text)
            .map_err(|e| Error::new(ErrorCode::InvalidJson, format!("invalid JSON: {e}")))?;
        let usage = || {
            Error::invalid_request(
                "sanitize_tail takes {\"messages\": [...], \"format\"?, \"window\"?}",
                "messages",
            )
        };
        let fields = doc.fields(doc.root()).ok_or_else(usage)?;
        if fields
            .iter()
            .any(|(k, _)| k != "messages" && k != "format" && k != "window")
        {
            return Err(usage());
        }
        let messages = get(&fields, "messages")
            .filter(|m| kind(m) == Kind::Array)
            .ok_or_else(usage)?;
        let mut map = serde_json::Map::new();
        if let Some(f) = get(&fields, "format") {
            let value = serde_json::from_str(f)
                .map_err(|e| Error::new(ErrorCode::InvalidJson, format!("invalid JSON: {e}")))?;
            map.insert("format".into(), value);
        }
        let options = TrimOptions {
            max_messages: usize::MAX,
            format: format_of(&map)?,
            ..TrimOptions::default()
        };
        let window = match get(&fields, "window") {
            None => Window::whole(),
            Some(w) => read_window(&doc, w)?,
        };
        if window.sizes.is_some() || window.stood_in.is_some() {
            return Err(Error::invalid_request(
                "window.sizes and window.stood_in are for trims (sanitize keeps the left-out \
                 messages as given)",
                "window.sizes",
            ));
        }
        Ok(Self::of(doc, messages, None, options, window))
    }

    /// Repairs the whole history (a request read by [`TailRequest::parse_sanitize`]): the
    /// left-out messages come back as given, in their places. Formats that merge turns widen
    /// (a left-out message could merge with a neighbour repair left beside it).
    pub fn plan_sanitize(&self) -> Result<TailPlan<'a>, Error> {
        if self.from == 0 {
            let session = split(&self.doc, self.messages, Start::Whole(None), &self.options)?;
            let plan = plan_sanitize_split(&self.doc, session, &self.options);
            return Ok(TailPlan::Plan(Box::new(plan)));
        }
        let adapter = self.options.format.adapter();
        if adapter.merges_turns() || !adapter.trims_newest_alone() {
            return Ok(TailPlan::Widen { scale: None });
        }
        let Ok(session) = self.session(None) else {
            return Ok(TailPlan::Widen { scale: None });
        };
        let Some(gaps) = self.gaps(&session) else {
            return Ok(TailPlan::Widen { scale: None });
        };
        let mut plan = plan_sanitize_split(&self.doc, session, &self.options);
        // A message repair made (no index of the caller's): the whole history answers.
        if plan.messages.iter().any(|out| matches!(out, Out::New(_))) {
            return Ok(TailPlan::Widen { scale: None });
        }
        let messages = put_back(std::mem::take(&mut plan.messages), &gaps);
        plan.report.output_messages = messages.len();
        plan.messages = messages;
        Ok(TailPlan::Plan(Box::new(plan)))
    }

    /// Plans the trim of the whole history, or says that the messages given are not enough.
    pub fn plan(&self) -> Result<TailPlan<'a>, Error> {
        let system = self.system.filter(|s| kind(s) != Kind::Null);
        let budget = self.options.history_budget()?;
        if self.from == 0 {
            let session = split(
                &self.doc,
                self.messages,
                Start::Whole(system),
                &self.options,
            )?;
            let (mut plan, _) =
                plan_split_reach(&self.doc, session, &self.options, budget, None, false)?;
            crate::trim::finish_answer(&self.doc, system, &self.options, &mut plan);
            return Ok(TailPlan::Plan(Box::new(plan)));
        }
        let adapter = self.options.format.adapter();
        // A cache-stable trim keeps the anchors of its cut, and a breakpoint counts the
        // caller's own in every message: both read the whole history.
        let cache = &self.options.cache;
        if !adapter.trims_newest_alone()
            || self.options.clear_tool_results.is_some()
            || cache.stable
            || cache.cache_breakpoint
        {
            // No tail will do: the whole history at once.
            return Ok(TailPlan::Widen {
                scale: Some(f64::INFINITY),
            });
        }
        // Any error: the whole history's trim answers it (in its order), at once.
        let whole = TailPlan::Widen {
            scale: Some(f64::INFINITY),
        };
        let Ok(session) = self.session(system) else {
            return Ok(whole);
        };
        let Some(gaps) = self.gaps(&session) else {
            return Ok(TailPlan::Widen { scale: None });
        };
        if let Some(sizes) = &self.sizes {
            if let Some(k) = self.gaps.iter().position(|&g| g != GapKind::Plain) {
                return Err(Error::invalid_request(
                    "window.sizes gives the sizes of plain messages: a trim that nothing \
                     limits keeps every message, and leaves out plain ones only",
                    format!("window.gaps[{k}]"),
                ));
            }
            return self.plan_sized(session, &gaps, sizes, budget);
        }
        if self.stood_in.is_some() {
            return Err(Error::invalid_request(
                "window.stood_in goes with window.sizes (a trim with a limit needs no lengths)",
                "window.stood_in",
            ));
        }
        let old_users = !gaps.is_empty()
            || session.messages.iter().any(|m| {
                m.role == Some(Role::User) && m.physical.is_some_and(|p| (p as usize) < self.from)
            });
        let first_is_system = session
            .messages
            .iter()
            .find(|m| m.physical == Some(0))
            .is_some_and(|m| matches!(m.role, Some(Role::System | Role::Developer)));
        let given_before: Vec<usize> = self
            .earlier
            .iter()
            .flat_map(|&(start, run)| start..start + self.doc.items(run).map_or(0, |i| i.len()))
            .collect();
        let Ok((mut plan, reach)) =
            plan_split_reach(&self.doc, session, &self.options, budget, None, true)
        else {
            return Ok(whole);
        };
        // Selection stopped inside the tail: what lies before was not reached.
        match reach.stopped_at {
            Some(s) if s >= self.from => {}
            Some(_) => return Ok(TailPlan::Widen { scale: None }),
            None => {
                let report = &plan.report;
                let by_count = (self.options.max_messages != usize::MAX).then(|| {
                    self.options.max_messages as f64 / report.output_messages.max(1) as f64
                });
                let by_budget = report
                    .budget_bytes
                    .map(|b| b as f64 / report.cost_bytes.max(1) as f64);
                let scale = match (by_count, by_budget) {
                    (Some(a), Some(b)) => a.min(b),
                    (a, b) => a.or(b).unwrap_or(f64::INFINITY),
                };
                return Ok(TailPlan::Widen { scale: Some(scale) });
            }
        }
        // Fewer anchors than there may be, or the turn's start missing: the older user
        // messages may hold them.
        if (reach.anchors < EARLIER_ANCHORS || reach.missing_turn_start) && old_users {
            return Ok(TailPlan::Widen { scale: None });
        }
        // No message before the tail is kept (but the pinned system message).
        let report = &plan.report;
        let kept_before = given_before.iter().any(|&p| {
            report.dropped_messages.binary_search(&p).is_err()
                && reach.removed.binary_search(&p).is_err()
                && !(p == 0 && first_is_system)
        });
        if kept_before {
            return Ok(TailPlan::Widen { scale: None });
        }
        merge_runs(&mut plan.report.dropped_messages, &gaps);
        Ok(TailPlan::Plan(Box::new(plan)))
    }

    /// The plan of a trim that nothing limits, the left-out messages given by their sizes:
    /// they are kept as given (plain messages are never repaired), and cost what the same
    /// message with their role and a content of their length costs. Text must cost bytes
    /// (tokens need the text) and the format must not merge turns (a left-out message could
    /// merge with a neighbour); else the whole history answers.
    fn plan_sized(
        &self,
        session: Session<'a>,
        gaps: &[std::ops::Range<usize>],
        sizes: &[(Raw<'_>, u64)],
        budget: Option<u64>,
    ) -> Result<TailPlan<'a>, Error> {
        let whole = TailPlan::Widen {
            scale: Some(f64::INFINITY),
        };
        let options = &self.options;
        if budget.is_some()
            || options.max_messages != usize::MAX
            || options.measure.in_tokens()
            || options.format.adapter().merges_turns()
        {
            return Ok(whole);
        }
        let left_out: usize = gaps.iter().map(|g| g.len()).sum();
        if left_out != sizes.len() {
            return Err(Error::invalid_request(
                format!(
                    "window.sizes gives {} messages where {left_out} are left out",
                    sizes.len()
                ),
                "window.sizes",
            ));
        }
        // A role's cost besides the content's length, priced once per role.
        let mut roles: Vec<(&str, u128)> = Vec::new();
        let mut extra = 0u128;
        for (k, &(role, length)) in sizes.iter().enumerate() {
            let meta = match roles.iter().find(|(r, _)| *r == role) {
                Some(&(_, meta)) => meta,
                None => {
                    let meta = plain_meta(role, options).ok_or_else(|| {
                        Error::invalid_request(
                            format!("{role} is not the role of a plain message in this format"),
                            format!("window.sizes[{}]", 2 * k),
                        )
                    })?;
                    roles.push((role, meta));
                    meta
                }
            };
            extra += meta + u128::from(length);
        }
        // What the given messages' stand-ins cost less than the caller's messages, by message.
        let stood_in = match &self.stood_in {
            Some(lengths) => self.stood_in_costs(&session, lengths)?,
            None => Vec::new(),
        };
        let Ok((mut plan, reach)) =
            plan_split_reach(&self.doc, session, options, None, None, false)
        else {
            return Ok(whole);
        };
        if reach.stopped_at.is_some() {
            return Ok(whole);
        }
        if !stood_in.is_empty() {
            for out in &plan.messages {
                let index = match out {
                    Out::Same(i) => *i,
                    // A changed message is written from what was given: a stand-in's text is
                    // not the caller's.
                    Out::Edited(edit) if stood_in.iter().all(|&(p, ..)| p != edit.index) => {
                        edit.index
                    }
                    // Repair removed the calls of a message whose stand-ins are all in
                    // them (and wrote its note): what they stood for is not kept.
                    Out::Edited(edit) => match stood_in.iter().find(|s| s.0 == edit.index) {
                        Some(&(_, more, true)) => {
                            if !edit.remove_tool_calls {
                                extra += u128::from(more);
                            }
                            continue;
                        }
                        _ => return Ok(whole),
                    },
                    _ => return Ok(whole),
                };
                if let Ok(k) = stood_in.binary_search_by_key(&index, |&(p, ..)| p) {
                    extra += u128::from(stood_in[k].1);
                }
            }
        }
        let messages = put_back(std::mem::take(&mut plan.messages), gaps);
        let report = &mut plan.report;
        report.output_messages = messages.len();
        report.cost_bytes = (report.cost_bytes)
            .saturating_add(u64::try_from(extra).unwrap_or(u64::MAX))
            .min(crate::pricing::MAX_PRICE);
        plan.messages = messages;
        Ok(TailPlan::Plan(Box::new(plan)))
    }

    /// The given messages' stand-ins (`window.stood_in`, with `sizes`): every string equal to
    /// the format's [`StandIn::REPLACEMENT`] where a stand-in may be, in the given messages but
    /// message 0, in order, stands for a string of the caller's whose UTF-8 and compact JSON
    /// lengths `lengths` gives. Returns, for each message holding one (ascending), what the
    /// caller's message costs more than the one given (a string a text unit reads costs its
    /// UTF-8 length, any other, such as a call's arguments, its JSON), and whether all its
    /// stand-ins lie in its list of calls (the format's [`crate::format::ToolInputs::list`]).
    fn stood_in_costs(
        &self,
        session: &Session<'a>,
        lengths: &[(u64, u64)],
    ) -> Result<Vec<(usize, u64, bool)>, Error> {
        let doc = &self.doc;
        let traits = self.options.format.traits();
        let stand_in = &traits.stand_in;
        let mut found: Vec<(usize, Raw<'a>)> = Vec::new();
        // The messages whose stand-ins all lie in their calls.
        let mut in_calls: Vec<usize> = Vec::new();
        for &(start, run) in &self.earlier {
            for (k, &message) in doc.items(run).unwrap_or_default().iter().enumerate() {
                if start + k == 0 {
                    continue;
                }
                let first = found.len();
                stand_ins_in(doc, stand_in, message, false, start + k, &mut found);
                let calls = traits.tool_inputs.list.and_then(|key| {
                    let fields = doc.fields(message)?;
                    let calls = get(&fields, key)?;
                    let at = calls.as_ptr() as usize;
                    Some(at..at + calls.len())
                });
                let all_in = |calls: &std::ops::Range<usize>| {
                    found[first..]
                        .iter()
                        .all(|(_, t)| calls.contains(&(t.as_ptr() as usize)))
                };
                if found.len() > first && calls.as_ref().is_some_and(all_in) {
                    in_calls.push(start + k);
                }
            }
        }
        if found.len() != lengths.len() {
            return Err(Error::invalid_request(
                format!(
                    "window.stood_in gives {} lengths where the given messages hold {} stand-ins",
                    lengths.len(),
                    found.len()
                ),
                "window.stood_in",
            ));
        }
        // The strings text units read, by where their token lies in the request.
        let read: std::collections::HashSet<usize> = session
            .units
            .iter()
            .filter_map(|u| match u.text {
                crate::model::TextSource::Raw(token) => Some(token.as_ptr() as usize),
                _ => None,
            })
            .collect();
        let given = crate::format::StandIn::REPLACEMENT;
        let mut costs: Vec<(usize, u64, bool)> = Vec::new();
        for (&(p, token), &(utf8, json)) in found.iter().zip(lengths) {
            let more = if read.contains(&(token.as_ptr() as usize)) {
                utf8.saturating_sub(given.len() as u64)
            } else {
                json.saturating_sub(crate::raw::string_len_as_json(given))
            };
            match costs.last_mut() {
                Some((last, sum, _)) if *last == p => *sum = sum.saturating_add(more),
                _ => costs.push((p, more, in_calls.binary_search(&p).is_ok())),
            }
        }
        Ok(costs)
    }

    /// The given messages split into one session, numbered as the caller's.
    fn session(&self, system: Option<Raw<'a>>) -> Result<Session<'a>, Error> {
        let (doc, options) = (&self.doc, &self.options);
        let mut parts = Vec::with_capacity(self.earlier.len() + 1);
        // The message right before a run, when it is given (Gemini matches a response
        // without an id to the calls of the content before it).
        let mut last: Option<(usize, Raw<'a>)> = None;
        let mut previous = |start: usize, run: Raw<'a>| {
            let before = last.filter(|&(end, _)| end == start).map(|(_, m)| m);
            let items = doc.items(run).unwrap_or_default();
            last = items.last().map(|&m| (start + items.len(), m));
            before
        };
        for (k, &(start, run)) in self.earlier.iter().enumerate() {
            let before = previous(start, run);
            parts.push(if k == 0 {
                split(doc, run, Start::Whole(system), options)?
            } else {
                split(
                    doc,
                    run,
                    Start::After {
                        first: start,
                        previous: before,
                    },
                    options,
                )?
            });
        }
        let before = previous(self.from, self.messages);
        parts.push(split(
            doc,
            self.messages,
            Start::After {
                first: self.from,
                previous: before,
            },
            options,
        )?);
        let length = self.from + doc.items(self.messages).map_or(0, |i| i.len());
        let mut session = Session {
            messages: Vec::new(),
            units: Vec::new(),
            inputs: vec!["null"; length],
            notes_in_meta: false,
        };
        for (part, first) in parts.iter_mut().zip(
            self.earlier
                .iter()
                .map(|&(start, _)| start)
                .chain([self.from]),
        ) {
            let base = session.units.len() as u32;
            for mut msg in part.messages.drain(..) {
                msg.units = (msg.units.0 + base, msg.units.1 + base);
                session.messages.push(msg);
            }
            session.units.append(&mut part.units);
            for (k, input) in part.inputs.iter().enumerate() {
                session.inputs[first + k] = input;
            }
        }
        Ok(session)
    }
}

/// What a plain message of role `role` (a JSON string) costs besides its content's UTF-8
/// length (bytes), or `None` when such a message is not plain in the format: the cost of
/// `{"role": role, "content": "x"}` less one.
fn plain_meta(role: &str, options: &TrimOptions) -> Option<u128> {
    let text = format!("[{{\"role\":{role},\"content\":\"x\"}}]");
    let doc = Doc::parse(&text).ok()?;
    let session = split(&doc, doc.root(), Start::Whole(None), options).ok()?;
    if session.messages.len() != 1 || session.messages[0].physical != Some(0) {
        return None;
    }
    plain_role(&session, 0)?;
    Some(session.cost(0) - 1)
}

/// Collects into `found` the strings of `value` (of the caller's message `p`) that are
/// [`StandIn::REPLACEMENT`] where a stand-in may be: the value of a member named in
/// `text_keys`, or any string inside a member named in `data_keys` (`data`: inside one), in
/// document order.
fn stand_ins_in<'a>(
    doc: &Doc<'a>,
    stand_in: &StandIn,
    value: Raw<'a>,
    data: bool,
    p: usize,
    found: &mut Vec<(usize, Raw<'a>)>,
) {
    let is_replacement =
        |raw: Raw<'_>| crate::raw::string(raw).is_some_and(|s| s == StandIn::REPLACEMENT);
    match kind(value) {
        Kind::String if data && is_replacement(value) => found.push((p, value)),
        Kind::Object => {
            for (key, item) in doc.fields(value).unwrap_or_default() {
                if kind(item) == Kind::String {
                    let text = data || stand_in.text_keys.contains(&key.as_ref());
                    if text && is_replacement(item) {
                        found.push((p, item));
                    }
                } else {
                    let data = data || stand_in.data_keys.contains(&key.as_ref());
                    stand_ins_in(doc, stand_in, item, data, p, found);
                }
            }
        }
        Kind::Array => {
            for item in doc.items(value).unwrap_or_default() {
                stand_ins_in(doc, stand_in, item, data, p, found);
            }
        }
        _ => {}
    }
}

/// Answers a tail trim request: the plan answer of the whole history's trim (`{"ok": true,
/// "plan": [...], "report": {...}}`, as a session's), or `{"ok": true, "widen": true}` (with
/// `"scale"` when every message given fit: how many times more the limits hold; `null`: send
/// the whole history, when nothing limits the trim or no tail can give its answer).
pub fn trim_tail_answer(text: &str) -> Result<Answer<'_>, Error> {
    tail_answer(TailRequest::parse(text)?)
}

/// [`trim_tail_answer`] for a request read into its document.
pub(crate) fn tail_answer(request: TailRequest<'_>) -> Result<Answer<'_>, Error> {
    match request.plan()? {
        TailPlan::Plan(plan) => Ok(write_plan_answer(&request.doc, *plan)),
        TailPlan::Widen { scale } => Ok(Answer::text(match scale {
            // Every message given fit, within this part of the limits.
            Some(scale) if scale.is_finite() => {
                format!("{{\"ok\":true,\"widen\":true,\"scale\":{scale:.3}}}")
            }
            Some(_) => "{\"ok\":true,\"widen\":true,\"scale\":null}".to_owned(),
            None => "{\"ok\":true,\"widen\":true}".to_owned(),
        })),
    }
}

/// Answers a sanitize request of a history's tail (`{"messages", "format"?, "window"?}`, see
/// [`TailRequest::parse_sanitize`]): `{"ok": true, "plan": [...], "report": {"repaired":
/// [...]}}`, or `{"ok": true, "widen": true}` (send the whole history, without `window`).
pub fn sanitize_tail_answer(text: &str) -> Result<Answer<'_>, Error> {
    let request = TailRequest::parse_sanitize(text)?;
    match request.plan_sanitize()? {
        TailPlan::Plan(plan) => Ok(write_plan_answer_styled(
            &request.doc,
            *plan,
            Style::Repairs,
        )),
        TailPlan::Widen { .. } => Ok(Answer::text("{\"ok\":true,\"widen\":true}".to_owned())),
    }
}

/// [`sanitize_tail_answer`] as text (success or error).
pub fn sanitize_tail_json(request: &str) -> String {
    text_of(sanitize_tail_answer(request))
}

/// [`trim_tail_answer`] as text (success or error).
pub fn trim_tail_json(request: &str) -> String {
    text_of(trim_tail_answer(request))
}

//! The trimming pipeline (DESIGN §6), in the order the data flows:
//!
//! ```text
//! request ─► format adapter: split into logical messages, priced once   (format/*.rs)
//!         ─► repair, groups                                 [repair]     (repair.rs)
//!         ─► tags: pinned system, request, anchors, exchange in progress (here; the state
//!            of a trim in progress is trimmer.rs)
//!         ─► selection: newest groups first while they fit  [select]     (here)
//!         ─► shedding: texts, images, attachments, soft groups [shed]    (shed.rs)
//!         ─► the room left to the newest first: regrow, refill, fill     (fill.rs)
//!         ─► the answer starts on the user's turn (Anthropic, Gemini)    (turn.rs)
//!         ─► the provider's rules on the kept messages      [settle]     (format adapter)
//!         ─► report in the caller's indices                 [report]     (report.rs)
//!         ─► format adapter: rebuild the answer from the caller's bytes  [rebuild]
//!         ─► cleared tool inputs written, cache breakpoint placed        [finish_answer]
//! ```
//!
//! The steps in brackets are the functions and methods of that name here. Every unit is priced
//! once; the steps keep running totals. Nothing here knows a wire format.

use crate::error::{Error, ErrorCode};
use crate::format::write::edited_text;
use crate::format::{Edit, Format, Out, Placed, Pricing};
use crate::model::{Role, Session, UnitKind};
use crate::raw::{Doc, Raw};
use crate::repair::Repaired;
use crate::report::{Breakpoint, Limit, Report, Warning};
use crate::request::TrimOptions;
use crate::trimmer::{saturate, Tag, Trimmer};
use serde_json::{Map, Value};

/// A total as the report gives it: within what a JSON number holds exactly in every binding
/// (2⁵³ − 1, [`crate::pricing::MAX_PRICE`]). Each price is bounded so; a sum of them may not be
/// (two remote files declared at 1.8 × 10¹⁹ pages cost 1.8 × 10¹⁶ bytes).
fn reported(total: u128) -> u64 {
    saturate(total).min(crate::pricing::MAX_PRICE)
}

/// Earlier user messages anchored besides the newest one.
pub const EARLIER_ANCHORS: usize = 2;
/// The combined size limit of the earlier anchors.
pub const ANCHOR_BYTES: u64 = 4096;
/// The same limit when costs are tokens.
pub const ANCHOR_TOKENS: u64 = 1024;

/// The exact message of `context_budget_exceeded`.
pub const BUDGET_EXCEEDED_MESSAGE: &str =
    "The current request/tool schema exceeds the model context budget.";

/// Which messages to return, in order, and the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan<'a> {
    pub messages: Vec<Out>,
    pub report: Report<'a>,
    /// The caller's messages as written (what [`Out::Same`] and [`Out::Edited`] index).
    pub inputs: Vec<Raw<'a>>,
    /// The caller's messages (indices of `inputs`) whose tool calls' arguments
    /// `clear_tool_inputs` cleared: the answer's messages are written so last
    /// (`finish_answer`).
    pub cleared_inputs: Vec<usize>,
}

/// Trims the caller's `messages` (and the format's outside `system`) to `options`: the plan of
/// the answer, its last steps taken (the calls `clear_tool_inputs` cleared written so, the
/// cache breakpoint placed, `finish_answer`).
pub fn plan_trim<'a>(
    doc: &Doc<'a>,
    messages: Raw<'a>,
    system: Option<Raw<'a>>,
    options: &TrimOptions,
) -> Result<Plan<'a>, Error> {
    let budget = options.history_budget()?;
    let session = split(doc, messages, Start::Whole(system), options)?;
    let mut plan = plan_split_reach(doc, session, options, budget, None, false)?.0;
    finish_answer(doc, system, options, &mut plan);
    Ok(plan)
}

/// How far back a trim's selection looked (an incremental session uses it to trim only the
/// newest messages of a long history, [`crate::session`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reach {
    /// The caller's index of the first message of the optional group that ended selection
    /// (the newest group that did not fit); `None` when selection took every group.
    pub stopped_at: Option<usize>,
    /// Earlier user messages anchored.
    pub anchors: usize,
    /// The answer had to start with the user's turn and no user message before the kept run
    /// was among the messages given (see [`crate::turn`]).
    pub missing_turn_start: bool,
    /// The caller's indices of the messages repair removed whole (none of their logical
    /// messages left), ascending; filled only when asked for.
    pub removed: Vec<usize>,
}

/// Plans the trim of a request already split into the neutral model (an incremental session
/// keeps its split between trims), to the history budget `budget`; with the token counts of
/// such a session's earlier trims (`cache`: taken from there, and what this trim counts
/// added). Also says how far back selection looked (with the messages repair removed whole
/// when `removed`).
pub(crate) fn plan_split_reach<'a>(
    doc: &Doc<'a>,
    session: Session<'a>,
    options: &TrimOptions,
    budget: Option<u64>,
    cache: Option<&mut crate::count_cache::CountCache>,
    removed: bool,
) -> Result<(Plan<'a>, Reach), Error> {
    let mut session = session;
    let repaired = repair(&mut session, options);
    let mut trimmer = Trimmer::new(doc, session, repaired, options, budget, cache);
    trimmer.select();
    // A cache-stable trim neither regrows, refills nor fills: each would move its prefix (fill
    // on the trims whose cut moves alone takes the agent loop of examples/cache_stability
    // from a prefix share of 0.90 to 0.81: the next trim drops the filled group again).
    let stable = options.cache.stable;
    if let Some(budget) = budget {
        if trimmer.total > u128::from(budget) {
            trimmer.shed(budget)?;
            if !stable {
                trimmer.regrow();
                trimmer.refill();
            }
        }
    }
    // The user message that began the kept run's turn comes before the older group that
    // fill would bring back (the task before an old tool result); a group fill brings back
    // that starts with the model's turn needs one too.
    trimmer.start_on_user_turn();
    if !stable {
        trimmer.fill();
        trimmer.start_on_user_turn();
    }
    let reach = Reach {
        stopped_at: trimmer.stopped.map(|g| {
            let m = trimmer.group_msgs(g)[0];
            trimmer.session.messages[m].physical.unwrap_or(0) as usize
        }),
        anchors: trimmer.anchors,
        missing_turn_start: trimmer.missing_turn_start,
        removed: if removed {
            removed_whole(&trimmer.session, &trimmer.repaired.order)
        } else {
            Vec::new()
        },
    };
    let kept = trimmer.settle();
    trimmer.report(&kept);
    Ok((trimmer.rebuild(doc, kept), reach))
}

/// Repair (DESIGN §5) and the cut into groups, the format's own way, on the logical messages.
fn repair<'a>(session: &mut Session<'a>, options: &TrimOptions) -> Repaired<'a> {
    options.format.adapter().repair(session)
}

/// Repairs the caller's `messages` (DESIGN §5) without trimming.
pub fn plan_sanitize<'a>(
    doc: &Doc<'a>,
    messages: Raw<'a>,
    format: Format,
) -> Result<Plan<'a>, Error> {
    let options = TrimOptions {
        max_messages: usize::MAX,
        format,
        ..TrimOptions::default()
    };
    let session = split(doc, messages, Start::Whole(None), &options)?;
    Ok(plan_sanitize_split(doc, session, &options))
}

/// Repairs messages already split (see [`plan_sanitize`]; `options` as it makes them).
pub(crate) fn plan_sanitize_split<'a>(
    doc: &Doc<'a>,
    session: Session<'a>,
    options: &TrimOptions,
) -> Plan<'a> {
    let mut session = session;
    let repaired = repair(&mut session, options);
    let mut trimmer = Trimmer::new(doc, session, repaired, options, None, None);
    trimmer.kept.iter_mut().for_each(|k| *k = true);
    let kept = trimmer.settle();
    trimmer.report(&kept);
    trimmer.rebuild(doc, kept)
}

/// What [`plan_count`] counted: the cost of each of the caller's messages as it stands (no
/// repair, no trimming), of the format's outside system prompt, and how it was counted.
#[derive(Debug, Clone, PartialEq)]
pub struct Count {
    pub messages: Vec<u64>,
    pub system: Option<u64>,
    pub measure: crate::tokens::Measure,
}

impl Count {
    pub fn total(&self) -> u64 {
        self.messages
            .iter()
            .chain(&self.system)
            .fold(0u64, |sum, &c| sum.saturating_add(c))
    }
}

/// Counts the caller's messages in the request's unit (tokens when a tokenizer is named or
/// selected by the model; bytes otherwise), each as trim would price it.
pub fn plan_count<'a>(
    doc: &Doc<'a>,
    messages: Raw<'a>,
    system: Option<Raw<'a>>,
    options: &TrimOptions,
) -> Result<Count, Error> {
    let mut session = split(doc, messages, Start::Whole(system), options)?;
    let adapter = options.format.adapter();
    let mut count = Count {
        messages: vec![0; session.inputs.len()],
        system: None,
        measure: options.measure,
    };
    for m in 0..session.messages.len() {
        let cost = if options.measure.in_tokens() {
            crate::trimmer::count_message(doc, &mut session, m, &options.measure, adapter, None)
                .unwrap_or(u128::MAX)
        } else {
            session.cost(m)
        };
        let cost = saturate(cost);
        let slot = match session.messages[m].physical {
            Some(p) => &mut count.messages[p as usize],
            None => count.system.get_or_insert(0),
        };
        *slot = slot.saturating_add(cost);
    }
    Ok(count)
}

fn pricing(options: &TrimOptions) -> Pricing<'_> {
    Pricing {
        profile: options.image_profile,
        // In token mode an image costs its tokens.
        bytes_per_token: if options.measure.in_tokens() {
            1
        } else {
            options.bytes_per_token
        },
        image_sizes: &options.image_sizes,
        file_sizes: &options.file_sizes,
    }
}

pub(crate) use crate::format::split::Start;

/// Splits the caller's messages with the options' format and pricing.
pub(crate) fn split<'a>(
    doc: &Doc<'a>,
    messages: Raw<'a>,
    start: Start<'a>,
    options: &TrimOptions,
) -> Result<Session<'a>, Error> {
    let pricing = pricing(options);
    let input = crate::format::Input {
        doc,
        messages,
        start,
        pricing: &pricing,
    };
    options.format.adapter().split(&input)
}

/// The caller's indices of the messages none of whose logical messages is in `order` (what
/// repair left), ascending.
fn removed_whole(session: &Session<'_>, order: &[usize]) -> Vec<usize> {
    let mut left = vec![false; session.messages.len()];
    for &m in order {
        left[m] = true;
    }
    crate::format::physical_runs(session)
        .filter(|(_, range)| range.clone().all(|m| !left[m]))
        .map(|(p, _)| p)
        .collect()
}

impl<'a> Trimmer<'a, '_> {
    /// Tags the groups that must stay, then adds the others newest first.
    fn select(&mut self) {
        let n = self.repaired.groups.len();
        if n > 0 && matches!(self.first_role(0), Some(Role::System | Role::Developer)) {
            self.tags[0] = Tag::Pinned;
        }
        let request = (0..n)
            .rev()
            .find(|&g| self.first_role(g) == Some(Role::User));
        if let Some(r) = request {
            self.tags[r] = Tag::Request;
        }
        // The messages a summary or a server compaction stands for are not kept
        // (crate::stable).
        self.floor = self.summary_floor().max(self.keep_compaction());
        // The anchors of a cache-stable trim depend on where its cut falls (crate::stable).
        if let (Some(r), false) = (request, self.options.cache.stable) {
            let mut anchored = 0;
            let mut used = 0u128;
            let limit = if self.measure.in_tokens() {
                ANCHOR_TOKENS
            } else {
                ANCHOR_BYTES
            };
            for g in (self.floor..r).rev() {
                if anchored == EARLIER_ANCHORS {
                    break;
                }
                if self.first_role(g) != Some(Role::User) {
                    continue;
                }
                let room = u128::from(limit) - used;
                if let Some(cost) = self.group_cost_within(g, Some(room)) {
                    self.tags[g] = Tag::Anchor;
                    used += cost;
                    anchored += 1;
                }
            }
            self.anchors = anchored;
        }
        // An agent in the middle of a tool loop must see the result it just asked for.
        if let Some(last) = n.checked_sub(1) {
            if self.repaired.groups[last].exchange && request.is_none_or(|r| last > r) {
                self.tags[last] = Tag::InProgress;
            }
        }

        for g in 0..n {
            if self.tags[g] != Tag::Optional {
                self.kept[g] = true;
                self.total += self.group_cost_within(g, None).unwrap_or(0);
                self.count += self.repaired.groups[g].len();
            }
        }
        self.reserve_summary();
        if let (Some(clear), Some(budget)) = (&self.options.clear_tool_results, self.budget) {
            crate::shed::clear_tool_results(self, clear, budget);
        }
        if self.options.cache.stable {
            self.select_stable();
            return;
        }
        self.frontier = n;
        self.report.limited_by = self.extend();
    }

    /// Keeps optional groups newest first from [`Trimmer::frontier`] on while they fit
    /// `max_messages` and the budget; the first that does not fit ends the run (the kept
    /// optional groups are one contiguous newest run), and it stays the frontier, so that a
    /// later call (refill) goes on from there. Returns the limit that ended the run, if any.
    pub(crate) fn extend(&mut self) -> Option<Limit> {
        let limit = self.extend_run();
        self.stopped = limit.map(|_| self.frontier - 1);
        limit
    }

    fn extend_run(&mut self) -> Option<Limit> {
        while let Some(g) = self.frontier.checked_sub(1) {
            if g < self.floor {
                return None;
            }
            if self.tags[g] != Tag::Optional {
                self.frontier = g;
                continue;
            }
            let len = self.repaired.groups[g].len();
            if self.count.saturating_add(len) > self.options.max_messages {
                return Some(Limit::MaxMessages);
            }
            let room = self
                .budget
                .map(|b| u128::from(b).saturating_sub(self.total));
            let Some(cost) = self.group_cost_within(g, room) else {
                return Some(Limit::Budget);
            };
            self.kept[g] = true;
            self.total += cost;
            self.count += len;
            self.frontier = g;
        }
        None
    }

    /// After shedding freed budget: selection goes on where it stopped, so older groups that
    /// now fit come back (newest first, same rules, still one contiguous run). Each group is
    /// considered at most once more, so the pass stays linear. Reports the caller's indices of
    /// the messages it brought back.
    fn refill(&mut self) {
        let from = self.frontier;
        let limit = self.extend();
        let mut back: Vec<usize> = (self.frontier..from)
            .filter(|&g| self.kept[g] && self.tags[g] == Tag::Optional)
            .flat_map(|g| self.group_msgs(g).to_vec())
            .filter_map(|m| self.session.messages[m].physical.map(|p| p as usize))
            .collect();
        back.sort_unstable();
        back.dedup();
        self.report.refilled = back;
        // The budget bound the answer (something was shed) unless the count stopped refill.
        self.report.limited_by = Some(limit.unwrap_or(Limit::Budget));
    }

    /// Sheds inside the kept messages (DESIGN §6.7–8), step by step in the order of
    /// [`crate::shed::STEPS`], then fails loudly if even that is not enough.
    fn shed(&mut self, budget: u64) -> Result<(), Error> {
        for step in crate::shed::STEPS {
            if self.total <= u128::from(budget) {
                return Ok(());
            }
            step(self, budget)?;
        }
        if self.total > u128::from(budget) {
            return Err(self.budget_exceeded(budget));
        }
        Ok(())
    }

    fn budget_exceeded(&self, budget: u64) -> Error {
        let cost_of = |tag: Tag| -> u64 {
            reported(
                (0..self.tags.len())
                    .filter(|&g| self.tags[g] == tag && self.kept[g])
                    .map(|g| self.group_cost(g))
                    .sum(),
            )
        };
        let mut breakdown = match self.options.breakdown(i128::from(budget)) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let unit = if self.measure.in_tokens() {
            "tokens"
        } else {
            "bytes"
        };
        breakdown.insert(format!("system_{unit}"), cost_of(Tag::Pinned).into());
        breakdown.insert(format!("request_{unit}"), cost_of(Tag::Request).into());
        breakdown.insert(format!("required_{unit}"), reported(self.total).into());
        let mut details = Map::new();
        details.insert("breakdown".into(), Value::Object(breakdown));
        Error::new(ErrorCode::ContextBudgetExceeded, BUDGET_EXCEEDED_MESSAGE).with_details(details)
    }

    /// The logical messages of the kept groups, less those the provider would refuse (the
    /// format's [`crate::format::Adapter::settle`]; none when a summary is placed: it is the
    /// user's turn the answer starts on), which the report forgets.
    fn settle(&mut self) -> Kept {
        let n = self.session.messages.len();
        let mut messages = vec![false; n];
        for (g, &k) in self.kept.iter().enumerate() {
            if k {
                for &m in self.group_msgs(g) {
                    messages[m] = true;
                }
            }
        }
        let settled = if self.summary.is_some() {
            Vec::new()
        } else {
            let adapter = self.options.format.adapter();
            adapter.settle(&self.session, &mut messages)
        };
        if !settled.is_empty() {
            let physical: Vec<usize> = settled
                .iter()
                .filter_map(|&m| self.session.messages[m].physical.map(|p| p as usize))
                .collect();
            self.report.forget_messages(&physical);
        }
        Kept {
            after_pinned: self.after_pinned_input(),
            messages,
        }
    }

    /// The report in the caller's indices: what was dropped (and the cut), the answer's cost,
    /// the warnings, the tool results cleared and the repairs. Selection is done with its
    /// order and groups: they are freed first (where a history of many tiny messages peaks).
    fn report(&mut self, kept: &Kept) {
        let kept = &kept.messages;
        if self.options.cache.stable {
            let dropped_any = self.repaired.order.iter().any(|&m| !kept[m]);
            self.report.cut = Some(self.report_cut(dropped_any));
        }
        // The order becomes the logical messages dropped by trimming (not by repair),
        // ascending, in place: a list collected beside it, the groups still held, was the
        // peak of 300,000 one-letter messages.
        drop(std::mem::take(&mut self.repaired.groups));
        let mut dropped = std::mem::take(&mut self.repaired.order);
        dropped.retain(|&m| !kept[m]);
        dropped.sort_unstable();
        let mut cost = 0u128;
        for (m, &k) in kept.iter().enumerate() {
            if k {
                cost += self.session.cost(m);
            }
        }
        cost += self.summary.as_ref().map_or(0, |s| s.1);
        self.report.cost_bytes = reported(cost);
        self.report.warnings = implausible_images(&self.session, self.options.format);
        (self.report.warnings).extend(crate::report::file_warnings(
            &self.session,
            self.options.format,
        ));
        self.report.cleared_tool_results = std::mem::take(&mut self.cleared)
            .into_iter()
            .filter(|&(m, _)| kept[m])
            .map(|(_, entry)| entry)
            .collect();
        let repairs = std::mem::take(&mut self.repaired.repairs);
        self.report.locate(&self.session, kept, &dropped, repairs);
    }

    /// The answer's messages, rebuilt by the format from the caller's bytes, with the summary
    /// placed right after the pinned message ([`crate::stable`]).
    fn rebuild(mut self, doc: &Doc<'a>, kept: Kept) -> Plan<'a> {
        let Kept {
            messages: kept,
            after_pinned,
        } = kept;
        let adapter = self.options.format.adapter();
        let mut rebuilt = adapter.rebuild(doc, &self.session, &kept);
        self.report.merged = rebuilt.merged;
        let summary = self.summary.take();
        let placed = summary.is_some();
        if let Some((message, _)) = summary {
            let at = usize::from(after_pinned > 0);
            let at = at.min(rebuilt.messages.len());
            rebuilt.messages.insert(at, Out::New(message.into()));
            self.report.summary = Some(at);
        }
        if self.options.cache.stable {
            let cut = self.report.cut.flatten();
            self.report.compaction =
                self.compaction(cut, &self.report.dropped_messages, after_pinned, placed);
        }
        self.report.output_messages = rebuilt.messages.len();
        let cleared_inputs = (self.inputs_cleared.iter())
            .filter(|&&m| kept[m])
            .filter_map(|&m| self.session.messages[m].physical.map(|p| p as usize))
            .collect();
        Plan {
            messages: rebuilt.messages,
            report: self.report,
            inputs: self.session.inputs,
            cleared_inputs,
        }
    }
}

/// The logical messages an answer keeps ([`Trimmer::settle`]), and the caller's index of the
/// first message after the pinned one (read while the groups are there).
struct Kept {
    messages: Vec<bool>,
    after_pinned: usize,
}

/// The answer's last steps, on a plan whose messages are final: the calls whose arguments
/// `clear_tool_inputs` cleared are written so ([`crate::format::inputs`]); then, with
/// `cache_breakpoint`, the format places its prompt-cache breakpoint and the report says where.
pub(crate) fn finish_answer<'a>(
    doc: &Doc<'a>,
    system: Option<Raw<'a>>,
    options: &TrimOptions,
    plan: &mut Plan<'a>,
) {
    let render = |message: Raw<'a>, edit: &Edit| edited_text(doc, message, edit);
    write_cleared_inputs(doc, options, plan, &render);
    if options.cache.cache_breakpoint {
        place_breakpoint(system, options, plan, &render);
    }
}

/// The answer's messages that hold calls `clear_tool_inputs` cleared, with their arguments
/// replaced.
fn write_cleared_inputs<'a>(
    doc: &Doc<'a>,
    options: &TrimOptions,
    plan: &mut Plan<'a>,
    render: &impl Fn(Raw<'a>, &Edit) -> String,
) {
    crate::format::inputs::rewrite_answer(
        options.format.adapter(),
        doc,
        &plan.inputs,
        &plan.cleared_inputs,
        &mut plan.messages,
        |edit| render(plan.inputs[edit.index], edit),
    );
}

/// The format's prompt-cache breakpoint, placed in the answer's messages and the outside system
/// prompt's; the report says where (or that none could be).
fn place_breakpoint<'a>(
    system: Option<Raw<'a>>,
    options: &TrimOptions,
    plan: &mut Plan<'a>,
    render: &impl Fn(Raw<'a>, &Edit) -> String,
) {
    let placed = {
        let texts: Vec<std::borrow::Cow<'_, str>> = plan
            .messages
            .iter()
            .map(|out| match out {
                Out::Same(i) => plan.inputs[*i].into(),
                Out::New(text) => (&**text).into(),
                Out::Edited(edit) => render(plan.inputs[edit.index], edit).into(),
            })
            .collect();
        options.format.adapter().place_breakpoint(system, &texts)
    };
    plan.report.cache_breakpoint = Some(placed.as_ref().map(|p| Breakpoint {
        output_index: p.index,
        part: p.part,
        given: p.message.is_none(),
    }));
    if let Some(Placed {
        index,
        message: Some(text),
        ..
    }) = placed
    {
        plan.messages[index] = Out::New(text.into());
    }
}

/// A warning for every image of the input whose header is implausible (priced as the
/// profile's largest typical image instead of what the header claims), with its path.
fn implausible_images(session: &Session<'_>, format: Format) -> Vec<Warning> {
    let mut warnings = Vec::new();
    // Mostly none: a look at the units alone (not at every message as well) tells.
    let any = session
        .units
        .iter()
        .any(|u| matches!(&u.kind, UnitKind::Media(price) if price.implausible));
    if !any {
        return warnings;
    }
    for msg in &session.messages {
        for unit in &session.units[msg.unit_range()] {
            let UnitKind::Media(price) = &unit.kind else {
                continue;
            };
            let (true, Ok(info)) = (price.implausible, price.probe) else {
                continue;
            };
            let message = format!(
                "{} header states {}×{} pixels, more than any real image of its payload's size \
                 or any provider's limit; priced as the profile's largest typical image, {} \
                 tokens",
                info.format,
                info.width,
                info.height,
                price.tokens.unwrap_or(0)
            );
            warnings.push(Warning::of_unit(
                "implausible_image",
                format,
                session,
                msg,
                unit,
                message,
            ));
        }
    }
    warnings
}

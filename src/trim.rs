//! The trimming pipeline (DESIGN §6), in the order the data flows:
//!
//! ```text
//! request ─► format adapter: split into logical messages, priced once   (format/*.rs)
//!         ─► repair, groups                                              (repair.rs)
//!         ─► tags: pinned system, request, anchors, exchange in progress (here; the state
//!            of a trim in progress is trimmer.rs)
//!         ─► selection: newest groups first while they fit               (here)
//!         ─► shedding: texts, images, attachments, soft groups           (shed.rs)
//!         ─► report in the caller's indices                              (report.rs)
//!         ─► format adapter: rebuild the answer from the caller's bytes  (format/*.rs)
//! ```
//!
//! Every unit is priced once; the steps keep running totals. Nothing here knows a wire format.

use crate::error::{Error, ErrorCode};
use crate::format::{Format, Out, Pricing};
use crate::model::{Role, Session};
use crate::raw::{Doc, Raw};
use crate::report::Report;
use crate::request::TrimOptions;
use crate::trimmer::{saturate, Tag, Trimmer};
use serde_json::{Map, Value};

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
}

/// Trims the caller's `messages` (and the format's outside `system`) to `options`.
pub fn plan_trim<'a>(
    doc: &Doc<'a>,
    messages: Raw<'a>,
    system: Option<Raw<'a>>,
    options: &TrimOptions,
) -> Result<Plan<'a>, Error> {
    let budget = options.history_budget()?;
    let session = split(doc, messages, system, options)?;
    plan_split(doc, session, options, budget, None)
}

/// Plans the trim of a request already split into the neutral model (an incremental session
/// keeps its split between trims), to the history budget `budget`; with the token counts of
/// such a session's earlier trims (`cache`: taken from there, and what this trim counts added).
pub(crate) fn plan_split<'a>(
    doc: &Doc<'a>,
    session: Session<'a>,
    options: &TrimOptions,
    budget: Option<u64>,
    cache: Option<&mut crate::session::CountCache>,
) -> Result<Plan<'a>, Error> {
    let mut trimmer = Trimmer::new(doc, session, options, budget);
    trimmer.cache = cache;
    trimmer.select();
    if let Some(budget) = budget {
        trimmer.shed(budget)?;
    }
    Ok(trimmer.finish(doc))
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
    let session = split(doc, messages, None, &options)?;
    let mut trimmer = Trimmer::new(doc, session, &options, None);
    trimmer.kept.iter_mut().for_each(|k| *k = true);
    Ok(trimmer.finish(doc))
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
    let mut session = split(doc, messages, system, options)?;
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

pub(crate) fn split<'a>(
    doc: &Doc<'a>,
    messages: Raw<'a>,
    system: Option<Raw<'a>>,
    options: &TrimOptions,
) -> Result<Session<'a>, Error> {
    let pricing = Pricing {
        profile: options.image_profile,
        // In token mode an image costs its tokens.
        bytes_per_token: if options.measure.in_tokens() {
            1
        } else {
            options.bytes_per_token
        },
        image_sizes: &options.image_sizes,
    };
    options
        .format
        .adapter()
        .split(doc, messages, system, &pricing)
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
            let mut anchored = 0;
            let mut used = 0u128;
            let limit = if self.measure.in_tokens() {
                ANCHOR_TOKENS
            } else {
                ANCHOR_BYTES
            };
            for g in (0..r).rev() {
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
        }
        // An agent in the middle of a tool loop must see the result it just asked for.
        if let Some(last) = n.checked_sub(1) {
            if self.repaired.groups[last].exchange && request.is_none_or(|r| last > r) {
                self.tags[last] = Tag::InProgress;
            }
        }

        let mut count = 0usize;
        for g in 0..n {
            if self.tags[g] != Tag::Optional {
                self.kept[g] = true;
                self.total += self.group_cost_within(g, None).unwrap_or(0);
                count += self.repaired.groups[g].len;
            }
        }
        for g in (0..n).rev() {
            if self.tags[g] != Tag::Optional {
                continue;
            }
            let len = self.repaired.groups[g].len;
            if count + len > self.options.max_messages {
                break;
            }
            let room = self
                .budget
                .map(|b| u128::from(b).saturating_sub(self.total));
            let Some(cost) = self.group_cost_within(g, room) else {
                break;
            };
            self.kept[g] = true;
            self.total += cost;
            count += len;
        }
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
            saturate(
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
        breakdown.insert(format!("required_{unit}"), saturate(self.total).into());
        let mut details = Map::new();
        details.insert("breakdown".into(), Value::Object(breakdown));
        Error::new(ErrorCode::ContextBudgetExceeded, BUDGET_EXCEEDED_MESSAGE).with_details(details)
    }

    fn finish(mut self, doc: &Doc<'a>) -> Plan<'a> {
        let n = self.session.messages.len();
        let mut kept = vec![false; n];
        for (g, &k) in self.kept.iter().enumerate() {
            if k {
                for &m in self.group_msgs(g) {
                    kept[m] = true;
                }
            }
        }
        let adapter = self.options.format.adapter();
        let settled = adapter.settle(&self.session, &mut kept);
        if !settled.is_empty() {
            let physical: Vec<usize> = settled
                .iter()
                .filter_map(|&m| self.session.messages[m].physical.map(|p| p as usize))
                .collect();
            self.report.forget_messages(&physical);
        }
        // Logical messages dropped by trimming (not by repair), ascending.
        let mut dropped: Vec<usize> = self
            .repaired
            .order
            .iter()
            .copied()
            .filter(|&m| !kept[m])
            .collect();
        dropped.sort_unstable();
        let mut cost = 0u128;
        for (m, &k) in kept.iter().enumerate() {
            if k {
                cost += self.session.cost(m);
            }
        }
        self.report.cost_bytes = saturate(cost);
        let repairs = std::mem::take(&mut self.repaired.repairs);
        self.report.locate(&self.session, &kept, &dropped, repairs);
        let rebuilt = adapter.rebuild(doc, &self.session, &kept);
        self.report.merged = rebuilt.merged;
        self.report.output_messages = rebuilt.messages.len();
        Plan {
            messages: rebuilt.messages,
            report: self.report,
            inputs: self.session.inputs,
        }
    }
}

//! The state of one trim, shared by the pipeline ([`crate::trim`]) and the shedding steps
//! ([`crate::shed`]): the repaired session in groups, each group's tag and whether it is kept,
//! and the running total of what is kept.

use crate::format::{Adapter, Logical};
use crate::model::{Change, Role, Session, UnitKind};
use crate::raw::Doc;
use crate::repair::Repaired;
use crate::report::Report;
use crate::request::TrimOptions;
use crate::tokens::Measure;

/// Tokens of a message's framing (its start and end markers), as OpenAI counts them.
pub const FRAMING_TOKENS: u64 = 3;

/// Why a group is kept whatever the budget, or that it is optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    Optional,
    Pinned,
    Request,
    Anchor,
    InProgress,
}

/// One trim in progress.
pub(crate) struct Trimmer<'a, 'o> {
    pub doc: &'o Doc<'a>,
    pub session: Session<'a>,
    pub repaired: Repaired<'a>,
    pub options: &'o TrimOptions,
    pub budget: Option<u64>,
    pub tags: Vec<Tag>,
    pub kept: Vec<bool>,
    /// Cost of the kept groups. Wider than a unit's cost: an image may cost up to u64::MAX
    /// budget bytes (tokens × bytes_per_token, saturated), and sums of such must not wrap.
    pub total: u128,
    pub report: Report<'a>,
    /// How text is counted. In token mode the adapters' byte costs are replaced by tokens
    /// message by message, when a step first needs a message's cost (only what may be kept
    /// is counted): `counted[m]` says whether logical message `m` is in tokens yet. Empty in
    /// bytes mode, where every cost is final from the start.
    pub measure: Measure,
    counted: Vec<bool>,
    /// Tool results cleared by `clear_tool_results` (logical message, entry); reported when
    /// their message is kept.
    pub cleared: Vec<(usize, crate::report::ClearedToolResult)>,
    /// Logical messages whose calls' arguments `clear_tool_inputs` cleared.
    pub inputs_cleared: Vec<usize>,
    /// Selection takes optional groups newest first: the groups before `frontier` are not
    /// considered yet (refill goes on from here after shedding).
    pub frontier: usize,
    /// Messages of the kept groups, for `max_messages`.
    pub count: usize,
    /// Token counts kept from earlier trims of the same messages (an incremental session,
    /// [`crate::session`]): a message found there is not counted again.
    cache: Option<&'o mut crate::count_cache::CountCache>,
    /// The optional group that ended the last run of selection (it did not fit); `None` when
    /// the run took every group (see [`crate::trim::Reach`]).
    pub stopped: Option<usize>,
    /// Earlier user messages anchored.
    pub anchors: usize,
    /// The answer must start with the user's turn, the kept run starts with the model's, and
    /// no user message before it was there to bring back ([`crate::turn`]).
    pub missing_turn_start: bool,
    /// Texts shrunk (logical message, unit, cost before), for regrow ([`crate::fill`]).
    pub shrunk: Vec<(usize, usize, u64)>,
    /// Cache-stable trimming: the group where the kept run starts ([`crate::stable`]).
    pub run_start: usize,
    /// Cache-stable trimming: the cut moved (or was chosen) on this trim (`report.compaction`).
    pub cut_moved: bool,
    /// The group the kept run may start at, at the earliest: the first after the request's
    /// summary ([`crate::stable`]); 0 without one.
    pub floor: usize,
    /// The summary placed: its message and cost.
    pub summary: Option<(String, u128)>,
    /// What a summary may cost when the cut moved (`report.compaction`); `None` without a
    /// budget.
    pub summary_room: Option<u64>,
}

impl<'a, 'o> Trimmer<'a, 'o> {
    /// A trim of `session` as repair left it (`repaired`), to `options` and the history
    /// budget `budget`; with the token counts of an incremental session's earlier trims
    /// (`cache`: taken from there, and what this trim counts added).
    pub(crate) fn new(
        doc: &'o Doc<'a>,
        session: Session<'a>,
        repaired: Repaired<'a>,
        options: &'o TrimOptions,
        budget: Option<u64>,
        cache: Option<&'o mut crate::count_cache::CountCache>,
    ) -> Self {
        let groups = repaired.groups.len();
        let report = Report {
            format: options.format,
            budget_bytes: budget,
            bytes_per_token: options.bytes_per_token,
            measure: options.measure,
            factor_origin: crate::calibrate::FactorOrigin {
                beside: options.tools_tokens.saturating_add(options.memory_tokens),
                ..options.factor_origin
            },
            input_messages: session.inputs.len(),
            request_warnings: options.warnings.clone(),
            ..Report::default()
        };
        let counted = if options.measure.in_tokens() {
            vec![false; session.messages.len()]
        } else {
            Vec::new()
        };
        Trimmer {
            doc,
            session,
            repaired,
            options,
            budget,
            tags: vec![Tag::Optional; groups],
            kept: vec![false; groups],
            total: 0,
            report,
            measure: options.measure,
            counted,
            cleared: Vec::new(),
            inputs_cleared: Vec::new(),
            frontier: groups,
            count: 0,
            cache,
            stopped: None,
            anchors: 0,
            missing_turn_start: false,
            shrunk: Vec::new(),
            run_start: 0,
            cut_moved: false,
            floor: 0,
            summary: None,
            summary_room: None,
        }
    }

    /// The cost of group `g` if it is at most `limit`, counting its messages in tokens first
    /// when they are not yet (within the limit: a text past it is not counted to its end).
    pub fn group_cost_within(&mut self, g: usize, limit: Option<u128>) -> Option<u128> {
        let group = self.repaired.groups[g];
        let mut cost = 0u128;
        for k in group.range() {
            let m = self.repaired.order[k];
            let room = limit.map(|l| l.saturating_sub(cost));
            cost += self.count_message(m, room)?;
        }
        limit.is_none_or(|l| cost <= l).then_some(cost)
    }

    /// Message `m`'s cost, counted in tokens now if it is not yet; `None` when it is over
    /// `limit` (its costs then stay as they were).
    fn count_message(&mut self, m: usize, limit: Option<u128>) -> Option<u128> {
        if self.counted.get(m).is_none_or(|&c| c) {
            let cost = self.session.cost(m);
            return limit.is_none_or(|l| cost <= l).then_some(cost);
        }
        if let Some(cache) = self.cache.as_deref_mut() {
            if let Some(found) = cache.apply(&mut self.session, m, limit) {
                self.counted[m] = found.is_some();
                return found;
            }
        }
        let adapter = self.options.format.adapter();
        let cost = count_message(
            self.doc,
            &mut self.session,
            m,
            &self.measure,
            adapter,
            limit,
        )?;
        self.counted[m] = true;
        if let Some(cache) = self.cache.as_deref_mut() {
            cache.store(&self.session, m);
        }
        Some(cost)
    }

    /// The logical messages of group `g`.
    pub fn group_msgs(&self, g: usize) -> &[usize] {
        let group = self.repaired.groups[g];
        &self.repaired.order[group.range()]
    }

    pub fn group_cost(&self, g: usize) -> u128 {
        self.group_msgs(g)
            .iter()
            .map(|&m| self.session.cost(m))
            .sum()
    }

    /// The first group, the pinned one aside, that starts at the caller's message `index` or
    /// after it; `None` when none does.
    pub(crate) fn first_group_from(&self, index: usize) -> Option<usize> {
        (0..self.repaired.groups.len()).find(|&g| {
            self.tags[g] != Tag::Pinned
                && self.session.messages[self.group_msgs(g)[0]]
                    .physical
                    .is_some_and(|p| p as usize >= index)
        })
    }

    pub(crate) fn first_role(&self, g: usize) -> Option<Role> {
        self.session.messages[self.group_msgs(g)[0]].role
    }
}

/// Prices logical message `m` in `measure`'s tokens: its framing, its fields but the content
/// (the adapter counts them), its note, and each unit (texts counted, images already in tokens,
/// opaque parts at their bytes, an upper bound). Writes the costs into the session and returns
/// the message's cost; `None`, leaving the session as it was, when it is over `limit` (found
/// without counting a text past the limit).
pub(crate) fn count_message(
    doc: &Doc<'_>,
    session: &mut Session<'_>,
    m: usize,
    measure: &Measure,
    adapter: &dyn Adapter,
    limit: Option<u128>,
) -> Option<u128> {
    let limit = limit.map_or(u64::MAX, |l| u64::try_from(l).unwrap_or(u64::MAX));
    let (meta, meta_without_calls) = adapter.meta_cost(doc, Logical::of(session, m), measure);
    // A tokenizer file's chat template frames a message its own way.
    let role = session.messages[m].role;
    let framing =
        FRAMING_TOKENS.saturating_add_signed(crate::framing::framing_adjust(measure, role));
    let (meta, meta_without_calls) = (meta + framing, meta_without_calls + framing);
    let msg = &session.messages[m];
    let note = msg.note().map_or(0, |n| measure.text(n));
    let mut used = note
        + if msg.remove_tool_calls {
            meta_without_calls
        } else {
            meta
        };
    let range = msg.unit_range();
    let mut costs = Vec::with_capacity(range.len());
    for unit in &session.units[range.clone()] {
        let room = limit.checked_sub(used)?;
        let cost = match (&unit.change, &unit.kind) {
            (Change::Removed, _) => 0,
            (Change::Text(t) | Change::Placeholder(t), _) => measure.text_within(t, room)?,
            (Change::Keep, UnitKind::Text | UnitKind::Attachment) => {
                measure.text_within(&unit.text.text(), room)?
            }
            // Images are priced in tokens already; an opaque part costs its bytes, an
            // upper bound (no token is shorter than a byte).
            (Change::Keep, UnitKind::Media(_) | UnitKind::Other) => unit.bytes,
        };
        used = used.checked_add(cost).filter(|&u| u <= limit)?;
        costs.push(cost);
    }
    for (unit, cost) in session.units[range].iter_mut().zip(costs) {
        unit.bytes = cost;
    }
    // The note's tokens go into the meta cost (`Session::cost` adds no bytes for it then).
    session.notes_in_meta = true;
    let msg = &mut session.messages[m];
    msg.meta_bytes = meta + note;
    msg.meta_without_calls = meta_without_calls + note;
    Some(session.cost(m))
}

/// A cost for the report: costs past u64::MAX (over any budget) read as u64::MAX.
pub(crate) fn saturate(bytes: u128) -> u64 {
    u64::try_from(bytes).unwrap_or(u64::MAX)
}

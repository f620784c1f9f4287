//! The answer starts on the user's turn, in the formats whose providers require it (Anthropic
//! Messages, Gemini contents: `Adapter::user_turn_first`), and for a model whose chat template
//! refuses a chat that opens on the assistant's turn (`Framing::opens_on_user`: Gemma's).
//!
//! Selection keeps the newest groups that fit, so in a long tool loop the kept run often starts
//! with the model's turn (a `tool_use` or `functionCall` exchange). Dropping that run until a
//! user message leads would leave an agent with nothing but its follow-up question; instead the
//! user message that began the kept run's turn comes back, in the order of what the model most
//! needs:
//!
//! 1. whole, when it fits the room left;
//! 2. shrunk into the room (its texts cut head and tail down to a common level, never below
//!    the floor, as shedding does; its images as placeholders);
//! 3. as a short placeholder, [`TURN_PLACEHOLDER`], in place of its content;
//!
//! and when even the placeholder does not fit, the oldest kept group goes and the rule runs
//! again. The report says which (`turn_start`), and lists the shrunk texts and the images as
//! usual. A history with no user message before the kept run keeps the old rule (`settle`
//! drops what comes before the first user message). A kept run that starts with a server
//! compaction (an Anthropic assistant message holding a `compaction` block) starts where the
//! provider does: the API ignores what stands before the compaction, so nothing comes back.

use crate::fill::Planned;
use crate::model::{Change, Role, UnitKind};
use crate::report::{TurnStart, TurnStartKept};
use crate::tokens::Tokenizer;
use crate::trimmer::{saturate, Tag, Trimmer};

/// What stands in for the content of the user message that began the kept run's turn when not
/// even its shrunk texts fit.
pub const TURN_PLACEHOLDER: &str = "[Earlier conversation omitted to fit the context budget.]";

impl Trimmer<'_, '_> {
    /// Whether the answer must start on the user's turn: the format's providers want it
    /// (Anthropic, Gemini, the AI SDK), or the chat template of the tokenizer file counting the
    /// trim refuses a chat that opens on the assistant's (Gemma's, served through any format).
    pub(crate) fn user_turn_first(&self) -> bool {
        // A placed summary is the user's turn the answer starts on (crate::stable).
        self.summary.is_none() && self.options.format.adapter().user_turn_first()
            || matches!(self.measure.tokenizer, Tokenizer::File(file)
                if file.framing.is_some_and(|f| f.opens_on_user))
    }

    /// Gives the answer a user turn to start on (see the module docs). Runs after selection,
    /// shedding and refill.
    pub(crate) fn start_on_user_turn(&mut self) {
        if !self.user_turn_first() {
            return;
        }
        let n = self.repaired.groups.len();
        loop {
            let Some(first) = (0..n).find(|&g| self.kept[g] && self.tags[g] != Tag::Pinned) else {
                return;
            };
            // A server compaction is where the provider starts reading: the turn before it is
            // what it stands for.
            let compaction = self
                .group_msgs(first)
                .iter()
                .any(|&m| self.session.messages[m].compaction);
            if self.first_role(first) == Some(Role::User) || compaction {
                return;
            }
            let Some(user) = (0..first)
                .rev()
                .find(|&g| self.first_role(g) == Some(Role::User))
            else {
                // Nothing to bring back here: the old rule applies. A trim of the newest
                // messages only must then be done on the whole history (crate::session).
                self.missing_turn_start = true;
                return;
            };
            let len = self.repaired.groups[user].len();
            if self.count.saturating_add(len) <= self.options.max_messages && self.bring_back(user)
            {
                return;
            }
            // No room for even the placeholder (or for one more message): the oldest kept
            // group makes room, and the rule runs again.
            if self.tags[first] != Tag::Optional {
                return;
            }
            self.let_go(first);
        }
    }

    /// Keeps group `g` (a user message) whole, shrunk or as the placeholder, whichever is the
    /// first to fit the room left; `false` when none does.
    fn bring_back(&mut self, g: usize) -> bool {
        let mut room = self
            .budget
            .map_or(u128::MAX, |b| u128::from(b).saturating_sub(self.total));
        // A cache-stable trim shrinks it to the anchor limit, the same from call to call
        // (crate::stable).
        if self.options.cache.stable {
            room = room.min(u128::from(self.anchor_limit()));
        }
        let index = self.session.messages[self.group_msgs(g)[0]]
            .physical
            .unwrap_or(0) as usize;
        if let Some(cost) = self.group_cost_within(g, Some(room)) {
            self.keep_group(g, cost);
            self.report.turn_start = Some(TurnStart {
                index,
                kept: TurnStartKept::Whole,
                from_bytes: saturate(cost),
                to_bytes: saturate(cost),
            });
            return true;
        }
        // Counted whole (in tokens when the trim counts tokens) to plan the shrink.
        let Some(full) = self.group_cost_within(g, None) else {
            return false;
        };
        let (plan, kept) = match self.plan_shrunk(g, room, true) {
            Some(plan) => (plan, TurnStartKept::Shrunk),
            None => match self.plan_placeholder(g, room) {
                Some(plan) => (plan, TurnStartKept::Placeholder),
                None => return false,
            },
        };
        let cost = self.apply_plan(g, full, plan, kept == TurnStartKept::Shrunk);
        self.keep_group(g, cost);
        self.report.turn_start = Some(TurnStart {
            index,
            kept,
            from_bytes: saturate(full),
            to_bytes: saturate(cost),
        });
        true
    }

    /// Group `g` (counted) with its content replaced by [`TURN_PLACEHOLDER`]; `None` when that
    /// does not fit `room` either.
    fn plan_placeholder(&self, g: usize, room: u128) -> Option<Vec<Planned>> {
        let units = self.group_units(g);
        let placeholder = self.measure.text(TURN_PLACEHOLDER);
        let mut cost = self.group_cost(g);
        let mut plan = Vec::new();
        let mut first = true;
        for u in units {
            let unit = &self.session.units[u];
            if unit.change == Change::Removed {
                continue;
            }
            let (bytes, change) = match (first, &unit.kind) {
                (true, UnitKind::Text | UnitKind::Attachment) => {
                    (placeholder, Change::Text(Box::new(TURN_PLACEHOLDER.into())))
                }
                (true, _) => (
                    placeholder,
                    Change::Placeholder(Box::new(TURN_PLACEHOLDER.into())),
                ),
                (false, _) => (0, Change::Removed),
            };
            first = false;
            cost = cost - u128::from(unit.bytes) + u128::from(bytes);
            plan.push(Planned {
                unit: u,
                change,
                bytes,
            });
        }
        (!first && cost <= room).then_some(plan)
    }

    /// Drops kept group `g` whole (what was shed or refilled in it is forgotten); it is then
    /// where selection stopped, for fill.
    fn let_go(&mut self, g: usize) {
        self.kept[g] = false;
        self.stopped = Some(g);
        self.frontier = g + 1;
        self.total -= self.group_cost(g);
        self.count -= self.repaired.groups[g].len();
        let mut indices: Vec<usize> = self
            .group_msgs(g)
            .iter()
            .filter_map(|&m| self.session.messages[m].physical.map(|p| p as usize))
            .collect();
        indices.sort_unstable();
        indices.dedup();
        self.report.forget_messages(&indices);
        self.report
            .refilled
            .retain(|i| indices.binary_search(i).is_err());
    }
}

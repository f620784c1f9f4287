//! Cache-stable trimming (DESIGN §6, "Cache stability"): the answer's prefix holds from call
//! to call, so a provider's prompt cache serves it.
//!
//! An agent trims before every model call a history that grows by a few messages a call.
//! Selection alone keeps the newest groups that fit, so once the window is full the first kept
//! message moves on almost every call and the cached prefix is lost. With `trim_to` or `cut`
//! given, selection works in *cuts* instead:
//!
//! - the answer is the pinned message, the **anchors** (the newest user messages before the
//!   cut), the messages from the **cut** on, and what must stay wherever it is (the request, the
//!   exchange in progress);
//! - given the previous answer's cut (`cut`, from `report.cut`), while those messages fit the
//!   budget and `max_messages` the answer keeps exactly them: a call that only appended
//!   messages returns the previous answer followed by the new messages;
//! - when they do not fit (or no cut is given and something must go), the cut moves forward,
//!   never back: newest first, whole groups, down to `trim_to` × the budget (and ×
//!   `max_messages`), so the calls after it only append again.
//!
//! The anchors depend on the cut alone: the newest [`EARLIER_ANCHORS`] user messages before it
//! within the anchor limit (the request counts as one of them when it stands before the cut and
//! fits the limit; it is kept in any case). A new user message after the cut does not change
//! them; a request before the cut that is over the anchor limit is let go when the next user
//! message takes its place. In formats whose answer starts with
//! the user's turn ([`crate::turn`]), the newest user message before the cut is always the first
//! anchor looked at: when it is over the limit it comes back shrunk to the anchor limit (the
//! turn rule, with the limit as its room) and no older anchor is kept.
//!
//! A `cut` past the end of the messages is ignored (the history was replaced); a cut inside a
//! group (an exchange, a merged turn) or at a message that repair removed moves forward to the
//! next group that starts at or after it.
//!
//! The answer does not regrow, refill or fill (each would move the prefix); shedding still runs
//! when even the pinned message, the request and the exchange in progress do not fit.

mod summary;
pub use summary::{summary_message, MARKER};

use crate::model::Role;
use crate::report::Limit;
use crate::trim::{ANCHOR_BYTES, ANCHOR_TOKENS, EARLIER_ANCHORS};
use crate::trimmer::{Tag, Trimmer};

/// The anchors chosen for a cut, and what they add to the required messages.
#[derive(Debug, Clone, Default)]
struct Anchors {
    groups: Vec<usize>,
    cost: u128,
    count: usize,
    /// Room held for the user message that begins the kept run's turn when it is over the
    /// anchor limit (formats whose answer starts with the user's turn).
    turn_reserve: u128,
}

impl Trimmer<'_, '_> {
    /// The anchor limit in the trim's unit.
    pub(crate) fn anchor_limit(&self) -> u64 {
        if self.measure.in_tokens() {
            ANCHOR_TOKENS
        } else {
            ANCHOR_BYTES
        }
    }

    /// Selection with a stable prefix (see the module docs). The required groups (pinned,
    /// request, exchange in progress) are tagged and kept already.
    pub(crate) fn select_stable(&mut self) {
        let n = self.repaired.groups.len();
        // No anchor is taken from the messages a summary stands for.
        let users: Vec<usize> = (self.floor..n)
            .filter(|&g| self.tags[g] != Tag::Pinned && self.first_role(g) == Some(Role::User))
            .collect();
        let floor = self.cut_group();
        let budget = self.budget.map(u128::from);
        let max = self.options.max_messages;

        // The messages from the cut on, as they are.
        if let Some(anchors) = self.run_fits(floor, &users, budget, max) {
            self.keep_run(floor, anchors);
            self.report.limited_by = (floor > 0 && self.any_optional_before(floor)).then_some(
                if self.options.cache.cut.is_some() {
                    Limit::Cut
                } else {
                    Limit::Budget
                },
            );
            return;
        }

        // The cut moves forward: newest first, down to trim_to × the budget and max_messages.
        let share = self.options.cache.trim_to;
        let target = budget.map(|b| ((b as f64) * share).floor() as u128);
        let target_count = if max == usize::MAX {
            max
        } else {
            ((max as f64) * share).floor().max(1.0) as usize
        };
        let mut cut = n;
        let mut run_cost = 0u128;
        let mut run_count = 0usize;
        let mut anchors = self.anchors_before(n, &users);
        let mut limit = None;
        while cut > floor {
            let g = cut - 1;
            // A user group the run takes is no longer an anchor: the anchors of the new cut
            // are counted, not the old ones (which may hold this very group).
            let next = if self.first_role(g) == Some(Role::User) {
                self.anchors_before(g, &users)
            } else {
                anchors.clone()
            };
            let (cost, len) = if self.tags[g] == Tag::Optional {
                let room = target.map(|t| {
                    t.saturating_sub(self.total + run_cost + next.cost + next.turn_reserve)
                });
                let Some(cost) = self.group_cost_within(g, room) else {
                    limit = Some(Limit::Budget);
                    break;
                };
                (cost, self.repaired.groups[g].len())
            } else {
                (0, 0)
            };
            let total = self.total + run_cost + cost + next.cost + next.turn_reserve;
            let count = self.count + run_count + len + next.count;
            if count > target_count {
                limit = Some(Limit::MaxMessages);
                break;
            }
            if target.is_some_and(|t| total > t) {
                limit = Some(Limit::Budget);
                break;
            }
            run_cost += cost;
            run_count += len;
            anchors = next;
            cut = g;
        }
        self.keep_run(cut, anchors);
        self.cut_moved = true;
        // What a new summary may cost: the room left, with the current summary's cost.
        let summary = self.summary.as_ref().map_or(0, |s| s.1);
        self.summary_room =
            budget.map(|b| crate::trimmer::saturate(b.saturating_sub(self.total) + summary));
        self.report.limited_by = limit.or(Some(Limit::Budget));
    }

    /// The group the request's `cut` points at: the first that starts at or after it (0 when
    /// no cut is given, or it is past the end of the messages).
    fn cut_group(&self) -> usize {
        let Some(cut) = self.options.cache.cut else {
            return self.floor;
        };
        if cut > self.session.inputs.len() {
            return self.floor;
        }
        self.first_group_from(cut)
            .unwrap_or(self.repaired.groups.len())
            .max(self.floor)
    }

    /// The anchors of the messages from group `cut` on, when those messages, the anchors and
    /// the required groups fit `budget` and `max` as they are.
    fn run_fits(
        &mut self,
        cut: usize,
        users: &[usize],
        budget: Option<u128>,
        max: usize,
    ) -> Option<Anchors> {
        let anchors = self.anchors_before(cut, users);
        let mut total = self.total + anchors.cost + anchors.turn_reserve;
        let mut count = self.count + anchors.count;
        for g in (cut..self.repaired.groups.len()).rev() {
            if self.tags[g] != Tag::Optional {
                continue;
            }
            count += self.repaired.groups[g].len();
            if count > max {
                return None;
            }
            let room = budget.map(|b| b.saturating_sub(total));
            total += self.group_cost_within(g, room)?;
        }
        budget.is_none_or(|b| total <= b).then_some(anchors)
    }

    /// The newest user groups before group `cut` (see the module docs).
    fn anchors_before(&mut self, cut: usize, users: &[usize]) -> Anchors {
        let limit = u128::from(self.anchor_limit());
        let turn_first = self.user_turn_first();
        let mut anchors = Anchors::default();
        let mut used = 0u128;
        let before = users.partition_point(|&g| g < cut);
        for (k, &g) in users[..before].iter().rev().enumerate() {
            if anchors.groups.len() == EARLIER_ANCHORS {
                break;
            }
            // The request counts as any user message here (it is kept whatever its size), so
            // that the anchors stay when the next user message takes its place.
            let required = self.tags[g] == Tag::Request;
            match self.group_cost_within(g, Some(limit - used)) {
                Some(cost) => {
                    anchors.groups.push(g);
                    used += cost;
                    if !required {
                        anchors.cost += cost;
                        anchors.count += self.repaired.groups[g].len();
                    }
                }
                // The turn's user message comes back shrunk to the limit (crate::turn).
                None if k == 0 && turn_first && !required => {
                    anchors.turn_reserve = limit;
                    break;
                }
                None => {}
            }
        }
        anchors
    }

    /// Keeps the optional groups from `cut` on and the anchors.
    fn keep_run(&mut self, cut: usize, anchors: Anchors) {
        for g in anchors.groups {
            if self.tags[g] == Tag::Optional {
                self.tags[g] = Tag::Anchor;
                self.anchors += 1;
                let cost = self.group_cost(g);
                self.keep_group(g, cost);
            }
        }
        for g in cut..self.repaired.groups.len() {
            if self.tags[g] == Tag::Optional && !self.kept[g] {
                let cost = self.group_cost(g);
                self.keep_group(g, cost);
            }
        }
        self.frontier = cut;
        self.run_start = cut;
        self.stopped = cut.checked_sub(1);
    }

    fn any_optional_before(&self, cut: usize) -> bool {
        (0..cut).any(|g| self.tags[g] == Tag::Optional)
    }

    /// The caller's index where the kept run starts (`report.cut`): the first message of the
    /// oldest group kept from the run's start on, or the number of messages when none is;
    /// `None` when nothing was dropped.
    pub(crate) fn report_cut(&self, dropped_any: bool) -> Option<usize> {
        if !dropped_any {
            return None;
        }
        let n = self.repaired.groups.len();
        let first = (self.run_start..n)
            .find(|&g| self.kept[g] && !matches!(self.tags[g], Tag::Pinned | Tag::Anchor));
        Some(match first {
            Some(g) => self.session.messages[self.group_msgs(g)[0]]
                .physical
                .map_or(0, |p| p as usize),
            None => self.session.inputs.len(),
        })
    }
}

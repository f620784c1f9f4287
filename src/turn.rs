//! The answer starts on the user's turn, in the formats whose providers require it (Anthropic
//! Messages, Gemini contents: `Adapter::user_turn_first`).
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
//! drops what comes before the first user message).

use crate::model::{Change, Role, UnitKind};
use crate::report::{DroppedImage, Truncation, TurnStart, TurnStartKept};
use crate::request::OnImageOverflow;
use crate::shed::{image_placeholder, shrink_text, shrink_to_tokens, water_level};
use crate::shed::{MIN_TEXT_BYTES, MIN_TEXT_TOKENS};
use crate::trimmer::{saturate, Tag, Trimmer};

/// What stands in for the content of the user message that began the kept run's turn when not
/// even its shrunk texts fit.
pub const TURN_PLACEHOLDER: &str = "[Earlier conversation omitted to fit the context budget.]";

/// A unit's planned change and its cost after it.
struct Planned {
    unit: usize,
    change: Change,
    bytes: u64,
}

impl Trimmer<'_, '_> {
    /// Gives the answer a user turn to start on (see the module docs). Runs after selection,
    /// shedding and refill.
    pub(crate) fn start_on_user_turn(&mut self) {
        if !self.options.format.adapter().user_turn_first() {
            return;
        }
        let n = self.repaired.groups.len();
        loop {
            let Some(first) = (0..n).find(|&g| self.kept[g] && self.tags[g] != Tag::Pinned) else {
                return;
            };
            if self.first_role(first) == Some(Role::User) {
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
            let len = self.repaired.groups[user].len;
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
        let room = self
            .budget
            .map_or(u128::MAX, |b| u128::from(b).saturating_sub(self.total));
        let len = self.repaired.groups[g].len;
        let index =
            |t: &Self| t.session.messages[t.group_msgs(g)[0]].physical.unwrap_or(0) as usize;
        if let Some(cost) = self.group_cost_within(g, Some(room)) {
            self.keep_group(g, cost, len);
            let entry = TurnStart {
                index: index(self),
                kept: TurnStartKept::Whole,
                from_bytes: saturate(cost),
                to_bytes: saturate(cost),
            };
            self.report.turn_start = Some(entry);
            return true;
        }
        // Counted whole (in tokens when the trim counts tokens) to plan the shrink.
        let Some(full) = self.group_cost_within(g, None) else {
            return false;
        };
        let (plan, kept) = match self.plan_shrunk(g, room) {
            Some(plan) => (plan, TurnStartKept::Shrunk),
            None => match self.plan_placeholder(g, room) {
                Some(plan) => (plan, TurnStartKept::Placeholder),
                None => return false,
            },
        };
        let mut cost = full;
        for p in plan {
            let (from, part, kind) = {
                let unit = &self.session.units[p.unit];
                (unit.bytes, unit.part, unit.kind)
            };
            cost = cost - u128::from(from) + u128::from(p.bytes);
            let m = self.unit_message(g, p.unit);
            let physical = self.session.messages[m].physical.unwrap_or(0) as usize;
            match (&p.change, kind) {
                (Change::Text(_), UnitKind::Text | UnitKind::Attachment)
                    if kept == TurnStartKept::Shrunk =>
                {
                    self.report.truncated.push(Truncation {
                        index: physical,
                        part: part.map(|p| p as usize),
                        from_bytes: from,
                        to_bytes: p.bytes,
                    });
                }
                (_, UnitKind::Image(price)) => {
                    let info = price.probe.ok();
                    self.report.dropped_images.push(DroppedImage {
                        index: physical,
                        part: part.unwrap_or(0) as usize,
                        format: info.map(|i| i.format),
                        width: info.map(|i| i.width),
                        height: info.map(|i| i.height),
                        tokens: price.tokens,
                        budget_bytes: price.budget_bytes,
                    });
                }
                _ => {}
            }
            let unit = &mut self.session.units[p.unit];
            unit.bytes = p.bytes;
            unit.change = p.change;
        }
        self.keep_group(g, cost, len);
        self.report.turn_start = Some(TurnStart {
            index: index(self),
            kept,
            from_bytes: saturate(full),
            to_bytes: saturate(cost),
        });
        true
    }

    fn keep_group(&mut self, g: usize, cost: u128, len: usize) {
        self.kept[g] = true;
        self.total += cost;
        self.count += len;
    }

    /// The logical message of group `g` that holds unit `u`.
    fn unit_message(&self, g: usize, u: usize) -> usize {
        *self
            .group_msgs(g)
            .iter()
            .find(|&&m| self.session.messages[m].unit_range().contains(&u))
            .expect("the unit is in the group")
    }

    /// The units of group `g`.
    fn group_units(&self, g: usize) -> Vec<usize> {
        self.group_msgs(g)
            .iter()
            .flat_map(|&m| self.session.messages[m].unit_range())
            .collect()
    }

    /// Group `g` (counted) shrunk into `room`: its images as placeholders, its texts cut to a
    /// common level; `None` when that does not fit even at the floor.
    fn plan_shrunk(&self, g: usize, room: u128) -> Option<Vec<Planned>> {
        let full = self.group_cost(g);
        let units = self.group_units(g);
        let drop_mode = self.options.on_image_overflow == OnImageOverflow::Drop;
        let mut plan = Vec::new();
        let mut fixed = full;
        let mut texts = Vec::new();
        let mut left = units
            .iter()
            .filter(|&&u| self.session.units[u].change != Change::Removed)
            .count();
        for &u in &units {
            let unit = &self.session.units[u];
            match (unit.kind, &unit.change) {
                (UnitKind::Image(price), Change::Keep) => {
                    let (bytes, change) = if drop_mode && left > 1 {
                        left -= 1;
                        (0, Change::Removed)
                    } else {
                        let text = image_placeholder(&price);
                        (self.measure.text(&text), Change::Placeholder(text))
                    };
                    fixed = fixed - u128::from(unit.bytes) + u128::from(bytes);
                    plan.push(Planned {
                        unit: u,
                        change,
                        bytes,
                    });
                }
                (UnitKind::Text | UnitKind::Attachment, Change::Keep) => {
                    fixed -= u128::from(unit.bytes);
                    texts.push(u);
                }
                _ => {}
            }
        }
        let sizes: Vec<u64> = texts.iter().map(|&u| self.session.units[u].bytes).collect();
        let floor = if self.measure.in_tokens() {
            MIN_TEXT_TOKENS
        } else {
            MIN_TEXT_BYTES
        };
        let at_floor: u128 = sizes.iter().map(|&s| u128::from(s.min(floor))).sum();
        if fixed + at_floor > room {
            return None;
        }
        let need = saturate((fixed + sizes.iter().map(|&s| u128::from(s)).sum::<u128>()) - room);
        let level = water_level(&sizes, need, floor).unwrap_or(floor);
        let mut cost = fixed;
        for (&u, &size) in texts.iter().zip(&sizes) {
            if size <= level {
                cost += u128::from(size);
                continue;
            }
            let text = self.session.units[u].text.text();
            let (shrunk, to) = if self.measure.in_tokens() {
                shrink_to_tokens(&self.measure, &text, size, level)
            } else {
                let shrunk = shrink_text(&text, level as usize);
                let to = shrunk.len() as u64;
                (shrunk, to)
            };
            cost += u128::from(to);
            plan.push(Planned {
                unit: u,
                change: Change::Text(shrunk),
                bytes: to,
            });
        }
        // Character boundaries may land a few bytes over the level.
        (cost <= room).then_some(plan)
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
            let (bytes, change) = match (first, unit.kind) {
                (true, UnitKind::Text | UnitKind::Attachment) => {
                    (placeholder, Change::Text(TURN_PLACEHOLDER.to_owned()))
                }
                (true, _) => (
                    placeholder,
                    Change::Placeholder(TURN_PLACEHOLDER.to_owned()),
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

    /// Drops kept group `g` whole (what was shed or refilled in it is forgotten).
    fn let_go(&mut self, g: usize) {
        self.kept[g] = false;
        self.total -= self.group_cost(g);
        self.count -= self.repaired.groups[g].len;
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

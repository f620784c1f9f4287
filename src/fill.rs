//! The room left goes back to the newest first (DESIGN §6, "Fill").
//!
//! After selection and shedding, the budget may hold room that nothing uses: shedding freed
//! more than it had to (an image that alone exceeded the budget became a placeholder), or the
//! group where selection stopped was one big tool loop that did not fit whole. In this order:
//!
//! 1. **Regrow** (`Trimmer::regrow`): texts cut by shedding in the kept messages get their
//!    bytes back first — the exchange in progress, then the request, then the anchors, then the
//!    rest — each up to its whole size.
//! 2. Refill ([`crate::trim`]): older groups that now fit come back whole.
//! 3. **Fill** (`Trimmer::fill`): the group where selection stopped
//!    comes back shrunk into the room left — its texts cut head and tail to one level, never
//!    below the floor, its images as `on_image_overflow` says — when after that it fits. A tool
//!    exchange stays whole: every reply of a call, every item of a step; only texts shrink.
//!
//! `fill: false` turns regrow and fill off: whole groups only, as before.
//!
//! The group shrink (`Trimmer::plan_shrunk`, `Trimmer::apply_plan`) is shared with the
//! user turn that starts the answer ([`crate::turn`]).

use crate::model::{Change, UnitKind};
use crate::report::{DroppedFile, DroppedImage, Limit, Truncation};
use crate::request::OnImageOverflow;
use crate::shed::{image_placeholder, shrink_text, shrink_to_tokens, water_level};
use crate::shed::{MIN_TEXT_BYTES, MIN_TEXT_TOKENS};
use crate::trimmer::{Tag, Trimmer};

/// A unit's planned change and its cost after it.
pub(crate) struct Planned {
    pub unit: usize,
    pub change: Change,
    pub bytes: u64,
}

impl Trimmer<'_, '_> {
    /// The floor no text is shrunk below, in the trim's unit.
    pub(crate) fn text_floor(&self) -> u64 {
        if self.measure.in_tokens() {
            MIN_TEXT_TOKENS
        } else {
            MIN_TEXT_BYTES
        }
    }

    /// `text` (costing `size`) shrunk to at most `level`, and its cost.
    pub(crate) fn shrink_to(&self, text: &str, size: u64, level: u64) -> (String, u64) {
        if self.measure.in_tokens() {
            shrink_to_tokens(&self.measure, text, size, level)
        } else {
            let shrunk = shrink_text(text, level as usize);
            let to = shrunk.len() as u64;
            (shrunk, to)
        }
    }

    /// The units of group `g`.
    pub(crate) fn group_units(&self, g: usize) -> Vec<usize> {
        self.group_msgs(g)
            .iter()
            .flat_map(|&m| self.session.messages[m].unit_range())
            .collect()
    }

    /// Group `g` (counted) shrunk into `room`: its images as `on_image_overflow` says (with
    /// `error`, a group that would lose one is not shrunk: `None`), its texts and attachments
    /// cut to a common level; `None` when that does not fit even at the floor.
    pub(crate) fn plan_shrunk(
        &self,
        g: usize,
        room: u128,
        images_may_go: bool,
    ) -> Option<Vec<Planned>> {
        let full = self.group_cost(g);
        let units = self.group_units(g);
        let mode = self.options.on_image_overflow;
        let mut plan = Vec::new();
        let mut fixed = full;
        let mut texts = Vec::new();
        let mut left = units
            .iter()
            .filter(|&&u| self.session.units[u].change != Change::Removed)
            .count();
        for &u in &units {
            let unit = &self.session.units[u];
            match (&unit.kind, &unit.change) {
                (UnitKind::Media(price), Change::Keep) => {
                    if !images_may_go && mode == OnImageOverflow::Error {
                        return None;
                    }
                    let (bytes, change) = if mode == OnImageOverflow::Drop && left > 1 {
                        left -= 1;
                        (0, Change::Removed)
                    } else {
                        let text = image_placeholder(price);
                        (
                            self.measure.text(&text),
                            Change::Placeholder(Box::new(text.into())),
                        )
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
        let floor = self.text_floor();
        let at_floor: u128 = sizes.iter().map(|&s| u128::from(s.min(floor))).sum();
        if fixed + at_floor > room {
            return None;
        }
        let all = fixed + sizes.iter().map(|&s| u128::from(s)).sum::<u128>();
        let need = crate::trimmer::saturate(all.saturating_sub(room));
        let level = if need == 0 {
            u64::MAX
        } else {
            water_level(&sizes, need, floor).unwrap_or(floor)
        };
        let mut cost = fixed;
        for (&u, &size) in texts.iter().zip(&sizes) {
            if size <= level {
                cost += u128::from(size);
                continue;
            }
            let text = self.session.units[u].text.text();
            let (shrunk, to) = self.shrink_to(&text, size, level);
            cost += u128::from(to);
            plan.push(Planned {
                unit: u,
                change: Change::Text(Box::new(shrunk.into())),
                bytes: to,
            });
        }
        // Character boundaries may land a few bytes over the level.
        (cost <= room).then_some(plan)
    }

    /// Applies `plan` to group `g`'s units, reporting each shrunk text (when `truncations`)
    /// and each image (in `dropped_images`) or document or audio file (in `dropped_files`, as
    /// shedding lists them) that went; returns the group's cost after it (`full` before).
    pub(crate) fn apply_plan(
        &mut self,
        g: usize,
        full: u128,
        plan: Vec<Planned>,
        truncations: bool,
    ) -> u128 {
        let mut cost = full;
        for p in plan {
            let (from, part, kind) = {
                let unit = &self.session.units[p.unit];
                (unit.bytes, unit.part, unit.kind.clone())
            };
            cost = cost - u128::from(from) + u128::from(p.bytes);
            let m = self.unit_message(g, p.unit);
            let physical = self.session.messages[m].physical.unwrap_or(0) as usize;
            match (&p.change, kind) {
                (Change::Text(_), UnitKind::Text | UnitKind::Attachment) if truncations => {
                    self.report.truncated.push(Truncation {
                        index: physical,
                        part: part.map(|p| p as usize),
                        from_bytes: from,
                        to_bytes: p.bytes,
                    });
                    self.shrunk.push((m, p.unit, from));
                }
                (_, UnitKind::Media(price)) if price.file.is_some() => {
                    let file = price.file.as_ref().expect("a file's price");
                    let entry =
                        DroppedFile::new(physical, part.unwrap_or(0) as usize, file, &price);
                    self.report.dropped_files.push(entry);
                }
                (_, UnitKind::Media(price)) => {
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
        cost
    }

    /// The logical message of group `g` that holds unit `u`.
    pub(crate) fn unit_message(&self, g: usize, u: usize) -> usize {
        *self
            .group_msgs(g)
            .iter()
            .find(|&&m| self.session.messages[m].unit_range().contains(&u))
            .expect("the unit is in the group")
    }

    /// Marks group `g` kept at `cost`.
    pub(crate) fn keep_group(&mut self, g: usize, cost: u128) {
        self.kept[g] = true;
        self.total += cost;
        self.count += self.repaired.groups[g].len();
    }

    /// Texts shrunk by shedding in kept messages get the room left back, the exchange in
    /// progress first, then the request, the anchors, the rest; each up to its whole size.
    pub(crate) fn regrow(&mut self) {
        let Some(budget) = self.budget else {
            return;
        };
        if !self.options.fill || self.shrunk.is_empty() || self.total >= u128::from(budget) {
            return;
        }
        let mut group_of = vec![usize::MAX; self.session.messages.len()];
        for g in 0..self.repaired.groups.len() {
            if self.kept[g] {
                for &m in self.group_msgs(g) {
                    group_of[m] = g;
                }
            }
        }
        let rank = |tag: Tag| match tag {
            Tag::InProgress => 0,
            Tag::Request => 1,
            Tag::Anchor => 2,
            _ => 3,
        };
        let mut order: Vec<(usize, usize, usize, u64)> = Vec::new(); // (rank, message, unit, whole cost)
        for &(m, u, from) in &self.shrunk {
            let g = group_of[m];
            if g == usize::MAX || !matches!(self.session.units[u].change, Change::Text(_)) {
                continue;
            }
            order.push((rank(self.tags[g]), m, u, from));
        }
        // Newest first within a rank.
        order.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(b.2.cmp(&a.2)));
        for (_, m, u, from) in order {
            let room = u128::from(budget).saturating_sub(self.total);
            if room == 0 {
                break;
            }
            let index = self.session.messages[m].physical.unwrap_or(0) as usize;
            let part = self.session.units[u].part.map(|p| p as usize);
            let to = self.session.units[u].bytes;
            // Only a text whose cut is still what the report says (not a dropped body's stub).
            let Some(entry) = self.report.truncated.iter().position(|t| {
                t.index == index && t.part == part && t.to_bytes == to && t.from_bytes == from
            }) else {
                continue;
            };
            let target = u128::from(to) + room;
            let unit = &mut self.session.units[u];
            if target >= u128::from(from) {
                unit.change = Change::Keep;
                unit.bytes = from;
                self.total += u128::from(from - to);
                self.report.truncated.remove(entry);
                continue;
            }
            let text = self.session.units[u].text.text();
            let (grown, cost) = self.shrink_to(&text, from, target as u64);
            if cost <= to {
                continue;
            }
            let unit = &mut self.session.units[u];
            unit.change = Change::Text(Box::new(grown.into()));
            unit.bytes = cost;
            self.total += u128::from(cost - to);
            self.report.truncated[entry].to_bytes = cost;
        }
    }

    /// The group where selection stopped comes back shrunk into the room left, when it then
    /// fits (see the module docs); selection then goes on with the older groups while room is
    /// left, and so on (each group is looked at once more at most). The messages it brought
    /// back are added to `refilled`.
    pub(crate) fn fill(&mut self) {
        let from = self.frontier;
        let mut filled = false;
        while self.fill_stopped() {
            filled = true;
            let limit = self.extend();
            self.report.limited_by = Some(limit.unwrap_or(Limit::Budget));
            if limit != Some(Limit::Budget) {
                break;
            }
        }
        if !filled {
            return;
        }
        let mut back: Vec<usize> = (self.frontier..from)
            .filter(|&g| self.kept[g] && self.tags[g] == Tag::Optional)
            .flat_map(|g| self.group_msgs(g).to_vec())
            .filter_map(|m| self.session.messages[m].physical.map(|p| p as usize))
            .collect();
        back.extend(self.report.refilled.iter().copied());
        back.sort_unstable();
        back.dedup();
        self.report.refilled = back;
    }

    /// Brings back the group where selection stopped, shrunk into the room left; whether it did.
    fn fill_stopped(&mut self) -> bool {
        let (Some(budget), Some(g)) = (self.budget, self.stopped) else {
            return false;
        };
        if !self.options.fill || self.kept[g] || self.report.limited_by != Some(Limit::Budget) {
            return false;
        }
        if self.count.saturating_add(self.repaired.groups[g].len()) > self.options.max_messages {
            return false;
        }
        let room = u128::from(budget).saturating_sub(self.total);
        if room < u128::from(self.text_floor()) {
            return false;
        }
        let Some(full) = self.group_cost_within(g, None) else {
            return false;
        };
        let Some(plan) = self.plan_shrunk(g, room, false) else {
            return false;
        };
        let cost = self.apply_plan(g, full, plan, true);
        self.keep_group(g, cost);
        self.frontier = g;
        true
    }
}

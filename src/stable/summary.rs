//! A caller's summary in place of what the cut removes (DESIGN §6, "Summaries").
//!
//! The request's `summary: {"text", "through"}` is the caller's own summary of its messages up
//! to index `through` (the library never calls a model). The answer places it right after the
//! pinned message, as a user message of the format's own shape whose text starts with
//! [`MARKER`], and the messages up to `through` (but the pinned message, the request and the
//! exchange in progress) are dropped in its stead: no anchor is taken from them and the kept
//! run starts after them, at the start of a group (a tool exchange is never split around it).
//! Its cost is reserved like the other required messages'; it is written the same bytes from
//! call to call, so while the cut stands the prefix a provider caches is the pinned message,
//! the summary and the kept run. A summary that does not fit beside the required messages is
//! left out with a warning (`summary_over_budget`): the turn is never lost for it. A `through`
//! past the end of the messages (the history was replaced) is ignored.
//!
//! When the cut of a cache-stable trim moves, the report says what to summarise next
//! (`report.compaction`): the messages from the one after the summary's `through` (or the
//! first after the pinned message) to the one before the new cut (the anchors among them too:
//! the next summary stands for them), and what a new summary may cost and still fit
//! (`budget_tokens` or `budget_bytes`: the room the move freed, with the current summary's
//! cost).

use crate::format::Format;
use crate::raw::Doc;
use crate::report::{Compaction, RequestWarning};
use crate::request::TrimOptions;
use crate::trimmer::{Tag, Trimmer};

/// The first words of a placed summary's text.
pub const MARKER: &str = "[Summary of the earlier conversation]";

/// The summary message's JSON in `format`: the user's turn, its text the marker, a blank line,
/// and the caller's text.
pub fn summary_message(format: Format, text: &str) -> String {
    let text = serde_json::to_string(&format!("{MARKER}\n\n{text}")).expect("a string");
    let [before, after] = format.traits().user_text;
    format!("{before}{text}{after}")
}

/// The summary message's cost in the trim's unit, as trim prices a message.
fn summary_cost(options: &TrimOptions, message: &str) -> Option<u128> {
    let array = format!("[{message}]");
    let doc = Doc::parse(&array).ok()?;
    let count = crate::trim::plan_count(&doc, doc.root(), None, options).ok()?;
    count.messages.first().map(|&c| u128::from(c))
}

impl Trimmer<'_, '_> {
    /// Reads the request's summary: the group the kept run may start at, at the earliest (0
    /// without a summary). Runs before the anchors are chosen.
    pub(crate) fn summary_floor(&mut self) -> usize {
        let Some(summary) = &self.options.cache.summary else {
            return 0;
        };
        if summary.through >= self.session.inputs.len() {
            return 0;
        }
        self.first_group_from(summary.through + 1)
            .unwrap_or(self.repaired.groups.len())
    }

    /// The newest server compaction (a Responses `compaction` item, an Anthropic `compaction`
    /// block): its group is kept while anything after it is, and what stands before it (which
    /// it stands for) is not kept. Returns the group the kept run may start at, at the earliest
    /// (0 without one).
    pub(crate) fn keep_compaction(&mut self) -> usize {
        let n = self.repaired.groups.len();
        let Some(g) = (0..n).rev().find(|&g| {
            self.group_msgs(g)
                .iter()
                .any(|&m| self.session.messages[m].compaction)
        }) else {
            return 0;
        };
        if self.tags[g] == Tag::Optional {
            self.tags[g] = Tag::Anchor;
        }
        g
    }

    /// Reserves the summary's cost beside the required groups (kept already); leaves it out,
    /// with a warning, when it does not fit beside them.
    pub(crate) fn reserve_summary(&mut self) {
        let Some(summary) = &self.options.cache.summary else {
            return;
        };
        if summary.through >= self.session.inputs.len() {
            return;
        }
        let message = summary_message(self.options.format, &summary.text);
        let cost = summary_cost(self.options, &message).unwrap_or(u128::MAX);
        if self
            .budget
            .is_some_and(|b| self.total.saturating_add(cost) > u128::from(b))
        {
            self.report.request_warnings.push(summary_over_budget());
            self.floor = 0;
            return;
        }
        self.total += cost;
        self.count += 1;
        self.summary = Some((message, cost));
    }

    /// The caller's index of the first message after the pinned one (0 when none is pinned or
    /// it stands outside the messages). Read while the groups are there.
    pub(crate) fn after_pinned_input(&self) -> usize {
        if self.tags.first() != Some(&Tag::Pinned) {
            return 0;
        }
        self.group_msgs(0)
            .iter()
            .filter_map(|&m| self.session.messages[m].physical)
            .max()
            .map_or(0, |p| p as usize + 1)
    }

    /// The report's `compaction` for a trim whose cut moved (see the module docs), given the
    /// answer's cut, the caller's indices of the messages it dropped and the first message
    /// after the pinned one.
    pub(crate) fn compaction(
        &self,
        cut: Option<usize>,
        dropped: &[usize],
        after_pinned: usize,
        placed: bool,
    ) -> Option<Compaction> {
        let cut = cut?;
        if !self.cut_moved {
            return None;
        }
        let from = match &self.options.cache.summary {
            Some(s) if placed => s.through + 1,
            _ => after_pinned,
        };
        let through = cut.checked_sub(1)?;
        if through < from {
            return None;
        }
        // Every message of the range, the anchors the new summary will stand for too.
        if !dropped.iter().any(|&i| i >= from && i <= through) {
            return None;
        }
        let messages: Vec<usize> = (from..=through).collect();
        Some(Compaction {
            from,
            through,
            messages,
            budget: self.summary_room,
        })
    }
}

fn summary_over_budget() -> RequestWarning {
    RequestWarning {
        code: "summary_over_budget",
        path: "summary",
        message: "The summary does not fit beside the pinned message, the request and the \
                  exchange in progress; it was left out."
            .to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;

    #[test]
    fn the_summary_is_a_user_message_of_every_format() {
        for adapter in crate::format::FORMATS {
            let format = Format::from_name(adapter.name()).unwrap();
            let message = summary_message(format, "we \"agreed\" on it");
            let text = format!("[{message}]");
            let doc = Doc::parse(&text).unwrap();
            let options = TrimOptions {
                format,
                ..TrimOptions::default()
            };
            let start = crate::trim::Start::Whole(None);
            let session = crate::trim::split(&doc, doc.root(), start, &options).unwrap();
            assert_eq!(session.messages.len(), 1, "{message}");
            assert_eq!(session.messages[0].role, Some(Role::User), "{message}");
            let said = session.units[0].text.text();
            assert_eq!(
                said,
                format!("{MARKER}\n\nwe \"agreed\" on it"),
                "{message}"
            );
        }
    }
}

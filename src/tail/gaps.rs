//! The runs of messages a tail request left out (its gaps): where they lie, whether their
//! neighbours keep them apart as the whole history does, and how they go back into an answer.

use super::{GapKind, TailRequest};
use crate::format::Out;
use crate::model::{Role, Session, ToolCalls, UnitKind};

impl TailRequest<'_> {
    /// The runs of left-out messages, each as its range of caller's indices; `None` when a gap
    /// of plain messages is not bounded by plain messages one of which is not the model's (in
    /// the Responses format, a step of the model runs until a message that is not the model's:
    /// such a bound keeps the steps on either side of the gap apart, as the messages left out
    /// did), or when a gap of whole turns is not followed by a given message of the user's that
    /// holds no tool reply, before `from` (see [`Self::turn_starts`]).
    pub(super) fn gaps(&self, session: &Session<'_>) -> Option<Vec<std::ops::Range<usize>>> {
        let ends: Vec<(usize, usize)> = self
            .earlier
            .iter()
            .map(|&(start, run)| (start, start + self.doc.items(run).map_or(0, |i| i.len())))
            .collect();
        let mut gaps = Vec::new();
        // Each caller's message's logical messages (the first, and how many), read in one
        // pass: a gap's ends are looked up there, not by a scan of the session each.
        let mut logicals: Vec<(usize, u32)> = Vec::new();
        for (i, m) in session.messages.iter().enumerate() {
            let Some(p) = m.physical else { continue };
            let p = p as usize;
            if logicals.len() <= p {
                logicals.resize(p + 1, (0, 0));
            }
            if logicals[p].1 == 0 {
                logicals[p].0 = i;
            }
            logicals[p].1 += 1;
        }
        let plain = |p: usize| match logicals.get(p) {
            Some(&(i, 1)) => plain_role(session, i),
            _ => None,
        };
        let adapter = self.options.format.adapter();
        let mut kinds = self.gaps.iter();
        for k in 0..ends.len() {
            let end = ends[k].1;
            let next = ends.get(k + 1).map_or(self.from, |&(start, _)| start);
            if next == end {
                continue;
            }
            match kinds.next() {
                Some(GapKind::Turns) => {
                    let &(first, count) = logicals.get(next)?;
                    let after = session.messages.get(first..first + count as usize)?;
                    if next == self.from || !Self::turn_starts(adapter, after) {
                        return None;
                    }
                }
                _ => {
                    let (before, after) = (plain(end - 1)?, plain(next)?);
                    if before == Role::Assistant && after == Role::Assistant {
                        return None;
                    }
                }
            }
            gaps.push(end..next);
        }
        Some(gaps)
    }

    /// Whether a given message, split into `logicals`, may follow a gap of whole turns: it is
    /// the user's and holds no tool reply (the format's
    /// [`crate::format::Adapter::closes_exchanges`]), and is not `from` (the newest group
    /// before the tail is a given one, so that selection, fill and refill, which go back one
    /// group at a time, meet a given message before a left-out one).
    ///
    /// A gap of whole turns starts with a message of the user's and holds only whole groups
    /// that repair leaves as they are ([`crate::format::facts::Turns`]): every format's repair
    /// reads the messages in order, and a message of the user's that is no tool reply ends
    /// every exchange (and every Responses step) before it and starts a group. So the given
    /// message before the gap is repaired alike whether the gap's first message or this one
    /// follows it, and this one alike whether the gap's last message or that one precedes it:
    /// the report's repairs of the given messages are the whole history's, and the gap's
    /// messages, never kept (the tail's check), are all among `dropped_messages`.
    fn turn_starts(
        adapter: &dyn crate::format::Adapter,
        logicals: &[crate::model::Message<'_>],
    ) -> bool {
        logicals.first().is_some_and(|m| m.role == Some(Role::User))
            && adapter.closes_exchanges(logicals)
    }
}

/// The role of logical message `i` when it is plain (the only logical message of its
/// caller's message, the caller checks; of a known role, with content and nothing else: no
/// tool call or reply, note or refusal).
pub(super) fn plain_role(session: &Session<'_>, i: usize) -> Option<Role> {
    let m = session.messages.get(i)?;
    let simple = matches!(
        m.role,
        Some(Role::User | Role::Assistant | Role::System | Role::Developer)
    ) && m.tool_calls == ToolCalls::None
        && m.tool_call_id.is_none()
        && !m.has_note
        && !m.has_refusal
        && session.has_content(i)
        && session.units[m.unit_range()]
            .iter()
            .all(|u| matches!(u.kind, UnitKind::Text | UnitKind::Attachment));
    simple.then_some(m.role?)
}

/// The answer's messages `outs` with the left-out messages (`gaps`, ascending) put back in
/// their places, as returned unchanged. A message repair made has no index: it stays after the
/// one it was made for.
pub(super) fn put_back(outs: Vec<Out>, gaps: &[std::ops::Range<usize>]) -> Vec<Out> {
    let mut left_out = gaps.iter().flat_map(|g| g.clone()).peekable();
    let count: usize = gaps.iter().map(|g| g.len()).sum();
    let mut messages = Vec::with_capacity(outs.len() + count);
    for out in outs {
        let index = match &out {
            Out::Same(i) => Some(*i),
            Out::Edited(edit) => Some(edit.index),
            Out::New(_) => None,
        };
        if let Some(index) = index {
            while let Some(i) = left_out.next_if(|&i| i < index) {
                messages.push(Out::Same(i));
            }
        }
        messages.push(out);
    }
    messages.extend(left_out.map(Out::Same));
    messages
}

/// Merges the runs `gaps` (ascending, none of their indices in `list`) into `list`
/// (ascending), a run at a time.
pub(super) fn merge_runs(list: &mut Vec<usize>, gaps: &[std::ops::Range<usize>]) {
    if gaps.is_empty() {
        return;
    }
    let old = std::mem::take(list);
    let mut out = Vec::with_capacity(old.len() + gaps.iter().map(|g| g.len()).sum::<usize>());
    let mut k = 0;
    for gap in gaps {
        let cut = k + old[k..].partition_point(|&i| i < gap.start);
        out.extend_from_slice(&old[k..cut]);
        out.extend(gap.clone());
        k = cut;
    }
    out.extend_from_slice(&old[k..]);
    *list = out;
}

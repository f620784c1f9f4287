//! Token costs kept between the trims of an incremental session ([`crate::session`]), so a text
//! is tokenized once over the session's life; the trimmer reads and fills them.

use crate::model::{Change, Origin, Session};
use std::collections::HashMap;

/// Token costs of the messages counted by earlier trims of a session: a message's fields and
/// each of its parts, as the trimmer counted them. Only messages that
/// repair left alone are kept (their costs depend on nothing else).
#[derive(Debug, Default)]
pub struct CountCache {
    entries: HashMap<(Option<u32>, Origin), Counted>,
}

#[derive(Debug)]
struct Counted {
    meta: u64,
    meta_without_calls: u64,
    units: Box<[u64]>,
}

impl CountCache {
    fn eligible(session: &Session<'_>, m: usize) -> bool {
        let msg = &session.messages[m];
        !msg.has_note && session.units_of(m).iter().all(|u| u.change == Change::Keep)
    }

    /// Applies the kept costs of message `m` when there are: `Some(Some(cost))`, or
    /// `Some(None)` (the session left as it was) when the cost is over `limit`; `None` when
    /// the message was not counted before.
    pub(crate) fn apply(
        &self,
        session: &mut Session<'_>,
        m: usize,
        limit: Option<u128>,
    ) -> Option<Option<u128>> {
        let msg = &session.messages[m];
        let counted = self.entries.get(&(msg.physical, msg.origin))?;
        if counted.units.len() != session.units_of(m).len() || !Self::eligible(session, m) {
            return None;
        }
        let meta = if msg.remove_tool_calls {
            counted.meta_without_calls
        } else {
            counted.meta
        };
        let cost = u128::from(meta) + counted.units.iter().map(|&c| u128::from(c)).sum::<u128>();
        if limit.is_some_and(|l| cost > l) {
            return Some(None);
        }
        let range = msg.unit_range();
        for (unit, &c) in session.units[range].iter_mut().zip(counted.units.iter()) {
            unit.bytes = c;
        }
        session.notes_in_meta = true;
        let msg = &mut session.messages[m];
        msg.meta_bytes = counted.meta;
        msg.meta_without_calls = counted.meta_without_calls;
        debug_assert_eq!(session.cost(m), cost);
        Some(Some(cost))
    }

    /// Keeps the costs of message `m`, just counted.
    pub(crate) fn store(&mut self, session: &Session<'_>, m: usize) {
        if !Self::eligible(session, m) {
            return;
        }
        let msg = &session.messages[m];
        self.entries.insert(
            (msg.physical, msg.origin),
            Counted {
                meta: msg.meta_bytes,
                meta_without_calls: msg.meta_without_calls,
                units: session.units_of(m).iter().map(|u| u.bytes).collect(),
            },
        );
    }

    /// Forgets the messages of the caller's indices `range`, but those of `kept` (ascending).
    pub(crate) fn forget_range(&mut self, range: std::ops::Range<usize>, kept: &[usize]) {
        self.entries.retain(|&(physical, _), _| {
            physical.is_none_or(|p| {
                let p = p as usize;
                !range.contains(&p) || kept.binary_search(&p).is_ok()
            })
        });
    }

    /// Forgets the messages from the caller's index `len` on.
    pub(crate) fn forget_from(&mut self, len: usize) {
        self.entries
            .retain(|&(physical, _), _| physical.is_none_or(|p| (p as usize) < len));
    }

    pub(crate) fn bytes_held(&self) -> usize {
        let entry = std::mem::size_of::<((Option<u32>, Origin), Counted)>() + 8;
        self.entries.capacity() * entry
            + self
                .entries
                .values()
                .map(|c| c.units.len() * 8)
                .sum::<usize>()
    }
}

//! The window of a long history's trims: the newest messages, when they are sure to give the
//! stateless answer (see [`Window`]).

use super::split::Split;
use crate::format::Adapter;
use crate::model::{Role, Session};
use crate::report::{RepairEntry, Report, Warning};
use crate::request::TrimOptions;
use crate::trim::Reach;

/// A long history is trimmed from its newest messages when that is sure to give the stateless
/// answer (see [`Window::start`]): selection takes groups newest first and stops at the first
/// that does not fit, so what lies well before where the last trim stopped is dropped whole;
/// repair of a message never looks before it, and what it found in the older messages is kept
/// here. A trim of the newest messages (and the pinned system message) that stops inside them
/// and anchors its earlier user messages there is the stateless trim, with the older messages
/// added to `dropped_messages` and their repairs and warnings to the report's; one that does
/// not is done again on the whole history.
#[derive(Debug, Default)]
pub(super) struct Window {
    /// Messages `[0, clean)` were read by a trim, and message `clean` closes the exchanges
    /// before it (`Adapter::closes_exchanges`): no message after it changes how they are
    /// repaired.
    pub(super) clean: usize,
    /// The report's repairs and warnings of messages `[0, clean)`, in the report's order.
    pub(super) repaired: Vec<RepairEntry<'static>>,
    pub(super) warnings: Vec<Warning>,
    /// Messages of `[0, clean)` repair removed whole (not dropped by trimming), ascending.
    pub(super) gone: Vec<usize>,
    /// The caller's index of the first message of the group that ended the last trim's
    /// selection.
    pub(super) stopped_at: Option<usize>,
}

/// Where a windowed trim reads: the outside system prompt if any, the first message when it
/// is a system message (`head`, 0 or 1), the older user messages `users` (when the request or
/// the anchors may be among them), then the messages from `from` on.
#[derive(Debug, Clone)]
pub(super) struct Start {
    pub(super) head: usize,
    pub(super) from: usize,
    pub(super) users: Vec<usize>,
}

/// Messages kept between where the last trim stopped and where the next one starts reading,
/// for a history that grows, or changes near its end, between trims.
pub(super) const WINDOW_MARGIN: usize = 64;

impl Window {
    pub(super) fn start(&self, held: &Split, options: &TrimOptions) -> Option<Start> {
        // Formats that allow it (see `Adapter::trims_newest_alone`), and a selection without
        // clear_tool_results (which looks at every exchange).
        let adapter = options.format.adapter();
        if !adapter.trims_newest_alone() || options.clear_tool_results.is_some() {
            return None;
        }
        // A cache-stable trim keeps the anchors of its cut and the messages from it on; a
        // summary stands for the messages up to an index.
        if options.cache.stable || options.cache.summary.is_some() {
            return None;
        }
        // A server compaction stands for everything before it, wherever it is.
        if held.session.messages.iter().any(|m| m.compaction) {
            return None;
        }
        // Without a system prompt outside the messages, the first message must be a group
        // of its own, as given: pinned in both trims when it is a system message, dropped in
        // both otherwise (were repair to remove it, a later system message could be pinned).
        let outside_system = held.session.messages.first()?.physical.is_none();
        if !outside_system && self.repaired.first().is_some_and(|r| r.index == 0) {
            return None;
        }
        let head = usize::from(matches!(
            held.logicals(0)?.first()?.role,
            Some(Role::System | Role::Developer)
        ));
        let mut from = self
            .clean
            .min(self.stopped_at?.saturating_sub(WINDOW_MARGIN));
        // A user or assistant message that starts a group: never pinned, and no tool reply's
        // run crosses it.
        while from > head {
            let logicals = held.logicals(from)?;
            if matches!(logicals.first()?.role, Some(Role::User | Role::Assistant))
                && adapter.closes_exchanges(logicals)
            {
                return Some(Start {
                    head,
                    from,
                    users: Vec::new(),
                });
            }
            from -= 1;
        }
        None
    }

    /// `start` with the user messages before it carried into the window (the request and the
    /// anchors are chosen among every user message); `None` when one of them is not held whole
    /// and alone (a user message that also carries tool results).
    pub(super) fn with_users(held: &Split, options: &TrimOptions, start: &Start) -> Option<Start> {
        let adapter = options.format.adapter();
        let mut users = Vec::new();
        for (p, logicals) in held.runs(start.head..start.from) {
            if logicals.iter().any(|m| m.role == Some(Role::User)) {
                if !(logicals[0].role == Some(Role::User) && adapter.closes_exchanges(logicals)) {
                    return None;
                }
                users.push(p);
            }
        }
        Some(Start {
            users,
            ..start.clone()
        })
    }

    /// Heap bytes of what trims found in older messages (entries approximated by their size).
    pub(super) fn bytes_held(&self) -> usize {
        self.repaired.capacity() * std::mem::size_of::<RepairEntry<'static>>()
            + self.warnings.capacity() * std::mem::size_of::<Warning>()
            + self.gone.capacity() * std::mem::size_of::<usize>()
            + self
                .warnings
                .iter()
                .map(|w| w.path.capacity() + w.message.capacity())
                .sum::<usize>()
    }

    /// Adds what the window's trim did not read to its report: the messages `[head, from)`
    /// dropped (but those repair removed whole), their repairs and their warnings.
    pub(super) fn complete(&self, report: &mut Report<'_>, start: &Start) {
        let Start { head, from, users } = start;
        let (head, from) = (*head, *from);
        // The window's trim reported on the user messages carried into it.
        let unread = |i: usize| users.binary_search(&i).is_err();
        let gone = self.gone.partition_point(|&g| g < from);
        let mut gone = self.gone[..gone].iter().copied().peekable();
        let dropped: Vec<usize> = (head..from)
            .filter(|&i| {
                while gone.next_if(|&g| g < i).is_some() {}
                gone.peek() != Some(&i) && unread(i)
            })
            .collect();
        merge_by(&mut report.dropped_messages, dropped, |&i| i);
        let older = self.repaired.partition_point(|r| r.index < from);
        let repaired: Vec<RepairEntry<'_>> = self.repaired[..older]
            .iter()
            .filter(|r| unread(r.index))
            .cloned()
            .collect();
        merge_by(&mut report.repaired, repaired, |r| r.index);
        let older = self.warnings.partition_point(|w| w.index < from);
        let warnings: Vec<Warning> = self.warnings[..older]
            .iter()
            .filter(|w| unread(w.index))
            .cloned()
            .collect();
        merge_by(&mut report.warnings, warnings, |w| w.index);
    }

    /// After a trim that read the messages from `start` on (all of them when 0), whose report
    /// is complete.
    pub(super) fn update(
        &mut self,
        held: &Split,
        adapter: &dyn Adapter,
        report: &Report<'_>,
        start: usize,
        reach: Reach,
    ) {
        self.stopped_at = reach.stopped_at;
        let n = held.session.inputs.len();
        if n == 0 || start > self.clean || !adapter.trims_newest_alone() {
            return;
        }
        let mut clean = n - 1;
        while clean > self.clean
            && held
                .logicals(clean)
                .is_some_and(|l| !adapter.closes_exchanges(l))
        {
            clean -= 1;
        }
        if clean <= self.clean {
            return;
        }
        let new = |i: usize| i >= self.clean && i < clean;
        self.gone
            .extend(reach.removed.iter().copied().filter(|&p| new(p)));
        self.repaired.extend(
            report
                .repaired
                .iter()
                .filter(|r| new(r.index))
                .map(|r| r.clone().into_owned()),
        );
        self.warnings
            .extend(report.warnings.iter().filter(|w| new(w.index)).cloned());
        self.clean = clean;
    }

    /// The messages from `len` on are gone: what was found in them is forgotten, and `clean`
    /// moves back to a message that stays and closes the exchanges before it (an edit or a
    /// regeneration cuts a few messages; the next trim still reads only the newest).
    pub(super) fn forget_from(&mut self, len: usize, held: Option<&Split>, adapter: &dyn Adapter) {
        // Message `clean` itself must stay: what follows the messages before it may change
        // how they are repaired once it is gone.
        if len > self.clean {
            return;
        }
        let mut clean = len.saturating_sub(1);
        loop {
            match held.and_then(|h| h.logicals(clean)) {
                Some(l) if adapter.closes_exchanges(l) => break,
                Some(_) if clean > 0 => clean -= 1,
                _ => {
                    *self = Window::default();
                    return;
                }
            }
        }
        self.clean = clean;
        self.repaired.retain(|r| r.index < clean);
        self.warnings.retain(|w| w.index < clean);
        self.gone.retain(|&g| g < clean);
    }
}

/// Merges `older` (ascending by `key`, about other messages than `list`'s) into `list`
/// (ascending by `key`), keeping each side's order.
pub(super) fn merge_by<T>(list: &mut Vec<T>, mut older: Vec<T>, key: impl Fn(&T) -> usize) {
    let Some(last) = older.last() else {
        return;
    };
    if list.first().is_none_or(|first| key(last) < key(first)) {
        // The common case: all of `older` comes first (no user message carried in).
        older.append(list);
        *list = older;
        return;
    }
    let newer = std::mem::take(list);
    list.reserve(newer.len() + older.len());
    let (mut a, mut b) = (older.into_iter().peekable(), newer.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if key(x) <= key(y) => a.next(),
            (Some(_), Some(_)) => b.next(),
            (Some(_), None) => a.next(),
            (None, _) => b.next(),
        };
        match next {
            Some(item) => list.push(item),
            None => break,
        }
    }
}

/// The pinned system prompt (outside the messages, or the first message when `start.head`),
/// the user messages `start.users` and messages `start.from..` of `split`, as a session of
/// their own; the caller's indices stay.
pub(super) fn window_session<'a>(split: &Split, start: &Start) -> Session<'a> {
    let held = &split.session;
    // The outside system prompt, and the first message when it is the pinned one.
    let head = held
        .messages
        .iter()
        .take_while(|m| m.physical.is_none() || (start.head == 1 && m.physical == Some(0)))
        .count();
    let from = split.at_or_after(start.from);
    let users = start
        .users
        .iter()
        .flat_map(|&p| split.logicals(p).unwrap_or_default());
    let count = head + start.users.len() + held.messages.len() - from;
    let mut session = Session {
        messages: Vec::with_capacity(count),
        units: Vec::with_capacity(count),
        inputs: held.inputs.clone(),
        notes_in_meta: false,
    };
    for msg in held.messages[..head]
        .iter()
        .chain(users)
        .chain(&held.messages[from..])
    {
        let first = session.units.len() as u32;
        session
            .units
            .extend_from_slice(&held.units[msg.unit_range()]);
        let mut msg = msg.clone();
        msg.units = (first, session.units.len() as u32);
        session.messages.push(msg);
    }
    session
}

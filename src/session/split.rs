//! The held messages split into the neutral model (see [`Split`]), and moving that split to a
//! new buffer ([`rebase`]).

use crate::count_cache::CountCache;
use crate::error::Error;
use crate::model::{Message, Role, Session};
use crate::raw::{kind, Doc, Kind};
use crate::request::TrimOptions;

/// The held messages split into the neutral model, borrowing from the session's buffer.
///
/// The lifetime is the buffer's, erased. The bytes under the split never change while it is
/// kept: appending writes after the last message; growing fills a new buffer and moves the
/// split to it ([`rebase`]) before the old one is freed; truncating cuts the split with the
/// messages, and drops it when the buffer shrinks into a new allocation. The split is only
/// lent out for a borrow of the session.
pub(super) struct Split {
    pub(super) session: Session<'static>,
    /// Where the buffer was when the split was made (checked in debug builds).
    pub(super) base: usize,
    /// Messages `1..=pruned` are not held (their logical messages and units were let go once
    /// trims read only newer ones, see [`Window`]); a trim of the whole history splits them
    /// again. Only for formats that trim from the newest messages
    /// (`Adapter::trims_newest_alone`). The newest few user messages among them stay.
    pub(super) pruned: usize,
    /// A user message was let go: the request and the anchors may be among messages not held.
    pub(super) pruned_users: bool,
}

impl Split {
    /// The index in the split of the first logical message of the caller's message `p` or
    /// a later one (logical messages are in the caller's order, the outside system first).
    pub(super) fn at_or_after(&self, p: usize) -> usize {
        self.session
            .messages
            .partition_point(|m| m.physical.is_none_or(|q| (q as usize) < p))
    }

    /// The logical messages of the caller's message `p`; `None` when it is not held.
    pub(super) fn logicals(&self, p: usize) -> Option<&[Message<'static>]> {
        let messages = &self.session.messages[self.at_or_after(p)..];
        let len = messages
            .iter()
            .take_while(|m| m.physical == Some(p as u32))
            .count();
        (len > 0).then(|| &messages[..len])
    }

    /// The held messages of the caller's indices `range`, each with its logical messages.
    pub(super) fn runs(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (usize, &[Message<'static>])> + '_ {
        let messages = &self.session.messages;
        let (mut i, end) = (self.at_or_after(range.start), self.at_or_after(range.end));
        std::iter::from_fn(move || {
            if i >= end {
                return None;
            }
            let p = messages[i].physical?;
            let len = messages[i..end]
                .iter()
                .take_while(|m| m.physical == Some(p))
                .count();
            i += len;
            Some((p as usize, &messages[i - len..i]))
        })
    }

    /// Lets go of the split of the messages older than where a trim started reading, less a
    /// margin, in chunks (each costs a move of what stays), but the newest few user messages
    /// among them (a later trim may carry them into its window); forgets their token counts.
    pub(super) fn prune(&mut self, from: usize, counts: &mut CountCache) {
        let target = from.saturating_sub(PRUNE_MARGIN);
        let first = self.pruned + 1;
        if target < first + PRUNE_CHUNK {
            return;
        }
        let (i0, i1) = (self.at_or_after(1), self.at_or_after(target));
        let users: Vec<usize> = self
            .runs(1..target)
            .filter(|(_, l)| l.iter().any(|m| m.role == Some(Role::User)))
            .map(|(p, _)| p)
            .collect();
        let keep = users.len().saturating_sub(RETAINED_USERS);
        self.pruned_users |= keep > 0;
        let kept = &users[keep..];
        let held = &mut self.session;
        let mut messages = Vec::with_capacity(held.messages.len() - (i1 - i0) + kept.len());
        let mut units = Vec::with_capacity(held.units.len());
        for (i, msg) in held.messages.iter().enumerate() {
            let stays = !(i0..i1).contains(&i)
                || msg
                    .physical
                    .is_some_and(|p| kept.binary_search(&(p as usize)).is_ok());
            if !stays {
                continue;
            }
            let start = units.len() as u32;
            units.extend_from_slice(&held.units[msg.unit_range()]);
            let mut msg = msg.clone();
            msg.units = (start, units.len() as u32);
            messages.push(msg);
        }
        held.messages = messages;
        held.units = units;
        counts.forget_range(1..target, kept);
        self.pruned = target - 1;
    }
}

/// Messages kept split behind where a trim started reading (a later trim may start a little
/// further back), the fewest let go at once, and the user messages kept among those let go.
pub(super) const PRUNE_MARGIN: usize = 256;

pub(super) const PRUNE_CHUNK: usize = 256;

pub(super) const RETAINED_USERS: usize = 8;

/// Splits the session's whole history (`text`'s messages array at `open`, and the outside
/// system prompt).
pub(super) fn split_all(
    text: &str,
    noted: &[(usize, usize)],
    system: Option<(usize, usize)>,
    open: usize,
    options: &TrimOptions,
) -> Result<Split, Error> {
    let given = system
        .map(|(s, e)| &text[s..e])
        .filter(|s| kind(s) != Kind::Null);
    let doc = Doc::from_validated(text, noted.to_vec());
    let session = crate::trim::split(
        &doc,
        &text[open..],
        crate::trim::Start::Whole(given),
        options,
    )?;
    // SAFETY: see `Split`.
    let mut session: Session<'static> = unsafe { std::mem::transmute(session) };
    session.messages.shrink_to_fit();
    session.units.shrink_to_fit();
    session.inputs.shrink_to_fit();
    Ok(Split {
        session,
        base: text.as_ptr() as usize,
        pruned: 0,
        pruned_users: false,
    })
}

/// Points every reference of `session` into `old` at the same bytes of `new` (a copy of `old`,
/// so far).
///
/// Every field of the model is named here, without `..`: a field or a variant added to the
/// model that may borrow from the text fails to compile until it is rebased too.
pub(super) fn rebase(session: &mut Session<'static>, old: &str, new: &str) {
    use crate::model::{Message, TextSource, ToolCalls, Unit};
    let (from, end, to) = (
        old.as_ptr() as usize,
        old.as_ptr() as usize + old.len(),
        new.as_ptr(),
    );
    debug_assert!(new.len() >= old.len() && new.as_bytes()[..old.len()] == *old.as_bytes());
    let moved = |s: &mut &'static str| {
        let at = s.as_ptr() as usize;
        if at >= from && at + s.len() <= end {
            // SAFETY: `s` lies in `old`, whose bytes `new` holds at the same offsets; the
            // lifetime is the buffer's, as for the whole split (see `Split`).
            *s = unsafe {
                std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                    to.add(at - from),
                    s.len(),
                ))
            };
        }
    };
    let cow = |c: &mut std::borrow::Cow<'static, str>| {
        if let std::borrow::Cow::Borrowed(s) = c {
            moved(s);
        }
    };
    let Session {
        messages,
        units,
        inputs,
        notes_in_meta: _,
    } = session;
    for message in messages {
        let Message {
            physical: _,
            origin: _,
            role: _,
            shape: _,
            units: _,
            meta_bytes: _,
            meta_without_calls: _,
            tool_calls,
            tool_call_id,
            has_refusal: _,
            has_note: _,
            remove_tool_calls: _,
            compaction: _,
        } = message;
        match tool_calls {
            ToolCalls::None | ToolCalls::Empty | ToolCalls::Malformed { why: _, path: _ } => {}
            ToolCalls::Valid(ids) => ids.iter_mut().for_each(cow),
        }
        if let Some(id) = tool_call_id {
            cow(id);
        }
    }
    for unit in units {
        let Unit {
            part: _,
            sub: _,
            kind: _,
            text,
            bytes: _,
            change: _,
        } = unit;
        match text {
            TextSource::Raw(raw) => moved(raw),
            TextSource::Document(doc) => {
                cow(&mut doc.title);
                moved(&mut doc.body);
            }
        }
    }
    inputs.iter_mut().for_each(moved);
}

/// Room for `add` more items, growing by a quarter at least (not doubling).
pub(super) fn grow<T>(v: &mut Vec<T>, add: usize) {
    if v.len() + add > v.capacity() {
        v.reserve_exact(add.max(v.len() / 4));
    }
}

/// Heap bytes of a split: its messages, units, inputs and tool call ids.
pub(super) fn split_bytes(session: &Session<'_>) -> usize {
    use crate::model::{Message, ToolCalls, Unit};
    let calls: usize = session
        .messages
        .iter()
        .map(|m| {
            let calls = match &m.tool_calls {
                ToolCalls::Valid(ids) => {
                    ids.len() * std::mem::size_of::<std::borrow::Cow<str>>()
                        + std::mem::size_of::<Box<[std::borrow::Cow<str>]>>()
                }
                _ => 0,
            };
            calls
                + usize::from(m.tool_call_id.is_some())
                    * std::mem::size_of::<std::borrow::Cow<str>>()
        })
        .sum();
    session.messages.capacity() * std::mem::size_of::<Message>()
        + session.units.capacity() * std::mem::size_of::<Unit>()
        + session.inputs.capacity() * std::mem::size_of::<&str>()
        + calls
}

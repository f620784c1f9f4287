//! Incremental sessions: a history fed message by message, trimmed at any time.
//!
//! A companion trims before every model call a history that grows by a few messages a turn.
//! Stateless, every call hands over (and the caller serialises) the whole history again. A
//! [`TrimSession`] is given the trim options once, then each message once ([`append`]); an
//! edit or a regeneration cuts the tail ([`truncate`]) and appends the new version. Its answer
//! ([`trim_answer`], [`plan`]) is always the stateless [`crate::api::trim_json`] answer for the
//! same history and options.
//!
//! What a session holds:
//!
//! - the messages' JSON text as given (validated once, when appended), one after the other in
//!   one buffer that reads as a messages array, grown by an eighth of its size when full (so
//!   the buffer's capacity stays within 1.125× its bytes, plus the latest append);
//! - the end of each message in the buffer (8 bytes a message) and where each long string
//!   without escapes lies (16 bytes per string of 24 bytes or more), so the buffer is read in
//!   place without validating or scanning those strings again;
//! - the messages split into the neutral model ([`crate::model`]: roles, units, prices), made
//!   when they are appended (an image's header is read once over the session's life) and kept
//!   (some 300 bytes a message) for the messages a trim may read: all of them, until trims
//!   read only the newest ones (see `Window`);
//! - in token mode, each counted message's token costs (its fields and each of its parts), so
//!   a text is tokenized once over the session's life, not once a turn;
//! - what trims found in the older messages: their repairs and warnings.
//!
//! A trim then runs the pipeline from repair on over a copy of the kept split (repair,
//! selection, shedding, the report, the answer), with no validation, no probing, no
//! serialisation by the caller and no tokenizing of what was counted before; for a long
//! history, over its newest messages only, when that gives the same answer (`Window`): a turn
//! costs what the newest messages cost, not what the history holds.
//!
//! [`append`]: TrimSession::append
//! [`truncate`]: TrimSession::truncate
//! [`trim_answer`]: TrimSession::trim_answer
//! [`plan`]: TrimSession::plan
//!
//! ```
//! use ankita::session::TrimSession;
//! let mut session = TrimSession::new(r#"{"max_bytes": 4096}"#).unwrap();
//! session.append(r#"[{"role": "system", "content": "Be brief."}]"#).unwrap();
//! session.append(r#"[{"role": "user", "content": "Hi"}]"#).unwrap();
//! let answer = session.trim_answer().unwrap().into_string();
//! let stateless = ankita::api::trim_json(&format!(
//!     r#"{{"messages": {}, "max_bytes": 4096}}"#,
//!     session.messages_json()
//! ));
//! assert_eq!(answer, stateless);
//! ```

use crate::api::{options_of, write_plan_answer, write_trim_answer, Answer};
use crate::error::{Error, ErrorCode};
use crate::format::Adapter;
use crate::model::{Change, Message, Origin, Role, Session};
use crate::raw::{kind, Doc, Kind};
use crate::report::{RepairEntry, Report, Warning};
use crate::request::TrimOptions;
use crate::trim::{plan_split_reach, Plan, Reach, EARLIER_ANCHORS};
use std::collections::HashMap;

/// A chat history held between trims (see the module documentation).
pub struct TrimSession {
    options: TrimOptions,
    /// The format's outside system prompt as given, then `\n[`, the messages separated by
    /// commas, and `]`.
    text: String,
    /// Where the outside system prompt is in `text`.
    system: Option<(usize, usize)>,
    /// Where the messages array starts in `text` (its `[`).
    open: usize,
    /// Where each message ends in `text` (it starts after the comma, or the `[`, before it).
    ends: Vec<usize>,
    /// The long strings without escapes of `text`, in order (see [`Doc::from_validated`]).
    noted: Vec<(usize, usize)>,
    counts: CountCache,
    /// The messages split into the neutral model, kept between trims (see [`Split`]).
    split: Option<Split>,
    /// Bytes given to the session (every `append` argument, and the options).
    given: usize,
    window: Window,
    /// Trims answered from the newest messages (see [`Window`]).
    windowed: usize,
}

/// A long history is trimmed from its newest messages when that is sure to give the stateless
/// answer (see [`Window::start`]): selection takes groups newest first and stops at the first
/// that does not fit, so what lies well before where the last trim stopped is dropped whole;
/// repair of a message never looks before it, and what it found in the older messages is kept
/// here. A trim of the newest messages (and the pinned system message) that stops inside them
/// and anchors its earlier user messages there is the stateless trim, with the older messages
/// added to `dropped_messages` and their repairs and warnings to the report's; one that does
/// not is done again on the whole history.
#[derive(Debug, Default)]
struct Window {
    /// Messages `[0, clean)` were read by a trim, and message `clean` closes the exchanges
    /// before it (`Adapter::closes_exchanges`): no message after it changes how they are
    /// repaired.
    clean: usize,
    /// The report's repairs and warnings of messages `[0, clean)`, in the report's order.
    repaired: Vec<RepairEntry<'static>>,
    warnings: Vec<Warning>,
    /// Messages of `[0, clean)` repair removed whole (not dropped by trimming), ascending.
    gone: Vec<usize>,
    /// The caller's index of the first message of the group that ended the last trim's
    /// selection.
    stopped_at: Option<usize>,
}

/// Where a windowed trim reads: the outside system prompt if any, the first message when it
/// is a system message (`head`, 0 or 1), the older user messages `users` (when the request or
/// the anchors may be among them), then the messages from `from` on.
#[derive(Debug, Clone)]
struct Start {
    head: usize,
    from: usize,
    users: Vec<usize>,
}

/// Messages kept between where the last trim stopped and where the next one starts reading,
/// for a history that grows, or changes near its end, between trims.
const WINDOW_MARGIN: usize = 64;

impl Window {
    fn start(&self, held: &Split, options: &TrimOptions) -> Option<Start> {
        // Formats that allow it (see `Adapter::trims_newest_alone`), and a selection without
        // clear_tool_results (which looks at every exchange).
        let adapter = options.format.adapter();
        if !adapter.trims_newest_alone() || options.clear_tool_results.is_some() {
            return None;
        }
        // A cache-stable trim keeps the anchors of its cut and the messages from it on.
        if options.cache.stable {
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
    fn with_users(held: &Split, options: &TrimOptions, start: &Start) -> Option<Start> {
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
    fn bytes_held(&self) -> usize {
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
    fn complete(&self, report: &mut Report<'_>, start: &Start) {
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
    fn update(
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
    fn forget_from(&mut self, len: usize, held: Option<&Split>, adapter: &dyn Adapter) {
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
fn merge_by<T>(list: &mut Vec<T>, mut older: Vec<T>, key: impl Fn(&T) -> usize) {
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
fn window_session<'a>(split: &Split, start: &Start) -> Session<'a> {
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

/// The held messages split into the neutral model, borrowing from the session's buffer.
///
/// The lifetime is the buffer's, erased. The bytes under the split never change while it is
/// kept: appending writes after the last message; growing fills a new buffer and moves the
/// split to it ([`rebase`]) before the old one is freed; truncating cuts the split with the
/// messages, and drops it when the buffer shrinks into a new allocation. The split is only
/// lent out for a borrow of the session.
struct Split {
    session: Session<'static>,
    /// Where the buffer was when the split was made (checked in debug builds).
    base: usize,
    /// Messages `1..=pruned` are not held (their logical messages and units were let go once
    /// trims read only newer ones, see [`Window`]); a trim of the whole history splits them
    /// again. Only for formats that trim from the newest messages
    /// (`Adapter::trims_newest_alone`). The newest few user messages among them stay.
    pruned: usize,
    /// A user message was let go: the request and the anchors may be among messages not held.
    pruned_users: bool,
}

impl Split {
    /// The index in the split of the first logical message of the caller's message `p` or
    /// a later one (logical messages are in the caller's order, the outside system first).
    fn at_or_after(&self, p: usize) -> usize {
        self.session
            .messages
            .partition_point(|m| m.physical.is_none_or(|q| (q as usize) < p))
    }

    /// The logical messages of the caller's message `p`; `None` when it is not held.
    fn logicals(&self, p: usize) -> Option<&[Message<'static>]> {
        let messages = &self.session.messages[self.at_or_after(p)..];
        let len = messages
            .iter()
            .take_while(|m| m.physical == Some(p as u32))
            .count();
        (len > 0).then(|| &messages[..len])
    }

    /// The held messages of the caller's indices `range`, each with its logical messages.
    fn runs(
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
    fn prune(&mut self, from: usize, counts: &mut CountCache) {
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
const PRUNE_MARGIN: usize = 256;
const PRUNE_CHUNK: usize = 256;
const RETAINED_USERS: usize = 8;

/// Splits the session's whole history (`text`'s messages array at `open`, and the outside
/// system prompt).
fn split_all(
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
    let session = crate::trim::split(&doc, &text[open..], given, options)?;
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

impl TrimSession {
    /// A session with the trim options of a request (every request key but `messages`, which
    /// may be given too: the session then starts with those messages).
    pub fn new(options_json: &str) -> Result<TrimSession, Error> {
        let doc = Doc::parse(options_json).map_err(invalid_json)?;
        let fields = doc.fields(doc.root()).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidRequest,
                "the session options must be a JSON object",
            )
        })?;
        let (system, options) = options_of(&fields)?;
        let mut session = TrimSession {
            options,
            text: String::new(),
            system: None,
            open: 0,
            ends: Vec::new(),
            noted: Vec::new(),
            counts: CountCache::default(),
            split: None,
            given: options_json.len(),
            window: Window::default(),
            windowed: 0,
        };
        if let Some(system) = system {
            let at = doc.offset_of(system);
            session.text.push_str(system);
            session.noted.extend(
                doc.noted()
                    .iter()
                    .filter(|&&(s, e)| s >= at && e <= at + system.len())
                    .map(|&(s, e)| (s - at, e - at)),
            );
            session.system = Some((0, system.len()));
            session.text.push('\n');
        }
        session.open = session.text.len();
        session.text.push_str("[]");
        if let Some(messages) = crate::raw::get(&fields, "messages") {
            if kind(messages) != Kind::Array {
                return Err(Error::invalid_request(
                    "messages must be an array",
                    "messages",
                ));
            }
            session.append_from(&doc, messages);
        }
        Ok(session)
    }

    /// Appends messages given as a JSON array (validated here, once). Returns how many
    /// messages the session holds. A message the trim cannot read is not refused here: the
    /// trim answers the error a stateless trim of the same history answers.
    pub fn append(&mut self, messages_json: &str) -> Result<usize, Error> {
        let doc = Doc::parse(messages_json).map_err(invalid_json)?;
        let root = doc.root();
        if kind(root) != Kind::Array {
            return Err(Error::invalid_request(
                "append takes a JSON array of messages",
                "messages",
            ));
        }
        self.given += messages_json.len();
        self.append_from(&doc, root);
        Ok(self.ends.len())
    }

    fn append_from(&mut self, doc: &Doc<'_>, array: &str) {
        let items = doc.items(array).unwrap_or_default();
        if items.is_empty() {
            return;
        }
        let add: usize = items.iter().map(|m| m.len() + 1).sum();
        self.reserve(add + 1);
        let noted = doc.noted();
        let mut n = noted.partition_point(|&(s, _)| s < doc.offset_of(array));
        let first = self.ends.len();
        let first_note = self.noted.len();
        self.text.pop(); // the closing `]`
                         // The new messages are written as an array of their own (`[` where the comma after
                         // the last message goes), split as such, then the `[` becomes that comma.
        let open = if first > 0 {
            self.text.push('[');
            self.text.len() - 1
        } else {
            self.open
        };
        for (k, item) in items.iter().enumerate() {
            if k > 0 {
                self.text.push(',');
            }
            let from = doc.offset_of(item);
            let to = self.text.len();
            self.text.push_str(item);
            while let Some(&(s, e)) = noted.get(n) {
                if s >= from + item.len() {
                    break;
                }
                self.noted.push((s - from + to, e - from + to));
                n += 1;
            }
            self.ends.push(self.text.len());
        }
        self.text.push(']');
        self.split_new(open, first, first_note);
        if first > 0 {
            // SAFETY: `open` < len is the `[` written above (ASCII, so the text stays UTF-8);
            // written through the vector's pointer, without a reference to its bytes, which
            // the split borrows elsewhere.
            unsafe { self.text.as_mut_vec().as_mut_ptr().add(open).write(b',') };
        }
    }

    /// Adds messages `first..` (the array at `open`) to the kept split, if there is one.
    fn split_new(&mut self, open: usize, first: usize, first_note: usize) {
        let Some(split) = &mut self.split else {
            return;
        };
        let text: &str = &self.text;
        // The message before the new ones (Gemini matches a response without an id to the
        // calls of the content before it), and the notes of its strings and theirs.
        let previous = first.checked_sub(1).map(|p| {
            let start = match p {
                0 => self.open + 1,
                _ => self.ends[p - 1] + 1,
            };
            (start, &text[start..self.ends[p]])
        });
        let notes_from = previous.map_or(first_note, |(start, _)| {
            self.noted.partition_point(|&(s, _)| s < start)
        });
        let doc = Doc::from_validated(text, self.noted[notes_from..].to_vec());
        let previous = previous.map(|(_, raw)| raw);
        let Ok(part) = crate::trim::split_more(&doc, &text[open..], first, previous, &self.options)
        else {
            // The trim answers the error, from a split of the whole history.
            self.split = None;
            return;
        };
        // SAFETY: see `Split`; the buffer did not move since the split was made (it is
        // dropped when it grows) and the new messages stay where they are.
        let part: Session<'static> = unsafe { std::mem::transmute(part) };
        debug_assert_eq!(split.base, self.text.as_ptr() as usize);
        let held = &mut split.session;
        grow(&mut held.messages, part.messages.len());
        grow(&mut held.units, part.units.len());
        grow(&mut held.inputs, part.inputs.len());
        let units = held.units.len() as u32;
        for mut msg in part.messages {
            msg.units = (msg.units.0 + units, msg.units.1 + units);
            held.messages.push(msg);
        }
        held.units.extend(part.units);
        held.inputs.extend(part.inputs);
    }

    /// Room for `add` more bytes, growing the buffer by an eighth of its size at least (not
    /// doubling it: the capacity stays within 1.125× what it holds, plus the latest append;
    /// a growth copies the buffer, some eight bytes copied per byte appended).
    fn reserve(&mut self, add: usize) {
        let len = self.text.len();
        if len + add > self.text.capacity() {
            // A new buffer, filled before the old one goes: the split moves to it at once
            // (it never refers to freed bytes), without splitting anything again.
            let mut grown = String::with_capacity(len + add.max(len / 8));
            grown.push_str(&self.text);
            if let Some(split) = &mut self.split {
                rebase(&mut split.session, &self.text, &grown);
                split.base = grown.as_ptr() as usize;
            }
            self.text = grown;
        }
    }

    /// Keeps the first `len` messages (an edit or a regeneration then appends the new tail).
    /// A `len` past the end changes nothing. Returns how many messages the session holds.
    pub fn truncate(&mut self, len: usize) -> usize {
        if len >= self.ends.len() {
            return self.ends.len();
        }
        let end = if len == 0 {
            self.open + 1
        } else {
            self.ends[len - 1]
        };
        let adapter = self.options.format.adapter();
        self.window.forget_from(len, self.split.as_ref(), adapter);
        // Messages before the cut were replaced: the next trim chooses its cut afresh.
        if self.options.cache.cut.is_some_and(|cut| len < cut) {
            self.options.cache.cut = None;
        }
        if self.split.as_ref().is_some_and(|s| len <= s.pruned) {
            self.split = None;
        }
        if let Some(split) = &mut self.split {
            let held = &mut split.session;
            let logical = held
                .messages
                .iter()
                .position(|m| m.physical.is_some_and(|p| p as usize >= len))
                .unwrap_or(held.messages.len());
            let units = held
                .messages
                .get(logical)
                .map_or(held.units.len(), |m| m.units.0 as usize);
            held.messages.truncate(logical);
            held.units.truncate(units);
            held.inputs.truncate(len);
        }
        self.text.truncate(end);
        self.text.push(']');
        self.ends.truncate(len);
        let keep = self.noted.partition_point(|&(s, _)| s < end);
        self.noted.truncate(keep);
        self.counts.forget_from(len);
        if self.text.capacity() > 2 * self.text.len() + 4096 {
            self.split = None;
            self.text.shrink_to(self.text.len() + self.text.len() / 4);
        }
        self.ends.len()
    }

    /// How many messages the session holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The messages as a JSON array, as given (what an application saves to restore the
    /// session later: a new session with the same options, then [`TrimSession::append`]).
    pub fn messages_json(&self) -> &str {
        &self.text[self.open..]
    }

    /// The trim options.
    pub fn options(&self) -> &TrimOptions {
        &self.options
    }

    /// Bytes given to the session so far (options and every append, as passed).
    pub fn bytes_given(&self) -> usize {
        self.given
    }

    /// Bytes the session holds on the heap: its buffer's capacity, the message ends, the
    /// string notes, the token counts, the split and what trims found in older messages.
    pub fn bytes_held(&self) -> usize {
        self.text.capacity()
            + self.ends.capacity() * std::mem::size_of::<usize>()
            + self.noted.capacity() * std::mem::size_of::<(usize, usize)>()
            + self.counts.bytes_held()
            + self.split.as_ref().map_or(0, |s| split_bytes(&s.session))
            + self.window.bytes_held()
    }

    /// How many messages the session keeps split into the neutral model (all of them, until
    /// trims read only the newest; then those a trim may read).
    pub fn messages_split(&self) -> usize {
        self.split.as_ref().map_or(0, |s| s.session.messages.len())
    }

    /// How many trims so far read only the newest messages of the history (the others read
    /// all of it; the answers are the same, see the module documentation).
    pub fn trims_from_newest(&self) -> usize {
        self.windowed
    }

    /// Plans the trim of the history held (see [`crate::trim::plan_trim`]).
    pub fn plan(&mut self) -> Result<Plan<'_>, Error> {
        self.with_plan(|_, _, plan| plan)
    }

    /// The answer a stateless trim of the same history gives (`{"ok": true, "messages",
    /// "report", "system"?}`).
    pub fn trim_answer(&mut self) -> Result<Answer<'_>, Error> {
        let options = self.options.clone();
        self.with_plan(|doc, system, plan| write_trim_answer(doc, system, &options, plan))
    }

    /// The answer as a plan: `{"ok": true, "plan": [...], "report": {...}}`, where each item
    /// of `plan` is the index of a message returned as given (a number) or a message that
    /// changed (an object); for callers that hold the messages themselves.
    pub fn plan_answer(&mut self) -> Result<Answer<'_>, Error> {
        self.with_plan(|doc, _, plan| write_plan_answer(doc, plan))
    }

    fn with_plan<'s, T>(
        &'s mut self,
        then: impl FnOnce(&Doc<'s>, Option<&'s str>, Plan<'s>) -> T,
    ) -> Result<T, Error> {
        // The errors in a stateless trim's order: the budget, then the messages.
        let budget = self.options.history_budget()?;
        if self.split.is_none() {
            self.split = Some(split_all(
                &self.text,
                &self.noted,
                self.system,
                self.open,
                &self.options,
            )?);
        }
        let TrimSession {
            options,
            text,
            system: system_at,
            open,
            noted,
            counts,
            split,
            window,
            windowed,
            ..
        } = self;
        let text: &'s str = text.as_str();
        let system = system_at.map(|(s, e)| &text[s..e]);
        let doc = Doc::from_validated(text, noted.clone());
        let held = split.as_mut().expect("split above");
        // First the window alone; when it anchors fewer earlier user messages than it could
        // (or holds no request), again with the older user messages carried into it.
        let mut attempt = window.start(held, options);
        while let Some(start) = attempt.take() {
            let session: Session<'s> = window_session(held, &start);
            let cache = options.measure.in_tokens().then_some(&mut *counts);
            let Ok((mut plan, reach)) =
                plan_split_reach(&doc, session, options, budget, cache, true)
            else {
                // The whole history's trim answers the error.
                break;
            };
            // Selection read back to where the window starts: older messages may have fit.
            if reach.stopped_at.is_none_or(|s| s < start.from) {
                break;
            }
            // Fewer anchors than there may be: the request and the anchors are the newest user
            // messages that fit, wherever they are. So is the user message that began the
            // kept run's turn, when the answer must start with one (crate::turn).
            if reach.anchors < EARLIER_ANCHORS || reach.missing_turn_start {
                if start.users.is_empty() {
                    match Window::with_users(held, options, &start) {
                        Some(with) if !with.users.is_empty() => {
                            attempt = Some(with);
                            continue;
                        }
                        // No user message before the window at all: its answer stands.
                        Some(_) if !held.pruned_users => {}
                        _ => break,
                    }
                } else if held.pruned_users {
                    // Every user message held was carried, and older ones were let go.
                    break;
                }
            }
            window.complete(&mut plan.report, &start);
            window.update(
                held,
                options.format.adapter(),
                &plan.report,
                start.from,
                reach,
            );
            held.prune(start.from, counts);
            *windowed += 1;
            crate::api::place_breakpoint(&doc, system, options, &mut plan);
            return Ok(then(&doc, system, plan));
        }
        if held.pruned > 0 {
            *held = split_all(text, noted, *system_at, *open, options)?;
        }
        let held = &held.session;
        let cache = options.measure.in_tokens().then_some(counts);
        // Lent for the session's borrow `'s` only (`Session` is covariant in its lifetime).
        let session: Session<'s> = Session {
            messages: held.messages.clone(),
            units: held.units.clone(),
            inputs: held.inputs.clone(),
            notes_in_meta: false,
        };
        let windows = options.format.adapter().trims_newest_alone();
        let (mut plan, reach) = plan_split_reach(&doc, session, options, budget, cache, windows)?;
        let held = split.as_ref().expect("split above");
        window.update(held, options.format.adapter(), &plan.report, 0, reach);
        crate::api::place_breakpoint(&doc, system, options, &mut plan);
        // The next trim goes on from this one's cut (crate::stable).
        if let Some(cut) = plan.report.cut {
            options.cache.cut = cut;
        }
        Ok(then(&doc, system, plan))
    }
}

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
        msg.note.is_none() && session.units_of(m).iter().all(|u| u.change == Change::Keep)
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
    fn forget_range(&mut self, range: std::ops::Range<usize>, kept: &[usize]) {
        self.entries.retain(|&(physical, _), _| {
            physical.is_none_or(|p| {
                let p = p as usize;
                !range.contains(&p) || kept.binary_search(&p).is_ok()
            })
        });
    }

    /// Forgets the messages from the caller's index `len` on.
    fn forget_from(&mut self, len: usize) {
        self.entries
            .retain(|&(physical, _), _| physical.is_none_or(|p| (p as usize) < len));
    }

    fn bytes_held(&self) -> usize {
        let entry = std::mem::size_of::<((Option<u32>, Origin), Counted)>() + 8;
        self.entries.capacity() * entry
            + self
                .entries
                .values()
                .map(|c| c.units.len() * 8)
                .sum::<usize>()
    }
}

/// Points every reference of `session` into `old` at the same bytes of `new` (a copy of `old`,
/// so far).
///
/// Every field of the model is named here, without `..`: a field or a variant added to the
/// model that may borrow from the text fails to compile until it is rebased too.
fn rebase(session: &mut Session<'static>, old: &str, new: &str) {
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
            role_raw,
            shape: _,
            units: _,
            meta_bytes: _,
            meta_without_calls: _,
            tool_calls,
            tool_call_id,
            has_refusal: _,
            note: _,
            remove_tool_calls: _,
        } = message;
        moved(role_raw);
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
            TextSource::Document { title, body } => {
                cow(title);
                moved(body);
            }
            TextSource::None => {}
        }
    }
    inputs.iter_mut().for_each(moved);
}

/// Room for `add` more items, growing by a quarter at least (not doubling).
fn grow<T>(v: &mut Vec<T>, add: usize) {
    if v.len() + add > v.capacity() {
        v.reserve_exact(add.max(v.len() / 4));
    }
}

/// Heap bytes of a split: its messages, units, inputs and tool call ids.
fn split_bytes(session: &Session<'_>) -> usize {
    use crate::model::{Message, ToolCalls, Unit};
    let calls: usize = session
        .messages
        .iter()
        .map(|m| match &m.tool_calls {
            ToolCalls::Valid(ids) => ids.capacity() * std::mem::size_of::<std::borrow::Cow<str>>(),
            _ => 0,
        })
        .sum();
    session.messages.capacity() * std::mem::size_of::<Message>()
        + session.units.capacity() * std::mem::size_of::<Unit>()
        + session.inputs.capacity() * std::mem::size_of::<&str>()
        + calls
}

fn invalid_json(e: serde_json::Error) -> Error {
    Error::new(ErrorCode::InvalidJson, format!("invalid JSON: {e}"))
}

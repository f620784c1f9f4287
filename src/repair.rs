//! Repair of restored sessions (DESIGN §5) on logical messages: orphan tool replies, broken or
//! unanswered tool calls, unknown roles and empty messages. The result is the list of usable
//! messages already cut into groups: an assistant message with tool calls and its replies form
//! one tool exchange; every other message is a group of one.

use crate::model::{Change, ContentShape, Malformed, Role, Session, ToolCalls};
use std::borrow::Cow;
use std::collections::HashMap;

pub use crate::model::INCOMPLETE_TOOL_CALLS_NOTE;

/// What a repair did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepairAction {
    OrphanToolRemoved,
    IncompleteToolCallsRemoved,
    IncompleteToolReplyRemoved,
    EmptyToolCallsRemoved,
    EmptyMessageRemoved,
    UnknownRoleRemoved,
    /// A reasoning item with no item of its step left after it.
    OrphanReasoningRemoved,
}

/// Why: data, worded by the format when the report is written.
#[derive(Debug, Clone, PartialEq)]
pub enum RepairReason<'a> {
    /// The role as written (JSON).
    UnknownRole(Cow<'a, str>),
    /// A reply that does not answer the assistant message right before it.
    Orphan,
    Malformed(Malformed),
    ReplyWithoutId,
    UnknownCall(Cow<'a, str>),
    AnsweredTwice(Cow<'a, str>),
    NoReply(Cow<'a, str>),
    /// A reply of the incomplete tool calls of logical message `assistant`.
    ReplyOfIncomplete {
        assistant: usize,
    },
    EmptyToolCalls,
    NoContent,
    /// An output whose id names no call of its step.
    NoCall(Cow<'a, str>),
    /// An output without a call id.
    NoCallId,
    /// A reasoning item with nothing after it in its step.
    NothingFollows,
    /// A reasoning item whose following item (logical message `message`) repair removed.
    FollowerRemoved {
        message: usize,
    },
}

impl RepairReason<'_> {
    /// The same reason, owning its strings.
    pub fn into_owned(self) -> RepairReason<'static> {
        let own = |c: Cow<'_, str>| Cow::Owned(c.into_owned());
        match self {
            RepairReason::UnknownRole(raw) => RepairReason::UnknownRole(own(raw)),
            RepairReason::Orphan => RepairReason::Orphan,
            RepairReason::Malformed(why) => RepairReason::Malformed(why),
            RepairReason::ReplyWithoutId => RepairReason::ReplyWithoutId,
            RepairReason::UnknownCall(id) => RepairReason::UnknownCall(own(id)),
            RepairReason::AnsweredTwice(id) => RepairReason::AnsweredTwice(own(id)),
            RepairReason::NoReply(id) => RepairReason::NoReply(own(id)),
            RepairReason::ReplyOfIncomplete { assistant } => {
                RepairReason::ReplyOfIncomplete { assistant }
            }
            RepairReason::EmptyToolCalls => RepairReason::EmptyToolCalls,
            RepairReason::NoContent => RepairReason::NoContent,
            RepairReason::NoCall(id) => RepairReason::NoCall(own(id)),
            RepairReason::NoCallId => RepairReason::NoCallId,
            RepairReason::NothingFollows => RepairReason::NothingFollows,
            RepairReason::FollowerRemoved { message } => RepairReason::FollowerRemoved { message },
        }
    }
}

/// One repair of logical message `message`.
#[derive(Debug, Clone, PartialEq)]
pub struct Repair<'a> {
    pub message: usize,
    pub action: RepairAction,
    pub reason: RepairReason<'a>,
    /// The JSON path of a malformed tool call's defect.
    pub path: Option<Box<str>>,
}

/// A run of messages kept or dropped together: `order[start..start + len]` (12 bytes: one
/// is made for nearly every caller's message).
#[derive(Debug, Clone, Copy)]
pub struct Group {
    start: u32,
    len: u32,
    pub exchange: bool,
}

impl Group {
    /// Where its messages start in the order.
    pub fn start(&self) -> usize {
        self.start as usize
    }

    /// How many messages it has.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Never: a group has a message at least.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its messages' places in the order.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start()..self.start() + self.len()
    }
}

/// The session after repair: the usable logical messages in order, cut into groups.
#[derive(Debug, Default)]
pub struct Repaired<'a> {
    pub order: Vec<usize>,
    pub groups: Vec<Group>,
    pub repairs: Vec<Repair<'a>>,
}

impl<'a> Repaired<'a> {
    /// Notes a repair of logical message `message` (one without a path).
    pub(crate) fn note(&mut self, message: usize, action: RepairAction, reason: RepairReason<'a>) {
        self.repairs.push(Repair {
            message,
            action,
            reason,
            path: None,
        });
    }

    /// Appends a group made of the logical messages `msgs`, in order.
    pub fn push_group(&mut self, msgs: &[usize], exchange: bool) {
        self.groups.push(Group {
            start: self.order.len() as u32,
            len: msgs.len() as u32,
            exchange,
        });
        self.order.extend_from_slice(msgs);
    }

    fn push_single(&mut self, m: usize) {
        self.groups.push(Group {
            start: self.order.len() as u32,
            len: 1,
            exchange: false,
        });
        self.order.push(m);
    }
}

/// Repairs the session (marking removed tool calls and notes on its messages) and cuts it
/// into groups.
pub fn repair<'a>(session: &mut Session<'a>) -> Repaired<'a> {
    let n = session.messages.len();
    let mut out = Repaired {
        order: Vec::with_capacity(n),
        // A group has a message at least: grown by doubling, the list reserved up to twice
        // what it held, one group for nearly every caller's message.
        groups: Vec::with_capacity(n),
        ..Repaired::default()
    };
    let role_of = |s: &Session<'_>, m: usize| s.messages[m].role;
    let mut i = 0;
    while i < n {
        prefetch_ids(session, i + 8);
        let Some(role) = session.messages[i].role else {
            out.note(
                i,
                RepairAction::UnknownRoleRemoved,
                RepairReason::UnknownRole(Cow::Borrowed(session.role_raw(i))),
            );
            i += 1;
            continue;
        };
        if role == Role::Tool {
            out.note(i, RepairAction::OrphanToolRemoved, RepairReason::Orphan);
            i += 1;
            continue;
        }
        if role == Role::Assistant && session.messages[i].tool_calls != ToolCalls::None {
            // The replies are the run of tool messages right after the assistant message.
            let mut end = i + 1;
            while end < n && role_of(session, end) == Some(Role::Tool) {
                end += 1;
            }
            let problem = match &session.messages[i].tool_calls {
                ToolCalls::Empty => {
                    out.note(
                        i,
                        RepairAction::EmptyToolCallsRemoved,
                        RepairReason::EmptyToolCalls,
                    );
                    None
                }
                ToolCalls::Malformed { why, path } => {
                    Some((RepairReason::Malformed(*why), Some((**path).clone())))
                }
                ToolCalls::Valid(ids) => match_replies(ids, session, i + 1..end)
                    .err()
                    .map(|reason| (reason, None)),
                ToolCalls::None => unreachable!("checked above"),
            };
            if matches!(session.messages[i].tool_calls, ToolCalls::Valid(_)) && problem.is_none() {
                // Replies without content were not counted as answers: they go as empty.
                let start = out.order.len();
                out.order.push(i);
                for r in i + 1..end {
                    if session.has_content(r) {
                        out.order.push(r);
                    } else {
                        out.note(
                            r,
                            RepairAction::EmptyMessageRemoved,
                            RepairReason::NoContent,
                        );
                    }
                }
                out.groups.push(Group {
                    start: start as u32,
                    len: (out.order.len() - start) as u32,
                    exchange: true,
                });
                i = end;
                continue;
            }
            session.messages[i].remove_tool_calls = true;
            if let Some((reason, path)) = problem {
                append_note(session, i);
                out.repairs.push(Repair {
                    message: i,
                    action: RepairAction::IncompleteToolCallsRemoved,
                    reason,
                    path,
                });
                for r in i + 1..end {
                    // A reply that says nothing goes as empty (its call was unanswered).
                    let (action, reason) = if session.has_content(r) {
                        let reason = RepairReason::ReplyOfIncomplete { assistant: i };
                        (RepairAction::IncompleteToolReplyRemoved, reason)
                    } else {
                        (RepairAction::EmptyMessageRemoved, RepairReason::NoContent)
                    };
                    out.note(r, action, reason);
                }
                out.push_single(i);
                i = end;
                continue;
            }
        }
        if !session.has_content(i) {
            out.note(
                i,
                RepairAction::EmptyMessageRemoved,
                RepairReason::NoContent,
            );
            i += 1;
            continue;
        }
        out.push_single(i);
        i += 1;
    }
    out
}

/// Checks that the replies `range` answer the calls one-to-one, in any order.
fn match_replies<'a>(
    ids: &[Cow<'a, str>],
    session: &Session<'a>,
    range: std::ops::Range<usize>,
) -> Result<(), RepairReason<'a>> {
    // Which call each reply answers: compared for a few calls, hashed for thousands.
    let index: Option<HashMap<&str, usize>> = (ids.len() > 16).then(|| {
        ids.iter()
            .enumerate()
            .map(|(k, id)| (id.as_ref(), k))
            .collect()
    });
    // Which calls are answered: a bit each (a list past 64 calls).
    let few = ids.len() <= 64;
    let mut bits = 0u64;
    let mut answered = vec![false; if few { 0 } else { ids.len() }];
    for r in range {
        // A reply with no content (`"content": null` or none) is removed (DESIGN §5), which
        // leaves its call unanswered: the provider refuses a tool message without content.
        if !session.has_content(r) {
            continue;
        }
        let Some(id) = session.messages[r].tool_call_id.as_deref() else {
            return Err(RepairReason::ReplyWithoutId);
        };
        let call = match &index {
            Some(index) => index.get(id.as_ref()).copied(),
            None => ids.iter().position(|c| crate::raw::same_key(c, id)),
        };
        match call {
            None => return Err(RepairReason::UnknownCall(id.clone())),
            Some(k) => {
                let again = if few {
                    let again = bits & 1 << k != 0;
                    bits |= 1 << k;
                    again
                } else {
                    std::mem::replace(&mut answered[k], true)
                };
                if again {
                    return Err(RepairReason::AnsweredTwice(id.clone()));
                }
            }
        }
    }
    let unanswered = if few {
        Some((!bits).trailing_zeros() as usize).filter(|&k| k < ids.len())
    } else {
        answered.iter().position(|done| !done)
    };
    match unanswered {
        Some(k) => Err(RepairReason::NoReply(ids[k].clone())),
        None => Ok(()),
    }
}

/// Asks the processor for the tool call ids of message `m`, which the loop reaches soon:
/// they lie in the caller's text, long out of the caches in a long history, and comparing
/// them was most of what repair waited for.
#[inline]
fn prefetch_ids(session: &Session<'_>, m: usize) {
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (session, m);
    #[cfg(target_arch = "x86_64")]
    if let Some(msg) = session.messages.get(m) {
        let at = match (&msg.tool_call_id, &msg.tool_calls) {
            (Some(id), _) => id.as_ptr(),
            (None, ToolCalls::Valid(ids)) if !ids.is_empty() => ids[0].as_ptr(),
            _ => return,
        };
        // SAFETY: a prefetch is a hint that never faults.
        unsafe { std::arch::x86_64::_mm_prefetch(at.cast(), std::arch::x86_64::_MM_HINT_T0) };
    }
}

/// Appends the repair note to the message's text (the note alone when it had no text).
fn append_note(session: &mut Session<'_>, m: usize) {
    let note = INCOMPLETE_TOOL_CALLS_NOTE;
    let range = session.messages[m].unit_range();
    match session.messages[m].shape {
        ContentShape::Text => {
            let unit = &mut session.units[range.start];
            let text = unit.text.text();
            let new = if text.is_empty() {
                note.to_owned()
            } else {
                format!("{text}\n{note}")
            };
            unit.bytes = new.len() as u64;
            unit.change = Change::Text(Box::new(new.into()));
        }
        ContentShape::Absent | ContentShape::Null | ContentShape::Parts => {
            session.messages[m].has_note = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    /// Trims a user request, an assistant message with `calls` calls and the replies to
    /// `replies` (call indices, in order): the answer's messages and repairs.
    fn exchange(calls: usize, replies: &[usize]) -> (usize, String) {
        let id = |c: usize| format!("call_{c}");
        let tool_calls: Vec<Value> = (0..calls)
            .map(|c| json!({"id": id(c), "type": "function", "function": {"name": "f", "arguments": "{}"}}))
            .collect();
        let mut messages = vec![
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant", "content": null, "tool_calls": tool_calls}),
        ];
        messages.extend(
            replies
                .iter()
                .map(|&c| json!({"role": "tool", "tool_call_id": id(c), "content": "done"})),
        );
        let answer: Value = serde_json::from_str(&crate::api::trim_json(
            &json!({"messages": messages}).to_string(),
        ))
        .unwrap();
        let kept = answer["messages"].as_array().unwrap().len();
        (kept, answer["report"]["repaired"].to_string())
    }

    #[test]
    fn replies_are_matched_to_calls_one_to_one_past_64_calls_too() {
        for calls in [1, 2, 63, 64, 65, 100] {
            let all: Vec<usize> = (0..calls).rev().collect();
            assert_eq!(exchange(calls, &all), (calls + 2, "[]".into()), "{calls}");
            let last = calls - 1;
            let (kept, repaired) = exchange(calls, &all[1..]);
            assert_eq!(kept, 2, "{calls}");
            assert!(
                repaired.contains(&format!("call_{last}")),
                "{calls}: {repaired}"
            );
            let mut twice = all.clone();
            twice.push(0);
            let (kept, repaired) = exchange(calls, &twice);
            assert_eq!(kept, 2, "{calls}");
            assert!(repaired.contains("call_0"), "{calls}: {repaired}");
        }
    }
}

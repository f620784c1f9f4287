//! The Responses format's own repair: outputs are matched to the calls of their step, not to
//! the message right before them, and a reasoning item must keep what follows it.

use super::*;

/// What a logical message is to its step.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// A user, system or developer message (or one of unknown role), the pinned instructions:
    /// a group of its own that ends a step.
    Turn,
    /// An assistant message item.
    Said,
    Reasoning,
    Call(u8),
    Output(u8),
    Reference,
    Opaque,
}

pub(super) fn class(msg: &Message<'_>) -> Class {
    match msg.origin {
        Origin::Item(ItemKind::Reasoning) => Class::Reasoning,
        Origin::Item(ItemKind::Call { family }) => Class::Call(family),
        Origin::Item(ItemKind::Output { family }) => Class::Output(family),
        Origin::Item(ItemKind::Reference) => Class::Reference,
        Origin::Item(ItemKind::Opaque) => Class::Opaque,
        // A group of its own, as a turn (it stands for everything before it).
        Origin::Item(ItemKind::Compaction) => Class::Turn,
        _ if msg.role == Some(Role::Assistant) => Class::Said,
        _ => Class::Turn,
    }
}

/// Repairs the items and cuts them into groups: each turn message alone, each step whole.
pub(super) fn repair<'a>(session: &mut Session<'a>) -> Repaired<'a> {
    let n = session.messages.len();
    let mut out = Repaired {
        order: Vec::with_capacity(n),
        ..Repaired::default()
    };
    let mut alive = vec![true; n];
    let mut m = 0;
    while m < n {
        let c = class(&session.messages[m]);
        if session.messages[m].origin == Origin::Item(ItemKind::Compaction) {
            // Content the provider wrote (encrypted): kept as it is, never an empty message.
            out.push_group(&[m], false);
            m += 1;
            continue;
        }
        if c == Class::Turn {
            turn(session, m, &mut alive, &mut out);
            m += 1;
            continue;
        }
        if let Class::Output(_) = c {
            // An output before any call of a step.
            let reason = match session.messages[m].tool_call_id.as_deref() {
                Some(id) => RepairReason::NoCall(id.clone()),
                None => RepairReason::NoCallId,
            };
            alive[m] = false;
            out.repairs.push(orphan_output(session, m, reason));
            m += 1;
            continue;
        }
        // A step: the model's items and the outputs of its calls.
        let start = m;
        let (mut has_reasoning, mut has_output) = (false, false);
        while m < n {
            match class(&session.messages[m]) {
                Class::Turn => break,
                Class::Output(_) => has_output = true,
                Class::Reasoning if has_output => break,
                _ if has_output && !has_reasoning => break,
                Class::Reasoning => has_reasoning = true,
                _ => {}
            }
            m += 1;
        }
        step(session, start..m, &mut alive, &mut out);
    }
    out.repairs.sort_by_key(|r| r.message);
    out
}

/// A message of its own: removed when its role is unknown or it says nothing.
fn turn<'a>(session: &Session<'a>, m: usize, alive: &mut [bool], out: &mut Repaired<'a>) {
    let msg = &session.messages[m];
    // The pinned instructions are the caller's request key, not an item: never removed.
    let removal = if msg.physical.is_none() {
        None
    } else if msg.role.is_none() {
        Some((
            RepairAction::UnknownRoleRemoved,
            RepairReason::UnknownRole(std::borrow::Cow::Borrowed(session.role_raw(m))),
        ))
    } else if !session.has_content(m) {
        Some((RepairAction::EmptyMessageRemoved, RepairReason::NoContent))
    } else {
        None
    };
    match removal {
        Some((action, reason)) => {
            alive[m] = false;
            out.note(m, action, reason);
        }
        None => out.push_group(&[m], false),
    }
}

fn orphan_output<'a>(session: &Session<'a>, m: usize, reason: RepairReason<'a>) -> Repair<'a> {
    let i = session.messages[m].physical.unwrap_or(0) as usize;
    Repair {
        message: m,
        action: RepairAction::OrphanToolRemoved,
        reason,
        path: Some(message_path(i, "").into()),
    }
}

/// Repairs one step and makes what is left of it one group.
fn step<'a>(
    session: &Session<'a>,
    range: std::ops::Range<usize>,
    alive: &mut [bool],
    out: &mut Repaired<'a>,
) {
    let mut calls = Calls::default();
    let has_reference = range
        .clone()
        .any(|m| class(&session.messages[m]) == Class::Reference);
    for m in range.clone() {
        let msg = &session.messages[m];
        let i = msg.physical.unwrap_or(0) as usize;
        match class(msg) {
            Class::Said if !session.has_content(m) => {
                alive[m] = false;
                out.note(
                    m,
                    RepairAction::EmptyMessageRemoved,
                    RepairReason::NoContent,
                );
            }
            Class::Call(family) => match &msg.tool_calls {
                ToolCalls::Valid(ids) => {
                    let id = ids[0].as_ref();
                    if !calls.insert(family, id, m) {
                        alive[m] = false;
                        out.repairs.push(Repair {
                            message: m,
                            action: RepairAction::IncompleteToolCallsRemoved,
                            reason: RepairReason::Malformed(Malformed::DuplicateId),
                            path: Some(message_path(i, "").into()),
                        });
                    }
                }
                ToolCalls::Malformed { why, path } => {
                    alive[m] = false;
                    out.repairs.push(Repair {
                        message: m,
                        action: RepairAction::IncompleteToolCallsRemoved,
                        reason: RepairReason::Malformed(*why),
                        path: Some((**path).clone()),
                    });
                }
                _ => {}
            },
            Class::Output(family) => {
                let Some(id) = msg.tool_call_id.as_deref() else {
                    alive[m] = false;
                    out.repairs
                        .push(orphan_output(session, m, RepairReason::NoCallId));
                    continue;
                };
                match calls.find(family, id.as_ref()) {
                    Some(k) if !calls.list[k].3 => calls.list[k].3 = true,
                    Some(_) => {
                        alive[m] = false;
                        let reason = RepairReason::AnsweredTwice(id.clone());
                        out.repairs.push(orphan_output(session, m, reason));
                    }
                    // Its call may be the item a reference of the step stands for.
                    None if has_reference => {}
                    None => {
                        alive[m] = false;
                        let reason = RepairReason::NoCall(id.clone());
                        out.repairs.push(orphan_output(session, m, reason));
                    }
                }
            }
            _ => {}
        }
    }
    for &(_, id, m, answered) in &calls.list {
        if !answered {
            alive[m] = false;
            let i = session.messages[m].physical.unwrap_or(0) as usize;
            out.repairs.push(Repair {
                message: m,
                action: RepairAction::IncompleteToolCallsRemoved,
                reason: RepairReason::NoReply(Cow::Owned(id.to_owned())),
                path: Some(message_path(i, "").into()),
            });
        }
    }
    // A reasoning item needs an item of the model's after it; seen from the end, a chain of
    // them goes at once.
    let mut followed = false;
    for m in range.clone().rev() {
        let c = class(&session.messages[m]);
        if !alive[m] || matches!(c, Class::Output(_)) {
            continue;
        }
        if c == Class::Reasoning && !followed {
            alive[m] = false;
            let next = (m + 1..range.end)
                .find(|&k| !matches!(class(&session.messages[k]), Class::Output(_)));
            let reason = match next {
                Some(k) if !alive[k] && class(&session.messages[k]) != Class::Reasoning => {
                    RepairReason::FollowerRemoved { message: k }
                }
                _ => RepairReason::NothingFollows,
            };
            out.note(m, RepairAction::OrphanReasoningRemoved, reason);
            continue;
        }
        followed = true;
    }
    let kept: Vec<usize> = range.filter(|&m| alive[m]).collect();
    if !kept.is_empty() {
        let exchange = kept
            .iter()
            .any(|&m| matches!(class(&session.messages[m]), Class::Call(_)));
        out.push_group(&kept, exchange);
    }
}

/// The calls of a step so far: (family, id, logical message, answered). A few are compared;
/// a hostile step of thousands is indexed.
#[derive(Default)]
struct Calls<'s> {
    list: Vec<(u8, &'s str, usize, bool)>,
    index: Option<HashMap<(u8, &'s str), usize>>,
}

impl<'s> Calls<'s> {
    fn find(&self, family: u8, id: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(&(family, id)).copied(),
            None => self.list.iter().position(|c| c.0 == family && c.1 == id),
        }
    }

    /// Adds a call; false when the step already has one of this family and id.
    fn insert(&mut self, family: u8, id: &'s str, m: usize) -> bool {
        if self.find(family, id).is_some() {
            return false;
        }
        if self.list.len() == 16 {
            let index = self.list.iter().enumerate().map(|(k, c)| ((c.0, c.1), k));
            self.index = Some(index.collect());
        }
        if let Some(index) = &mut self.index {
            index.insert((family, id), self.list.len());
        }
        self.list.push((family, id, m, false));
        true
    }
}

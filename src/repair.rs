//! Repair of restored sessions (DESIGN §5): orphan tool replies, broken or unanswered tool
//! calls, unknown roles and empty messages. The result is a list of usable messages already
//! cut into groups: an assistant message with `tool_calls` and its replies form one tool
//! exchange; every other message is a group of one.

use crate::json::compact_len_without;
use crate::message::{Change, ContentShape, MessageInfo, Role, ToolCalls, Unit, UnitKind};
use serde_json::{json, Value};
use std::collections::HashMap;

/// Appended to an assistant message whose tool calls were removed.
pub const INCOMPLETE_TOOL_CALLS_NOTE: &str =
    "[Incomplete tool calls removed from restored session.]";

/// One repair, reported with the input index it concerns.
#[derive(Debug, Clone, PartialEq)]
pub struct RepairEntry {
    pub index: usize,
    /// `orphan_tool_removed`, `incomplete_tool_calls_removed`,
    /// `incomplete_tool_reply_removed`, `empty_tool_calls_removed`, `empty_message_removed`
    /// or `unknown_role_removed`.
    pub action: &'static str,
    pub reason: String,
    /// The JSON path of the defect, when there is one value to point at.
    pub path: Option<String>,
}

impl RepairEntry {
    pub fn to_json(&self) -> Value {
        let mut v = json!({"index": self.index, "action": self.action, "reason": self.reason});
        if let Some(path) = &self.path {
            v["path"] = path.clone().into();
        }
        v
    }
}

/// A message that survived repair.
#[derive(Debug, Clone)]
pub(crate) struct Msg {
    /// Index in the input `messages`.
    pub index: usize,
    pub role: Role,
    pub info: MessageInfo,
    pub remove_tool_calls: bool,
}

/// A run of messages kept or dropped together: `msgs[start..start + len]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Group {
    pub start: usize,
    pub len: usize,
    pub exchange: bool,
}

pub(crate) struct Session {
    pub msgs: Vec<Msg>,
    pub groups: Vec<Group>,
    pub repaired: Vec<RepairEntry>,
}

pub(crate) fn repair(messages: &[Value], infos: Vec<MessageInfo>) -> Session {
    let mut infos: Vec<Option<MessageInfo>> = infos.into_iter().map(Some).collect();
    let mut session = Session {
        msgs: Vec::with_capacity(infos.len()),
        groups: Vec::new(),
        repaired: Vec::new(),
    };
    let role_of = |infos: &[Option<MessageInfo>], i: usize| infos[i].as_ref().and_then(|m| m.role);
    let mut i = 0;
    while i < infos.len() {
        let mut info = infos[i].take().expect("each message is visited once");
        let Some(role) = info.role else {
            session.repaired.push(RepairEntry {
                index: i,
                action: "unknown_role_removed",
                reason: format!(
                    "unknown role {}",
                    messages[i].get("role").unwrap_or(&Value::Null)
                ),
                path: Some(format!("messages[{i}].role")),
            });
            i += 1;
            continue;
        };
        if role == Role::Tool {
            session.repaired.push(RepairEntry {
                index: i,
                action: "orphan_tool_removed",
                reason: "tool message does not answer a tool call of the assistant message \
                         right before it"
                    .into(),
                path: None,
            });
            i += 1;
            continue;
        }
        let mut remove_tool_calls = false;
        if role == Role::Assistant && info.tool_calls != ToolCalls::None {
            // The replies are the run of tool messages right after the assistant message.
            let mut end = i + 1;
            while end < infos.len() && role_of(&infos, end) == Some(Role::Tool) {
                end += 1;
            }
            let problem = match &info.tool_calls {
                ToolCalls::Empty => {
                    session.repaired.push(RepairEntry {
                        index: i,
                        action: "empty_tool_calls_removed",
                        reason: "tool_calls is an empty array".into(),
                        path: Some(format!("messages[{i}].tool_calls")),
                    });
                    None
                }
                ToolCalls::Malformed { reason, path } => Some((reason.clone(), Some(path.clone()))),
                ToolCalls::Valid(ids) => match_replies(ids, &infos[i + 1..end])
                    .err()
                    .map(|reason| (reason, None)),
                ToolCalls::None => unreachable!("checked above"),
            };
            if let (ToolCalls::Valid(_), None) = (&info.tool_calls, &problem) {
                let start = session.msgs.len();
                session.msgs.push(Msg {
                    index: i,
                    role,
                    info,
                    remove_tool_calls: false,
                });
                for (r, slot) in infos.iter_mut().enumerate().take(end).skip(i + 1) {
                    let reply = slot.take().expect("replies are visited once");
                    session.msgs.push(Msg {
                        index: r,
                        role: Role::Tool,
                        info: reply,
                        remove_tool_calls: false,
                    });
                }
                session.groups.push(Group {
                    start,
                    len: end - i,
                    exchange: true,
                });
                i = end;
                continue;
            }
            remove_tool_calls = true;
            let obj = messages[i]
                .as_object()
                .expect("parsed messages are objects");
            info.meta_bytes = compact_len_without(obj, &["content", "tool_calls"]);
            if let Some((reason, path)) = problem {
                append_note(&mut info, &messages[i]);
                session.repaired.push(RepairEntry {
                    index: i,
                    action: "incomplete_tool_calls_removed",
                    reason,
                    path,
                });
                for (r, slot) in infos.iter_mut().enumerate().take(end).skip(i + 1) {
                    *slot = None;
                    session.repaired.push(RepairEntry {
                        index: r,
                        action: "incomplete_tool_reply_removed",
                        reason: format!("reply to the incomplete tool calls of messages[{i}]"),
                        path: None,
                    });
                }
                session.push_single(i, role, info, remove_tool_calls);
                i = end;
                continue;
            }
        }
        if !info.has_content() {
            session.repaired.push(RepairEntry {
                index: i,
                action: "empty_message_removed",
                reason: "message has no content".into(),
                path: Some(format!("messages[{i}].content")),
            });
            i += 1;
            continue;
        }
        session.push_single(i, role, info, remove_tool_calls);
        i += 1;
    }
    session
}

impl Session {
    fn push_single(
        &mut self,
        index: usize,
        role: Role,
        info: MessageInfo,
        remove_tool_calls: bool,
    ) {
        self.groups.push(Group {
            start: self.msgs.len(),
            len: 1,
            exchange: false,
        });
        self.msgs.push(Msg {
            index,
            role,
            info,
            remove_tool_calls,
        });
    }
}

/// Checks that the replies answer the calls one-to-one, in any order.
fn match_replies(ids: &[String], replies: &[Option<MessageInfo>]) -> Result<(), String> {
    let mut answered: HashMap<&str, bool> = ids.iter().map(|id| (id.as_str(), false)).collect();
    for reply in replies.iter().flatten() {
        let Some(id) = reply.tool_call_id.as_deref() else {
            return Err("a tool reply has no tool_call_id".into());
        };
        match answered.get_mut(id) {
            None => return Err(format!("a tool reply answers unknown tool call {id:?}")),
            Some(true) => return Err(format!("tool call {id:?} is answered twice")),
            Some(done) => *done = true,
        }
    }
    match ids.iter().find(|id| !answered[id.as_str()]) {
        Some(id) => Err(format!("tool call {id:?} has no reply")),
        None => Ok(()),
    }
}

/// Appends the repair note to the message's text (the note alone when it had no text).
fn append_note(info: &mut MessageInfo, message: &Value) {
    let note = INCOMPLETE_TOOL_CALLS_NOTE;
    match info.shape {
        ContentShape::Text => {
            let text = message["content"].as_str().unwrap_or("");
            let new = if text.is_empty() {
                note.to_owned()
            } else {
                format!("{text}\n{note}")
            };
            info.units[0].bytes = new.len() as u64;
            info.units[0].change = Change::Text(new);
        }
        ContentShape::Absent | ContentShape::Null => info.units.push(Unit {
            part: None,
            kind: UnitKind::Text,
            bytes: note.len() as u64,
            change: Change::Text(note.to_owned()),
        }),
        ContentShape::Parts => info.units.push(Unit {
            part: None,
            kind: UnitKind::Text,
            bytes: note.len() as u64,
            change: Change::Added(note.to_owned()),
        }),
    }
}

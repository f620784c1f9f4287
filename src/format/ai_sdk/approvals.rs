//! Tool approvals of the AI SDK format: a call gated by a `tool-approval-request` is complete
//! when its result or its approval's response is there.

use super::part_type;
use crate::model::{Role, Session, ToolCalls};
use crate::raw::{self, get, Doc};
use std::collections::HashSet;

/// Before the generic repair: a call gated by an approval request is complete when its result
/// or its approval's response is there (the SDK runs an approved call on its next step; a
/// result may come without the response). The one that has not come is no longer waited for.
pub(super) fn settle_approvals(session: &mut Session<'_>) {
    let n = session.messages.len();
    let mut m = 0;
    while m < n {
        let msg = &session.messages[m];
        let ToolCalls::Valid(ids) = &msg.tool_calls else {
            m += 1;
            continue;
        };
        let mut end = m + 1;
        while end < n && session.messages[end].role == Some(Role::Tool) {
            end += 1;
        }
        let answered: HashSet<&str> = (m + 1..end)
            .filter(|&r| session.has_content(r))
            .filter_map(|r| session.messages[r].tool_call_id.as_deref().map(|id| &**id))
            .collect();
        if ids.iter().all(|id| answered.contains(id.as_ref())) {
            m = end;
            continue;
        }
        let Some(p) = msg.physical else {
            m = end;
            continue;
        };
        // (approvalId, toolCallId) of each approval request, read again (only here).
        let text = session.inputs[p as usize];
        let doc = Doc::from_validated(text, Vec::new());
        let fields = doc.fields(text).unwrap_or_default();
        let parts = get(&fields, "content")
            .and_then(|c| doc.items(c))
            .unwrap_or_default();
        let mut waived: Vec<String> = Vec::new();
        for part in parts {
            let Some(f) = doc.fields(part) else { continue };
            if part_type(&f).as_deref() != Some("tool-approval-request") {
                continue;
            }
            let (Some(approval), Some(call)) = (
                get(&f, "approvalId").and_then(raw::string),
                get(&f, "toolCallId").and_then(raw::string),
            ) else {
                continue;
            };
            match (
                answered.contains(approval.as_ref()),
                answered.contains(call.as_ref()),
            ) {
                (true, false) => waived.push(call.into_owned()),
                (false, true) => waived.push(approval.into_owned()),
                _ => {}
            }
        }
        if !waived.is_empty() {
            if let ToolCalls::Valid(ids) = &mut session.messages[m].tool_calls {
                let mut kept = std::mem::take(&mut **ids).into_vec();
                kept.retain(|id| !waived.iter().any(|w| w == id));
                **ids = kept.into_boxed_slice();
            }
        }
        m = end;
    }
}

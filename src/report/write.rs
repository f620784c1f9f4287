//! The report written as JSON (DESIGN §8): one writer for a string, the answer's own buffer
//! or a counter of its length.

use super::*;

impl Report<'_> {
    /// The repairs (after `key`), and the merges where the format merges turns.
    fn write_repaired<W: Sink>(&self, out: &mut W, key: &str, merges: bool) {
        let words = self.format.adapter().words();
        let content_key = self.format.adapter().content_key();
        out.push_str(key);
        write_list(out, &self.repaired, |out, r| {
            write_repair(out, r, words, content_key)
        });
        if merges {
            out.push_str(",\"merged\":");
            write_list(out, &self.merged, |out, m| {
                let _ = write!(out, "{{\"index\":{},\"into\":{}}}", m.index, m.into);
            });
        }
    }

    /// Writes the report in `style`: its costs, what happened to the messages and to their
    /// media, what limited the trim, the warnings and repairs, then what only some trims have.
    pub fn write<W: Sink>(&self, out: &mut W, style: Style) {
        let merges = self.format.merges_turns();
        out.push('{');
        if style == Style::Repairs {
            if merges {
                let _ = write!(out, "\"format\":\"{}\",", self.format.name());
            }
            self.write_repaired(out, "\"repaired\":", merges);
            out.push('}');
            return;
        }
        self.write_costs(out);
        self.write_messages(out, style);
        self.write_media(out);
        self.write_limits(out);
        self.write_warnings(out);
        self.write_repaired(out, ",\"repaired\":", merges);
        self.write_stages(out, merges);
        out.push('}');
    }

    /// The unit of costs' keys (`from_tokens`, `to_bytes`).
    fn unit(&self) -> &'static str {
        if self.measure.in_tokens() {
            "tokens"
        } else {
            "bytes"
        }
    }

    /// The format, unit and tokenizer, the budget and the cost.
    fn write_costs<W: Sink>(&self, out: &mut W) {
        let opt = |v: Option<u64>| v.map_or("null".to_owned(), |v| v.to_string());
        let in_tokens = self.measure.in_tokens();
        let _ = write!(
            out,
            "\"format\":\"{}\",\"unit\":\"{}\",\"tokenizer\":\"{}\",\"exact\":{},",
            self.format.name(),
            if in_tokens { "tokens" } else { "bytes" },
            self.measure.tokenizer.name(),
            in_tokens && !self.measure.estimate,
        );
        if in_tokens {
            out.push_str("\"token_factor\":");
            let factor = self.measure.factor;
            out.push_str(&self.factor_origin.report_json(factor, self.cost_bytes));
            out.push(',');
            // Costs are tokens: the byte fields do not apply.
            let _ = write!(
                out,
                "\"budget_bytes\":null,\"budget_tokens\":{},\"cost_bytes\":null,\
                 \"cost_tokens\":{},",
                opt(self.budget_bytes),
                self.cost_bytes,
            );
        } else {
            let tokens = |bytes: u64| bytes.div_ceil(self.bytes_per_token.max(1));
            let _ = write!(
                out,
                "\"budget_bytes\":{},\"budget_tokens\":{},\"cost_bytes\":{},\
                 \"cost_tokens\":{},",
                opt(self.budget_bytes),
                opt(self.budget_bytes.map(tokens)),
                self.cost_bytes,
                tokens(self.cost_bytes),
            );
        }
    }

    /// The messages counted, dropped (or their ranges, for a plan) and shrunk.
    fn write_messages<W: Sink>(&self, out: &mut W, style: Style) {
        let unit = self.unit();
        let _ = write!(
            out,
            "\"input_messages\":{},\"output_messages\":{},",
            self.input_messages, self.output_messages,
        );
        if style == Style::Plan {
            out.push_str("\"dropped_ranges\":");
            write_list(
                out,
                &ranges(&self.dropped_messages),
                |out, &(start, end)| {
                    out.push('[');
                    write_index(out, start);
                    out.push(',');
                    write_index(out, end);
                    out.push(']');
                },
            );
        } else {
            out.push_str("\"dropped_messages\":");
            write_list(out, &self.dropped_messages, |out, &i| write_index(out, i));
        }
        out.push_str(",\"truncated\":");
        write_list(out, &self.truncated, |out, t| {
            let part = t.part.map_or("null".to_owned(), |p| p.to_string());
            let _ = write!(
                out,
                "{{\"index\":{},\"part\":{part},\"from_{unit}\":{},\"to_{unit}\":{}}}",
                t.index, t.from_bytes, t.to_bytes
            );
        });
    }

    /// The images, documents, audio and attachments dropped.
    fn write_media<W: Sink>(&self, out: &mut W) {
        let opt = |v: Option<u64>| v.map_or("null".to_owned(), |v| v.to_string());
        let in_tokens = self.measure.in_tokens();
        let unit = self.unit();
        out.push_str(",\"dropped_images\":");
        write_list(out, &self.dropped_images, |out, d| {
            let format = d
                .format
                .map_or("null".to_owned(), |f| format!("\"{}\"", f.as_str()));
            let num = |v: Option<u32>| v.map_or("null".to_owned(), |v| v.to_string());
            let budget = if in_tokens {
                "null".to_owned()
            } else {
                d.budget_bytes.to_string()
            };
            let _ = write!(
                out,
                "{{\"index\":{},\"part\":{},\"format\":{format},\"width\":{},\"height\":{},\
                 \"tokens\":{},\"budget_bytes\":{budget}}}",
                d.index,
                d.part,
                num(d.width),
                num(d.height),
                opt(d.tokens),
            );
        });
        out.push_str(",\"dropped_files\":");
        write_list(out, &self.dropped_files, |out, d| {
            let format = d.format.map_or("null".to_owned(), |f| format!("\"{f}\""));
            let budget = if in_tokens {
                "null".to_owned()
            } else {
                d.budget_bytes.to_string()
            };
            let count_key = match d.kind {
                FileKind::Document => "pages",
                FileKind::Audio => "seconds",
            };
            let name = match &d.name {
                Some(name) => {
                    let mut buf = Vec::with_capacity(name.len() + 2);
                    write_str(name, &mut buf);
                    String::from_utf8(buf).expect("JSON text of a str is UTF-8")
                }
                None => "null".to_owned(),
            };
            let _ = write!(
                out,
                "{{\"index\":{},\"part\":{},\"kind\":\"{}\",\"name\":{name},\
                 \"format\":{format},\"{count_key}\":{},\"tokens\":{},\"budget_bytes\":{budget}}}",
                d.index,
                d.part,
                d.kind.as_str(),
                d.count,
                opt(d.tokens),
            );
        });
        out.push_str(",\"dropped_attachments\":");
        write_list(out, &self.dropped_attachments, |out, d| {
            let _ = write!(
                out,
                "{{\"index\":{},\"part\":{},\"{unit}\":{}}}",
                d.index, d.part, d.bytes
            );
        });
    }

    /// What limited the trim, the messages refilled, the tool results cleared.
    fn write_limits<W: Sink>(&self, out: &mut W) {
        let unit = self.unit();
        out.push_str(",\"limited_by\":");
        match self.limited_by {
            Some(limit) => {
                let _ = write!(out, "\"{}\"", limit.as_str());
            }
            None => out.push_str("null"),
        }
        out.push_str(",\"refilled\":");
        write_list(out, &self.refilled, |out, &i| write_index(out, i));
        out.push_str(",\"cleared_tool_results\":");
        write_list(out, &self.cleared_tool_results, |out, c| {
            let _ = write!(out, "{{\"index\":{},\"{unit}\":{}}}", c.index, c.cost);
        });
    }

    /// The request's warnings, then the messages'.
    fn write_warnings<W: Sink>(&self, out: &mut W) {
        out.push_str(",\"warnings\":");
        out.push('[');
        for (k, w) in self.request_warnings.iter().enumerate() {
            let mut buf = Vec::new();
            if k > 0 {
                buf.push(b',');
            }
            buf.extend_from_slice(b"{\"code\":");
            write_str(w.code, &mut buf);
            buf.extend_from_slice(b",\"index\":null,\"part\":null,\"path\":");
            write_str(w.path, &mut buf);
            buf.extend_from_slice(b",\"message\":");
            write_str(&w.message, &mut buf);
            buf.push(b'}');
            out.push_str(std::str::from_utf8(&buf).expect("JSON text of a str is UTF-8"));
        }
        for (k, w) in self.warnings.iter().enumerate() {
            if k > 0 || !self.request_warnings.is_empty() {
                out.push(',');
            }
            let part = w.part.map_or("null".to_owned(), |p| p.to_string());
            let mut buf = Vec::new();
            buf.extend_from_slice(b",\"path\":");
            write_str(&w.path, &mut buf);
            buf.extend_from_slice(b",\"message\":");
            write_str(&w.message, &mut buf);
            let _ = write!(
                out,
                "{{\"code\":\"{}\",\"index\":{},\"part\":{part}",
                w.code, w.index
            );
            out.push_str(std::str::from_utf8(&buf).expect("JSON text of a str is UTF-8"));
            out.push('}');
        }
        out.push(']');
    }

    /// What only some formats and trims have: blocks dropped in merged turns, how the answer
    /// starts on the user's turn, the cut, the summary and the compaction, the cache
    /// breakpoint.
    fn write_stages<W: Sink>(&self, out: &mut W, merges: bool) {
        let unit = self.unit();
        if merges {
            out.push_str(",\"dropped_blocks\":");
            write_list(out, &self.dropped_blocks, |out, d| {
                let _ = write!(out, "{{\"index\":{},\"part\":{}}}", d.index, d.part);
            });
        }
        // Always there in the formats that merge turns; in the others when a model's chat
        // template made the answer start on the user's turn and the rule brought a message back.
        if merges || self.turn_start.is_some() {
            out.push_str(",\"turn_start\":");
            match &self.turn_start {
                Some(t) => {
                    let _ = write!(
                        out,
                        "{{\"index\":{},\"kept\":\"{}\",\"from_{unit}\":{},\"to_{unit}\":{}}}",
                        t.index,
                        t.kept.as_str(),
                        t.from_bytes,
                        t.to_bytes
                    );
                }
                None => out.push_str("null"),
            }
        }
        if let Some(cut) = self.cut {
            out.push_str(",\"cut\":");
            match cut {
                Some(i) => write_index(out, i),
                None => out.push_str("null"),
            }
        }
        if let Some(at) = self.summary {
            out.push_str(",\"summary\":{\"output_index\":");
            write_index(out, at);
            out.push('}');
        }
        if let Some(c) = &self.compaction {
            out.push_str(",\"compaction\":{\"from\":");
            write_index(out, c.from);
            out.push_str(",\"through\":");
            write_index(out, c.through);
            out.push_str(",\"messages\":");
            write_list(out, &c.messages, |out, &i| write_index(out, i));
            let unit = if self.measure.in_tokens() {
                "tokens"
            } else {
                "bytes"
            };
            let _ = match c.budget {
                Some(b) => write!(out, ",\"budget_{unit}\":{b}}}"),
                None => write!(out, ",\"budget_{unit}\":null}}"),
            };
        }
        if let Some(breakpoint) = self.cache_breakpoint {
            out.push_str(",\"cache_breakpoint\":");
            match breakpoint {
                Some(b) => {
                    let _ = write!(
                        out,
                        "{{\"output_index\":{},\"part\":{},\"given\":{}}}",
                        b.output_index, b.part, b.given
                    );
                }
                None => out.push_str("null"),
            }
        }
    }
}

/// How a report is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// The report of a trim (DESIGN §8).
    Trim,
    /// The report of a plan answer: a trim's, with `dropped_messages` given as
    /// `dropped_ranges`, `[start, end)` pairs (a long session drops thousands of messages in a
    /// few runs).
    Plan,
    /// The report of `sanitize`: the repairs only.
    Repairs,
}

/// The runs of consecutive numbers of `sorted`, as `[start, end)` pairs.
pub fn ranges(sorted: &[usize]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &i in sorted {
        match out.last_mut() {
            Some((_, end)) if *end == i => *end += 1,
            _ => out.push((i, i + 1)),
        }
    }
    out
}

/// Writes a message index in decimal (a list of thousands of dropped indices is common; the
/// formatting machinery costs several times the digits).
fn write_index<W: Sink>(out: &mut W, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
}

fn write_list<W: Sink, T>(out: &mut W, items: &[T], mut each: impl FnMut(&mut W, &T)) {
    out.push('[');
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        each(out, item);
    }
    out.push(']');
}

/// Where a repair points when the step itself did not say.
pub(super) fn default_path(
    action: RepairAction,
    origin: Origin,
    index: usize,
    content_key: &str,
) -> Option<String> {
    if let Origin::Reply { part: block } = origin {
        return Some(format!("messages[{index}].{content_key}[{block}]"));
    }
    if origin != Origin::Whole {
        return None;
    }
    let field = match action {
        RepairAction::UnknownRoleRemoved => "role",
        RepairAction::EmptyToolCallsRemoved => "tool_calls",
        RepairAction::EmptyMessageRemoved => "content",
        _ => return None,
    };
    Some(format!("messages[{index}].{field}"))
}

/// The action's name in the format's words.
pub fn action_name(action: RepairAction, words: &Words) -> &'static str {
    match action {
        RepairAction::OrphanToolRemoved => words.orphan_removed,
        RepairAction::IncompleteToolCallsRemoved => words.incomplete_calls_removed,
        RepairAction::IncompleteToolReplyRemoved => words.incomplete_reply_removed,
        RepairAction::EmptyToolCallsRemoved => "empty_tool_calls_removed",
        RepairAction::EmptyMessageRemoved => "empty_message_removed",
        RepairAction::UnknownRoleRemoved => "unknown_role_removed",
        RepairAction::OrphanReasoningRemoved => "orphan_reasoning_removed",
    }
}

/// The reason for people, in the format's words.
pub fn reason_text(entry: &RepairEntry<'_>, words: &Words) -> String {
    let call = words.call;
    match &entry.reason {
        RepairReason::UnknownRole(raw) => format!("unknown role {raw}"),
        RepairReason::Orphan => format!(
            "{} does not answer a {call} of the assistant message right before it",
            words.reply
        ),
        RepairReason::Malformed(why) => match why {
            Malformed::NotObject => format!("{call} is not an object"),
            Malformed::IdMissing => format!("{call} id is missing or not a string"),
            Malformed::DuplicateId => format!("duplicate {call} id"),
            Malformed::TypeNotFunction => format!("{call} type is not \"function\""),
            Malformed::FunctionMissing => format!("{call} function is missing"),
            Malformed::NameNotString => "function.name is not a string".into(),
            Malformed::ArgumentsNotString => "function.arguments is not a string".into(),
            Malformed::ArgumentsNotObject => format!("{call} args is not an object"),
        },
        RepairReason::ReplyWithoutId => "a tool reply has no tool_call_id".into(),
        RepairReason::UnknownCall(id) => format!("a tool reply answers unknown {call} {id:?}"),
        RepairReason::AnsweredTwice(id) => format!("{call} {id:?} is answered twice"),
        RepairReason::NoReply(id) => format!("{call} {id:?} has no reply"),
        RepairReason::ReplyOfIncomplete { .. } => format!(
            "{} messages[{}]",
            words.reply_of_incomplete,
            entry.assistant().unwrap_or(0)
        ),
        RepairReason::EmptyToolCalls => "tool_calls is an empty array".into(),
        RepairReason::NoContent => "message has no content".into(),
        RepairReason::NoCall(id) => format!("no {call} of its step has id {id:?}"),
        RepairReason::NoCallId => format!("{} has no call id", words.reply),
        RepairReason::NothingFollows => {
            "a reasoning item must be followed by an item of its step".into()
        }
        RepairReason::FollowerRemoved { .. } => format!(
            "the item it must be followed by, messages[{}], was removed",
            entry.assistant().unwrap_or(0)
        ),
    }
}

fn write_repair<W: Sink>(out: &mut W, r: &RepairEntry<'_>, words: &Words, content_key: &str) {
    let _ = write!(
        out,
        "{{\"index\":{},\"action\":\"{}\",\"reason\":",
        r.index,
        action_name(r.action, words)
    );
    let mut buf = Vec::new();
    write_str(&reason_text(r, words), &mut buf);
    if let Some(path) = r.path(content_key) {
        buf.extend_from_slice(b",\"path\":");
        write_str(&path, &mut buf);
    }
    out.push_str(std::str::from_utf8(&buf).expect("JSON text of a str is UTF-8"));
    out.push('}');
}

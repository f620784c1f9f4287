//! The trimming pipeline (DESIGN §6), in the order the data flows:
//!
//! 1. **parse** each message into priced units ([`crate::message`]);
//! 2. **repair** the session and cut it into groups ([`crate::repair`]);
//! 3. **tag** the groups: the pinned system message, the current request (newest user message),
//!    up to two earlier user messages within 4,096 bytes (anchors), the tool exchange in
//!    progress after the request;
//! 4. **select** the other groups newest first while they fit `max_messages` and the budget;
//! 5. **shed** inside the kept messages when they still do not fit: shrink the biggest texts,
//!    then drop images, then attachment bodies, then the anchors and the exchange in
//!    progress ([`crate::shed`]);
//! 6. **fail** with `context_budget_exceeded` when the system message and the request alone
//!    are over budget; otherwise return a [`Plan`] and its [`Report`].
//!
//! Every unit is priced once; the steps keep running totals.

use crate::error::{Error, ErrorCode};
use crate::message::{parse_message, Change, ContentShape, Pricing, Role, UnitKind};
use crate::repair::{self, Msg, Session};
use crate::report::{DroppedAttachment, DroppedImage, Report, Truncation};
use crate::request::{OnImageOverflow, TrimOptions};
use crate::shed::{
    attachment_stub, describe_image, image_placeholder, shrink_text, water_level, MIN_TEXT_BYTES,
};
use serde_json::{Map, Value};

/// Earlier user messages anchored besides the newest one.
pub const EARLIER_ANCHORS: usize = 2;
/// The combined size limit of the earlier anchors.
pub const ANCHOR_BYTES: u64 = 4096;

/// The exact message of `context_budget_exceeded`.
pub const BUDGET_EXCEEDED_MESSAGE: &str =
    "The current request/tool schema exceeds the model context budget.";

/// Which input messages to return, in order, and what changed in each.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub messages: Vec<PlannedMessage>,
    pub report: Report,
}

/// One returned message: input message `index`, unchanged unless a field says otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedMessage {
    pub index: usize,
    /// Repair removed the message's `tool_calls`.
    pub remove_tool_calls: bool,
    /// The new `content`, when it changed.
    pub content: Option<NewContent>,
}

impl PlannedMessage {
    pub fn is_unchanged(&self) -> bool {
        !self.remove_tool_calls && self.content.is_none()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum NewContent {
    /// String content.
    Text(String),
    /// Array content, built from the input parts.
    Parts(Vec<NewPart>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum NewPart {
    /// Input part `p`, unchanged.
    Keep(usize),
    /// Input part `from` with its `text` replaced; or, when `from` is `None`, a new
    /// `{"type": "text", "text": ...}` part (an image placeholder or a repair note).
    Text { from: Option<usize>, text: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Optional,
    Pinned,
    Request,
    Anchor,
    InProgress,
}

/// Trims `messages` to the budget of `options`.
pub fn plan_trim(messages: &[Value], options: &TrimOptions) -> Result<Plan, Error> {
    let budget = options.history_budget()?;
    let session = parse_and_repair(messages, options)?;
    let mut trimmer = Trimmer::new(messages, session, options, budget);
    trimmer.select();
    if let Some(budget) = budget {
        trimmer.shed(budget)?;
    }
    Ok(trimmer.finish())
}

/// Repairs `messages` (DESIGN §5) without trimming.
pub fn plan_sanitize(messages: &[Value]) -> Result<Plan, Error> {
    let options = TrimOptions {
        max_messages: usize::MAX,
        ..TrimOptions::default()
    };
    let session = parse_and_repair(messages, &options)?;
    let mut trimmer = Trimmer::new(messages, session, &options, None);
    trimmer.kept.iter_mut().for_each(|k| *k = true);
    Ok(trimmer.finish())
}

fn parse_and_repair(messages: &[Value], options: &TrimOptions) -> Result<Session, Error> {
    let pricing = Pricing {
        profile: options.image_profile,
        bytes_per_token: options.bytes_per_token,
        image_sizes: &options.image_sizes,
    };
    let infos = messages
        .iter()
        .enumerate()
        .map(|(i, m)| parse_message(i, m, pricing))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(repair::repair(messages, infos))
}

struct Trimmer<'a> {
    messages: &'a [Value],
    session: Session,
    options: &'a TrimOptions,
    budget: Option<u64>,
    tags: Vec<Tag>,
    kept: Vec<bool>,
    /// Cost of the kept groups. Wider than a unit's cost: an image may cost up to u64::MAX
    /// budget bytes (tokens × bytes_per_token, saturated), and sums of such must not wrap.
    total: u128,
    report: Report,
}

impl<'a> Trimmer<'a> {
    fn new(
        messages: &'a [Value],
        session: Session,
        options: &'a TrimOptions,
        budget: Option<u64>,
    ) -> Self {
        let groups = session.groups.len();
        let report = Report {
            format: options.format,
            budget_bytes: budget,
            bytes_per_token: options.bytes_per_token,
            input_messages: messages.len(),
            repaired: session.repaired.clone(),
            ..Report::default()
        };
        Trimmer {
            messages,
            session,
            options,
            budget,
            tags: vec![Tag::Optional; groups],
            kept: vec![false; groups],
            total: 0,
            report,
        }
    }

    fn group_msgs(&self, g: usize) -> &[Msg] {
        let group = self.session.groups[g];
        &self.session.msgs[group.start..group.start + group.len]
    }

    fn group_cost(&self, g: usize) -> u128 {
        self.group_msgs(g).iter().map(wide_cost).sum()
    }

    fn first_role(&self, g: usize) -> Role {
        self.group_msgs(g)[0].role
    }

    /// Steps 3–4: tag the groups that must stay, then add the others newest first.
    fn select(&mut self) {
        let n = self.session.groups.len();
        if n > 0 && matches!(self.first_role(0), Role::System | Role::Developer) {
            self.tags[0] = Tag::Pinned;
        }
        let request = (0..n).rev().find(|&g| self.first_role(g) == Role::User);
        if let Some(r) = request {
            self.tags[r] = Tag::Request;
            let mut anchored = 0;
            let mut used = 0u128;
            for g in (0..r).rev() {
                if anchored == EARLIER_ANCHORS {
                    break;
                }
                let cost = self.group_cost(g);
                if self.first_role(g) == Role::User && used + cost <= u128::from(ANCHOR_BYTES) {
                    self.tags[g] = Tag::Anchor;
                    used += cost;
                    anchored += 1;
                }
            }
        }
        // An agent in the middle of a tool loop must see the result it just asked for.
        if let Some(last) = n.checked_sub(1) {
            if self.session.groups[last].exchange && request.is_none_or(|r| last > r) {
                self.tags[last] = Tag::InProgress;
            }
        }

        let mut count = 0usize;
        for g in 0..n {
            if self.tags[g] != Tag::Optional {
                self.kept[g] = true;
                self.total += self.group_cost(g);
                count += self.session.groups[g].len;
            }
        }
        for g in (0..n).rev() {
            if self.tags[g] != Tag::Optional {
                continue;
            }
            let cost = self.group_cost(g);
            let len = self.session.groups[g].len;
            let over_budget = self
                .budget
                .is_some_and(|b| self.total + cost > u128::from(b));
            if count + len > self.options.max_messages || over_budget {
                break;
            }
            self.kept[g] = true;
            self.total += cost;
            count += len;
        }
    }

    /// (message position, unit position) of every unit in kept, sheddable messages, the
    /// current request's last, each side oldest first.
    fn sheddable_units(&self, accept: impl Fn(&UnitKind, Tag) -> bool) -> Vec<(usize, usize)> {
        let mut units = Vec::new();
        let mut request_units = Vec::new();
        for (g, group) in self.session.groups.iter().enumerate() {
            let tag = self.tags[g];
            if !self.kept[g] || tag == Tag::Pinned {
                continue;
            }
            for mi in group.start..group.start + group.len {
                for (ui, unit) in self.session.msgs[mi].info.units.iter().enumerate() {
                    if unit.change == Change::Keep && accept(&unit.kind, tag) {
                        if tag == Tag::Request {
                            request_units.push((mi, ui));
                        } else {
                            units.push((mi, ui));
                        }
                    }
                }
            }
        }
        units.extend(request_units);
        units
    }

    /// The current text of a text unit.
    fn unit_text(&self, mi: usize, ui: usize) -> &str {
        let msg = &self.session.msgs[mi];
        let unit = &msg.info.units[ui];
        if let Change::Text(s) | Change::Added(s) = &unit.change {
            return s;
        }
        let content = &self.messages[msg.index]["content"];
        let value = match unit.part {
            None => content,
            Some(p) => &content[p]["text"],
        };
        value.as_str().unwrap_or("")
    }

    fn set_unit(&mut self, mi: usize, ui: usize, bytes: u64, change: Change) {
        let unit = &mut self.session.msgs[mi].info.units[ui];
        self.total = self.total - u128::from(unit.bytes) + u128::from(bytes);
        unit.bytes = bytes;
        unit.change = change;
    }

    /// Steps 5–6 (DESIGN §6.7–8).
    fn shed(&mut self, budget: u64) -> Result<(), Error> {
        if self.total <= u128::from(budget) {
            return Ok(());
        }
        self.shrink_texts(budget);
        self.drop_images(budget)?;
        self.drop_attachments(budget);
        self.drop_soft_groups(budget);
        if self.total > u128::from(budget) {
            return Err(self.budget_exceeded(budget));
        }
        Ok(())
    }

    /// Shrinks the biggest texts of the anchors and the exchange in progress, never below
    /// [`MIN_TEXT_BYTES`]; the pinned system message and the request's own text stay whole.
    fn shrink_texts(&mut self, budget: u64) {
        let candidates = self.sheddable_units(|kind, tag| {
            *kind == UnitKind::Text && matches!(tag, Tag::Anchor | Tag::InProgress | Tag::Optional)
        });
        let sizes: Vec<u64> = candidates
            .iter()
            .map(|&(mi, ui)| self.session.msgs[mi].info.units[ui].bytes)
            .collect();
        let need = saturate(self.total - u128::from(budget));
        let level = water_level(&sizes, need, MIN_TEXT_BYTES).unwrap_or(MIN_TEXT_BYTES);
        for (&(mi, ui), &size) in candidates.iter().zip(&sizes) {
            if size <= level {
                continue;
            }
            let shrunk = shrink_text(self.unit_text(mi, ui), level as usize);
            let to = shrunk.len() as u64;
            let unit = &self.session.msgs[mi].info.units[ui];
            let change = match unit.part {
                None if matches!(self.session.msgs[mi].info.shape, ContentShape::Parts) => {
                    Change::Added(shrunk)
                }
                _ => Change::Text(shrunk),
            };
            self.report.truncated.push(Truncation {
                index: self.session.msgs[mi].index,
                part: unit.part,
                from_bytes: size,
                to_bytes: to,
            });
            self.set_unit(mi, ui, to, change);
        }
    }

    /// Drops images whose tokens do not fit, oldest first, the request's last.
    fn drop_images(&mut self, budget: u64) -> Result<(), Error> {
        let mode = self.options.on_image_overflow;
        for (mi, ui) in self.sheddable_units(|kind, _| matches!(kind, UnitKind::Image(_))) {
            if self.total <= u128::from(budget) {
                break;
            }
            let msg = &self.session.msgs[mi];
            let unit = &msg.info.units[ui];
            let UnitKind::Image(price) = unit.kind else {
                unreachable!("only images are selected")
            };
            let part = unit.part.expect("images are parts");
            let placeholder = image_placeholder(&price);
            // A message must keep saying something: its last part becomes the placeholder.
            // Searched from the end: the parts after this one are not removed yet, so the
            // search stops at once and dropping n images from one message stays linear.
            let others_left = msg
                .info
                .units
                .iter()
                .enumerate()
                .rev()
                .any(|(i, u)| i != ui && u.change != Change::Removed);
            let (bytes, change) = if mode == OnImageOverflow::Drop && others_left {
                (0, Change::Removed)
            } else {
                (placeholder.len() as u64, Change::Placeholder(placeholder))
            };
            if bytes >= unit.bytes {
                continue;
            }
            let index = msg.index;
            if mode == OnImageOverflow::Error {
                return Err(Error::new(
                    ErrorCode::ImageOverflow,
                    format!(
                        "Image messages[{index}].content[{part}] ({}) does not fit the context \
                         budget and on_image_overflow is \"error\".",
                        describe_image(&price)
                    ),
                )
                .at(format!("messages[{index}].content[{part}]")));
            }
            let info = price.probe.ok();
            self.report.dropped_images.push(DroppedImage {
                index,
                part,
                format: info.map(|i| i.format),
                width: info.map(|i| i.width),
                height: info.map(|i| i.height),
                tokens: price.tokens,
                budget_bytes: price.budget_bytes,
            });
            self.set_unit(mi, ui, bytes, change);
        }
        Ok(())
    }

    /// Last resort: attachment bodies go, their first line stays.
    fn drop_attachments(&mut self, budget: u64) {
        for (mi, ui) in self.sheddable_units(|kind, _| *kind == UnitKind::Attachment) {
            if self.total <= u128::from(budget) {
                break;
            }
            let stub = attachment_stub(self.unit_text(mi, ui));
            let unit = &self.session.msgs[mi].info.units[ui];
            if stub.len() as u64 >= unit.bytes {
                continue;
            }
            self.report.dropped_attachments.push(DroppedAttachment {
                index: self.session.msgs[mi].index,
                part: unit.part.expect("attachments are parts"),
                bytes: unit.bytes,
            });
            self.set_unit(mi, ui, stub.len() as u64, Change::Text(stub));
        }
    }

    /// Before failing, the earlier anchors (oldest first) and the exchange in progress yield.
    fn drop_soft_groups(&mut self, budget: u64) {
        let soft = (0..self.tags.len())
            .filter(|&g| self.tags[g] == Tag::Anchor)
            .chain((0..self.tags.len()).filter(|&g| self.tags[g] == Tag::InProgress))
            .collect::<Vec<_>>();
        for g in soft {
            if self.total <= u128::from(budget) {
                break;
            }
            self.kept[g] = false;
            self.total -= self.group_cost(g);
            let indices: Vec<usize> = self.group_msgs(g).iter().map(|m| m.index).collect();
            self.report.forget_messages(&indices);
        }
    }

    fn budget_exceeded(&self, budget: u64) -> Error {
        let cost_of = |tag: Tag| -> u64 {
            saturate(
                (0..self.tags.len())
                    .filter(|&g| self.tags[g] == tag && self.kept[g])
                    .map(|g| self.group_cost(g))
                    .sum(),
            )
        };
        let mut breakdown = match self.options.breakdown(i128::from(budget)) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        breakdown.insert("system_bytes".into(), cost_of(Tag::Pinned).into());
        breakdown.insert("request_bytes".into(), cost_of(Tag::Request).into());
        breakdown.insert("required_bytes".into(), saturate(self.total).into());
        let mut details = Map::new();
        details.insert("breakdown".into(), Value::Object(breakdown));
        Error::new(ErrorCode::ContextBudgetExceeded, BUDGET_EXCEEDED_MESSAGE).with_details(details)
    }

    fn finish(mut self) -> Plan {
        let mut planned = Vec::new();
        let mut cost = 0u128;
        for (g, group) in self.session.groups.iter().enumerate() {
            let msgs = &self.session.msgs[group.start..group.start + group.len];
            if !self.kept[g] {
                self.report
                    .dropped_messages
                    .extend(msgs.iter().map(|m| m.index));
                continue;
            }
            for msg in msgs {
                cost += wide_cost(msg);
                planned.push(PlannedMessage {
                    index: msg.index,
                    remove_tool_calls: msg.remove_tool_calls,
                    content: new_content(msg),
                });
            }
        }
        self.report.cost_bytes = saturate(cost);
        self.report.dropped_messages.sort_unstable();
        self.report.output_messages = planned.len();
        Plan {
            messages: planned,
            report: self.report,
        }
    }
}

/// A message's cost without overflow (DESIGN §2): its other fields plus its units.
fn wide_cost(msg: &Msg) -> u128 {
    let units: u128 = msg.info.units.iter().map(|u| u128::from(u.bytes)).sum();
    u128::from(msg.info.meta_bytes) + units
}

/// A cost for the report: costs past u64::MAX (over any budget) read as u64::MAX.
fn saturate(bytes: u128) -> u64 {
    u64::try_from(bytes).unwrap_or(u64::MAX)
}

fn new_content(msg: &Msg) -> Option<NewContent> {
    let units = &msg.info.units;
    if units.iter().all(|u| u.change == Change::Keep) {
        return None;
    }
    if msg.info.shape != ContentShape::Parts {
        return match &units.first()?.change {
            Change::Text(s) => Some(NewContent::Text(s.clone())),
            _ => None,
        };
    }
    let parts = units
        .iter()
        .filter_map(|u| match (&u.change, u.part) {
            (Change::Keep, Some(p)) => Some(NewPart::Keep(p)),
            (Change::Text(s), from) => Some(NewPart::Text {
                from,
                text: s.clone(),
            }),
            (Change::Placeholder(s) | Change::Added(s), _) => Some(NewPart::Text {
                from: None,
                text: s.clone(),
            }),
            (Change::Removed, _) | (Change::Keep, None) => None,
        })
        .collect();
    Some(NewContent::Parts(parts))
}

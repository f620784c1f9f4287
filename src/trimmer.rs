//! The state of one trim, shared by the pipeline ([`crate::trim`]) and the shedding steps
//! ([`crate::shed`]): the repaired session in groups, each group's tag and whether it is kept,
//! and the running total of what is kept.

use crate::model::{Role, Session};
use crate::repair::Repaired;
use crate::report::Report;
use crate::request::TrimOptions;

/// Why a group is kept whatever the budget, or that it is optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tag {
    Optional,
    Pinned,
    Request,
    Anchor,
    InProgress,
}

/// One trim in progress.
pub(crate) struct Trimmer<'a, 'o> {
    pub session: Session<'a>,
    pub repaired: Repaired<'a>,
    pub options: &'o TrimOptions,
    pub budget: Option<u64>,
    pub tags: Vec<Tag>,
    pub kept: Vec<bool>,
    /// Cost of the kept groups. Wider than a unit's cost: an image may cost up to u64::MAX
    /// budget bytes (tokens × bytes_per_token, saturated), and sums of such must not wrap.
    pub total: u128,
    pub report: Report<'a>,
}

impl<'a, 'o> Trimmer<'a, 'o> {
    pub(crate) fn new(
        mut session: Session<'a>,
        options: &'o TrimOptions,
        budget: Option<u64>,
    ) -> Self {
        let repaired = options.format.adapter().repair(&mut session);
        let groups = repaired.groups.len();
        let report = Report {
            format: options.format,
            budget_bytes: budget,
            bytes_per_token: options.bytes_per_token,
            input_messages: session.inputs.len(),
            ..Report::default()
        };
        Trimmer {
            session,
            repaired,
            options,
            budget,
            tags: vec![Tag::Optional; groups],
            kept: vec![false; groups],
            total: 0,
            report,
        }
    }

    /// The logical messages of group `g`.
    pub fn group_msgs(&self, g: usize) -> &[usize] {
        let group = self.repaired.groups[g];
        &self.repaired.order[group.start..group.start + group.len]
    }

    pub fn group_cost(&self, g: usize) -> u128 {
        self.group_msgs(g)
            .iter()
            .map(|&m| self.session.cost(m))
            .sum()
    }

    pub(crate) fn first_role(&self, g: usize) -> Option<Role> {
        self.session.messages[self.group_msgs(g)[0]].role
    }
}

/// A cost for the report: costs past u64::MAX (over any budget) read as u64::MAX.
pub(crate) fn saturate(bytes: u128) -> u64 {
    u64::try_from(bytes).unwrap_or(u64::MAX)
}

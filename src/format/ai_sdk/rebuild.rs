//! The answer of the AI SDK format: each returned message from its logical messages, the
//! caller's parts where nothing changed ([`crate::format::parts`]).

use super::part_type;
use crate::format::parts::PartWriter;
use crate::format::write::{array, json_string, object_with, typed_text};
use crate::format::Rebuilt;
use crate::model::{Change, Session};
use crate::raw::{get, Doc, Fields, Raw};

/// The SDK's parts.
pub(super) struct Parts;

pub(super) fn rebuild<'a>(doc: &Doc<'a>, session: &Session<'a>, kept: &[bool]) -> Rebuilt {
    crate::format::merge::rebuild_each(doc, session, kept, &Parts)
}

impl PartWriter for Parts {
    fn text(&self, s: &str) -> String {
        typed_text("text", s)
    }

    fn text_key(&self, fields: &Fields<'_>) -> Option<&'static str> {
        (part_type(fields).as_deref() == Some("text")).then_some("text")
    }

    fn reply(&self, doc: &Doc<'_>, part: Raw<'_>, session: &Session<'_>, m: usize) -> String {
        tool_result_part(self, doc, part, session, m)
    }
}

/// A kept `tool-result` part: as written, or with its output's text shrunk and the media that
/// did not fit replaced by text items (or left out).
fn tool_result_part(
    w: &Parts,
    doc: &Doc<'_>,
    part: Raw<'_>,
    session: &Session<'_>,
    m: usize,
) -> String {
    let units = session.units_of(m);
    if units.iter().all(|u| u.change == Change::Keep) {
        return part.to_owned();
    }
    let fields = doc.fields(part).unwrap_or_default();
    let Some(output_raw) = get(&fields, "output") else {
        return part.to_owned();
    };
    let output = doc.fields(output_raw).unwrap_or_default();
    let value = match part_type(&output).as_deref() {
        Some("content") => {
            let items = get(&output, "value")
                .and_then(|v| doc.items(v))
                .unwrap_or_default();
            let kept: Vec<String> = items
                .iter()
                .enumerate()
                .filter_map(
                    |(k, item)| match units.iter().find(|u| u.sub == Some(k as u32)) {
                        Some(u) => w.changed(doc, item, u),
                        None => Some((*item).to_owned()),
                    },
                )
                .collect();
            array(&kept)
        }
        _ => match units.iter().find_map(|u| match &u.change {
            Change::Text(s) => Some(s),
            _ => None,
        }) {
            Some(s) => json_string(s),
            None => return part.to_owned(),
        },
    };
    let output = object_with(&output, "value", Some(&value));
    object_with(&fields, "output", Some(&output))
}

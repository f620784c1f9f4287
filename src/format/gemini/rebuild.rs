//! The answer of the Gemini format: contents rebuilt from their logical messages
//! ([`crate::format::parts`]), a function response with its shrunk strings and its images'
//! stand-ins.

use super::media::text_blob;
use crate::format::parts::PartWriter;
use crate::format::write::{array, bare_text, json_string, object_with, object_with_all};
use crate::model::{Change, Session, TextSource};
use crate::raw::{get, Doc, Fields, Raw};

/// Gemini's parts, for the shared mapping of the answer ([`super::parts`]).
pub(super) struct Parts;

impl PartWriter for Parts {
    fn key(&self) -> &'static str {
        "parts"
    }

    fn text(&self, s: &str) -> String {
        bare_text(s)
    }

    fn text_key(&self, fields: &Fields<'_>) -> Option<&'static str> {
        get(fields, "text").is_some().then_some("text")
    }

    fn reply(&self, doc: &Doc<'_>, part: Raw<'_>, session: &Session<'_>, m: usize) -> String {
        response_part(doc, part, session, m)
    }
}

/// A kept `functionResponse` part: as written, or with its shrunk strings, and without the
/// images that did not fit (a response's parts hold only media, so a placeholder is a
/// `text/plain` blob in its place).
fn response_part(doc: &Doc<'_>, part: Raw<'_>, session: &Session<'_>, m: usize) -> String {
    let units = session.units_of(m);
    if units.iter().all(|u| u.change == Change::Keep) {
        return part.to_owned();
    }
    let fields = doc.fields(part).unwrap_or_default();
    let key = if get(&fields, "functionResponse").is_some() {
        "functionResponse"
    } else {
        "function_response"
    };
    let function = get(&fields, key)
        .and_then(|r| doc.fields(r))
        .unwrap_or_default();
    let mut replaced: Vec<(&str, String)> = Vec::new();
    // The response's strings, found by where their token lies in the request.
    let changed_text = |value: Raw<'_>| {
        units.iter().find_map(|u| match (&u.text, &u.change) {
            (TextSource::Raw(token), Change::Text(new)) if std::ptr::eq(*token, value) => {
                Some(json_string(new))
            }
            _ => None,
        })
    };
    if let Some(response) = get(&function, "response").and_then(|r| doc.fields(r)) {
        let strings: Vec<(&str, String)> = response
            .iter()
            .filter_map(|(k, v)| changed_text(v).map(|new| (k.as_ref(), new)))
            .collect();
        if !strings.is_empty() {
            replaced.push(("response", object_with_all(&response, &strings)));
        }
    }
    if units
        .iter()
        .any(|u| u.sub.is_some() && u.change != Change::Keep)
    {
        let inner = get(&function, "parts")
            .and_then(|p| doc.items(p))
            .unwrap_or_default();
        let mut kept_inner = Vec::with_capacity(inner.len());
        for (k, item) in inner.iter().enumerate() {
            let unit = units.iter().find(|u| u.sub == Some(k as u32));
            match unit.map(|u| &u.change) {
                None | Some(Change::Keep) => kept_inner.push((*item).to_owned()),
                Some(Change::Placeholder(s)) => kept_inner.push(text_blob(doc, item, s)),
                Some(_) => {}
            }
        }
        replaced.push(("parts", array(&kept_inner)));
    }
    let function = object_with_all(&function, &replaced);
    object_with(&fields, key, Some(&function))
}

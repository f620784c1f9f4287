//! What every adapter reads of a message's tool calls: each id given once, the tools' names.

use crate::model::{Origin, Session};
use crate::raw::{self, get, Doc, Raw};
use std::borrow::Cow;
use std::collections::HashSet;

/// The ids of a message's calls so far, in order. A few are compared one by one; past 16 (a
/// hostile message of thousands of calls) they are hashed.
pub(crate) struct CallIds<'a> {
    ids: Vec<Cow<'a, str>>,
    seen: Option<HashSet<Cow<'a, str>>>,
}

impl<'a> CallIds<'a> {
    pub(crate) fn with_capacity(n: usize) -> CallIds<'a> {
        CallIds {
            ids: Vec::with_capacity(n),
            seen: None,
        }
    }

    /// Adds `id`, unless a call before it has it: then answers `false`.
    #[inline]
    pub(crate) fn add(&mut self, id: Cow<'a, str>) -> bool {
        if self.ids.len() == 16 && self.seen.is_none() {
            self.seen = Some(self.ids.iter().cloned().collect());
        }
        let duplicate = match &mut self.seen {
            Some(seen) => !seen.insert(id.clone()),
            None => self.ids.contains(&id),
        };
        if !duplicate {
            self.ids.push(id);
        }
        !duplicate
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub(crate) fn into_vec(self) -> Vec<Cow<'a, str>> {
        self.ids
    }
}

/// The string `key` of each object of the array `items` that `pick` selects (`pick` is given
/// an item and its fields, and answers the object to read `key` from, or `None` to skip it).
pub(crate) fn names_in<'a>(
    doc: &Doc<'a>,
    items: Option<Raw<'a>>,
    key: &str,
    pick: impl Fn(Raw<'a>, &[(Cow<'a, str>, Raw<'a>)]) -> Option<Raw<'a>>,
) -> Vec<String> {
    let items = items.and_then(|i| doc.items(i)).unwrap_or_default();
    items
        .into_iter()
        .filter_map(|item| Some((item, doc.fields(item)?)))
        .filter_map(|(item, fields)| pick(item, &fields).and_then(|o| doc.fields(o)))
        .filter_map(|o| get(&o, key).and_then(raw::string).map(|n| n.into_owned()))
        .collect()
}

/// The names of the tools logical message `m` calls, for formats whose calls are among a
/// message's parts (under `key`): those of its parts `pick` takes ([`names_in`]); none for a
/// message that is not a message's parts.
pub(crate) fn part_call_names<'a>(
    doc: &Doc<'a>,
    session: &Session<'a>,
    m: usize,
    key: &str,
    name: &str,
    pick: impl Fn(Raw<'a>, &[(Cow<'a, str>, Raw<'a>)]) -> Option<Raw<'a>>,
) -> Vec<String> {
    let msg = &session.messages[m];
    let (Origin::Parts, Some(p)) = (msg.origin, msg.physical) else {
        return Vec::new();
    };
    let Some(&message) = session.inputs.get(p as usize) else {
        return Vec::new();
    };
    let fields = doc.fields(message).unwrap_or_default();
    names_in(doc, get(&fields, key), name, pick)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_id_is_refused_before_and_after_hashing() {
        for n in [3usize, 40] {
            let mut ids = CallIds::with_capacity(0);
            for k in 0..n {
                assert!(ids.add(Cow::Owned(format!("call_{k}"))));
            }
            assert!(!ids.add(Cow::Borrowed("call_1")), "{n} calls");
            assert!(ids.add(Cow::Borrowed("new")));
            assert!(!ids.add(Cow::Borrowed("new")));
            assert_eq!(ids.into_vec().len(), n + 1);
        }
    }
}

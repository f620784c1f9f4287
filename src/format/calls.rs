//! The checks every adapter makes of a message's tool calls: each id given once.

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

//! What every adapter's split reads, and the loop it runs over the caller's messages.

use super::{message_path, Pricing};
use crate::error::Error;
use crate::model::Session;
use crate::raw::{Doc, Fields, Raw};

/// Where the messages a split reads stand in the caller's history.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Start<'a> {
    /// The whole history, with the format's outside system prompt, if any.
    Whole(Option<Raw<'a>>),
    /// The messages from index `first` on, appended after `previous` (the message before
    /// them, if any): an incremental session splits only what is appended.
    After {
        first: usize,
        previous: Option<Raw<'a>>,
    },
}

/// What an adapter splits: an array of the caller's messages in the document, where they
/// start, and how their images and files are priced.
pub struct Input<'a, 'p> {
    pub doc: &'p Doc<'a>,
    pub messages: Raw<'a>,
    pub(crate) start: Start<'a>,
    pub pricing: &'p Pricing<'p>,
}

impl<'a> Input<'a, '_> {
    /// The format's outside system prompt (given with a whole history only).
    pub fn system(&self) -> Option<Raw<'a>> {
        match self.start {
            Start::Whole(system) => system,
            Start::After { .. } => None,
        }
    }

    /// The caller's index of the first message of the array: error paths and the logical
    /// messages' `physical` count from there.
    pub fn first(&self) -> usize {
        match self.start {
            Start::Whole(_) => 0,
            Start::After { first, .. } => first,
        }
    }

    /// The caller's message right before the array, when the array is appended to a history.
    pub fn previous(&self) -> Option<Raw<'a>> {
        match self.start {
            Start::Whole(_) => None,
            Start::After { previous, .. } => previous,
        }
    }

    /// An empty session with room for the array's messages.
    pub(crate) fn session(&self) -> Session<'a> {
        Session::with_capacity(self.doc.len_hint(self.messages))
    }
}

/// One caller's message being split: the document and pricing of its [`Input`], its index in
/// the caller's history, the message, its fields, and the adapter's buffers (reused from
/// message to message).
pub(crate) struct Step<'a, 'p, B> {
    pub doc: &'p Doc<'a>,
    pub pricing: &'p Pricing<'p>,
    pub i: usize,
    pub message: Raw<'a>,
    pub fields: &'p Fields<'a>,
    pub scratch: &'p mut B,
}

/// Splits the caller's messages in order, each numbered by its index in the caller's history:
/// the session takes each as written, its fields are read, then `each(step, session)` splits
/// it. A message that is not an object is an error at `messages[i]` (`what` names it:
/// "message", "input item", "content").
#[inline(always)]
pub(crate) fn split_each<'a, B>(
    input: &Input<'a, '_>,
    what: &str,
    scratch: &mut B,
    s: &mut Session<'a>,
    mut each: impl FnMut(Step<'a, '_, B>, &mut Session<'a>) -> Result<(), Error>,
) -> Result<(), Error> {
    let Some(mut items) = input.doc.object_items(input.messages) else {
        return Ok(());
    };
    let mut fields = Fields::new();
    let mut i = input.first();
    while let Some((message, object)) = items.next_into(&mut fields) {
        s.inputs.push(message);
        if !object {
            return Err(not_object(what, i));
        }
        let step = Step {
            doc: input.doc,
            pricing: input.pricing,
            i,
            message,
            fields: &fields,
            scratch: &mut *scratch,
        };
        each(step, s)?;
        i += 1;
    }
    Ok(())
}

/// [`split_each`] after `s` (the messages of an outside system prompt, or none), with fresh
/// buffers: the whole of most adapters' split.
#[inline(always)]
pub(crate) fn split_all<'a, B: Default>(
    input: &Input<'a, '_>,
    what: &str,
    mut s: Session<'a>,
    each: impl FnMut(Step<'a, '_, B>, &mut Session<'a>) -> Result<(), Error>,
) -> Result<Session<'a>, Error> {
    split_each(input, what, &mut B::default(), &mut s, each)?;
    Ok(s)
}

/// The error of the caller's message `i`, which is not an object.
#[cold]
pub(crate) fn not_object(what: &str, i: usize) -> Error {
    Error::invalid_request(
        format!("each {what} must be a JSON object"),
        message_path(i, ""),
    )
}

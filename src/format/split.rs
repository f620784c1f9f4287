//! The loop every adapter's split runs over the caller's messages.

use super::message_path;
use crate::error::Error;
use crate::model::Session;
use crate::raw::{Doc, Fields, Raw};

/// An adapter's buffers, reused from message to message: one holds the fields of the caller's
/// message being split.
pub(crate) trait Buffers<'a> {
    fn message(&mut self) -> &mut Fields<'a>;
}

/// Splits the caller's messages in order, numbered from `first`: the session takes each as
/// written, its fields are read into `buffers.message()`, then `each(i, message, buffers,
/// session)` splits it. A message that is not an object is an error at `messages[i]` (`what`
/// names it: "message", "input item", "content").
#[inline(always)]
pub(crate) fn split_each<'a, B: Buffers<'a>>(
    doc: &Doc<'a>,
    messages: Raw<'a>,
    first: usize,
    what: &str,
    buffers: &mut B,
    s: &mut Session<'a>,
    mut each: impl FnMut(usize, Raw<'a>, &mut B, &mut Session<'a>) -> Result<(), Error>,
) -> Result<(), Error> {
    let Some(mut items) = doc.object_items(messages) else {
        return Ok(());
    };
    let mut i = first;
    while let Some((message, object)) = items.next_into(buffers.message()) {
        s.inputs.push(message);
        if !object {
            return Err(not_object(what, i));
        }
        each(i, message, buffers, s)?;
        i += 1;
    }
    Ok(())
}

/// The error of the caller's message `i`, which is not an object.
#[cold]
pub(crate) fn not_object(what: &str, i: usize) -> Error {
    Error::invalid_request(
        format!("each {what} must be a JSON object"),
        message_path(i, ""),
    )
}

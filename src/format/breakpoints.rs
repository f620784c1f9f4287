//! Which prompt-cache breakpoints a format takes (`cache_breakpoint`), as data of its
//! [`super::Traits`]: none, Anthropic's `cache_control`, or OpenAI's `prompt_cache_breakpoint`
//! as one of its wires writes it.

use super::{anthropic_cache, openai_cache, Placed};
use std::borrow::Cow;

/// Which prompt-cache breakpoints a format takes (`cache_breakpoint`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breakpoints {
    None,
    /// Anthropic's `cache_control` (`format::anthropic_cache`).
    Anthropic,
    /// OpenAI's `prompt_cache_breakpoint`, written as this wire writes it
    /// (`format::openai_cache`).
    OpenAi(openai_cache::Wire),
}

impl Breakpoints {
    /// Why `model` takes none of the format's breakpoints (a warning; nothing is placed), or
    /// `None`: OpenAI's are for some models only.
    pub(crate) fn refused(self, model: Option<&str>) -> Option<String> {
        match self {
            Breakpoints::OpenAi(_) => openai_cache::refused(model),
            _ => None,
        }
    }

    /// The breakpoint placed in the answer's messages (JSON texts) and the outside system
    /// prompt's.
    pub(crate) fn place(self, system: Option<&str>, messages: &[Cow<'_, str>]) -> Option<Placed> {
        match self {
            Breakpoints::None => None,
            Breakpoints::Anthropic => anthropic_cache::place(system, messages),
            Breakpoints::OpenAi(wire) => openai_cache::place(wire, system, messages),
        }
    }
}

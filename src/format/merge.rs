//! The merge of same-role neighbours (Anthropic, Gemini): messages of one role that a drop or a
//! repair leaves side by side become one, their parts in order, so roles alternate.

use super::parts::{piece, PartWriter, Piece};
use super::{Merge, Rebuilt};
use crate::model::Session;
use crate::raw::Doc;

/// The returned messages, built from the plan, merged. `across_gaps_only`: only messages a
/// drop left side by side merge (those the caller wrote side by side stay: Gemini takes them).
pub(crate) fn rebuild_merged<'a>(
    doc: &Doc<'a>,
    session: &Session<'a>,
    kept: &[bool],
    w: &impl PartWriter,
    across_gaps_only: bool,
) -> Rebuilt {
    let pieces = super::physical_runs(session)
        .filter(|(_, run)| run.clone().any(|k| kept[k]))
        .map(|(p, run)| piece(doc, session.inputs[p], session, kept, run, w));
    let mut out: Vec<Piece> = Vec::new();
    let mut merged = Vec::new();
    let mut last_index = None;
    for piece in pieces {
        let gap = last_index.is_none_or(|last| piece.index > last + 1);
        last_index = Some(piece.index);
        match out.last_mut() {
            Some(previous) if previous.role == piece.role && (gap || !across_gaps_only) => {
                merged.push(Merge {
                    index: piece.index,
                    into: previous.index,
                });
                previous.absorb(piece, doc, w);
            }
            _ => out.push(piece),
        }
    }
    Rebuilt {
        messages: out.into_iter().map(|p| p.finish(doc, w)).collect(),
        merged,
    }
}

/// The returned messages, built from the plan, each on its own (formats that do not merge).
pub(crate) fn rebuild_each<'a>(
    doc: &Doc<'a>,
    session: &Session<'a>,
    kept: &[bool],
    w: &impl PartWriter,
) -> Rebuilt {
    super::physical_runs(session)
        .filter(|(_, run)| run.clone().any(|k| kept[k]))
        .map(|(p, run)| piece(doc, session.inputs[p], session, kept, run, w).finish(doc, w))
        .collect::<Vec<_>>()
        .into()
}

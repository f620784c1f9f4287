//! The `window` key of a tail request: where the tail starts, the messages given before it,
//! what the runs left out between them hold, and the lengths the left-out and stood-in
//! messages stand for.

use crate::error::Error;
use crate::raw::{get, kind, Doc, Kind, Raw};

/// What a gap (a run of left-out messages) holds, as `window.gaps` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GapKind {
    /// `"plain"`: plain messages only, bounded by given plain messages (the default).
    Plain,
    /// `"turns"`: whole turns, as each format's [`crate::format::facts::Turns`] says: the gap
    /// starts with a message of the user's and the given message after it is one.
    Turns,
}

impl GapKind {
    /// Its name in `window.gaps`.
    pub fn name(self) -> &'static str {
        match self {
            GapKind::Plain => "plain",
            GapKind::Turns => "turns",
        }
    }
}

/// A window read: `from`, the runs given before it, the kind of each gap between them (in
/// order), the left-out messages' sizes, the stand-ins' lengths.
pub(super) struct Window<'a> {
    pub from: usize,
    pub earlier: Vec<(usize, Raw<'a>)>,
    pub gaps: Vec<GapKind>,
    pub sizes: Option<Vec<(Raw<'a>, u64)>>,
    pub stood_in: Option<Vec<(u64, u64)>>,
}

impl Window<'_> {
    /// The window of a request without one: the whole history.
    pub(super) fn whole() -> Window<'static> {
        Window {
            from: 0,
            earlier: Vec::new(),
            gaps: Vec::new(),
            sizes: None,
            stood_in: None,
        }
    }
}

/// Reads `window`: `{"from": n, "earlier": [[start, [...]], ...], "gaps"?: ["plain" |
/// "turns", ...], "sizes"?: [role, length, ...], "stood_in"?: [UTF-8 length, JSON length,
/// ...]}`. `gaps` names what each run left out holds, in order (one entry a gap: between two
/// runs, and between the last run and `from`); without it, every gap is of plain messages.
pub(super) fn read_window<'a>(doc: &Doc<'a>, window: Raw<'a>) -> Result<Window<'a>, Error> {
    let bad = |what: &str, path: &str| Error::invalid_request(what.to_owned(), path.to_owned());
    let fields = doc
        .fields(window)
        .ok_or_else(|| bad("window must be an object", "window"))?;
    if let Some((key, _)) = fields.iter().find(|(k, _)| {
        !matches!(
            k.as_ref(),
            "from" | "earlier" | "gaps" | "sizes" | "stood_in"
        )
    }) {
        return Err(bad(
            &format!("unknown key {key:?} in window (from, earlier, gaps, sizes, stood_in)"),
            "window",
        ));
    }
    let index = |raw: Option<Raw<'_>>, path: &str| -> Result<usize, Error> {
        raw.and_then(|r| r.trim().parse::<usize>().ok())
            .ok_or_else(|| bad("must be a non-negative integer", path))
    };
    let from = index(get(&fields, "from"), "window.from")?;
    let mut earlier = Vec::new();
    // How many gaps the runs leave.
    let mut count = 0;
    if let Some(runs) = get(&fields, "earlier") {
        let runs = doc
            .items(runs)
            .ok_or_else(|| bad("window.earlier must be an array", "window.earlier"))?;
        let mut next = 0;
        for (k, run) in runs.iter().enumerate() {
            let path = format!("window.earlier[{k}]");
            let pair = doc
                .items(run)
                .filter(|p| p.len() == 2 && kind(p[1]) == Kind::Array)
                .ok_or_else(|| bad("each run is [start, [messages]]", &path))?;
            let start = index(Some(pair[0]), &path)?;
            let len = doc.items(pair[1]).map_or(0, |i| i.len());
            if (k == 0 && start != 0) || (k > 0 && start <= next) || len == 0 {
                return Err(bad(
                    "runs start at message 0, hold messages and leave a gap between them",
                    &path,
                ));
            }
            count += usize::from(k > 0);
            next = start + len;
            earlier.push((start, pair[1]));
        }
        if next > from {
            return Err(bad("the runs end before window.from", "window.earlier"));
        }
        count += usize::from(!earlier.is_empty() && next < from);
    }
    if from > 0 && earlier.is_empty() {
        return Err(bad(
            "window.earlier must give message 0 when from is past it",
            "window.earlier",
        ));
    }
    let gaps = match get(&fields, "gaps") {
        None => vec![GapKind::Plain; count],
        Some(list) => {
            let items = doc
                .items(list)
                .ok_or_else(|| bad("window.gaps must be an array", "window.gaps"))?;
            if items.len() != count {
                return Err(bad(
                    &format!(
                        "window.gaps names {} gaps where the runs leave {count}",
                        items.len()
                    ),
                    "window.gaps",
                ));
            }
            let mut gaps = Vec::with_capacity(count);
            for (k, item) in items.iter().enumerate() {
                gaps.push(match crate::raw::string(item).as_deref() {
                    Some("plain") => GapKind::Plain,
                    Some("turns") => GapKind::Turns,
                    _ => {
                        return Err(bad(
                            "must be \"plain\" or \"turns\"",
                            &format!("window.gaps[{k}]"),
                        ))
                    }
                });
            }
            gaps
        }
    };
    let sizes = match get(&fields, "sizes") {
        None => None,
        Some(list) => Some(pairs(
            doc,
            list,
            "window.sizes must be an array [role, length, role, length, ...]",
            "window.sizes",
            |role, length, k| {
                if kind(role) != Kind::String {
                    return Err(bad(
                        "must be a role (a string)",
                        &format!("window.sizes[{}]", 2 * k),
                    ));
                }
                Ok((role, whole_number(length, "window.sizes", 2 * k + 1)?))
            },
        )?),
    };
    let stood_in = match get(&fields, "stood_in") {
        None => None,
        Some(list) => Some(pairs(
            doc,
            list,
            "window.stood_in must be an array [UTF-8 length, JSON length, ...]",
            "window.stood_in",
            |utf8, json, k| {
                Ok((
                    whole_number(utf8, "window.stood_in", 2 * k)?,
                    whole_number(json, "window.stood_in", 2 * k + 1)?,
                ))
            },
        )?),
    };
    Ok(Window {
        from,
        earlier,
        gaps,
        sizes,
        stood_in,
    })
}

/// The array `list` read two items at a time, each pair (and its index among the pairs) by
/// `read`; an array of odd length, or no array, is `usage` at `path`.
fn pairs<'a, T>(
    doc: &Doc<'a>,
    list: Raw<'a>,
    usage: &str,
    path: &str,
    read: impl Fn(Raw<'a>, Raw<'a>, usize) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    let items = doc
        .items(list)
        .filter(|i| i.len() % 2 == 0)
        .ok_or_else(|| Error::invalid_request(usage.to_owned(), path.to_owned()))?;
    items
        .chunks_exact(2)
        .enumerate()
        .map(|(k, pair)| read(pair[0], pair[1], k))
        .collect()
}

/// A non-negative integer, item `i` of the array at `key`.
fn whole_number(raw: Raw<'_>, key: &str, i: usize) -> Result<u64, Error> {
    raw.trim().parse::<u64>().map_err(|_| {
        Error::invalid_request("must be a non-negative integer", format!("{key}[{i}]"))
    })
}

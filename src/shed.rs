//! Shedding (DESIGN §6.7), the steps that act inside the kept messages once dropping whole
//! groups is not enough, in their fixed order (`STEPS`): shrink the biggest texts (head and
//! tail kept around a visible marker), drop images that do not fit (a placeholder says what
//! was omitted), drop attachment bodies (their first line stays), and last let the earlier
//! anchors and the exchange in progress go whole.

use crate::error::{Error, ErrorCode};
use crate::model::{Change, UnitKind};
use crate::pricing::MediaPrice;
use crate::report::{DroppedAttachment, DroppedFile, DroppedImage, Truncation};
use crate::request::OnImageOverflow;
use crate::tokens::Measure;
use crate::trimmer::{saturate, Tag, Trimmer};
use std::collections::{HashMap, HashSet};

/// One shedding step: acts while the kept messages cost more than the budget.
pub(crate) type Step = fn(&mut Trimmer<'_, '_>, u64) -> Result<(), Error>;

/// The shedding steps, in order.
pub(crate) const STEPS: &[Step] = &[
    shrink_texts,
    drop_images,
    drop_attachments,
    drop_soft_groups,
];

/// (message, unit) of every unit in kept, sheddable messages, the current request's last, each
/// side oldest first.
fn sheddable_units(
    t: &Trimmer<'_, '_>,
    accept: impl Fn(&UnitKind, Tag) -> bool,
) -> Vec<(usize, usize)> {
    sheddable_units_where(t, |unit, tag| {
        unit.change == Change::Keep && accept(&unit.kind, tag)
    })
}

/// (message, unit) of every unit of kept, sheddable messages that `accept` takes, the current
/// request's last, each side oldest first.
fn sheddable_units_where(
    t: &Trimmer<'_, '_>,
    accept: impl Fn(&crate::model::Unit<'_>, Tag) -> bool,
) -> Vec<(usize, usize)> {
    let mut units = Vec::new();
    let mut request_units = Vec::new();
    for g in 0..t.repaired.groups.len() {
        let tag = t.tags[g];
        if !t.kept[g] || tag == Tag::Pinned {
            continue;
        }
        for &m in t.group_msgs(g) {
            for u in t.session.messages[m].unit_range() {
                let unit = &t.session.units[u];
                if accept(unit, tag) {
                    if tag == Tag::Request {
                        request_units.push((m, u));
                    } else {
                        units.push((m, u));
                    }
                }
            }
        }
    }
    units.extend(request_units);
    units
}

fn set_unit(t: &mut Trimmer<'_, '_>, u: usize, bytes: u64, change: Change) {
    let unit = &mut t.session.units[u];
    t.total = t.total - u128::from(unit.bytes) + u128::from(bytes);
    unit.bytes = bytes;
    unit.change = change;
}

fn physical(t: &Trimmer<'_, '_>, m: usize) -> usize {
    t.session.messages[m].physical.unwrap_or(0) as usize
}

/// Shrinks the biggest texts of the anchors and the exchange in progress, and attachment
/// texts wherever they are (the request's included), never below [`MIN_TEXT_BYTES`]; the
/// pinned system message and the request's own text stay whole.
fn shrink_texts(t: &mut Trimmer<'_, '_>, budget: u64) -> Result<(), Error> {
    let candidates = sheddable_units(t, |kind, tag| match kind {
        UnitKind::Text => matches!(tag, Tag::Anchor | Tag::InProgress | Tag::Optional),
        UnitKind::Attachment => true,
        _ => false,
    });
    let sizes: Vec<u64> = candidates
        .iter()
        .map(|&(_, u)| t.session.units[u].bytes)
        .collect();
    let need = saturate(t.total - u128::from(budget));
    let floor = t.text_floor();
    let level = water_level(&sizes, need, floor).unwrap_or(floor);
    for (&(m, u), &size) in candidates.iter().zip(&sizes) {
        if size <= level {
            continue;
        }
        let text = t.session.units[u].text.text();
        let (shrunk, to) = t.shrink_to(&text, size, level);
        if to >= size {
            continue;
        }
        let part = t.session.units[u].part;
        let truncation = Truncation {
            index: physical(t, m),
            part: part.map(|p| p as usize),
            from_bytes: size,
            to_bytes: to,
        };
        t.report.truncated.push(truncation);
        t.shrunk.push((m, u, size));
        set_unit(t, u, to, Change::Text(Box::new(shrunk.into())));
    }
    Ok(())
}

/// Drops images whose tokens do not fit, oldest first, the request's last.
fn drop_images(t: &mut Trimmer<'_, '_>, budget: u64) -> Result<(), Error> {
    let mode = t.options.on_image_overflow;
    for (m, u) in sheddable_units(t, |kind, _| matches!(kind, UnitKind::Media(_))) {
        if t.total <= u128::from(budget) {
            break;
        }
        let unit = &t.session.units[u];
        let UnitKind::Media(price) = &unit.kind else {
            unreachable!("only images are selected")
        };
        let part = unit.part.expect("images are parts") as usize;
        let placeholder = image_placeholder(price);
        // A message must keep saying something: its last part becomes the placeholder.
        // Searched from the end: the parts after this one are not removed yet, so the search
        // stops at once and dropping n images from one message stays linear.
        let others_left = t.session.messages[m]
            .unit_range()
            .rev()
            .any(|i| i != u && t.session.units[i].change != Change::Removed);
        let (bytes, change) = if mode == OnImageOverflow::Drop && others_left {
            (0, Change::Removed)
        } else {
            (
                t.measure.text(&placeholder),
                Change::Placeholder(Box::new(placeholder.into())),
            )
        };
        if bytes >= unit.bytes {
            continue;
        }
        let index = physical(t, m);
        if mode == OnImageOverflow::Error {
            let path = crate::format::unit_path(
                t.options.format,
                &t.session,
                &t.session.messages[m],
                unit,
            );
            return Err(Error::new(
                ErrorCode::ImageOverflow,
                format!(
                    "{} {path} ({}) does not fit the context budget and on_image_overflow is \
                     \"error\".",
                    media_word(price),
                    describe_image(price)
                ),
            )
            .at(path));
        }
        if let Some(file) = &price.file {
            t.report
                .dropped_files
                .push(DroppedFile::new(index, part, file, price));
            set_unit(t, u, bytes, change);
            continue;
        }
        let info = price.probe.ok();
        t.report.dropped_images.push(DroppedImage {
            index,
            part,
            format: info.map(|i| i.format),
            width: info.map(|i| i.width),
            height: info.map(|i| i.height),
            tokens: price.tokens,
            budget_bytes: price.budget_bytes,
        });
        set_unit(t, u, bytes, change);
    }
    Ok(())
}

/// Last resort: attachment bodies go (shrunk or not), their first line stays. A body shrunk
/// first is reported as dropped, at its size before the shrink (its truncation is forgotten).
fn drop_attachments(t: &mut Trimmer<'_, '_>, budget: u64) -> Result<(), Error> {
    let attachments = sheddable_units_where(t, |unit, _| {
        unit.kind == UnitKind::Attachment && matches!(unit.change, Change::Keep | Change::Text(_))
    });
    let shrunk: HashMap<(usize, Option<usize>), u64> = t
        .report
        .truncated
        .iter()
        .map(|tr| ((tr.index, tr.part), tr.from_bytes))
        .collect();
    let mut forget = HashSet::new();
    for (m, u) in attachments {
        if t.total <= u128::from(budget) {
            break;
        }
        let unit = &t.session.units[u];
        let stub = attachment_stub(&unit.text.text());
        let stub_cost = t.measure.text(&stub);
        if stub_cost >= unit.bytes {
            continue;
        }
        let (index, part) = (
            physical(t, m),
            unit.part.expect("attachments are parts") as usize,
        );
        let mut bytes = unit.bytes;
        if matches!(unit.change, Change::Text(_)) {
            if let Some(&from) = shrunk.get(&(index, Some(part))) {
                bytes = from;
                forget.insert((index, Some(part)));
            }
        }
        t.report
            .dropped_attachments
            .push(DroppedAttachment { index, part, bytes });
        set_unit(t, u, stub_cost, Change::Text(Box::new(stub.into())));
    }
    if !forget.is_empty() {
        t.report
            .truncated
            .retain(|tr| !forget.contains(&(tr.index, tr.part)));
    }
    Ok(())
}

/// Before failing, the earlier anchors (oldest first) and the exchange in progress yield; a
/// server compaction last, as it stands for the conversation before what follows it and is
/// kept while anything after it is (crate::stable::summary, `keep_compaction`).
fn drop_soft_groups(t: &mut Trimmer<'_, '_>, budget: u64) -> Result<(), Error> {
    let compaction = |t: &Trimmer<'_, '_>, g: usize| {
        t.group_msgs(g)
            .iter()
            .any(|&m| t.session.messages[m].compaction)
    };
    let n = t.tags.len();
    let soft = (0..n)
        .filter(|&g| t.tags[g] == Tag::Anchor && !compaction(t, g))
        .chain((0..n).filter(|&g| t.tags[g] == Tag::InProgress))
        .chain((0..n).filter(|&g| t.tags[g] == Tag::Anchor && compaction(t, g)))
        .collect::<Vec<_>>();
    for g in soft {
        if t.total <= u128::from(budget) {
            break;
        }
        t.kept[g] = false;
        t.total -= t.group_cost(g);
        t.count -= t.repaired.groups[g].len();
        let mut indices: Vec<usize> = t.group_msgs(g).iter().map(|&m| physical(t, m)).collect();
        indices.sort_unstable();
        t.report.forget_messages(&indices);
    }
    Ok(())
}

/// Opt-in (`clear_tool_results`), before whole groups are dropped (DESIGN §6.7): while the
/// history `max_messages` allows costs more than the budget, the results of tool exchanges
/// older than the newest `keep` are replaced by the placeholder, oldest first. A reply's first
/// text (or image) becomes the placeholder, its other texts empty, its other images removed;
/// calls, ids and the exchange's messages stay, so the model keeps the record of what it did.
/// Exchanges calling a tool of `exclude_tools` keep their results.
pub(crate) fn clear_tool_results(
    t: &mut Trimmer<'_, '_>,
    clear: &crate::request::ClearToolResults,
    budget: u64,
) {
    let n = t.repaired.groups.len();
    // What selection could keep without the budget: the kept groups, then the optional ones
    // newest first within max_messages.
    let mut demand = t.total;
    let mut count = t.count;
    let mut reachable = vec![false; n];
    for g in (0..n).rev() {
        if t.tags[g] != Tag::Optional {
            reachable[g] = t.kept[g];
            continue;
        }
        let len = t.repaired.groups[g].len();
        if count + len > t.options.max_messages {
            break;
        }
        count += len;
        demand += t.group_cost_within(g, None).unwrap_or(0);
        reachable[g] = true;
    }
    if demand <= u128::from(budget) {
        return;
    }
    let exchanges: Vec<usize> = (0..n).filter(|&g| t.repaired.groups[g].exchange).collect();
    let older = exchanges.len().saturating_sub(clear.keep);
    let adapter = t.options.format.adapter();
    let placeholder_cost = t.measure.text(&clear.placeholder);
    // Once clearing starts it clears at least `at_least`, so that clears are rare and the
    // prefix is stable between them.
    let mut freed_all = 0u128;
    for &g in &exchanges[..older] {
        if demand <= u128::from(budget) && freed_all >= u128::from(clear.at_least) {
            break;
        }
        if !reachable[g] {
            continue;
        }
        let msgs = t.group_msgs(g).to_vec();
        let excluded = !clear.exclude_tools.is_empty()
            && msgs.iter().any(|&m| {
                adapter
                    .call_names(t.doc, &t.session, m)
                    .iter()
                    .any(|name| clear.exclude_tools.contains(name))
            });
        if excluded {
            continue;
        }
        for m in msgs {
            if t.session.messages[m].role != Some(crate::model::Role::Tool) {
                if clear.inputs {
                    let freed = clear_inputs(t, m);
                    freed_all += u128::from(freed);
                    demand -= u128::from(freed);
                    if t.kept[g] {
                        t.total -= u128::from(freed);
                    }
                }
                continue;
            }
            let range = t.session.messages[m].unit_range();
            let clearable =
                |u: &crate::model::Unit<'_>| u.change == Change::Keep && u.kind != UnitKind::Other;
            let content: u64 = t.session.units[range.clone()]
                .iter()
                .filter(|u| clearable(u))
                .map(|u| u.bytes)
                .sum();
            // Only a result that costs more than the placeholder is cleared.
            if content <= placeholder_cost {
                continue;
            }
            let mut first = true;
            for unit in &mut t.session.units[range] {
                if !clearable(unit) {
                    continue;
                }
                let (cost, change) = match (&unit.kind, first) {
                    (UnitKind::Media(_), true) => (
                        placeholder_cost,
                        Change::Placeholder(Box::new(clear.placeholder.as_str().into())),
                    ),
                    (_, true) => (
                        placeholder_cost,
                        Change::Text(Box::new(clear.placeholder.as_str().into())),
                    ),
                    (UnitKind::Media(_), false) => (0, Change::Removed),
                    (_, false) => (0, Change::Text(Box::new("".into()))),
                };
                first = false;
                unit.bytes = cost;
                unit.change = change;
            }
            let freed = u128::from(content - placeholder_cost);
            freed_all += freed;
            demand -= freed;
            if t.kept[g] {
                t.total -= freed;
            }
            let entry = crate::report::ClearedToolResult {
                index: physical(t, m),
                cost: content,
            };
            t.cleared.push((m, entry));
        }
    }
}

/// `clear_tool_inputs`: the arguments of logical message `m`'s calls become the format's
/// placeholder (`format::inputs`), its cost goes down by what that frees, and the report lists
/// the message with what was freed. Returns that.
fn clear_inputs(t: &mut Trimmer<'_, '_>, m: usize) -> u64 {
    let msg = &t.session.messages[m];
    let (Some(p), crate::model::ToolCalls::Valid(_), false) =
        (msg.physical, &msg.tool_calls, msg.remove_tool_calls)
    else {
        return 0;
    };
    let adapter = t.options.format.adapter();
    let message = t.session.inputs[p as usize];
    let calls = crate::format::inputs::call_inputs(adapter, t.doc, message);
    if calls.is_empty() {
        return 0;
    }
    let pricing = crate::format::Pricing {
        profile: t.options.image_profile,
        bytes_per_token: t.options.bytes_per_token,
        image_sizes: &t.options.image_sizes,
        file_sizes: &t.options.file_sizes,
    };
    let freed = crate::format::inputs::freed(adapter, t.doc, message, &calls, &t.measure, &pricing);
    if freed == 0 {
        return 0;
    }
    let msg = &mut t.session.messages[m];
    msg.meta_bytes -= freed;
    t.inputs_cleared.push(m);
    let entry = crate::report::ClearedToolResult {
        index: physical(t, m),
        cost: freed,
    };
    t.cleared.push((m, entry));
    freed
}

/// No text is shrunk below this many bytes.
pub const MIN_TEXT_BYTES: u64 = 128;
/// The same floor when costs are tokens.
pub const MIN_TEXT_TOKENS: u64 = 32;

/// Shrinks `text` (which costs `size`, more than `target`) to at most `target` tokens of
/// `measure`, as close under it as the count allows: a byte goal in proportion, corrected by
/// the count of what it gave until it fits, then moved up between the longest goal that fits
/// and the shortest that does not until the text costs the target (within 1/64 of it) or no
/// byte is left between them. A first goal that fits can fall well short (a head and tail
/// denser in tokens than the whole): a 32-token target gave 21 tokens, below the floor, before
/// the second step. Returns the text and its cost.
pub fn shrink_to_tokens(measure: &Measure, text: &str, size: u64, target: u64) -> (String, u64) {
    let bytes = text.len() as u64;
    let mut goal = (u128::from(bytes) * u128::from(target) / u128::from(size.max(1))) as u64;
    // The shortest goal known to cost more than the target (the whole text does), and the
    // longest known to fit.
    let mut over = bytes;
    let mut fit: Option<(u64, String, u64)> = None;
    let mut smallest: Option<(String, u64)> = None;
    for _ in 0..12 {
        let shrunk = shrink_text(text, goal as usize);
        let cost = measure.text(&shrunk);
        if cost <= target {
            fit = Some((goal, shrunk, cost));
            break;
        }
        over = over.min(goal);
        if smallest.as_ref().is_none_or(|(_, c)| cost < *c) {
            smallest = Some((shrunk, cost));
        }
        if goal == 0 {
            break;
        }
        // Over by `cost − target` tokens: ask for proportionally fewer bytes, and at least a
        // few fewer so that the loop always moves.
        let next = u128::from(goal) * u128::from(target) / u128::from(cost);
        goal = (next as u64).min(goal.saturating_sub(8));
    }
    let Some((mut low, mut best, mut cost)) = fit else {
        return smallest.unwrap_or_else(|| (text.to_owned(), size));
    };
    let close = target / 64;
    for step in 0..12 {
        if cost + close >= target || over <= low + 1 {
            break;
        }
        // Up by the tokens still missing at the bytes a token the fitting cut has; every other
        // step halfway, once a cut that does not fit is known (so that a curved count cannot
        // slow it down; the whole text is no such bound: counting half of a long text would
        // cost more than the search saves). Strictly between the two.
        let guess = if step % 2 == 1 && over < bytes {
            low + (over - low) / 2
        } else {
            let missing = u128::from(target - cost);
            low + (missing * u128::from(low) / u128::from(cost.max(1))) as u64
        };
        let guess = guess.clamp(low + 1, over - 1);
        let shrunk = shrink_text(text, guess as usize);
        let c = measure.text(&shrunk);
        if c <= target {
            low = guess;
            // A longer cut that fits costs at least as much, but a count need not grow with
            // every byte: the text kept is the one that costs the most within the target.
            if c >= cost {
                (best, cost) = (shrunk, c);
            }
        } else {
            over = guess;
        }
    }
    (best, cost)
}

fn marker(cut: usize) -> String {
    format!("\n[... {cut} bytes omitted to fit the context budget ...]\n")
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Shrinks `text` to at most `target` bytes (at least [`MIN_TEXT_BYTES`] are asked for),
/// keeping its head and tail around a marker that says how many bytes were cut. Never splits
/// a UTF-8 character, and never ends below [`MIN_TEXT_BYTES`] when `target` is at least that:
/// at the floor, the character boundary at or above it (up to 3 bytes over `target`).
///
/// ```
/// let s = ankita::shed::shrink_text(&"é".repeat(500), 200);
/// assert!(s.len() <= 200 && s.contains("bytes omitted"));
/// ```
pub fn shrink_text(text: &str, target: usize) -> String {
    let n = text.len();
    if n <= target {
        return text.to_owned();
    }
    // Character boundaries can land a few bytes short of the floor: then the tail takes whole
    // characters back until the text is at or above it (DESIGN §6.7: never below 128 bytes),
    // a few bytes over a target at the floor rather than under the floor.
    let floor = if target >= MIN_TEXT_BYTES as usize {
        MIN_TEXT_BYTES as usize
    } else {
        0
    };
    let mut keep = target.saturating_sub(marker(n - target).len());
    loop {
        let head = floor_boundary(text, keep / 2);
        let mut tail = ceil_boundary(text, n - (keep - keep / 2));
        let mut len = head + marker(tail - head).len() + (n - tail);
        let snapped = len < floor;
        while len < floor && tail > head {
            tail = floor_boundary(text, tail - 1);
            len = head + marker(tail - head).len() + (n - tail);
        }
        if len <= target || snapped || keep == 0 {
            let mark = marker(tail - head);
            let mut out = String::with_capacity(len);
            out.push_str(&text[..head]);
            out.push_str(&mark);
            out.push_str(&text[tail..]);
            return out;
        }
        keep = keep.saturating_sub(len - target);
    }
}

/// The largest level `L ≥ floor` such that cutting every size above `L` down to `L` frees at
/// least `need` bytes: "shrink the biggest first" in one step. `None` when even cutting
/// everything to `floor` is not enough.
pub fn water_level(sizes: &[u64], need: u64, floor: u64) -> Option<u64> {
    let mut sorted: Vec<u64> = sizes.iter().copied().filter(|&s| s > floor).collect();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let mut prefix: u128 = 0;
    for k in 0..sorted.len() {
        prefix += u128::from(sorted[k]);
        let count = k as u128 + 1;
        let next = sorted.get(k + 1).copied().unwrap_or(floor).max(floor);
        if prefix >= u128::from(need) + count * u128::from(next) {
            return Some(((prefix - u128::from(need)) / count) as u64);
        }
    }
    None
}

/// A short description of an image: `PNG 1700×2200, ~765 tokens` (of a document or audio
/// file: [`crate::report::describe_file`]).
pub fn describe_image(price: &MediaPrice) -> String {
    if let Some(file) = &price.file {
        return crate::report::describe_file(file, price.tokens.unwrap_or(0));
    }
    match (price.probe, price.tokens) {
        (Ok(info), Some(tokens)) => format!(
            "{} {}×{}, ~{} tokens",
            info.format, info.width, info.height, tokens
        ),
        (Err(_), Some(tokens)) => format!("remote image, ~{tokens} tokens"),
        _ => format!("unreadable image, {} bytes", price.budget_bytes),
    }
}

/// The text part that stands where an image (a document, audio) was.
pub fn image_placeholder(price: &MediaPrice) -> String {
    format!(
        "[{} omitted to fit the context budget: {}]",
        media_word(price),
        describe_image(price)
    )
}

/// `Image`, `Document` or `Audio`.
fn media_word(price: &MediaPrice) -> &'static str {
    match price.file.as_ref().map(|f| f.kind) {
        None => "Image",
        Some(crate::probe::file::FileKind::Document) => "Document",
        Some(crate::probe::file::FileKind::Audio) => "Audio",
    }
}

/// What remains of an attachment: its first line (at most 200 bytes) and a note.
pub fn attachment_stub(text: &str) -> String {
    let first = text.split('\n').next().unwrap_or("");
    let first = &first[..floor_boundary(first, first.len().min(200))];
    format!(
        "{first}\n[File body omitted to fit the context budget: {} bytes]",
        text.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrink_keeps_head_and_tail_and_never_splits_characters() {
        let text: String = "Grüße, 世界! ".repeat(100);
        for target in [128usize, 129, 130, 200, 777, 1000] {
            let s = shrink_text(&text, target);
            assert!(s.len() <= target.max(131), "{target}: {}", s.len());
            assert!(s.len() >= 128, "{target}: {} is below the floor", s.len());
            assert!(s.len() + 8 >= target, "{target}: only {}", s.len());
            assert!(s.starts_with("Grü"));
            assert!(s.ends_with("世界! "));
            let cut: usize = s
                .split("[... ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap();
            let marker_len = marker(cut).len();
            assert_eq!(
                s.len() - marker_len + cut,
                text.len(),
                "marker counts the cut"
            );
        }
        assert_eq!(shrink_text("short", 128), "short");
    }

    #[test]
    fn shrunk_text_never_ends_below_the_floor() {
        for text in [
            "é".repeat(700),
            "世".repeat(500),
            "𝄞".repeat(300),
            "aé世𝄞".repeat(200),
        ] {
            for target in 128..160 {
                let s = shrink_text(&text, target);
                assert!(s.len() >= 128, "{target}: {} bytes", s.len());
                assert!(s.len() <= target.max(131), "{target}: {} bytes", s.len());
            }
        }
    }

    #[test]
    fn shrink_to_tokens_fits_the_token_target() {
        let measure = Measure::exact(crate::tokens::Tokenizer::O200kBase);
        let log: String = (0..400)
            .map(|i| {
                format!(
                    "-rwxr-xr-x 1 root root {} Nov 30 23:{:02} tool{i}\n",
                    1000 + 37 * i,
                    i % 60
                )
            })
            .collect();
        let size = measure.text(&log);
        for target in [32u64, 100, 500, size / 2] {
            let (shrunk, cost) = shrink_to_tokens(&measure, &log, size, target);
            assert_eq!(cost, measure.text(&shrunk), "the cost is the count");
            assert!(cost <= target, "{target}: {cost}");
            assert!(
                cost + (target / 32).max(2) >= target,
                "{target}: only {cost}"
            );
            assert!(
                shrunk.starts_with("-rw") && shrunk.ends_with("399\n"),
                "{target}: {shrunk:?}"
            );
        }
    }

    /// On real text (logs, code, lockfiles, prose in six languages, emoji), a text shrunk to a
    /// token target costs the target, give or take what one byte more would cost: at 32 tokens,
    /// the floor, not 21 (the proportional goal alone, on a log whose ends are denser in
    /// tokens than its middle).
    #[test]
    fn shrink_to_tokens_reaches_the_target_on_real_text() {
        let measure = Measure::exact(crate::tokens::Tokenizer::O200kBase);
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/text");
        let mut checked = 0;
        for entry in std::fs::read_dir(dir).expect("tests/fixtures/text") {
            let path = entry.expect("an entry").path();
            let text = std::fs::read_to_string(&path).expect("UTF-8 text");
            let size = measure.text(&text);
            for target in [MIN_TEXT_TOKENS, 40, 64, 100, 200, 500, 2000] {
                if target >= size {
                    continue;
                }
                let (shrunk, cost) = shrink_to_tokens(&measure, &text, size, target);
                let name = path.display();
                assert_eq!(
                    cost,
                    measure.text(&shrunk),
                    "{name} {target}: the cost is the count"
                );
                assert!(cost <= target, "{name} {target}: {cost}");
                assert!(
                    cost + (target / 32).max(2) >= target,
                    "{name} {target}: only {cost}"
                );
                assert!(shrunk.contains("bytes omitted"), "{name} {target}");
                checked += 1;
            }
        }
        assert!(checked > 60, "{checked} shrinks checked");
    }

    #[test]
    fn water_level_shrinks_the_biggest_first() {
        // Cutting 1000 → 600 frees exactly 400.
        assert_eq!(water_level(&[1000, 300, 200], 400, 128), Some(600));
        // Freeing 900: both big ones go to the same level (1000+800−900)/2 = 450.
        assert_eq!(water_level(&[1000, 800, 100], 900, 128), Some(450));
        assert_eq!(water_level(&[1000, 800], 10_000, 128), None);
        assert_eq!(water_level(&[], 1, 128), None);
    }
}

//! What the bindings' light pass leaves out of a tail request, written over JSON values from
//! the core's facts (`ankita_formats`), shared by tests/tail_windows.rs, tail_stand_ins.rs
//! and tail_gaps.rs, each including this file by its path: plain messages (a role and a
//! non-empty string content, or Gemini text parts, nothing else), runs of whole turns (each
//! format's `turns`), and the stand-ins of the messages given (each format's `stand_in`).

#![allow(dead_code)]

use ankita::format::facts::describe_formats;
use serde_json::{json, Map, Value};

/// A format's facts, as `ankita_formats` gives them.
fn format_facts(format: &str) -> Value {
    let all = describe_formats();
    all["formats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == format)
        .unwrap()
        .clone()
}

/// Whether a message is plain (a role and a non-empty string content, or Gemini text parts,
/// nothing else): the rule of the bindings' light pass, a shade stricter (no `name`).
pub fn plain(message: &Value) -> Option<&str> {
    let object = message.as_object()?;
    let role = object.get("role")?.as_str()?;
    if object.len() != 2 {
        return None;
    }
    match (object.get("content"), object.get("parts")) {
        (Some(Value::String(s)), None) if !s.is_empty() => Some(role),
        (None, Some(Value::Array(parts)))
            if !parts.is_empty()
                && parts.iter().all(|p| {
                    p.as_object().is_some_and(|o| {
                        o.len() == 1
                            && o.get("text")
                                .and_then(Value::as_str)
                                .is_some_and(|t| !t.is_empty())
                    })
                }) =>
        {
            Some(role)
        }
        _ => None,
    }
}

pub fn is_turn(role: &str) -> bool {
    role != "assistant" && role != "model"
}

/// Of the messages `lo..hi` before `from` (`lo` given), those the plain rule gives: every
/// message not plain, the first and last of each run of plain ones (and one not the model's
/// when both are), pushed onto `given`.
pub fn plain_runs(messages: &[Value], lo: usize, hi: usize, given: &mut Vec<usize>) {
    let mut i = lo;
    while i < hi {
        let Some(role) = plain(&messages[i]) else {
            given.push(i);
            i += 1;
            continue;
        };
        let mut end = i + 1;
        let mut last = role;
        let mut turn = is_turn(role).then_some(i);
        while end < hi {
            let Some(next) = plain(&messages[end]) else {
                break;
            };
            if turn.is_none() && is_turn(next) {
                turn = Some(end);
            }
            last = next;
            end += 1;
        }
        given.push(i);
        if end - i > 2 && !is_turn(role) && !is_turn(last) {
            match turn {
                Some(t) => given.push(t),
                None => given.extend(i + 1..end - 1),
            }
        }
        if end - i > 1 {
            given.push(end - 1);
        }
        i = end;
    }
}

/// The given messages before `from` by the plain rule: message 0, then [`plain_runs`].
pub fn older(messages: &[Value], from: usize) -> Vec<usize> {
    let mut given = vec![0];
    plain_runs(messages, 1, from, &mut given);
    given
}

/// A format's `turns` facts: the fields of a message of user parts, of a call, of a reply.
pub struct Turns {
    user_parts: Option<Value>,
    call: Value,
    reply: Value,
}

pub fn turns(format: &str) -> Turns {
    let facts = format_facts(format);
    let t = &facts["turns"];
    Turns {
        user_parts: Some(t["user_parts"].clone()).filter(|v| !v.is_null()),
        call: t["call"].clone(),
        reply: t["reply"].clone(),
    }
}

/// An item found: the kind of part (`text`, `call`, `reply`, or `""` for the message itself)
/// with its id and name when it has them.
#[derive(Debug, Default, Clone)]
struct Item {
    kind: String,
    id: Option<String>,
    name: Option<String>,
}

/// Whether `value` fits the fields `fields` (JSON, as `ankita_formats` writes them), noting
/// the id and name met into `item` and the parts of a parts list into `parts`.
fn fits(fields: &Value, value: &Value, item: &mut Item, parts: &mut Vec<Item>) -> bool {
    let Some(object) = value.as_object() else {
        return false;
    };
    let fields = fields.as_array().unwrap();
    if object
        .keys()
        .any(|k| !fields.iter().any(|f| f["key"] == k.as_str()))
    {
        return false;
    }
    for f in fields {
        let Some(v) = object.get(f["key"].as_str().unwrap()) else {
            if f["optional"] == true {
                continue;
            }
            return false;
        };
        let want = &f["value"];
        let text = |v: &Value| v.as_str().is_some_and(|s| !s.is_empty());
        let ok = match want.as_str() {
            Some("text") => text(v),
            Some("string") => v.is_string(),
            Some("string_or_null") => v.is_string() || v.is_null(),
            Some("id") => {
                item.id = v.as_str().map(str::to_owned);
                text(v)
            }
            Some("name") => {
                item.name = v.as_str().map(str::to_owned);
                text(v)
            }
            Some("object") => v.is_object(),
            Some("json") => true,
            Some(other) => panic!("unknown value {other}"),
            None if want.get("is").is_some() => v == &want["is"],
            None if want.get("fields").is_some() => fits(&want["fields"], v, item, parts),
            None => {
                let shapes = want["parts"].as_array().unwrap();
                let Some(list) = v.as_array().filter(|l| !l.is_empty()) else {
                    return false;
                };
                list.iter().all(|p| {
                    shapes.iter().any(|shape| {
                        let mut found = Item {
                            kind: shape["kind"].as_str().unwrap().to_owned(),
                            ..Item::default()
                        };
                        let fit = fits(&shape["fields"], p, &mut found, &mut Vec::new());
                        if fit {
                            parts.push(found);
                        }
                        fit
                    })
                })
            }
        };
        if !ok {
            return false;
        }
    }
    true
}

/// The calls or replies of a message of `fields` (`kind`: `call` or `reply`), as (id, name);
/// whether the message is one itself; `None` when it does not fit.
fn items(fields: &Value, kind: &str, message: &Value) -> Option<(Vec<Item>, bool)> {
    let mut item = Item::default();
    let mut parts = Vec::new();
    if !fits(fields, message, &mut item, &mut parts) {
        return None;
    }
    if item.id.is_some() {
        return Some((vec![item], true));
    }
    let found: Vec<Item> = parts.into_iter().filter(|p| p.kind == kind).collect();
    (!found.is_empty()).then_some((found, false))
}

impl Turns {
    /// Whether message `m` starts a turn: a plain message of the user's, or one of user parts.
    fn starts(&self, m: &Value) -> bool {
        plain(m) == Some("user")
            || self
                .user_parts
                .as_ref()
                .is_some_and(|f| fits(f, m, &mut Item::default(), &mut Vec::new()))
    }

    /// The end of the whole exchange starting at message `i` (before `hi`), if one does.
    fn exchange(&self, messages: &[Value], i: usize, hi: usize) -> Option<usize> {
        let (mut calls, alone) = items(&self.call, "call", &messages[i])?;
        let mut j = i + 1;
        while alone && j < hi {
            match items(&self.call, "call", &messages[j]) {
                Some((more, _)) => calls.extend(more),
                None => break,
            }
            j += 1;
        }
        let mut ids: Vec<&str> = calls.iter().map(|c| c.id.as_deref().unwrap()).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() != calls.len() {
            return None;
        }
        let mut answered = 0;
        while answered < calls.len() && j < hi {
            let (replies, _) = items(&self.reply, "reply", &messages[j])?;
            for r in replies {
                let call = calls.get(answered)?;
                if r.id != call.id
                    || r.name
                        .as_ref()
                        .is_some_and(|n| Some(n) != call.name.as_ref())
                {
                    return None;
                }
                answered += 1;
            }
            j += 1;
        }
        (answered == calls.len()).then_some(j)
    }

    /// The runs of whole turns a binding may leave out of `1..from`: each from a message that
    /// starts a turn to right before the last one of its stretch (a stretch: messages that are
    /// plain, of user parts, or whole exchanges), that one given, and never `from`.
    pub fn gaps(&self, messages: &[Value], from: usize) -> Vec<std::ops::Range<usize>> {
        let mut gaps = Vec::new();
        let (mut start, mut last) = (None, None);
        let mut close = |start: &mut Option<usize>, last: &mut Option<usize>| {
            if let (Some(s), Some(q)) = (start.take(), last.take()) {
                if q > s {
                    gaps.push(s..q);
                }
            }
        };
        let mut i = 1;
        while i < from {
            let m = &messages[i];
            if self.starts(m) {
                start.get_or_insert(i);
                last = Some(i);
                i += 1;
            } else if plain(m).is_some() {
                i += 1;
            } else if let Some(end) = self.exchange(messages, i, from) {
                i = end;
            } else {
                close(&mut start, &mut last);
                i += 1;
            }
        }
        close(&mut start, &mut last);
        gaps
    }
}

/// The given messages before `from` (ascending) and the kind of each gap (`"plain"`,
/// `"turns"`), with runs of whole turns left out first and the plain rule between them.
pub fn older_with_turns(
    messages: &[Value],
    from: usize,
    turns: &Turns,
) -> (Vec<usize>, Vec<&'static str>) {
    let runs = turns.gaps(messages, from);
    let mut given = vec![0];
    let mut lo = 1;
    for gap in &runs {
        plain_runs(messages, lo, gap.start, &mut given);
        lo = gap.end;
    }
    plain_runs(messages, lo, from, &mut given);
    given.sort_unstable();
    given.dedup();
    let mut kinds = Vec::new();
    for w in given
        .windows(2)
        .chain([[given[given.len() - 1], from].as_slice()])
    {
        if w[1] > w[0] + 1 {
            let turn = runs.iter().any(|g| g.start == w[0] + 1);
            kinds.push(if turn { "turns" } else { "plain" });
        }
    }
    (given, kinds)
}

/// A format's stand-in facts, as `ankita_formats` gives them.
pub struct Facts {
    pub longer_than: usize,
    pub replacement: String,
    pub text_keys: Vec<String>,
    pub data_keys: Vec<String>,
}

pub fn facts(format: &str) -> Facts {
    let facts = format_facts(format);
    let s = &facts["stand_in"];
    let list = |key: &str| -> Vec<String> {
        s[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap().to_owned())
            .collect()
    };
    Facts {
        longer_than: s["longer_than"].as_u64().unwrap() as usize,
        replacement: s["replacement"].as_str().unwrap().to_owned(),
        text_keys: list("text_keys"),
        data_keys: list("data_keys"),
    }
}

/// Whether [`stand_in`] leaves a long string as it is (a binding may leave any): the caller's
/// generator decides.
pub trait Pick {
    fn keep(&mut self) -> bool;
}

/// `value` with the long strings the facts allow replaced (some left, as `rng` picks); counts the replacements in `made`. With `noted` (a trim that nothing limits),
/// the strings equal to the replacement are replaced too, and each replaced string's UTF-8
/// and JSON lengths noted, in order.
pub fn stand_in(
    value: &Value,
    facts: &Facts,
    (data, text): (bool, bool),
    rng: &mut impl Pick,
    made: &mut usize,
    noted: &mut Option<Vec<u64>>,
) -> Value {
    match value {
        Value::String(s) if (data || text) && *s == facts.replacement && noted.is_some() => {
            let list = noted.as_mut().unwrap();
            list.extend([
                s.len() as u64,
                Value::String(s.clone()).to_string().len() as u64,
            ]);
            value.clone()
        }
        Value::String(s) if (data || text) && s.chars().count() > facts.longer_than => {
            if rng.keep() {
                value.clone()
            } else {
                *made += 1;
                if let Some(list) = noted {
                    list.extend([s.len() as u64, value.to_string().len() as u64]);
                }
                Value::String(facts.replacement.clone())
            }
        }
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, v) in map {
                let data = data || facts.data_keys.iter().any(|k| k == key);
                let text = facts.text_keys.iter().any(|k| k == key);
                out.insert(
                    key.clone(),
                    stand_in(v, facts, (data, text), rng, made, noted),
                );
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| stand_in(v, facts, (data, false), rng, made, noted))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The runs of the given messages `given` (ascending), each message as `send` writes it, as
/// `window.earlier` takes them.
pub fn runs(given: &[usize], mut send: impl FnMut(usize) -> Value) -> Vec<Value> {
    let mut runs: Vec<(usize, Vec<Value>)> = Vec::new();
    for &i in given {
        let sent = send(i);
        match runs.last_mut() {
            Some((start, run)) if *start + run.len() == i => run.push(sent),
            _ => runs.push((i, vec![sent])),
        }
    }
    runs.into_iter().map(|(s, r)| json!([s, r])).collect()
}

/// The shapes of `messages` as a binding reads them for `ankita_tail_select` (its words: see
/// `ankita::tail::select::Shapes::from_words`), from this file's readers: a plain message and its
/// role's number (and its content's UTF-8 length), the user's text parts, calls and replies
/// with their ids and names numbered, anything else.
pub fn shape_words(format: &str, messages: &[Value]) -> Vec<u32> {
    let facts = format_facts(format);
    let plain_facts = &facts["plain"];
    let mut roles = vec![plain_facts["user"].clone(), plain_facts["model"].clone()];
    roles.extend(
        plain_facts["other_roles"]
            .as_array()
            .unwrap()
            .iter()
            .cloned(),
    );
    let turns = turns(format);
    let mut numbers: std::collections::HashMap<String, u32> = Default::default();
    let mut number = |text: &Option<String>| match text {
        None => 0,
        Some(t) => {
            let next = numbers.len() as u32 + 1;
            *numbers.entry(t.clone()).or_insert(next)
        }
    };
    let mut words = Vec::new();
    for m in messages {
        let role = plain(m).and_then(|r| roles.iter().position(|x| x == r));
        if let Some(role) = role {
            let len = m["content"].as_str().map_or(u32::MAX, |s| s.len() as u32);
            words.extend([1, role as u32, len]);
        } else if turns
            .user_parts
            .as_ref()
            .is_some_and(|f| fits(f, m, &mut Item::default(), &mut Vec::new()))
        {
            words.push(2);
        } else if let Some((calls, alone)) = items(&turns.call, "call", m) {
            words.extend([3, u32::from(alone), calls.len() as u32]);
            for c in &calls {
                words.extend([number(&c.id), number(&c.name)]);
            }
        } else if let Some((replies, _)) = items(&turns.reply, "reply", m) {
            words.extend([4, replies.len() as u32]);
            for r in &replies {
                words.extend([number(&r.id), number(&r.name)]);
            }
        } else {
            words.push(0);
        }
    }
    words
}

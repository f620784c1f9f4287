//! `trim --summary`: what was kept, dropped and shrunk, and every image with its price, for
//! people. Built from the response's report and the core's reading of the request's images.

use ankita::format::Format;
use ankita::shed::describe_image;
use serde_json::Value;

/// Lists of indices up to this long are printed in full; longer ones collapse runs into ranges
/// (`1–262`).
const FULL_LIST_MAX: usize = 20;

/// One image of the request: where it is, its price and its encoded length.
pub use ankita::api::RequestImage as Image;

/// Every image of a request that the core accepted, priced as the core prices it (none when it
/// refuses the request).
pub fn image_inventory(request: &str) -> Vec<Image> {
    ankita::api::Request::parse(request)
        .and_then(|r| r.images())
        .unwrap_or_default()
}

/// Indices as text: in full when short, with runs of three or more as ranges when long.
pub fn index_list(indices: &[Value]) -> String {
    let shown: Vec<String> = indices.iter().map(Value::to_string).collect();
    if indices.len() <= FULL_LIST_MAX {
        return shown.join(", ");
    }
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let mut j = i;
        while let (Some(a), Some(b)) = (
            indices[j].as_u64(),
            indices.get(j + 1).and_then(Value::as_u64),
        ) {
            if b != a + 1 {
                break;
            }
            j += 1;
        }
        if j >= i + 2 {
            out.push(format!("{}–{}", shown[i], shown[j]));
        } else {
            out.extend(shown[i..=j].iter().cloned());
        }
        i = j + 1;
    }
    out.join(", ")
}

/// The summary lines for a success response's report.
pub fn render(report: &Value, images: &[Image]) -> String {
    let list = |key: &str| -> &[Value] { report[key].as_array().map_or(&[], Vec::as_slice) };
    // The key of a message's parts in the report's format (`parts` in Gemini).
    let key = report["format"]
        .as_str()
        .and_then(Format::from_name)
        .map_or("content", |f| f.traits().content_key);
    let part_suffix = |part: &Value| match part.as_u64() {
        Some(p) => format!(".{key}[{p}]"),
        None => String::new(),
    };
    let mut out = String::new();
    let in_tokens = report["unit"] == "tokens";
    // In tokens: "16000 o200k_base tokens"; an estimate says so.
    let tokens = if in_tokens {
        let estimate = if report["exact"] == true { "" } else { "~" };
        format!(
            "{estimate}{{}} {} tokens",
            report["tokenizer"].as_str().unwrap_or("")
        )
    } else {
        String::new()
    };
    let in_unit = |v: &Value| tokens.replace("{}", &v.to_string());
    let (budget, cost) = if in_tokens {
        let budget = match report["budget_tokens"].as_u64() {
            Some(_) => in_unit(&report["budget_tokens"]),
            None => "none (max_messages only)".into(),
        };
        (budget, in_unit(&report["cost_tokens"]))
    } else {
        let budget = match report["budget_bytes"].as_u64() {
            Some(b) => format!("{b} bytes (~{} tokens)", report["budget_tokens"]),
            None => "none (max_messages only)".into(),
        };
        let cost = format!(
            "{} bytes (~{} tokens)",
            report["cost_bytes"], report["cost_tokens"]
        );
        (budget, cost)
    };
    let unit = if in_tokens { "tokens" } else { "bytes" };
    // Which limit bound the answer (`report.limited_by`).
    let limit = match report["limited_by"].as_str() {
        Some("max_messages") => " (limited by max_messages)",
        Some("budget") => " (limited by the budget)",
        _ => "",
    };
    out += &format!(
        "ankita: kept {} of {} messages{limit}; cost {cost}; budget {budget}\n",
        report["output_messages"], report["input_messages"],
    );
    let dropped = list("dropped_messages");
    if !dropped.is_empty() {
        out += &format!(
            "  dropped {} messages: {}\n",
            dropped.len(),
            index_list(dropped)
        );
    }
    let refilled = list("refilled");
    if !refilled.is_empty() {
        out += &format!(
            "  brought back (refill, fill) {} messages: {}\n",
            refilled.len(),
            index_list(refilled)
        );
    }
    for w in list("warnings") {
        out += &format!(
            "  warning {}: {}\n",
            w["path"].as_str().unwrap_or(""),
            w["message"].as_str().unwrap_or("")
        );
    }
    for t in list("truncated") {
        out += &format!(
            "  shrunk messages[{}]{}: {} → {} {unit}\n",
            t["index"],
            part_suffix(&t["part"]),
            t[format!("from_{unit}").as_str()],
            t[format!("to_{unit}").as_str()]
        );
    }
    for a in list("dropped_attachments") {
        out += &format!(
            "  dropped attachment body messages[{}].{key}[{}]: {} {unit}\n",
            a["index"], a["part"], a[unit]
        );
    }
    for f in list("dropped_files") {
        let (count, what) = match f["pages"].as_u64() {
            Some(n) => (n, "pages"),
            None => (f["seconds"].as_u64().unwrap_or(0), "s"),
        };
        let name = f["name"]
            .as_str()
            .map_or(String::new(), |n| format!("{n:?} "));
        out += &format!(
            "  dropped {} messages[{}].{key}[{}]: {name}{} {count} {what}, ~{} tokens\n",
            f["kind"].as_str().unwrap_or("file"),
            f["index"],
            f["part"],
            f["format"].as_str().unwrap_or("unreadable"),
            f["tokens"]
        );
    }
    for r in list("repaired") {
        out += &format!(
            "  repaired messages[{}]: {} ({})\n",
            r["index"],
            r["action"].as_str().unwrap_or(""),
            r["reason"].as_str().unwrap_or("")
        );
    }
    let dropped_images = list("dropped_images");
    let budget_bytes = report["budget_bytes"].as_u64();
    for image in images {
        let (i, p) = (image.index, image.part);
        let was_dropped = dropped_images
            .iter()
            .any(|d| d["index"] == i && d["part"] == p)
            || dropped.iter().any(|d| *d == i);
        let as_text = match budget_bytes {
            Some(b) if image.encoded_bytes as u64 > b && !was_dropped => {
                "; measured as text it alone would exceed the budget"
            }
            _ => "",
        };
        let price = if in_tokens {
            describe_image(&image.price)
        } else {
            format!(
                "{} = {} budget bytes",
                describe_image(&image.price),
                image.price.budget_bytes
            )
        };
        out += &format!(
            "  image messages[{i}]{}: {price} (encoded {} bytes) — {}{as_text}\n",
            image.at,
            image.encoded_bytes,
            if was_dropped { "dropped" } else { "kept" }
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn list(v: Value) -> String {
        index_list(v.as_array().unwrap())
    }

    #[test]
    fn short_lists_in_full_long_ones_as_ranges() {
        assert_eq!(list(json!([1, 2, 3])), "1, 2, 3");
        let long: Vec<u64> = (1..=262).collect();
        assert_eq!(list(json!(long)), "1–262");
        let mut gaps: Vec<u64> = (0..30).collect();
        gaps.extend([40, 41, 50]);
        assert_eq!(list(json!(gaps)), "0–29, 40, 41, 50");
    }
}

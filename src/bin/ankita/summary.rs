//! `trim --summary`: what was kept, dropped and shrunk, and every image with its price, for
//! people. Built from the response's report and the request's images.

use ankita::format::openai::image_url_of_value;
use ankita::pricing::{price_image_url_with_size, ImagePrice};
use ankita::shed::describe_image;
use serde_json::{Map, Value};

/// Lists of indices up to this long are printed in full; longer ones collapse runs into ranges
/// (`1–262`).
const FULL_LIST_MAX: usize = 20;

/// One image of the request: where it is, its price and its encoded length.
pub struct Image {
    pub index: usize,
    pub part: usize,
    /// Where it is in its message: `.content[1]`, `.output[0]`, `.output` (a screenshot).
    pub at: String,
    pub price: ImagePrice,
    pub encoded_bytes: usize,
}

/// Every image of a request that the core accepted, priced as the core prices it.
pub fn image_inventory(request: &Map<String, Value>) -> Vec<Image> {
    // The core's own reading of the options: the format's default pricing included.
    let options = ankita::TrimOptions::from_map(request).unwrap_or_default();
    let (profile, bytes_per_token) = (options.image_profile, options.bytes_per_token);
    let sizes = request.get("image_sizes").and_then(Value::as_object);
    let price = |url: &str, detail: Option<&str>| {
        let size = sizes.and_then(|s| s.get(url)).and_then(size_of);
        price_image_url_with_size(url, size, profile, detail, bytes_per_token)
    };
    let mut images = Vec::new();
    let messages = request.get("messages").and_then(Value::as_array);
    if options.format.name() == "gemini" {
        let pricing = ankita::format::Pricing {
            profile,
            bytes_per_token,
            image_sizes: &options.image_sizes,
            file_sizes: &options.file_sizes,
        };
        for (index, content) in messages.into_iter().flatten().enumerate() {
            let parts = content.get("parts").and_then(Value::as_array);
            for (part, value) in parts.into_iter().flatten().enumerate() {
                let response = pick(value, "functionResponse", "function_response");
                let inner = response
                    .and_then(|r| r.get("parts"))
                    .and_then(Value::as_array);
                for media in std::iter::once(value).chain(inner.into_iter().flatten()) {
                    if let Some((price, encoded_bytes)) = gemini_image(media, &pricing) {
                        images.push(Image {
                            index,
                            part,
                            at: format!(".parts[{part}]"),
                            price,
                            encoded_bytes,
                        });
                    }
                }
            }
        }
        return images;
    }
    for (index, message) in messages.into_iter().flatten().enumerate() {
        // Responses items: a computer_call_output's screenshot (listed as part 0).
        if let Some(url) = message["output"]["image_url"].as_str() {
            let detail = message["output"]["detail"].as_str();
            images.push(Image {
                index,
                part: 0,
                at: ".output".to_owned(),
                price: price(url, detail),
                encoded_bytes: url.len(),
            });
        }
        // Responses output items carry their parts in `output`.
        let (key, parts) = match message.get("content").and_then(Value::as_array) {
            Some(parts) => ("content", Some(parts)),
            None => ("output", message.get("output").and_then(Value::as_array)),
        };
        for (part, block) in parts.into_iter().flatten().enumerate() {
            let mut push = |url: &str, detail, encoded_bytes| {
                images.push(Image {
                    index,
                    part,
                    at: format!(".{key}[{part}]"),
                    price: price(url, detail),
                    encoded_bytes,
                })
            };
            match block.get("type").and_then(Value::as_str) {
                Some("image_url") => {
                    if let Some((url, detail)) = block.as_object().and_then(image_url_of_value) {
                        push(url, detail, url.len());
                    }
                }
                // Responses image parts: a data URL or remote URL (a file id is not listed).
                Some("input_image") => {
                    if let Some(url) = block["image_url"].as_str() {
                        push(url, block["detail"].as_str(), url.len());
                    }
                }
                // Anthropic image blocks, also inside a tool result (listed under its block).
                Some("image") => {
                    if let Some((url, bytes)) = anthropic_image_url(block) {
                        push(&url, None, bytes);
                    }
                }
                Some("tool_result") => {
                    for inner in block["content"].as_array().into_iter().flatten() {
                        if let Some((url, bytes)) = anthropic_image_url(inner) {
                            push(&url, None, bytes);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    images
}

/// A field given in either of Gemini's spellings.
fn pick<'v>(value: &'v Value, camel: &str, snake: &str) -> Option<&'v Value> {
    value.get(camel).or_else(|| value.get(snake))
}

/// A Gemini image part (`inlineData` with an image type, `fileData` with an image type or none)
/// priced as the core prices it, and its encoded length.
fn gemini_image(
    part: &Value,
    pricing: &ankita::format::Pricing<'_>,
) -> Option<(ImagePrice, usize)> {
    let is_image = |mime: Option<&str>| {
        mime.is_none_or(|m| m.get(..6).is_some_and(|t| t.eq_ignore_ascii_case("image/")))
    };
    let kind = if let Some(blob) = pick(part, "inlineData", "inline_data") {
        let mime = pick(blob, "mimeType", "mime_type")?.as_str()?;
        let data = blob.get("data")?.as_str()?;
        if !is_image(Some(mime)) {
            return None;
        }
        let url_len = "data:".len() + mime.len() + ";base64,".len() + data.len();
        (pricing.base64_with(data, url_len, None), data.len())
    } else {
        let file = pick(part, "fileData", "file_data")?;
        if !is_image(pick(file, "mimeType", "mime_type").and_then(Value::as_str)) {
            return None;
        }
        let uri = pick(file, "fileUri", "file_uri")?.as_str()?;
        (pricing.remote(uri, None), uri.len())
    };
    ankita::format::image_price(&kind.0).map(|price| (price, kind.1))
}

/// `[w, h]` or `{"width": w, "height": h}`.
fn size_of(size: &Value) -> Option<(u32, u32)> {
    let side = |v: Option<&Value>| v?.as_u64().and_then(|n| u32::try_from(n).ok());
    match size {
        Value::Array(wh) if wh.len() == 2 => Some((side(wh.first())?, side(wh.get(1))?)),
        Value::Object(o) => Some((side(o.get("width"))?, side(o.get("height"))?)),
        _ => None,
    }
}

/// An Anthropic image block as a URL to price, and its encoded length.
fn anthropic_image_url(block: &Value) -> Option<(String, usize)> {
    if block["type"] != "image" {
        return None;
    }
    let source = &block["source"];
    match (source["data"].as_str(), source["url"].as_str()) {
        (Some(data), _) => Some((format!("data:image/*;base64,{data}"), data.len())),
        (None, Some(url)) => Some((url.to_owned(), url.len())),
        _ => None,
    }
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
    // Gemini contents hold `parts`, the other formats `content`.
    let key = if report["format"] == "gemini" {
        "parts"
    } else {
        "content"
    };
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

//! The images of a request, priced as a trim prices them, each with where it is: what a front
//! end lists (the CLI's `trim --summary`) without walking any format of its own.

use super::Request;
use crate::error::Error;
use crate::format::{parts_key, unit_path, Input, Logical, Pricing};
use crate::model::{Session, Unit, UnitKind};
use crate::pricing::MediaPrice;
use crate::raw::{get, Doc, Raw};

/// One image of a request's messages.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestImage {
    /// The caller's index of its message.
    pub index: usize,
    /// Its part (block) of the message: the report's `part` of an image dropped there.
    pub part: usize,
    /// Its path inside its message: `.content[1]`, `.content[2].content[0]` (inside a tool
    /// result), `.parts[0]`.
    pub at: String,
    /// Its price in the request's byte budget (`bytes_per_token`), as a trim in bytes prices it.
    pub price: MediaPrice,
    /// The length of its part as the caller wrote it (JSON text): what it would cost measured
    /// as text.
    pub encoded_bytes: usize,
}

impl Request<'_> {
    /// Every image of the request's messages, in order (documents and audio files are not
    /// images; nor is the format's outside system prompt a message). Fails as a trim of the
    /// request fails on its messages' shape.
    ///
    /// ```
    /// let text = r#"{"format": "anthropic", "messages": [{"role": "user", "content": [
    ///     {"type": "text", "text": "What is this?"},
    ///     {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}}
    /// ]}]}"#;
    /// let images = ankita::api::Request::parse(text).unwrap().images().unwrap();
    /// assert_eq!((images[0].index, images[0].part), (0, 1));
    /// assert_eq!(images[0].at, ".content[1]");
    /// assert!(images[0].price.tokens.is_some());
    /// ```
    pub fn images(&self) -> Result<Vec<RequestImage>, Error> {
        let options = &self.options;
        let pricing = Pricing {
            profile: options.image_profile,
            bytes_per_token: options.bytes_per_token,
            image_sizes: &options.image_sizes,
            file_sizes: &options.file_sizes,
        };
        let input = Input {
            doc: &self.doc,
            messages: self.messages,
            start: crate::format::split::Start::Whole(None),
            pricing: &pricing,
        };
        let format = options.format;
        let session = format.adapter().split(&input)?;
        let mut images = Vec::new();
        for (m, msg) in session.messages.iter().enumerate() {
            let Some(index) = msg.physical.map(|p| p as usize) else {
                continue;
            };
            for unit in &session.units[msg.unit_range()] {
                let (UnitKind::Media(price), Some(part)) = (&unit.kind, unit.part) else {
                    continue;
                };
                if price.file.is_some() {
                    continue;
                }
                let path = unit_path(format, &session, msg, unit);
                let at = path[format!("messages[{index}]").len()..].to_owned();
                let encoded_bytes =
                    part_of(&self.doc, format, &session, m, unit).map_or(0, str::len);
                images.push(RequestImage {
                    index,
                    part: part as usize,
                    at,
                    price: (**price).clone(),
                    encoded_bytes,
                });
            }
        }
        Ok(images)
    }
}

/// The caller's part that `unit` of logical message `m` stands for: its part of the message,
/// or the item inside a tool reply's part (under the keys [`crate::format::Adapter::reply_items`]
/// names).
fn part_of<'a>(
    doc: &Doc<'a>,
    format: crate::format::Format,
    session: &Session<'a>,
    m: usize,
    unit: &Unit<'_>,
) -> Option<Raw<'a>> {
    let at = Logical::of(session, m);
    let parts = get(&doc.fields(at.input?)?, parts_key(format, at.msg))?;
    let part = *doc.items(parts)?.get(unit.part? as usize)?;
    let Some(sub) = unit.sub else {
        return Some(part);
    };
    let mut inner = part;
    for key in format
        .adapter()
        .reply_items(at)?
        .split('.')
        .filter(|k| !k.is_empty())
    {
        inner = get(&doc.fields(inner)?, key)?;
    }
    doc.items(inner)?.get(sub as usize).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1×1 PNG's header as base64.
    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

    #[test]
    fn images_inside_tool_replies_are_found_and_files_are_not_images() {
        let part = format!(r#"{{"inlineData":{{"mimeType":"image/png","data":"{PNG}"}}}}"#);
        let text = format!(
            r#"{{"format":"gemini","messages":[
            {{"role":"user","parts":[{{"text":"look"}},{{"inlineData":{{"mimeType":"application/pdf","data":"JVBERi0xLjcK"}}}}]}},
            {{"role":"model","parts":[{{"functionCall":{{"name":"shot","args":{{}}}}}}]}},
            {{"role":"user","parts":[{{"functionResponse":{{"name":"shot","response":{{}},"parts":[{{"text":"x"}},{part}]}}}}]}}]}}"#
        );
        let images = Request::parse(&text).unwrap().images().unwrap();
        assert_eq!(images.len(), 1, "{images:?}");
        let image = &images[0];
        assert_eq!((image.index, image.part), (2, 0));
        assert_eq!(image.at, ".parts[0].functionResponse.parts[1]");
        assert_eq!(image.encoded_bytes, part.len());
        assert_eq!(image.price.probe.map(|i| (i.width, i.height)), Ok((1, 1)));
    }

    #[test]
    fn a_request_the_trim_refuses_is_refused() {
        let text = r#"{"messages":[{"role":"user","content":[{"type":"image_url"}]}]}"#;
        assert!(Request::parse(text).unwrap().images().is_err());
    }
}

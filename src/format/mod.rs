//! Wire formats. Each adapter splits the caller's messages into the neutral model's logical
//! messages ([`crate::model`]) and rebuilds the answer from the plan, reusing the caller's
//! bytes for everything that did not change. The pipeline ([`crate::trim`]) never sees a wire
//! format.
//!
//! Adding a format is one file implementing [`Adapter`], one line in [`FORMATS`], and its
//! shared cases.

pub mod ai_sdk;
pub mod anthropic;
pub(crate) mod anthropic_cache;
mod breakpoints;
pub use breakpoints::Breakpoints;
pub(crate) mod calls;
mod costs;
pub mod facts;
pub mod gemini;
pub(crate) mod inputs;
pub(crate) mod merge;
pub mod openai;
pub(crate) mod openai_cache;
pub(crate) mod parts;
pub mod responses;
pub(crate) mod split;
mod turns;
pub(crate) mod units;
pub(crate) mod write;

use crate::error::Error;
use crate::model::{Session, UnitKind};
use crate::pricing::{
    price_file_data, price_file_remote, price_image_url_with_size, price_probe, Header,
    ImageProfile, MediaPrice,
};
use crate::probe::file::FileKind;
use crate::raw::{self, get, kind, str_len, Doc, Kind, Raw};
use crate::repair::Repaired;
use crate::tokens::Measure;
pub(crate) use costs::{blocks_meta_cost, fields_cost};
pub use facts::{describe_formats, Plain, StandIn, Turns};
pub use inputs::ToolInputs;
pub use split::Input;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

/// `{"role":"system"}`: the fields of a system prompt given outside the messages besides its
/// text, as the chat message it stands for.
pub(crate) const SYSTEM_META: u64 = 17;

/// Every format the library speaks; the first is the default.
pub static FORMATS: &[&dyn Adapter] = &[
    &openai::OpenAi,
    &anthropic::Anthropic,
    &responses::Responses,
    &gemini::Gemini,
    &ai_sdk::AiSdk,
];

/// A wire format: a handle on its adapter.
#[derive(Clone, Copy)]
pub struct Format(&'static dyn Adapter);

impl Format {
    /// The format named `name` (`"openai"`, `"anthropic"`, `"responses"`, `"gemini"`).
    pub fn from_name(name: &str) -> Option<Format> {
        FORMATS
            .iter()
            .find(|f| f.name() == name)
            .map(|f| Format(*f))
    }

    /// Every format's name, for error messages.
    pub fn names() -> String {
        FORMATS
            .iter()
            .map(|f| format!("\"{}\"", f.name()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub fn name(self) -> &'static str {
        self.0.name()
    }

    pub(crate) fn adapter(self) -> &'static dyn Adapter {
        self.0
    }

    /// Whether the format carries its system prompt outside the messages (request key
    /// `system`).
    pub fn takes_system(self) -> bool {
        self.0.takes_system()
    }

    /// The image pricing of this format's provider, unless the request says otherwise.
    pub fn default_profile(self) -> ImageProfile {
        self.0.default_profile()
    }

    /// Whether report lists of formats that merge adjacent turns (`merged`, `dropped_blocks`)
    /// belong to this format's report.
    pub fn merges_turns(self) -> bool {
        self.0.merges_turns()
    }
}

impl Default for Format {
    fn default() -> Self {
        Format(FORMATS[0])
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Format {}

impl fmt::Debug for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Format({})", self.name())
    }
}

/// The words a format's report uses for tool calls and their replies.
#[derive(Debug)]
pub struct Words {
    /// "tool call" / "tool_use".
    pub call: &'static str,
    /// "tool message" / "tool_result".
    pub reply: &'static str,
    pub orphan_removed: &'static str,
    pub incomplete_calls_removed: &'static str,
    pub incomplete_reply_removed: &'static str,
    /// Followed by ` messages[i]`: why the reply of an incomplete exchange went.
    pub reply_of_incomplete: &'static str,
}

/// What a format is, as data: its name, its report's words, the rules its provider sets, and
/// the part types only it uses.
#[derive(Debug)]
pub struct Traits {
    pub name: &'static str,
    /// What the format calls its system prompt given outside the messages, as the request key
    /// `system` (Anthropic's system, the Responses instructions); `None` where the system
    /// prompt is a message.
    pub outside_system: Option<&'static str>,
    /// Report lists of formats that merge adjacent turns (`merged`, `dropped_blocks`,
    /// `turn_start`) belong to this format's report.
    pub merges_turns: bool,
    /// The provider wants the history to start with the user's turn: the trim then brings back
    /// the user message that began the kept run's turn ([`crate::turn`]).
    pub user_turn_first: bool,
    /// See [`Adapter::trims_newest_alone`].
    pub trims_newest_alone: bool,
    /// The key of a message's content array, for the paths of reports (`parts` in Gemini).
    pub content_key: &'static str,
    /// The path from a tool reply's part to the items inside it (an Anthropic `tool_result`'s
    /// `.content`, a Gemini `functionResponse`'s `.functionResponse.parts`, an AI SDK
    /// `tool-result`'s `.output.value`), for the paths of reports; `None` where no part holds
    /// items of its own.
    pub reply_items: Option<&'static str>,
    pub words: Words,
    /// Where a tool call's arguments are, for `clear_tool_inputs`.
    pub tool_inputs: ToolInputs,
    /// A user message holding one text, as the JSON text before and after the text's JSON
    /// string (the placed summary, [`crate::stable`]).
    pub user_text: [&'static str; 2],
    /// Part types (a content part's `type`) no other format uses: a message of another format
    /// holding one was meant for this one (`meant_for`).
    pub part_types: &'static [&'static str],
    /// Keys of a part without a `type` that no other format uses (Gemini's `inlineData`, …).
    pub part_keys: &'static [&'static str],
    /// A changed message comes back rebuilt whole from what the core read ([`Out::New`]),
    /// never as an edit of the caller's message ([`Out::Edited`], OpenAI chat): a front end
    /// hands over whole messages (no header-only stand-ins of large images) and may hand over
    /// SDK objects as they are.
    pub rebuilds_messages: bool,
    /// What a plain message looks like ([`Plain`]), for the light pass of a front end that
    /// trims a long history from its newest messages.
    pub plain: Plain,
    /// What of an older message a front end may replace by a stand-in ([`StandIn`]), for the
    /// tail of a trim with a limit.
    pub stand_in: StandIn,
    /// What runs of whole turns look like ([`Turns`]), which the tail of a trim with a limit
    /// may leave out besides plain messages.
    pub turns: Turns,
    /// The prompt-cache breakpoints the format takes (`cache_breakpoint`).
    pub breakpoints: Breakpoints,
}

/// The format a part of type `part_type` was meant for, when it is not the format `here`'s:
/// the first of [`FORMATS`] that declares the type.
pub(crate) fn meant_for(part_type: &str, here: &str) -> Option<&'static str> {
    FORMATS
        .iter()
        .map(|f| f.traits())
        .find(|t| t.name != here && t.part_types.contains(&part_type))
        .map(|t| t.name)
}

/// The format a part without a `type` holding `fields` was meant for (by its keys).
pub(crate) fn meant_for_keys(
    fields: &[(Cow<'_, str>, Raw<'_>)],
    here: &str,
) -> Option<&'static str> {
    FORMATS
        .iter()
        .map(|f| f.traits())
        .find(|t| t.name != here && t.part_keys.iter().any(|k| get(fields, k).is_some()))
        .map(|t| t.name)
}

/// One format's adapter.
pub trait Adapter: Sync {
    fn traits(&self) -> &'static Traits;

    fn name(&self) -> &'static str {
        self.traits().name
    }

    fn takes_system(&self) -> bool {
        self.traits().outside_system.is_some()
    }

    fn merges_turns(&self) -> bool {
        self.traits().merges_turns
    }

    /// Whether the provider wants the history to start with the user's turn: the trim then
    /// brings back the user message that began the kept run's turn ([`crate::turn`]).
    fn user_turn_first(&self) -> bool {
        self.traits().user_turn_first
    }

    fn words(&self) -> &'static Words {
        &self.traits().words
    }

    /// The key of a message's content array, for the paths of reports (`parts` in Gemini).
    fn content_key(&self) -> &'static str {
        self.traits().content_key
    }

    /// The caller's key of logical message `msg`'s parts, for the paths of reports: the
    /// format's content key by default (a Responses output item's is `output`).
    fn parts_key(&self, _msg: &crate::model::Message<'_>) -> &'static str {
        self.content_key()
    }

    /// The path from tool reply `at`'s part to the items inside it, for the paths of reports,
    /// in the keys its caller wrote: the format's [`Traits::reply_items`] by default (Gemini
    /// reads the spelling of the caller's part).
    fn reply_items(&self, _at: Logical<'_, '_>) -> Option<&'static str> {
        self.traits().reply_items
    }

    /// How images are priced when the request names neither `image_profile` nor `model`: the
    /// format's provider's rule.
    fn default_profile(&self) -> ImageProfile {
        ImageProfile::default()
    }

    /// Splits the caller's messages (an array, and the format's outside system prompt, or the
    /// messages appended after a history: [`Input`]) into logical messages, numbered by their
    /// index in the caller's history. Shape errors name the JSON path of the offending value.
    fn split<'a>(&self, input: &Input<'a, '_>) -> Result<Session<'a>, Error>;

    /// Repair (DESIGN §5) and the cut into groups, on the logical messages. Formats whose
    /// tool calls are not answered by the messages right after them repair in their own way.
    fn repair<'a>(&self, session: &mut Session<'a>) -> Repaired<'a> {
        crate::repair::repair(session)
    }

    /// After planning: drops kept logical messages the provider would refuse (say, a first
    /// message that is not the user's). Returns the logical indices it dropped, ascending.
    fn settle(&self, _session: &Session<'_>, _kept: &mut [bool]) -> Vec<usize> {
        Vec::new()
    }

    /// In token mode: the cost of a logical message's fields other than its content units, with
    /// and without its tool calls, counted with `measure` (the message's framing is added by the
    /// caller). The default is the adapter's byte costs, an upper bound (no token is shorter
    /// than a byte); adapters count the fields' text instead.
    fn meta_cost(&self, _doc: &Doc<'_>, at: Logical<'_, '_>, _measure: &Measure) -> (u64, u64) {
        (at.msg.meta_bytes, at.msg.meta_without_calls)
    }

    /// Whether an incremental session may trim a long history from its newest messages only
    /// ([`crate::session`]): the logical messages come in the caller's order (the outside
    /// system prompt first), the generic repair repairs them (it never looks before a
    /// message), and what `settle` and `rebuild` do depends on the kept messages only.
    fn trims_newest_alone(&self) -> bool {
        self.traits().trims_newest_alone
    }

    /// For [`Adapter::trims_newest_alone`]: whether a caller's message, split into `logicals`,
    /// closes every exchange before it (no message after it changes how the messages before
    /// it are repaired). By default: it holds no tool reply.
    fn closes_exchanges(&self, logicals: &[crate::model::Message<'_>]) -> bool {
        !logicals.is_empty()
            && logicals
                .iter()
                .all(|m| m.role != Some(crate::model::Role::Tool))
    }

    /// The names of the tools logical message `m` calls (for `clear_tool_results`'s
    /// `exclude_tools`); none by default.
    fn call_names(&self, _doc: &Doc<'_>, _session: &Session<'_>, _m: usize) -> Vec<String> {
        Vec::new()
    }

    /// The returned messages, built from the plan: the caller's message where nothing changed;
    /// and the messages merged into others, for formats that merge adjacent turns.
    fn rebuild<'a>(&self, doc: &Doc<'a>, session: &Session<'a>, kept: &[bool]) -> Rebuilt;

    /// Whether the format has prompt-cache breakpoints (`cache_breakpoint`).
    fn cache_breakpoints(&self) -> bool {
        self.traits().breakpoints != Breakpoints::None
    }

    /// For `cache_breakpoint`: why the request's `model` takes none of the format's
    /// breakpoints (a warning; nothing is placed), or `None` (see `format::openai_cache`).
    fn breakpoint_refused(&self, model: Option<&str>) -> Option<String> {
        self.traits().breakpoints.refused(model)
    }

    /// Places a prompt-cache breakpoint in the answer's messages (JSON texts) and the outside
    /// system prompt's (see `format::anthropic_cache`, `format::openai_cache`).
    fn place_breakpoint(
        &self,
        system: Option<&str>,
        messages: &[std::borrow::Cow<'_, str>],
    ) -> Option<Placed> {
        self.traits().breakpoints.place(system, messages)
    }
}

/// A prompt-cache breakpoint placed in the answer: the returned message and its block, and
/// the message with it (`None` when the caller's message had it already).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub index: usize,
    pub part: usize,
    pub message: Option<String>,
}

/// A logical message of a session, with the caller's message it came from (none for an outside
/// system prompt).
#[derive(Clone, Copy)]
pub struct Logical<'s, 'a> {
    pub msg: &'s crate::model::Message<'a>,
    pub input: Option<Raw<'a>>,
}

impl<'s, 'a> Logical<'s, 'a> {
    /// Logical message `m` of `session`.
    pub fn of(session: &'s Session<'a>, m: usize) -> Self {
        let msg = &session.messages[m];
        let input = msg.physical.map(|p| session.inputs[p as usize]);
        Logical { msg, input }
    }
}

/// What an adapter rebuilt.
#[derive(Debug, Default)]
pub struct Rebuilt {
    pub messages: Vec<Out>,
    pub merged: Vec<Merge>,
}

impl From<Vec<Out>> for Rebuilt {
    /// Messages rebuilt without merging any.
    fn from(messages: Vec<Out>) -> Rebuilt {
        Rebuilt {
            messages,
            merged: Vec::new(),
        }
    }
}

/// Message `index` was merged into message `into` to keep roles alternating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merge {
    pub index: usize,
    pub into: usize,
}

/// One returned message.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    /// The caller's message `index`, unchanged.
    Same(usize),
    /// The caller's message with its content or tool calls changed (boxed: a plan holds an
    /// `Out` for every message it returns, most of them the caller's as they are).
    Edited(Box<Edit>),
    /// A message rebuilt from several of the caller's (as JSON text).
    New(Box<str>),
}

/// What changed in one of the caller's messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    pub index: usize,
    /// Repair removed the message's `tool_calls`.
    pub remove_tool_calls: bool,
    /// The new `content`, when it changed.
    pub content: Option<NewContent>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NewContent {
    /// String content.
    Text(String),
    /// Array content, built from the input parts.
    Parts(Vec<NewPart>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum NewPart {
    /// Input part `p`, unchanged.
    Keep(usize),
    /// Input part `from` with its `text` replaced; or, when `from` is `None`, a new
    /// `{"type": "text", "text": ...}` part (an image placeholder or a repair note).
    Text { from: Option<usize>, text: String },
}

/// For formats whose first message must be the user's (Anthropic, Gemini): drops every kept
/// logical message before the first user one (an assistant turn, an exchange with its
/// replies), the system prompt aside. Returns the indices it dropped, ascending.
pub(crate) fn drop_before_first_user(session: &Session<'_>, kept: &mut [bool]) -> Vec<usize> {
    let mut removed = Vec::new();
    for (m, msg) in session.messages.iter().enumerate() {
        if !kept[m] || msg.role == Some(crate::model::Role::System) {
            continue;
        }
        // A server compaction stands for the turns before it: the provider takes it first.
        if msg.role == Some(crate::model::Role::User) || msg.compaction {
            break;
        }
        kept[m] = false;
        removed.push(m);
    }
    removed
}

/// The runs of logical messages split from one physical message, in order: (the caller's
/// index, the logical messages' range). The outside system prompt is in none.
pub(crate) fn physical_runs<'s>(
    session: &'s Session<'_>,
) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> + 's {
    let n = session.messages.len();
    let mut m = 0;
    std::iter::from_fn(move || {
        while m < n {
            let start = m;
            m += 1;
            let Some(p) = session.messages[start].physical else {
                continue;
            };
            while m < n && session.messages[m].physical == Some(p) {
                m += 1;
            }
            return Some((p as usize, start..m));
        }
        None
    })
}

/// The caller's key of a logical message's parts ([`Adapter::parts_key`]).
pub(crate) fn parts_key(format: Format, msg: &crate::model::Message<'_>) -> &'static str {
    format.adapter().parts_key(msg)
}

/// The caller's JSON path of unit `unit` of logical message `msg` of `session`: its message
/// (or `system`), its part under the format's key, and the item inside a tool reply's part
/// under the keys the caller wrote for those ([`Adapter::reply_items`]).
pub(crate) fn unit_path(
    format: Format,
    session: &Session<'_>,
    msg: &crate::model::Message<'_>,
    unit: &crate::model::Unit<'_>,
) -> String {
    let mut path = match msg.physical {
        Some(i) => format!("messages[{i}]"),
        None => "system".to_owned(),
    };
    if let Some(p) = unit.part {
        path += &format!(".{}[{p}]", parts_key(format, msg));
        if let Some(sub) = unit.sub {
            let input = msg
                .physical
                .and_then(|i| session.inputs.get(i as usize).copied());
            if let Some(items) = format.adapter().reply_items(Logical { msg, input }) {
                path += &format!("{items}[{sub}]");
            }
        }
    }
    path
}

/// The JSON path `messages[i]` followed by `rest`.
pub(crate) fn message_path(i: usize, rest: &str) -> String {
    format!("messages[{i}]{rest}")
}

/// A message's `role` as written: a string, or an error naming its path.
pub(crate) fn role_token<'a>(
    fields: &[(Cow<'a, str>, Raw<'a>)],
    i: usize,
) -> Result<Raw<'a>, Error> {
    match get(fields, "role") {
        Some(r) if kind(r) == Kind::String => Ok(r),
        Some(_) => Err(Error::invalid_request(
            "role must be a string",
            message_path(i, ".role"),
        )),
        None => Err(Error::invalid_request(
            "role is missing",
            message_path(i, ".role"),
        )),
    }
}

/// A message's `tool_call_id` (a string or absent) and whether it carries a non-empty
/// `refusal`.
pub(crate) fn reply_fields<'a>(
    fields: &[(Cow<'a, str>, Raw<'a>)],
    i: usize,
) -> Result<(Option<Cow<'a, str>>, bool), Error> {
    let tool_call_id = raw::optional_string(get(fields, "tool_call_id")).map_err(|()| {
        Error::invalid_request(
            "tool_call_id must be a string",
            message_path(i, ".tool_call_id"),
        )
    })?;
    let has_refusal =
        get(fields, "refusal").is_some_and(|r| kind(r) == Kind::String && str_len(r) > 0);
    Ok((tool_call_id, has_refusal))
}

/// How images are priced while splitting.
#[derive(Clone, Copy)]
pub struct Pricing<'a> {
    pub profile: ImageProfile,
    pub bytes_per_token: u64,
    /// Caller-given sizes of remote images, by URL.
    pub image_sizes: &'a HashMap<String, (u32, u32)>,
    /// Caller-given pages or seconds of remote files, by URL or file id.
    pub file_sizes: &'a HashMap<String, u64>,
}

impl Pricing<'_> {
    /// An image given by URL (a data URL, or a remote URL priced by its known or typical size).
    pub fn url(&self, url: &str, detail: Option<&str>) -> UnitKind {
        let size = self.image_sizes.get(url).copied();
        UnitKind::Media(Box::new(price_image_url_with_size(
            url,
            size,
            self.profile,
            detail,
            self.bytes_per_token,
        )))
    }

    /// An image known by a name the library cannot read (a Responses file id, a Gemini file
    /// URI of any scheme): priced like a remote image, at the size the caller gives in
    /// `image_sizes` under that name, or the profile's worst case over typical sizes.
    pub fn remote(&self, name: &str, detail: Option<&str>) -> UnitKind {
        let tokens = match self.image_sizes.get(name) {
            Some(&(w, h)) if w > 0 && h > 0 => self.profile.tokens(w, h, detail),
            _ => self.profile.remote_image_tokens(detail),
        };
        UnitKind::Media(Box::new(MediaPrice {
            probe: Err(crate::probe::ProbeError::NotDataUrl),
            tokens: Some(tokens),
            budget_bytes: tokens.saturating_mul(self.bytes_per_token),
            implausible: false,
            file: None,
        }))
    }

    /// An image given as bare base64; `fallback_bytes` is what it costs when unreadable.
    pub fn base64(&self, data: &str, fallback_bytes: usize) -> UnitKind {
        self.base64_with(data, fallback_bytes, None)
    }

    /// [`Pricing::base64`] with the `detail` the profile reads (Gemini 3's media resolution).
    pub fn base64_with(&self, data: &str, fallback_bytes: usize, detail: Option<&str>) -> UnitKind {
        UnitKind::Media(Box::new(price_probe(
            crate::probe::probe_base64(data),
            fallback_bytes,
            self.profile,
            detail,
            self.bytes_per_token,
            Header::Checked,
        )))
    }
}

impl Pricing<'_> {
    /// A document or audio file given as base64 text (bare or a data URL), by its pages or
    /// duration, or conservatively when unreadable ([`crate::profiles::files`]).
    pub fn file_data(&self, text: &str, kind: FileKind, detail: Option<&str>) -> UnitKind {
        UnitKind::Media(Box::new(price_file_data(
            text,
            kind,
            self.profile,
            detail,
            self.bytes_per_token,
        )))
    }

    /// A file the library cannot read (a remote URL, a file id): at the pages or seconds the
    /// caller gives in `file_sizes` under that name, else conservatively.
    pub fn file_remote(&self, name: &str, kind: FileKind, detail: Option<&str>) -> UnitKind {
        UnitKind::Media(Box::new(price_file_remote(
            kind,
            self.file_sizes.get(name).copied(),
            self.profile,
            detail,
            self.bytes_per_token,
        )))
    }
}

/// What a media type names: a PDF document (`application/pdf`), audio (`audio/*`), or
/// neither.
pub fn file_kind_of_media_type(media_type: &str) -> Option<FileKind> {
    let m = media_type.trim().to_ascii_lowercase();
    let m = m.split(';').next().unwrap_or("").trim();
    if m == "application/pdf" || m == "application/x-pdf" {
        Some(FileKind::Document)
    } else if m.starts_with("audio/") {
        Some(FileKind::Audio)
    } else {
        None
    }
}

/// The media type of a data URL (`data:application/pdf;base64,…` → `application/pdf`).
pub fn data_url_media_type(url: &str) -> Option<&str> {
    let url = url.trim_start();
    if !crate::probe::is_data_url(url) {
        return None;
    }
    let rest = &url[5..];
    let end = rest
        .bytes()
        .take(256)
        .position(|b| b == b';' || b == b',')?;
    Some(&rest[..end])
}

/// What a file name's extension says it is (`.pdf`, `.mp3`, `.wav`, …).
pub fn file_kind_of_name(name: &str) -> Option<FileKind> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    match ext.as_str() {
        "pdf" => Some(FileKind::Document),
        "wav" | "mp3" | "flac" | "ogg" | "oga" | "opus" | "m4a" | "aac" | "aif" | "aiff" => {
            Some(FileKind::Audio)
        }
        _ => None,
    }
}

/// A file part as the caller wrote it: its bytes (base64 or a data URL) or a name the library
/// cannot read (a URL, a file id), and what says what it is.
#[derive(Default)]
pub(crate) struct FilePart<'s> {
    /// Base64 text or a data URL.
    pub data: Option<&'s str>,
    /// A remote URL or a file id.
    pub name: Option<&'s str>,
    pub media_type: Option<&'s str>,
    /// The caller's name for the file: a file name, a document's title, a display name.
    pub filename: Option<&'s str>,
    /// What a file known only by name is when nothing says (a chat `file` is a PDF).
    pub default_kind: Option<FileKind>,
    pub detail: Option<&'s str>,
}

impl FilePart<'_> {
    /// The part priced as a document or audio file, or `None` when it is neither (a text
    /// file, a spreadsheet…: the format's older rule applies).
    pub(crate) fn price(&self, pricing: &Pricing<'_>) -> Option<UnitKind> {
        let declared = self
            .media_type
            .and_then(file_kind_of_media_type)
            .or_else(|| {
                self.data
                    .and_then(data_url_media_type)
                    .and_then(file_kind_of_media_type)
            })
            .or_else(|| self.filename.and_then(file_kind_of_name));
        if let Some(data) = self.data {
            let probe = crate::probe::file::probe_file_text(data);
            let kind = declared.or(probe.ok().map(|info| info.kind()))?;
            let price = crate::pricing::price_file_probe(
                probe,
                kind,
                data.len() as u64 / 4 * 3,
                pricing.profile,
                self.detail,
                pricing.bytes_per_token,
                Header::Checked,
            );
            return Some(self.named(UnitKind::Media(Box::new(price))));
        }
        let name = self.name?;
        let kind = declared
            .or_else(|| file_kind_of_name(url_last_segment(name)))
            .or(self.default_kind)?;
        Some(self.named(pricing.file_remote(name, kind, self.detail)))
    }

    /// `kind` (a file's price) with the name its placeholder and report entry show: the
    /// caller's file name or title, else the file id or the URL's last segment.
    fn named(&self, mut kind: UnitKind) -> UnitKind {
        if let UnitKind::Media(price) = &mut kind {
            if let Some(file) = &mut price.file {
                file.name = (self.filename.and_then(file_label))
                    .or_else(|| self.name.map(url_last_segment).and_then(file_label));
            }
        }
        kind
    }
}

/// At most this many bytes of a file's name are shown (a longer one is cut, `…` after it).
pub const MAX_FILE_LABEL_BYTES: usize = 120;

/// A file's name as a placeholder shows it: control characters (a line break) as spaces,
/// trimmed, at most [`MAX_FILE_LABEL_BYTES`]; `None` when nothing is left.
///
/// ```
/// use ankita::format::file_label;
/// assert_eq!(file_label(" q3\nreport.pdf ").as_deref(), Some("q3 report.pdf"));
/// assert_eq!(file_label(&"é".repeat(100)).unwrap().len(), 120 + "…".len());
/// assert_eq!(file_label(" \t"), None);
/// ```
pub fn file_label(name: &str) -> Option<Box<str>> {
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(name.len().min(MAX_FILE_LABEL_BYTES + 3));
    for c in name.chars() {
        if out.len() + c.len_utf8() > MAX_FILE_LABEL_BYTES {
            out.push('…');
            break;
        }
        out.push(if c.is_control() { ' ' } else { c });
    }
    Some(out.into())
}

/// The last segment of a URL's path (its query and fragment left out), or a file id as it is:
/// `https://example.com/reports/q3.pdf?v=2` → `q3.pdf`, `files/abc-123` → `abc-123`; empty
/// for a data URL, whose text is the file itself.
///
/// ```
/// use ankita::format::url_last_segment;
/// assert_eq!(url_last_segment("https://example.com/reports/q3.pdf?v=2#p3"), "q3.pdf");
/// assert_eq!(url_last_segment("gs://bucket/calls/monday.mp3"), "monday.mp3");
/// assert_eq!(url_last_segment("https://example.com/docs/"), "docs");
/// assert_eq!(url_last_segment("file-abc123"), "file-abc123");
/// assert_eq!(url_last_segment("data:application/pdf;base64,JVBE/x"), "");
/// ```
pub fn url_last_segment(name: &str) -> &str {
    let name = name.trim();
    if crate::probe::is_data_url(name) {
        return "";
    }
    let path = match name.find("://") {
        Some(_) => &name[..name.find(['?', '#']).unwrap_or(name.len())],
        None => name,
    };
    let path = path.trim_end_matches('/');
    path.rsplit('/').next().unwrap_or(path)
}

/// The price of an image unit.
pub fn image_price(kind: &UnitKind) -> Option<MediaPrice> {
    match kind {
        UnitKind::Media(price) => Some((**price).clone()),
        _ => None,
    }
}

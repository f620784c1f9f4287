//! The request around the messages: budget options of the JSON contract (DESIGN §7–§8), parsed
//! with errors that name the offending key.

use crate::cache_keys::CacheOptions;
use crate::error::{Error, ErrorCode};
use crate::format::Format;
use crate::json::compact_len;
use crate::pricing::{ImageProfile, DEFAULT_BYTES_PER_TOKEN};
use crate::profiles::models::image_rule;
use crate::report::RequestWarning;
use crate::tokens::{self, Measure, Tokenizer};
use serde_json::{json, Map, Value};
use std::collections::HashMap;

mod measure;
mod options;
pub use measure::{measure_of, profile_of, unknown_model};
pub use options::{
    describe_options, is_option, option_named, option_names, FlagRead, OptionDefault, OptionFlag,
    TrimOption, OPTIONS,
};

/// The history budget below which `trim` refuses to run.
pub const MIN_HISTORY_BYTES: u64 = 512;
/// The same floor when costs are tokens.
pub const MIN_HISTORY_TOKENS: u64 = 128;
/// Default for `overhead_bytes`: request framing the caller does not list.
pub const DEFAULT_OVERHEAD_BYTES: u64 = 1024;
/// Default for `max_messages` when the request gives no budget (no `max_bytes`, no
/// `context_tokens`, no model whose window is known): the count is then the only limit. With a
/// budget and no `max_messages`, the budget alone decides (no count limit).
pub const DEFAULT_MAX_MESSAGES: usize = 40;

/// What happens to an image that must go to fit the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnImageOverflow {
    /// The image part becomes a short text part saying what was omitted.
    #[default]
    Placeholder,
    /// The image part is removed.
    Drop,
    /// The call fails with `image_overflow`.
    Error,
}

impl OnImageOverflow {
    pub fn as_str(self) -> &'static str {
        match self {
            OnImageOverflow::Placeholder => "placeholder",
            OnImageOverflow::Drop => "drop",
            OnImageOverflow::Error => "error",
        }
    }
}

/// The text that replaces a cleared tool result, unless the request gives one.
pub const CLEARED_TOOL_RESULT: &str = "[Old tool result cleared to fit the context budget.]";

/// `clear_tool_results` (opt-in, DESIGN §6.7): before whole groups are dropped, the results of
/// tool exchanges older than the newest `keep` are replaced by `placeholder`, oldest first,
/// until the history fits; exchanges calling a tool of `exclude_tools` keep theirs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClearToolResults {
    pub keep: usize,
    pub exclude_tools: Vec<String>,
    pub placeholder: String,
    /// Once clearing starts, at least this much is cleared (`clear_at_least`, in the call's
    /// unit; 0: only what the budget needs).
    pub at_least: u64,
    /// The cleared exchanges' calls lose their arguments too (`clear_tool_inputs`).
    pub inputs: bool,
}

impl Default for ClearToolResults {
    fn default() -> Self {
        ClearToolResults {
            keep: 3,
            exclude_tools: Vec::new(),
            placeholder: CLEARED_TOOL_RESULT.to_owned(),
            at_least: 0,
            inputs: false,
        }
    }
}

impl ClearToolResults {
    /// `true` (the defaults), `false` (off), or `{"keep"?, "exclude_tools"?, "placeholder"?,
    /// "clear_at_least"?, "clear_tool_inputs"?}`.
    fn from_value(value: &Value) -> Result<Option<Self>, Error> {
        const KEY: &str = "clear_tool_results";
        let map =
            match value {
                Value::Bool(on) => return Ok(on.then(ClearToolResults::default)),
                Value::Object(map) => map,
                _ => return Err(Error::invalid_request(
                    "clear_tool_results must be true, false or an object {keep, exclude_tools, \
                     placeholder, clear_at_least, clear_tool_inputs}",
                    KEY,
                )),
            };
        let mut clear = ClearToolResults::default();
        for (key, value) in map {
            let path = format!("{KEY}.{key}");
            match key.as_str() {
                _ if value.is_null() => {}
                "keep" => clear.keep = usize::try_from(uint(value, &path)?).unwrap_or(usize::MAX),
                "clear_at_least" => clear.at_least = uint(value, &path)?,
                "clear_tool_inputs" => {
                    clear.inputs = value.as_bool().ok_or_else(|| {
                        Error::invalid_request("clear_tool_inputs must be true or false", &path)
                    })?
                }
                "exclude_tools" => {
                    let names = value.as_array().ok_or_else(|| {
                        Error::invalid_request(
                            "exclude_tools must be an array of tool names",
                            &path,
                        )
                    })?;
                    clear.exclude_tools = names
                        .iter()
                        .enumerate()
                        .map(|(i, n)| {
                            n.as_str().map(str::to_owned).ok_or_else(|| {
                                Error::invalid_request(
                                    "a tool name must be a string",
                                    format!("{path}[{i}]"),
                                )
                            })
                        })
                        .collect::<Result<_, _>>()?;
                }
                "placeholder" => {
                    clear.placeholder = value
                        .as_str()
                        .ok_or_else(|| {
                            Error::invalid_request("placeholder must be a string", &path)
                        })?
                        .to_owned()
                }
                _ => {
                    return Err(Error::invalid_request(
                        format!(
                            "unknown key {key:?} of clear_tool_results; known keys: keep, \
                             exclude_tools, placeholder, clear_at_least, clear_tool_inputs"
                        ),
                        path,
                    ))
                }
            }
        }
        Ok(Some(clear))
    }
}

/// Reads the `format` key of a request (`null` or absent: the default, OpenAI chat).
pub fn format_of(request: &Map<String, Value>) -> Result<Format, Error> {
    match request.get("format") {
        None | Some(Value::Null) => Ok(Format::default()),
        Some(Value::String(s)) => Format::from_name(s).ok_or_else(|| format_error(request)),
        Some(_) => Err(format_error(request)),
    }
}

/// Why a top-level `system` is refused: the formats that take one, each with what it calls
/// it, and those whose system prompt is a message.
fn system_error() -> String {
    let traits = || crate::format::FORMATS.iter().map(|f| f.traits());
    let takes: Vec<String> = traits()
        .filter_map(|t| Some(format!("\"{}\" ({})", t.name, t.outside_system?)))
        .collect();
    let others: Vec<String> = traits()
        .filter(|t| t.outside_system.is_none())
        .map(|t| format!("\"{}\"", t.name))
        .collect();
    format!(
        "a top-level system belongs to format {}; in format {} the system prompt is a message",
        or_list(&takes),
        or_list(&others)
    )
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

fn format_error(request: &Map<String, Value>) -> Error {
    Error::invalid_request(
        format!(
            "format must be one of {}, not {}",
            Format::names(),
            request.get("format").unwrap_or(&Value::Null)
        ),
        "format",
    )
}

/// Every option of a trim request except `messages`. `Default` gives the contract's defaults
/// and no byte budget.
#[derive(Debug, Clone, PartialEq)]
pub struct TrimOptions {
    /// A history budget in bytes, given directly.
    pub max_bytes: Option<u64>,
    /// The model's context window in tokens; the history budget is derived from it (§7).
    pub context_tokens: Option<u64>,
    pub max_output_tokens: u64,
    pub overhead_bytes: u64,
    pub bytes_per_token: u64,
    /// Compact JSON bytes of the `tools` schemas.
    pub tools_bytes: u64,
    /// UTF-8 bytes of `memory` (text placed elsewhere in the prompt).
    pub memory_bytes: u64,
    /// How text is counted: bytes, or a tokenizer's tokens (`tokenizer`, `model`,
    /// `token_factor`).
    pub measure: Measure,
    /// Where `measure`'s factor comes from, and the provider counts observed
    /// ([`crate::calibrate`]).
    pub factor_origin: crate::calibrate::FactorOrigin,
    /// In token mode: `overhead_tokens`, the tokens of `tools` and of `memory`.
    pub overhead_tokens: u64,
    pub tools_tokens: u64,
    pub memory_tokens: u64,
    /// The most messages returned (the pinned and required ones may go beyond it);
    /// `usize::MAX` is no limit (`"max_messages": null`).
    pub max_messages: usize,
    pub image_profile: ImageProfile,
    pub on_image_overflow: OnImageOverflow,
    /// Pixel sizes of remote (http/https) images, by URL, when the caller knows them; other
    /// remote images are priced at the profile's typical worst case.
    pub image_sizes: HashMap<String, (u32, u32)>,
    /// Pages (documents) or seconds (audio) of remote files and file ids, by URL or id, when
    /// the caller knows them; other remote files are priced conservatively.
    pub file_sizes: HashMap<String, u64>,
    /// Opt-in: clear old tool results before dropping whole groups.
    pub clear_tool_results: Option<ClearToolResults>,
    /// The group where selection stopped comes back shrunk into the room left (`fill`,
    /// default true; [`crate::fill`]).
    pub fill: bool,
    /// Cache-stable trimming: `trim_to`, `cut`, `cache_breakpoint` ([`crate::stable`]).
    pub cache: CacheOptions,
    pub format: Format,
    /// What the request assumed without being told (`unknown_model`), for the report.
    pub warnings: Vec<RequestWarning>,
}

impl Default for TrimOptions {
    fn default() -> Self {
        TrimOptions {
            max_bytes: None,
            context_tokens: None,
            max_output_tokens: 0,
            overhead_bytes: DEFAULT_OVERHEAD_BYTES,
            bytes_per_token: DEFAULT_BYTES_PER_TOKEN,
            tools_bytes: 0,
            memory_bytes: 0,
            measure: Measure::BYTES,
            factor_origin: Default::default(),
            overhead_tokens: DEFAULT_OVERHEAD_BYTES / DEFAULT_BYTES_PER_TOKEN,
            tools_tokens: 0,
            memory_tokens: 0,
            max_messages: DEFAULT_MAX_MESSAGES,
            image_profile: ImageProfile::default(),
            on_image_overflow: OnImageOverflow::default(),
            image_sizes: HashMap::new(),
            file_sizes: HashMap::new(),
            clear_tool_results: None,
            fill: true,
            cache: CacheOptions::default(),
            format: Format::default(),
            warnings: Vec::new(),
        }
    }
}

impl TrimOptions {
    /// Reads the options from a request object, ignoring `messages`. Unknown keys are an error:
    /// a typo must not silently change the budget. `null` means "not given". The keys are read
    /// one by one, then what depends on several: the cache keys, the image profile and the
    /// measure, the model's window, the costs in tokens.
    pub fn from_map(request: &Map<String, Value>) -> Result<Self, Error> {
        let mut options = TrimOptions::default();
        for (key, value) in request {
            options.read_key(request, key, value)?;
        }
        options.read_cache(request)?;
        options.read_measure(request)?;
        options.read_window(request);
        options.read_token_costs(request)?;
        Ok(options)
    }

    /// One key of the request, alone (the keys that interact are read after every key).
    fn read_key(
        &mut self,
        request: &Map<String, Value>,
        key: &str,
        value: &Value,
    ) -> Result<(), Error> {
        let options = self;
        if key == "max_messages" && value.is_null() {
            // `null` is "no count limit" here (Python `None`), not "not given".
            options.max_messages = usize::MAX;
            return Ok(());
        }
        if key == "messages" || value.is_null() {
            return Ok(());
        }
        match key {
            "max_bytes" => options.max_bytes = Some(uint(value, key)?),
            "context_tokens" => options.context_tokens = Some(uint(value, key)?),
            "max_output_tokens" => options.max_output_tokens = uint(value, key)?,
            "overhead_bytes" => options.overhead_bytes = uint(value, key)?,
            "overhead_tokens" | "tokenizer" | "token_factor" | "observed_usage" => {} // below: they interact
            "trim_to" | "cut" | "summary" | "cache_breakpoint" => {} // crate::cache_keys
            "bytes_per_token" => {
                options.bytes_per_token = uint(value, key)?;
                if options.bytes_per_token == 0 {
                    return Err(Error::invalid_request(
                        "bytes_per_token must be at least 1",
                        key,
                    ));
                }
            }
            "max_messages" => {
                options.max_messages = usize::try_from(uint(value, key)?).unwrap_or(usize::MAX)
            }
            "tools" => {
                if !value.is_array() {
                    return Err(Error::invalid_request(
                        "tools must be an array of tool schemas",
                        key,
                    ));
                }
                options.tools_bytes = compact_len(value);
            }
            "memory" => options.memory_bytes = memory_bytes(value)?,
            "image_profile" | "model" => {} // below: they interact
            "strict_model" => {
                if !value.is_boolean() {
                    return Err(Error::invalid_request(
                        format!("strict_model must be true or false, not {value}"),
                        key,
                    ));
                }
            }
            "format" => options.format = format_of(request)?,
            "system" => {
                if !format_of(request)?.takes_system() {
                    return Err(Error::invalid_request(system_error(), key));
                }
            }
            "image_sizes" => options.image_sizes = image_sizes(value)?,
            "file_sizes" => options.file_sizes = file_sizes(value)?,
            "clear_tool_results" => {
                options.clear_tool_results = ClearToolResults::from_value(value)?
            }
            "fill" => {
                options.fill = value.as_bool().ok_or_else(|| {
                    Error::invalid_request(format!("fill must be true or false, not {value}"), key)
                })?
            }
            "on_image_overflow" => {
                options.on_image_overflow = match value.as_str() {
                    Some("placeholder") => OnImageOverflow::Placeholder,
                    Some("drop") => OnImageOverflow::Drop,
                    Some("error") => OnImageOverflow::Error,
                    _ => {
                        return Err(Error::invalid_request(
                            format!(
                        "on_image_overflow must be \"placeholder\", \"drop\" or \"error\", not {}",
                        value
                    ),
                            key,
                        ))
                    }
                }
            }
            _ => {
                return Err(Error::invalid_request(
                    format!(
                        "unknown request key {key:?}; known keys: messages, {}",
                        option_names()
                    ),
                    key,
                ))
            }
        }
        Ok(())
    }

    /// The cache-stable keys (`trim_to`, `cut`, `summary`, `cache_breakpoint`), and whether the
    /// format and the model take a breakpoint.
    fn read_cache(&mut self, request: &Map<String, Value>) -> Result<(), Error> {
        let options = self;
        options.cache = CacheOptions::from_map(request)?;
        if options.cache.cache_breakpoint && !options.format.adapter().cache_breakpoints() {
            return Err(Error::invalid_request(
                format!(
                    "cache_breakpoint places a prompt-cache breakpoint (Anthropic's cache_control, \
                     OpenAI's prompt_cache_breakpoint): format {:?} has none",
                    options.format.name()
                ),
                "cache_breakpoint",
            ));
        }
        // OpenAI's breakpoints are for some models only: a warning, and nothing placed.
        if options.cache.cache_breakpoint {
            let model = request.get("model").and_then(Value::as_str);
            if let Some(message) = options.format.adapter().breakpoint_refused(model) {
                options.cache.cache_breakpoint = false;
                options.warnings.push(RequestWarning {
                    code: "cache_breakpoint_not_placed",
                    path: "cache_breakpoint",
                    message,
                });
            }
        }
        Ok(())
    }

    /// The image profile (`image_profile`, `model`) and the measure (`tokenizer`, `model`,
    /// `token_factor`).
    fn read_measure(&mut self, request: &Map<String, Value>) -> Result<(), Error> {
        let options = self;
        let named = ["image_profile", "model"]
            .iter()
            .any(|k| request.get(*k).is_some_and(|v| !v.is_null()));
        let default_profile = options.format.default_profile();
        let (profile, unknown) = if named {
            profile_of(request, default_profile)?
        } else {
            (default_profile, None)
        };
        options.image_profile = profile;
        options.measure = measure_of(request)?;
        options.factor_origin.source = crate::calibrate::FactorSource::of(
            &options.measure,
            request.get("token_factor").is_some_and(|v| !v.is_null()),
        );
        if let Some(model) = unknown {
            options
                .warnings
                .push(unknown_model(model, profile, Some(options.measure)));
        }
        Ok(())
    }

    /// The model's context window and output reserve, when no budget is given; no count limit
    /// by default when a window is.
    fn read_window(&mut self, request: &Map<String, Value>) {
        let options = self;
        let given = |key: &str| request.get(key).is_some_and(|v| !v.is_null());
        if let (Some(model), false, false) = (
            request.get("model").and_then(Value::as_str),
            given("context_tokens"),
            given("max_bytes"),
        ) {
            match crate::context_windows::for_model(model) {
                Some(window) => {
                    options.context_tokens = Some(window.context_tokens);
                    if !given("max_output_tokens") {
                        options.max_output_tokens = window.output_reserve;
                    }
                }
                None => options.warnings.push(RequestWarning {
                    code: "no_context_window",
                    path: "model",
                    message: format!(
                        "no context window is known for model {model:?} (open-weight models \
                         run with their host's or runtime's window); only max_messages limits \
                         the history: give context_tokens or max_bytes"
                    ),
                }),
            }
        }
        // 40 is a default for a count-only trim: a caller who gives a window expects the window
        // to decide what fits.
        if !request.contains_key("max_messages")
            && (options.max_bytes.is_some() || options.context_tokens.is_some())
        {
            options.max_messages = usize::MAX;
        }
    }

    /// With costs in tokens: the overhead, the calibration by observed usage, the tool schemas
    /// and the memory counted; without, the keys that need tokens are errors.
    fn read_token_costs(&mut self, request: &Map<String, Value>) -> Result<(), Error> {
        let options = self;
        if options.measure.in_tokens() {
            options.overhead_tokens = match request.get("overhead_tokens") {
                None | Some(Value::Null) => {
                    options.overhead_bytes.div_ceil(options.bytes_per_token)
                }
                Some(v) => uint(v, "overhead_tokens")?,
            };
            if let Some(usage) = request.get("observed_usage").filter(|v| !v.is_null()) {
                crate::calibrate::apply_observed(
                    &mut options.measure,
                    &mut options.factor_origin,
                    usage,
                    options.overhead_tokens,
                    options
                        .context_tokens
                        .map(|c| c.saturating_sub(options.max_output_tokens)),
                )?;
            }
            if let Some(tools) = request.get("tools").filter(|t| !t.is_null()) {
                let text = serde_json::to_string(tools).unwrap_or_default();
                options.tools_tokens = options.measure.text(&text);
            }
            if let Some(memory) = request.get("memory").filter(|m| !m.is_null()) {
                options.memory_tokens = match memory {
                    Value::String(s) => options.measure.text(s),
                    Value::Array(items) => items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(|s| options.measure.text(s))
                        .sum(),
                    _ => 0,
                };
            }
        } else if request.get("overhead_tokens").is_some_and(|v| !v.is_null()) {
            return Err(Error::invalid_request(
                "overhead_tokens needs costs in tokens: give tokenizer or a model whose tokenizer \
                 is known (or use overhead_bytes)",
                "overhead_tokens",
            ));
        } else if request.get("observed_usage").is_some_and(|v| !v.is_null()) {
            return Err(Error::invalid_request(
                "observed_usage pairs token counts: give context_tokens, or a model whose \
                 tokenizer is known",
                "observed_usage",
            ));
        }
        Ok(())
    }

    /// The history budget in bytes (§7), in tokens when costs are tokens, or `None` when
    /// neither `max_bytes` nor `context_tokens` is given. Fails with `history_budget_too_small`
    /// below 512 bytes (128 tokens).
    pub fn history_budget(&self) -> Result<Option<u64>, Error> {
        let (budget, min, unit) = if self.measure.in_tokens() {
            (self.history_tokens(), MIN_HISTORY_TOKENS, "tokens")
        } else {
            (self.history_bytes(), MIN_HISTORY_BYTES, "bytes")
        };
        let Some(budget) = budget else {
            return Ok(None);
        };
        if budget < i128::from(min) {
            let mut details = Map::new();
            details.insert("breakdown".into(), self.breakdown(budget));
            return Err(Error::new(
                ErrorCode::HistoryBudgetTooSmall,
                format!(
                    "The history budget is {budget} {unit} after reserving the output, overhead, \
                     tool schemas and memory; at least {min} {unit} are needed."
                ),
            )
            .with_details(details));
        }
        // A budget past u64::MAX (a huge context_tokens × bytes_per_token) is unlimited in
        // effect; `as` would wrap it to an arbitrary small budget.
        Ok(Some(u64::try_from(budget).unwrap_or(u64::MAX)))
    }

    /// The history budget in bytes, unchecked: `(context_tokens − max_output_tokens) ×
    /// bytes_per_token − overhead − tools − memory`, at most `max_bytes`.
    fn history_bytes(&self) -> Option<i128> {
        let bpt = i128::from(self.bytes_per_token);
        let from_context = self.context_tokens.map(|tokens| {
            // (context − output) × bpt overflows i128 only past ±2¹²⁷ bytes: saturate there.
            let window = i128::from(tokens) - i128::from(self.max_output_tokens);
            window
                .checked_mul(bpt)
                .unwrap_or(if window > 0 { i128::MAX } else { i128::MIN })
                .saturating_sub(i128::from(self.overhead_bytes))
                .saturating_sub(i128::from(self.tools_bytes))
                .saturating_sub(i128::from(self.memory_bytes))
        });
        match (from_context, self.max_bytes) {
            (None, None) => None,
            (Some(c), None) => Some(c),
            (None, Some(m)) => Some(i128::from(m)),
            (Some(c), Some(m)) => Some(c.min(i128::from(m))),
        }
    }

    /// The history budget in tokens, unchecked: `context_tokens − max_output_tokens −
    /// overhead_tokens − tools − memory`, all counted with the same tokenizer.
    fn history_tokens(&self) -> Option<i128> {
        let context = self.context_tokens?;
        Some(
            i128::from(context)
                - i128::from(self.max_output_tokens)
                - i128::from(self.overhead_tokens)
                - i128::from(self.tools_tokens)
                - i128::from(self.memory_tokens),
        )
    }

    /// Where the context window goes, for error reports (in tokens in token mode).
    pub(crate) fn breakdown(&self, history: i128) -> Value {
        if self.measure.in_tokens() {
            let mut b = Map::new();
            b.insert("context_tokens".into(), json!(self.context_tokens));
            b.insert(
                "output_reserve_tokens".into(),
                json!(self.max_output_tokens),
            );
            b.insert("overhead_tokens".into(), json!(self.overhead_tokens));
            b.insert("tools_tokens".into(), json!(self.tools_tokens));
            b.insert("memory_tokens".into(), json!(self.memory_tokens));
            let history = history.clamp(i128::from(i64::MIN), i128::from(u64::MAX));
            b.insert("history_tokens".into(), json!(history));
            return Value::Object(b);
        }
        let history_bytes = history;
        let bpt = self.bytes_per_token;
        let mut b = Map::new();
        if let Some(tokens) = self.context_tokens {
            b.insert("context_bytes".into(), json!(tokens.saturating_mul(bpt)));
            b.insert(
                "output_reserve_bytes".into(),
                json!(self.max_output_tokens.saturating_mul(bpt)),
            );
            b.insert("overhead_bytes".into(), json!(self.overhead_bytes));
            b.insert("tools_bytes".into(), json!(self.tools_bytes));
            b.insert("memory_bytes".into(), json!(self.memory_bytes));
        }
        if let Some(max) = self.max_bytes {
            b.insert("max_bytes".into(), json!(max));
        }
        // JSON numbers here are i64 or u64; serde_json refuses (panics in json!) past them.
        let history_bytes = history_bytes.clamp(i128::from(i64::MIN), i128::from(u64::MAX));
        b.insert("history_bytes".into(), json!(history_bytes));
        Value::Object(b)
    }
}

/// `{"https://…/cat.png": [1920, 1080]}` or `{"…": {"width": 1920, "height": 1080}}`.
fn image_sizes(value: &Value) -> Result<HashMap<String, (u32, u32)>, Error> {
    let map = value.as_object().ok_or_else(|| {
        Error::invalid_request(
            "image_sizes must map image URLs to [width, height]",
            "image_sizes",
        )
    })?;
    map.iter()
        .map(|(url, size)| {
            let side = |v: Option<&Value>| {
                v.and_then(Value::as_u64)
                    .and_then(|n| u32::try_from(n).ok())
            };
            let (w, h) = match size {
                Value::Array(wh) if wh.len() == 2 => (side(wh.first()), side(wh.get(1))),
                Value::Object(o) => (side(o.get("width")), side(o.get("height"))),
                _ => (None, None),
            };
            match (w, h) {
                (Some(w), Some(h)) if w > 0 && h > 0 => Ok((url.clone(), (w, h))),
                _ => Err(Error::invalid_request(
                    "an image size must be [width, height] with positive integer sides",
                    format!("image_sizes[{url:?}]"),
                )),
            }
        })
        .collect()
}

/// `{"https://…/report.pdf": 10, "file-abc": 30}`: pages of a document, seconds of audio
/// (a fraction of a second counts as a whole one).
fn file_sizes(value: &Value) -> Result<HashMap<String, u64>, Error> {
    let map = value.as_object().ok_or_else(|| {
        Error::invalid_request(
            "file_sizes must map file URLs or ids to pages or seconds",
            "file_sizes",
        )
    })?;
    map.iter()
        .map(|(name, size)| {
            let count = size
                .as_u64()
                .or_else(|| {
                    size.as_f64()
                        .filter(|f| f.is_finite() && *f > 0.0 && *f < 1e15)
                        .map(|f| f.ceil() as u64)
                })
                .filter(|&n| n > 0);
            count.map(|n| (name.clone(), n)).ok_or_else(|| {
                Error::invalid_request(
                    "a file size must be a positive number of pages or seconds",
                    format!("file_sizes[{name:?}]"),
                )
            })
        })
        .collect()
}

fn uint(value: &Value, key: &str) -> Result<u64, Error> {
    value.as_u64().ok_or_else(|| {
        Error::invalid_request(
            format!("{key} must be a non-negative integer, not {value}"),
            key,
        )
    })
}

fn memory_bytes(value: &Value) -> Result<u64, Error> {
    match value {
        Value::String(s) => Ok(s.len() as u64),
        Value::Array(items) => items.iter().enumerate().try_fold(0u64, |sum, (i, item)| {
            let s = item.as_str().ok_or_else(|| {
                Error::invalid_request("memory items must be strings", format!("memory[{i}]"))
            })?;
            Ok(sum + s.len() as u64)
        }),
        _ => Err(Error::invalid_request(
            "memory must be a string or an array of strings",
            "memory",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(v: Value) -> Result<TrimOptions, Error> {
        TrimOptions::from_map(v.as_object().unwrap())
    }

    #[test]
    fn agent_side_budget() {
        let o = opts(json!({"context_tokens": 1000, "max_output_tokens": 100,
            "tools": [{"type": "function"}], "memory": "abcd", "tokenizer": "bytes"}))
        .unwrap();
        // 4000 − 400 − 1024 − 21 (`[{"type":"function"}]`) − 4
        assert_eq!(o.history_budget().unwrap(), Some(2551));
        // Without `tokenizer: "bytes"` the window counts in o200k_base tokens: 1000 − 100 −
        // 256 − the tools' and the memory's few tokens (exact figures: the shared case
        // tokens_by_default_without_a_model, counted by an independent tokenizer).
        let o = opts(json!({"context_tokens": 1000, "max_output_tokens": 100,
            "tools": [{"type": "function"}], "memory": "abcd"}))
        .unwrap();
        assert!(o.measure.in_tokens() && o.measure.estimate);
        let budget = o.history_budget().unwrap().unwrap();
        assert!(
            (1000 - 100 - 256 - 12..1000 - 100 - 256).contains(&budget),
            "{budget}"
        );
        let o = opts(json!({"context_tokens": 1000, "max_bytes": 600})).unwrap();
        assert_eq!(o.history_budget().unwrap(), Some(600));
        assert_eq!(opts(json!({})).unwrap().history_budget().unwrap(), None);
    }

    #[test]
    fn a_top_level_system_is_refused_naming_the_formats_that_take_one() {
        for format in ["openai", "ai-sdk"] {
            let e = opts(json!({"format": format, "system": "be brief"})).unwrap_err();
            assert_eq!(e.path.as_deref(), Some("system"));
            assert_eq!(
                e.message,
                "a top-level system belongs to format \"anthropic\" (the system), \
                 \"responses\" (the instructions) or \"gemini\" (the system instruction); in \
                 format \"openai\" or \"ai-sdk\" the system prompt is a message"
            );
        }
        assert!(opts(json!({"format": "gemini", "system": "be brief"})).is_ok());
    }

    #[test]
    fn too_small_and_unknown_keys() {
        let e = opts(json!({"context_tokens": 300}))
            .unwrap()
            .history_budget()
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::HistoryBudgetTooSmall);
        let e = opts(json!({"max_byte": 3})).unwrap_err();
        assert_eq!(e.path.as_deref(), Some("max_byte"));
        assert!(e.message.contains("max_bytes"));
        let e = opts(json!({"max_bytes": -1})).unwrap_err();
        assert_eq!(e.path.as_deref(), Some("max_bytes"));
        let e = opts(json!({"memory": ["a", 3]})).unwrap_err();
        assert_eq!(e.path.as_deref(), Some("memory[1]"));
    }
}

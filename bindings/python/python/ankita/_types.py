"""The shapes of what ankita returns, for type checkers (plain dicts at run time)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Optional, TypedDict, Union

ImageFormat = Literal["png", "jpeg", "gif", "webp"]
OnImageOverflow = Literal["placeholder", "drop", "error"]
# <options message-format> generated from src/format/mod.rs (FORMATS) by tests/option_table.rs
MessageFormat = Literal["openai", "anthropic", "responses", "gemini", "ai-sdk"]
# </options>
Tokenizer = Literal["bytes", "o200k_base", "cl100k_base"]


class TokenizerFile(TypedDict):
    """``tokenizer={"file": PATH}``: a Hugging Face ``tokenizer.json``, or the folder holding
    it (an open-weight model's folder): text counted exactly with it, framing estimated."""

    file: str


class _TruncationFields(TypedDict):
    index: int
    part: Optional[int]


class Truncation(_TruncationFields, total=False):
    """A text that was shrunk: its head and tail kept around a marker. Its cost before and
    after is ``from_bytes``/``to_bytes``, or ``from_tokens``/``to_tokens`` when the report's
    ``unit`` is "tokens"."""

    from_bytes: int
    to_bytes: int
    from_tokens: int
    to_tokens: int


class _TurnStartFields(TypedDict):
    index: int
    kept: Literal["whole", "shrunk", "placeholder"]


class TurnStart(_TurnStartFields, total=False):
    """Anthropic and Gemini formats: the user message that began the kept run's turn, brought
    back so that the answer starts with the user's turn (``kept``: "whole", "shrunk" into the
    room left, or "placeholder" when its content became a short note). Its cost before and after
    is ``from_bytes``/``to_bytes``, or ``from_tokens``/``to_tokens`` in tokens."""

    from_bytes: int
    to_bytes: int
    from_tokens: int
    to_tokens: int


class DroppedImage(TypedDict):
    """An image that did not fit: a placeholder, removed, or the cause of ImageOverflow.
    ``format``, ``width``, ``height`` and ``tokens`` are None when it could not be decoded."""

    index: int
    part: int
    format: Optional[ImageFormat]
    width: Optional[int]
    height: Optional[int]
    tokens: Optional[int]
    budget_bytes: Optional[int]


class FileInfo(TypedDict):
    """What ``probe_file`` reads: a PDF's ``pages`` and first page's size in points
    (``page_width``, ``page_height``), or audio's duration (``seconds`` rounded up, ``millis``),
    and the price under the profile asked for. ``exact`` is True for published rules (Gemini),
    False for estimates."""

    kind: Literal["document", "audio"]
    format: Literal["pdf", "wav", "flac", "mp3", "vorbis", "opus", "mp4"]
    pages: Optional[int]
    page_width: Optional[int]
    page_height: Optional[int]
    seconds: Optional[int]
    millis: Optional[int]
    tokens: int
    budget_bytes: int
    exact: bool


class _DroppedFileFields(TypedDict):
    index: int
    part: int
    kind: Literal["document", "audio"]
    name: Optional[str]
    format: Optional[str]
    tokens: Optional[int]
    budget_bytes: Optional[int]


class DroppedFile(_DroppedFileFields, total=False):
    """A document or audio part that did not fit, replaced by a placeholder (or removed):
    ``pages`` of a document or ``seconds`` of audio, as priced (estimated when the file could
    not be read). ``name`` is what the part calls the file (its file name or title, else its
    file id or its URL's last segment), None when it gives none; ``format`` ("pdf", "wav",
    "mp3", …) is None when it could not be read."""

    pages: int
    seconds: int


class _DroppedAttachmentFields(TypedDict):
    index: int
    part: int


class DroppedAttachment(_DroppedAttachmentFields, total=False):
    """An attachment body (a text part starting with "Attached file:") that was dropped: its
    cost in ``bytes``, or in ``tokens`` when the report's ``unit`` is "tokens"."""

    bytes: int
    tokens: int


class _RepairFields(TypedDict):
    index: int
    action: str
    reason: str


class Repair(_RepairFields, total=False):
    """One repair of a restored session: ``action`` is e.g. "orphan_tool_removed",
    "incomplete_tool_calls_removed" or "empty_message_removed"; ``path`` points at the defect
    when there is one value to point at."""

    path: str


class Merge(TypedDict):
    """Anthropic format: input message ``index`` was merged into input message ``into`` so that
    roles alternate."""

    index: int
    into: int


class DroppedBlock(TypedDict):
    """Anthropic format: a block removed from a message that stays (a ``tool_result`` whose
    exchange was dropped)."""

    index: int
    part: int


class TrimWarning(TypedDict):
    """Something in the input the caller should know about, that did not stop the trim:
    ``code`` "implausible_image" (a header whose size its payload cannot hold, priced as the
    profile's largest typical image), with the ``path`` of the image; "unknown_model" (a
    model no family claims, and what was assumed for it) or "no_context_window" (a model given
    without a budget whose window is not known, so only ``max_messages`` applied), with
    ``path`` "model" and ``index`` and ``part`` None; "unreadable_file" (a PDF or audio file
    that could not be read) or "implausible_file" (one whose structure claims more pages or a
    longer duration than its size can hold), each priced by a conservative estimate of its
    size, with the ``path`` of the file."""

    code: str
    index: Optional[int]
    part: Optional[int]
    path: str
    message: str


class _ClearedToolResultFields(TypedDict):
    index: int


class ClearedToolResult(_ClearedToolResultFields, total=False):
    """A tool result replaced by the ``clear_tool_results`` placeholder: what it cost before, in
    ``bytes`` or, when the report's ``unit`` is "tokens", in ``tokens``. With
    ``clear_tool_inputs``, a message whose tool calls' arguments were cleared is listed too
    (before its exchange's results), with what clearing them freed."""

    bytes: int
    tokens: int


class ClearToolResults(TypedDict, total=False):
    """The ``clear_tool_results`` option: clear the results of tool exchanges older than the
    newest ``keep`` (default 3), oldest first, before dropping whole exchanges; exchanges calling
    a tool of ``exclude_tools`` keep theirs; ``placeholder`` replaces the result's text; once
    clearing starts it clears at least ``clear_at_least`` (in the call's unit), so that clears
    are rare and the prompt cache's prefix holds between them; ``clear_tool_inputs`` (default
    False) clears the arguments of the cleared exchanges' calls too (``"{}"`` or ``{}``, as the
    format writes them)."""

    keep: int
    exclude_tools: list[str]
    placeholder: str
    clear_at_least: int
    clear_tool_inputs: bool


class AdapterOptions(TypedDict, total=False):
    """The keyword options of ``ankita.trim`` that the framework adapters (``ankita.langchain``,
    ``ankita.pydantic_ai``) pass on: all but those the option table says they leave out
    (``format``, ``system``, ``summary``, ``cache_breakpoint``). Each is a request key of the
    JSON contract (the table ``ankita_options`` answers); None, like a key left out, means "not
    given" (the default), but ``max_messages=None`` is no count limit (left out: none with a
    budget, 40 without one)."""

    # <options adapter-options> generated from src/request/options.rs by tests/option_table.rs
    max_bytes: Optional[int]
    """The history budget in bytes, given directly; with ``context_tokens`` too, the smaller
    wins."""
    context_tokens: Optional[int]
    """The model's context window in tokens: the history budget is derived from it, less
    ``max_output_tokens``, ``tools``, ``memory`` and the request's framing."""
    max_output_tokens: Optional[int]
    """Tokens kept for the model's answer."""
    tools: Optional[Sequence[Mapping[str, Any]]]
    """The tool schemas sent with the request: their cost comes off the budget."""
    memory: Optional[Union[str, Sequence[str]]]
    """Text placed elsewhere in the prompt: its cost comes off the budget."""
    overhead_bytes: Optional[int]
    """Request framing the caller does not list, in bytes (default 1024)."""
    bytes_per_token: Optional[int]
    """Budget bytes per token, when costs are bytes (default 4)."""
    max_messages: Optional[int]
    """The most messages returned, tool exchanges kept whole; the pinned message and the anchors are
    kept even beyond it (default: no limit with a budget or a model's window, 40 without one;
    ``None``: no limit)."""
    image_profile: Optional[str]
    """The image pricing rule: ``ankita`` (the default), ``openai``, ``openai-patch``,
    ``anthropic``, ``anthropic-highres``, ``anthropic-legacy``, ``gemini``, ``gemini-1.5``,
    ``gemini-3``, ``qwen2-vl`` or ``pixtral``; give this or ``model``, not both."""
    model: Optional[str]
    """The target model (``gpt-4o``, ``claude-sonnet-4``, ``gemini-2.5-flash``, …): its images are
    priced as its provider bills them, its text counted in its tokens when its tokenizer is known
    (exact for Gemini 2.0, 2.5 and 3, counted with Gemma 3's tokenizer; an estimate for Claude and
    the other Gemini models), and its context window is the budget when none is given. Any name
    answers (provider prefixes and routes, Bedrock ids, dated suffixes): one no family claims is
    priced by the default recipe, counted with ``o200k_base`` × 1.35, and the report warns
    ``unknown_model``."""
    image_sizes: Optional[Mapping[str, Sequence[int]]]
    """Pixel sizes of remote (http/https) images by URL: ``{url: [width, height]}``."""
    file_sizes: Optional[Mapping[str, float]]
    """Pages (documents) or seconds (audio) of remote files and file ids: ``{url or id: n}``."""
    on_image_overflow: Optional[OnImageOverflow]
    """What becomes of an image that must go: ``placeholder`` (a short text in its stead, the
    default), ``drop`` or ``error`` (the call fails)."""
    tokenizer: Optional[Union[Tokenizer, TokenizerFile]]
    """What text is counted in: ``o200k_base`` (GPT-4o, 4.1, 5.x, o-series), ``cl100k_base`` (GPT-4,
    3.5) or ``bytes``; or ``{"file": PATH}``, a Hugging Face tokenizer.json (or the folder holding
    it): its exact text counts, framing estimated. Default: the tokenizer of ``model`` when known,
    else ``o200k_base`` (an estimate) with ``context_tokens``, bytes with ``max_bytes``."""
    token_factor: Optional[float]
    """Multiplies token counts (default 1; 1.35 for Claude and 1.25 for the Gemini models counted
    with ``o200k_base``: 1.5, 3.1 and later)."""
    observed_usage: Optional[Sequence[Sequence[int]]]
    """The provider's counts of earlier requests, ``[[counted, input_tokens], ...]``: each answer's
    report.token_factor.counted and the input tokens the provider reported for it; the factor of a
    model counted with a margin (Claude, Gemini) is then set from them (``token_factor`` wins)."""
    overhead_tokens: Optional[int]
    """Request framing the caller does not list, in tokens, when costs are tokens (default 256)."""
    clear_tool_results: Optional[Union[bool, ClearToolResults]]
    """Before dropping whole tool exchanges, replace the results of those older than the newest
    ``keep`` (default 3) with a placeholder, oldest first: ``True``, or ``{keep, exclude_tools,
    placeholder, clear_at_least, clear_tool_inputs}`` (exchanges calling a tool of exclude_tools
    keep theirs; once clearing starts it clears at least clear_at_least; clear_tool_inputs: the
    cleared exchanges' call arguments become ``{}`` too)."""
    strict_model: Optional[bool]
    """A ``model`` no family claims is an error rather than a warning."""
    fill: Optional[bool]
    """The room left goes to the newest first: texts shedding cut get it back, then the group where
    selection stopped comes back shrunk into it (default ``True``; ``False``: whole groups only)."""
    trim_to: Optional[float]
    """Cache-stable trimming: when something must go, remove down to this share (0 < share ≤ 1) of
    the budget and of ``max_messages``, so the calls after it only append; the report's cut says
    where the kept run starts. A session trims with 0.75 by default and carries each answer's cut to
    the next trim (``None`` opts it out)."""
    cut: Optional[int]
    """The previous answer's report.cut: while the messages from that index on fit, keep exactly
    them (the cut never moves back)."""
    # </options>


class Summary(TypedDict):
    """The caller's summary of its messages up to ``through`` (inclusive): placed right after
    the pinned message in their stead (see ``docs/cache-stable.md``)."""

    text: str
    through: int


# What to summarise next, when the cut of a cache-stable trim moved: the input messages
# ``from``..``through`` (``messages``: each index of the range), and what a summary of them
# may cost and still fit (``budget_tokens`` or ``budget_bytes``, by the report's unit;
# None without a budget). ``from`` is a keyword: the functional form.
Compaction = TypedDict(
    "Compaction",
    {
        "from": int,
        "through": int,
        "messages": list[int],
        "budget_tokens": Optional[int],
        "budget_bytes": Optional[int],
    },
    total=False,
)


class SummaryPlaced(TypedDict):
    """Where the request's summary stands among the returned messages."""

    output_index: int


class TrimOptions(AdapterOptions, total=False):
    """The keyword options of ``ankita.trim`` but ``format`` and ``system`` (which choose the
    messages' type): ``trim(messages, **options)`` with ``options: TrimOptions`` type-checks
    its keys and values."""

    # <options trim-options> generated from src/request/options.rs by tests/option_table.rs
    summary: Optional[Summary]
    """The caller's summary of its messages up to an index, ``{"text": ..., "through": n}``: placed
    right after the pinned message in their stead; the report's compaction says what to summarise
    next when the cut moves."""
    cache_breakpoint: Optional[bool]
    """Put the provider's prompt-cache breakpoint on the last block that can carry one before the
    newest user message: Anthropic's cache_control, or OpenAI's prompt_cache_breakpoint in the chat,
    Responses and AI SDK formats for GPT-5.6 and later (other models: a warning, none placed); never
    a fifth breakpoint."""
    # </options>


class RequestOptions(TrimOptions, total=False):
    """Every request key but ``messages``: the keyword options of ``Session(...)``,
    ``Session.restore`` and ``trim_many`` (``format`` and ``system`` included)."""

    # <options request-options> generated from src/request/options.rs by tests/option_table.rs
    format: Optional[MessageFormat]
    """The messages' wire format: ``openai`` (Chat Completions, the default), ``anthropic``
    (Messages API), ``responses`` (Responses API input items), ``gemini`` (Gemini contents, in
    either spelling) or ``ai-sdk`` (the Vercel AI SDK's model messages)."""
    system: Any
    """The system prompt given outside the messages: the ``anthropic`` format's top-level system (a
    string or text blocks), the ``responses`` format's instructions (a string) or the ``gemini``
    format's system instruction (a string, a content or parts); pinned, never trimmed, its cost
    counted."""
    # </options>


class CacheBreakpoint(TypedDict):
    """``cache_breakpoint``: where the breakpoint (Anthropic's ``cache_control``, OpenAI's
    ``prompt_cache_breakpoint``) stands, as the index among the returned messages and the block
    (``given``: the caller's message had it)."""

    output_index: int
    part: int
    given: bool


class _TokenFactorFields(TypedDict):
    value: float
    source: Literal["tokenizer", "fixed_margin", "caller", "observed"]
    observations: int


class TokenFactor(_TokenFactorFields, total=False):
    """``report["token_factor"]`` (reports in tokens) and what ``Session.observe_usage`` answers:
    the factor token counts were multiplied by, and where it comes from: ``"tokenizer"`` (the
    tokenizer's own counts, 1), ``"fixed_margin"`` (the model family's safety margin: Claude
    o200k_base × 1.35, Gemini 1.5 and 3.1+ × 1.25, …), ``"caller"`` (``token_factor``) or
    ``"observed"`` (set by the provider's counts, ``Session.observe_usage`` or ``observed_usage``);
    ``observations``: how many were given. In a report, ``counted`` is the trim's count of the
    request before the factor (history, tools, memory), to pair with the provider's input tokens of
    that request in the next call's ``observed_usage``."""

    counted: int


class _TrimReportFields(TypedDict):
    format: MessageFormat
    unit: Literal["tokens", "bytes"]
    tokenizer: Tokenizer
    exact: bool
    budget_bytes: Optional[int]
    budget_tokens: Optional[int]
    cost_bytes: Optional[int]
    cost_tokens: int
    input_messages: int
    output_messages: int
    dropped_messages: list[int]
    truncated: list[Truncation]
    dropped_images: list[DroppedImage]
    dropped_files: list[DroppedFile]
    dropped_attachments: list[DroppedAttachment]
    limited_by: Optional[Literal["max_messages", "budget", "cut"]]
    refilled: list[int]
    cleared_tool_results: list[ClearedToolResult]
    warnings: list[TrimWarning]
    repaired: list[Repair]


class TrimReport(_TrimReportFields, total=False):
    """What ``trim`` removed or changed, by input index (the JSON contract's report).
    ``index`` is always the message's index in the input, ``part`` its index in the message's
    content (None for string content). ``limited_by`` says which limit bound the answer
    ("max_messages", "budget", or None when everything fit both); ``refilled`` lists the
    messages that came back after shedding freed budget. ``merged``, ``dropped_blocks`` and
    ``turn_start`` are there for the Anthropic and Gemini formats only, ``turn_start`` in the
    others too when a tokenizer file's chat template refuses a chat that opens on the
    assistant's turn (Gemma's) and the user's message was brought back. ``cut`` (cache-stable
    trimming: with ``trim_to`` or ``cut``, and in a ``Session`` by default) is the input index
    where the kept run starts, to pass as the next call's ``cut`` (None when nothing was
    removed; ``limited_by`` is "cut" when the given cut dropped the older messages);
    ``cache_breakpoint`` is there when it was asked for; ``summary`` when the request's summary
    was placed, ``compaction`` when the cut moved (what to summarise next). ``token_factor``
    (in tokens) says what token counts were multiplied by, and why."""

    token_factor: TokenFactor
    merged: list[Merge]
    dropped_blocks: list[DroppedBlock]
    turn_start: Optional[TurnStart]
    cut: Optional[int]
    cache_breakpoint: Optional[CacheBreakpoint]
    summary: SummaryPlaced
    compaction: Compaction


class _SanitizeReportFields(TypedDict):
    repaired: list[Repair]


class SanitizeReport(_SanitizeReportFields, total=False):
    """What ``sanitize_with_report`` repaired (and, for the Anthropic format, merged)."""

    format: MessageFormat
    merged: list[Merge]


class _TokenCountFields(TypedDict):
    unit: Literal["tokens", "bytes"]
    tokenizer: Tokenizer
    exact: bool
    total: int
    messages: list[int]


class TokenCount(_TokenCountFields, total=False):
    """What ``count_tokens`` answers: each message's cost as ``trim`` prices it, their
    ``total``, and how they were counted (``exact`` is False for bytes and for the estimates of
    Claude models and the Gemini models Gemma 3 does not count). ``system`` is the Anthropic
    format's top-level system's cost; ``warnings`` is there when the model is one no family
    claims (``unknown_model``)."""

    system: int
    warnings: list[TrimWarning]

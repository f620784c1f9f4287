"""Type stubs of the native module ``ankita._ankita`` (import it as ``ankita``)."""

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar, Union, final, overload

from typing_extensions import Unpack

from ._types import (
    ClearToolResults,
    FileInfo,
    ImageFormat,
    MessageFormat,
    OnImageOverflow,
    RequestOptions,
    SanitizeReport,
    Summary,
    TokenCount,
    TokenFactor,
    Tokenizer,
    TokenizerFile,
    TrimReport,
)

__version__: str
__all__ = [
    "AnkitaError",
    "ContextBudgetExceeded",
    "HistoryBudgetTooSmall",
    "ImageInfo",
    "ImageOverflow",
    "InvalidRequest",
    "Session",
    "TrimResult",
    "__version__",
    "_all_dicts",
    "count_tokens",
    "estimate_image_tokens",
    "formats",
    "probe_file",
    "probe_image",
    "sanitize",
    "sanitize_json",
    "sanitize_with_report",
    "trim",
    "trim_json",
    "trim_many",
]

_M = TypeVar("_M", bound=Mapping[str, Any])
_T = TypeVar("_T")

@final
class TrimResult(Generic[_T]):
    """What ``trim`` returns: the trimmed messages and the report.

    ``messages`` shares the caller's objects: a message that trimming left alone is the very
    object that was passed in (a dict or an SDK object, not a copy), and a changed one is a
    shallow copy of the dict (of an SDK object's dict form) whose unchanged parts are again the
    caller's own objects. Copy before mutating either side if both are kept.
    """

    @property
    def messages(self) -> list[_T]:
        """The messages to send, in order."""

    @property
    def report(self) -> TrimReport:
        """What was removed or changed (a dict shaped like the JSON contract's report)."""

    @property
    def system(self) -> Any:
        """The system prompt given outside the messages (Anthropic's top-level ``system``, the
        Responses format's instructions, Gemini's system instruction), as given (your own
        object), or None."""

@final
class Session:
    """An incremental session: a chat history handed over as it happens, trimmed at any time.

    ``Session(messages=None, **options)`` takes the keyword options of ``trim``. ``append``
    adds messages (each is converted once, when appended), ``truncate(n)`` keeps the first
    ``n`` (then append the edited or regenerated tail), ``trim()`` answers what ``trim`` answers
    for the same messages and options: a ``TrimResult`` whose unchanged messages are the objects
    given to ``append``. ``snapshot()`` is the list of messages held (to save);
    ``Session.restore(saved, **options)`` makes a session of them again.

    A session is cache-stable by default: given neither ``trim_to`` nor ``cut``, it trims with
    ``trim_to=0.75`` and carries each result's ``report["cut"]`` to the next trim, so the
    history's prefix (which a provider's prompt cache serves) holds from call to call: a
    trim that must remove something removes down to that share of the budget, and does not
    fill. ``trim_to=None`` opts out: ``trim()`` then answers what ``trim`` answers without
    ``trim_to`` and ``cut``.

    ``summarize(messages, previous)`` (optional) summarises what the cut removes: when a trim's
    cut moves, the session calls it with the messages to fold in (the objects given, as
    ``report["compaction"]`` names them) and the previous summary's text (or None), and trims
    again with the returned text placed right after the pinned message in their stead (see
    ``docs/cache-stable.md``); an exception, a result that is not a str, or a summary that does
    not fit leaves the trim as it was, with a warning. An async ``summarize`` (a coroutine
    function, or one returning an awaitable) is awaited by ``await session.trim_async()``;
    ``trim()`` raises TypeError for it.

    A session is used by one thread at a time: a call while another thread's call on the same
    session runs raises RuntimeError. The GIL is released while the plan is computed.
    """

    @overload
    def __new__(
        cls,
        messages: Sequence[Any] | None = None,
        *,
        summarize: Callable[[list[Any], str | None], str] | None = None,
        **options: Unpack[RequestOptions],
    ) -> Session: ...
    @overload
    def __new__(
        cls,
        messages: Sequence[Any] | None = None,
        *,
        summarize: Callable[[list[Any], str | None], Awaitable[str]],
        **options: Unpack[RequestOptions],
    ) -> Session: ...
    def append(self, messages: Sequence[Any]) -> int:
        """Appends messages (a list or tuple); returns how many the session holds."""
    def truncate(self, length: int) -> int:
        """Keeps the first ``length`` messages; returns how many the session holds."""
    def trim(self) -> TrimResult[Any]:
        """Trims the history held: what ``trim`` answers for the same messages and options.
        An async ``summarize`` raises TypeError: use ``trim_async``."""
    async def trim_async(self) -> TrimResult[Any]:
        """Trims the history held, as ``trim`` does, awaiting ``summarize`` when it is async
        (outside the session, which other tasks may use meanwhile); a sync one is called as
        ``trim`` calls it."""
    def snapshot(self) -> list[Any]:
        """The messages held, as a new list of the objects given (to save, then restore)."""
    def observe_usage(self, input_tokens: int) -> TokenFactor:
        """Gives the provider's count of the input tokens of the request that sent the last
        trim's messages (the response's ``usage.input_tokens``; Gemini's
        ``usage_metadata.prompt_token_count``): the session compares it with its own count and,
        for a model counted with a margin (Claude, Gemini), sets the factor the next trims
        count with from the evidence (see docs/tokens-and-models.md). Returns the factor the
        next trim uses, as its ``report["token_factor"]`` will say. Raises AnkitaError (code
        "invalid_argument") for a session counting bytes, before the first trim, for a count
        below 1, or for one no factor from 0.1 to 10 explains."""
    @overload
    @classmethod
    def restore(
        cls,
        messages: Sequence[Any],
        *,
        summarize: Callable[[list[Any], str | None], str] | None = None,
        **options: Unpack[RequestOptions],
    ) -> Session:
        """A session holding ``messages`` (a snapshot, or what an application saved)."""
    @overload
    @classmethod
    def restore(
        cls,
        messages: Sequence[Any],
        *,
        summarize: Callable[[list[Any], str | None], Awaitable[str]],
        **options: Unpack[RequestOptions],
    ) -> Session: ...
    def __len__(self) -> int: ...
    @property
    def bytes_held(self) -> int:
        """Bytes the core holds for this session: its copy of the messages' JSON, and what it
        keeps to trim them again without reading them again."""
    @property
    def bytes_given(self) -> int:
        """Bytes of JSON handed to the core so far (the options and every append; large
        screenshots as header-only stand-ins)."""

@final
class ImageInfo:
    """What an image's header says, and its price."""

    @property
    def format(self) -> ImageFormat:
        """ "png", "jpeg", "gif" or "webp" (from the magic bytes, never from a MIME type)."""

    @property
    def width(self) -> int:
        """Width in pixels."""

    @property
    def height(self) -> int:
        """Height in pixels."""

    @property
    def tokens(self) -> int:
        """Vision tokens under the profile asked for (default "ankita")."""

    @property
    def budget_bytes(self) -> int:
        """What the image costs against a byte budget: tokens × 4."""

    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self, /) -> int: ...

class AnkitaError(ValueError):
    """Base class of every error ankita raises; a ValueError.

    ``str(error)`` is the message followed by the path, e.g.
    ``type is missing (at messages[3].content[1].type)``.
    """

    code: str
    """The JSON contract's error code, e.g. "invalid_request", "invalid_argument"."""
    message: str
    """The message without the path."""
    path: str | None
    """Where in the request, e.g. "messages[3].content[1].type", or None."""
    details: dict[str, Any]
    """The other keys of the error object, e.g. "breakdown"."""

class InvalidRequest(AnkitaError):
    """The request does not follow the contract (code "invalid_request"): a message of the wrong
    shape, an unknown or invalid option, a value that is not JSON. ``path`` says where."""

class ContextBudgetExceeded(AnkitaError):
    """The pinned system message, the current request and the tool schemas alone exceed the
    budget (code "context_budget_exceeded")."""

    breakdown: dict[str, int]
    """Where the budget went: history_bytes, system_bytes, request_bytes, required_bytes, …"""

class HistoryBudgetTooSmall(AnkitaError):
    """Fewer than 512 bytes are left for the history once the output, overhead, tool schemas
    and memory are reserved (code "history_budget_too_small")."""

    breakdown: dict[str, int]
    """Where the context window went: context_bytes, output_reserve_bytes, …, history_bytes."""

class ImageOverflow(AnkitaError):
    """An image had to be dropped and on_image_overflow is "error" (code "image_overflow").
    ``path`` names the image part."""

def trim(
    messages: Sequence[_M],
    *,
    # <options trim-keywords> generated from src/request/options.rs by tests/option_table.rs
    max_bytes: int | None = None,
    context_tokens: int | None = None,
    max_output_tokens: int | None = 0,
    tools: Sequence[Mapping[str, Any]] | None = None,
    memory: str | Sequence[str] | None = None,
    overhead_bytes: int | None = 1024,
    bytes_per_token: int | None = 4,
    max_messages: int | None = ...,
    image_profile: str | None = "ankita",
    model: str | None = None,
    image_sizes: Mapping[str, Sequence[int]] | None = None,
    file_sizes: Mapping[str, float] | None = None,
    on_image_overflow: OnImageOverflow | None = "placeholder",
    format: MessageFormat | None = "openai",
    system: Any = None,
    tokenizer: Tokenizer | TokenizerFile | None = None,
    token_factor: float | None = None,
    observed_usage: Sequence[Sequence[int]] | None = None,
    overhead_tokens: int | None = None,
    clear_tool_results: bool | ClearToolResults | None = None,
    strict_model: bool | None = False,
    fill: bool | None = True,
    trim_to: float | None = None,
    cut: int | None = None,
    summary: Summary | None = None,
    cache_breakpoint: bool | None = False,
    # </options>
) -> TrimResult[_M]:
    """Fits a chat history into a context budget.

    ``messages`` is a list (or tuple) of OpenAI-style message dicts, as the openai SDK or
    ``json.load`` give them (None content and extra keys are fine). The keyword options are the
    request keys of the JSON contract:

    - ``max_bytes``: the history budget in bytes; or ``context_tokens`` (the model's window)
      with ``max_output_tokens``, ``tools`` (the tool schemas), ``memory`` (text placed
      elsewhere in the prompt) and ``overhead_bytes`` to derive it; when both are given the
      smaller wins; with neither only ``max_messages`` applies;
    - ``bytes_per_token``, ``max_messages`` (not given: no count limit with a budget, 40
      without one; ``None``: no count limit);
    - ``image_profile`` or ``model`` (e.g. "gpt-4o"): how images are priced; ``image_sizes``:
      ``{url: (width, height)}`` for remote images whose size the caller knows (``file_sizes``:
      ``{url or file id: pages or seconds}`` for remote files); any model name
      answers (provider prefixes and routes such as "openrouter/openai/gpt-4o", Bedrock ids,
      dated suffixes): one no family claims is priced by the default recipe, counted with
      o200k_base × 1.35, and ``report["warnings"]`` holds an ``unknown_model`` entry saying so;
      ``strict_model=True`` makes it an InvalidRequest instead;
    - ``on_image_overflow``: "placeholder", "drop" or "error";
    - ``fill`` (default True): the room left goes to the newest first: texts that shedding
      cut get it back, then the group where selection stopped comes back shrunk into it;
      False keeps whole groups only;
    - ``trim_to`` and ``cut`` (cache-stable trimming): when something must go, remove down to
      ``trim_to`` (in (0, 1]) of the budget and of ``max_messages``; given the previous
      result's ``report["cut"]`` as ``cut``, keep exactly the messages from it on while they
      fit, so a provider's prompt cache serves the history's prefix from call to call;
      ``cache_breakpoint=True`` puts the provider's breakpoint on the last block before the
      newest user message (Anthropic's ``cache_control``; OpenAI's ``prompt_cache_breakpoint``
      in the chat, Responses and AI SDK formats, GPT-5.6 and later);
      ``summary={"text": ..., "through": n}`` (the caller's summary of its messages up to ``n``)
      is placed right after the pinned message in their stead, and ``report["compaction"]``
      says what to summarise next when the cut moves;
    - ``format``: "openai", "anthropic" for Anthropic Messages, whose top-level ``system``
      (a string or text blocks) is then given as ``system`` and returned as
      ``TrimResult.system``; "responses" for OpenAI Responses input items (the openai SDK's
      ``ResponseInputItemParam`` dicts), whose ``instructions`` string is given as ``system``;
      or "gemini" for Gemini ``contents`` (google-genai ``types.Content`` objects or their
      dicts, camelCase or snake_case), whose system instruction (a string, a ``Content`` or
      parts) is given as ``system`` the same way.

    None means "not given". An unknown keyword raises InvalidRequest at run time, like an
    unknown request key.

    The result's messages share the caller's objects: an unchanged message is the same dict
    object that was passed in, a changed one a shallow copy (``dict.copy()``) with ``content``
    replaced and/or ``tool_calls`` removed, whose unchanged parts are again the caller's
    objects. (Anthropic messages and Gemini contents that changed or were merged, and
    Responses items that changed, come back as new dicts.) The caller's list and dicts are never
    mutated.

    Raises InvalidRequest (with ``path``), ContextBudgetExceeded, HistoryBudgetTooSmall or
    ImageOverflow; all are AnkitaError, a ValueError. The GIL is released while the plan is
    computed, so threads can trim at the same time.
    """

def count_tokens(
    messages: Sequence[Any],
    *,
    model: str | None = None,
    tokenizer: Tokenizer | TokenizerFile | None = None,
    token_factor: float | None = None,
    format: MessageFormat | None = None,
    system: object = None,
    image_profile: str | None = None,
    strict_model: bool | None = None,
) -> TokenCount:
    """Counts ``messages`` the way ``trim`` prices them: in the model's tokens when its
    tokenizer is known, else in bytes. Raises InvalidRequest."""

def sanitize(messages: Sequence[_M], *, format: MessageFormat | None = None) -> list[_M]:
    """Repairs a restored session without trimming: orphan tool replies, malformed or
    unanswered tool calls, unknown roles and empty messages go. Unchanged messages are the
    caller's own dict objects (see ``trim``). ``format="anthropic"`` repairs Anthropic Messages,
    ``format="gemini"`` Gemini contents (those changed or merged come back as new dicts),
    ``format="responses"`` Responses input items. A long history in a format that merges no
    turns is read from its last message: of the older ones only those repair may depend on
    are converted (docs/long-histories.md). Raises InvalidRequest."""

def sanitize_with_report(
    messages: Sequence[_M], *, format: MessageFormat | None = None
) -> tuple[list[_M], SanitizeReport]:
    """Like ``sanitize``, but also returns the report: ``(messages, {"repaired": [...]})``."""

def _all_dicts(messages: object) -> bool:
    """Whether ``messages`` is a list of dicts whose list contents hold dicts (exact types)."""

def formats() -> dict[str, Any]:
    """Every format's facts, as the core states them: ``{"default": name, "formats": [{"name",
    "takes_system", "merges_turns", "user_turn_first", "rebuilds_messages", "content_key",
    "plain", "stand_in", "turns"}, ...], "tail": {...}}`` (``plain``, ``stand_in`` and
    ``turns``: what the trim of a long history may leave out of its request or send as a
    stand-in; ``tail``: how it widens its tail)."""

def probe_image(
    data: str | bytes | bytearray,
    *,
    profile: str | None = None,
    model: str | None = None,
    detail: str | None = None,
    strict_model: bool | None = None,
) -> ImageInfo | None:
    """Reads an image's format and pixel size from its header, and prices it.

    ``data`` is a data URL or bare base64 text (str), or the raw image bytes. Only the header
    is read: a 20 MB screenshot costs the same as a 20 KB one. ``profile`` or ``model`` choose
    the pricing rule and ``detail`` is the part's ``image_url.detail``.

    Returns None when the image cannot be decoded (not base64, BMP, TIFF, a truncated header,
    a zero size). Raises InvalidRequest for an unknown profile; a model no family claims is
    priced by the default rule with a ``UserWarning`` (``strict_model=True``: InvalidRequest).
    """

def probe_file(
    data: str | bytes | bytearray,
    *,
    profile: str | None = None,
    model: str | None = None,
    detail: str | None = None,
    strict_model: bool | None = None,
) -> FileInfo | None:
    """Reads a PDF's page count and page size, or an audio file's duration (WAV, FLAC, MP3,
    Ogg Vorbis/Opus, MP4), from its structure, and prices it (Gemini 2.5: 258 tokens a page,
    32 a second; see docs/documents-and-audio.md).

    ``data`` is a data URL or bare base64 text (str), or the raw bytes. Returns None when the
    file cannot be read (encrypted, damaged, neither a PDF nor audio). Raises InvalidRequest
    for an unknown profile or model.
    """

def estimate_image_tokens(
    width: int,
    height: int,
    *,
    profile: str | None = None,
    model: str | None = None,
    detail: str | None = None,
    strict_model: bool | None = None,
) -> int:
    """Vision tokens of an image of ``width`` × ``height`` pixels.

    ``profile`` names the pricing rule ("ankita" by default, "openai", "anthropic", "gemini",
    …) and ``model`` picks the rule and parameters of a model ("gpt-4o", …); give one or the
    other. ``detail`` is the part's ``image_url.detail``. A model no family claims is priced by
    the default rule with a ``UserWarning`` (``strict_model=True``: InvalidRequest). Raises
    InvalidRequest for an unknown profile, AnkitaError (code "invalid_argument") for a side
    outside 1..2**32-1.

    >>> estimate_image_tokens(1700, 2200)
    765
    """

def trim_json(request: str) -> str:
    """Trims a request given as JSON text and answers JSON text: the raw contract that the C
    ABI speaks. Never raises for a bad request: failures are ``{"ok": false, "error": ...}``."""

class _ArrowArray(Protocol):
    """An Arrow array (pyarrow's ``Array``) exported through the Arrow PyCapsule interface."""

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]: ...

class _ArrowChunkedArray(Protocol):
    """An Arrow chunked array (pyarrow's ``ChunkedArray``)."""

    def __arrow_c_stream__(self, requested_schema: object = None) -> object: ...
    @property
    def chunks(self) -> list[Any]: ...

_Request = Union[str, bytes, bytearray, Mapping[str, Any], Sequence[Any]]  # noqa: UP007 (3.9)
"""One request of ``trim_many``: JSON text (an object, or a bare messages array), a request
dict or a messages list."""

def trim_many(
    requests: Iterable[_Request] | _ArrowArray | _ArrowChunkedArray,
    *,
    threads: int | None = None,
    **options: Unpack[RequestOptions],
) -> list[str]:
    """Trims many requests at once, in order, on ``threads`` threads (default: every core), with
    the GIL released: the answers are the JSON texts ``trim_json`` answers, one per request.

    A request is JSON text (``str`` or ``bytes``: an object, or a bare messages array read as
    ``{"messages": [...]}``), a request dict or a messages list; ``requests`` is any iterable of
    them, or a pyarrow string or binary array (or chunked array), read in place without a Python
    object per row. ``options`` are request keys (``context_tokens=8000``, ``model="gpt-4o"``,
    ``format="anthropic"``, ...) that fill in the keys a request lacks (a request's own keys
    win), as ``ankita trim --jsonl`` does with its flags; ``None`` is not given, but for
    ``max_messages``, where it means no count limit.

    A bad request is answered with its error JSON (``{"ok": false, "error": ...}``), never an
    exception for the whole batch. Raises ``InvalidRequest`` for an unknown option or a bad
    option value (checked once, before any row), ``ValueError`` for ``threads`` below 1 and
    ``TypeError`` when ``requests`` is a single request or not iterable.
    """

def sanitize_json(messages: str) -> str:
    """Repairs a messages array (or ``{"messages": [...]}``) given as JSON text; answers JSON
    text."""

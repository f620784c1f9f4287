"""``trim`` and ``sanitize`` for messages that are SDK objects as well as dicts.

The native functions read any value the JSON converter accepts, SDK objects included (a
pydantic model as ``model_dump(mode="json", exclude_none=True)``, another object through
``to_dict()``), and return the caller's own object for a message they leave unchanged. A
changed message is built as a shallow copy of a mapping, so a message that is an object, or
whose content list holds objects, is handed to them as its dict form; an unchanged one is then
put back as the caller's object, and a changed one comes back as a dict.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from . import _ankita
from ._ankita import TrimResult
from ._types import (
    MessageFormat,
    SanitizeReport,
    TokenCount,
    Tokenizer,
    TokenizerFile,
    TrimOptions,
)

# The core's facts of every format (`format::facts`): no list of format names here.
_FORMATS = _ankita.formats()
# Formats whose changed messages the core rebuilds whole (new dicts, merged or not): the
# native functions take SDK objects as they are and return them for unchanged messages.
_REBUILT_FORMATS = frozenset(f["name"] for f in _FORMATS["formats"] if f["rebuilds_messages"])


def _rebuilds(format: Any) -> bool:
    """Whether the format ``format`` names (None: the default) rebuilds changed messages."""
    return (_FORMATS["default"] if format is None else format) in _REBUILT_FORMATS


_M = TypeVar("_M", bound=Mapping[str, Any])
_O = TypeVar("_O")

if TYPE_CHECKING:
    # Gemini contents as google-genai types them (for type checkers only: ankita does not need
    # google-genai; without it these names are Any).
    from google.genai.types import ContentUnionDict as _GeminiContent
    from typing_extensions import Unpack


def _dumped(obj: Any) -> Any:
    """The JSON form of an SDK object, or the object itself when it has none."""
    if isinstance(obj, type) or type(obj).__module__.startswith("langchain_core.messages"):
        return obj  # the native converter points a LangChain message at ankita.langchain
    try:
        model_dump = getattr(obj, "model_dump", None)
        if callable(model_dump):
            return model_dump(mode="json", exclude_none=True)
        to_dict = getattr(obj, "to_dict", None)
        if callable(to_dict):
            return to_dict()
    except Exception:
        pass  # the native converter raises InvalidRequest for it, with its path
    return obj


def _is_mapping(value: Any) -> bool:
    return type(value) is dict or isinstance(value, Mapping)


def _as_mapping(message: Any) -> Any:
    """``message`` when the native functions can copy it as it is; otherwise its dict form."""
    if not _is_mapping(message):
        return _dumped(message)
    content = message.get("content")
    if content is None or type(content) is str:
        return message
    if type(content) is list or type(content) is tuple:
        if all(_is_mapping(part) for part in content):
            return message
        parts = [part if _is_mapping(part) else _dumped(part) for part in content]
    elif isinstance(content, str) or _is_mapping(content):
        return message
    else:
        parts = _dumped(content)
    copy = dict(message)
    copy["content"] = parts
    return copy


def _prepared(messages: Any) -> tuple[Any, dict[int, Any]]:
    """The messages to hand over, and the caller's object of each one handed over as its dict
    form (by the dict's id); the messages themselves when none needs a dict form."""
    if _ankita._all_dicts(messages):
        return messages, {}
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        return messages, {}  # the native function says what is wrong with it
    sent: list[Any] | None = None
    originals: dict[int, Any] = {}
    for i, message in enumerate(messages):
        mapping = _as_mapping(message)
        if mapping is not message:
            if sent is None:
                sent = list(messages)
            sent[i] = mapping
            originals[id(mapping)] = message
    return (messages if sent is None else sent), originals


def _restored(messages: list[Any], originals: dict[int, Any]) -> None:
    """Puts the caller's objects back in place of the unchanged copies, in place."""
    if originals:
        for i, message in enumerate(messages):
            original = originals.get(id(message))
            if original is not None:
                messages[i] = original


# Gemini contents first: a ContentDict is a Mapping too, and Gemini's answer is typed as
# google-genai's contents (what generate_content takes), not as the input's element type.
@overload
def trim(  # type: ignore[overload-overlap]
    messages: Sequence[_GeminiContent],
    *,
    format: Literal["gemini"],
    system: str | _GeminiContent | Sequence[Any] | Mapping[str, Any] | None = None,
    **options: Unpack[TrimOptions],
) -> TrimResult[_GeminiContent]: ...


@overload
def trim(
    messages: Sequence[_M],
    *,
    format: MessageFormat | None = None,
    system: str | Sequence[Any] | Mapping[str, Any] | None = None,
    **options: Unpack[TrimOptions],
) -> TrimResult[_M]: ...


@overload
def trim(
    messages: Sequence[_O],
    *,
    format: MessageFormat | None = None,
    system: str | Sequence[Any] | Mapping[str, Any] | None = None,
    **options: Unpack[TrimOptions],
) -> TrimResult[_O | dict[str, Any]]: ...


def trim(messages: Sequence[Any], **options: Any) -> TrimResult[Any]:
    """Fits a chat history into a context budget.

    ``messages`` is a list (or tuple) of OpenAI-style messages: dicts, as ``json.load`` or the
    openai SDK's ``ChatCompletionMessageParam`` give them, or SDK objects such as the openai
    SDK's ``ChatCompletionMessage`` (any pydantic model, read as
    ``model_dump(mode="json", exclude_none=True)``, or object with ``to_dict()``), at any depth.
    The keyword options are the request keys of the JSON contract:

    - ``max_bytes``: the history budget in bytes; or ``context_tokens`` (the model's window)
      with ``max_output_tokens``, ``tools`` (the tool schemas), ``memory`` (text placed
      elsewhere in the prompt) and ``overhead_bytes`` to derive it; when both are given the
      smaller wins; with neither only ``max_messages`` applies;
    - ``bytes_per_token``, ``max_messages``;
    - ``tokenizer`` ("o200k_base", "cl100k_base" or "bytes"), or a ``model`` whose tokenizer is
      known (GPT-4o, 4.1, 5.x, o-series, GPT-4, 3.5): costs are then the model's tokens and the
      budget is ``context_tokens - max_output_tokens - overhead_tokens`` minus the tokens of
      ``tools`` and ``memory``; Gemini 2.0, 2.5 and 3 are counted exactly with Gemma 3's
      tokenizer; Claude and the other Gemini models are estimated (o200k_base times a
      safety factor, ``token_factor`` overriding it);
    - ``image_profile`` or ``model`` (e.g. "gpt-4o"): how images are priced; ``image_sizes``:
      ``{url: (width, height)}`` for remote images whose size the caller knows (``file_sizes``:
      ``{url or file id: pages or seconds}`` for remote files); any model name
      answers (provider prefixes and routes such as "openrouter/openai/gpt-4o", Bedrock ids,
      dated suffixes): one no family claims is priced by the default recipe, counted with
      o200k_base × 1.35, and ``report["warnings"]`` holds an ``unknown_model`` entry saying so;
      ``strict_model=True`` makes it an InvalidRequest instead;
    - ``on_image_overflow``: "placeholder", "drop" or "error";
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
    - ``format``: "openai" or "anthropic" for Anthropic Messages (the anthropic SDK's blocks
      are fine too), whose top-level ``system`` (a string or text blocks) is then given as
      ``system`` and returned as ``TrimResult.system``; "responses" for OpenAI Responses
      input items (the openai SDK's ``ResponseInputItemParam`` dicts, or the items of
      ``response.output``), whose ``instructions`` string is then given as ``system``; or
      "gemini" for Gemini ``contents`` (google-genai ``types.Content`` objects, or their dicts in
      either spelling), whose system instruction (a string, a ``Content`` or parts) is given as
      ``system`` the same way.

    None means "not given". An unknown keyword raises InvalidRequest, like an unknown request
    key.

    The result's messages share the caller's objects: an unchanged message is the very object
    that was passed in (a dict or an SDK object), a changed one a new dict (a shallow copy of
    the dict, or of the object's dict form) with ``content`` replaced and/or ``tool_calls``
    removed, whose unchanged parts are again the caller's objects. (Anthropic messages and
    Gemini contents that changed or were merged, and Responses items that changed, come back as
    new dicts.) Nothing passed in is mutated.

    Raises InvalidRequest (with ``path``), ContextBudgetExceeded, HistoryBudgetTooSmall or
    ImageOverflow; all are AnkitaError, a ValueError. The GIL is released while the plan is
    computed, so threads can trim at the same time.
    """
    if _rebuilds(options.get("format")):
        return _ankita.trim(messages, **options)
    sent, originals = _prepared(messages)
    result: TrimResult[Any] = _ankita.trim(sent, **options)
    _restored(result.messages, originals)
    return result


# help() and editors show the keywords, not **options.
trim.__signature__ = inspect.signature(_ankita.trim)  # type: ignore[attr-defined]


@overload
def sanitize(messages: Sequence[_M], *, format: MessageFormat | None = None) -> list[_M]: ...


@overload
def sanitize(
    messages: Sequence[_O], *, format: MessageFormat | None = None
) -> list[_O | dict[str, Any]]: ...


def sanitize(messages: Sequence[Any], *, format: MessageFormat | None = None) -> list[Any]:
    """Repairs a restored session without trimming: orphan tool replies, malformed or
    unanswered tool calls, unknown roles and empty messages go. Unchanged messages are the
    caller's own objects, dicts or SDK objects (see ``trim``). ``format="anthropic"`` repairs
    Anthropic Messages, ``format="gemini"`` Gemini contents (those changed or merged come back
    as new dicts), ``format="responses"`` Responses input items (orphan outputs, calls without
    outputs and their reasoning, reasoning items with nothing after them). Raises
    InvalidRequest."""
    return sanitize_with_report(messages, format=format)[0]


@overload
def sanitize_with_report(
    messages: Sequence[_M], *, format: MessageFormat | None = None
) -> tuple[list[_M], SanitizeReport]: ...


@overload
def sanitize_with_report(
    messages: Sequence[_O], *, format: MessageFormat | None = None
) -> tuple[list[_O | dict[str, Any]], SanitizeReport]: ...


def sanitize_with_report(
    messages: Sequence[Any], *, format: MessageFormat | None = None
) -> tuple[list[Any], SanitizeReport]:
    """Like ``sanitize``, but also returns the report: ``(messages, {"repaired": [...]})``."""
    if _rebuilds(format):
        return _ankita.sanitize_with_report(messages, format=format)
    sent, originals = _prepared(messages)
    repaired, report = _ankita.sanitize_with_report(sent, format=format)
    _restored(repaired, originals)
    return repaired, report


def count_tokens(
    messages: Sequence[Any],
    *,
    model: str | None = None,
    tokenizer: Tokenizer | TokenizerFile | None = None,
    token_factor: float | None = None,
    format: MessageFormat | None = None,
    system: str | _GeminiContent | Sequence[Any] | Mapping[str, Any] | None = None,
    image_profile: str | None = None,
    strict_model: bool | None = None,
) -> TokenCount:
    """Counts ``messages`` (dicts or SDK objects, as ``trim`` takes them) the way ``trim``
    prices them: each message's framing, fields, texts and images, in the model's tokens when
    its tokenizer is known (``model`` or ``tokenizer``), else in bytes. Nothing is repaired:
    each message is priced as it stands.

    >>> count_tokens([{"role": "user", "content": "Hello, world"}], model="gpt-4o")["total"]
    7
    """
    sent, _ = _prepared(messages)
    return _ankita.count_tokens(
        sent,
        model=model,
        tokenizer=tokenizer,
        token_factor=token_factor,
        format=format,
        system=system,
        image_profile=image_profile,
        strict_model=strict_model,
    )

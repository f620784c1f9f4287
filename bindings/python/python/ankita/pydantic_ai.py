"""ankita for Pydantic AI: trim a ``ModelMessage`` history, as a history processor.

The ``pydantic-ai`` extra of the ``ankita-context`` wheel (``pip install
"ankita-context[pydantic-ai] @ file://…/ankita_context-….whl"``, see the README)::

    from pydantic_ai import Agent
    from pydantic_ai.capabilities import ProcessHistory
    from ankita.pydantic_ai import history_processor

    trim = history_processor(context_tokens=128_000, max_output_tokens=4_096, model="gpt-4o")
    agent = Agent("openai:gpt-4o", capabilities=[ProcessHistory(trim)])

Each ``ModelRequest`` and ``ModelResponse`` is read as the chat messages it is sent as (system
prompt, user prompt with its images, tool returns; the response's text and tool calls), trimmed
by ``ankita.trim``, and mapped back.

The history handed to the model starts on the user's turn, whatever the model: Anthropic and
Gemini reject one that starts with a ``ModelResponse``, and the newest messages that fit often
start with a tool call in a long tool loop. The chat messages are trimmed as AI SDK model
messages (``format="ai-sdk"``: the same messages one for one, under the rule of the Anthropic
and Gemini formats), so the user prompt that began the kept run's turn comes back (whole, shrunk,
or as a placeholder when even its shrunk text does not fit), and what would come before the
first user prompt goes; every kept tool call keeps its return. The report is that trim's
(``report["format"] == "ai-sdk"``, ``report["turn_start"]`` saying how the user prompt came
back). The messages are mapped back as follows: a message left alone is the caller's own
object, a message that lost some of its parts or whose text was shrunk is a new one
(``dataclasses.replace``) with the caller's other parts, and a message all of whose parts went
is left out. Parts that are not
sent as chat content (instruction deltas, native tool parts, files of a response) stay with
their message.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic_ai.messages import (
    BaseToolCallPart,
    BaseToolReturnPart,
    BinaryContent,
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    RetryFeedbackPart,
    RetryPromptPart,
    SystemPromptPart,
    TextContent,
    TextPart,
    ThinkingPart,
    UserPromptPart,
)

from ._adapters import CarriedCut, takes_options, trim_chat
from ._types import AdapterOptions, TrimReport

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["history_processor", "trim_messages", "trim_messages_with_report"]

_Part = Any  # a ModelRequestPart or ModelResponsePart


@dataclasses.dataclass
class _Sent:
    """One chat message sent for the parts ``parts`` of message ``message``."""

    message: int
    parts: list[int]
    value: dict[str, Any]
    # The caller's item of each content part sent, by the part dict's id.
    items: dict[int, Any] = dataclasses.field(default_factory=dict)


def _user_item(item: Any, items: dict[int, Any]) -> dict[str, Any]:
    """A user prompt's content item as a chat content part."""
    if isinstance(item, str):
        part: dict[str, Any] = {"type": "text", "text": item}
    elif isinstance(item, TextContent):
        part = {"type": "text", "text": item.content}
    elif isinstance(item, ImageUrl):
        part = {"type": "image_url", "image_url": {"url": item.url}}
    elif isinstance(item, BinaryContent) and item.is_image:
        part = {"type": "image_url", "image_url": {"url": item.data_uri}}
    elif isinstance(item, BinaryContent):
        part = {"type": "file", "file": {"file_data": item.data_uri}}
    else:
        url = getattr(item, "url", None)
        kind = getattr(item, "kind", type(item).__name__)
        part = {"type": "file", "file": {"file_url": url} if url else {"kind": kind}}
    items[id(part)] = item
    return part


def _request(index: int, message: ModelRequest) -> list[_Sent]:
    sent: list[_Sent] = []
    returns: list[_Sent] = []
    for j, part in enumerate(message.parts):
        if isinstance(part, SystemPromptPart):
            sent.append(_Sent(index, [j], {"role": "system", "content": part.content}))
        elif isinstance(part, UserPromptPart):
            if isinstance(part.content, str):
                sent.append(_Sent(index, [j], {"role": "user", "content": part.content}))
            else:
                items: dict[int, Any] = {}
                content = [_user_item(item, items) for item in part.content]
                sent.append(_Sent(index, [j], {"role": "user", "content": content}, items))
        elif isinstance(part, BaseToolReturnPart) and not isinstance(part, NativeToolReturnPart):
            value = {
                "role": "tool",
                "tool_call_id": part.tool_call_id,
                "content": part.model_response_str(),
            }
            returns.append(_Sent(index, [j], value))
        elif isinstance(part, RetryPromptPart) and part.tool_name is not None:
            value = {"role": "tool", "tool_call_id": part.tool_call_id, "content": ""}
            value["content"] = part.model_response()
            returns.append(_Sent(index, [j], value))
        elif isinstance(part, (RetryPromptPart, RetryFeedbackPart)):
            sent.append(_Sent(index, [j], {"role": "user", "content": part.model_response()}))
        else:
            # A summary (CompactionPart) and the like: sent as user-voice text.
            text = getattr(part, "content", None)
            if isinstance(text, str) and text:
                sent.append(_Sent(index, [j], {"role": "user", "content": text}))
    # Tool returns answer the response before: they lead the request, as providers send them.
    return returns + sent


def _response(index: int, message: ModelResponse) -> list[_Sent]:
    content: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    parts: list[int] = []
    for j, part in enumerate(message.parts):
        if isinstance(part, (TextPart, ThinkingPart)):
            content.append({"type": "text", "text": part.content})
        elif isinstance(part, BaseToolCallPart) and not isinstance(part, NativeToolCallPart):
            calls.append(
                {
                    "id": part.tool_call_id,
                    "type": "function",
                    "function": {"name": part.tool_name, "arguments": part.args_as_json_str()},
                }
            )
        else:
            continue
        parts.append(j)
    if not parts:
        return []
    value: dict[str, Any] = {"role": "assistant", "content": content or None}
    if calls:
        value["tool_calls"] = calls
    return [_Sent(index, parts, value)]


def _to_chat(messages: Sequence[ModelMessage]) -> list[_Sent]:
    sent: list[_Sent] = []
    for i, message in enumerate(messages):
        if isinstance(message, ModelRequest):
            sent.extend(_request(i, message))
        else:
            sent.extend(_response(i, message))
    return sent


def _edited_request_part(part: _Part, sent: _Sent, got: dict[str, Any]) -> _Part:
    content = got.get("content")
    if isinstance(part, UserPromptPart) and isinstance(content, list):
        items: list[Any] = [
            sent.items.get(id(item), item.get("text", "") if isinstance(item, dict) else item)
            for item in content
        ]
        return dataclasses.replace(part, content=items)
    if isinstance(part, (RetryPromptPart, RetryFeedbackPart)):
        # Their text is built from other fields: what was left of it is sent as user text.
        return UserPromptPart(content if isinstance(content, str) else "")
    return dataclasses.replace(part, content=content)


def _edited_response_parts(message: ModelResponse, sent: _Sent, got: dict[str, Any]) -> list[_Part]:
    old = sent.value.get("content") or []
    new = got.get("content")
    if isinstance(new, str):
        new = [{"type": "text", "text": new}]
    new = list(new or [])
    parts: list[_Part] = []
    k = 0
    for j, part in enumerate(message.parts):
        if j not in sent.parts:
            parts.append(part)
        elif isinstance(part, (TextPart, ThinkingPart)):
            item = new[k] if k < len(new) else None
            if item is not None and k < len(old) and item is old[k]:
                parts.append(part)
            elif item is not None:
                edit: dict[str, Any] = {"content": item.get("text", "")}
                if isinstance(part, TextPart):
                    edit["id"] = None  # a stored copy under that id would be used instead
                parts.append(dataclasses.replace(part, **edit))
            k += 1
        elif "tool_calls" in got:
            parts.append(part)
    # A note added to the text (tool calls removed by repair) is a text part of its own.
    parts.extend(TextPart(item.get("text", "")) for item in new[max(k, len(old)) :])
    return parts


@takes_options
def trim_messages_with_report(
    messages: Sequence[ModelMessage],
    **options: Unpack[AdapterOptions],
) -> tuple[list[ModelMessage], TrimReport]:
    """Like ``trim_messages``, but also returns ankita's report, whose indices are those of the
    chat messages the history is sent as (a request's tool returns first, then its other parts),
    not of ``messages``."""
    return _trim_with_report(messages, None, dict(options))


def _trim_with_report(
    messages: Sequence[ModelMessage], carried: CarriedCut | None, options: dict[str, Any]
) -> tuple[list[ModelMessage], TrimReport]:
    sent = _to_chat(messages)
    # The newest request's instructions go with it: their bytes are reserved like memory.
    instructions = next(
        (m.instructions for m in reversed(messages) if isinstance(m, ModelRequest)), None
    )
    if instructions:
        memory = options.get("memory")
        memory = [*([memory] if isinstance(memory, str) else memory or []), instructions]
        options = {**options, "memory": memory}
    kept, report = trim_chat([s.value for s in sent], carried, **options)
    got: dict[int, dict[str, Any]] = dict(kept)
    out: list[ModelMessage] = []
    by_message: dict[int, list[int]] = {}
    for k, s in enumerate(sent):
        by_message.setdefault(s.message, []).append(k)
    for i, message in enumerate(messages):
        ks = by_message.get(i, [])
        if all(k in got and got[k] is sent[k].value for k in ks):
            out.append(message)  # unchanged, or nothing in it is sent as chat content
            continue
        if not any(k in got for k in ks):
            continue
        if isinstance(message, ModelResponse):
            (k,) = ks
            out.append(
                dataclasses.replace(message, parts=_edited_response_parts(message, sent[k], got[k]))
            )
            continue
        owner = {j: k for k in ks for j in sent[k].parts}
        parts: list[_Part] = []
        for j, part in enumerate(message.parts):
            k_or_none = owner.get(j)
            if k_or_none is None:
                parts.append(part)
            elif k_or_none in got:
                value = got[k_or_none]
                same = value is sent[k_or_none].value
                parts.append(part if same else _edited_request_part(part, sent[k_or_none], value))
        out.append(dataclasses.replace(message, parts=parts))
    return out, report


@takes_options
def trim_messages(
    messages: Sequence[ModelMessage],
    **options: Unpack[AdapterOptions],
) -> list[ModelMessage]:
    """Trims a Pydantic AI message history to a context budget with ``ankita.trim``.

    The options are those of ``ankita.trim``. Returns the messages to send, starting on the
    user's turn (the first part after the system prompts is a ``UserPromptPart``): the caller's
    own ``ModelRequest``/``ModelResponse`` objects where nothing in them changed, new ones where
    parts were dropped or shrunk. Raises the errors of ``ankita.trim``.
    """
    return trim_messages_with_report(
        messages,
        **options,
    )[0]


@takes_options
def history_processor(
    **options: Unpack[AdapterOptions],
) -> Callable[[list[ModelMessage]], list[ModelMessage]]:
    """A history processor that trims with these options before every model request:
    ``Agent(..., capabilities=[ProcessHistory(history_processor(context_tokens=...))])``.

    Cache-stable by default, as a ``Session``: given no ``trim_to``, it trims with
    ``trim_to=0.75`` and carries each call's cut to the next call of the same conversation, so
    the history's prefix, which the provider's prompt cache serves, holds from call to call
    (see ``docs/cache-stable.md``); ``trim_to=None`` opts out (each call trimmed as
    ``trim_messages`` trims)."""
    carried = CarriedCut(options)

    def process(messages: list[ModelMessage]) -> list[ModelMessage]:
        return _trim_with_report(messages, carried, dict(options))[0]

    return process

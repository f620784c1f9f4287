"""ankita for LangChain: trim a list of ``BaseMessage`` objects, and count their tokens.

The ``langchain`` extra of the ``ankita-context`` wheel (``pip install
"ankita-context[langchain] @ file://…/ankita_context-….whl"``, see the README).
``trim_messages`` takes the messages a LangChain agent holds (``SystemMessage``,
``HumanMessage`` with text and image content blocks, ``AIMessage`` with ``tool_calls``,
``ToolMessage``) and returns the ones to send: the caller's own message objects,
except a message that was shrunk or lost its tool calls, which comes back as a new message of
the same class. ``trimmer(**options)`` is the function to call before every model call of an
agent: it trims as ``trim_messages`` does, keeping the history's prefix from call to call
(cache-stable, as a ``Session``). ``count_tokens`` prices a list of messages the same way and
works as LangChain's ``token_counter``.

The messages returned start on the user's turn (after the system messages, a ``HumanMessage``),
whatever the model: Anthropic and Gemini reject a history that starts with an ``AIMessage``.
The messages are trimmed as AI SDK model messages (``format="ai-sdk"``: the same messages one
for one, under the rule of the Anthropic and Gemini formats): the ``HumanMessage`` that began
the kept run's turn comes back (whole, shrunk, or as a placeholder), what would come before the
first ``HumanMessage`` goes, and every kept tool call keeps its ``ToolMessage``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from ._adapters import CarriedCut, takes_options, trim_chat
from ._messages import count_tokens as _count
from ._messages import trim as _trim
from ._types import AdapterOptions, TrimReport

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["count_tokens", "to_openai", "trim_messages", "trim_messages_with_report", "trimmer"]

_ROLES = {"system", "developer", "user", "assistant", "tool"}


def _image_url(block: Mapping[str, Any]) -> str | None:
    """The URL (or data URL) of a LangChain image content block, in any of its shapes."""
    url = block.get("url")
    if isinstance(url, str):
        return url
    data = block.get("base64", block.get("data"))
    if isinstance(data, str):
        mime = block.get("mime_type") or "image/png"
        if data.startswith("data:"):
            return data
        return f"data:{mime};base64,{data}"
    return None


def _part(block: Any) -> Any:
    """A content block as an OpenAI chat content part (the block itself when it is one)."""
    if isinstance(block, str):
        return {"type": "text", "text": block}
    if not isinstance(block, Mapping):
        return block
    kind = block.get("type")
    if kind == "image" and block.get("source_type", "url") in ("url", "base64"):
        url = _image_url(block)
        if url is not None:
            image: dict[str, Any] = {"url": url}
            detail = block.get("detail") or (block.get("extras") or {}).get("detail")
            if detail is not None:
                image["detail"] = detail
            return {"type": "image_url", "image_url": image}
    return block


def _content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    return [_part(block) for block in content]


def _arguments(args: Any) -> str:
    return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


def to_openai(message: BaseMessage) -> dict[str, Any]:
    """The OpenAI Chat Completions form of a LangChain message, as ankita reads it.

    ``AIMessage.tool_calls`` become ``tool_calls`` (arguments as JSON text); image content
    blocks (``{"type": "image", "base64" | "url": ...}``, and the older ``source_type`` shape)
    become ``image_url`` parts; other blocks are kept as they are and priced by their JSON.
    """
    content = _content(message.content)
    if isinstance(message, SystemMessage):
        return {"role": "system", "content": content}
    if isinstance(message, HumanMessage):
        return {"role": "user", "content": content}
    if isinstance(message, AIMessage):
        out: dict[str, Any] = {"role": "assistant", "content": content or None}
        if message.tool_calls:
            out["tool_calls"] = [
                {
                    "id": call.get("id") or "",
                    "type": "function",
                    "function": {"name": call["name"], "arguments": _arguments(call["args"])},
                }
                for call in message.tool_calls
            ]
        return out
    if isinstance(message, ToolMessage):
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": content}
    if isinstance(message, ChatMessage):
        role = message.role if message.role in _ROLES else "user"
        return {"role": role, "content": content}
    if isinstance(message, FunctionMessage):
        return {"role": "user", "content": content}
    # Any other message type (a RemoveMessage, a custom class): a role repair removes.
    return {"role": message.type, "content": content}


# Content blocks that are a tool call in a provider's own form.
_CALL_BLOCKS = frozenset({"tool_use", "tool_call", "function_call"})


def _is_call_block(block: Any, ids: set[str]) -> bool:
    """Whether a content block is the call of one of the tool call ids ``ids``."""
    if not isinstance(block, Mapping) or block.get("type") not in _CALL_BLOCKS:
        return False
    return block.get("id") in ids or block.get("call_id") in ids


def _from_openai(original: BaseMessage, sent: dict[str, Any], got: dict[str, Any]) -> BaseMessage:
    """A new message of the caller's class for a message ankita changed."""
    update: dict[str, Any] = {}
    new = got.get("content")
    if new is not sent.get("content"):
        if isinstance(new, str) or new is None:
            update["content"] = new or ""
        else:
            # Unchanged parts are the very dicts that were sent: give back the caller's blocks.
            blocks = original.content if isinstance(original.content, list) else []
            by_id = {id(p): b for p, b in zip(sent.get("content") or [], blocks)}
            update["content"] = [by_id.get(id(part), part) for part in new]
    if "tool_calls" in sent and "tool_calls" not in got:
        update["tool_calls"] = []
        update["invalid_tool_calls"] = []
        kwargs = dict(original.additional_kwargs)
        kwargs.pop("tool_calls", None)
        update["additional_kwargs"] = kwargs
        # A provider's own form of the removed calls in the content (Anthropic's `tool_use`
        # blocks, LangChain's `tool_call` blocks) goes with them: a call left in the content
        # would still be sent, without its result.
        ids = {call["id"] for call in sent["tool_calls"]}
        content = update.get("content", original.content)
        if isinstance(content, list):
            update["content"] = [b for b in content if not _is_call_block(b, ids)]
        if not update.get("content", original.content):
            update["content"] = ""
    return original.model_copy(update=update)


@takes_options
def trim_messages_with_report(
    messages: Sequence[BaseMessage],
    **options: Unpack[AdapterOptions],
) -> tuple[list[BaseMessage], TrimReport]:
    """Like ``trim_messages``, but also returns ankita's report: that of the trim of the messages
    as AI SDK model messages (``report["format"] == "ai-sdk"``; message indices are indices in
    ``messages``, and ``turn_start`` says how the user's message that began the turn came
    back)."""
    return _trim_with_report(messages, None, dict(options))


def _trim_with_report(
    messages: Sequence[BaseMessage], carried: CarriedCut | None, options: dict[str, Any]
) -> tuple[list[BaseMessage], TrimReport]:
    sent = [to_openai(m) for m in messages]
    kept, report = trim_chat(sent, carried, **options)
    out: list[BaseMessage] = []
    for i, got in kept:
        out.append(messages[i] if got is sent[i] else _from_openai(messages[i], sent[i], got))
    return out, report


@takes_options
def trim_messages(
    messages: Sequence[BaseMessage],
    **options: Unpack[AdapterOptions],
) -> list[BaseMessage]:
    """Trims LangChain messages to a context budget with ``ankita.trim``.

    The options are those of ``ankita.trim`` (``context_tokens``, ``max_output_tokens``,
    ``tools``, ``max_bytes``, ``max_messages``, ``model``, …). Returns the messages to send, in
    order, starting on the user's turn (see the module docs): the caller's own objects, except
    that a message whose text was shrunk, whose image became a placeholder or whose tool calls
    were removed comes back as a new message of the same class (``model_copy``). Raises the
    errors of ``ankita.trim``.
    """
    return trim_messages_with_report(
        messages,
        **options,
    )[0]


@takes_options
def trimmer(
    **options: Unpack[AdapterOptions],
) -> Callable[[Sequence[BaseMessage]], list[BaseMessage]]:
    """A function that trims with these options before every model call, as ``trim_messages``
    does, cache-stable by default: given no ``trim_to``, it trims with ``trim_to=0.75`` and
    carries each call's cut to the next call of the same conversation, so the history's prefix,
    which the provider's prompt cache serves, holds from call to call (see
    ``docs/cache-stable.md``); ``trim_to=None`` opts out (each call trimmed as
    ``trim_messages`` trims). Made once and called with the messages of every model call: in a
    LangGraph ``pre_model_hook``, or an agent middleware's ``wrap_model_call``
    (``handler(request.override(messages=trim(request.messages)))``)."""
    carried = CarriedCut(options)

    def trim(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        return _trim_with_report(messages, carried, dict(options))[0]

    return trim


def _priced_alone(message: BaseMessage) -> dict[str, Any]:
    """The chat dict of ``message`` in a form that repair leaves alone and that costs the same
    bytes: a tool reply as a user message (``"user"`` and ``"tool"`` have the same length), an
    assistant message's ``tool_calls`` under a key of the same length, ``None`` text as one
    space (a tool-calling message is not an empty one)."""
    value = to_openai(message)
    if value["role"] == "tool":
        value["role"] = "user"
    if "tool_calls" in value:
        value["_tool_call"] = value.pop("tool_calls")
        if not value["content"]:
            value["content"] = " "
    return value


def count_tokens(messages: Sequence[BaseMessage], *, model: str | None = None) -> int:
    """The tokens of ``messages`` as ankita prices them (images by their pixels): in ``model``'s own
    tokens when its tokenizer is known (``"gpt-4o"``: exact o200k_base counts;
    ``"gemini-2.5-flash"``: exact Gemma 3 counts; Claude models: estimates), else at 4 bytes a
    token. Usable as the ``token_counter`` of ``langchain_core.messages.trim_messages``, with
    ``functools.partial(count_tokens, model=...)`` for a model.

    Each message is priced as it stands: a list that is only a piece of a history (LangChain's
    ``trim_messages`` passes its candidates newest first, a tool reply before its call) costs
    the sum of its messages, without repairs.
    """
    if not messages:
        return 0
    if model is None:
        result = _trim([_priced_alone(m) for m in messages], max_messages=len(messages))
        return result.report["cost_tokens"]
    return _count([to_openai(m) for m in messages], model=model)["total"]

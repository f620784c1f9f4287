"""What the framework adapters share: a trim of OpenAI-style chat dicts that starts on the
user's turn.

The adapters read a framework's messages as the OpenAI chat messages they are sent as. Anthropic
and Gemini reject a history that starts with the model's turn, and a trim keeps the newest
messages that fit: in a tool loop the kept run often starts with a tool call. So the chat
messages are trimmed as AI SDK model messages (``format="ai-sdk"``, whose roles and messages are
the chat's one for one), a format whose rule is the Anthropic and Gemini formats' own: the user
message that began the kept run's turn comes back, whole, shrunk or as a placeholder, and what
comes before the first user message goes. The answer is read back as chat dicts: the very dicts
given where nothing changed, and the given content parts where they are unchanged.
"""

from __future__ import annotations

import inspect
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from . import _ankita
from ._messages import trim as _trim
from ._types import AdapterOptions, TrimReport

_F = TypeVar("_F", bound=Callable[..., Any])


def takes_options(func: _F) -> _F:
    """Shows, in the signature of ``func`` (which takes ``**options: Unpack[AdapterOptions]``),
    the keywords of ``ankita.trim`` the adapters pass on, with their defaults: help() and editors
    list them instead of ``**options``."""
    passed_on = AdapterOptions.__optional_keys__ | AdapterOptions.__required_keys__
    native = inspect.signature(_ankita.trim).parameters.values()
    own = inspect.signature(func)
    params = [p for p in own.parameters.values() if p.kind is not p.VAR_KEYWORD]
    params += [p for p in native if p.name in passed_on]
    func.__signature__ = own.replace(parameters=params)  # type: ignore[attr-defined]
    return func


# Repairs that remove the message at `index` (the others change it and keep it), in the words of
# the OpenAI format and of the AI SDK format.
_REMOVING = frozenset(
    {
        "orphan_tool_removed",
        "incomplete_tool_reply_removed",
        "orphan_tool_result_removed",
        "incomplete_tool_result_removed",
        "empty_message_removed",
        "unknown_role_removed",
    }
)

# A content part the AI SDK format has no part for: carried whole, priced by its JSON.
_CARRIED = "ankita-carried"


def kept_indices(count: int, report: TrimReport) -> list[int]:
    """The input indices of the messages a trim returned, in order, for a format that keeps
    the input order and never merges (OpenAI chat; AI SDK messages with one tool result each):
    every input message is either returned, in ``dropped_messages``, or removed by a repair."""
    gone = set(report["dropped_messages"])
    gone.update(r["index"] for r in report["repaired"] if r["action"] in _REMOVING)
    kept = [i for i in range(count) if i not in gone]
    if len(kept) != report["output_messages"]:
        raise RuntimeError(
            f"the report accounts for {len(kept)} returned messages, "
            f"not {report['output_messages']}"
        )
    return kept


def _media_type(url: str, default: str) -> str:
    if url.startswith("data:"):
        head = url[5:].split(",", 1)[0].split(";", 1)[0]
        return head or default
    return default


def _sdk_part(part: Any) -> Any:
    """A chat content part as an AI SDK content part (a text part is the same dict)."""
    if not isinstance(part, dict):
        return {"type": _CARRIED, "part": part}
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str):
        return part
    if kind == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        if isinstance(url, str):
            detail = image.get("detail") if isinstance(image, dict) else None
            if isinstance(detail, str):
                # What the AI SDK's OpenAI provider sends as the image's detail.
                return {
                    "type": "image",
                    "image": url,
                    "providerOptions": {"openai": {"imageDetail": detail}},
                }
            return {"type": "image", "image": url}
    if kind == "file" and isinstance(part.get("file"), dict):
        file = part["file"]
        data = file.get("file_data") or file.get("file_url")
        if isinstance(data, str):
            out = {"type": "file", "data": data}
            out["mediaType"] = _media_type(data, "application/octet-stream")
            if isinstance(file.get("filename"), str):
                out["filename"] = file["filename"]
            return out
    return {"type": _CARRIED, "part": part}


def _sdk_item(part: Any) -> Any:
    """A tool reply's content part as an item of an AI SDK ``content`` output."""
    converted = _sdk_part(part)
    if converted.get("type") == "image":
        url = converted["image"]
        if url.startswith("data:"):
            data = url.split(",", 1)[1] if "," in url else ""
            return {"type": "image-data", "data": data, "mediaType": _media_type(url, "image/png")}
        return {"type": "image-url", "url": url}
    if converted.get("type") == "file":
        data = converted["data"]
        if data.startswith("data:"):
            payload = data.split(",", 1)[1] if "," in data else ""
            return {"type": "file-data", "data": payload, "mediaType": converted["mediaType"]}
        return {"type": "file-url", "url": data, "mediaType": converted["mediaType"]}
    return converted


def _input(arguments: Any) -> Any:
    if not isinstance(arguments, str):
        return arguments
    try:
        return json.loads(arguments) if arguments else {}
    except ValueError:
        return arguments


def _to_sdk(value: dict[str, Any]) -> dict[str, Any]:
    """A chat message as the AI SDK model message it is trimmed as."""
    role = value.get("role")
    content = value.get("content")
    if role in ("system", "developer"):
        return {"role": "system", "content": content}
    if role == "tool":
        if isinstance(content, list):
            output: dict[str, Any] = {
                "type": "content",
                "value": [_sdk_item(p) for p in content],
            }
        else:
            output = {"type": "text", "value": content if isinstance(content, str) else ""}
        result = {
            "type": "tool-result",
            "toolCallId": value.get("tool_call_id") or "",
            "toolName": value.get("name") or "",
            "output": output,
        }
        return {"role": "tool", "content": [result]}
    parts = [_sdk_part(p) for p in content] if isinstance(content, list) else content
    calls = value.get("tool_calls") if role == "assistant" else None
    if not calls:
        return {"role": role, "content": parts}
    if isinstance(parts, str):
        parts = [{"type": "text", "text": parts}] if parts else []
    parts = list(parts or [])
    for call in calls:
        function = call.get("function") or {}
        parts.append(
            {
                "type": "tool-call",
                "toolCallId": call.get("id") or "",
                "toolName": function.get("name") or "",
                "input": _input(function.get("arguments")),
            }
        )
    return {"role": role, "content": parts}


def _chat_part(part: Any) -> Any:
    """An AI SDK part the trim wrote (shrunk text, a placeholder) as a chat content part."""
    if not isinstance(part, dict):
        return part
    kind = part.get("type")
    if kind == _CARRIED:
        return part.get("part")
    if kind == "image":
        return {"type": "image_url", "image_url": {"url": part.get("image")}}
    if kind == "file":
        return {"type": "file", "file": {"file_data": part.get("data")}}
    if kind in ("image-data", "file-data"):
        url = f"data:{part.get('mediaType')};base64,{part.get('data')}"
        key = "image_url" if kind == "image-data" else "file"
        return {"type": key, key: {"url": url} if key == "image_url" else {"file_data": url}}
    if kind == "image-url":
        return {"type": "image_url", "image_url": {"url": part.get("url")}}
    return part


def _back(got: Sequence[Any], sent: Sequence[Any], given: Sequence[Any]) -> list[Any]:
    """The parts ``got`` (AI SDK) as chat parts: the given part for each one the trim left as it
    was sent (in order; a part it removed is skipped), a converted one for each it wrote."""
    out: list[Any] = []
    j = 0
    for part in got:
        k = next((k for k in range(j, len(sent)) if sent[k] == part), None)
        if k is not None:
            out.append(given[k])
            j = k + 1
        else:
            out.append(_chat_part(part))
            j += 1
    return out


def _same(new: list[Any], given: Any) -> Any:
    """``given`` itself when ``new`` holds its very parts, else ``new``."""
    if (
        isinstance(given, list)
        and len(new) == len(given)
        and all(a is b for a, b in zip(new, given))
    ):
        return given
    return new


def _from_sdk(got: dict[str, Any], sent: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The chat message for an AI SDK message the trim changed: ``given`` with its content and
    tool calls as kept."""
    out = dict(given)
    content = got.get("content")
    if given.get("role") == "tool":
        result = content[0] if isinstance(content, list) and content else {}
        output = result.get("output") or {}
        value = output.get("value")
        if isinstance(value, list):
            items = sent["content"][0]["output"]["value"]
            given_items = given.get("content") or []
            out["content"] = _same(_back(value, items, given_items), given_items)
        else:
            out["content"] = value
        return out
    if not isinstance(content, list):
        out["content"] = content
        return out
    sent_parts = sent.get("content")
    sent_parts = sent_parts if isinstance(sent_parts, list) else []
    texts = [p for p in sent_parts if not (isinstance(p, dict) and p.get("type") == "tool-call")]
    kept = [p for p in content if not (isinstance(p, dict) and p.get("type") == "tool-call")]
    given_content = given.get("content")
    if isinstance(given_content, list):
        out["content"] = _same(_back(kept, texts, given_content), given_content)
    elif isinstance(given_content, str) and given.get("tool_calls"):
        # Sent as one text part (none when empty).
        # Sent as one text part (none when empty): its texts (a note added) joined again.
        back = _back(kept, texts, [given_content] * len(texts))
        strings = [p if isinstance(p, str) else p.get("text") for p in back]
        if all(isinstance(t, str) for t in strings):
            out["content"] = "\n".join(t for t in strings if isinstance(t, str))
        else:
            out["content"] = [
                {"type": "text", "text": p} if isinstance(p, str) else p for p in back
            ]
    else:
        out["content"] = _back(kept, texts, texts) or given_content
    if given.get("tool_calls") and not any(
        isinstance(p, dict) and p.get("type") == "tool-call" for p in content
    ):
        out.pop("tool_calls", None)
    return out


# The `trim_to` of an adapter called before every model call, given no `trim_to` (a Session's).
CACHE_TRIM_TO = 0.75


class CarriedCut:
    """The cut carried from call to call by an adapter called before every model call
    (``ankita.pydantic_ai.history_processor``, ``ankita.langchain.trimmer``): cache-stable
    trimming, as a ``Session`` trims by default. Given no ``trim_to``, the trims use
    ``CACHE_TRIM_TO``; ``trim_to=None`` opts out (the stateless trim's answers).

    One adapter may serve several conversations (an agent run many times, at once): the cut is
    kept per conversation, told apart by its first two messages, and used only while the
    message at the cut is the one the previous call cut at (else the history was replaced and
    the trim chooses its cut afresh)."""

    _KEPT = 256

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.trim_to = options.get("trim_to", CACHE_TRIM_TO)
        self.stable = self.trim_to is not None
        self._cuts: OrderedDict[str, tuple[int, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(values: Sequence[dict[str, Any]]) -> str:
        return json.dumps(values[:2], sort_keys=True, default=str)

    def trim_options(
        self, values: Sequence[dict[str, Any]], options: Mapping[str, Any]
    ) -> dict[str, Any]:
        """``options`` for this call's trim of ``values``: ``trim_to``, and the cut carried
        when it stands."""
        if not self.stable:
            return {k: v for k, v in options.items() if k not in ("trim_to", "cut")}
        with self._lock:
            carried = self._cuts.get(self._key(values))
        cut = None
        if carried is not None:
            at, message = carried
            if at < len(values) and values[at] == message:
                cut = at
        return {**options, "trim_to": self.trim_to, "cut": cut}

    def update(self, values: Sequence[dict[str, Any]], report: TrimReport) -> None:
        """Keeps the cut of this call's answer for the next call."""
        if not self.stable:
            return
        cut = report.get("cut")
        key = self._key(values)
        with self._lock:
            if cut is None or cut >= len(values):
                self._cuts.pop(key, None)
                return
            self._cuts[key] = (cut, values[cut])
            self._cuts.move_to_end(key)
            while len(self._cuts) > self._KEPT:
                self._cuts.popitem(last=False)


def trim_chat(
    values: list[dict[str, Any]], carried: CarriedCut | None = None, **options: Any
) -> tuple[list[tuple[int, dict[str, Any]]], TrimReport]:
    """Trims chat dicts so that the answer starts on the user's turn (see the module docs).
    Returns each kept message as (its index in ``values``, the chat dict: the very dict given
    when it is unchanged), and the report, whose indices are those of ``values``. With
    ``carried``, cache-stable: the cut carried from the previous call."""
    if carried is not None:
        options = carried.trim_options(values, options)
    sdk = [_to_sdk(v) for v in values]
    result = _trim(sdk, format="ai-sdk", **options)
    if carried is not None:
        carried.update(values, result.report)
    kept = kept_indices(len(values), result.report)
    out: list[tuple[int, dict[str, Any]]] = []
    for got, i in zip(result.messages, kept):
        out.append((i, values[i] if got is sdk[i] else _from_sdk(got, sdk[i], values[i])))
    return out, result.report

"""A neutral history written in every wire format, for the case generators of cache-stable
trimming (generate_cache.py) and of clearing tool inputs (generate_clear_inputs.py).

Steps: ("user", text) | ("assistant", text) | ("call", id, name[, args]) | ("result", id, text).
"""

from __future__ import annotations

import json
from typing import Any

# A JSON object: a message or a part.
Obj = dict[str, Any]
# A step of a neutral history (the module's docstring): its kind first, then its fields.
Step = tuple[Any, ...]

FORMATS = ["openai", "anthropic", "responses", "gemini", "ai-sdk"]
SYSTEM_FIRST = ("openai", "ai-sdk")  # the system prompt is the first message


def write(
    fmt: str, steps: list[Step], system: str, result_tool: str, call_words: str | None = None
) -> tuple[list[Obj], str | Obj | None]:
    """The history's messages in `fmt`, and the system prompt outside them (None when it is the
    first message). A call's arguments are its fourth item ({} without one); `result_tool` names
    the tool in the formats whose results carry it; `call_words` is a text block before each
    Anthropic call."""
    out: list[Obj] = []
    for s in steps:
        kind = s[0]
        args = (s[3] if len(s) > 3 else {}) if kind == "call" else None
        if fmt == "gemini":
            if kind == "user":
                out.append({"role": "user", "parts": [{"text": s[1]}]})
            elif kind == "assistant":
                out.append({"role": "model", "parts": [{"text": s[1]}]})
            elif kind == "call":
                out.append(
                    {
                        "role": "model",
                        "parts": [{"functionCall": {"id": s[1], "name": s[2], "args": args}}],
                    }
                )
            else:
                out.append(
                    {
                        "role": "user",
                        "parts": [
                            {
                                "functionResponse": {
                                    "id": s[1],
                                    "name": result_tool,
                                    "response": {"output": s[2]},
                                }
                            }
                        ],
                    }
                )
        elif fmt == "ai-sdk":
            if kind in ("user", "assistant"):
                out.append({"role": kind, "content": s[1]})
            elif kind == "call":
                out.append(
                    {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool-call",
                                "toolCallId": s[1],
                                "toolName": s[2],
                                "input": args,
                            }
                        ],
                    }
                )
            else:
                out.append(
                    {
                        "role": "tool",
                        "content": [
                            {
                                "type": "tool-result",
                                "toolCallId": s[1],
                                "toolName": result_tool,
                                "output": {"type": "text", "value": s[2]},
                            }
                        ],
                    }
                )
        elif fmt == "anthropic":
            if kind in ("user", "assistant"):
                out.append({"role": kind, "content": s[1]})
            elif kind == "call":
                blocks: list[Obj] = [{"type": "text", "text": call_words}] if call_words else []
                blocks.append({"type": "tool_use", "id": s[1], "name": s[2], "input": args})
                out.append({"role": "assistant", "content": blocks})
            else:
                out.append(
                    {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": s[1], "content": s[2]}],
                    }
                )
        elif fmt == "responses":
            if kind in ("user", "assistant"):
                out.append({"role": kind, "content": s[1]})
            elif kind == "call":
                out.append(
                    {
                        "type": "function_call",
                        "call_id": s[1],
                        "name": s[2],
                        "arguments": json.dumps(args),
                    }
                )
            else:
                out.append({"type": "function_call_output", "call_id": s[1], "output": s[2]})
        else:
            if kind in ("user", "assistant"):
                out.append({"role": kind, "content": s[1]})
            elif kind == "call":
                out.append(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": s[1],
                                "type": "function",
                                "function": {"name": s[2], "arguments": json.dumps(args)},
                            }
                        ],
                    }
                )
            else:
                out.append({"role": "tool", "tool_call_id": s[1], "content": s[2]})
    if fmt in SYSTEM_FIRST:
        return [{"role": "system", "content": system}] + out, None
    return out, ({"parts": [{"text": system}]} if fmt == "gemini" else system)

#!/usr/bin/env python3
"""Writes the shared cases of report paths inside a tool reply (tests/cases/paths_*.json) in
every format: an image or a file inside a tool result is named by the caller's own keys
(OpenAI `content[k]`, Anthropic `content[b].content[k]`, Responses `output[k]`, Gemini
`parts[p].functionResponse.parts[k]`, AI SDK `content[b].output.value[k]`), in the report's
warnings and in the error of `on_image_overflow: "error"`. Paths and messages are written by
hand from docs/ (formats.md, images.md), never by the library itself.

Run: python3 tests/cases/generate_paths.py   (rewrites tests/cases/paths_*.json)
"""

from __future__ import annotations

import base64
import json
import math
import pathlib
from typing import Any

# A PNG header claiming 2³²−1 × 1 pixels (66 bytes of data URL): implausible, priced as the
# ankita profile's largest typical image (1,445 tokens), and warned about.
from gemini import STRIP_B64, STRIP_WARNING

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"
FORMATS = ["openai", "anthropic", "responses", "gemini", "ai-sdk"]
# A JSON object: a message, a part, a request or an expectation.
Obj = dict[str, Any]
CASES: list[Obj] = []

# A real screenshot: 1700×2200, 765 tokens under the ankita profile (the image cases name it).
PNG_B64 = base64.b64encode((FIXTURES / "images/png/rgb_1700x2200.png").read_bytes()).decode()
PNG_TOKENS = 765
# A PDF whose objects sit in encrypted object streams: unreadable, a page per 4 KiB (one).
LOCKED_B64 = base64.b64encode((FIXTURES / "files/pdf-3-encrypted-objstm.pdf").read_bytes()).decode()
LOCKED_PAGES = max(1, math.ceil(len(LOCKED_B64) // 4 * 3 / 4096))
assert LOCKED_PAGES == 1
PAGE = 258  # the gemini profile, a PDF page


def locked_warning(name: str | None) -> str:
    """The warning about the unreadable PDF, led by its name where the part gives one."""
    named = f'"{name}", ' if name is not None else ""
    return (
        f"the file could not be read; priced conservatively: {named}unreadable PDF "
        f"(encrypted PDF), ~{LOCKED_PAGES} page estimated, ~{LOCKED_PAGES * PAGE} tokens"
    )


SAID = "Screenshot taken."


def image(fmt: str, b64: str) -> Obj:
    url = "data:image/png;base64," + b64
    by_format: dict[str, Obj] = {
        "openai": {"type": "image_url", "image_url": {"url": url}},
        "anthropic": {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": b64},
        },
        "responses": {"type": "input_image", "image_url": url},
        "gemini": {"inlineData": {"mimeType": "image/png", "data": b64}},
        "ai-sdk": {"type": "image-data", "data": b64, "mediaType": "image/png"},
    }
    return by_format[fmt]


def pdf(fmt: str, b64: str) -> Obj:
    by_format: dict[str, Obj] = {
        "anthropic": {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": b64},
        },
        "gemini": {"inlineData": {"mimeType": "application/pdf", "data": b64}},
        "ai-sdk": {
            "type": "file-data",
            "data": b64,
            "mediaType": "application/pdf",
            "filename": "q3.pdf",
        },
    }
    return by_format[fmt]


def history(fmt: str, item: Obj) -> tuple[list[Obj], str, int, int]:
    """The user's request, the model's call, and the tool's reply: `SAID` and then `item` (the
    reply's items in the formats whose reply part holds items; its content parts in OpenAI
    chat, its output items in Responses). Answers the messages and the path of `item`."""
    if fmt == "openai":
        return (
            [
                {"role": "user", "content": "Take a screenshot of the dialog."},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "screenshot", "arguments": "{}"},
                        }
                    ],
                },
                {
                    "role": "tool",
                    "tool_call_id": "call_1",
                    "content": [{"type": "text", "text": SAID}, item],
                },
            ],
            "messages[2].content[1]",
            2,
            1,
        )
    if fmt == "anthropic":
        return (
            [
                {"role": "user", "content": "Take a screenshot of the dialog."},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "tu_1", "name": "screenshot", "input": {}}
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "tu_1",
                            "content": [{"type": "text", "text": SAID}, item],
                        }
                    ],
                },
            ],
            "messages[2].content[0].content[1]",
            2,
            0,
        )
    if fmt == "responses":
        return (
            [
                {"role": "user", "content": "Take a screenshot of the dialog."},
                {
                    "type": "function_call",
                    "call_id": "call_1",
                    "name": "screenshot",
                    "arguments": "{}",
                },
                {
                    "type": "function_call_output",
                    "call_id": "call_1",
                    "output": [{"type": "input_text", "text": SAID}, item],
                },
            ],
            "messages[2].output[1]",
            2,
            1,
        )
    if fmt == "gemini":
        return (
            [
                {"role": "user", "parts": [{"text": "Take a screenshot of the dialog."}]},
                {
                    "role": "model",
                    "parts": [{"functionCall": {"id": "c_1", "name": "screenshot", "args": {}}}],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "id": "c_1",
                                "name": "screenshot",
                                "response": {"output": SAID},
                                "parts": [item],
                            }
                        }
                    ],
                },
            ],
            "messages[2].parts[0].functionResponse.parts[0]",
            2,
            0,
        )
    return (
        [
            {"role": "user", "content": "Take a screenshot of the dialog."},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool-call",
                        "toolCallId": "c_1",
                        "toolName": "screenshot",
                        "input": {},
                    }
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "c_1",
                        "toolName": "screenshot",
                        "output": {
                            "type": "content",
                            "value": [{"type": "text", "text": SAID}, item],
                        },
                    }
                ],
            },
        ],
        "messages[2].content[0].output.value[1]",
        2,
        0,
    )


def case(name: str, description: str, request: Obj, expect: Obj) -> None:
    CASES.append(
        {
            "name": name,
            "description": description,
            "function": "trim",
            "request": request,
            "expect": expect,
        }
    )


def slug(fmt: str) -> str:
    return fmt.replace("-", "_")


for fmt in FORMATS:
    messages, path, index, part = history(fmt, image(fmt, STRIP_B64))
    case(
        f"paths_{slug(fmt)}_implausible_image_in_a_tool_reply",
        "An implausible PNG header inside a tool reply is warned about with the path of the "
        f"image in the caller's own keys ({path}); every message fits and comes back as it is.",
        {"format": fmt, "messages": messages, "max_bytes": 100_000, "image_profile": "ankita"},
        {
            "ok": True,
            "messages": messages,
            "report": {
                "dropped_messages": [],
                "dropped_images": [],
                "warnings": [
                    {
                        "code": "implausible_image",
                        "index": index,
                        "part": part,
                        "path": path,
                        "message": STRIP_WARNING,
                    }
                ],
            },
        },
    )

    messages, path, index, part = history(fmt, image(fmt, PNG_B64))
    case(
        f"paths_{slug(fmt)}_image_overflow_error_in_a_tool_reply",
        "A screenshot inside the tool reply the model has not seen yet does not fit, and "
        'on_image_overflow is "error": the error names the image by the caller\'s own keys '
        f"({path}).",
        {
            "format": fmt,
            "messages": messages,
            "max_bytes": 1_000,
            "image_profile": "ankita",
            "on_image_overflow": "error",
        },
        {
            "ok": False,
            "error": {
                "code": "image_overflow",
                "path": path,
                "message": f"Image {path} (PNG 1700×2200, ~{PNG_TOKENS} tokens) does not fit the "
                'context budget and on_image_overflow is "error".',
            },
        },
    )

    if fmt in ("anthropic", "gemini", "ai-sdk"):
        messages, path, index, part = history(fmt, pdf(fmt, LOCKED_B64))
        case(
            f"paths_{slug(fmt)}_unreadable_file_in_a_tool_reply",
            "An unreadable PDF inside a tool reply is priced conservatively and warned about "
            f"with the path of the file in the caller's own keys ({path}).",
            {"format": fmt, "messages": messages, "max_bytes": 100_000, "image_profile": "gemini"},
            {
                "ok": True,
                "messages": messages,
                "report": {
                    "dropped_messages": [],
                    "dropped_files": [],
                    "warnings": [
                        {
                            "code": "unreadable_file",
                            "index": index,
                            "part": part,
                            "path": path,
                            "message": locked_warning("q3.pdf" if fmt == "ai-sdk" else None),
                        }
                    ],
                },
            },
        )

for old in HERE.glob("paths_*.json"):
    old.unlink()
for c in CASES:
    (HERE / f"{c['name']}.json").write_text(json.dumps(c, indent=1, ensure_ascii=False) + "\n")
print(f"wrote {len(CASES)} cases to {HERE}")

"""Message builders for the Python-specific tests."""

from __future__ import annotations

import base64
from typing import Any

from conftest import IMAGES


def data_url(relative: str, mime: str = "image/png") -> str:
    payload = base64.b64encode((IMAGES / relative).read_bytes()).decode("ascii")
    return f"data:{mime};base64,{payload}"


SCREENSHOT = data_url("png/rgb_1700x2200.png")  # 765 tokens = 3,060 bytes
PHOTO = data_url("jpeg/baseline_500x375.jpg", "image/jpeg")


def image_part(url: str, detail: str | None = None) -> dict[str, Any]:
    image_url: dict[str, Any] = {"url": url}
    if detail is not None:
        image_url["detail"] = detail
    return {"type": "image_url", "image_url": image_url}


def tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def openai_session() -> list[dict[str, Any]]:
    """A session shaped like the openai SDK's ChatCompletionMessageParam dicts and its
    `ChatCompletionMessage.model_dump()` output: None content, refusal, extra keys."""
    return [
        {"role": "system", "content": "You are a desktop companion. Answer briefly."},
        {
            "role": "user",
            "name": "ada",
            "content": [
                {"type": "text", "text": "What does this dialog say?"},
                image_part(SCREENSHOT, "high"),
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "refusal": None,
            "audio": None,
            "function_call": None,
            "annotations": [],
            "tool_calls": [tool_call("call_1", "read_log", '{"lines": 20}')],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "ERROR: disk full\n" * 40},
        {
            "role": "assistant",
            "content": "The dialog says the disk is full.",
            "refusal": None,
            "tool_calls": None,
        },
        {"role": "user", "content": "How do I free some space?"},
    ]

"""Gemini contents (``format="gemini"``) with the real google-genai package: a history of
``types.Content`` objects, or their ``model_dump`` dicts (snake_case), is trimmed like the
REST camelCase dicts, and an unchanged content comes back as the caller's own object."""

from __future__ import annotations

import base64
import json
from typing import Any

import ankita
import pytest
from conftest import IMAGES

types = pytest.importorskip("google.genai.types")

PNG = (IMAGES / "png/rgb_1700x2200.png").read_bytes()
GIF = (IMAGES / "gif/pixel_1x1.gif").read_bytes()
GEMINI_TOKENS = 258 * 4  # 1700×2200 under Gemini 2.5: a crop unit of 1133 px, 2×2 tiles


def history() -> list[Any]:
    """An agent loop as the SDK's objects: a screenshot, a function call and its response."""
    return [
        types.Content(
            role="user",
            parts=[
                types.Part(text="What does the screen show?"),
                types.Part.from_bytes(data=PNG, mime_type="image/png"),
            ],
        ),
        types.Content(
            role="model",
            parts=[
                types.Part(function_call=types.FunctionCall(name="ocr", args={"region": "all"}))
            ],
        ),
        types.Content(
            role="user",
            parts=[
                types.Part.from_function_response(
                    name="ocr", response={"text": "Settings > Display " * 300}
                )
            ],
        ),
        types.Content(role="model", parts=[types.Part(text="It shows the display settings.")]),
        types.Content(role="user", parts=[types.Part(text="Which option changes the scale?")]),
    ]


def test_content_objects_come_back_as_themselves() -> None:
    contents = history()
    result = ankita.trim(contents, format="gemini", max_bytes=100_000)
    assert len(result.messages) == len(contents)
    assert all(out is given for out, given in zip(result.messages, contents))
    report = result.report
    assert report["format"] == "gemini"
    assert report["dropped_messages"] == [] and report["repaired"] == []
    # The screenshot is priced by its pixels, not by its base64.
    cost = report["cost_bytes"]
    assert cost is not None and cost < len(base64.b64encode(PNG))


@pytest.mark.parametrize("mode", ["python", "json"])
def test_model_dump_dicts_are_trimmed_like_the_objects(mode: str) -> None:
    """``model_dump()`` dicts (snake_case; the image's bytes as bytes, or as base64 in JSON
    mode) are read like the objects."""
    contents = history()
    dumped = [c.model_dump(mode=mode, exclude_none=True) for c in contents]
    assert "inline_data" in dumped[0]["parts"][1]  # snake_case, as the Python SDK writes it
    budget = 2_000
    by_objects = ankita.trim(contents, format="gemini", max_bytes=budget, fill=False)
    by_dicts = ankita.trim(dumped, format="gemini", max_bytes=budget, fill=False)
    assert by_objects.report == by_dicts.report
    # The function-calling exchange goes whole; the model's answer and the request stay, and
    # the answer starts on the user's turn: the screenshot's turn comes back shrunk into the
    # room left, its image as a placeholder.
    assert by_dicts.report["dropped_messages"] == [1, 2]
    turn_start = by_dicts.report.get("turn_start")
    assert turn_start is not None and turn_start["index"] == 0
    assert turn_start["kept"] in ("shrunk", "placeholder")
    assert [d["index"] for d in by_dicts.report["dropped_images"]] == [0]
    assert by_dicts.messages[1:] == [dumped[3], dumped[4]]
    assert by_dicts.messages[2] is dumped[4]
    assert by_objects.messages[2] is contents[4]
    first = by_dicts.messages[0]
    assert first["role"] == "user" and "inline_data" not in str(first)
    generous = ankita.trim(dumped, format="gemini", max_bytes=100_000)
    assert generous.report == ankita.trim(contents, format="gemini", max_bytes=100_000).report
    assert all(out is given for out, given in zip(generous.messages, dumped))


def test_a_merged_content_is_what_the_sdk_reads_back() -> None:
    """Two user contents merged after a drop come back as one dict that validates as
    ``types.Content`` again, the image's bytes intact."""
    contents = [
        types.Content(
            role="user",
            parts=[
                types.Part(text="Remember this icon."),
                types.Part.from_bytes(data=GIF, mime_type="image/gif"),
            ],
        ),
        types.Content(role="model", parts=[types.Part(text="Noted. " * 1000)]),
        types.Content(role="user", parts=[types.Part(text="Which icon was it?")]),
    ]
    system = types.Content(parts=[types.Part(text="Be brief.")])
    result = ankita.trim(contents, format="gemini", max_bytes=2_000, system=system, fill=False)
    assert result.system is system
    assert result.report["merged"] == [{"index": 2, "into": 0}]
    (merged,) = result.messages
    back = types.Content.model_validate_json(json.dumps(merged))
    assert back.role == "user"
    assert [p.text for p in back.parts or []] == ["Remember this icon.", None, "Which icon was it?"]
    assert (back.parts or [])[1].inline_data.data == GIF


def test_an_unmatched_function_response_is_repaired() -> None:
    contents = history()
    # A response to another function (no ids: matched by order and name) answers no call.
    contents[2] = types.Content(
        role="user",
        parts=[types.Part.from_function_response(name="translate", response={"text": "?"})],
    )
    repaired, report = ankita.sanitize_with_report(contents, format="gemini")
    actions = [r["action"] for r in report["repaired"]]
    assert actions == ["incomplete_function_calls_removed", "incomplete_function_response_removed"]
    note = "[Incomplete tool calls removed from restored session.]"
    # The two model contents left side by side merge; the note stands for the call.
    assert report["merged"] == [{"index": 3, "into": 1}]
    assert repaired[1] == {
        "role": "model",
        "parts": [{"text": note}, {"text": "It shows the display settings."}],
    }
    assert repaired[0] is contents[0] and repaired[2] is contents[4]

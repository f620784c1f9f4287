"""The Responses format (format="responses"): OpenAI Responses input items as dicts, as the
openai SDK's ``ResponseInputItemParam`` dicts, and as the SDK objects of ``response.output``
that an agent appends as they come; unchanged items come back as the caller's own objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ankita
import pytest
from helpers import SCREENSHOT

if TYPE_CHECKING:
    from openai.types.responses import ResponseInputItemParam


def step(k: int, output: Any) -> list[dict[str, Any]]:
    return [
        {
            "type": "reasoning",
            "id": f"rs_{k}",
            "summary": [{"type": "summary_text", "text": "read"}],
        },
        {"type": "function_call", "call_id": f"call_{k}", "name": "read_file", "arguments": "{}"},
        {"type": "function_call_output", "call_id": f"call_{k}", "output": output},
    ]


def test_steps_are_kept_or_dropped_whole() -> None:
    items: list[Any] = [{"role": "user", "content": "Read the files."}]
    for k in range(4):
        items += step(k, f"file {k} " * 200)
    items.append({"role": "user", "content": "Continue."})
    result = ankita.trim(items, format="responses", system="Be brief.", max_bytes=4000, fill=False)
    assert result.report["format"] == "responses"
    assert result.system == "Be brief."
    kept = result.messages
    assert kept[0] is items[0] and kept[-1] is items[-1]
    # Whole steps only: a reasoning item with its call and output, or none of them.
    dropped = result.report["dropped_messages"]
    assert dropped and len(dropped) % 3 == 0
    for k in range(4):
        indices = {1 + 3 * k, 2 + 3 * k, 3 + 3 * k}
        assert indices <= set(dropped) or not indices & set(dropped)
    # Unchanged items are the caller's own dicts.
    assert all(any(m is i for i in items) for m in kept)


def test_an_image_in_an_output_is_priced_by_pixels_and_replaced_by_input_text() -> None:
    items: list[Any] = [
        {"role": "user", "content": "Screenshot the page."},
        *step(
            0,
            [
                {"type": "input_text", "text": "here"},
                {"type": "input_image", "image_url": SCREENSHOT},
            ],
        ),
    ]
    loose = ankita.trim(items, format="responses", max_bytes=20_000)
    assert loose.messages[3] is items[3]
    cost = loose.report["cost_bytes"]
    assert cost is not None and cost < len(SCREENSHOT)
    tight = ankita.trim(items, format="responses", max_bytes=600)
    output = tight.messages[3]["output"]
    assert output[1]["type"] == "input_text" and "Image omitted" in output[1]["text"]
    assert tight.report["dropped_images"][0]["index"] == 3
    assert items[3]["output"][1]["type"] == "input_image"  # the caller's item is not mutated


def test_sanitize_repairs_responses_items() -> None:
    items: list[Any] = [
        {"role": "user", "content": "Run it."},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "run", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c9", "output": "stale"},
        {"role": "user", "content": "Status?"},
    ]
    repaired, report = ankita.sanitize_with_report(items, format="responses")
    assert repaired == [items[0], items[4]]
    assert [r["action"] for r in report["repaired"]] == [
        "orphan_reasoning_removed",
        "incomplete_call_removed",
        "orphan_call_output_removed",
    ]


def test_errors_name_the_item_path() -> None:
    items = [{"role": "user", "content": [{"type": "input_text"}]}]
    with pytest.raises(ankita.InvalidRequest) as error:
        ankita.trim(items, format="responses")
    assert error.value.path == "messages[0].content[0].text"


def test_openai_sdk_params_and_output_objects() -> None:
    responses = pytest.importorskip("openai.types.responses")
    reasoning_item = pytest.importorskip("openai.types.responses.response_reasoning_item")
    # ResponseInputItemParam dicts, as a type checker sees them.
    items: list[ResponseInputItemParam] = [
        {"role": "developer", "content": "Answer from the files."},
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What does this screen say?"},
                {"type": "input_image", "image_url": SCREENSHOT, "detail": "auto"},
            ],
        },
    ]
    # What an agent loop appends: the SDK objects of response.output, then its outputs.
    output: list[Any] = [
        responses.ResponseReasoningItem(
            id="rs_1",
            type="reasoning",
            summary=[reasoning_item.Summary(type="summary_text", text="Read the file first.")],
        ),
        responses.ResponseFunctionToolCall(
            id="fc_1",
            type="function_call",
            call_id="call_1",
            name="read_file",
            arguments='{"path": "a.txt"}',
            status="completed",
        ),
    ]
    answer: ResponseInputItemParam = {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "alpha " * 100,
    }
    session: list[Any] = [*items, *output, answer]
    result = ankita.trim(session, format="responses", max_bytes=20_000)
    assert result.report["repaired"] == []
    assert len(result.messages) == len(session)
    assert all(kept is given for kept, given in zip(result.messages, session))
    # The SDK objects count as their JSON: the screenshot by its pixels.
    cost = result.report["cost_bytes"]
    assert cost is not None and cost < len(SCREENSHOT)
    # Without its output the call is removed with its reasoning item.
    repaired, report = ankita.sanitize_with_report([*items, *output], format="responses")
    assert repaired == items
    assert {r["index"] for r in report["repaired"]} == {2, 3}

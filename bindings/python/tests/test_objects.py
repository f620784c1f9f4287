"""The result is built from the caller's own objects: identity, no mutation, what Python
agents hold (openai SDK dicts, tuples, extra keys)."""

from __future__ import annotations

import copy
import json
from collections import OrderedDict
from typing import Any

import ankita
import pytest
from helpers import PHOTO, SCREENSHOT, image_part, openai_session, tool_call


def shedding_session() -> list[dict[str, Any]]:
    """Trimmed to 5,000 bytes with ``fill=False`` (whole groups only): message 1 loses the
    middle of its two long text parts (the attachment shrinks with the other texts), message 2
    is repaired (left out, then back once the screenshot in message 3 has become a placeholder:
    refill). With fill, the room the placeholder frees goes back to message 1's cut text first."""
    return [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Attached file: notes.txt\n" + "note line\n" * 150},
                {
                    "type": "text",
                    "text": "goal: " + "x" * 1500,
                    "cache_control": {"type": "ephemeral"},
                },
            ],
        },
        {
            "role": "assistant",
            "content": "ok",
            "tool_calls": [tool_call("c1", "f", 3)],  # type: ignore[arg-type]
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look at these"},
                image_part(SCREENSHOT),
                image_part(PHOTO),
                {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
            ],
        },
    ]


def test_unchanged_messages_and_parts_are_the_callers_objects() -> None:
    messages = shedding_session()
    result = ankita.trim(messages, max_bytes=5000, fill=False)
    report = result.report
    assert report["dropped_messages"] == []
    assert report["refilled"] == [2]
    assert report["limited_by"] == "budget"
    assert [(t["index"], t["part"]) for t in report["truncated"]] == [(1, 0), (1, 1)]
    assert [(d["index"], d["part"]) for d in report["dropped_images"]] == [(3, 1)]

    system, anchor, repaired, request = result.messages
    assert system is messages[0]
    assert repaired["role"] == "assistant" and "tool_calls" not in repaired

    # A changed message is a shallow copy: new dict, new content list, old unchanged parts.
    assert anchor is not messages[1]
    assert anchor["content"] is not messages[1]["content"]
    assert anchor["content"][0]["text"].startswith("Attached file: notes.txt\nnote line")
    shrunk = anchor["content"][1]
    assert shrunk is not messages[1]["content"][1]
    assert shrunk["cache_control"] is messages[1]["content"][1]["cache_control"]
    assert len(shrunk["text"].encode()) == 128

    assert request["content"][0] is messages[3]["content"][0]
    placeholder = request["content"][1]
    assert placeholder == {
        "type": "text",
        "text": "[Image omitted to fit the context budget: PNG 1700×2200, ~765 tokens]",
    }
    assert request["content"][2] is messages[3]["content"][2]
    assert request["content"][3] is messages[3]["content"][3]


def test_the_callers_messages_are_never_mutated() -> None:
    messages = shedding_session()
    before = copy.deepcopy(messages)
    ids = [id(m) for m in messages]
    ankita.trim(messages, max_bytes=5000)
    ankita.trim(messages, max_bytes=5000, on_image_overflow="drop")
    ankita.sanitize(messages)
    assert messages == before
    assert [id(m) for m in messages] == ids


def test_repair_removes_tool_calls_from_a_copy() -> None:
    broken: dict[str, Any] = {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [tool_call("c1", "read", '{"a": 1}')],
        "metadata": {"trace": [1, 2, 3]},
    }
    messages = [{"role": "user", "content": "hi"}, broken, {"role": "user", "content": "well?"}]
    result = ankita.trim(messages)
    assert result.report["repaired"][0]["action"] == "incomplete_tool_calls_removed"
    repaired = result.messages[1]
    assert repaired is not broken
    assert "tool_calls" not in repaired
    assert "tool_calls" in broken
    assert repaired["content"] == (
        "Let me check.\n[Incomplete tool calls removed from restored session.]"
    )
    assert repaired["metadata"] is broken["metadata"]
    assert result.messages[0] is messages[0] and result.messages[2] is messages[2]


def test_openai_sdk_shaped_messages() -> None:
    messages = openai_session()
    before = copy.deepcopy(messages)
    result = ankita.trim(messages, max_bytes=100_000)
    # Nothing to remove: every message comes back as the very same object, extra keys intact.
    assert len(result.messages) == len(messages)
    assert all(out is given for out, given in zip(result.messages, messages))
    assert messages == before
    assert result.report["dropped_messages"] == []
    assert result.report["repaired"] == []
    # The screenshot is priced by pixels, not by its data URL's length.
    cost = result.report["cost_bytes"]
    assert cost is not None and cost < len(json.dumps(messages))

    # Tight: the old exchange goes whole; the request, its screenshot and the system stay.
    tight = ankita.trim(messages, max_bytes=3500)
    kept = [m["role"] for m in tight.messages]
    assert kept[0] == "system" and tight.messages[-1] is messages[-1]
    assert "tool" not in kept or "assistant" in kept  # never a reply without its call


def test_tuples_where_lists_are_expected() -> None:
    messages = tuple(
        {**m, "content": tuple(m["content"])} if isinstance(m["content"], list) else m
        for m in shedding_session()
    )
    as_lists = shedding_session()
    from_tuples = ankita.trim(messages, max_bytes=5000, fill=False)
    from_lists = ankita.trim(as_lists, max_bytes=5000, fill=False)
    assert from_tuples.report == from_lists.report
    assert from_tuples.messages[0] is messages[0]
    # Changed content comes back as a list; its kept parts are still the caller's objects.
    assert isinstance(from_tuples.messages[3]["content"], list)
    assert from_tuples.messages[3]["content"][0] is messages[3]["content"][0]
    assert json.dumps(from_tuples.messages) == json.dumps(from_lists.messages)
    assert ankita.sanitize(messages)[0] is messages[0]


def test_dict_subclasses_and_key_order() -> None:
    message = OrderedDict([("content", "hi"), ("role", "user"), ("name", "ada")])
    result = ankita.trim([message])
    assert result.messages[0] is message
    assert list(result.messages[0]) == ["content", "role", "name"]


def test_report_shape() -> None:
    report = ankita.trim(openai_session(), max_bytes=100_000).report
    for key in (
        "budget_bytes",
        "budget_tokens",
        "cost_bytes",
        "cost_tokens",
        "input_messages",
        "output_messages",
        "dropped_messages",
        "truncated",
        "dropped_images",
        "dropped_files",
        "dropped_attachments",
        "repaired",
    ):
        assert key in report, key
    assert report["input_messages"] == report["output_messages"] == 6


def test_sanitize_and_its_report() -> None:
    messages = [
        {"role": "tool", "tool_call_id": "gone", "content": "orphan"},
        {"role": "user", "content": "hi"},
    ]
    assert ankita.sanitize(messages) == [messages[1]]
    assert ankita.sanitize(messages)[0] is messages[1]
    repaired, report = ankita.sanitize_with_report(messages)
    assert repaired == [messages[1]]
    assert list(report) == ["repaired"]
    assert report["repaired"][0]["action"] == "orphan_tool_removed"


def test_trim_result_repr_and_generic_alias() -> None:
    result = ankita.trim([{"role": "user", "content": "hi"}], max_bytes=4096)
    assert repr(result) == "TrimResult(messages=<1 messages>, cost_bytes=17, budget_bytes=4096)"
    assert ankita.TrimResult[dict[str, Any]] is not None  # usable in runtime annotations


def test_no_budget_applies_only_max_messages() -> None:
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": str(i)} for i in range(9)
    ]
    result = ankita.trim(messages, max_messages=4)
    assert result.report["budget_bytes"] is None
    assert len(result.messages) <= 4
    assert result.messages[-1] is messages[-1]


def test_anthropic_format() -> None:
    system = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "What is in a?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "tu_1", "name": "read", "input": {"path": "a"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "tu_1", "content": "body"},
                {"type": "text", "text": "and?"},
            ],
        },
    ]
    before = copy.deepcopy(messages)
    result = ankita.trim(messages, format="anthropic", system=system, max_bytes=100_000)
    assert result.system is system
    assert result.report["format"] == "anthropic"
    assert result.messages == messages
    assert messages == before
    request = {"messages": messages, "format": "anthropic", "system": system, "max_bytes": 100_000}
    answer = json.loads(ankita.trim_json(json.dumps(request)))
    assert answer["messages"] == result.messages and answer["report"] == result.report

    repaired, report = ankita.sanitize_with_report(messages, format="anthropic")
    assert repaired == messages and report["repaired"] == []
    # Anthropic blocks in the chat format are a mix-up of formats, named with the fix.
    with pytest.raises(ankita.InvalidRequest) as mixed:
        ankita.trim(messages)
    assert mixed.value.path == "messages[1].content[1].type"
    assert 'format="anthropic"' in str(mixed.value)


def test_system_key_needs_the_anthropic_format() -> None:
    with pytest.raises(ankita.InvalidRequest) as info:
        ankita.trim([{"role": "user", "content": "hi"}], system="Be brief.")
    assert info.value.path == "system"
    with pytest.raises(ankita.InvalidRequest) as bad_format:
        ankita.trim([{"role": "user", "content": "hi"}], format="cohere")  # type: ignore[call-overload]
    assert bad_format.value.path == "format"

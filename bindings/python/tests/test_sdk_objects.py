"""SDK objects where dicts are expected, with the real openai and anthropic packages: what an
agent appends after a call (``response.choices[0].message``, ``response.content``) is accepted
at any depth, and an unchanged message comes back as the caller's own object."""

from __future__ import annotations

import json
from typing import Any

import ankita
import pytest
from helpers import SCREENSHOT, image_part

openai_chat = pytest.importorskip("openai.types.chat")
anthropic_types = pytest.importorskip("anthropic.types")

ChatCompletionMessage = openai_chat.ChatCompletionMessage
ToolCall = openai_chat.ChatCompletionMessageFunctionToolCall
Function = openai_chat.chat_completion_message_function_tool_call.Function
TextBlock = anthropic_types.TextBlock
ToolUseBlock = anthropic_types.ToolUseBlock


def answer(text: str) -> Any:
    return ChatCompletionMessage(role="assistant", content=text)


def calling(call_id: str, arguments: str) -> Any:
    return ChatCompletionMessage(
        role="assistant",
        content=None,
        tool_calls=[
            ToolCall(
                id=call_id,
                type="function",
                function=Function(name="read_file", arguments=arguments),
            )
        ],
    )


def openai_loop() -> list[Any]:
    """An agent loop that appends the SDK's ChatCompletionMessage objects as they come."""
    return [
        {"role": "system", "content": "You read files."},
        {"role": "user", "content": "What is in a.txt?"},
        calling("call_1", '{"path": "a.txt"}'),
        {"role": "tool", "tool_call_id": "call_1", "content": "alpha " * 300},
        answer("It says alpha, many times."),
        {
            "role": "user",
            "content": [{"type": "text", "text": "And here?"}, image_part(SCREENSHOT)],
        },
        calling("call_2", '{"path": "b.txt"}'),
        {"role": "tool", "tool_call_id": "call_2", "content": "beta"},
    ]


def as_dicts(messages: list[Any]) -> list[Any]:
    return [
        m.model_dump(mode="json", exclude_none=True) if isinstance(m, ChatCompletionMessage) else m
        for m in messages
    ]


def test_chat_completion_messages_are_accepted_and_returned_as_themselves() -> None:
    messages = openai_loop()
    result = ankita.trim(messages, max_messages=5)
    # The same answer as for the dicts the SDK objects dump to.
    expected = ankita.trim(as_dicts(messages), max_messages=5)
    assert result.report == expected.report
    assert result.report["dropped_messages"] == [2, 3, 4]
    assert as_dicts(result.messages) == expected.messages
    # Unchanged messages are the caller's objects, SDK objects included.
    assert [m is messages[i] for m, i in zip(result.messages, [0, 1, 5, 6, 7])] == [True] * 5
    assert isinstance(result.messages[3], ChatCompletionMessage)


def test_a_changed_sdk_message_comes_back_as_a_dict() -> None:
    # The exchange in progress is kept and shrunk: its long text loses its middle.
    thinking_aloud = calling("call_1", "{}")
    thinking_aloud.content = "line\n" * 2000
    messages = [
        {"role": "user", "content": "Summarise the log."},
        thinking_aloud,
        {"role": "tool", "tool_call_id": "call_1", "content": "the log"},
    ]
    result = ankita.trim(messages, max_bytes=3000)
    assert result.report["dropped_messages"] == []
    assert [t["index"] for t in result.report["truncated"]] == [1]
    request, shrunk, reply = result.messages
    assert request is messages[0] and reply is messages[2]
    assert type(shrunk) is dict
    assert shrunk["role"] == "assistant"
    assert shrunk["tool_calls"] == [thinking_aloud.tool_calls[0].model_dump(exclude_none=True)]
    assert "bytes omitted to fit the context budget" in shrunk["content"]
    # The caller's object is untouched.
    assert thinking_aloud.content == "line\n" * 2000


def test_repair_of_sdk_messages() -> None:
    # A tool call whose reply never came (the session was saved mid-call).
    messages = [{"role": "user", "content": "go"}, calling("call_9", "{}"), answer("done")]
    repaired, report = ankita.sanitize_with_report(messages)
    assert [(r["index"], r["action"]) for r in report["repaired"]] == [
        (1, "incomplete_tool_calls_removed")
    ]
    assert repaired[0] is messages[0] and repaired[2] is messages[2]
    assert type(repaired[1]) is dict and "tool_calls" not in repaired[1]
    assert ankita.sanitize(messages)[2] is messages[2]


def test_sdk_objects_inside_dicts_and_in_the_options() -> None:
    call = ToolCall(id="c1", type="function", function=Function(name="f", arguments="{}"))
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    result = ankita.trim(messages, max_bytes=10_000)
    assert result.messages == messages and result.messages[1] is messages[1]
    expected = {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]}
    plain = ankita.trim([messages[0], expected, messages[2]], max_bytes=10_000)
    assert plain.report == result.report


def test_objects_with_to_dict() -> None:
    class Part:
        def to_dict(self) -> dict[str, Any]:
            return {"type": "text", "text": "from to_dict"}

    part = Part()
    messages = [{"role": "user", "content": [part]}]
    result = ankita.trim(messages)
    assert result.messages[0] is messages[0]
    answer_json = json.loads(
        ankita.trim_json(json.dumps({"messages": [{"role": "user", "content": [part.to_dict()]}]}))
    )
    assert answer_json["report"] == result.report


def test_a_part_object_in_a_shrunk_message() -> None:
    class Part:
        def to_dict(self) -> dict[str, Any]:
            return {"type": "text", "text": "x" * 3000}

    messages = [
        {"role": "user", "content": [Part(), {"type": "text", "text": "the question"}]},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "and now?"},
    ]
    result = ankita.trim(messages, max_bytes=1500)
    anchor = result.messages[0]
    assert type(anchor) is dict and anchor is not messages[0]
    assert anchor["content"][0]["type"] == "text"
    assert len(anchor["content"][0]["text"]) < 3000
    assert result.messages[-1] is messages[2]


def test_anthropic_sdk_blocks() -> None:
    # What an Anthropic agent loop appends: {"role": "assistant", "content": response.content}.
    content = [
        TextBlock(type="text", text="Let me look."),
        ToolUseBlock(type="tool_use", id="tu_1", name="read", input={"path": "a"}),
    ]
    messages: list[Any] = [
        {"role": "user", "content": "What is in a?"},
        {"role": "assistant", "content": content},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "body"}],
        },
    ]
    system = [TextBlock(type="text", text="Be brief.")]
    result = ankita.trim(messages, format="anthropic", system=system, max_bytes=100_000)
    # Unchanged, the messages come back as the caller's own, SDK blocks and all.
    assert result.messages == messages and result.messages[1] is messages[1]
    assert result.system is system
    assert result.report["format"] == "anthropic"
    assert ankita.sanitize(messages, format="anthropic")[1] is messages[1]
    # Messages merged to keep roles alternating are new dicts.
    later = [{"role": "assistant", "content": "x" * 4000}, {"role": "user", "content": "and?"}]
    tight = ankita.trim([*messages, *later], format="anthropic", max_bytes=600, fill=False)
    merged = [{"type": "text", "text": "What is in a?"}, {"type": "text", "text": "and?"}]
    assert tight.messages == [{"role": "user", "content": merged}]
    assert tight.report["merged"] == [{"index": 4, "into": 0}]


def test_a_langchain_message_is_pointed_at_its_adapter() -> None:
    messages_module = pytest.importorskip("langchain_core.messages")
    with pytest.raises(ankita.InvalidRequest) as info:
        ankita.trim([messages_module.HumanMessage("hi")])
    assert "ankita.langchain" in info.value.message
    assert info.value.path == "messages[0]"

"""ankita.langchain against the real langchain-core: BaseMessage lists in and out, the caller's
objects kept, count_tokens as LangChain's token_counter, and a minimal agent loop on a fake
chat model (no network)."""

from __future__ import annotations

import base64
import functools
from typing import Any

import ankita
import pytest
from conftest import IMAGES

pytest.importorskip("langchain_core")

from ankita.langchain import (
    count_tokens,
    to_openai,
    trim_messages,
    trim_messages_with_report,
    trimmer,
)
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages import trim_messages as langchain_trim_messages

PNG = base64.b64encode((IMAGES / "png" / "rgb_1700x2200.png").read_bytes()).decode("ascii")


def screenshot_block() -> dict[str, Any]:
    """LangChain's standard image content block (base64 data)."""
    return {"type": "image", "base64": PNG, "mime_type": "image/png"}


def session() -> list[BaseMessage]:
    return [
        SystemMessage("You are a desktop companion."),
        HumanMessage("My build fails. Log: " + "error: cannot find crate\n" * 200),
        AIMessage("Which command did you run?"),
        HumanMessage(
            content=[{"type": "text", "text": "This dialog popped up."}, screenshot_block()]
        ),
        AIMessage(
            "",
            tool_calls=[{"name": "read_file", "args": {"path": "build.log"}, "id": "call_1"}],
        ),
        ToolMessage("warning: unused variable\n" * 400, tool_call_id="call_1"),
    ]


def test_conversion_to_chat_dicts() -> None:
    system, log, answer, request, call, reply = (to_openai(m) for m in session())
    assert system == {"role": "system", "content": "You are a desktop companion."}
    assert log["role"] == "user" and answer["role"] == "assistant"
    assert request["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64," + PNG},
    }
    assert call == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "build.log"}'},
            }
        ],
    }
    assert reply["role"] == "tool" and reply["tool_call_id"] == "call_1"


def test_trim_returns_the_callers_messages() -> None:
    messages = session()
    kept, report = trim_messages_with_report(messages, context_tokens=4096, max_output_tokens=1024)
    # The same decisions as ankita.trim on the AI SDK messages they are trimmed as.
    sdk: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a desktop companion."},
        {"role": "user", "content": "My build fails. Log: " + "error: cannot find crate\n" * 200},
        {"role": "assistant", "content": "Which command did you run?"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "This dialog popped up."},
                {"type": "image", "image": "data:image/png;base64," + PNG},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool-call",
                    "toolCallId": "call_1",
                    "toolName": "read_file",
                    "input": {"path": "build.log"},
                }
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "call_1",
                    "toolName": "",
                    "output": {"type": "text", "value": "warning: unused variable\n" * 400},
                }
            ],
        },
    ]
    expected = ankita.trim(sdk, format="ai-sdk", context_tokens=4096, max_output_tokens=1024)
    assert report == expected.report and report["format"] == "ai-sdk"
    assert report["dropped_messages"] == [1, 2]
    assert [type(m) for m in kept] == [SystemMessage, HumanMessage, AIMessage, ToolMessage]
    assert kept[0] is messages[0] and kept[1] is messages[3] and kept[2] is messages[4]
    # The tool result lost its middle: a new ToolMessage, the same call id, the caller's intact.
    assert [t["index"] for t in report["truncated"]] == [5]
    shrunk = kept[3]
    assert isinstance(shrunk, ToolMessage) and shrunk is not messages[5]
    assert shrunk.tool_call_id == "call_1"
    assert isinstance(shrunk.content, str) and "bytes omitted" in shrunk.content
    assert messages[5].content == "warning: unused variable\n" * 400
    assert trim_messages(messages, context_tokens=4096, max_output_tokens=1024)[:3] == kept[:3]


def test_an_image_placeholder_keeps_the_other_blocks() -> None:
    text = {"type": "text", "text": "Compare with this one."}
    messages: list[BaseMessage] = [
        HumanMessage(content=[text, screenshot_block()]),
        AIMessage("They differ in the title bar."),
        HumanMessage("Which is newer?"),
    ]
    kept, report = trim_messages_with_report(messages, max_bytes=2000)
    assert [(d["index"], d["part"], d["tokens"]) for d in report["dropped_images"]] == [(0, 1, 765)]
    first = kept[0]
    assert isinstance(first, HumanMessage) and first is not messages[0]
    assert isinstance(first.content, list)
    assert first.content[0] is messages[0].content[0]  # the caller's own block
    assert first.content[0] == text
    assert first.content[1] == {
        "type": "text",
        "text": "[Image omitted to fit the context budget: PNG 1700×2200, ~765 tokens]",
    }
    # The answer in between did not fit beside the screenshot; once the screenshot is a
    # placeholder it does, and comes back (refill). Unchanged messages are the caller's own.
    assert report["dropped_messages"] == [] and report["refilled"] == [1]
    assert len(kept) == 3 and kept[1] is messages[1] and kept[2] is messages[2]


def test_incomplete_tool_calls_are_removed_from_a_copy() -> None:
    messages: list[BaseMessage] = [
        HumanMessage("Read a.txt"),
        AIMessage("Reading.", tool_calls=[{"name": "read", "args": {}, "id": "call_7"}]),
        HumanMessage("Never mind, what time is it?"),
    ]
    kept, report = trim_messages_with_report(messages)
    assert [(r["index"], r["action"]) for r in report["repaired"]] == [
        (1, "incomplete_tool_calls_removed")
    ]
    repaired = kept[1]
    assert isinstance(repaired, AIMessage) and repaired.tool_calls == []
    assert isinstance(repaired.content, str) and repaired.content.startswith("Reading.")
    assert messages[1].tool_calls  # type: ignore[attr-defined]
    assert kept[0] is messages[0] and kept[2] is messages[2]


def test_removed_calls_leave_the_content_too() -> None:
    # An AIMessage as ChatAnthropic returns it: the call both in its content (a tool_use block)
    # and in tool_calls; another call in a LangChain tool_call block.
    use = {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.txt"}}
    block = {"type": "tool_call", "id": "call_2", "name": "ls", "args": {}}
    text = {"type": "text", "text": "Reading."}
    other = {"type": "tool_use", "id": "toolu_9", "name": "x", "input": {}}
    calls = [
        {"name": "read", "args": {"path": "a.txt"}, "id": "toolu_1"},
        {"name": "ls", "args": {}, "id": "call_2"},
    ]
    messages: list[BaseMessage] = [
        HumanMessage("Read a.txt"),
        AIMessage(content=[text, use, block, other], tool_calls=calls),
        HumanMessage("Never mind, what time is it?"),
    ]
    kept, report = trim_messages_with_report(messages)
    assert [(r["index"], r["action"]) for r in report["repaired"]] == [
        (1, "incomplete_tool_calls_removed")
    ]
    repaired = kept[1]
    assert isinstance(repaired, AIMessage) and repaired.tool_calls == []
    assert isinstance(repaired.content, list)
    kinds = [b["type"] for b in repaired.content if isinstance(b, dict)]
    # The removed calls' blocks are gone; a block of no removed call stays as it was.
    assert "tool_call" not in kinds and other in repaired.content and use not in repaired.content
    assert repaired.content[0] is messages[1].content[0]  # the caller's own block
    assert messages[1].content == [text, use, block, other]  # the caller's message is untouched


def test_orphan_tool_messages_are_left_out() -> None:
    messages: list[BaseMessage] = [
        ToolMessage("stale result", tool_call_id="gone"),
        HumanMessage("hello"),
    ]
    assert trim_messages(messages) == [messages[1]]


def test_count_tokens_prices_images_by_pixels() -> None:
    text_only = [HumanMessage("Which is newer?")]
    with_image = [
        HumanMessage(content=[{"type": "text", "text": "Which is newer?"}, screenshot_block()])
    ]
    assert count_tokens([]) == 0
    # The screenshot costs its 765 vision tokens, not its ~1 MB of base64.
    assert 765 <= count_tokens(with_image) - count_tokens(text_only) <= 780
    # No message limit: 100 messages are all counted.
    many = [HumanMessage(f"message {i}") for i in range(100)]
    assert count_tokens(many) > 25 * count_tokens(many[:2])


def test_an_images_detail_is_priced_as_openai_prices_it() -> None:
    def cost(detail: str) -> int:
        url = f"data:image/png;base64,{PNG}"
        block = {"type": "image_url", "image_url": {"url": url, "detail": detail}}
        message = HumanMessage(content=[{"type": "text", "text": "What is this?"}, block])
        kept, report = trim_messages_with_report([message], model="gpt-4o", max_bytes=10**6)
        assert kept == [message]
        return report["cost_tokens"] or 0

    # 1700 x 2200 under gpt-4o: 765 tokens at full detail, 85 at low.
    assert cost("high") - cost("low") == 765 - 85
    assert cost("auto") == cost("high")


def test_count_tokens_as_langchains_token_counter() -> None:
    messages: list[BaseMessage] = [
        SystemMessage("Be brief."),
        *[HumanMessage(f"question {i}: " + "words " * 50) for i in range(20)],
    ]
    kept = langchain_trim_messages(
        messages,
        max_tokens=400,
        token_counter=count_tokens,
        strategy="last",
        include_system=True,
    )
    assert kept[0] is messages[0] and kept[-1] is messages[-1]
    assert 1 < len(kept) < len(messages)
    assert count_tokens(kept) <= 400


def test_a_minimal_agent_loop() -> None:
    """The loop trims before each model call; the model sees the trimmed history."""
    replies = iter(
        [
            AIMessage(
                "", tool_calls=[{"name": "read_log", "args": {"lines": 500}, "id": "call_1"}]
            ),
            AIMessage("The disk is full."),
        ]
    )
    model = GenericFakeChatModel(messages=replies)
    seen: list[list[BaseMessage]] = []
    history: list[BaseMessage] = [
        SystemMessage("You are a desktop companion."),
        *[HumanMessage(f"earlier chat {i} " + "x" * 400) for i in range(30)],
        HumanMessage(content=[{"type": "text", "text": "What is wrong?"}, screenshot_block()]),
    ]
    for _ in range(4):
        window = trim_messages(
            history, context_tokens=4000, max_output_tokens=500, bytes_per_token=4
        )
        seen.append(window)
        response = model.invoke(window)
        assert isinstance(response, AIMessage)
        history.append(response)
        if not response.tool_calls:
            break
        for call in response.tool_calls:
            history.append(ToolMessage("ERROR: disk full\n" * 300, tool_call_id=call["id"] or ""))
    assert isinstance(history[-1], AIMessage) and history[-1].content == "The disk is full."
    first, second = seen
    assert first[0] is history[0] and first[-1] is history[31]
    assert len(first) < 32
    # The second call sees the request, the tool call and its (shrunk) result.
    assert second[-2] is history[32]
    assert isinstance(second[-1], ToolMessage) and second[-1].tool_call_id == "call_1"
    assert count_tokens(second) <= 4000 - 500


def test_count_tokens_prices_pieces_of_a_history() -> None:
    """LangChain's trim_messages counts candidate lists newest first: a tool reply before its
    call must still be counted, so that what it keeps fits."""
    messages = session()
    whole = count_tokens(messages)
    assert count_tokens(list(reversed(messages))) == whole
    assert count_tokens(messages[5:]) > 2000  # a tool reply alone, not an orphan to remove
    assert sum(count_tokens([m]) for m in messages) == pytest.approx(whole, abs=len(messages))
    kept = langchain_trim_messages(
        messages,
        max_tokens=3500,
        token_counter=count_tokens,
        strategy="last",
        include_system=True,
        start_on="human",
    )
    assert count_tokens(kept) <= 3500 < whole
    assert [messages.index(m) for m in kept] == [0, 3, 4, 5]


LS_LA = "".join(
    f"-rwxr-xr-x 1 root root {1000 + 37 * i} Nov 30 23:{i:02d} tool{i}\n" for i in range(12)
)


def test_count_tokens_in_a_models_tokens_as_token_counter() -> None:
    """With a model, the counter speaks the model's own tokens (o200k_base for gpt-4o): the
    reversed, piecewise calls of LangChain's trim_messages add up to the whole."""
    messages: list[BaseMessage] = [
        SystemMessage("Be brief."),
        HumanMessage("list the files"),
        AIMessage("", tool_calls=[{"id": "call_1", "name": "ls", "args": {"path": "."}}]),
        ToolMessage("README.md\nsrc\nCargo.toml", tool_call_id="call_1"),
        *[HumanMessage(f"why is this {i}?\n" + LS_LA) for i in range(10)],
    ]
    counter = functools.partial(count_tokens, model="gpt-4o")
    whole = counter(messages)
    assert whole == sum(counter([m]) for m in reversed(messages))
    # `ls -la` output runs fewer bytes per token than 4: the model's count is above the byte
    # rule's.
    assert whole > count_tokens(messages)
    kept = langchain_trim_messages(
        messages, max_tokens=500, token_counter=counter, strategy="last", include_system=True
    )
    assert kept[0] is messages[0] and counter(kept) <= 500 < whole


def test_every_option_of_trim_reaches_the_trim() -> None:
    import inspect

    # The options of ankita.trim but those the adapter decides (it sends AI SDK messages).
    own = {"messages", "format", "system", "cache_breakpoint", "summary"}
    options = set(inspect.signature(ankita.trim).parameters) - own
    for adapter in (trim_messages, trim_messages_with_report, trimmer):
        assert set(inspect.signature(adapter).parameters) - {"messages"} == options
    history = [
        HumanMessage("Read the log."),
        AIMessage("", tool_calls=[{"name": "read_file", "args": {"path": "a"}, "id": "c1"}]),
        ToolMessage("warning: unused variable\n" * 400, tool_call_id="c1"),
        HumanMessage("And the other one."),
        AIMessage("", tool_calls=[{"name": "read_file", "args": {"path": "b"}, "id": "c2"}]),
        ToolMessage("ok", tool_call_id="c2"),
        HumanMessage("Thanks."),
    ]
    kept, report = trim_messages_with_report(
        history, max_bytes=2000, clear_tool_results={"keep": 1}, tokenizer="bytes"
    )
    assert report["cleared_tool_results"], report
    assert len(kept) == len(history) and kept[2] is not history[2]
    assert "cleared" in str(kept[2].content) and kept[5] is history[5]
    with pytest.raises(ankita.InvalidRequest):
        trim_messages(history, model="no-such-model-family-xyz", strict_model=True)


def agent_history(calls: int) -> list[list[BaseMessage]]:
    """An agent loop's history at each of its model calls: a task every eighth call, else a
    tool call and its long result."""
    history: list[BaseMessage] = [SystemMessage("You are a coding agent.")]
    out: list[list[BaseMessage]] = []
    for k in range(calls):
        if k % 8 == 0:
            history.append(HumanMessage(f"Task {k}: fix the build."))
        else:
            call = {"name": "read_file", "args": {"path": f"f{k}"}, "id": f"call_{k}"}
            history.append(AIMessage("", tool_calls=[call]))
            log = "the build log says the config value is wrong\n" * (40 + k % 7 * 20)
            history.append(ToolMessage(log, tool_call_id=f"call_{k}"))
        out.append(list(history))
    return out


def prefix_share(windows: list[list[BaseMessage]]) -> float:
    """The share of the windows' messages that repeat the previous window's from its start,
    over the calls after the first that dropped anything."""
    repeated = total = 0
    for previous, window in zip(windows, windows[1:]):
        same = 0
        for a, b in zip(previous, window):
            if a is not b:
                break
            same += 1
        repeated += same
        total += len(window)
    return repeated / total


def test_a_trimmer_keeps_the_prefix_from_call_to_call() -> None:
    """trimmer() carries the cut from call to call (trim_to 0.75): the messages sent repeat the
    previous call's as a prefix on nearly every call; trim_to=None opts out, each call trimmed
    as trim_messages trims (the first kept message moving on nearly every call)."""
    options: ankita.AdapterOptions = {
        "context_tokens": 64_000,
        "max_output_tokens": 4000,
        "model": "gpt-4o",
    }
    histories = agent_history(160)
    trim = trimmer(**options)
    windows = [trim(h) for h in histories]
    filled = next(k for k, w in enumerate(windows) if len(w) < len(histories[k]))
    assert prefix_share(windows[filled:]) >= 0.85
    for window in windows:
        assert count_tokens(window, model="gpt-4o") <= 64_000 - 4000
    # Another conversation through the same trimmer does not take this one's cut.
    other = [[SystemMessage("You are a coding agent."), HumanMessage("Hi")]]
    assert trim(other[0]) == other[0]
    opted_out: ankita.AdapterOptions = {**options, "trim_to": None}
    plain = trimmer(**opted_out)
    stateless = [plain(h) for h in histories]
    assert all(a == trim_messages(h, **options) for a, h in zip(stateless[::15], histories[::15]))
    assert prefix_share(stateless[filled:]) < 0.5

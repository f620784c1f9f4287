"""ankita.pydantic_ai against the real pydantic-ai: ModelMessage histories in and out, the
caller's objects kept, and an agent whose history processor trims before every request of a
FunctionModel (no network)."""

from __future__ import annotations

import base64

import pytest
from conftest import IMAGES

pytest.importorskip("pydantic_ai")

from ankita import AdapterOptions
from ankita.pydantic_ai import history_processor, trim_messages, trim_messages_with_report
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    BinaryContent,
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

PNG_BYTES = (IMAGES / "png" / "rgb_1700x2200.png").read_bytes()
PNG_URL = "data:image/png;base64," + base64.b64encode(PNG_BYTES).decode("ascii")


def history() -> list[ModelMessage]:
    return [
        ModelRequest(
            parts=[
                SystemPromptPart("You are a desktop companion."),
                UserPromptPart("My build fails. Log: " + "error: cannot find crate\n" * 200),
            ]
        ),
        ModelResponse(parts=[TextPart("Which command did you run?")]),
        ModelRequest(
            parts=[
                UserPromptPart(
                    ["This dialog popped up.", BinaryContent(PNG_BYTES, media_type="image/png")]
                )
            ]
        ),
        ModelResponse(
            parts=[ToolCallPart("read_file", {"path": "build.log"}, tool_call_id="call_1")]
        ),
        ModelRequest(
            parts=[ToolReturnPart("read_file", "warning: unused\n" * 600, tool_call_id="call_1")]
        ),
    ]


def test_trim_keeps_the_callers_objects() -> None:
    messages = history()
    kept, report = trim_messages_with_report(messages, context_tokens=4096, max_output_tokens=1024)
    # Chat messages: 0 system, 1 old log, 2 answer, 3 screenshot, 4 tool call, 5 tool return.
    assert report["dropped_messages"] == [1, 2]
    assert [t["index"] for t in report["truncated"]] == [5]
    first, request, call, result = kept
    # The first request lost its user prompt but keeps its system prompt: a new request.
    assert isinstance(first, ModelRequest) and first is not messages[0]
    assert first.parts == [messages[0].parts[0]] and first.parts[0] is messages[0].parts[0]
    assert request is messages[2] and call is messages[3]
    # The tool return lost its middle: a new request and part, the same call id.
    assert isinstance(result, ModelRequest) and result is not messages[4]
    (part,) = result.parts
    assert isinstance(part, ToolReturnPart) and part.tool_call_id == "call_1"
    assert isinstance(part.content, str) and "bytes omitted" in part.content
    assert messages[4].parts[0].content == "warning: unused\n" * 600  # type: ignore[union-attr]


def test_an_image_placeholder_in_a_user_prompt() -> None:
    image = ImageUrl(PNG_URL)
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart(["Compare with this.", image])]),
        ModelResponse(parts=[TextPart("They differ.")]),
        ModelRequest(parts=[UserPromptPart("Which is newer?")]),
    ]
    kept, report = trim_messages_with_report(messages, max_bytes=2000)
    assert [(d["index"], d["part"], d["tokens"]) for d in report["dropped_images"]] == [(0, 1, 765)]
    # The answer comes back once the screenshot is a placeholder (refill).
    assert report["dropped_messages"] == [] and report["refilled"] == [1]
    first, answer, last = kept
    assert answer is messages[1] and last is messages[2]
    assert isinstance(first, ModelRequest)
    (prompt,) = first.parts
    assert isinstance(prompt, UserPromptPart)
    assert prompt.content == [
        "Compare with this.",
        "[Image omitted to fit the context budget: PNG 1700×2200, ~765 tokens]",
    ]


def test_an_unanswered_tool_call_is_repaired() -> None:
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("Read a.txt")]),
        ModelResponse(
            parts=[TextPart("Reading."), ToolCallPart("read", {}, tool_call_id="call_7")]
        ),
        ModelRequest(parts=[UserPromptPart("Never mind.")]),
    ]
    kept, report = trim_messages_with_report(messages)
    assert [(r["index"], r["action"]) for r in report["repaired"]] == [
        (1, "incomplete_tool_calls_removed")
    ]
    assert kept[0] is messages[0] and kept[2] is messages[2]
    response = kept[1]
    assert isinstance(response, ModelResponse)
    assert all(isinstance(p, TextPart) for p in response.parts)
    assert "Reading." in "".join(p.content for p in response.parts if isinstance(p, TextPart))


def test_nothing_to_trim_returns_the_same_objects() -> None:
    messages = history()[:2]
    kept = trim_messages(messages)
    assert len(kept) == 2 and all(a is b for a, b in zip(kept, messages))


def test_an_agent_with_the_history_processor() -> None:
    """A FunctionModel agent: the model sees the trimmed history on every request."""
    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        if len(seen) == 1:
            return ModelResponse(
                parts=[ToolCallPart("read_log", {"lines": 2000}, tool_call_id="call_1")]
            )
        return ModelResponse(parts=[TextPart("The disk is full.")])

    agent = Agent(
        FunctionModel(model),
        capabilities=[
            ProcessHistory(history_processor(context_tokens=4000, max_output_tokens=500))
        ],
    )

    @agent.tool_plain
    def read_log(lines: int) -> str:
        return "ERROR: disk full\n" * lines

    # Some 300 tokens a message: the 30 of them do not fit the window.
    words = " ".join(f"word{j}" for j in range(150))
    earlier: list[ModelMessage] = []
    for i in range(30):
        earlier.append(ModelRequest(parts=[UserPromptPart(f"earlier chat {i}: " + words)]))
        earlier.append(ModelResponse(parts=[TextPart(f"answer {i}")]))
    result = agent.run_sync(
        ["What is wrong?", BinaryContent(PNG_BYTES, media_type="image/png")],
        message_history=earlier,
    )
    assert result.output == "The disk is full."
    first, second = seen
    # The old chat went, the request with its screenshot stayed.
    assert len(first) < len(earlier)
    request = first[-1]
    assert isinstance(request, ModelRequest)
    assert any(
        isinstance(p, UserPromptPart) and p.content[0] == "What is wrong?" for p in request.parts
    )
    # The second request ends with the tool call and its result, shrunk to fit.
    call, reply = second[-2:]
    assert isinstance(call, ModelResponse) and isinstance(call.parts[0], ToolCallPart)
    assert isinstance(reply, ModelRequest)
    returned = [p for p in reply.parts if isinstance(p, ToolReturnPart)]
    assert len(returned) == 1 and returned[0].tool_call_id == "call_1"
    assert isinstance(returned[0].content, str) and "bytes omitted" in returned[0].content


def test_the_newest_instructions_are_reserved_like_memory() -> None:
    instructions = "Answer in French. " * 50
    plain: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("Bonjour?")])]
    instructed: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("Bonjour?")], instructions=instructions)
    ]
    _, without = trim_messages_with_report(plain, context_tokens=8192)
    _, with_them = trim_messages_with_report(instructed, context_tokens=8192)
    _, as_memory = trim_messages_with_report(plain, context_tokens=8192, memory=instructions)
    assert with_them["budget_tokens"] == as_memory["budget_tokens"]
    assert without["budget_tokens"] is not None and with_them["budget_tokens"] is not None
    # "Answer in French. " is 4 o200k tokens: 50 of them come off the budget.
    assert without["budget_tokens"] - with_them["budget_tokens"] >= 4 * 50


def test_the_options_are_those_of_trim() -> None:
    import inspect

    import ankita

    # The options of ankita.trim but those the adapter decides (it sends AI SDK messages).
    own = {"messages", "format", "system", "cache_breakpoint", "summary"}
    options = set(inspect.signature(ankita.trim).parameters) - own
    for adapter in (trim_messages, trim_messages_with_report, history_processor):
        assert set(inspect.signature(adapter).parameters) - {"messages"} == options, adapter


def test_the_history_processor_keeps_the_prefix_from_call_to_call() -> None:
    """history_processor() carries the cut from call to call (trim_to 0.75): the history sent
    repeats the previous call's as a prefix on nearly every call; trim_to=None opts out."""
    histories: list[list[ModelMessage]] = []
    history: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart("You are a coding agent."), UserPromptPart("Go.")])
    ]
    for k in range(1, 160):
        if k % 8 == 0:
            history.append(ModelResponse(parts=[TextPart(f"Done with {k}.")]))
            history.append(ModelRequest(parts=[UserPromptPart(f"Task {k}: fix the build.")]))
        else:
            history.append(
                ModelResponse(parts=[ToolCallPart("read_file", {"k": k}, tool_call_id=f"c{k}")])
            )
            log = "the build log says the config value is wrong\n" * (40 + k % 7 * 20)
            history.append(
                ModelRequest(parts=[ToolReturnPart("read_file", log, tool_call_id=f"c{k}")])
            )
        histories.append(list(history))

    def share(windows: list[list[ModelMessage]]) -> float:
        repeated = total = 0
        for previous, window in zip(windows, windows[1:]):
            same = 0
            for a, b in zip(previous, window):
                if a != b:
                    break
                same += 1
            repeated += same
            total += len(window)
        return repeated / total

    options: AdapterOptions = {
        "context_tokens": 64_000,
        "max_output_tokens": 4000,
        "model": "gpt-4o",
    }
    process = history_processor(**options)
    windows = [process(h) for h in histories]
    filled = next(k for k, w in enumerate(windows) if len(w) < len(histories[k]))
    assert share(windows[filled:]) >= 0.85
    opted_out: AdapterOptions = {**options, "trim_to": None}
    plain = history_processor(**opted_out)
    stateless = [plain(h) for h in histories]
    for window, h in zip(stateless[::15], histories[::15]):
        assert window == trim_messages(h, **options)
    assert share(stateless[filled:]) < 0.5

"""The framework adapters hand the model a history that starts on the user's turn (Anthropic and
Gemini reject one that starts with the model's), with every kept tool exchange whole: long tool
loops built with the real pydantic-ai and langchain-core classes, trimmed with budgets small
enough that the cut falls after the user's message."""

from __future__ import annotations

import json
from typing import Any

import ankita
import pytest

pytest.importorskip("pydantic_ai")
pytest.importorskip("langchain_core")

from ankita.langchain import to_openai
from ankita.langchain import trim_messages_with_report as langchain_trim
from ankita.pydantic_ai import history_processor
from ankita.pydantic_ai import trim_messages_with_report as pydantic_trim
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
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

TASK = "Find why the build fails: read the logs one by one. " + "Context of the task. " * 400
BUDGETS = [2_000, 3_000, 4_000, 6_000]


def chunk(n: int) -> str:
    return f"log chunk {n}: " + "warning: unused variable\n" * 30


# pydantic-ai


def pydantic_loop(rounds: int, follow_up_at: int | None = None) -> list[ModelMessage]:
    """A run's messages: the task, then `rounds` tool calls each answered in the next request.
    With `follow_up_at`, the request answering that call also holds the user's next prompt (a
    ModelRequest of tool returns and a user prompt, as a run resumed with a new prompt sends)."""
    messages: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart("You are a build assistant."), UserPromptPart(TASK)])
    ]
    for n in range(rounds):
        call = ToolCallPart("read_log", {"chunk": n}, tool_call_id=f"call_{n}")
        messages.append(ModelResponse(parts=[TextPart(f"Reading chunk {n}."), call]))
        parts: list[Any] = [ToolReturnPart("read_log", chunk(n), tool_call_id=f"call_{n}")]
        if n == follow_up_at:
            parts.append(UserPromptPart("Also check the linker flags. " * 20))
        messages.append(ModelRequest(parts=parts))
    return messages


def assert_pydantic_history(kept: list[ModelMessage]) -> None:
    """Starts with a request whose first part after the system prompts is the user's; every
    kept call has its return and every kept return its call."""
    assert kept and isinstance(kept[0], ModelRequest)
    first = next(p for m in kept for p in m.parts if not isinstance(p, SystemPromptPart))
    assert isinstance(first, UserPromptPart), first
    calls = {
        p.tool_call_id
        for m in kept
        if isinstance(m, ModelResponse)
        for p in m.parts
        if isinstance(p, ToolCallPart)
    }
    returns = {
        p.tool_call_id
        for m in kept
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    }
    assert calls == returns


def openai_first_role(values: list[dict[str, Any]], **options: Any) -> str:
    """The first non-system role of a plain OpenAI-format trim: what the cut leaves first."""
    result = ankita.trim(values, **options)
    return str(next(m["role"] for m in result.messages if m["role"] != "system"))


def chat_of(messages: list[ModelMessage]) -> list[dict[str, Any]]:
    from ankita.pydantic_ai import _to_chat

    return [s.value for s in _to_chat(messages)]


@pytest.mark.parametrize("budget", BUDGETS)
def test_pydantic_ai_tool_loop_starts_on_the_users_turn(budget: int) -> None:
    # Chat messages: 0 system, 1 the task (too long to stay as the user's goal), then a call and
    # its return a round; the request answering call 8 also holds the user's follow-up (chat
    # message 19, the current request), followed by three more rounds.
    messages = pydantic_loop(12, follow_up_at=8)
    kept, report = pydantic_trim(messages, max_bytes=budget, overhead_bytes=0)
    assert len(report["dropped_messages"]) > 2
    assert_pydantic_history(kept)
    assert kept[0].parts[0] is messages[0].parts[0]  # the system prompt stays
    assert kept[-1] is messages[-1]


def test_pydantic_ai_brings_back_the_task_that_began_the_turn() -> None:
    messages = pydantic_loop(12, follow_up_at=8)
    # The newest messages that fit start with the model's call: kept as they are, the model
    # would see a history that starts with a ModelResponse.
    assert openai_first_role(chat_of(messages), max_bytes=6_000, overhead_bytes=0) == "assistant"
    kept, report = pydantic_trim(messages, max_bytes=6_000, overhead_bytes=0)
    assert report["turn_start"] is not None
    assert report["turn_start"]["index"] == 1 and report["turn_start"]["kept"] == "shrunk"
    assert_pydantic_history(kept)
    # The first request: the caller's system prompt and the task, shrunk (a new part).
    first = kept[0]
    assert isinstance(first, ModelRequest) and first is not messages[0]
    system, task = first.parts
    assert system is messages[0].parts[0]
    assert isinstance(task, UserPromptPart) and isinstance(task.content, str)
    assert task.content.startswith("Find why the build fails") and len(task.content) < len(TASK)
    assert isinstance(kept[1], ModelResponse)


def test_pydantic_ai_follow_up_inside_a_request_of_tool_returns() -> None:
    messages = pydantic_loop(12, follow_up_at=8)
    # The cut falls between the return of call 8 and the follow-up of the same request: the
    # request comes back with the user prompt only.
    kept, report = pydantic_trim(messages, max_bytes=3_000, overhead_bytes=0)
    assert report["dropped_messages"] == list(range(1, 20))
    assert_pydantic_history(kept)
    assert kept[0].parts == [messages[0].parts[0]]
    start = kept[1]
    assert isinstance(start, ModelRequest) and start is not messages[18]
    assert start.parts == [messages[18].parts[1]] and start.parts[0] is messages[18].parts[1]
    assert all(
        p.tool_call_id != "call_8"
        for m in kept
        for p in m.parts
        if isinstance(p, (ToolCallPart, ToolReturnPart))
    )


def test_pydantic_ai_agent_runs_see_the_users_turn_first() -> None:
    seen: list[list[ModelMessage]] = []

    calls = [0]

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        calls[0] += 1
        if calls[0] == 9:  # each run: eight tool calls, then the answer
            calls[0] = 0
            return ModelResponse(parts=[TextPart("done")])
        n = len(seen)
        return ModelResponse(parts=[ToolCallPart("read_log", {"n": n}, tool_call_id=f"c{n}")])

    agent = Agent(
        FunctionModel(model),
        system_prompt="You are a build assistant.",
        capabilities=[ProcessHistory(history_processor(max_bytes=10_000, overhead_bytes=0))],
    )

    @agent.tool_plain
    def read_log(n: int) -> str:
        return chunk(n)

    first = agent.run_sync(TASK)
    second = agent.run_sync("Also check the linker flags.", message_history=first.all_messages())
    assert first.output == second.output == "done"
    assert len(seen) == 18
    # The second run's requests were trimmed, and each started on the user's turn.
    assert len(seen[-1]) < len(second.all_messages()) - 1
    for messages in seen:
        assert_pydantic_history(messages)


# langchain-core


def langchain_loop(rounds: int, follow_up_at: int) -> list[BaseMessage]:
    """The task, then `rounds` tool calls each answered by a ToolMessage; after the answer to
    call `follow_up_at`, the user's follow-up (the current request)."""
    messages: list[BaseMessage] = [SystemMessage("You are a build assistant."), HumanMessage(TASK)]
    for n in range(rounds):
        call = {"name": "read_log", "args": {"chunk": n}, "id": f"call_{n}"}
        messages.append(AIMessage(f"Reading chunk {n}.", tool_calls=[call]))
        messages.append(ToolMessage(chunk(n), tool_call_id=f"call_{n}"))
        if n == follow_up_at:
            messages.append(HumanMessage("Also check the linker flags. " * 20))
    return messages


def assert_langchain_history(kept: list[BaseMessage]) -> None:
    first = next(m for m in kept if not isinstance(m, SystemMessage))
    assert isinstance(first, HumanMessage), first
    calls = {c["id"] for m in kept if isinstance(m, AIMessage) for c in m.tool_calls}
    replies = {m.tool_call_id for m in kept if isinstance(m, ToolMessage)}
    assert calls == replies


@pytest.mark.parametrize("budget", BUDGETS)
def test_langchain_tool_loop_starts_on_the_users_turn(budget: int) -> None:
    messages = langchain_loop(12, follow_up_at=8)
    kept, report = langchain_trim(messages, max_bytes=budget, overhead_bytes=0)
    assert len(report["dropped_messages"]) > 2
    assert_langchain_history(kept)
    assert kept[0] is messages[0] and kept[-1] is messages[-1]


def test_langchain_brings_back_the_task_that_began_the_turn() -> None:
    messages = langchain_loop(12, follow_up_at=8)
    chat = [to_openai(m) for m in messages]
    assert openai_first_role(chat, max_bytes=6_000, overhead_bytes=0) == "assistant"
    kept, report = langchain_trim(messages, max_bytes=6_000, overhead_bytes=0)
    assert report["turn_start"] is not None
    assert report["turn_start"]["index"] == 1 and report["turn_start"]["kept"] == "shrunk"
    assert_langchain_history(kept)
    task = kept[1]
    assert isinstance(task, HumanMessage) and task is not messages[1]
    assert isinstance(task.content, str) and len(task.content) < len(TASK)
    assert task.content.startswith("Find why the build fails")
    assert isinstance(kept[2], AIMessage)


def test_langchain_answer_before_a_user_message_is_not_first() -> None:
    # Keeping the newest messages would start with the model's answer to the log:
    # [SystemMessage, AIMessage, HumanMessage, ...].
    messages: list[BaseMessage] = [
        SystemMessage("You are a desktop companion."),
        HumanMessage("Here is my build log: " + "error: cannot find crate\n" * 200),
        AIMessage("That log says a crate is missing. Which command did you run?"),
        HumanMessage("cargo build --release"),
        AIMessage("Run it with --verbose and paste the first error."),
        HumanMessage("error[E0463]: can't find crate for `core`"),
    ]
    # The count limit (40 by default) keeps the newest messages: with 5, the AIMessage answering
    # the log would come first.
    chat = [to_openai(m) for m in messages]
    assert openai_first_role(chat, max_messages=5) == "assistant"
    kept, report = langchain_trim(messages, max_messages=5)
    assert_langchain_history(kept)
    assert kept == [messages[0], *messages[3:]]
    assert all(k is m for k, m in zip(kept, [messages[0], *messages[3:]]))
    assert report["dropped_messages"] == [1, 2]


def test_the_report_is_the_ai_sdk_trims() -> None:
    messages = langchain_loop(3, follow_up_at=1)
    _, report = langchain_trim(messages, max_bytes=100_000)
    assert report["format"] == "ai-sdk" and report["dropped_messages"] == []
    assert json.loads(json.dumps(report))["input_messages"] == len(messages)

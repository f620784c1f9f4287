"""Stateless ``trim`` of long histories read from their newest messages: on long generated
histories in every format, repairs and odd messages among the older ones, long tool loops at
the end, with and without budgets and models, ``trim`` answers what the C ABI's contract
(``trim_json``) answers for the whole history; unchanged messages are the caller's own."""

from __future__ import annotations

import json
import random
from typing import Any, Callable

import ankita
import pytest

Msgs = list[dict[str, Any]]
WORDS = ["alpha", "beta", "gamma", "tool", "file", "näive", "日本", "🙂", '"q"', "line\n"]


def text(r: random.Random, most: int = 300) -> str:
    n = 1 + r.randrange(most)
    out = ""
    while len(out) < n:
        out += r.choice(WORDS) + " "
    return out


def openai_events() -> dict[str, Callable[[random.Random, str], Msgs]]:
    def call(i: str) -> dict[str, Any]:
        return {"id": i, "type": "function", "function": {"name": "read", "arguments": "{}"}}

    return {
        "user": lambda r, i: [{"role": "user", "content": text(r)}],
        "assistant": lambda r, i: [{"role": "assistant", "content": text(r)}],
        "assistants": lambda r, i: [{"role": "assistant", "content": text(r)} for _ in range(4)],
        "system": lambda r, i: [{"role": "system", "content": text(r, 40)}],
        "named": lambda r, i: [{"role": "user", "name": "ann", "content": text(r)}],
        "parts": lambda r, i: [{"role": "user", "content": [{"type": "text", "text": text(r)}]}],
        "exchange": lambda r, i: [
            {"role": "assistant", "content": None, "tool_calls": [call(i)]},
            {"role": "tool", "tool_call_id": i, "content": text(r, 800)},
        ],
        "orphan": lambda r, i: [{"role": "tool", "tool_call_id": f"gone-{i}", "content": text(r)}],
        "unanswered": lambda r, i: [
            {"role": "assistant", "content": text(r, 50), "tool_calls": [call(i)]}
        ],
        "malformed": lambda r, i: [
            {"role": "assistant", "content": "calling", "tool_calls": [call("")]}
        ],
        "empty": lambda r, i: [{"role": "user", "content": ""}],
        "unknown": lambda r, i: [{"role": "narrator", "content": text(r, 40)}],
        "extra": lambda r, i: [{"role": "assistant", "content": text(r), "refusal": None}],
    }


def anthropic_events() -> dict[str, Callable[[random.Random, str], Msgs]]:
    return {
        "user": lambda r, i: [{"role": "user", "content": text(r)}],
        "assistant": lambda r, i: [{"role": "assistant", "content": text(r)}],
        "assistants": lambda r, i: [{"role": "assistant", "content": text(r)} for _ in range(3)],
        "parts": lambda r, i: [{"role": "user", "content": [{"type": "text", "text": text(r)}]}],
        "exchange": lambda r, i: [
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": text(r, 40)},
                    {"type": "tool_use", "id": i, "name": "read", "input": {"path": "a"}},
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": i, "content": text(r, 800)}],
            },
        ],
        "orphan": lambda r, i: [
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"gone-{i}", "content": "x"}],
            }
        ],
        "unanswered": lambda r, i: [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": i, "name": "r", "input": {}}],
            }
        ],
        "empty": lambda r, i: [{"role": "user", "content": ""}],
    }


def responses_events() -> dict[str, Callable[[random.Random, str], Msgs]]:
    return {
        "user": lambda r, i: [{"role": "user", "content": text(r)}],
        "assistant": lambda r, i: [{"role": "assistant", "content": text(r)}],
        "assistants": lambda r, i: [
            {"role": "assistant", "content": text(r)},
            {"type": "message", "role": "assistant", "content": text(r)},
            {"role": "assistant", "content": text(r)},
        ],
        "system": lambda r, i: [{"role": "developer", "content": text(r, 40)}],
        "parts": lambda r, i: [
            {"role": "user", "content": [{"type": "input_text", "text": text(r)}]}
        ],
        "exchange": lambda r, i: [
            {"type": "reasoning", "id": f"rs_{i}", "summary": []},
            {"type": "function_call", "call_id": i, "name": "read", "arguments": "{}"},
            {"type": "function_call_output", "call_id": i, "output": text(r, 800)},
        ],
        "orphan": lambda r, i: [
            {"type": "function_call_output", "call_id": f"gone-{i}", "output": "x"}
        ],
        "unanswered": lambda r, i: [
            {"type": "function_call", "call_id": i, "name": "read", "arguments": "{}"}
        ],
        "reasoning": lambda r, i: [{"type": "reasoning", "id": f"rs_{i}", "summary": []}],
        "empty": lambda r, i: [{"role": "user", "content": ""}],
    }


def gemini_events() -> dict[str, Callable[[random.Random, str], Msgs]]:
    return {
        "user": lambda r, i: [{"role": "user", "parts": [{"text": text(r)}]}],
        "assistant": lambda r, i: [{"role": "model", "parts": [{"text": text(r)}]}],
        "assistants": lambda r, i: [
            {"role": "model", "parts": [{"text": text(r)}]},
            {"role": "model", "parts": [{"text": text(r)}, {"text": text(r)}]},
            {"role": "model", "parts": [{"text": text(r)}]},
        ],
        "parts": lambda r, i: [{"role": "user", "parts": [{"text": text(r)}, {"text": ""}]}],
        "exchange": lambda r, i: [
            {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {}, "id": i}}]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "read", "id": i, "response": {"o": text(r, 800)}}}
                ],
            },
        ],
        "noid": lambda r, i: [
            {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {}}}]},
        ],
        "orphan": lambda r, i: [
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "r", "id": f"gone-{i}", "response": {}}}],
            }
        ],
        "unanswered": lambda r, i: [
            {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {}, "id": i}}]}
        ],
        "empty": lambda r, i: [{"role": "user", "parts": []}],
    }


def ai_sdk_events() -> dict[str, Callable[[random.Random, str], Msgs]]:
    def result(i: str, value: str) -> dict[str, Any]:
        out = {"type": "text", "value": value}
        return {"type": "tool-result", "toolCallId": i, "toolName": "read", "output": out}

    return {
        "user": lambda r, i: [{"role": "user", "content": text(r)}],
        "assistant": lambda r, i: [{"role": "assistant", "content": text(r)}],
        "assistants": lambda r, i: [{"role": "assistant", "content": text(r)} for _ in range(3)],
        "system": lambda r, i: [{"role": "system", "content": text(r, 40)}],
        "exchange": lambda r, i: [
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": text(r, 40)},
                    {"type": "tool-call", "toolCallId": i, "toolName": "read", "input": {}},
                ],
            },
            {"role": "tool", "content": [result(i, text(r, 800))]},
        ],
        "orphan": lambda r, i: [{"role": "tool", "content": [result(f"gone-{i}", "x")]}],
        "unanswered": lambda r, i: [
            {
                "role": "assistant",
                "content": [{"type": "tool-call", "toolCallId": i, "toolName": "r", "input": {}}],
            }
        ],
        "empty": lambda r, i: [{"role": "user", "content": ""}],
        "extra": lambda r, i: [{"role": "user", "content": text(r), "providerOptions": {}}],
    }


EVENTS = {
    "openai": openai_events(),
    "anthropic": anthropic_events(),
    "responses": responses_events(),
    "gemini": gemini_events(),
    "ai-sdk": ai_sdk_events(),
}

OPTIONS: list[dict[str, Any]] = [
    {},
    {"max_messages": 12},
    {"max_bytes": 6000},
    {"max_bytes": 20_000, "max_messages": None},
    {"max_bytes": 150_000, "max_messages": None},
    {"max_messages": 300},
    {"max_bytes": 5000, "fill": False},
    {"context_tokens": 3000},
    {"context_tokens": 6000, "tokenizer": "bytes"},
    {"max_messages": None},
    {"max_messages": None, "bytes_per_token": 3},
]

MODELS = {
    "openai": "gpt-4o",
    "anthropic": "claude-sonnet-4-5",
    "responses": "gpt-4.1",
    "gemini": "gemini-2.5-flash",
    "ai-sdk": "gpt-4o",
}


def history(fmt: str, length: int, seed: int) -> Msgs:
    r = random.Random(seed)
    events = EVENTS[fmt]
    odd = [k for k in events if k not in ("user", "assistant")]
    out: Msgs = []
    if fmt in ("openai", "responses", "ai-sdk"):
        out.append({"role": "system", "content": "Be brief."})
    k = 0
    while len(out) < length:
        late = len(out) > length * 0.8
        if r.random() < (0.03 if late else 0.25):
            out += events[r.choice(odd)](r, f"c{k}")
            k += 1
        else:
            out += events["user"](r, "") + events["assistant"](r, "")
    out += events["user"](r, "")
    for i in range(40 + (seed % 5) * 20 if seed % 3 == 0 else 0):
        out += events["exchange"](r, f"loop{i}")
    return out


def whole(messages: Msgs, options: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(
        ankita.trim_json(json.dumps({**options, "messages": messages}))
    )
    answer.pop("ok")
    return answer


@pytest.mark.parametrize("fmt", list(EVENTS))
def test_trim_from_the_tail_answers_the_whole_historys_trim(fmt: str) -> None:
    for seed in range(1, 5):
        messages = history(fmt, 300 + seed * 200, seed * 7919 + len(fmt))
        for base in OPTIONS:
            for model in (None, MODELS[fmt]):
                options: dict[str, Any] = {**base, "format": fmt}
                if model is not None:
                    options["model"] = model
                if fmt not in ("openai", "ai-sdk") and seed % 2 == 0:
                    options["system"] = "You are terse."
                expected = whole(messages, options)
                if "error" in expected:
                    with pytest.raises(ankita.AnkitaError) as raised:
                        ankita.trim(messages, **options)
                    assert raised.value.code == expected["error"]["code"]
                    continue
                result = ankita.trim(messages, **options)
                actual: dict[str, Any] = {}
                if "system" in expected:
                    actual["system"] = result.system
                actual["messages"] = json.loads(json.dumps(result.messages))
                actual["report"] = json.loads(json.dumps(result.report))
                assert actual == expected, (seed, options)
                # Messages returned unchanged are the caller's own objects (a changed one is
                # a copy: repair and shedding change a few).
                given = {id(m) for m in messages}
                same = [m for m in result.messages if id(m) in given]
                assert len(same) * 2 >= len(result.messages), (seed, options)


def test_keeping_everything_prices_old_plain_messages_as_the_whole_history() -> None:
    # Non-ASCII text among the older plain messages (their UTF-8 length is what is sent),
    # system and developer messages, a name.
    for fmt in ("openai", "responses"):
        messages = history(fmt, 1200, 9)
        messages[7] = {"role": "user", "content": 'déjà vu 😀 "quoted"\n'}
        messages[9] = {"role": "system", "content": "mid-history system"}
        messages[11] = {"role": "developer", "content": "ünïcödé developer"}
        if fmt == "openai":
            messages[13] = {"role": "user", "name": "bob", "content": "named"}
        for options in ({"max_messages": None}, {"max_messages": None, "model": "gpt-4o"}):
            expected = whole(messages, {**options, "format": fmt})
            result = ankita.trim(messages, format=fmt, **options)
            assert json.loads(json.dumps(result.messages)) == expected["messages"]
            assert json.loads(json.dumps(result.report)) == expected["report"]
            assert all(a is b for a, b in zip(result.messages, messages) if a == b)


def test_a_window_keyword_is_an_unknown_request_key_as_in_the_whole_history() -> None:
    messages = history("openai", 1000, 5)
    for limit in (40, None):
        # Not a keyword of trim's: given as the extra keywords it passes on.
        options: dict[str, Any] = {"max_messages": limit, "window": {"from": 990}}
        with pytest.raises(ankita.AnkitaError) as raised:
            ankita.trim(messages, **options)
        assert raised.value.code == "invalid_request"
        assert "window" in str(raised.value)


def test_a_lone_surrogate_in_an_old_plain_message_is_named_as_in_the_whole_history() -> None:
    messages = history("openai", 1000, 5)
    messages[10] = {"role": "user", "content": "bad \ud800"}
    with pytest.raises(ankita.AnkitaError) as raised:
        ankita.trim(messages, max_messages=40)
    assert raised.value.path is not None and "messages[10]" in raised.value.path


class Text(str):
    """A str subclass: read as any str, never taken for a plain message's text."""

    def isascii(self) -> bool:
        raise AssertionError("a str subclass's methods are not called")


def test_subclasses_of_dict_and_str_among_the_older_messages_answer_as_the_whole() -> None:
    from collections import OrderedDict

    messages = history("openai", 1000, 7)
    messages[20] = OrderedDict(role="user", content="ordered")
    messages[21] = {"role": "assistant", "content": Text("a subclass")}
    messages[22] = {"role": Text("user"), "content": "role subclass"}
    expected = whole(messages, {"max_messages": 40})
    result = ankita.trim(messages, max_messages=40)
    assert json.loads(json.dumps(result.messages)) == expected["messages"]
    assert json.loads(json.dumps(result.report)) == expected["report"]

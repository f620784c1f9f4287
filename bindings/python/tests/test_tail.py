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


# Agent-shaped histories: nearly every older message holds a call, a result or a part list, so
# the older messages go to the core as stand-ins (their long free text replaced, as each
# format's facts allow); the answers must be the whole history's all the same.


def long_text(r: random.Random) -> str:
    return text(r, 600) + "x" * 70


def agent_step(fmt: str, r: random.Random, ids: list[str]) -> Msgs:
    """The model's call of `ids` (with a line of thought or text where the format has one),
    and their results, of long text."""
    inputs = [{"path": long_text(r), "lines": [1, 2.5, None, True], "deep": {"q": [long_text(r)]}}]
    args = [json.dumps(inputs[0]) for _ in ids]
    outputs = [long_text(r) for _ in ids]
    if fmt == "openai":
        calls = [
            {"id": i, "type": "function", "function": {"name": "read", "arguments": a}}
            for i, a in zip(ids, args)
        ]
        content = long_text(r) if r.random() < 0.3 else None
        return [
            {"role": "assistant", "content": content, "tool_calls": calls},
            *({"role": "tool", "tool_call_id": i, "content": o} for i, o in zip(ids, outputs)),
        ]
    if fmt == "anthropic":
        blocks: list[dict[str, Any]] = [
            {"type": "thinking", "thinking": long_text(r), "signature": "sig"}
        ]
        blocks += [{"type": "tool_use", "id": i, "name": "read", "input": inputs[0]} for i in ids]
        results = [
            {"type": "tool_result", "tool_use_id": i, "content": [{"type": "text", "text": o}]}
            if k % 2
            else {"type": "tool_result", "tool_use_id": i, "content": o}
            for k, (i, o) in enumerate(zip(ids, outputs))
        ]
        return [{"role": "assistant", "content": blocks}, {"role": "user", "content": results}]
    if fmt == "responses":
        summary = [{"type": "summary_text", "text": long_text(r)}]
        return [
            {"type": "reasoning", "id": f"rs_{ids[0]}", "summary": summary},
            *(
                {"type": "function_call", "call_id": i, "name": "read", "arguments": a}
                for i, a in zip(ids, args)
            ),
            *(
                {"type": "function_call_output", "call_id": i, "output": o}
                for i, o in zip(ids, outputs)
            ),
        ]
    if fmt == "gemini":
        return [
            {
                "role": "model",
                "parts": [{"text": long_text(r)}]
                + [{"functionCall": {"id": i, "name": "read", "args": inputs[0]}} for i in ids],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": i, "name": "read", "response": {"out": [o]}}}
                    for i, o in zip(ids, outputs)
                ],
            },
        ]
    result = [
        {
            "type": "tool-result",
            "toolCallId": i,
            "toolName": "read",
            "output": {"type": "text", "value": o},
        }
        for i, o in zip(ids, outputs)
    ]
    calls = [
        {"type": "tool-call", "toolCallId": i, "toolName": "read", "input": inputs[0]} for i in ids
    ]
    return [
        {"role": "assistant", "content": [{"type": "text", "text": long_text(r)}, *calls]},
        {"role": "tool", "content": result},
    ]


def agent_history(fmt: str, length: int, seed: int) -> Msgs:
    """Turns of a user message (a part list in some), tool loops of long text with parallel
    calls, the model's answer; odd messages among them (orphan results, unanswered calls,
    empty messages), as the text histories' events make them."""
    r = random.Random(seed)
    events = EVENTS[fmt]
    odd = [k for k in ("orphan", "unanswered", "empty") if k in events]
    out: Msgs = []
    if fmt in ("openai", "responses", "ai-sdk"):
        out.append({"role": "system", "content": long_text(r)})
    k = 0
    while len(out) < length:
        k += 1
        if r.random() < 0.4:
            texts = [long_text(r), text(r, 40)]
            if fmt == "gemini":
                out.append({"role": "user", "parts": [{"text": t} for t in texts]})
            else:
                kind = "input_text" if fmt == "responses" else "text"
                out.append({"role": "user", "content": [{"type": kind, "text": t} for t in texts]})
        else:
            out += events["user"](r, "")
        for s in range(r.choice([0, 1, 1, 2, 3])):
            out += agent_step(fmt, r, [f"c{k}_{s}_{c}" for c in range(r.choice([1, 2]))])
        if r.random() < 0.05:
            out += events[r.choice(odd)](r, f"odd{k}")
        out += events["assistant"](r, "")
    return out


AGENT_OPTIONS: list[dict[str, Any]] = [
    {"max_messages": 40},
    {"max_messages": None},
    {},
    {"max_messages": 12},
    {"max_bytes": 30_000},
    {"max_bytes": 30_000, "max_messages": None},
    {"context_tokens": 8000},
    {"max_messages": 300},
]


def answers(messages: Msgs, options: dict[str, Any]) -> dict[str, Any]:
    result = ankita.trim(messages, **options)
    actual: dict[str, Any] = {}
    if "system" in options:
        actual["system"] = result.system
    actual["messages"] = json.loads(json.dumps(result.messages))
    actual["report"] = json.loads(json.dumps(result.report))
    return actual


@pytest.mark.parametrize("fmt", list(EVENTS))
def test_agent_histories_from_the_tail_answer_the_whole_historys_trim(fmt: str) -> None:
    for seed in range(1, 4):
        messages = agent_history(fmt, 500 + seed * 300, seed * 104_729 + len(fmt))
        for base in AGENT_OPTIONS:
            for model in (None, MODELS[fmt]):
                options: dict[str, Any] = {**base, "format": fmt}
                if model is not None:
                    options["model"] = model
                if fmt in ("anthropic", "gemini") and seed % 2 == 0:
                    options["system"] = "You are terse."
                expected = whole(messages, options)
                if "error" in expected:
                    with pytest.raises(ankita.AnkitaError) as raised:
                        ankita.trim(messages, **options)
                    assert raised.value.code == expected["error"]["code"]
                    continue
                assert answers(messages, options) == expected, (seed, options)


@pytest.mark.parametrize("fmt", list(EVENTS))
def test_odd_values_in_older_agent_messages_answer_as_the_whole_history(fmt: str) -> None:
    # A str subclass, a tuple, an int beyond 64 bits, a float, non-ASCII text, a long text
    # with every character JSON escapes: written whole or stood in, the answer is the whole
    # history's.
    messages = agent_history(fmt, 900, 11)
    step = agent_step(fmt, random.Random(3), ["odd_a", "odd_b"])
    at = 1 if fmt == "responses" else 0
    call, result = step[at], step[-1]
    if fmt == "responses":
        call = {**call, "arguments": Text(call["arguments"])}
        result = {**result, "output": "ünïcödé 😀 " * 20}
    elif fmt == "gemini":
        call = {**call, "parts": tuple(call["parts"])}
        result = {**result, "extra": [2**70, 1.5, -0.0, '\u0000\x1f"\\']}
    else:
        call = {**call, "content": Text("a str subclass, " * 8)} if fmt == "openai" else call
        result = {**result, "note": [2**70, 1.5, '\u0000\x1f"\\' * 30, "ünï" * 40]}
    step[at], step[-1] = call, result
    messages[300:300] = step
    # The caller's own text equal to the stand-in, short and long, where one may be.
    replacement = ankita._ankita.formats()["formats"][0]["stand_in"]["replacement"]
    messages[310:310] = agent_step(fmt, random.Random(5), ["same_a"])
    for message in messages[310:312]:
        for key in ("content", "output", "text"):
            if isinstance(message.get(key), str):
                message[key] = replacement
    limits: list[dict[str, Any]] = [
        {"max_messages": 40},
        {"max_bytes": 20_000},
        {"max_messages": None},
    ]
    for limit in limits:
        options = {**limit, "format": fmt}
        assert answers(messages, options) == whole(messages, options), options


@pytest.mark.parametrize("fmt", list(EVENTS))
def test_a_lone_surrogate_in_long_older_text_is_named_as_in_the_whole_history(fmt: str) -> None:
    # Text that is not Unicode is never stood in: the whole history's error, with its path.
    messages = agent_history(fmt, 900, 13)
    bad = "x" * 100 + "\ud800"
    messages[200] = (
        {"role": "user", "parts": [{"text": bad}]}
        if fmt == "gemini"
        else {"role": "user", "content": [{"type": "text", "text": bad}]}
    )
    options: dict[str, Any] = {"max_messages": 40, "format": fmt}
    with pytest.raises(ankita.AnkitaError) as raised:
        ankita.trim(messages, **options)
    assert raised.value.code == "invalid_request"
    assert raised.value.path is not None and "messages[200]" in raised.value.path
    assert "lone surrogate" in str(raised.value)


class Turns:
    """One format's messages of the turns the core's `turns` facts describe, and of others."""

    def __init__(self, fmt: str, r: random.Random) -> None:
        self.fmt, self.r = fmt, r
        self.model = "model" if fmt == "gemini" else "assistant"

    def plain(self, role: str, t: str) -> dict[str, Any]:
        if self.fmt == "gemini":
            return {"role": self.model if role == "assistant" else role, "parts": [{"text": t}]}
        return {"role": role, "content": t}

    def user_parts(self, texts: list[str], image: bool) -> dict[str, Any]:
        url = "https://example.com/screen.png"
        if self.fmt == "gemini":
            parts: list[dict[str, Any]] = [{"text": t} for t in texts]
            if image:
                parts.append({"fileData": {"mimeType": "image/png", "fileUri": url}})
            return {"role": "user", "parts": parts}
        kind = "input_text" if self.fmt == "responses" else "text"
        parts = [{"type": kind, "text": t} for t in texts]
        if image:
            images: dict[str, dict[str, Any]] = {
                "openai": {"type": "image_url", "image_url": {"url": url}},
                "anthropic": {"type": "image", "source": {"type": "url", "url": url}},
                "responses": {"type": "input_image", "image_url": url},
                "ai-sdk": {"type": "image", "image": url},
            }
            parts.append(images[self.fmt])
        return {"role": "user", "content": parts}

    def calls(self, said: str | None, ids: list[str]) -> Msgs:
        fmt, r = self.fmt, self.r
        inputs = [{"path": f"src/{r.randrange(40)}.rs", "lines": [1, 400]} for _ in ids]
        if fmt == "openai":
            tool_calls = [
                {
                    "id": i,
                    "type": "function",
                    "function": {"name": "read", "arguments": json.dumps(a)},
                }
                for i, a in zip(ids, inputs)
            ]
            return [{"role": "assistant", "content": said, "tool_calls": tool_calls}]
        if fmt == "responses":
            out: Msgs = [] if said is None else [self.plain("assistant", said)]
            return out + [
                {"type": "function_call", "call_id": i, "name": "read", "arguments": json.dumps(a)}
                for i, a in zip(ids, inputs)
            ]
        if fmt == "gemini":
            parts: list[dict[str, Any]] = [] if said is None else [{"text": said}]
            parts += [
                {"functionCall": {"id": i, "name": "read", "args": a}} for i, a in zip(ids, inputs)
            ]
            return [{"role": self.model, "parts": parts}]
        blocks: list[dict[str, Any]] = [] if said is None else [{"type": "text", "text": said}]
        for i, a in zip(ids, inputs):
            if fmt == "anthropic":
                blocks.append({"type": "tool_use", "id": i, "name": "read", "input": a})
            else:
                blocks.append(
                    {"type": "tool-call", "toolCallId": i, "toolName": "read", "input": a}
                )
        return [{"role": "assistant", "content": blocks}]

    def results(self, done: list[tuple[str, str]]) -> Msgs:
        fmt = self.fmt
        if fmt == "anthropic":
            content = [{"type": "tool_result", "tool_use_id": i, "content": o} for i, o in done]
            return [{"role": "user", "content": content}]
        if fmt == "gemini":
            parts = [
                {"functionResponse": {"id": i, "name": "read", "response": {"output": o}}}
                for i, o in done
            ]
            return [{"role": "user", "parts": parts}]
        if fmt == "openai":
            return [{"role": "tool", "tool_call_id": i, "content": o} for i, o in done]
        if fmt == "responses":
            return [{"type": "function_call_output", "call_id": i, "output": o} for i, o in done]
        return [
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": i,
                        "toolName": "read",
                        "output": {"type": "text", "value": o},
                    }
                ],
            }
            for i, o in done
        ]


def turns_history(fmt: str, length: int, seed: int) -> Msgs:
    """Turns the core's `turns` facts let the tail leave out (plain chat, user messages of
    text parts, whole exchanges of one to three parallel calls), among turns they do not:
    user parts with an image, and in the older three quarters calls left unanswered, results
    left orphans, empty results and results out of order."""
    r = random.Random(seed)
    w = Turns(fmt, r)
    out: Msgs = []
    if fmt in ("openai", "responses", "ai-sdk"):
        out.append({"role": "system", "content": "You are a coding agent."})
    t = 0
    while len(out) < length:
        t += 1
        old = len(out) < length * 3 // 4
        if r.random() < 0.35:
            out.append(w.user_parts([f"Turn {t}: {text(r, 200)}", text(r, 60)], r.random() < 0.2))
        else:
            out.append(w.plain("user", f"Turn {t}: {text(r, 200)}"))
        for s in range(r.choice([0, 1, 1, 2, 3])):
            if r.random() < 0.35:
                out.append(w.plain("assistant", text(r, 100)))
            ids = [f"call_{t}_{s}_{c}" for c in range(r.choice([1, 1, 2, 3]))]
            done = [(i, long_text(r)) for i in ids]
            said = text(r, 40) if r.random() < 0.3 else None
            lose = r.randrange(24) if old else 99
            if lose == 0:
                done.pop()  # a call left unanswered
            elif lose == 1:
                out += w.results(done)  # results left orphans
                continue
            elif lose == 2:
                done[0] = (done[0][0], "")  # an empty result
            elif lose == 3:
                done.reverse()  # results out of order
            out += w.calls(said, ids)
            if done:
                out += w.results(done)
        out.append(w.plain("assistant", text(r, 300)))
    out.append(w.plain("user", "And now?"))
    return out


@pytest.mark.parametrize("fmt", list(EVENTS))
def test_runs_of_whole_turns_left_out_answer_the_whole_historys_trim(fmt: str) -> None:
    # The tail of a trim with a limit leaves out runs of whole turns (the core's `turns`
    # facts): the answer, repairs of the older messages among them, is the whole history's.
    for seed in range(1, 5):
        messages = turns_history(fmt, 400 + seed * 250, seed * 7_919 + len(fmt))
        for base in ({"max_messages": 40}, {"max_messages": 12}, {"max_bytes": 30_000}, {}):
            options: dict[str, Any] = {**base, "format": fmt}
            if fmt in ("anthropic", "gemini") and seed % 2 == 0:
                options["system"] = "You are terse."
            expected = whole(messages, options)
            assert "error" not in expected, expected
            assert expected["report"]["repaired"], (seed, options)
            assert answers(messages, options) == expected, (seed, options)


@pytest.mark.parametrize("fmt", list(EVENTS))
def test_values_a_run_of_whole_turns_may_not_hide_answer_as_the_whole_history(fmt: str) -> None:
    # A whole turn put among the older ones, its call holding a lone surrogate, a float that
    # is no JSON number, a tuple, a str subclass or an int beyond 64 bits: the whole
    # history's error (with its path) or answer.
    base = turns_history(fmt, 900, 5)
    at = next(k for k in range(200, 600) if base[k].get("role") == "user")
    w = Turns(fmt, random.Random(1))
    turn = [w.plain("user", "Read it."), *w.calls(None, ["odd_a", "odd_b"])]
    k = at + len(turn) - 1
    turn += w.results([("odd_a", "it says a"), ("odd_b", "it says b")])
    for value in ("lone \ud800", float("nan"), (1, 2), Text("a str subclass"), 2**70):
        messages = [*base[:at], *[dict(m) for m in turn], *base[at:]]
        call = json.loads(json.dumps(messages[k]))
        if "tool_calls" in call:
            call["content"] = value
        elif call.get("type") == "function_call":
            call["arguments"] = value
        else:
            for part in call.get("content", call.get("parts")):
                target = part.get("functionCall", part)
                if "input" in target or "args" in target:
                    target["input" if "input" in target else "args"]["odd"] = value
        messages[k] = call
        options: dict[str, Any] = {"max_messages": 40, "format": fmt}
        if isinstance(value, float) or value == "lone \ud800":
            # The conversion of the whole history refuses it (json.dumps would write it).
            with pytest.raises(ankita.AnkitaError) as raised:
                ankita.trim(messages, **options)
            assert raised.value.path is not None and f"messages[{k}]" in raised.value.path
            continue
        expected = whole(messages, options)
        if "error" in expected:
            with pytest.raises(ankita.AnkitaError) as raised:
                ankita.trim(messages, **options)
            assert raised.value.code == expected["error"]["code"], value
            assert raised.value.path is not None and f"messages[{k}]" in raised.value.path
        else:
            assert answers(messages, options) == expected, value


def sanitized_whole(messages: Msgs, fmt: str) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(
        ankita.sanitize_json(json.dumps({"messages": messages, "format": fmt}))
    )
    answer.pop("ok")
    return answer


@pytest.mark.parametrize("fmt", list(EVENTS))
def test_sanitize_from_the_tail_answers_the_whole_historys_sanitize(fmt: str) -> None:
    # A long history is sent as its last message and the older ones repair may depend on (in
    # the formats that merge no turns; the others go whole): every message comes back, the
    # plain ones left out as the caller's own, repairs as the whole history's.
    histories = [history(fmt, 300 + seed * 200, seed * 31 + len(fmt)) for seed in range(1, 4)]
    histories.append(turns_history(fmt, 700, 17))
    options: dict[str, Any] = {"format": fmt}
    for messages in histories:
        expected = sanitized_whole(messages, fmt)
        if "error" in expected:
            with pytest.raises(ankita.AnkitaError) as raised:
                ankita.sanitize(messages, **options)
            assert raised.value.code == expected["error"]["code"]
            continue
        got, report = ankita.sanitize_with_report(messages, **options)
        assert json.loads(json.dumps(got)) == expected["messages"]
        assert json.loads(json.dumps(report)) == expected["report"]
        assert ankita.sanitize(messages, **options) == got
        # Unchanged messages are the caller's own objects, in place.
        unchanged = [m for m in got if any(m is o for o in messages[-3:])]
        assert unchanged, fmt
        plain_old = [i for i in range(1, 50) if set(messages[i]) == {"role", "content"}]
        if expected["report"]["repaired"] == [] and plain_old:
            assert got[plain_old[0]] is messages[plain_old[0]]


def test_sanitize_of_a_long_history_names_what_is_wrong_as_the_whole_history() -> None:
    # A lone surrogate in an old plain message, a bad shape in an old message: the whole
    # history's error, with its path.
    messages = history("openai", 600, 3)
    bad = [dict(m) for m in messages]
    bad[100] = {"role": "user", "content": "x" * 70 + "\ud800"}
    with pytest.raises(ankita.AnkitaError) as raised:
        ankita.sanitize(bad)
    assert raised.value.path is not None and "messages[100]" in raised.value.path
    bad = [dict(m) for m in messages]
    bad[120] = {"role": "assistant", "content": "x", "tool_calls": "none"}
    expected = sanitized_whole(bad, "openai")
    if "error" in expected:
        with pytest.raises(ankita.AnkitaError) as raised:
            ankita.sanitize(bad)
        assert raised.value.path == expected["error"].get("path")
    else:
        got, report = ankita.sanitize_with_report(bad)
        assert json.loads(json.dumps(report)) == expected["report"]

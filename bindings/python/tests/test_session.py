"""Incremental sessions: over random append / truncate / trim sequences, ``Session.trim()``
answers what the stateless ``trim`` answers for the same history and options, in every format
and unit; unchanged messages are the caller's own objects. A session is cache-stable by default
(``trim_to=0.75``, the cut carried); ``trim_to=None`` opts out and restores the stateless
answers."""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import random
import re
import subprocess
import sys
import threading
import warnings
from collections.abc import Awaitable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import ankita
import pytest
from helpers import SCREENSHOT, image_part, tool_call

# Sessions opted out of cache-stable trimming (trim_to=None; `trim` reads None as not given).
OPTIONS: list[dict[str, Any]] = [
    {"max_bytes": 6000, "trim_to": None},
    {"max_bytes": 20000, "max_messages": 12, "trim_to": None},
    {
        "context_tokens": 3000,
        "max_output_tokens": 200,
        "model": "gpt-4o",
        "overhead_bytes": 0,
        "trim_to": None,
    },
    {"context_tokens": 5000, "tokenizer": "cl100k_base", "max_messages": 1000, "trim_to": None},
    # None as `trim` reads it: not given (the default), but no count limit for max_messages.
    {
        "max_bytes": 200_000,
        "max_messages": None,
        "tokenizer": None,
        "system": None,
        "trim_to": None,
    },
]


def text(r: random.Random, n: int) -> str:
    words = ["build", "failed", "é世", "line\n", '"quoted"', "config", "value"]
    out = ""
    while len(out) < n:
        out += r.choice(words) + " "
    return out


def step(fmt: str, r: random.Random, k: int) -> list[dict[str, Any]]:
    t = text(r, r.randrange(1200))
    cid = f"call_{k}"
    kind = r.randrange(7)
    steps: list[list[dict[str, Any]]]
    if fmt == "openai":
        steps = [
            [{"role": "user", "content": t}],
            [{"role": "user", "content": [{"type": "text", "text": t}, image_part(SCREENSHOT)]}],
            [{"role": "assistant", "content": t}],
            [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [tool_call(cid, "read", "{}")],
                },
                {"role": "tool", "tool_call_id": cid, "content": t},
            ],
            [{"role": "tool", "tool_call_id": "orphan", "content": t}],
            [{"role": "user", "content": [{"type": "text", "text": f"Attached file: a.txt\n{t}"}]}],
            [{"role": "bogus", "content": t}],
        ]
        return steps[kind]
    if fmt == "anthropic":
        steps = [
            [{"role": "user", "content": t}],
            [{"role": "assistant", "content": t}],
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": cid, "name": "read", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": cid, "content": t}],
                },
            ],
            [
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "orphan", "content": t}],
                }
            ],
            [{"role": "user", "content": [{"type": "text", "text": t}]}],
            [{"role": "assistant", "content": [{"type": "text", "text": t}]}],
            [{"role": "user", "content": t}],
        ]
        return steps[kind]
    steps = [
        [{"role": "user", "content": t}],
        [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": t}]}],
        [
            {"type": "function_call", "call_id": cid, "name": "read", "arguments": "{}"},
            {"type": "function_call_output", "call_id": cid, "output": t},
        ],
        [{"type": "function_call_output", "call_id": "orphan", "output": t}],
        [{"type": "function_call", "call_id": cid, "name": "read", "arguments": "{}"}],
        [{"role": "user", "content": [{"type": "input_text", "text": t}]}],
        [{"role": "user", "content": t}],
    ]
    return steps[kind]


def outcome(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        result = call(*args, **kwargs)
    except ankita.AnkitaError as error:
        return {"error": type(error).__name__, "message": str(error)}
    return {"messages": result.messages, "report": result.report, "system": result.system}


@pytest.mark.parametrize("options", OPTIONS)
def test_a_long_session_answers_as_the_stateless_trim(options: dict[str, Any]) -> None:
    # Long enough that the session trims from its newest messages (the core checks that it
    # does); the report, dropped messages included, is the stateless trim's, in its order.
    r = random.Random(4242)
    session = ankita.Session(**options)
    held: list[dict[str, Any]] = [{"role": "system", "content": "You are a desktop companion."}]
    session.append(held)
    for turn in range(150):
        added = step("openai", r, turn)
        session.append(added)
        held += added
        if turn % 5 == 4:
            got = session.trim()
            expected = ankita.trim(held, **options)
            assert got.messages == expected.messages, turn
            assert list(got.report.items()) == list(expected.report.items()), turn


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "responses"])
def test_a_session_answers_as_the_stateless_trim_over_random_edits(fmt: str) -> None:
    for seed in range(1, 25):
        r = random.Random(seed)
        options = {**OPTIONS[seed % len(OPTIONS)], "format": fmt}
        if fmt != "openai":
            options["system"] = "Be terse."
        session = ankita.Session(**options)
        held: list[dict[str, Any]] = []
        for op in range(20):
            what = r.randrange(10)
            if what < 6:
                added: list[dict[str, Any]] = []
                for k in range(r.randrange(4)):
                    added += step(fmt, r, op * 10 + k)
                assert session.append(added) == len(held) + len(added)
                held += added
            elif what < 7:
                n = r.randrange(len(held) + 3)
                session.truncate(n)
                del held[n:]
                assert len(session) == len(held)
            else:
                got = outcome(session.trim)
                assert got == outcome(ankita.trim, held, **options), (seed, op)
                for message in got.get("messages", []):
                    # An unchanged message is the caller's object; a changed one is new.
                    same = [h for h in held if h is message]
                    assert same or all(message is not h for h in held)
        assert session.snapshot() == held
        restored = ankita.Session.restore(session.snapshot(), **options)
        assert outcome(restored.trim) == outcome(session.trim)


def test_max_messages_none_is_no_count_limit_as_in_trim() -> None:
    messages = [{"role": "user", "content": f"message {i}"} for i in range(60)]
    plain: dict[str, Any] = {"trim_to": None}
    for options in [
        {"max_messages": None, **plain},
        {"max_messages": None, "format": None, **plain},
    ]:
        expected = ankita.trim(messages, **options)
        assert len(expected.messages) == 60
        for session in [
            ankita.Session(messages, **options),
            ankita.Session.restore(messages, **options),
        ]:
            got = session.trim()
            assert got.messages == expected.messages
            assert got.report == expected.report
    # Left out, the default count limit holds in both.
    assert (
        len(ankita.Session(messages, **plain).trim().messages)
        == len(ankita.trim(messages).messages)
        == 40
    )
    # A default session removes down to trim_to (0.75) of it, so its next calls only append.
    assert len(ankita.Session(messages).trim().messages) == 30


def test_unchanged_messages_are_the_callers_objects() -> None:
    history = [
        {"role": "system", "content": "Be brief."},
        {"role": "tool", "tool_call_id": "gone", "content": "orphan"},
        {"role": "user", "content": [image_part(SCREENSHOT)]},
    ]
    session = ankita.Session(history, max_bytes=4096)
    result = session.trim()
    assert result.messages[0] is history[0]
    assert result.messages[1] is history[2]
    assert result.report["repaired"][0]["action"] == "orphan_tool_removed"
    assert session.bytes_held <= 1.5 * len(json.dumps(history))
    assert "3 messages" in repr(session)


def test_a_changed_message_keeps_the_callers_parts() -> None:
    image = image_part(SCREENSHOT)
    history = [
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Look:"}, image],
            "tool_calls": [{"id": "a", "type": "function"}],
        },
        {"role": "user", "content": "And now?"},
    ]
    result = ankita.Session(history, max_bytes=100_000, trim_to=None).trim()
    assert result.messages[0] is not history[0]
    assert result.messages[0]["content"][1] is image
    assert result.messages[1] is history[1]
    assert outcome(lambda: result) == outcome(lambda: ankita.trim(history, max_bytes=100_000))


def test_bad_options_and_messages_raise() -> None:
    with pytest.raises(ankita.InvalidRequest):
        ankita.Session(max_byts=1)  # type: ignore[call-overload]
    session = ankita.Session(max_bytes=4096)
    with pytest.raises(ankita.InvalidRequest):
        session.append("not messages")
    with pytest.raises(ankita.InvalidRequest) as info:
        session.append([{"role": "user", "content": "ok"}, {"role": "user", "content": {1}}])
    assert info.value.path is not None and info.value.path.startswith("messages[1]")
    assert len(session) == 0


def test_one_thread_at_a_time() -> None:
    session = ankita.Session(max_bytes=1_000_000, max_messages=100_000)
    session.append([{"role": "user", "content": "x" * 2000} for _ in range(20_000)])
    errors: list[BaseException] = []

    def work() -> None:
        for _ in range(20):
            try:
                session.trim()
            except RuntimeError as error:
                errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Overlapping calls are refused (never a data race); the others answer.
    assert all("borrow" in str(e) for e in errors)


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "responses"])
def test_a_cache_stable_session_carries_its_cut(fmt: str) -> None:
    # Session(trim_to=...) passes each answer's report["cut"] to its next trim: every answer is
    # the stateless trim given the previous answer's cut, and while the cut stands the previous
    # answer is the start of the next one.
    r = random.Random(77)
    options: dict[str, Any] = {"max_bytes": 8000, "trim_to": 0.75, "format": fmt}
    if fmt != "openai":
        options["system"] = "Be terse."
    session = ankita.Session(**options)
    held: list[dict[str, Any]] = []
    cut: int | None = None
    previous: list[Any] = []
    previous_repairs: set[tuple[int, str]] = set()
    previous_truncated = False
    cuts: list[int] = []
    for turn in range(120):
        added = step(fmt, r, turn)
        session.append(added)
        held += added
        got = outcome(session.trim)
        expected = outcome(ankita.trim, held, cut=cut, **options)
        assert got == expected, turn
        if "report" not in got:
            continue
        new_cut = got["report"]["cut"]
        # What follows can change the previous answer's end: a same-role message merges into
        # its last message, a stray reply makes repair remove an older call. Else, while the
        # cut stands, the previous answer is the start of this one.
        repaired = {(e["index"], e["action"]) for e in got["report"]["repaired"]}
        settled = all(i >= len(held) - len(added) for i, _ in repaired - previous_repairs)
        # Shedding (the request alone over the budget) cuts texts to what the rest leaves.
        settled = settled and not got["report"]["truncated"] and not previous_truncated
        previous_truncated = bool(got["report"]["truncated"])
        if cut is not None and new_cut == cut and settled:
            stable = previous[:-1]
            assert got["messages"][: len(stable)] == stable, turn
        previous_repairs = repaired
        if new_cut is not None:
            assert cut is None or new_cut >= cut, turn
            cut = new_cut
            cuts.append(cut)
        previous = got["messages"]
    assert cuts, "the budget never filled"
    # The cut moves rarely: most calls keep the previous answer as their prefix.
    assert len(set(cuts)) * 3 < len(cuts)


def agent_step(fmt: str, k: int) -> list[dict[str, Any]]:
    """An agent loop's step in ``fmt``: a user message every eighth step, else a tool exchange
    whose result is a long file."""
    t = f"step {k}: " + "the build log says the config value is wrong " * (40 + k % 7 * 20)
    cid = f"call_{k}"
    if k % 8 == 0:
        if fmt == "gemini":
            return [{"role": "user", "parts": [{"text": f"Task {k}: fix the build."}]}]
        return [{"role": "user", "content": f"Task {k}: fix the build."}]
    if fmt == "openai":
        return [
            {"role": "assistant", "content": None, "tool_calls": [tool_call(cid, "read", "{}")]},
            {"role": "tool", "tool_call_id": cid, "content": t},
        ]
    if fmt == "anthropic":
        return [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": cid, "name": "read", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": cid, "content": t}],
            },
        ]
    if fmt == "gemini":
        return [
            {"role": "model", "parts": [{"functionCall": {"id": cid, "name": "read", "args": {}}}]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": cid, "name": "read", "response": {"output": t}}}
                ],
            },
        ]
    if fmt == "ai-sdk":
        return [
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": cid, "toolName": "read", "input": {}}
                ],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": cid,
                        "toolName": "read",
                        "output": {"type": "text", "value": t},
                    }
                ],
            },
        ]
    return [
        {"type": "function_call", "call_id": cid, "name": "read", "arguments": "{}"},
        {"type": "function_call_output", "call_id": cid, "output": t},
    ]


def prefix_share(
    fmt: str, options: dict[str, Any], calls: int = 150
) -> tuple[float, list[dict[str, Any]]]:
    """The share of the answers' JSON bytes that repeat the previous answer as a prefix, over
    an agent loop's calls after the window first filled; and each call's (session answer,
    stateless answer given the cut the session carried) pair, as outcomes."""
    session = ankita.Session(**options)
    held: list[dict[str, Any]] = []
    previous: list[Any] = []
    repeated = total = 0
    filled = False
    cut: int | None = None
    pairs: list[dict[str, Any]] = []
    for k in range(calls):
        added = agent_step(fmt, k)
        session.append(added)
        held += added
        result = session.trim()
        got = {"messages": result.messages, "report": result.report, "system": result.system}
        pairs.append({"got": got, "cut": cut, "held": list(held)})
        report = result.report
        if "cut" in report:
            cut = report.get("cut")
        filled = filled or bool(report["dropped_messages"])
        if filled:
            same = 0
            for a, b in zip(previous, result.messages):
                if a != b:
                    break
                same += 1
            sizes = [len(json.dumps(m)) for m in result.messages]
            repeated += sum(sizes[:same])
            total += sum(sizes)
        previous = list(result.messages)
    assert filled, fmt
    return repeated / total, pairs


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "responses", "gemini", "ai-sdk"])
def test_a_default_session_keeps_the_prefix(fmt: str) -> None:
    # Given no cache option, a session carries its cut (trim_to 0.75): the prefix holds on
    # nearly every call, and every answer is the stateless trim's with trim_to=0.75 and the
    # previous answer's cut. trim_to=None opts out: the stateless answers without them, whose
    # first kept message moves on nearly every call.
    options: dict[str, Any] = {
        "model": "gpt-4o",
        "context_tokens": 64_000,
        "max_output_tokens": 4000,
        "format": fmt,
    }
    if fmt not in ("openai", "ai-sdk"):
        options["system"] = "You are a coding agent."
    share, pairs = prefix_share(fmt, options)
    assert share >= 0.85, share
    for pair in pairs[::10]:
        expected = outcome(ankita.trim, pair["held"], trim_to=0.75, cut=pair["cut"], **options)
        assert pair["got"] == expected
    plain_share, pairs = prefix_share(fmt, {**options, "trim_to": None})
    assert plain_share < 0.5, plain_share
    for pair in pairs[::10]:
        assert pair["got"] == outcome(ankita.trim, pair["held"], **options)


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "responses", "gemini", "ai-sdk"])
def test_a_session_places_the_summary_its_callback_writes(fmt: str) -> None:
    # A stand-in summariser: when the cut moves the session calls it with the messages to fold
    # in (the caller's own objects) and the previous text, and places what it returns right
    # after the pinned message, the same text while the cut stands.
    calls: list[tuple[int, str | None]] = []

    def summarize(messages: list[Any], previous: str | None) -> str:
        calls.append((len(messages), previous))
        return (previous or "") + f"{len(messages)} messages of tool calls and results. "

    options: dict[str, Any] = {
        "model": "gpt-4o",
        "context_tokens": 64_000,
        "max_output_tokens": 4000,
        "format": fmt,
    }
    if fmt not in ("openai", "ai-sdk"):
        options["system"] = "You are a coding agent."
    session = ankita.Session(summarize=summarize, **options)
    head = 1 if fmt in ("openai", "ai-sdk") else 0
    if head:
        session.append([{"role": "system", "content": "You are a coding agent."}])
    held: list[dict[str, Any]] = []
    placed = 0
    for k in range(150):
        added = agent_step(fmt, k)
        session.append(added)
        held += added
        result = session.trim()
        report = result.report
        assert (report["cost_tokens"] or 0) <= (report["budget_tokens"] or 0)
        assert "compaction" not in report  # the session folded it in
        if "summary" in report:
            placed += 1
            assert report["summary"]["output_index"] == head
            text = json.dumps(result.messages[head])
            assert "[Summary of the earlier conversation]" in text
    assert calls and placed > 0
    assert calls[0][1] is None and all(previous for _, previous in calls[1:])

    def failing(messages: list[Any], previous: str | None) -> str:
        raise ValueError("no model today")

    session = ankita.Session(summarize=failing, **options)
    with pytest.warns(UserWarning, match="summarize failed"):
        for k in range(150):
            session.append(agent_step(fmt, k))
            assert "summary" not in session.trim().report


def loop_options(fmt: str) -> dict[str, Any]:
    """The agent loop's options: gpt-4o tokens in a 64k window, the system given apart where
    the format keeps it apart."""
    options: dict[str, Any] = {
        "model": "gpt-4o",
        "context_tokens": 64_000,
        "max_output_tokens": 4000,
        "format": fmt,
    }
    if fmt not in ("openai", "ai-sdk"):
        options["system"] = "You are a coding agent."
    return options


def loop_session(fmt: str, **options: Any) -> ankita.Session:
    """A session with the loop's options, its system prompt the first message where the format
    keeps it there."""
    session = ankita.Session(**loop_options(fmt), **options)
    if fmt in ("openai", "ai-sdk"):
        session.append([{"role": "system", "content": "You are a coding agent."}])
    return session


def stand_in(messages: list[Any], previous: str | None) -> str:
    """A deterministic stand-in summariser: what a model would write, by counting."""
    return (previous or "") + f"{len(messages)} messages of tool calls and results. "


def answers(session: ankita.Session, fmt: str, calls: int = 150) -> list[Any]:
    """The loop's answers (messages and report) from ``session.trim()``."""
    out = []
    for k in range(calls):
        session.append(agent_step(fmt, k))
        result = session.trim()
        out.append((result.messages, result.report))
    return out


def answers_async(session: ankita.Session, fmt: str, calls: int = 150) -> list[Any]:
    """The loop's answers from ``await session.trim_async()``, in one event loop."""

    async def loop() -> list[Any]:
        out = []
        for k in range(calls):
            session.append(agent_step(fmt, k))
            result = await session.trim_async()
            out.append((result.messages, result.report))
        return out

    return asyncio.run(loop())


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_trim_async_awaits_an_async_summarize(fmt: str) -> None:
    # A real coroutine, suspended at each call: the session answers as one given the same
    # summariser synchronously, the summary placed after the pinned message and kept while the
    # cut stands; the session is free while the summariser runs (it reads it).
    seen: list[tuple[int, str | None]] = []

    async def summarize(messages: list[Any], previous: str | None) -> str:
        await asyncio.sleep(0)
        seen.append((len(session), previous))
        assert session.bytes_held > 0  # not borrowed: the call runs outside the session
        return stand_in(messages, previous)

    session = loop_session(fmt, summarize=summarize)
    got = answers_async(session, fmt)
    expected = answers(loop_session(fmt, summarize=stand_in), fmt)
    assert got == expected
    placed = [report for _, report in got if "summary" in report]
    assert len(seen) >= 2 and placed
    assert seen[0][1] is None and all(previous for _, previous in seen[1:])
    head = 1 if fmt == "openai" else 0
    assert all(report["summary"]["output_index"] == head for report in placed)
    assert all("compaction" not in report for _, report in got)
    # A sync summariser, and a function returning an awaitable, serve trim_async too.
    session = loop_session(fmt, summarize=stand_in)
    assert answers_async(session, fmt) == expected

    def deferred(messages: list[Any], previous: str | None) -> Awaitable[str]:
        return summarize(messages, previous)

    session = loop_session(fmt, summarize=deferred)
    assert answers_async(session, fmt) == expected


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_an_async_summarize_that_fails_or_overflows_falls_back_to_plain_trimming(
    fmt: str,
) -> None:
    # An exception, a result that is not a str, or a summary over the budget: every turn is
    # answered, as a session without summarize answers it, with a warning.
    plain = answers(loop_session(fmt), fmt)
    assert any(report["dropped_messages"] for _, report in plain)

    async def failing(messages: list[Any], previous: str | None) -> str:
        await asyncio.sleep(0)
        raise ConnectionError("the model is down")

    async def not_text(messages: list[Any], previous: str | None) -> Any:
        return {"text": "a dict"}

    async def too_long(messages: list[Any], previous: str | None) -> str:
        return "the whole build log, again. " * 20_000

    cases: list[tuple[Any, str]] = [
        (failing, "summarize failed .*the model is down"),
        (not_text, "summarize returned dict, not a str"),
        (too_long, "the summary does not fit the budget"),
    ]
    for summarize, warning in cases:
        session = loop_session(fmt, summarize=summarize)
        with pytest.warns(UserWarning, match=warning):
            got = answers_async(session, fmt)
        assert got == plain, warning
        for _, report in got:
            assert "summary" not in report
            assert (report["cost_tokens"] or 0) <= (report["budget_tokens"] or 0)


def test_trim_given_an_async_summarize_names_trim_async() -> None:
    # The sync trim cannot await: a coroutine function is refused on the first trim (before it
    # is called), a function returning an awaitable when the cut first moves; the coroutine is
    # closed, never left to warn that it was not awaited.
    options = loop_options("openai")
    called: list[int] = []

    async def summarize(messages: list[Any], previous: str | None) -> str:
        called.append(len(messages))
        return "never"

    session = ankita.Session([{"role": "user", "content": "hi"}], summarize=summarize, **options)
    with pytest.raises(TypeError, match=r"await session\.trim_async\(\)"):
        session.trim()
    assert not called

    def deferred(messages: list[Any], previous: str | None) -> Awaitable[str]:
        return summarize(messages, previous)

    session = ankita.Session(summarize=deferred, **options)
    steps = iter(range(300))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(TypeError, match=r"returned coroutine, an awaitable: await session"):
            for k in steps:
                session.append(agent_step("openai", k))
                session.trim()
        gc.collect()
    # Only this test's coroutine is asked about: an event loop another test left to the
    # collector may warn here too (ResourceWarning: unclosed event loop), which is not ours.
    never_awaited = [str(w.message) for w in caught if "never awaited" in str(w.message)]
    assert not never_awaited, never_awaited
    assert not called

    # The session goes on: trim_async places a summary when the cut next moves.
    async def go_on() -> bool:
        for k in steps:
            session.append(agent_step("openai", k))
            if "summary" in (await session.trim_async()).report:
                return True
        return False

    assert asyncio.run(go_on())
    assert called


def test_a_truncation_while_summarize_runs_leaves_the_summary_out() -> None:
    # The summariser's messages may be gone when it returns (an edit, a regeneration): its text
    # is not placed, and the answer is the trim of the history as it now stands.
    options = loop_options("anthropic")
    session: ankita.Session

    async def summarize(messages: list[Any], previous: str | None) -> str:
        session.truncate(1)
        session.append([agent_step("anthropic", 1)[0]])
        return stand_in(messages, previous)

    session = ankita.Session(summarize=summarize, **options)

    async def loop() -> ankita.TrimResult[Any]:
        for k in range(150):
            session.append(agent_step("anthropic", k))
            result = await session.trim_async()
            if len(session) == 2:
                return result
        raise AssertionError("the cut never moved")

    with pytest.warns(UserWarning, match="truncated while summarize ran"):
        result = asyncio.run(loop())
    assert "summary" not in result.report
    assert result.report["input_messages"] == 2


def test_a_restored_session_takes_summarize() -> None:
    options = loop_options("openai")
    saved = [m for k in range(150) for m in agent_step("openai", k)]
    session = ankita.Session.restore(saved, summarize=stand_in, **options)
    assert "summary" in session.trim().report


EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_the_summarizing_examples_run() -> None:
    # examples/summarize_agent_loop.py, whose figures docs/cache-stable.md quotes, and the
    # OpenAI example's async summariser through the same driver with a stand-in client (the
    # real one needs a key and the network).
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "summarize_agent_loop.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.match(r"prefix share ([\d.]+), (\d+) summaries written", done.stdout)
    assert found, done.stdout
    assert float(found[1]) >= 0.85 and int(found[2]) > 10, done.stdout
    pytest.importorskip("openai")
    sys.path.insert(0, str(EXAMPLES))
    try:
        driver = importlib.import_module("summarizing_session")
        with_openai = importlib.import_module("summarize_with_openai")
    finally:
        sys.path.remove(str(EXAMPLES))
    asked: list[str] = []

    class Completions:
        async def create(self, **request: Any) -> Any:
            asked.append(request["messages"][-1]["content"])
            message = SimpleNamespace(content=f"summary {len(asked)}")
            return SimpleNamespace(choices=[SimpleNamespace(message=message)])

    client = SimpleNamespace(chat=SimpleNamespace(completions=Completions()))
    session = ankita.Session(
        [{"role": "system", "content": "You are a coding agent."}],
        summarize=with_openai.summarizer(client),
        **loop_options("openai"),
    )
    figures = asyncio.run(driver.drive(session, (agent_step("openai", k) for k in range(150))))
    assert asked and figures.summaries == len(asked)
    assert figures.summary.endswith(f"summary {len(asked)}")
    assert "The summary so far:\nsummary 1" in asked[1]


def test_a_summary_over_the_budget_keeps_the_previous_one() -> None:
    # The first summary fits, the second does not: the turn is trimmed as it was, the first
    # summary still in place (the same bytes), and the next move folds the messages in again.
    calls: list[str | None] = []

    async def summarize(messages: list[Any], previous: str | None) -> str:
        calls.append(previous)
        if len(calls) == 2:
            return "the whole build log, again. " * 20_000
        return stand_in(messages, previous)

    session = loop_session("anthropic", summarize=summarize)

    async def loop() -> list[Any]:
        out = []
        for k in range(300):
            session.append(agent_step("anthropic", k))
            out.append(await session.trim_async())
            if len(calls) == 3:
                break
        return out

    with pytest.warns(UserWarning, match="does not fit the budget"):
        results = asyncio.run(loop())
    assert len(calls) == 3
    first = next(r for r in results if "summary" in r.report)
    overflowed = next(i for i, r in enumerate(results) if "compaction" in r.report)
    assert results[overflowed].messages[0] == first.messages[0]
    assert "the whole build log" not in json.dumps(results[overflowed].messages)
    # The third call is given the first summary as the previous one.
    assert calls[2] == calls[1] and calls[1] is not None

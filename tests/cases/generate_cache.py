#!/usr/bin/env python3
"""Writes the shared cases of cache-stable trimming (tests/cases/cache_*.json) in every format:
`trim_to`, `cut` (and its documented rules for a cut past the end, inside an exchange, or at a
message repair removed), errors, and `cache_breakpoint` (Anthropic's cache_control; OpenAI's
prompt_cache_breakpoint in the chat, Responses and AI SDK formats).

Budgets here are message counts (`max_messages`), so the expectations come from the small model
of docs/cache-stable.md's rules below (groups, the required messages, the anchors
before the cut, the newest run that fits `trim_to` × the cap), written again here and never taken
from the library.

Run: python3 tests/cases/generate_cache.py   (rewrites tests/cases/cache_*.json)
"""

from __future__ import annotations

import json
import math
import pathlib

import histories
from histories import FORMATS, SYSTEM_FIRST, Obj, Step

HERE = pathlib.Path(__file__).resolve().parent
SYSTEM = "You are a helpful agent."
CASES: list[Obj] = []


def write(fmt: str, steps: list[Step]) -> tuple[list[Obj], str | Obj | None]:
    """The history's messages in `fmt`, and the system prompt outside them (histories.py)."""
    return histories.write(fmt, steps, SYSTEM, "lookup")


def groups_of(steps: list[Step]) -> list[list[int]]:
    """Groups of step indices: a user or assistant message alone, a call with its result."""
    groups: list[list[int]] = []
    k = 0
    while k < len(steps):
        if steps[k][0] == "call":
            groups.append([k, k + 1])
            k += 2
        else:
            groups.append([k])
            k += 1
    return groups


def model(
    steps: list[Step], max_messages: int, trim_to: float = 1.0, cut: int | None = None
) -> tuple[list[int], int | None, str | None]:
    """The README's rules on a count budget. Returns (kept step indices, cut in step indices
    or None, limited_by). The pinned system message counts one towards max_messages."""
    groups = groups_of(steps)
    n = len(groups)

    def first(g: int) -> str:
        return str(steps[groups[g][0]][0])

    request = max((g for g in range(n) if first(g) == "user"), default=None)
    in_progress = n - 1 if first(n - 1) == "call" and (request is None or n - 1 > request) else None
    required = {g for g in (request, in_progress) if g is not None}
    users = [g for g in range(n) if first(g) == "user"]
    base = 1 + sum(len(groups[g]) for g in required)

    def anchors(c: int) -> list[int]:
        return [g for g in users if g < c][::-1][:2]  # short texts: all within the limit

    def count(c: int, anchor: list[int]) -> int:
        return (
            base
            + sum(len(groups[g]) for g in range(c, n) if g not in required)
            + sum(len(groups[g]) for g in anchor if g not in required)
        )

    floor = 0
    if cut is not None and cut <= len(steps):
        floor = next((g for g in range(n) if groups[g][0] >= cut), n)
    if count(floor, anchors(floor)) <= max_messages:
        c, limited = floor, ("cut" if floor > 0 else None)
    else:
        target = max(1, math.floor(max_messages * trim_to))
        c = n
        while c > floor and count(c - 1, anchors(c - 1)) <= target:
            c -= 1
        limited = "max_messages"
    kept_groups = set(required) | set(anchors(c)) | set(range(c, n))
    kept = sorted(i for g in kept_groups for i in groups[g])
    dropped = [i for i in range(len(steps)) if i not in kept]
    reported = None if not dropped else (groups[c][0] if c < n else len(steps))
    return kept, reported, limited


def plain(pairs: int) -> list[Step]:
    steps: list[Step] = []
    for i in range(pairs):
        steps += [("user", f"question {i}"), ("assistant", f"answer {i}")]
    return steps + [("user", f"question {pairs}")]


def loop(pairs: int) -> list[Step]:
    """Questions and answers, each question answered after one tool call."""
    steps: list[Step] = []
    for i in range(pairs):
        steps += [
            ("user", f"question {i}"),
            ("call", f"c{i}", "lookup"),
            ("result", f"c{i}", f"found {i}"),
            ("assistant", f"answer {i}"),
        ]
    return steps + [("user", f"question {pairs}")]


def case(
    name: str,
    description: str,
    steps: list[Step],
    options: Obj,
    expect_model: Obj | None = None,
    expect: Obj | None = None,
) -> None:
    for fmt in FORMATS:
        messages, system = write(fmt, steps)
        shift = 1 if fmt in SYSTEM_FIRST else 0
        request: Obj = {"messages": messages, "format": fmt}
        if system is not None:
            request["system"] = system
        opts = dict(options)
        if "cut" in opts and isinstance(opts["cut"], int) and opts["cut"] >= 0:
            opts["cut"] += shift
        request.update(opts)
        if expect is not None:
            out = expect
        else:
            assert expect_model is not None, "a case gives expect_model or expect"
            kept, cut, limited = model(steps, **expect_model)
            kept_msgs = ([0] if shift else []) + [i + shift for i in kept]
            dropped = [i for i in range(len(messages)) if i not in kept_msgs]
            out = {
                "ok": True,
                "report": {
                    "dropped_messages": dropped,
                    "limited_by": limited,
                    "cut": None if cut is None else cut + shift,
                },
            }
            # Formats that merge same-role neighbours rebuild them; the others return them.
            if fmt in ("openai", "responses"):
                out["messages"] = [messages[i] for i in kept_msgs]
        CASES.append(
            {
                "name": f"cache_{name}_{fmt.replace('-', '_')}",
                "description": description,
                "function": "trim",
                "request": request,
                "expect": out,
            }
        )


case(
    "trim_to_removes_down_to_the_share",
    "Cache-stable trimming: once something must go, selection removes down to trim_to × "
    "max_messages (here 10 × 0.5), keeping the newest run and the anchors (the newest user "
    "messages before the cut); report.cut says where the kept run starts.",
    plain(9),
    {"max_messages": 10, "trim_to": 0.5},
    dict(max_messages=10, trim_to=0.5),
)
case(
    "cut_keeps_exactly_the_run",
    "Given the previous answer's cut, while the messages from it (with the pinned message, the "
    'anchors and the request) fit, the answer keeps exactly them: limited_by is "cut".',
    plain(9),
    {"max_messages": 10, "trim_to": 0.5, "cut": 14},
    dict(max_messages=10, trim_to=0.5, cut=14),
)
case(
    "cut_moves_forward_by_trim_to",
    "When the messages from the cut no longer fit, the cut moves forward (never back), down to "
    "trim_to × the cap.",
    plain(9),
    {"max_messages": 10, "trim_to": 0.5, "cut": 2},
    dict(max_messages=10, trim_to=0.5, cut=2),
)
case(
    "cut_past_the_end_is_ignored",
    "A cut past the end of the messages (the history was replaced) is ignored: the trim chooses "
    "its cut afresh.",
    plain(9),
    {"max_messages": 10, "trim_to": 0.5, "cut": 1000},
    dict(max_messages=10, trim_to=0.5),
)
case(
    "cut_inside_an_exchange_moves_to_the_next_group",
    "A cut that points inside a tool exchange (at the tool result) moves forward to the next "
    "group; the exchange stays whole or goes whole.",
    loop(4),
    {"max_messages": 30, "cut": 10},
    dict(max_messages=30, cut=10),
)
case(
    "trim_to_one_removes_only_what_it_must",
    "trim_to 1 (with cut null: no previous answer yet) removes only what it must, but the anchors "
    "stand before the cut and the report has cut.",
    plain(9),
    {"max_messages": 10, "trim_to": 1, "cut": None},
    dict(max_messages=10),
)
case(
    "nothing_removed_reports_cut_null",
    "When everything fits, nothing is removed and report.cut is null.",
    plain(3),
    {"max_messages": 40, "trim_to": 0.75},
    dict(max_messages=40, trim_to=0.75),
)

# The messages are documentation: the cases assert the error's code and path only.
INVALID: list[tuple[Obj, str]] = [
    ({"trim_to": 0}, "trim_to must be a number in (0, 1]"),
    ({"trim_to": 1.5}, "trim_to must be a number in (0, 1]"),
    ({"cut": -1}, "cut must be a non-negative integer"),
    ({"cut": "3"}, "cut must be a non-negative integer"),
]
for bad, _message in INVALID:
    key = next(iter(bad))
    value = json.dumps(bad[key]).replace('"', "")
    case(
        f"invalid_{key}_{value.replace('.', '_').replace('-', 'minus')}",
        f"{key} {json.dumps(bad[key])} is an invalid_request naming the key.",
        plain(1),
        bad,
        expect={"ok": False, "error": {"code": "invalid_request", "path": key}},
    )


def breakpoint_case() -> None:
    steps = [
        ("user", "Look at the build."),
        ("call", "c0", "build"),
        ("result", "c0", "ok"),
        ("assistant", "It builds."),
        ("user", "Now the tests."),
    ]
    messages, system = write("anthropic", steps)
    expected = json.loads(json.dumps(messages))
    expected[3]["content"] = [
        {"type": "text", "text": "It builds.", "cache_control": {"type": "ephemeral"}}
    ]
    CASES.append(
        {
            "name": "cache_breakpoint_on_the_last_message_before_the_newest_user_message",
            "description": "Anthropic cache_breakpoint: cache_control goes on the last block of "
            "the last message before the newest user message (a string content becomes one text "
            "block); the report says where (its index among the returned messages, the block).",
            "function": "trim",
            "request": {
                "messages": messages,
                "system": system,
                "format": "anthropic",
                "cache_breakpoint": True,
            },
            "expect": {
                "ok": True,
                "messages": expected,
                "report": {"cache_breakpoint": {"output_index": 3, "part": 0, "given": False}},
            },
        }
    )
    blocks = [{"type": "text", "text": s, "cache_control": {"type": "ephemeral"}} for s in "abcd"]
    CASES.append(
        {
            "name": "cache_breakpoint_never_a_fifth",
            "description": "The caller's own breakpoints count: with four in system, no fifth is "
            "made and the report says null.",
            "function": "trim",
            "request": {
                "messages": messages,
                "system": blocks,
                "format": "anthropic",
                "cache_breakpoint": True,
            },
            "expect": {"ok": True, "messages": messages, "report": {"cache_breakpoint": None}},
        }
    )
    gemini, instruction = write("gemini", steps)
    CASES.append(
        {
            "name": "cache_breakpoint_not_in_gemini",
            "description": "cache_breakpoint in the Gemini format (which has no breakpoints) is an "
            "invalid_request.",
            "function": "trim",
            "request": {
                "messages": gemini,
                "system": instruction,
                "format": "gemini",
                "cache_breakpoint": True,
            },
            "expect": {
                "ok": False,
                "error": {"code": "invalid_request", "path": "cache_breakpoint"},
            },
        }
    )


# OpenAI's explicit breakpoint (GPT-5.6 and later): {"mode": "explicit"} on the last input block
# before the newest message of the user's turn (a user message or a tool result), never on the
# assistant's output; a string content becomes one text block carrying it. The AI SDK writes it
# from providerOptions.openai.promptCacheBreakpoint (a tool result only through a content
# output's parts).
EXPLICIT = {"mode": "explicit"}
AI_SDK_OPTIONS = {"openai": {"promptCacheBreakpoint": EXPLICIT}}
NOT_PLACED = (
    "cache_breakpoint: model {model} is not read as GPT-5.6 or later, the models OpenAI takes "
    "explicit prompt-cache breakpoints for: nothing is placed"
)
NO_MODEL = (
    "cache_breakpoint: no model is given, and OpenAI takes explicit prompt-cache breakpoints "
    "from GPT-5.6 on: nothing is placed (give model)"
)


def openai_breakpoint(
    fmt: str, tag: str, messages: list[Obj], system: object, **kw: object
) -> None:
    """A breakpoint case in `fmt`: `kw` holds the expected index, the block's new `content` (or
    `output`) and `given`."""
    at = int(kw["index"])  # type: ignore[call-overload]
    expected = json.loads(json.dumps(messages))
    if "key" in kw:
        expected[at][str(kw["key"])] = kw["value"]
    request: Obj = {
        "messages": messages,
        "format": fmt,
        "model": "gpt-5.6",
        "cache_breakpoint": True,
    }
    if system is not None:
        request["system"] = system
    CASES.append(
        {
            "name": f"cache_breakpoint_openai_{tag}",
            "description": str(kw["description"]),
            "function": "trim",
            "request": request,
            "expect": {
                "ok": True,
                "messages": expected,
                "report": {
                    "cache_breakpoint": {
                        "output_index": at,
                        "part": int(kw.get("part", 0)),  # type: ignore[call-overload]
                        "given": bool(kw.get("given", False)),
                    }
                },
            },
        }
    )


def openai_breakpoint_cases() -> None:
    steps = [
        ("user", "Look at the build."),
        ("call", "c0", "build"),
        ("result", "c0", "ok"),
        ("assistant", "It builds."),
        ("user", "Now the tests."),
    ]
    chat, _ = write("openai", steps)
    openai_breakpoint(
        "openai",
        "on_the_tool_result_before_the_newest_user_message_openai",
        chat,
        None,
        index=3,
        key="content",
        value=[{"type": "text", "text": "ok", "prompt_cache_breakpoint": EXPLICIT}],
        description="OpenAI cache_breakpoint (GPT-5.6 and later), chat format: the assistant's "
        "answer cannot carry one, so it goes on the tool message before it (its string content "
        "becomes one text part); the report says where, as in the Anthropic format.",
    )
    items, instructions = write("responses", steps)
    openai_breakpoint(
        "responses",
        "on_the_tool_result_before_the_newest_user_message_responses",
        items,
        instructions,
        index=2,
        key="output",
        value=[{"type": "input_text", "text": "ok", "prompt_cache_breakpoint": EXPLICIT}],
        description="OpenAI cache_breakpoint, Responses format: on the function_call_output "
        "before the assistant's answer (its string output becomes one input_text).",
    )
    sdk, _ = write("ai-sdk", steps)
    openai_breakpoint(
        "ai-sdk",
        "text_tool_output_cannot_carry_it_ai_sdk",
        sdk,
        None,
        index=1,
        key="content",
        value=[{"type": "text", "text": "Look at the build.", "providerOptions": AI_SDK_OPTIONS}],
        description="OpenAI cache_breakpoint, AI SDK format: providerOptions.openai."
        "promptCacheBreakpoint; a tool result with a text output cannot carry it (the SDK's "
        "Responses provider reads it from a content output's parts only), so it goes on the "
        "user message before.",
    )
    content_output = json.loads(json.dumps(sdk))
    content_output[3]["content"][0]["output"] = {
        "type": "content",
        "value": [{"type": "text", "text": "ok"}],
    }
    carried = json.loads(json.dumps(content_output[3]["content"]))
    carried[0]["output"]["value"][0]["providerOptions"] = AI_SDK_OPTIONS
    openai_breakpoint(
        "ai-sdk",
        "on_a_content_tool_output_ai_sdk",
        content_output,
        None,
        index=3,
        key="content",
        value=carried,
        description="OpenAI cache_breakpoint, AI SDK format: a tool result's content output "
        "carries it on its last part.",
    )
    given = json.loads(json.dumps(chat))
    given[3]["content"] = [{"type": "text", "text": "ok", "prompt_cache_breakpoint": EXPLICIT}]
    openai_breakpoint(
        "openai",
        "already_there_is_reported_as_given_openai",
        given,
        None,
        index=3,
        given=True,
        description="A block that carries the breakpoint already is left as it is: the report "
        "says where, given.",
    )
    four = json.loads(json.dumps(chat))
    four[0]["content"] = [
        {"type": "text", "text": t, "prompt_cache_breakpoint": EXPLICIT} for t in "abcd"
    ]
    CASES.append(
        {
            "name": "cache_breakpoint_openai_never_a_fifth_openai",
            "description": "OpenAI writes at most four breakpoints a request: with four of the "
            "caller's, none is added and the report says null.",
            "function": "trim",
            "request": {"messages": four, "model": "gpt-5.6", "cache_breakpoint": True},
            "expect": {"ok": True, "messages": four, "report": {"cache_breakpoint": None}},
        }
    )
    for fmt, tag, model, message in [
        ("openai", "older_model", "gpt-4o", NOT_PLACED.format(model='"gpt-4o"')),
        ("responses", "no_model", None, NO_MODEL),
    ]:
        messages, system = write(fmt, steps)
        request: Obj = {"messages": messages, "format": fmt, "cache_breakpoint": True}
        if model is not None:
            request["model"] = model
        if system is not None:
            request["system"] = system
        warning = {
            "code": "cache_breakpoint_not_placed",
            "index": None,
            "part": None,
            "path": "cache_breakpoint",
            "message": message,
        }
        CASES.append(
            {
                "name": f"cache_breakpoint_openai_{tag}_is_a_warning_{fmt}",
                "description": "OpenAI takes explicit breakpoints from GPT-5.6 on: for an older "
                "model, or none given, the report warns and nothing is placed.",
                "function": "trim",
                "request": request,
                "expect": {"ok": True, "messages": messages, "report": {"warnings": [warning]}},
            }
        )


breakpoint_case()
openai_breakpoint_cases()

for old in HERE.glob("cache_*.json"):
    old.unlink()
for c in CASES:
    (HERE / f"{c['name']}.json").write_text(json.dumps(c, indent=1, ensure_ascii=False) + "\n")
print(f"wrote {len(CASES)} cases")

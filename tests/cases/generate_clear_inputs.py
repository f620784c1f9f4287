#!/usr/bin/env python3
"""Writes the shared cases of `clear_tool_results.clear_tool_inputs`
(tests/cases/clear_inputs_*.json) in every format: when an exchange's results are cleared, its
calls' arguments become a placeholder that still validates (OpenAI chat and Responses `arguments`
the JSON string "{}"; Anthropic `tool_use.input`, Gemini `functionCall.args`, AI SDK
`tool-call.input` the object {}), and the cost goes down by what that frees.

The history is three exchanges of ~3,000-byte arguments and ~3,000-byte results, each asked for
by a short user message and followed by a short answer: everything else costs a few hundred
bytes in all, so the budgets below fall between the totals with a margin of more than 1,000
bytes, whatever the formats' small fields cost. What a clear frees comes from the small model of
docs/trimming.md's "Clearing old tool results" below (the arguments as each format prices them, less
the placeholder's), never from the library.

Run: python3 tests/cases/generate_clear_inputs.py   (rewrites tests/cases/clear_inputs_*.json)
"""

from __future__ import annotations

import copy
import json
import pathlib
from typing import Any

import histories
from histories import FORMATS, SYSTEM_FIRST, Obj, Step

HERE = pathlib.Path(__file__).resolve().parent
SYSTEM = "You are a coding agent."
CLEARED = "[Old tool result cleared to fit the context budget.]"
CASES: list[Obj] = []


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def text(seed: int, size: int) -> str:
    """`size` bytes of plain ASCII (no quote, no backslash: its JSON string is itself quoted)."""
    words = [f"line{seed}-{k} lorem ipsum dolor sit amet" for k in range(size // 20 + 1)]
    return " ".join(words)[:size]


def args(i: int) -> Obj:
    return {"path": f"src/mod_{i}.rs", "content": text(i, 3000)}


def freed(fmt: str, arguments: Obj) -> int:
    """What clearing one call's arguments frees, in bytes (docs/trimming.md: a string
    `arguments` costs its JSON string; Anthropic prices `input` as OpenAI's `arguments`, a JSON
    string of the object; Gemini `args` and AI SDK `input` cost their compact JSON)."""
    if fmt in ("openai", "responses"):
        return len(json.dumps(json.dumps(arguments))) - len('"{}"')
    if fmt == "anthropic":
        return len(json.dumps(compact(arguments))) - len('"{}"')
    return len(compact(arguments)) - len("{}")


def write(fmt: str, steps: list[Step]) -> tuple[list[Obj], str | Obj | None]:
    """The history's messages in `fmt`, and the system prompt outside them (histories.py); an
    Anthropic call says what it does first."""
    return histories.write(fmt, steps, SYSTEM, "tool", call_words="Writing the file.")


def clear_call(fmt: str, message: Obj) -> Obj:
    """The call message with its arguments cleared."""
    m = copy.deepcopy(message)
    if fmt == "openai":
        for call in m["tool_calls"]:
            call["function"]["arguments"] = "{}"
    elif fmt == "responses":
        m["arguments"] = "{}"
    elif fmt == "gemini":
        for part in m["parts"]:
            part["functionCall"]["args"] = {}
    else:
        for block in m["content"]:
            if block["type"] in ("tool_use", "tool-call"):
                block["input"] = {}
    return m


def clear_result(fmt: str, message: Obj) -> Obj:
    """The reply with its result replaced by the placeholder."""
    m = copy.deepcopy(message)
    if fmt in ("openai",):
        m["content"] = CLEARED
    elif fmt == "responses":
        m["output"] = CLEARED
    elif fmt == "gemini":
        m["parts"][0]["functionResponse"]["response"]["output"] = CLEARED
    elif fmt == "anthropic":
        m["content"][0]["content"] = CLEARED
    else:
        m["content"][0]["output"]["value"] = CLEARED
    return m


def history(names: tuple[str, ...] = ("write", "write", "write")) -> list[Step]:
    steps: list[Step] = []
    for i, name in enumerate(names):
        steps += [
            ("user", f"Write module {i}."),
            ("call", f"call_{i}", name, args(i)),
            ("result", f"call_{i}", text(10 + i, 3000)),
            ("assistant", f"Module {i} written."),
        ]
    return steps + [("user", "Now run the tests.")]


def case(
    name: str,
    description: str,
    steps: list[Step],
    options: Obj,
    inputs: list[int],
    results: list[int],
) -> None:
    """`inputs`, `results`: the exchanges (by number) whose arguments and results are cleared, in
    the order they are; the report lists, exchange by exchange, the call message with what clearing
    its arguments freed, then the reply with what its result cost."""
    for fmt in FORMATS:
        messages, system = write(fmt, steps)
        shift = 1 if fmt in SYSTEM_FIRST else 0
        request: Obj = {"messages": messages, "format": fmt}
        if system is not None:
            request["system"] = system
        request.update(copy.deepcopy(options))
        expected = copy.deepcopy(messages)
        entries = []
        for e in sorted(set(inputs) | set(results)):
            call, reply = shift + 1 + 4 * e, shift + 2 + 4 * e
            if e in inputs:
                expected[call] = clear_call(fmt, messages[call])
                entries.append({"index": call, "bytes": freed(fmt, steps[1 + 4 * e][3])})
            if e in results:
                expected[reply] = clear_result(fmt, messages[reply])
                entries.append({"index": reply, "bytes": len(steps[2 + 4 * e][2].encode())})
        CASES.append(
            {
                "name": f"clear_inputs_{name}_{fmt.replace('-', '_')}",
                "description": description,
                "function": "trim",
                "request": request,
                "expect": {
                    "ok": True,
                    "messages": expected,
                    "report": {"dropped_messages": [], "cleared_tool_results": entries},
                },
            }
        )


# The three exchanges cost ~6,000 bytes each (~18,000 bytes and a few hundred more in all); with
# keep 1 the two oldest may be cleared. At 13,500 bytes, clearing exchange 0's result and
# arguments (~12,000 left) is enough; clearing results alone needs two (~15,000, then ~12,000).
BUDGET = 13_500
case(
    "clears_the_calls_arguments_with_their_results",
    "clear_tool_inputs: the exchange whose results are cleared loses its calls' arguments too (a "
    "placeholder that still validates in the format); the report lists the call message with what "
    "that freed, so one exchange is enough where results alone need two.",
    history(),
    {"max_bytes": BUDGET, "clear_tool_results": {"keep": 1, "clear_tool_inputs": True}},
    inputs=[0],
    results=[0],
)
case(
    "off_by_default_clears_results_only",
    "Without clear_tool_inputs (false by default) the calls keep their arguments: the same budget "
    "clears two results.",
    history(),
    {"max_bytes": BUDGET, "clear_tool_results": {"keep": 1, "clear_tool_inputs": False}},
    inputs=[],
    results=[0, 1],
)
case(
    "excluded_tools_keep_their_arguments",
    "An exchange calling a tool of exclude_tools keeps its arguments and its results; the next "
    "one is cleared instead.",
    history(("plan", "write", "write")),
    {
        "max_bytes": BUDGET,
        "clear_tool_results": {"keep": 1, "exclude_tools": ["plan"], "clear_tool_inputs": True},
    },
    inputs=[1],
    results=[1],
)
# At 7,500 bytes both clearable exchanges go to placeholders (~6,000 left: the kept exchange).
case(
    "clears_oldest_first_until_it_fits",
    "Exchanges are cleared oldest first, arguments and results, until the history fits; the newest "
    "keep exchanges stay as they are.",
    history(),
    {"max_bytes": 7_500, "clear_tool_results": {"keep": 1, "clear_tool_inputs": True}},
    inputs=[0, 1],
    results=[0, 1],
)

for fmt in FORMATS:
    messages, system = write(fmt, [("user", "hi")])
    request = {
        "messages": messages,
        "format": fmt,
        "clear_tool_results": {"clear_tool_inputs": "yes"},
    }
    if system is not None:
        request["system"] = system
    CASES.append(
        {
            "name": f"clear_inputs_not_a_boolean_{fmt.replace('-', '_')}",
            "description": "clear_tool_inputs must be true or false: anything else is an "
            "invalid_request naming the key.",
            "function": "trim",
            "request": request,
            "expect": {
                "ok": False,
                "error": {
                    "code": "invalid_request",
                    "path": "clear_tool_results.clear_tool_inputs",
                },
            },
        }
    )

for old in HERE.glob("clear_inputs_*.json"):
    old.unlink()
for c in CASES:
    (HERE / f"{c['name']}.json").write_text(json.dumps(c, indent=1, ensure_ascii=False) + "\n")
print(f"wrote {len(CASES)} cases")

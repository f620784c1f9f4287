"""Benchmark: the stateless ankita.trim of a long history, read from its newest messages.

    bindings/python/.venv/bin/python bindings/python/bench/bench_tail.py [--runs N] [--messages N]
        [--only text|agent] [--formats openai,anthropic,responses,gemini,ai-sdk]

Two histories of 20,000 messages: text (~5 MB of JSON) and an agent session in each of the five
formats (~14 MB: of every 20,000 messages about 1,500 user messages with part lists, 4,150 of the
model's steps calling tools, once or twice in parallel, 6,250 tool results of 0.2 to 2 kB, the
rest plain text, a system prompt first; Anthropic carries parallel results in one message and
Responses each call in its own item, so their counts differ a little). In one process, runs
interleaved, medians: `ankita.trim` with `max_messages=40`, and keeping everything
(`max_messages=None`), each against `json.dumps` of the same messages (the least any trimmer
that measures the conversation as text pays) and against `ankita.trim_json` of the whole request
(the history serialised, trimmed, answered); and `ankita.sanitize` against `json.dumps` and
`ankita.sanitize_json` of the whole history. Checks first that `trim` answers what `trim_json`
answers, and `sanitize_with_report` what `sanitize_json` answers.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import ankita

WORDS = ["build", "failed", "at", "line", "the", "config", "value", "error:", "expected"]
FORMATS = ["openai", "anthropic", "responses", "gemini", "ai-sdk"]
Msgs = list[dict[str, Any]]


def history(n: int) -> Msgs:
    r = random.Random(0x5EED)

    def prose(size: int) -> str:
        out = ""
        while len(out) < size:
            out += r.choice(WORDS) + " "
        return out

    out = [{"role": "system", "content": "You are a desktop companion. " + prose(400)}]
    while len(out) < n:
        role = "user" if len(out) % 2 else "assistant"
        out.append({"role": role, "content": prose(40 + r.randrange(380))})
    return out


class Agent:
    """An agent session's events, written in one format: a turn is the user's message (a part
    list in 3 turns of 8), then steps of the model that call tools (1 or 2 calls, each answered
    by a tool result of 0.2 to 2 kB, as in bindings/node/bench/session.js), some of them after
    a line of the model's text, then its answer."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.r = random.Random(0xA6E7)

    def prose(self, size: int) -> str:
        out = ""
        while len(out) < size:
            out += self.r.choice(WORDS) + " "
        return out

    def user(self, t: int) -> dict[str, Any]:
        if self.r.random() >= 0.373:
            return self.text("user", f"Turn {t}: {self.prose(60 + self.r.randrange(400))}")
        parts = [
            f"Turn {t}: {self.prose(200)}",
            f"```\n{self.prose(300 + self.r.randrange(900))}```",
        ]
        if self.fmt == "gemini":
            return {"role": "user", "parts": [{"text": p} for p in parts]}
        kind = "input_text" if self.fmt == "responses" else "text"
        return {"role": "user", "content": [{"type": kind, "text": p} for p in parts]}

    def text(self, role: str, text: str) -> dict[str, Any]:
        if self.fmt == "gemini":
            return {"role": "model" if role == "assistant" else role, "parts": [{"text": text}]}
        return {"role": role, "content": text}

    def step(self, ids: list[str]) -> Msgs:
        """The model's call of `ids` and their results."""
        calls = [(i, {"path": f"src/{self.r.randrange(90)}.rs", "lines": [1, 400]}) for i in ids]
        outputs = [self.prose(200 + self.r.randrange(1800)) for _ in ids]
        if self.fmt == "openai":
            return [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": i,
                            "type": "function",
                            "function": {"name": "read_file", "arguments": json.dumps(a)},
                        }
                        for i, a in calls
                    ],
                },
                *({"role": "tool", "tool_call_id": i, "content": o} for i, o in zip(ids, outputs)),
            ]
        if self.fmt == "anthropic":
            return [
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": i, "name": "read_file", "input": a}
                        for i, a in calls
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": i, "content": o}
                        for i, o in zip(ids, outputs)
                    ],
                },
            ]
        if self.fmt == "responses":
            return [
                *(
                    {
                        "type": "function_call",
                        "call_id": i,
                        "name": "read_file",
                        "arguments": json.dumps(a),
                    }
                    for i, a in calls
                ),
                *(
                    {"type": "function_call_output", "call_id": i, "output": o}
                    for i, o in zip(ids, outputs)
                ),
            ]
        if self.fmt == "gemini":
            return [
                {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"id": i, "name": "read_file", "args": a}}
                        for i, a in calls
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "id": i,
                                "name": "read_file",
                                "response": {"output": o},
                            }
                        }
                        for i, o in zip(ids, outputs)
                    ],
                },
            ]
        return [
            {
                "role": "assistant",
                "content": [
                    {"type": "tool-call", "toolCallId": i, "toolName": "read_file", "input": a}
                    for i, a in calls
                ],
            },
            *(
                {
                    "role": "tool",
                    "content": [
                        {
                            "type": "tool-result",
                            "toolCallId": i,
                            "toolName": "read_file",
                            "output": {"type": "text", "value": o},
                        }
                    ],
                }
                for i, o in zip(ids, outputs)
            ),
        ]

    def history(self, n: int) -> Msgs:
        out = [self.text("system", f"You are a coding agent. {self.prose(1500)}")]
        if self.fmt in ("anthropic", "gemini"):
            # Their system prompt is given apart: the history opens with the user's brief.
            out = [self.text("user", f"Set up. {self.prose(1500)}")]
        t = 0
        while len(out) < n:
            t += 1
            out.append(self.user(t))
            steps = self.r.choices([0, 1, 2, 3], weights=[30, 45, 16, 9])[0]
            for s in range(steps):
                if self.r.random() < 0.38:
                    out.append(self.text("assistant", self.prose(80 + self.r.randrange(300))))
                calls = 1 if self.r.random() < 0.49 else 2
                out += self.step([f"call_{t}_{s}_{c}" for c in range(calls)])
            out.append(self.text("assistant", self.prose(200 + self.r.randrange(600))))
        return out


def measure(fns: list[Callable[[], object]], runs: int) -> list[float]:
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            times[k].append((time.perf_counter() - t0) * 1000)
    return [statistics.median(t) for t in times]


def census(messages: Msgs) -> str:
    """How many messages of each kind: a plain text, a part list, a call, a result."""
    kinds: dict[str, int] = {}
    for m in messages:
        content = m.get("content", m.get("parts"))
        if m.get("type") in ("function_call", "function_call_output"):
            kind = str(m["type"])
        elif "tool_calls" in m or m.get("role") == "tool":
            kind = "tool_calls" if "tool_calls" in m else "tool"
        elif isinstance(content, list):
            kinds_in = {str(p.get("type", next(iter(p)))) for p in content}
            kind = f"{m['role']}:[{','.join(sorted(kinds_in))}]"
        else:
            kind = f"{m['role']}:text"
        kinds[kind] = kinds.get(kind, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))


def run(name: str, messages: Msgs, runs: int, fmt: str | None) -> None:
    size = len(json.dumps(messages))
    base: dict[str, Any] = {} if fmt is None else {"format": fmt}

    def contract(**options: Any) -> dict[str, Any]:
        answer: dict[str, Any] = json.loads(
            ankita.trim_json(json.dumps({**base, **options, "messages": messages}))
        )
        return answer

    for options in ({"max_messages": 40}, {"max_messages": None}):
        result = ankita.trim(messages, **base, **options)
        expected = contract(**options)
        assert json.loads(json.dumps(result.messages)) == expected["messages"], (name, options)
        assert json.loads(json.dumps(result.report)) == expected["report"], (name, options)

    trim40, whole40, dumps = measure(
        [
            lambda: ankita.trim(messages, **base, max_messages=40),
            lambda: contract(max_messages=40),
            lambda: json.dumps(messages),
        ],
        runs,
    )
    trim_all, whole_all, dumps_all = measure(
        [
            lambda: ankita.trim(messages, **base, max_messages=None),
            lambda: contract(max_messages=None),
            lambda: json.dumps(messages),
        ],
        runs,
    )

    def sanitized_whole() -> dict[str, Any]:
        answer: dict[str, Any] = json.loads(
            ankita.sanitize_json(json.dumps({**base, "messages": messages}))
        )
        return answer

    repaired, report = ankita.sanitize_with_report(messages, **base)
    expected = sanitized_whole()
    assert json.loads(json.dumps(repaired)) == expected["messages"], name
    assert json.loads(json.dumps(report)) == expected["report"], name
    sanitize, sanitize_whole, dumps_sanitize = measure(
        [
            lambda: ankita.sanitize(messages, **base),
            sanitized_whole,
            lambda: json.dumps(messages),
        ],
        runs,
    )
    print(f"\n{name}: {len(messages)} messages ({size / 1e6:.1f} MB of JSON)")
    if fmt is not None:
        print(f"  {census(messages)}")
    rows = [
        ("trim, max_messages=40", trim40, "json.dumps", dumps),
        ("trim, max_messages=40", trim40, "trim_json (whole)", whole40),
        ("trim, keeping everything", trim_all, "json.dumps", dumps_all),
        ("trim, keeping everything", trim_all, "trim_json (whole)", whole_all),
        ("sanitize", sanitize, "json.dumps", dumps_sanitize),
        ("sanitize", sanitize, "sanitize_json (whole)", sanitize_whole),
    ]
    print(f"  {'call':<28}{'ms':>9}  {'baseline':<22}{'ms':>9}{'ratio':>8}")
    for what, ms, against, base_ms in rows:
        print(f"  {what:<28}{ms:>9.2f}  {against:<22}{base_ms:>9.2f}{ms / base_ms:>7.2f}×")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--only", choices=["text", "agent"])
    parser.add_argument("--formats", default=",".join(FORMATS))
    args = parser.parse_args()
    print(f"ankita {ankita.__version__}: {args.runs} runs each, interleaved, medians")
    if args.only != "agent":
        run("text", history(args.messages), args.runs, None)
    if args.only != "text":
        for fmt in args.formats.split(","):
            run(f"agent session, {fmt}", Agent(fmt).history(args.messages), args.runs, fmt)


if __name__ == "__main__":
    main()

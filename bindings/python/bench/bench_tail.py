"""Benchmark: the stateless ankita.trim of a long text history, read from its newest messages.

    bindings/python/.venv/bin/python bindings/python/bench/bench_tail.py [--runs N] [--messages N]

20,000 text messages (~5 MB of JSON), in one process, runs interleaved, medians: `ankita.trim`
with `max_messages=40`, and keeping everything (`max_messages=None`), each against
`json.dumps` of the same messages (the least any trimmer that measures the conversation as text
pays) and against `ankita.trim_json` of the whole request (the history serialised, trimmed,
answered). Checks first that `trim` answers what `trim_json` answers.
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


def history(n: int) -> list[dict[str, Any]]:
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


def measure(fns: list[Callable[[], object]], runs: int) -> list[float]:
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            times[k].append((time.perf_counter() - t0) * 1000)
    return [statistics.median(t) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--messages", type=int, default=20_000)
    args = parser.parse_args()
    messages = history(args.messages)
    size = len(json.dumps(messages))

    def contract(**options: Any) -> dict[str, Any]:
        answer: dict[str, Any] = json.loads(
            ankita.trim_json(json.dumps({**options, "messages": messages}))
        )
        return answer

    for options in ({"max_messages": 40}, {"max_messages": None}):
        result = ankita.trim(messages, **options)
        expected = contract(**options)
        assert json.loads(json.dumps(result.messages)) == expected["messages"], options
        assert json.loads(json.dumps(result.report)) == expected["report"], options

    trim40, whole40, dumps = measure(
        [
            lambda: ankita.trim(messages, max_messages=40),
            lambda: contract(max_messages=40),
            lambda: json.dumps(messages),
        ],
        args.runs,
    )
    trim_all, whole_all, dumps_all = measure(
        [
            lambda: ankita.trim(messages, max_messages=None),
            lambda: contract(max_messages=None),
            lambda: json.dumps(messages),
        ],
        args.runs,
    )
    print(
        f"ankita {ankita.__version__}: {args.messages} text messages "
        f"({size / 1e6:.1f} MB of JSON), {args.runs} runs each, medians"
    )
    rows = [
        ("trim, max_messages=40", trim40, "json.dumps", dumps),
        ("trim, max_messages=40", trim40, "trim_json (whole)", whole40),
        ("trim, keeping everything", trim_all, "json.dumps", dumps_all),
        ("trim, keeping everything", trim_all, "trim_json (whole)", whole_all),
    ]
    print(f"{'call':<28}{'ms':>9}  {'baseline':<20}{'ms':>9}{'ratio':>8}")
    for what, ms, base, base_ms in rows:
        print(f"{what:<28}{ms:>9.2f}  {base:<20}{base_ms:>9.2f}{ms / base_ms:>7.2f}×")


if __name__ == "__main__":
    main()

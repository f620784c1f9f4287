"""Benchmark: a 1,000-turn companion session growing to 20,000 messages (text, tool loops with
multi-kilobyte outputs, a pasted screenshot every 20 turns), trimmed before every model call.

    bindings/python/.venv/bin/python bindings/python/bench/bench_session.py [--turns N] [--runs N]

Per-turn cost at turns 1, 100, 500 and 1,000 of ``Session`` (``append`` of the turn's messages
then ``trim()``, every turn) and of the stateless ``ankita.trim`` of the whole history (the same
workload and options as bindings/node/bench/session.js). Checks that both answer the same.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import statistics
import time
from typing import Any

import ankita

# Opted out of cache-stable trimming (a session's default; docs/cache-stable.md): the session
# answers as the stateless trim it is compared with.
OPTIONS: dict[str, Any] = {"max_bytes": 512_000, "max_messages": 1000, "trim_to": None}
WORDS = ["build", "failed", "at", "line", "the", "config", "value", "error:", "expected"]
rng = random.Random(0x5EED)


def prose(n: int) -> str:
    out: list[str] = []
    size = 0
    while size < n:
        word = rng.choice(WORDS)
        out.append(word)
        size += len(word) + 1
    return " ".join(out) + " "


def screenshot() -> str:
    header = bytes.fromhex("89504e470d0a1a0a0000000d49484452000007800000043808060000005c72a866")
    filler = rng.randbytes(225_000)
    return "data:image/png;base64," + base64.b64encode(header + filler).decode("ascii")


def turn(t: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if t % 20 == 1:
        out.append(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"Turn {t}: here is my screen. {prose(200)}"},
                    {"type": "image_url", "image_url": {"url": screenshot()}},
                ],
            }
        )
    else:
        out.append({"role": "user", "content": f"Turn {t}: {prose(300)}"})
    for c in range(9):
        call_id = f"call_{t}_{c}"
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "read_file", "arguments": f'{{"path":"src/f{c}.rs"}}'},
                    }
                ],
            }
        )
        out.append(
            {"role": "tool", "tool_call_id": call_id, "content": prose(200 + rng.randrange(1800))}
        )
    out.append({"role": "assistant", "content": prose(400)})
    return out


def timed(fn: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    result = fn()
    return (time.perf_counter() - t0) * 1000, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    samples = [t for t in (1, 100, 500, 1000) if t <= args.turns]

    history: list[dict[str, Any]] = [
        {"role": "system", "content": f"You are a desktop companion. {prose(1500)}"}
    ]
    session = ankita.Session(history, **OPTIONS)
    per_turn: list[float] = []
    rows = []
    for t in range(1, args.turns + 1):
        added = turn(t)
        history += added

        def step(added: list[dict[str, Any]] = added) -> ankita.TrimResult[Any]:
            session.append(added)
            return session.trim()

        ms, result = timed(step)
        per_turn.append(ms)
        if t not in samples:
            continue
        again = []
        for _ in range(args.runs):
            session.truncate(len(history) - len(added))
            again.append(timed(step)[0])
        stateless = [timed(lambda h=history: ankita.trim(h, **OPTIONS)) for _ in range(args.runs)]
        expected = stateless[-1][1]
        assert result.messages == expected.messages and result.report == expected.report
        rows.append(
            (
                t,
                len(history),
                statistics.median(per_turn[-5:] + again),
                statistics.median(ms for ms, _ in stateless),
                len(result.messages),
            )
        )
    print(f"ankita {ankita.__version__}; options {OPTIONS}")
    print(
        f"the session holds {session.bytes_held:,} bytes for {session.bytes_given:,} bytes of JSON"
        f" given ({session.bytes_held / session.bytes_given:.2f}x; screenshots crossed as"
        f" stand-ins; the history's own JSON is {len(json.dumps(history)):,} bytes)"
    )
    print(f"{'turn':>5} {'messages':>9} {'Session ms':>11} {'trim ms':>9} {'kept':>5}")
    for t, n, s, st, kept in rows:
        print(f"{t:>5} {n:>9} {s:>11.2f} {st:>9.2f} {kept:>5}")


if __name__ == "__main__":
    main()

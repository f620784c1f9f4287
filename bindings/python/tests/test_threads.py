"""Many threads at once, each with its own inputs: every answer must be the serial one."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import ankita
from helpers import SCREENSHOT, image_part, tool_call

THREADS = 16
CALLS = 25


def session(seed: int) -> list[dict[str, Any]]:
    """A different session per seed: its length, texts and images vary."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": f"Assistant #{seed}."}]
    for turn in range(5 + seed % 7):
        messages.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": f"turn {turn} of {seed}: " + "words " * (seed * 13 % 90),
                    },
                    image_part(SCREENSHOT),
                ],
            }
        )
        call = f"call_{seed}_{turn}"
        messages.append(
            {"role": "assistant", "content": None, "tool_calls": [tool_call(call, "look", "{}")]}
        )
        messages.append({"role": "tool", "tool_call_id": call, "content": "r" * (seed * 31 % 700)})
        messages.append({"role": "assistant", "content": f"answer {turn}"})
    messages.append({"role": "user", "content": f"final question {seed}"})
    return messages


def answer(seed: int) -> str:
    """Everything a call returns, as text, so answers compare exactly."""
    budget = 4000 + seed * 997 % 12000
    result = ankita.trim(session(seed), max_bytes=budget, max_messages=10 + seed % 30)
    return json.dumps([result.messages, result.report])


def test_concurrent_calls_give_the_serial_answers() -> None:
    seeds = range(THREADS * 3)
    expected = {seed: answer(seed) for seed in seeds}
    assert len(set(expected.values())) == len(expected)  # the inputs really differ
    start = threading.Barrier(THREADS)

    def worker(thread: int) -> int:
        start.wait()
        checked = 0
        for call in range(CALLS):
            seed = (thread * 7 + call) % len(expected)
            assert answer(seed) == expected[seed], (thread, call, seed)
            checked += 1
        return checked

    with ThreadPoolExecutor(THREADS) as pool:
        assert sum(pool.map(worker, range(THREADS))) == THREADS * CALLS


def test_concurrent_errors_keep_their_own_details() -> None:
    def worker(n: int) -> None:
        for _ in range(CALLS):
            budget = 600 + n
            try:
                ankita.trim(
                    [{"role": "system", "content": "s" * 2000}, {"role": "user", "content": "q"}],
                    max_bytes=budget,
                )
            except ankita.ContextBudgetExceeded as e:
                assert e.details["breakdown"]["max_bytes"] == budget
            else:
                raise AssertionError("expected ContextBudgetExceeded")

    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(worker, range(THREADS)))

"""Benchmark: ankita.trim on a 200-message agent session holding 20 pasted screenshots (~20 MB).

    bindings/python/.venv/bin/python bindings/python/bench/bench_trim.py [--runs N]

Compares `ankita.trim` with `json.dumps` of the same messages (the least any trimmer that
measures the conversation as text pays), `ankita.trim_json` (the JSON contract: dumps + parse +
trim + serialise), and, when they can be imported, `litellm.utils.trim_messages` and
`langchain_core.messages.trim_messages` (not dependencies: install them to include them).
Prints median times, ratios and how many messages each returned (litellm's trimmer fails on
list content: it logs the error and returns the messages untrimmed).
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import logging
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ankita

ROOT = Path(__file__).resolve().parents[3]
PNG = ROOT / "tests" / "fixtures" / "images" / "png" / "rgb_1700x2200.png"

MESSAGES = 200
SCREENSHOTS = 20  # 19 in the history, 1 in the current request
SCREENSHOT_BYTES = 750_000  # ~1 MB of base64 each
CONTEXT_TOKENS = 32_000
MAX_OUTPUT_TOKENS = 4_000
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a text file from the user's workspace.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }
]


def screenshot(rng: random.Random) -> str:
    """A PNG data URL: a real 1700×2200 PNG header, then random bytes so that the base64 text
    is as incompressible as a real screenshot's."""
    header = PNG.read_bytes()[:33]  # signature + IHDR: all a header probe may read
    body = rng.getrandbits(8 * (SCREENSHOT_BYTES - len(header))).to_bytes(
        SCREENSHOT_BYTES - len(header), "little"
    )
    return "data:image/png;base64," + base64.b64encode(header + body).decode("ascii")


def session(seed: int = 7) -> list[dict[str, Any]]:
    """System, then turns of: a user message (some with a screenshot), an assistant tool call,
    its reply, an assistant answer; last the request with a screenshot. openai SDK dicts."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a desktop companion. " * 20}
    ]
    turns = (MESSAGES - 4) // 4  # 49 turns of 4 messages, and 4 others
    with_screenshot = {i * turns // SCREENSHOTS for i in range(SCREENSHOTS)}
    for turn in range(turns):
        text = f"Turn {turn}: what do you make of this? " + "context " * rng.randint(5, 120)
        content: Any = text
        if turn in with_screenshot:
            content = [
                {"type": "text", "text": text},
                {"type": "image_url", "image_url": {"url": screenshot(rng), "detail": "high"}},
            ]
        call = f"call_{turn}"
        messages += [
            {"role": "user", "content": content},
            {
                "role": "assistant",
                "content": None,
                "refusal": None,
                "tool_calls": [
                    {
                        "id": call,
                        "type": "function",
                        "function": {"name": "read_file", "arguments": '{"path": "log.txt"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call, "content": "log line\n" * rng.randint(10, 400)},
            {"role": "assistant", "content": "Here is what I see. " * rng.randint(3, 40)},
        ]
    messages += [
        {"role": "user", "content": "One more thing."},
        {"role": "assistant", "content": "Sure, go ahead."},
    ]
    messages.append(
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "And now this one: what should I do?"},
                {"type": "image_url", "image_url": {"url": screenshot(rng), "detail": "high"}},
            ],
        }
    )
    assert len(messages) == MESSAGES, len(messages)
    return messages


def median_seconds(fn: Callable[[], object], runs: int) -> tuple[float, object]:
    """The median time of `runs` calls after a warm-up, and what the last call returned."""
    result = fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def kept(result: object) -> str:
    """How many messages a trimmer returned (text answers are parsed)."""
    if isinstance(result, ankita.TrimResult):
        return str(len(result.messages))
    if isinstance(result, str) and result.startswith('{"ok"'):
        return str(len(json.loads(result)["messages"]))
    if isinstance(result, dict) and "messages" in result:
        return str(len(result["messages"]))
    if isinstance(result, list):
        return str(len(result))
    return "-"


def contenders(messages: list[dict[str, Any]]) -> dict[str, Callable[[], object]]:
    options = {
        "context_tokens": CONTEXT_TOKENS,
        "max_output_tokens": MAX_OUTPUT_TOKENS,
        "tools": TOOLS,
    }
    request = json.dumps({"messages": messages, **options})
    found: dict[str, Callable[[], object]] = {
        "ankita.trim": lambda: ankita.trim(messages, **options),  # type: ignore[call-overload]
        "json.dumps(messages)": lambda: json.dumps(messages),
        "ankita.trim_json (text in, text out)": lambda: ankita.trim_json(request),
        "json.dumps + ankita.trim_json + json.loads": lambda: json.loads(
            ankita.trim_json(json.dumps({"messages": messages, **options}))
        ),
    }
    budget_tokens = CONTEXT_TOKENS - MAX_OUTPUT_TOKENS
    # litellm fetches a price list from the network at import unless told to use its own copy.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm  # type: ignore[import-not-found, unused-ignore]
        from litellm.utils import trim_messages as litellm_trim  # type: ignore[import-not-found, unused-ignore]

        # It logs a traceback and returns the messages untrimmed when content is a list.
        litellm.suppress_debug_info = True
        logging.getLogger("LiteLLM").setLevel(logging.CRITICAL)

        found["litellm.utils.trim_messages"] = lambda: litellm_trim(
            copy.deepcopy(messages), model="gpt-4o", max_tokens=budget_tokens
        )
    except ImportError:
        print("(litellm not installed: skipped)", file=sys.stderr)
    try:
        from langchain_core.messages import (  # type: ignore[import-not-found, unused-ignore]
            trim_messages as langchain_trim,
        )
        from langchain_core.messages.utils import (  # type: ignore[import-not-found, unused-ignore]
            count_tokens_approximately,
        )

        found["langchain_core trim_messages"] = lambda: langchain_trim(
            messages,
            max_tokens=budget_tokens,
            token_counter=count_tokens_approximately,
            strategy="last",
            include_system=True,
            start_on="human",
        )
    except ImportError:
        print("(langchain_core not installed: skipped)", file=sys.stderr)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()

    messages = session()
    size = len(json.dumps(messages))
    result = ankita.trim(
        messages, context_tokens=CONTEXT_TOKENS, max_output_tokens=MAX_OUTPUT_TOKENS, tools=TOOLS
    )
    report = result.report
    print(
        f"session: {len(messages)} messages, {SCREENSHOTS} screenshots, {size / 1e6:.1f} MB of "
        f"JSON; budget {report['budget_bytes']:,} bytes ({CONTEXT_TOKENS:,}-token window, "
        f"{MAX_OUTPUT_TOKENS:,} for output)"
    )
    images_kept = sum(
        1
        for m in result.messages
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if p.get("type") == "image_url"
    )
    print(
        f"ankita.trim keeps {report['output_messages']} messages ({images_kept} screenshots), "
        f"{report['cost_bytes']:,} bytes; drops {len(report['dropped_messages'])} messages\n"
    )

    timings = {name: median_seconds(fn, args.runs) for name, fn in contenders(messages).items()}
    base = timings["ankita.trim"][0]
    width = max(map(len, timings))
    print(f"{'':{width}}  {'median':>10}  {'× ankita.trim':>13}  {'messages out':>12}")
    for name, (seconds, answer) in timings.items():
        print(
            f"{name:{width}}  {seconds * 1e3:>8.2f}ms  {seconds / base:>12.1f}×  {kept(answer):>12}"
        )


if __name__ == "__main__":
    main()

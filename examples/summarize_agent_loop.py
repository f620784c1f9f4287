"""A coding agent's loop whose session summarises what the cut removes: a deterministic stand-in
summariser (no model call) folds the messages each compaction names into one paragraph, placed
right after the system message while the cut stands (docs/cache-stable.md). The loop is
examples/summarizing_session.py's, which examples/summarize_with_openai.py runs with a model.

    python examples/summarize_agent_loop.py

Prints, over the calls after the window first filled, the share of each call's messages that
repeat the previous call's from the start, how many summaries were written, and the last one.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import ankita
from summarizing_session import drive


def step(k: int) -> list[dict[str, Any]]:
    """A task every eighth step, else a file read and its (long) result."""
    if k % 8 == 0:
        return [{"role": "user", "content": f"Task {k}: make the build pass."}]
    call = {
        "id": f"call_{k}",
        "type": "function",
        "function": {"name": "read_file", "arguments": json.dumps({"path": f"src/{k}.rs"})},
    }
    body = f"// file {k}\n" + 'fn main() { println!("the config value is wrong"); }\n' * (
        20 + k % 9 * 15
    )
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"call_{k}", "content": body},
    ]


def summarize(messages: list[dict[str, Any]], previous: str | None) -> str:
    """The stand-in: which files were read and which tasks were given, after the previous text."""
    tasks = [m["content"].rstrip(".") for m in messages if m["role"] == "user"]
    reads = [
        json.loads(c["function"]["arguments"])["path"]
        for m in messages
        for c in m.get("tool_calls") or []
    ]
    line = f"Tasks: {'; '.join(tasks) or 'none new'}. Files read: {', '.join(reads) or 'none'}."
    return f"{previous}\n{line}" if previous else line


def main() -> None:
    session = ankita.Session(
        [{"role": "system", "content": "You are a coding agent."}],
        model="gpt-4o",
        context_tokens=32_000,
        max_output_tokens=4_000,
        summarize=summarize,
    )
    figures = asyncio.run(drive(session, (step(k) for k in range(300))))
    print(f"prefix share {figures.prefix_share:.3f}, {figures.summaries} summaries written")
    print(figures.summary[:300])


if __name__ == "__main__":
    main()

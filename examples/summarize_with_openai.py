"""A session whose summaries are written by a model (the OpenAI SDK; not run in the tests: it
needs OPENAI_API_KEY). When the cut moves, the session calls `summarize` with the messages to
fold in and the previous summary; the text comes back in place of those messages, right after
the system message, the same bytes until the cut moves again (docs/cache-stable.md).

    OPENAI_API_KEY=... python examples/summarize_with_openai.py
"""

from __future__ import annotations

import json
from typing import Any

import ankita
from openai import OpenAI

client = OpenAI()


def summarize(messages: list[dict[str, Any]], previous: str | None) -> str:
    """Asks a small model for a summary of `messages` that continues `previous`."""
    prompt = (
        "Summarise this part of an agent's conversation in at most 200 words: the user's goals, "
        "decisions, file names and facts the agent will need later.\n"
        + (f"The summary so far:\n{previous}\n" if previous else "")
        + "The messages:\n"
        + json.dumps(messages)[:100_000]
    )
    reply = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}], max_tokens=400
    )
    return (previous + "\n" if previous else "") + (reply.choices[0].message.content or "")


def main() -> None:
    session = ankita.Session(
        [{"role": "system", "content": "You are a helpful agent."}],
        model="gpt-4o",
        context_tokens=128_000,
        max_output_tokens=4_000,
        summarize=summarize,
    )
    while True:
        session.append([{"role": "user", "content": input("> ")}])
        result = session.trim()
        reply = client.chat.completions.create(model="gpt-4o", messages=result.messages)
        text = reply.choices[0].message.content or ""
        print(text)
        session.append([{"role": "assistant", "content": text}])


if __name__ == "__main__":
    main()

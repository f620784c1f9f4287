"""A session whose summaries are written by a model (the OpenAI SDK's async client; not run in
the tests: it needs OPENAI_API_KEY). When the cut moves, ``await session.trim_async()`` awaits
``summarize`` with the messages to fold in and the previous summary; the text comes back in
place of those messages, right after the system message, the same bytes until the cut moves
again (docs/cache-stable.md). The loop is examples/summarizing_session.py's, which
examples/summarize_agent_loop.py runs with a stand-in summariser.

    OPENAI_API_KEY=... python examples/summarize_with_openai.py
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import ankita
from openai import AsyncOpenAI
from summarizing_session import Message, drive


def summarizer(client: AsyncOpenAI) -> Callable[[list[Message], str | None], Awaitable[str]]:
    """``summarize`` for the session: asks a small model for a summary of ``messages`` that
    continues ``previous``."""

    async def summarize(messages: list[Message], previous: str | None) -> str:
        prompt = (
            "Summarise this part of an agent's conversation in at most 200 words: the user's "
            "goals, decisions, file names and facts the agent will need later.\n"
            + (f"The summary so far:\n{previous}\n" if previous else "")
            + "The messages:\n"
            + json.dumps(messages)[:100_000]
        )
        reply = await client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}], max_tokens=400
        )
        return (previous + "\n" if previous else "") + (reply.choices[0].message.content or "")

    return summarize


def typed() -> Iterator[list[Message]]:
    """The user's turns, read from the terminal until end of input."""
    while True:
        try:
            yield [{"role": "user", "content": input("> ")}]
        except EOFError:
            return


def main() -> None:
    client = AsyncOpenAI()

    async def answer(messages: list[Any]) -> list[Message]:
        reply = await client.chat.completions.create(model="gpt-4o", messages=messages)
        text = reply.choices[0].message.content or ""
        print(text)
        return [{"role": "assistant", "content": text}]

    session = ankita.Session(
        [{"role": "system", "content": "You are a helpful agent."}],
        model="gpt-4o",
        context_tokens=128_000,
        max_output_tokens=4_000,
        summarize=summarizer(client),
    )
    figures = asyncio.run(drive(session, typed(), answer))
    print(f"{figures.summaries} summaries written")


if __name__ == "__main__":
    main()

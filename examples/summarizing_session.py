"""The loop both summarising examples run (examples/summarize_agent_loop.py with a stand-in
summariser, examples/summarize_with_openai.py with a model): a session that summarises what the
cut removes, fed turn by turn, trimmed before every model call with ``await
session.trim_async()`` (which awaits an async summariser and calls a sync one), and what a
provider's prompt cache could serve of each call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import ankita

Message = dict[str, Any]


@dataclass
class Figures:
    """Over the calls after the window first filled: the share of each call's messages that
    repeat the previous call's from the start; the summaries written, and the last one."""

    repeated: int = 0
    total: int = 0
    summaries: int = 0
    summary: str = ""

    @property
    def prefix_share(self) -> float:
        return self.repeated / self.total if self.total else 0.0


async def drive(
    session: ankita.Session,
    turns: Iterable[list[Message]],
    reply: Callable[[list[Any]], Awaitable[list[Message]]] | None = None,
) -> Figures:
    """Appends each turn's messages, trims, and hands the trimmed messages to ``reply`` (the
    model call; its messages are appended too). The summary stands right after the system
    message, which the session holds first."""
    figures = Figures()
    previous: list[Any] = []
    for turn in turns:
        session.append(turn)
        result = await session.trim_async()
        if "summary" in result.report:
            text = result.messages[result.report["summary"]["output_index"]]["content"]
            figures.summaries += text != figures.summary
            figures.summary = text
        if result.report["dropped_messages"]:
            same = 0
            for a, b in zip(previous, result.messages):
                if a != b:
                    break
                same += 1
            figures.repeated += same
            figures.total += len(result.messages)
        previous = result.messages
        if reply is not None:
            session.append(await reply(result.messages))
    return figures

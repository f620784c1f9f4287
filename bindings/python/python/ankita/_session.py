"""``Session.trim_async``: the coroutine the native method returns. The trims and the placing
of the summary are the session's own (the same code as ``Session.trim``); what is added here is
only the await, made outside the session so that other tasks may use it meanwhile."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from ._ankita import TrimResult


class _Fold(Protocol):
    """What a trim whose cut moved asks ``summarize`` for (the native ``Fold``)."""

    @property
    def summarize(self) -> Callable[[list[Any], str | None], object]: ...
    @property
    def messages(self) -> list[Any]: ...
    @property
    def previous(self) -> str | None: ...


class _Steps(Protocol):
    """The native session's two steps around the summariser."""

    def _trim_step(self) -> tuple[TrimResult[Any], _Fold | None]: ...
    def _fold_in(
        self, result: TrimResult[Any], fold: _Fold, outcome: object
    ) -> TrimResult[Any]: ...


async def trim_async(session: object) -> TrimResult[Any]:
    steps = cast(_Steps, session)
    result, fold = steps._trim_step()
    if fold is None:
        return result
    try:
        text = fold.summarize(fold.messages, fold.previous)
        if inspect.isawaitable(text):
            text = await text
    except Exception as error:
        # Plain trimming with a warning; cancellation (not an Exception) goes through.
        return steps._fold_in(result, fold, error)
    return steps._fold_in(result, fold, text)

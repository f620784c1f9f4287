"""What the framework adapters share: which input messages a trim returned."""

from __future__ import annotations

from ._types import TrimReport

# Repairs that remove the message at `index` (the others change it and keep it).
_REMOVING = frozenset(
    {
        "orphan_tool_removed",
        "incomplete_tool_reply_removed",
        "empty_message_removed",
        "unknown_role_removed",
    }
)


def kept_indices(count: int, report: TrimReport) -> list[int]:
    """The input indices of the messages an OpenAI-format trim returned, in order: the format
    keeps the input order and never merges, so every input message is either returned, in
    ``dropped_messages``, or removed by a repair."""
    gone = set(report["dropped_messages"])
    gone.update(r["index"] for r in report["repaired"] if r["action"] in _REMOVING)
    kept = [i for i in range(count) if i not in gone]
    if len(kept) != report["output_messages"]:
        raise RuntimeError(
            f"the report accounts for {len(kept)} returned messages, "
            f"not {report['output_messages']}"
        )
    return kept

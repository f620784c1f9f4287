#!/usr/bin/env python3
"""Writes the shared cases of a caller's summary (tests/cases/summary_*.json) in every format:
`summary: {"text", "through"}` placed right after the pinned message as a user message of the
format's own shape (its text `[Summary of the earlier conversation]`, a blank line, the caller's
text), the messages up to `through` dropped in its stead, with a cut that stands and with one
that moves (`report.compaction`: what to summarise next), a `through` past the end, and errors;
and the providers' server compactions (a Responses `compaction` item, an Anthropic `compaction`
block, and both as the AI SDK writes them back), which stand for everything before them.

Budgets are message counts (`max_messages`; the pinned message and the summary count one each),
so the expectations follow from the rules of docs/cache-stable.md, traced by hand below for
each history (never taken from the library).

Run: python3 tests/cases/generate_summary.py   (rewrites tests/cases/summary_*.json)
"""

from __future__ import annotations

import json
import pathlib

import histories
from histories import FORMATS, SYSTEM_FIRST, Obj, Step

HERE = pathlib.Path(__file__).resolve().parent
SYSTEM = "You are a helpful agent."
MARKER = "[Summary of the earlier conversation]"
TEXT = "The user asked about the build; it failed on a missing crate."
CASES: list[Obj] = []


def summary_message(fmt: str, text: str) -> Obj:
    """The placed summary in `fmt`: the user's turn."""
    full = f"{MARKER}\n\n{text}"
    if fmt == "gemini":
        return {"role": "user", "parts": [{"text": full}]}
    if fmt == "responses":
        return {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": full}],
        }
    if fmt == "ai-sdk":
        return {"role": "user", "content": [{"type": "text", "text": full}]}
    return {"role": "user", "content": full}


def plain(pairs: int) -> list[Step]:
    steps: list[Step] = []
    for i in range(pairs):
        steps += [("user", f"question {i}"), ("assistant", f"answer {i}")]
    return steps + [("user", f"question {pairs}")]


def moved(value: object, shift: int) -> object:
    """The step indices in `value` as message indices."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value + shift
    if isinstance(value, list):
        return [moved(v, shift) for v in value]
    if isinstance(value, dict):
        return {k: moved(v, shift) for k, v in value.items()}
    return value


def case(
    name: str,
    description: str,
    steps: list[Step],
    options: Obj,
    kept: list[int] | None,
    report: Obj,
) -> None:
    """`kept`: the step indices returned after the summary (None: check the report only);
    `options["summary"]["through"]`, `options["cut"]` and the report's indices are in steps,
    shifted here by the system message of the formats that hold it."""
    for fmt in FORMATS:
        messages, system = histories.write(fmt, steps, SYSTEM, "lookup")
        shift = 1 if fmt in SYSTEM_FIRST else 0
        request: Obj = {"messages": messages, "format": fmt}
        if system is not None:
            request["system"] = system
        opts = json.loads(json.dumps(options))
        if isinstance(opts.get("cut"), int):
            opts["cut"] += shift
        if isinstance(opts.get("summary"), dict) and isinstance(
            opts["summary"].get("through"), int
        ):
            opts["summary"]["through"] += shift
        request.update(opts)

        out_report = {
            k: (moved(v, shift) if k not in ("limited_by",) else v) for k, v in report.items()
        }
        if "summary" in out_report:
            out_report["summary"] = {"output_index": shift}
        expect: Obj = {"ok": True, "report": out_report}
        # Formats that merge same-role neighbours a drop left side by side rebuild them.
        gaps = kept is not None and kept != list(range(kept[0], kept[0] + len(kept)))
        if kept is not None and not (gaps and fmt in ("anthropic", "gemini")):
            text = opts.get("summary", {}).get("text", TEXT)
            expect["messages"] = (
                messages[:shift]
                + [summary_message(fmt, text)]
                + [messages[i + shift] for i in kept]
            )
        CASES.append(
            {
                "name": f"summary_{name}_{fmt.replace('-', '_')}",
                "description": description,
                "function": "trim",
                "request": request,
                "expect": expect,
            }
        )


# plain(5): u0 a0 u1 a1 u2 a2 u3 a3 u4 a4 u5 (steps 0-10). The summary stands for steps 0-3:
# they go, the rest fits the default count limit, nothing else is removed.
case(
    "placed_after_the_pinned_message",
    "A summary of the messages up to `through` is placed right after the pinned message, as a "
    "user message of the format's own shape starting with the marker; those messages are "
    "dropped in its stead (and give no anchor); report.summary says where it stands.",
    plain(5),
    {"summary": {"text": TEXT, "through": 3}},
    list(range(4, 11)),
    {"dropped_messages": [0, 1, 2, 3], "summary": {}, "limited_by": None},
)

# plain(9): u0 a0 … u8 a8 u9 (steps 0-18). Cut at u7 (14), the summary of 0-13: the pinned
# message, the summary and steps 14-18 are 7 messages, within 8: the run from the cut is kept
# as it is, the prefix system + summary + run.
case(
    "and_a_cut_that_stands_keep_the_prefix",
    "With the previous answer's cut and a summary of what precedes it, while the messages from "
    "the cut fit the answer is the pinned message, the summary and exactly those messages "
    '(limited_by "cut"); no compaction is asked for.',
    plain(9),
    {"max_messages": 8, "trim_to": 0.5, "cut": 14, "summary": {"text": TEXT, "through": 13}},
    list(range(14, 19)),
    {"dropped_messages": list(range(0, 14)), "summary": {}, "limited_by": "cut", "cut": 14},
)

# Cut at u4 (8), the summary of 0-7: from the cut, 11 messages + 2 > 8, so the cut moves: with
# trim_to 1 newest first down to 8 messages. The pinned message, the summary and the request
# (u9) are 3; a8 (17) and u8 (16) with the anchors u7, u6 make 7; a7 (15) makes 8; u7 (14)
# would bring the anchors u6, u5 and 9. The answer: summary, u6, u7 (anchors), a7, u8, a8,
# u9; the cut 15; what to summarise next: steps 8-14 (the anchors among them: the next summary
# stands for them), with no byte or token budget to fit (a count alone).
case(
    "compaction_when_the_cut_moves",
    "When the messages from the cut no longer fit, the cut moves forward and report.compaction "
    "says what to summarise next: the messages after the summary's `through` up to the new cut "
    "(from, through, each index of the range) and what a new summary may cost (null: a message "
    "count alone).",
    plain(9),
    {"max_messages": 8, "trim_to": 1, "cut": 8, "summary": {"text": TEXT, "through": 7}},
    [12, 14, 15, 16, 17, 18],
    {
        "dropped_messages": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13],
        "summary": {},
        "limited_by": "max_messages",
        "cut": 15,
        "compaction": {
            "from": 8,
            "through": 14,
            "messages": [8, 9, 10, 11, 12, 13, 14],
        },
    },
)

# A `through` past the end of the messages: the history was replaced; the summary is ignored.
for fmt in FORMATS:
    messages, system = histories.write(fmt, plain(2), SYSTEM, "lookup")
    request = {"messages": messages, "format": fmt, "summary": {"text": TEXT, "through": 100}}
    if system is not None:
        request["system"] = system
    CASES.append(
        {
            "name": f"summary_through_past_the_end_is_ignored_{fmt.replace('-', '_')}",
            "description": "A summary whose `through` is past the end of the messages (the "
            "history was replaced) is ignored: nothing is dropped for it, it is not placed.",
            "function": "trim",
            "request": request,
            "expect": {"ok": True, "messages": messages, "report": {"dropped_messages": []}},
        }
    )

# The messages are documentation: the cases assert the error's code and path only.
for k, bad in enumerate(
    [
        "a summary",
        {"text": "no index"},
        {"text": 3, "through": 1},
        {"text": "negative", "through": -1},
        {"text": "extra", "through": 1, "from": 0},
    ]
):
    messages, _ = histories.write("openai", plain(1), SYSTEM, "lookup")
    CASES.append(
        {
            "name": f"summary_invalid_{k}",
            "description": f"summary {json.dumps(bad)} is an invalid_request naming the key.",
            "function": "trim",
            "request": {"messages": messages, "summary": bad},
            "expect": {"ok": False, "error": {"code": "invalid_request", "path": "summary"}},
        }
    )

# A server compaction (an OpenAI Responses `compaction` item, from /responses/compact or
# context_management) stands for everything before it: the items before it go, it stays while
# anything after it is kept, priced by its bytes as opaque data.
COMPACTION = {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAAB" + "x" * 60}
ITEMS: list[Obj] = [
    {"role": "user", "content": "old question"},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "old"}]},
    COMPACTION,
    {"role": "user", "content": "new question"},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "new"}]},
    {"role": "user", "content": "latest"},
]
for name, options, kept, dropped, limited in [
    ("what_precedes_it_goes", {}, [2, 3, 4, 5], [0, 1], None),
    # Three messages: the compaction, the anchor before the request, the request.
    ("kept_under_a_count_limit", {"max_messages": 3}, [2, 3, 5], [0, 1, 4], "max_messages"),
]:
    CASES.append(
        {
            "name": f"summary_server_compaction_{name}_responses",
            "description": "A Responses compaction item stands for everything before it: the "
            "items before it are not kept, and it is kept while anything after it is.",
            "function": "trim",
            "request": {"messages": ITEMS, "format": "responses", **options},
            "expect": {
                "ok": True,
                "messages": [ITEMS[i] for i in kept],
                "report": {"dropped_messages": dropped, "limited_by": limited},
            },
        }
    )

# An Anthropic compaction block (context_management edit compact_20260112) in the assistant
# message that answered: the API ignores every block before it, so the messages before its
# message go, and the answer may start with that assistant message (no user turn is brought
# back). A block whose content is null is a compaction that failed: the API treats it as a no-op,
# and so does the trim. The AI SDK writes the block back as a text part with
# providerOptions.anthropic.type "compaction", and a Responses compaction item as a custom part
# of kind "openai.compaction".
SUMMARY = "The user asked about the build; it failed on a missing crate, now added."


def compaction_history(fmt: str, block: Obj) -> list[Obj]:
    """Old turns, the compaction's assistant message, then three more messages."""
    said = [block, {"type": "text", "text": "new"}]
    return [
        {"role": "user", "content": "old question"},
        {"role": "assistant", "content": "old"},
        {"role": "user", "content": "question"},
        {"role": "assistant", "content": said},
        {"role": "user", "content": "next"},
        {"role": "assistant", "content": "answer"},
        {"role": "user", "content": "latest"},
    ]


BLOCKS: dict[str, Obj] = {
    "anthropic": {"type": "compaction", "content": SUMMARY, "encrypted_content": "EqQB" + "y" * 40},
    "ai-sdk": {
        "type": "text",
        "text": SUMMARY,
        "providerOptions": {"anthropic": {"type": "compaction"}},
    },
}
OPENAI_IN_AI_SDK: Obj = {
    "type": "custom",
    "kind": "openai.compaction",
    "providerOptions": {"openai": {"itemId": "cmp_1", "encryptedContent": "gAAAAAB" + "x" * 40}},
}
COMPACTIONS: list[tuple[str, Obj, str]] = [
    ("anthropic", BLOCKS["anthropic"], "anthropic"),
    ("ai-sdk", BLOCKS["ai-sdk"], "ai_sdk"),
    ("ai-sdk", OPENAI_IN_AI_SDK, "ai_sdk_openai_item"),
]
for fmt, block, tag in COMPACTIONS:
    history = compaction_history(fmt, block)
    for name, options, kept, dropped, limited in [
        ("what_precedes_it_goes", {}, [3, 4, 5, 6], [0, 1, 2], None),
        # As in the Responses case: the compaction, the anchor before the request, the request.
        ("kept_under_a_count_limit", {"max_messages": 3}, [3, 4, 6], [0, 1, 2, 5], "max_messages"),
    ]:
        messages = [history[i] for i in kept]
        if fmt == "anthropic" and 5 not in kept:
            # Roles alternate: the anchor and the request, both the user's, merge into one.
            texts = [{"type": "text", "text": history[i]["content"]} for i in (4, 6)]
            messages = [history[3], {"role": "user", "content": texts}]
        CASES.append(
            {
                "name": f"summary_server_compaction_{name}_{tag}",
                "description": "A server compaction in an assistant message stands for everything "
                "before it: the messages before it are not kept, it is kept while anything after "
                "it is, and the answer starts with it (the provider ignores what precedes it).",
                "function": "trim",
                "request": {"messages": history, "format": fmt, **options},
                "expect": {
                    "ok": True,
                    "messages": messages,
                    "report": {"dropped_messages": dropped, "limited_by": limited},
                },
            }
        )

LEADING = [{"role": "assistant", "content": [BLOCKS["anthropic"], {"type": "text", "text": "new"}]}]
LEADING.append({"role": "user", "content": "latest"})
CASES.append(
    {
        "name": "summary_server_compaction_leads_the_answer_anthropic",
        "description": "A history that starts with the assistant message holding a compaction "
        "block keeps it: the user-turn rule does not drop it.",
        "function": "trim",
        "request": {"messages": LEADING, "format": "anthropic"},
        "expect": {"ok": True, "messages": LEADING, "report": {"dropped_messages": []}},
    }
)
FAILED = compaction_history("anthropic", {"type": "compaction", "content": None})
CASES.append(
    {
        "name": "summary_server_compaction_that_failed_is_no_compaction_anthropic",
        "description": "A compaction block whose content is null is a compaction that failed (the "
        "API treats it as a no-op): what precedes it is kept as usual.",
        "function": "trim",
        "request": {"messages": FAILED, "format": "anthropic"},
        "expect": {"ok": True, "messages": FAILED, "report": {"dropped_messages": []}},
    }
)
BAD = compaction_history("anthropic", {"type": "compaction", "content": 7})
CASES.append(
    {
        "name": "summary_server_compaction_content_not_a_string_anthropic",
        "description": "A compaction block's content is its summary or null: anything else is an "
        "invalid_request naming the block.",
        "function": "trim",
        "request": {"messages": BAD, "format": "anthropic"},
        "expect": {
            "ok": False,
            "error": {"code": "invalid_request", "path": "messages[3].content[0].content"},
        },
    }
)

for old in HERE.glob("summary_*.json"):
    old.unlink()
for c in CASES:
    (HERE / f"{c['name']}.json").write_text(json.dumps(c, indent=1, ensure_ascii=False) + "\n")
print(f"wrote {len(CASES)} cases")

#!/usr/bin/env python3
"""Writes the shared JSON cases of the OpenAI chat format (request + expected response) that drive
the Rust, C, Python and Node tests: images priced by pixels, tool exchanges, repair, anchors,
shedding order and loud failures. Expectations are written here by hand from DESIGN.md, with byte
costs computed by the small independent cost model of chat.py (DESIGN §2), never by the library
itself; generate_limits.py and generate_anthropic.py write the rest of the chat and Anthropic
cases the same way.

Run: python3 tests/cases/generate.py   (rewrites the JSON files of its cases)
"""

from __future__ import annotations

import copy
import math

from chat import (
    NOTE,
    GIF_1x1,
    JPEG_500x375,
    PNG_1700x2200,
    assistant,
    calls,
    case,
    compact,
    cost,
    err,
    filler,
    image,
    naive_shrink,
    ok,
    reply,
    shrink,
    sys,
    text,
    total,
    user,
    write_cases,
)

# --- images are priced by pixels -----------------------------------------------------------
msgs = [
    sys(),
    {"role": "user", "content": [text("What does this error dialog say?"), image(PNG_1700x2200)]},
]
assert len(PNG_1700x2200) > 4000
case(
    "image_priced_by_pixels",
    "A 1700×2200 screenshot costs 765 tokens (3,060 bytes): it fits a 4,000-byte budget that its "
    f"{len(PNG_1700x2200)}-byte data URL alone would exceed.",
    {"messages": msgs, "max_bytes": 4000},
    ok(
        msgs,
        budget_bytes=4000,
        cost_bytes=total(msgs),
        dropped_messages=[],
        dropped_images=[],
        truncated=[],
        output_messages=2,
    ),
)

# --- tool exchanges are atomic ---------------------------------------------------------------
loop = [
    sys(),
    user("Check the three config files."),
    calls("c1", "c2", "c3"),
    reply("c3", filler(300, "third")),
    reply("c1", filler(300, "first")),
    reply("c2", filler(300, "second")),
    assistant("All three parse."),
    user("Thanks. Now what?"),
]
case(
    "parallel_tool_calls_out_of_order_kept",
    "Three parallel tool calls answered out of order form one valid exchange.",
    {"messages": loop, "max_bytes": 100_000},
    ok(loop, dropped_messages=[], repaired=[], output_messages=8),
)
tight = total([loop[0], loop[1], loop[6], loop[7]]) + 200
assert tight < total(loop)
case(
    "parallel_tool_calls_dropped_whole",
    "When the exchange does not fit, the assistant call and all three replies go together.",
    {"messages": loop, "max_bytes": tight},
    ok(
        [loop[0], loop[1], loop[6], loop[7]],
        dropped_messages=[2, 3, 4, 5],
        truncated=[],
        repaired=[],
    ),
)

# --- repair --------------------------------------------------------------------------------
msgs = [user("hi"), reply("gone", "stale output"), assistant("hello"), user("bye")]
case(
    "orphan_tool_removed",
    "A tool message without its call is removed and reported.",
    {"messages": msgs},
    ok(
        [msgs[0], msgs[2], msgs[3]],
        dropped_messages=[],
        budget_bytes=None,
        repaired=[
            {
                "index": 1,
                "action": "orphan_tool_removed",
                "reason": "tool message does not answer a tool call of the assistant message "
                "right before it",
            }
        ],
    ),
)

bad = {
    "role": "assistant",
    "content": "Let me look.",
    "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read", "arguments": {"path": "a"}}}
    ],
}
msgs = [user("open a"), bad, reply("c1", "contents of a"), user("and?")]
case(
    "malformed_tool_call_replaced_with_note",
    "Arguments that are not a string: the call and its reply go, the text keeps a visible note.",
    {"messages": msgs},
    ok(
        [msgs[0], {"role": "assistant", "content": "Let me look.\n" + NOTE}, msgs[3]],
        repaired=[
            {
                "index": 1,
                "action": "incomplete_tool_calls_removed",
                "reason": "function.arguments is not a string",
                "path": "messages[1].tool_calls[0].function.arguments",
            },
            {
                "index": 2,
                "action": "incomplete_tool_reply_removed",
                "reason": "reply to the incomplete tool calls of messages[1]",
            },
        ],
    ),
)

msgs = [user("run it"), calls("c1", "c2"), reply("c1", "done"), user("status?")]
case(
    "unanswered_tool_call_note_alone",
    "A call without its reply (session saved mid-call): the assistant had no text, so the note "
    "stands alone.",
    {"messages": msgs},
    ok(
        [msgs[0], {"role": "assistant", "content": NOTE}, msgs[3]],
        repaired=[
            {
                "index": 1,
                "action": "incomplete_tool_calls_removed",
                "reason": 'tool call "c2" has no reply',
            },
            {
                "index": 2,
                "action": "incomplete_tool_reply_removed",
                "reason": "reply to the incomplete tool calls of messages[1]",
            },
        ],
    ),
)

msgs = [user("a"), calls("c1"), reply("c1", "x"), reply("c1", "y"), user("b")]
case(
    "duplicate_reply_removes_calls",
    "Two replies to one call do not match one-to-one: the calls and both replies go.",
    {"messages": msgs},
    ok(
        [msgs[0], {"role": "assistant", "content": NOTE}, msgs[4]],
        repaired=[
            {
                "index": 1,
                "action": "incomplete_tool_calls_removed",
                "reason": 'tool call "c1" is answered twice',
            },
            {
                "index": 2,
                "action": "incomplete_tool_reply_removed",
                "reason": "reply to the incomplete tool calls of messages[1]",
            },
            {
                "index": 3,
                "action": "incomplete_tool_reply_removed",
                "reason": "reply to the incomplete tool calls of messages[1]",
            },
        ],
    ),
)

msgs = [
    {"role": "user", "content": [text("Here is the screen"), image(GIF_1x1, detail="low")]},
    assistant("I see it."),
    {"role": "narrator", "content": "???"},
    {"role": "user", "content": ""},
    {"role": "assistant", "content": None, "tool_calls": []},
    user("thanks"),
]
case(
    "sanitize_keeps_array_user_content",
    "Restore repair keeps array user content; removes unknown roles, empty messages and empty "
    "tool_calls.",
    msgs,
    ok(
        [msgs[0], msgs[1], msgs[5]],
        repaired=[
            {
                "index": 2,
                "action": "unknown_role_removed",
                "reason": 'unknown role "narrator"',
                "path": "messages[2].role",
            },
            {
                "index": 3,
                "action": "empty_message_removed",
                "reason": "message has no content",
                "path": "messages[3].content",
            },
            {
                "index": 4,
                "action": "empty_tool_calls_removed",
                "reason": "tool_calls is an empty array",
                "path": "messages[4].tool_calls",
            },
            {
                "index": 4,
                "action": "empty_message_removed",
                "reason": "message has no content",
                "path": "messages[4].content",
            },
        ],
    ),
    function="sanitize",
)

# --- anchors through a long tool loop ----------------------------------------------------------
goal = user("Goal: rename the project to ankita everywhere, tests included.")
correction = user("Correction: leave CHANGELOG.md untouched.")
request = user("Continue.")
msgs = [sys(), goal, assistant("Starting."), correction, assistant("Noted."), request]
for k in range(30):
    msgs += [calls(f"call_{k:02d}"), reply(f"call_{k:02d}", filler(400, f"grep result {k:02d}"))]
exchange = total(msgs[6:8])
assert all(total(msgs[6 + 2 * k : 8 + 2 * k]) == exchange for k in range(30))
fixed = total([msgs[0], goal, correction, request])
budget = fixed + 5 * exchange + exchange // 2
kept_loop = msgs[-10:]
case(
    "anchors_survive_long_tool_loop",
    "The goal and a later correction stay (anchors) while 30 tool exchanges shrink to the "
    "newest 5.",
    {"messages": msgs, "max_bytes": budget, "max_messages": 100},
    ok(
        [msgs[0], goal, correction, request] + kept_loop,
        dropped_messages=[2, 4] + list(range(6, len(msgs) - 10)),
        truncated=[],
        cost_bytes=fixed + 5 * exchange,
        output_messages=14,
    ),
)

# --- shedding order ----------------------------------------------------------------------------
msgs = [sys(), user("hello"), assistant(filler(3000, "old answer")), user("new question?")]
budget = total([msgs[0], msgs[1], msgs[3]]) + 100
case(
    "shed_groups_before_text",
    "Old groups go whole before any text is shrunk.",
    {"messages": msgs, "max_bytes": budget},
    ok([msgs[0], msgs[1], msgs[3]], dropped_messages=[2], truncated=[]),
)

big, small = filler(6000, "stack frame"), filler(1500, "warning")
msgs = [
    sys(),
    user("Why does the build fail?"),
    calls("c1", "c2"),
    reply("c1", big),
    reply("c2", small),
]
budget = total(msgs) - 3000
out = copy.deepcopy(msgs)
cut_text = big[:1472] + "\n[... 3056 bytes omitted to fit the context budget ...]\n" + big[-1472:]
assert len(cut_text) == 3000
out[3]["content"] = cut_text
case(
    "shed_biggest_text_first",
    "The exchange in progress does not fit: the biggest tool output shrinks (head and tail kept, "
    "marker says how much was cut); the smaller one is untouched.",
    {"messages": msgs, "max_bytes": budget},
    ok(
        out,
        dropped_messages=[],
        truncated=[{"index": 3, "part": None, "from_bytes": 6000, "to_bytes": 3000}],
        dropped_images=[],
        cost_bytes=budget,
    ),
)

old_shot = {"role": "user", "content": [text("Earlier screenshot:"), image(JPEG_500x375)]}
req_shot = {"role": "user", "content": [text("What changed since then?"), image(PNG_1700x2200)]}
msgs = [sys(), old_shot, assistant("Noted."), req_shot]
budget = total([msgs[0], req_shot]) + cost({"role": "user", "content": []}) + 1000
placeholder = "[Image omitted to fit the context budget: JPEG 500×375, ~765 tokens]"
out_old = {"role": "user", "content": [text("Earlier screenshot:"), text(placeholder)]}
assert total([msgs[0], out_old, msgs[2], req_shot]) <= budget
case(
    "shed_images_oldest_first_placeholder",
    "Texts are already small: the older screenshot becomes a placeholder; the request's screenshot "
    "stays. The placeholder frees budget, so the reply between them, which did not fit before "
    "shedding, comes back (refill).",
    {"messages": msgs, "max_bytes": budget},
    ok(
        [msgs[0], out_old, msgs[2], req_shot],
        dropped_messages=[],
        truncated=[],
        refilled=[2],
        limited_by="budget",
        dropped_images=[
            {
                "index": 1,
                "part": 1,
                "format": "jpeg",
                "width": 500,
                "height": 375,
                "tokens": 765,
                "budget_bytes": 3060,
            }
        ],
    ),
)
case(
    "shed_images_drop_mode",
    "on_image_overflow=drop removes the image part instead.",
    {"messages": msgs, "max_bytes": budget, "on_image_overflow": "drop"},
    ok(
        [msgs[0], {"role": "user", "content": [text("Earlier screenshot:")]}, msgs[2], req_shot],
        dropped_messages=[],
        refilled=[2],
        dropped_images=[
            {
                "index": 1,
                "part": 1,
                "format": "jpeg",
                "width": 500,
                "height": 375,
                "tokens": 765,
                "budget_bytes": 3060,
            }
        ],
    ),
)
case(
    "shed_images_error_mode",
    "on_image_overflow=error fails instead of dropping an image.",
    {"messages": msgs, "max_bytes": budget, "on_image_overflow": "error"},
    err(
        "image_overflow",
        path="messages[1].content[1]",
        message="Image messages[1].content[1] (JPEG 500×375, ~765 tokens) does not fit the context "
        'budget and on_image_overflow is "error".',
    ),
)

body = "Attached file: notes.txt\n" + filler(3000, "note")
req = {
    "role": "user",
    "content": [text("Summarise the notes and the screen."), text(body), image(PNG_1700x2200)],
}
msgs = [sys(), req]
base = total([sys(), {"role": "user", "content": [text("Summarise the notes and the screen.")]}])
img_ph = "[Image omitted to fit the context budget: PNG 1700×2200, ~765 tokens]"
stub = f"Attached file: notes.txt\n[File body omitted to fit the context budget: {len(body)} bytes]"
shrunk_body = shrink(body, 128)
assert len(shrunk_body) == 128 and base + 128 + len(img_ph) <= base + 600
regrown = shrink(body, 600 - len(img_ph.encode()))
case(
    "shed_attachments_shrink_with_texts",
    "An attachment shrinks with the other texts first (head and tail, down to the 128-byte floor "
    "when nothing less will do), then images go; its body is not dropped when that is enough, and "
    "the room the image's placeholder leaves goes back to the cut text (regrow).",
    {"messages": msgs, "max_bytes": base + 600},
    ok(
        [
            sys(),
            {
                "role": "user",
                "content": [
                    text("Summarise the notes and the screen."),
                    text(regrown),
                    text(img_ph),
                ],
            },
        ],
        dropped_images=[
            {
                "index": 1,
                "part": 2,
                "format": "png",
                "width": 1700,
                "height": 2200,
                "tokens": 765,
                "budget_bytes": 3060,
            }
        ],
        truncated=[{"index": 1, "part": 1, "from_bytes": len(body), "to_bytes": len(regrown)}],
        dropped_attachments=[],
        cost_bytes=base + 600,
    ),
)
budget = base + len(stub) + len(img_ph) + 10
assert base + 128 + len(img_ph) > budget
case(
    "shed_attachments_last_resort",
    "Texts shrunk and images gone are not enough: the attachment body is the last resort (its "
    "first line stays, with a note of the size); reported as dropped at its whole size, not as "
    "the shrink that came first.",
    {"messages": msgs, "max_bytes": budget},
    ok(
        [
            sys(),
            {
                "role": "user",
                "content": [text("Summarise the notes and the screen."), text(stub), text(img_ph)],
            },
        ],
        dropped_images=[
            {
                "index": 1,
                "part": 2,
                "format": "png",
                "width": 1700,
                "height": 2200,
                "tokens": 765,
                "budget_bytes": 3060,
            }
        ],
        dropped_attachments=[{"index": 1, "part": 1, "bytes": len(body)}],
        truncated=[],
    ),
)

# Issue 15, defect 4: the request's attachment shrinks (head and tail) to what the budget leaves.
log = "Attached file: request.log\n" + filler(5000, "GET /api/v1/items 200 12ms")
msgs = [{"role": "user", "content": [text("Why are some requests slow?"), text(log)]}]
others = cost({"role": "user", "content": [text("Why are some requests slow?")]})
to = 1000 - others
case(
    "attachment_shrinks_before_its_body_goes",
    "With a 1,000-byte budget the request's attachment keeps its head and tail (all the budget "
    "leaves it) instead of being cut to its first line at once.",
    {"messages": msgs, "max_bytes": 1000},
    ok(
        [{"role": "user", "content": [text("Why are some requests slow?"), text(shrink(log, to))]}],
        truncated=[{"index": 0, "part": 1, "from_bytes": len(log), "to_bytes": to}],
        dropped_attachments=[],
        cost_bytes=1000,
        limited_by="budget",
    ),
)
assert len(shrink(log, to).encode()) == to

# Issue 15, defect 3: non-ASCII text shrunk at the floor ends at or above 128 bytes.
reply_text = "Größe: 世界の状態 " * 120
msgs = [sys(), user("Was steht im Log?"), calls("c1"), reply("c1", reply_text)]
others = total(msgs) - len(reply_text.encode())
for target in range(128, 140):
    naive = naive_shrink(reply_text, target)
    floored = shrink(reply_text, target)
    if len(naive.encode()) < 128 and len(floored.encode()) <= target:
        break
else:
    raise AssertionError("no target shows the floor")
case(
    "shrunk_text_never_ends_below_the_floor",
    f"A non-ASCII tool output shrunk to {target} bytes: cutting at character boundaries would "
    f"leave {len(naive.encode())} bytes, below the 128-byte floor; the tail takes a whole "
    f"character back so it ends at {len(floored.encode())}.",
    {"messages": msgs, "max_bytes": others + target},
    ok(
        [msgs[0], msgs[1], msgs[2], {**msgs[3], "content": floored}],
        truncated=[
            {
                "index": 3,
                "part": None,
                "from_bytes": len(reply_text.encode()),
                "to_bytes": len(floored.encode()),
            }
        ],
    ),
)

# --- loud failures -------------------------------------------------------------------------------
msgs = [sys(filler(2000, "policy")), user(filler(2000, "question"))]
case(
    "context_budget_exceeded",
    "The pinned system message and the request alone exceed the budget: a loud failure with a "
    "breakdown.",
    {"messages": msgs, "max_bytes": 1000},
    err(
        "context_budget_exceeded",
        message="The current request/tool schema exceeds the model context budget.",
        breakdown={
            "max_bytes": 1000,
            "history_bytes": 1000,
            "system_bytes": cost(msgs[0]),
            "request_bytes": cost(msgs[1]),
            "required_bytes": total(msgs),
        },
    ),
)
tools = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": filler(2000, "describe"),
            "parameters": {"type": "object"},
        },
    }
]
history_bytes = 1000 * 4 - 200 * 4 - 1024 - len(compact(tools))
assert history_bytes < 512
case(
    "history_budget_too_small",
    "Output reserve, overhead and tool schemas leave less than 512 bytes for the history (in "
    'bytes: tokenizer "bytes" asks for the byte rule).',
    {
        "messages": [user("hi")],
        "context_tokens": 1000,
        "max_output_tokens": 200,
        "tools": tools,
        "tokenizer": "bytes",
    },
    err(
        "history_budget_too_small",
        message=f"The history budget is {history_bytes} bytes after reserving the output, "
        "overhead, tool schemas and memory; at least 512 bytes are needed.",
        breakdown={
            "context_bytes": 4000,
            "output_reserve_bytes": 800,
            "overhead_bytes": 1024,
            "tools_bytes": len(compact(tools)),
            "memory_bytes": 0,
            "history_bytes": history_bytes,
        },
    ),
)

msgs = [user("agent budget")]
case(
    "agent_side_budget",
    "context_tokens − output reserve − overhead − tools − memory gives the history budget (in "
    'bytes: tokenizer "bytes" asks for the byte rule).',
    {
        "messages": msgs,
        "context_tokens": 2000,
        "max_output_tokens": 500,
        "overhead_bytes": 100,
        "tools": [{"type": "function"}],
        "memory": ["likes tea", "lives in Oslo"],
        "tokenizer": "bytes",
    },
    ok(
        msgs,
        budget_bytes=2000 * 4 - 500 * 4 - 100 - 21 - len("likes tea") - len("lives in Oslo"),
        budget_tokens=math.ceil((6000 - 100 - 21 - 9 - 13) / 4),
    ),
)

write_cases()

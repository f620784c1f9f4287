#!/usr/bin/env python3
"""Writes the shared JSON cases (request + expected response) that drive the Rust, C, Python
and Node tests. Expectations are written here by hand from DESIGN.md, with byte costs computed
by the small independent cost model below (DESIGN §2), never by the library itself.

Run: python3 tests/cases/generate.py   (rewrites tests/cases/*.json)
"""

import base64
import copy
import json
import math
import pathlib
import struct
import zlib
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "images"
NOTE = "[Incomplete tool calls removed from restored session.]"
# A JSON object: a message, a part, a request or an expectation.
Obj = dict[str, Any]
CASES: list[Obj] = []


def data_url(path: str, media: str = "image/png") -> str:
    return f"data:{media};base64," + base64.b64encode((FIXTURES / path).read_bytes()).decode()


PNG_1700x2200 = data_url("png/rgb_1700x2200.png")  # 765 tokens = 3060 bytes
JPEG_500x375 = data_url("jpeg/baseline_500x375.jpg", "image/jpeg")  # 765 tokens
GIF_1x1 = data_url("gif/pixel_1x1.gif", "image/gif")
BMP = data_url("invalid/bmp_40x30.bmp", "image/bmp")  # undecodable: costs its length


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def ankita_tokens(w: float, h: float) -> int:
    """DESIGN §3, written out again independently."""
    w, h = float(w), float(h)
    fit = 2048 / max(w, h)
    if fit < 1:
        w, h = max(1.0, math.floor(w * fit)), max(1.0, math.floor(h * fit))
    d = 768 / min(w, h)
    if d != 1:
        w, h = max(1.0, math.floor(w * d)), max(1.0, math.floor(h * d))
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def claude_tokens(w: int, h: int, edge: int = 1568, budget: int = 1568) -> int:
    """Claude's standard tier (IMAGE_TOKENS.md): ceil(w/28)·ceil(h/28) after the largest
    aspect-preserving resize whose 28-px-rounded sides fit `edge` and whose tokens fit `budget`."""

    def tokens(w: int, h: int) -> int:
        return math.ceil(w / 28) * math.ceil(h / 28)

    def fits(w: int, h: int) -> bool:
        return (
            math.ceil(w / 28) * 28 <= edge
            and math.ceil(h / 28) * 28 <= edge
            and tokens(w, h) <= budget
        )

    if fits(w, h):
        return tokens(w, h)
    long, aspect = max(w, h), max(w, h) / min(w, h)

    def size(side: int) -> tuple[int, int]:
        short = max(round(side / aspect), 1)
        return (side, short) if w >= h else (short, side)

    lo, hi = 1, long
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(*size(mid)) else (lo, mid - 1)
    return tokens(*size(lo))


assert [claude_tokens(200, 200), claude_tokens(1000, 1000), claude_tokens(1092, 1092)] == [
    64,
    1296,
    1521,
]

IMAGE_BYTES = {
    PNG_1700x2200: 4 * ankita_tokens(1700, 2200),
    JPEG_500x375: 4 * ankita_tokens(500, 375),
    "https://example.com/screens/settings.png": 4 * 1445,
    GIF_1x1: 4 * ankita_tokens(1, 1),
    BMP: len(BMP),
}


def part_cost(part: Obj) -> int:
    if part["type"] == "text":
        return len(part["text"].encode())
    if part["type"] == "image_url":
        return IMAGE_BYTES[part["image_url"]["url"]]
    return len(compact(part).encode())


def cost(message: Obj) -> int:
    meta = {k: v for k, v in message.items() if k != "content"}
    content = message.get("content")
    if isinstance(content, str):
        body = len(content.encode())
    elif isinstance(content, list):
        body = sum(part_cost(p) for p in content)
    else:
        body = 0
    return len(compact(meta).encode()) + body


def cost_of_text(message: Obj) -> int:
    """What a message's text content costs (its UTF-8 length)."""
    return len(message["content"].encode())


def total(messages: list[Obj]) -> int:
    return sum(cost(m) for m in messages)


def case(name: str, description: str, request: Any, expect: Obj, function: str = "trim") -> None:
    CASES.append(
        {
            "name": name,
            "description": description,
            "function": function,
            "request": request,
            "expect": expect,
        }
    )


SYSTEM_PROMPT = (
    "You are a desktop companion that helps with the user's screen, files and tools. "
    "Answer briefly, cite the screenshot or file you rely on, and ask before running a "
    "command that changes anything. When a tool fails, say so plainly and propose the "
    "next step. Never invent the content of an image you were not shown; if an image "
    "was omitted to fit the context, say that you cannot see it."
)


def sys(text: str = SYSTEM_PROMPT) -> Obj:
    return {"role": "system", "content": text}


def user(text: Any) -> Obj:
    return {"role": "user", "content": text}


def assistant(text: Any) -> Obj:
    return {"role": "assistant", "content": text}


def image(url: str, **extra: Any) -> Obj:
    return {"type": "image_url", "image_url": {"url": url, **extra}}


def text(t: str, **extra: Any) -> Obj:
    return {"type": "text", "text": t, **extra}


def call(cid: str, name: str = "read_file", args: str = '{"path": "src/main.rs"}') -> Obj:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


def calls(*ids: str, content: Any = None) -> Obj:
    return {"role": "assistant", "content": content, "tool_calls": [call(i) for i in ids]}


def reply(cid: str, body: Any) -> Obj:
    return {"role": "tool", "tool_call_id": cid, "content": body}


def filler(n: int, seed: str = "log line") -> str:
    s = (seed + " ") * (n // (len(seed) + 1) + 1)
    return s[:n]


def marker_text(cut: int) -> str:
    return f"\n[... {cut} bytes omitted to fit the context budget ...]\n"


def shrink(text: str, target: int, floor: int = 128) -> str:
    """Head and tail of `text`'s UTF-8 bytes around the marker, at most `target` bytes, never
    splitting a character; never below `floor` bytes (the tail takes whole characters back)."""
    b = text.encode()
    n = len(b)
    if n <= target:
        return text
    floor = floor if target >= 128 else 0

    def down(i: int) -> int:
        while 0 < i < n and b[i] & 0xC0 == 0x80:
            i -= 1
        return i

    def up(i: int) -> int:
        while i < n and b[i] & 0xC0 == 0x80:
            i += 1
        return i

    keep = max(0, target - len(marker_text(n - target)))
    while True:
        head, tail = down(keep // 2), up(n - (keep - keep // 2))
        size = head + len(marker_text(tail - head)) + n - tail
        snapped = size < floor
        while size < floor and tail > head:
            tail = down(tail - 1)
            size = head + len(marker_text(tail - head)) + n - tail
        if size <= target or snapped or keep == 0:
            return (b[:head] + marker_text(tail - head).encode() + b[tail:]).decode()
        keep = max(0, keep - (size - target))


def naive_shrink(text: str, target: int) -> str:
    return shrink(text, target, floor=0)


def ok(messages: Any, **report: Any) -> Obj:
    return {"ok": True, "messages": messages, "report": report}


def err(code: str, **error: Any) -> Obj:
    return {"ok": False, "error": {"code": code, **error}}


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

# --- count limit, roles, pass-through -------------------------------------------------------------
msgs = [
    user("u0"),
    assistant("a1"),
    user("u2"),
    assistant("a3"),
    user("u4"),
    assistant("a5"),
    user("u6"),
    assistant("a7"),
    user("u8"),
]
case(
    "max_messages",
    "max_messages=4: the request and two anchors are kept, then groups newest first while they "
    "fit.",
    {"messages": msgs, "max_messages": 4},
    ok(
        [msgs[4], msgs[6], msgs[7], msgs[8]],
        dropped_messages=[0, 1, 2, 3, 5],
        budget_bytes=None,
        output_messages=4,
        limited_by="max_messages",
    ),
)

msgs = [user(f"u{k}") if k % 2 == 0 else assistant(f"a{k}") for k in range(50)]
case(
    "max_messages_null_means_no_limit",
    "max_messages: null (Python None) means no count limit: all 50 messages stay, and nothing "
    "limited the answer.",
    {"messages": msgs, "max_messages": None},
    ok(msgs, dropped_messages=[], limited_by=None, output_messages=50),
)
case(
    "max_messages_default_limits_to_40",
    "Without max_messages the default of 40 applies, and the report says it bound the answer.",
    {"messages": msgs},
    ok(msgs[10:], dropped_messages=list(range(10)), limited_by="max_messages", output_messages=40),
)

# Issue 15, refill: an image in the request that does not fit is replaced by its placeholder;
# the budget it frees brings back the older messages selection left out before shedding.
history = [user(f"Step {k}.") if k % 2 == 0 else assistant(f"Done {k}.") for k in range(61)]
req = {"role": "user", "content": [text("And this screenshot?"), image(PNG_1700x2200)]}
after = {"role": "user", "content": [text("And this screenshot?"), text(img_ph)]}
msgs = history + [req]
budget = total(history + [after]) + 50
assert cost(req) > budget and total(history + [after]) <= budget
case(
    "refill_after_shedding_brings_back_what_fits",
    "The request's screenshot does not fit, so selection keeps only the request and its anchors; "
    "the screenshot becomes a placeholder, and the budget it frees brings back every older "
    "message that now fits, newest first (62 of 62, max_messages null).",
    {"messages": msgs, "max_bytes": budget, "max_messages": None},
    ok(
        history + [after],
        dropped_messages=[],
        refilled=[k for k in range(61) if k not in (58, 60)],
        limited_by="budget",
        output_messages=62,
        dropped_images=[
            {
                "index": 61,
                "part": 1,
                "format": "png",
                "width": 1700,
                "height": 2200,
                "tokens": 765,
                "budget_bytes": 3060,
            }
        ],
    ),
)

# Issue 15, implausible images: a PNG header claiming 2³²−1 × 1 pixels in a 66-byte data URL
# would cost ~1M tokens by its header; it is priced as the profile's largest typical image.
ihdr = struct.pack(">IIBBBBB", 2**32 - 1, 1, 8, 6, 0, 0, 0)
STRIP = (
    "data:image/png;base64,"
    + base64.b64encode(
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", 13)
        + b"IHDR"
        + ihdr
        + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    ).decode()
)
IMAGE_BYTES[STRIP] = 4 * 1445  # the ankita profile's largest typical image (1080 × 2400)
req = {"role": "user", "content": [text("And this one?"), image(STRIP)]}
msgs = history + [req]
case(
    "implausible_image_priced_as_a_real_image",
    "A PNG header claiming 4294967295×1 pixels in a 66-byte data URL cannot be a real image: "
    "it is priced as the profile's largest typical image (1,445 tokens, not ~1M), reported in "
    "warnings with its path, and all 62 messages fit.",
    {"messages": msgs, "max_bytes": total(msgs) + 100, "max_messages": None},
    ok(
        msgs,
        dropped_messages=[],
        dropped_images=[],
        limited_by=None,
        cost_bytes=total(msgs),
        warnings=[
            {
                "code": "implausible_image",
                "index": 61,
                "part": 1,
                "path": "messages[61].content[1]",
                "message": "PNG header states 4294967295×1 pixels, more than any real image of its "
                "payload's size or any provider's limit; priced as the profile's largest "
                "typical image, 1445 tokens",
            }
        ],
    ),
)

seq = 123456789012345678901234567890
msgs = [
    {"role": "user", "content": "ls", "seq": seq, "trace": {"id": -seq, "ok": True}},
    {"role": "assistant", "content": "a.txt", "seq": seq + 1},
    user("thanks"),
]
case(
    "integers_beyond_64_bits_pass_through",
    "Integers beyond 64 bits in unknown fields pass through unchanged in every front end.",
    {"messages": msgs, "max_bytes": 10_000},
    ok(msgs, dropped_messages=[]),
)

dev = {"role": "developer", "content": filler(1200, "rule")}
msgs = [dev, user("first"), assistant(filler(800, "answer")), user("second")]
case(
    "developer_role_pinned",
    "A leading developer message is pinned like a system message: kept and never shrunk.",
    {"messages": msgs, "max_bytes": total([dev, msgs[1], msgs[3]]) + 50},
    ok([dev, msgs[1], msgs[3]], dropped_messages=[2], truncated=[]),
)

keep = {
    "role": "user",
    "name": "ana",
    "x_client_id": 17,
    "content": [text("see", cache_control={"type": "ephemeral"}), image(GIF_1x1, detail="high")],
}
tool_turn = {
    "role": "assistant",
    "content": None,
    "refusal": None,
    "x_trace": {"span": "a1"},
    "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}, "x": 1}
    ],
}
big_reply: Obj = {
    "role": "tool",
    "tool_call_id": "c1",
    "name": "f",
    "content": [text(filler(2000, "row"), cache_control={"type": "ephemeral"})],
}
msgs = [keep, tool_turn, big_reply]
budget = total(msgs) - 1000
shrunk = copy.deepcopy(big_reply)
s = filler(2000, "row")
shrunk["content"][0]["text"] = (
    s[:472] + "\n[... 1056 bytes omitted to fit the context budget ...]\n" + s[-472:]
)
assert len(shrunk["content"][0]["text"]) == 1000
case(
    "unknown_fields_preserved",
    "Fields the library does not know pass through unchanged, also on a part whose text was "
    "shrunk.",
    {"messages": msgs, "max_bytes": budget},
    ok(
        [keep, tool_turn, shrunk],
        truncated=[{"index": 2, "part": 0, "from_bytes": 2000, "to_bytes": 1000}],
    ),
)

msgs = [{"role": "user", "content": [text("what is this?"), image(BMP)]}]
case(
    "undecodable_image_costs_its_length",
    "A BMP cannot be read: it costs its data URL's length, never a free pass.",
    {"messages": msgs, "max_bytes": 100_000},
    ok(msgs, cost_bytes=cost(msgs[0]), budget_bytes=100_000),
)
assert cost(msgs[0]) > len(BMP)

# --- pricing profiles and remote images ---------------------------------------------------------
shot_turn = {"role": "user", "content": [text("Old screen:"), image(JPEG_500x375)]}
msgs = [sys(), shot_turn, assistant("Seen."), user("And now?")]
budget = total([sys(), user("And now?")]) + cost(shot_turn) + 2000
case(
    "model_selects_pricing",
    "model=gpt-4o-mini bills a 500×375 image at 2833 + 5667 = 8500 tokens (OpenAI tile table; one "
    "512-px tile, the image never enlarged): far over the budget that the default profile's 765 "
    "tokens fit; the screenshot's turn comes back by fill with the image as a placeholder that "
    "says its price.",
    {"messages": msgs, "max_bytes": budget, "model": "gpt-4o-mini"},
    ok(
        [
            sys(),
            {
                "role": "user",
                "content": [
                    text("Old screen:"),
                    text("[Image omitted to fit the context budget: JPEG 500×375, ~8500 tokens]"),
                ],
            },
            assistant("Seen."),
            user("And now?"),
        ],
        dropped_messages=[],
        refilled=[1],
        dropped_images=[
            {
                "index": 1,
                "part": 1,
                "format": "jpeg",
                "width": 500,
                "height": 375,
                "tokens": 8500,
                "budget_bytes": 4 * 8500,
            }
        ],
    ),
)
case(
    "default_profile_keeps_same_image",
    "The same session under the default profile keeps the screenshot.",
    {"messages": msgs, "max_bytes": budget},
    ok(msgs, dropped_messages=[]),
)
REMOTE = "https://example.com/screens/settings.png"
msgs = [{"role": "user", "content": [text("See this"), image(REMOTE)]}]
case(
    "remote_image_priced_as_typical",
    "A remote image has no header to read: it is priced at the profile's worst case for a typical "
    "image (1445 tokens under ankita), never at its URL's length.",
    {"messages": msgs, "max_bytes": 100_000},
    ok(msgs, cost_bytes=len(compact({"role": "user"})) + len("See this") + 4 * 1445),
)
case(
    "remote_image_size_given",
    "image_sizes gives a remote image's size: 512×512 is 765 tokens.",
    {"messages": msgs, "max_bytes": 100_000, "image_sizes": {REMOTE: [512, 512]}},
    ok(msgs, cost_bytes=len(compact({"role": "user"})) + len("See this") + 4 * 765),
)
case(
    "profile_and_model_conflict",
    "image_profile and model together are ambiguous.",
    {"messages": msgs, "image_profile": "openai", "model": "gpt-4o"},
    err("invalid_request", path="model", message="give image_profile or model, not both"),
)


# --- model names never raise -----------------------------------------------------------------
def unknown_model(model: str, profile: str, text: str = "text counted in bytes") -> Obj:
    """The report warning of a model no family claims (README "Model names")."""
    return {
        "code": "unknown_model",
        "index": None,
        "part": None,
        "path": "model",
        "message": f"no model family claims {json.dumps(model)}; assumed: images priced by the "
        f'"{profile}" rule (the default), {text}; strict_model: true makes an '
        f"unknown model an error",
    }


msgs = [
    sys(),
    {"role": "user", "content": [text("Old screen:"), image(JPEG_500x375)]},
    assistant("Seen."),
    user("And now?"),
]
case(
    "unknown_model_answers_with_a_warning",
    "A model no family claims is priced by the default recipe (the screenshot at 765 tokens) and "
    "the report says what was assumed.",
    {"messages": msgs, "max_bytes": 100_000, "model": "azure/house-deployment-7"},
    ok(
        msgs,
        cost_bytes=total(msgs),
        dropped_messages=[],
        warnings=[unknown_model("azure/house-deployment-7", "ankita")],
    ),
)
case(
    "unknown_model_strict_is_an_error",
    "strict_model: true makes a model no family claims an invalid_request at model.",
    {
        "messages": msgs,
        "max_bytes": 100_000,
        "model": "azure/house-deployment-7",
        "strict_model": True,
    },
    err("invalid_request", path="model"),
)
for name in [
    "gpt-4",
    "gpt-3.5-turbo",
    "ollama/llama3.1:8b",
    "bedrock/mistral.mistral-large-2402-v1:0",
    "deepseek-chat",
]:
    case(
        "text_model_answers_" + "".join(c if c.isalnum() else "_" for c in name),
        f"{name} has no image rule but its family is known: the default recipe prices the "
        "screenshot, without a warning.",
        {"messages": msgs, "max_bytes": 100_000, "model": name},
        ok(msgs, cost_bytes=total(msgs), dropped_messages=[], warnings=[]),
    )


# --- windows from the model (src/windows.rs) ------------------------------------------------------
def no_context_window(model: str) -> Obj:
    return {
        "code": "no_context_window",
        "index": None,
        "part": None,
        "path": "model",
        "message": f"no context window is known for model {json.dumps(model)} (open-weight "
        "models run with their host's or runtime's window); only max_messages limits the "
        "history: give context_tokens or max_bytes",
    }


chat = [
    sys(),
    user("What changed in the release notes?"),
    assistant("Two fixes."),
    user("Which ones?"),
]
case(
    "model_gives_the_window",
    "With model and neither context_tokens nor max_bytes, the window and the output reserve come "
    "from the model's table (gpt-4o: 128,000 and 16,384): 128,000 − 16,384 − 256 = 111,360 tokens.",
    {"messages": chat, "model": "openai/gpt-4o-2024-08-06"},
    ok(chat, unit="tokens", tokenizer="o200k_base", budget_tokens=111_360, warnings=[]),
)
case(
    "model_window_keeps_the_callers_output_reserve",
    "max_output_tokens given replaces the table's reserve: 128,000 − 1,000 − 256 = 126,744.",
    {"messages": chat, "model": "gpt-4o", "max_output_tokens": 1000},
    ok(chat, unit="tokens", budget_tokens=126_744, warnings=[]),
)
case(
    "model_without_a_window_says_so",
    "An open-weight model has no window entry (its host or runtime sets it): only max_messages "
    "applies, and a no_context_window warning says so.",
    {"messages": chat, "model": "ollama/llama3.1:8b"},
    ok(chat, unit="tokens", budget_tokens=None, warnings=[no_context_window("ollama/llama3.1:8b")]),
)

MISSING_TOKENIZER = "/no/such/model-dir"
case(
    "tokenizer_file_missing_names_the_path",
    "tokenizer {file: PATH} reads a Hugging Face tokenizer.json (or the folder holding it); a path "
    "that is not there is an invalid_request naming it.",
    {"messages": chat, "context_tokens": 8192, "tokenizer": {"file": MISSING_TOKENIZER}},
    err(
        "invalid_request",
        path="tokenizer.file",
        message=f"tokenizer file {json.dumps(MISSING_TOKENIZER)}: no such file or folder",
    ),
)


# --- Anthropic Messages format ----------------------------------------------------------------
def a_text(t: str) -> Obj:
    return {"type": "text", "text": t}


def a_use(uid: str, name: str = "read_file") -> Obj:
    return {"type": "tool_use", "id": uid, "name": name, "input": {"path": "src/main.rs"}}


def a_result(uid: str, content: Any) -> Obj:
    return {"type": "tool_result", "tool_use_id": uid, "content": content}


PNG_B64 = PNG_1700x2200.split(",", 1)[1]
msgs = [
    {"role": "user", "content": "Check both config files."},
    {"role": "assistant", "content": [a_text("Reading them."), a_use("tu_a"), a_use("tu_b")]},
    {
        "role": "user",
        "content": [
            a_result("tu_b", filler(3000, "beta")),
            a_result("tu_a", filler(3000, "alpha")),
        ],
    },
    {"role": "assistant", "content": "Both parse."},
    {"role": "user", "content": "Thanks. What next?"},
]
case(
    "anthropic_tool_exchange_dropped_whole",
    "Anthropic: a tool_use and its tool_result (in the next user message, out of order) are one "
    "exchange, dropped together (fill: false: whole groups only); roles still alternate and the "
    "report says the format.",
    {
        "format": "anthropic",
        "system": SYSTEM_PROMPT,
        "messages": msgs,
        "max_bytes": 2000,
        "fill": False,
    },
    ok(
        [msgs[0], msgs[3], msgs[4]],
        format="anthropic",
        dropped_messages=[1, 2],
        merged=[],
        repaired=[],
    ),
)
case(
    "anthropic_tool_exchange_kept",
    "Anthropic: with room, the exchange is kept unchanged and the system is echoed.",
    {"format": "anthropic", "system": SYSTEM_PROMPT, "messages": msgs, "max_bytes": 20_000},
    {
        "ok": True,
        "system": SYSTEM_PROMPT,
        "messages": msgs,
        "report": {"format": "anthropic", "dropped_messages": [], "merged": []},
    },
)

big = filler(6000, "stack frame")
msgs = [
    {"role": "user", "content": "Why does the build fail?"},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Look at the log.", "signature": "c2ln"},
            a_use("tu_1", "run"),
        ],
    },
    {"role": "user", "content": [a_result("tu_1", big)]},
]
# Anthropic messages are priced as their OpenAI-shaped equivalents (README, "Anthropic format"):
# tool_use blocks as tool_calls with the input as a JSON string, each tool_result as a tool message.
logical_assistant = {
    "role": "assistant",
    "content": [msgs[1]["content"][0]],
    "tool_calls": [
        {
            "id": "tu_1",
            "type": "function",
            "function": {"name": "run", "arguments": compact({"path": "src/main.rs"})},
        }
    ],
}
others = (
    cost(msgs[0]) + cost(logical_assistant) + len(compact({"role": "tool", "tool_call_id": "tu_1"}))
)
to_bytes = 3400 - others
marker = "\n[... {} bytes omitted to fit the context budget ...]\n"
kept = to_bytes - len(marker.format(6000 - to_bytes))
out = copy.deepcopy(msgs)
out[2]["content"][0]["content"] = (
    big[: kept // 2] + marker.format(6000 - kept) + big[6000 - (kept - kept // 2) :]
)
assert len(out[2]["content"][0]["content"]) == to_bytes
case(
    "anthropic_tool_result_shrunk_request_is_not_tool_results",
    "Anthropic: the newest user message that is only tool results is not the request; the request "
    "is the question before it, and the exchange in progress is kept with its result shrunk. "
    "The thinking block is untouched.",
    {"format": "anthropic", "messages": msgs, "max_bytes": 3400},
    ok(
        out,
        truncated=[{"index": 2, "part": 0, "from_bytes": 6000, "to_bytes": to_bytes}],
        dropped_messages=[],
        cost_bytes=3400,
    ),
)

msgs = [
    {"role": "user", "content": "What does the tool's screenshot show?"},
    {"role": "assistant", "content": [a_use("tu_s", "screenshot")]},
    {
        "role": "user",
        "content": [
            a_result(
                "tu_s",
                [
                    a_text("captured"),
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
                    },
                ],
            )
        ],
    },
]
case(
    "anthropic_image_in_tool_result_priced_by_pixels",
    "Anthropic: an image inside a tool_result is priced by its pixels (Claude's rule, the "
    f"format's default: {claude_tokens(1700, 2200)} tokens), so it fits a budget its base64 "
    "alone would exceed.",
    {"format": "anthropic", "messages": msgs, "max_bytes": 8000},
    ok(msgs, dropped_messages=[], dropped_images=[]),
)
assert len(PNG_B64) > 8000

msgs = [
    {
        "role": "user",
        "content": [
            a_text("What does this error dialog say?"),
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
            },
        ],
    }
]
claude = claude_tokens(1700, 2200)
case(
    "anthropic_default_pricing_is_claude",
    f"Anthropic: without image_profile or model, images are priced by Claude's rule ({claude} "
    "tokens for 1700×2200, not the 765 of the default recipe): over a 4,000-byte budget the "
    "screenshot gives way to a placeholder that says so.",
    {"format": "anthropic", "messages": msgs, "max_bytes": 4000},
    ok(
        [
            {
                "role": "user",
                "content": [
                    a_text("What does this error dialog say?"),
                    a_text(
                        f"[Image omitted to fit the context budget: PNG 1700×2200, ~{claude} "
                        "tokens]"
                    ),
                ],
            }
        ],
        dropped_images=[
            {
                "index": 0,
                "part": 1,
                "format": "png",
                "width": 1700,
                "height": 2200,
                "tokens": claude,
                "budget_bytes": 4 * claude,
            }
        ],
    ),
)
case(
    "anthropic_pricing_follows_image_profile",
    "Anthropic: image_profile overrides the format's default pricing: under the default recipe "
    "the same screenshot costs 765 tokens and fits.",
    {"format": "anthropic", "messages": msgs, "max_bytes": 4000, "image_profile": "ankita"},
    ok(msgs, dropped_images=[], cost_bytes=15 + len("What does this error dialog say?") + 4 * 765),
)
case(
    "anthropic_model_gives_the_window",
    "Anthropic: claude-sonnet-4-5 (a Bedrock id) has a 200,000 window and 64,000 output, reserved "
    "up to a quarter of the window: 200,000 − 50,000 − 256 = 149,744 tokens.",
    {
        "format": "anthropic",
        "messages": msgs,
        "model": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    },
    ok(msgs, unit="tokens", budget_tokens=149_744, warnings=[]),
)
case(
    "anthropic_model_without_a_window_says_so",
    "Anthropic: a model without a window entry keeps only max_messages, and says so.",
    {"format": "anthropic", "messages": msgs, "model": "qwen3-32b"},
    ok(msgs, budget_tokens=None, warnings=[no_context_window("qwen3-32b")]),
)
case(
    "anthropic_tokenizer_file_missing_names_the_path",
    "Anthropic: a tokenizer file that is not there is an invalid_request naming it.",
    {
        "format": "anthropic",
        "messages": msgs,
        "context_tokens": 8192,
        "tokenizer": {"file": MISSING_TOKENIZER},
    },
    err(
        "invalid_request",
        path="tokenizer.file",
        message=f"tokenizer file {json.dumps(MISSING_TOKENIZER)}: no such file or folder",
    ),
)
case(
    "anthropic_unknown_model_answers_with_a_warning",
    f"Anthropic: a model no family claims is priced by the format's default, Claude's rule "
    f"({claude} tokens), and the report says what was assumed.",
    {"format": "anthropic", "messages": msgs, "max_bytes": 100_000, "model": "house-model"},
    ok(
        msgs,
        dropped_images=[],
        cost_bytes=15 + len("What does this error dialog say?") + 4 * claude,
        warnings=[unknown_model("house-model", "anthropic")],
    ),
)
case(
    "anthropic_unknown_model_strict_is_an_error",
    "Anthropic: strict_model: true makes a model no family claims an invalid_request at model.",
    {
        "format": "anthropic",
        "messages": msgs,
        "max_bytes": 100_000,
        "model": "house-model",
        "strict_model": True,
    },
    err("invalid_request", path="model"),
)
case(
    "anthropic_bedrock_model_is_claude",
    "Anthropic: a Bedrock id (region, vendor, version) reads as its Claude model: priced by "
    f"Claude's rule ({claude} tokens), no warning.",
    {
        "format": "anthropic",
        "messages": msgs,
        "max_bytes": 100_000,
        "model": "bedrock/us.anthropic.claude-3-5-sonnet-20240620-v1:0",
    },
    ok(
        msgs,
        dropped_images=[],
        cost_bytes=15 + len("What does this error dialog say?") + 4 * claude,
        warnings=[],
    ),
)

msgs = [
    {"role": "user", "content": "start"},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "plan", "signature": "c2ln"},
            a_text("Running two tools."),
            a_use("tu_1"),
            a_use("tu_2"),
        ],
    },
    {"role": "user", "content": [a_result("tu_1", "ok"), a_result("tu_9", "stray")]},
    {"role": "assistant", "content": "Done."},
    {"role": "user", "content": [a_result("tu_7", "orphan"), a_text("and now?")]},
]
case(
    "anthropic_repair",
    "Anthropic repair: tool_use blocks without their results lose them (with the visible note; the "
    "thinking block stays as it was), their results go, and an orphan tool_result is removed while "
    "the user's words in the same message stay. The two assistant messages left side by side "
    "merge.",
    {"format": "anthropic", "messages": msgs},
    ok(
        [
            msgs[0],
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "plan", "signature": "c2ln"},
                    a_text("Running two tools."),
                    a_text(NOTE),
                    a_text("Done."),
                ],
            },
            {"role": "user", "content": [a_text("and now?")]},
        ],
        merged=[{"index": 3, "into": 1}],
        repaired=[
            {
                "index": 1,
                "action": "incomplete_tool_use_removed",
                "reason": 'a tool reply answers unknown tool_use "tu_9"',
            },
            {
                "index": 2,
                "action": "incomplete_tool_result_removed",
                "reason": "result of the incomplete tool_use blocks of messages[1]",
                "path": "messages[2].content[0]",
            },
            {
                "index": 2,
                "action": "incomplete_tool_result_removed",
                "reason": "result of the incomplete tool_use blocks of messages[1]",
                "path": "messages[2].content[1]",
            },
            {
                "index": 4,
                "action": "orphan_tool_result_removed",
                "reason": "tool_result does not answer a tool_use of the assistant message right "
                "before it",
                "path": "messages[4].content[0]",
            },
        ],
    ),
)

repaired_msgs = msgs
case(
    "anthropic_sanitize_takes_the_format",
    'sanitize with {"messages", "format": "anthropic"} repairs Anthropic Messages as trim '
    "does (same answer as the anthropic_repair case) and reports the format and the merges.",
    {"messages": repaired_msgs, "format": "anthropic"},
    {
        "ok": True,
        "messages": [
            repaired_msgs[0],
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "plan", "signature": "c2ln"},
                    a_text("Running two tools."),
                    a_text(NOTE),
                    a_text("Done."),
                ],
            },
            {"role": "user", "content": [a_text("and now?")]},
        ],
        "report": {"format": "anthropic", "merged": [{"index": 3, "into": 1}]},
    },
    function="sanitize",
)

msgs = [
    {"role": "user", "content": filler(5000, "long old context")},
    {"role": "assistant", "content": "Old answer."},
    {"role": "user", "content": "Short note."},
    {"role": "assistant", "content": filler(3000, "detailed answer")},
    {"role": "user", "content": "So, which option?"},
]
case(
    "anthropic_roles_alternate_by_merging",
    "Anthropic: when the assistant turn between two kept user messages is dropped, the two merge "
    "into one user message (content blocks in order) so roles alternate; the report lists the "
    "merge (fill: false: whole groups only).",
    {"format": "anthropic", "messages": msgs, "max_bytes": 600, "fill": False},
    ok(
        [{"role": "user", "content": [a_text("Short note."), a_text("So, which option?")]}],
        dropped_messages=[0, 1, 3],
        merged=[{"index": 4, "into": 2}],
    ),
)

msgs = [
    {"role": "assistant", "content": "Hi! How can I help?"},
    {"role": "user", "content": "Open my calendar."},
]
case(
    "anthropic_first_message_is_user",
    "Anthropic: the first message must be a user message, so a leading assistant greeting goes.",
    {"format": "anthropic", "messages": msgs, "max_bytes": 600},
    ok([msgs[1]], dropped_messages=[0]),
)

# A follow-up after a tool loop: the user's long first message (a spec, too long to anchor), three
# tool exchanges, the answer, a short follow-up. The budget holds the follow-up, the answer and the
# two newest exchanges, and 600 bytes more: the oldest exchange does not fit.
spec = filler(5000, "spec of the settings page layout")
loop_ids = ["tu_1", "tu_2", "tu_3"]
results = [filler(1200, f"result {i} line") for i in range(3)]
follow: list[Obj] = [{"role": "user", "content": spec}]
for uid, body in zip(loop_ids, results):
    follow += [
        {"role": "assistant", "content": [a_use(uid)]},
        {"role": "user", "content": [a_result(uid, body)]},
    ]
follow += [
    {"role": "assistant", "content": "I changed the CSS."},
    {"role": "user", "content": "Does it look right now?"},
]


def a_use_cost(uid: str) -> int:
    return len(
        compact(
            {"role": "assistant", "tool_calls": [call(uid, args=compact({"path": "src/main.rs"}))]}
        )
    )


def a_result_cost(uid: str, body: str) -> int:
    return len(compact({"role": "tool", "tool_call_id": uid})) + len(body)


kept_cost = (
    sum(a_use_cost(u) + a_result_cost(u, b) for u, b in zip(loop_ids[1:], results[1:]))
    + cost(follow[7])
    + cost(follow[8])
)
room = 600
budget = kept_cost + room
assert a_use_cost("tu_1") + a_result_cost("tu_1", results[0]) > room and len(spec) > 4096
to_bytes = room - len(compact({"role": "user"}))
case(
    "anthropic_follow_up_after_tool_loop_starts_on_the_user_turn",
    "Anthropic: the kept run starts with the model's turn (a tool_use exchange); the answer must "
    "start with the user's turn, so the user message that began that turn (the long first "
    "message, too long to anchor) comes back shrunk into the room left, head and tail kept, "
    "instead of the whole run being dropped down to the follow-up.",
    {"format": "anthropic", "messages": follow, "max_bytes": budget},
    ok(
        [{"role": "user", "content": shrink(spec, to_bytes)}] + follow[3:],
        dropped_messages=[1, 2],
        truncated=[{"index": 0, "part": None, "from_bytes": len(spec), "to_bytes": to_bytes}],
        turn_start={
            "index": 0,
            "kept": "shrunk",
            "from_bytes": len(spec) + len(compact({"role": "user"})),
            "to_bytes": room,
        },
        cost_bytes=budget,
    ),
)
# The same conversation in the chat format, with the same budget: no first-turn rule, the run of
# exchanges stands as it is.
chat_follow = [user(spec)]
for uid, body in zip(loop_ids, results):
    chat_follow += [calls(uid), reply(uid, body)]
chat_follow += [assistant("I changed the CSS."), user("Does it look right now?")]
chat_budget = total(chat_follow[3:]) + room
assert total(chat_follow[1:3]) > room
oldest_call = len(compact({k: v for k, v in chat_follow[1].items() if k != "content"}))
reply_meta = len(compact({"role": "tool", "tool_call_id": "tu_1"}))
filled_to = room - oldest_call - reply_meta
case(
    "follow_up_after_tool_loop_keeps_the_newest_exchanges",
    "OpenAI chat: the same follow-up after a tool loop keeps the newest exchanges that fit; the "
    "chat format takes a history that starts with the assistant's tool calls, so no user message "
    "is brought back: the room left fills with the oldest exchange, its result shrunk (fill).",
    {"messages": chat_follow, "max_bytes": chat_budget},
    ok(
        [chat_follow[1], reply("tu_1", shrink(results[0], filled_to))] + chat_follow[3:],
        dropped_messages=[0],
        refilled=[1, 2],
        cost_bytes=chat_budget,
        truncated=[
            {"index": 2, "part": None, "from_bytes": len(results[0]), "to_bytes": filled_to}
        ],
    ),
)
case(
    "follow_up_after_tool_loop_whole_groups_without_fill",
    "OpenAI chat, fill: false: the exchange that does not fit goes whole, and the room stays "
    "empty.",
    {"messages": chat_follow, "max_bytes": chat_budget, "fill": False},
    ok(chat_follow[3:], dropped_messages=[0, 1, 2], truncated=[], refilled=[]),
)
# The room left is less than the floor of the shrunk message: the placeholder stands in for it.
tiny = kept_cost + len(compact({"role": "user"})) + 100
case(
    "anthropic_follow_up_after_tool_loop_placeholder_turn",
    "Anthropic: when even the shrunk first message does not fit the room left (100 bytes, under "
    "the 128-byte floor), a short placeholder stands in for its content, reported as such.",
    {"format": "anthropic", "messages": follow, "max_bytes": tiny},
    ok(
        [{"role": "user", "content": "[Earlier conversation omitted to fit the context budget.]"}]
        + follow[3:],
        dropped_messages=[1, 2],
        truncated=[],
        turn_start={
            "index": 0,
            "kept": "placeholder",
            "to_bytes": len(compact({"role": "user"}))
            + len("[Earlier conversation omitted to fit the context budget.]"),
        },
    ),
)

# Regrow, in tokens: the room an image's placeholder frees goes back to the text shedding cut.
log = "".join(f"GET /api/items?page={i} 200 {i % 90 + 3}ms\n" for i in range(40))
ask = [text("Why does the page look broken?"), image(PNG_1700x2200)]
regrow = [{"role": "user", "content": ask}, calls("c_log"), reply("c_log", log)]
case(
    "regrow_gives_freed_room_to_the_exchange_in_progress",
    "OpenAI chat, in tokens: the exchange in progress (a 40-line log, about 450 tokens) is first "
    "cut to fit, then the request's screenshot still does not fit and becomes a placeholder; the "
    "room that frees goes back to the cut log first (regrow): it is returned whole, nothing is "
    "reported truncated.",
    {
        "messages": regrow,
        **{
            "context_tokens": 1400,
            "max_output_tokens": 400,
            "tokenizer": "o200k_base",
            "image_profile": "ankita",
        },
    },
    ok(
        [
            {
                "role": "user",
                "content": [
                    ask[0],
                    text("[Image omitted to fit the context budget: PNG 1700×2200, ~765 tokens]"),
                ],
            },
            regrow[1],
            regrow[2],
        ],
        truncated=[],
        dropped_messages=[],
        dropped_images=[
            {
                "index": 0,
                "part": 1,
                "format": "png",
                "width": 1700,
                "height": 2200,
                "tokens": 765,
                "budget_bytes": None,
            }
        ],
    ),
)
a_ask = [
    a_text("Why does the page look broken?"),
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
]
a_regrow = [
    {"role": "user", "content": a_ask},
    {"role": "assistant", "content": [a_use("c_log")]},
    {"role": "user", "content": [a_result("c_log", log)]},
]
case(
    "anthropic_regrow_gives_freed_room_to_the_exchange_in_progress",
    "Anthropic, in tokens: the exchange in progress (a 40-line log, about 450 tokens) is first "
    "cut to fit, then the request's screenshot still does not fit and becomes a placeholder; the "
    "room that frees goes back to the cut log first (regrow): it is returned whole, nothing is "
    "reported truncated.",
    {
        "format": "anthropic",
        "messages": a_regrow,
        **{
            "context_tokens": 1400,
            "max_output_tokens": 400,
            "tokenizer": "o200k_base",
            "image_profile": "ankita",
        },
    },
    ok(
        [
            {
                "role": "user",
                "content": [
                    a_ask[0],
                    a_text("[Image omitted to fit the context budget: PNG 1700×2200, ~765 tokens]"),
                ],
            },
            a_regrow[1],
            a_regrow[2],
        ],
        truncated=[],
        dropped_messages=[],
        dropped_images=[
            {
                "index": 0,
                "part": 1,
                "format": "png",
                "width": 1700,
                "height": 2200,
                "tokens": 765,
                "budget_bytes": None,
            }
        ],
    ),
)

case(
    "anthropic_roles_are_user_and_assistant",
    "Anthropic: a tool-role message is a mix-up of formats, named by its path.",
    {
        "format": "anthropic",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "x", "content": "out"},
        ],
    },
    err("invalid_request", path="messages[1].role"),
)
case(
    "system_key_needs_anthropic_format",
    "A top-level system is an Anthropic-format key.",
    {"messages": [user("hi")], "system": "be brief"},
    err("invalid_request", path="system"),
)

# --- invalid requests ----------------------------------------------------------------------------
case(
    "invalid_part_names_its_path",
    "A part without a type is named by its path.",
    {
        "messages": [
            user("a"),
            assistant("b"),
            user("c"),
            {"role": "user", "content": [text("x"), {"image_url": {}}]},
        ]
    },
    err("invalid_request", path="messages[3].content[1].type", message="type is missing"),
)
case(
    "unknown_request_key",
    "A typo in a budget key is an error, not a silent default.",
    {"messages": [user("a")], "max_byte": 100},
    err("invalid_request", path="max_byte"),
)
msgs = [
    user("ls"),
    calls("c1"),
    {"role": "tool", "tool_call_id": "c1", "content": None},
    user("well?"),
]
case(
    "tool_reply_without_content_voids_the_exchange",
    "A tool reply with null content is a message with no usable content (DESIGN §5): it is "
    "removed, so its call is unanswered and the exchange is voided with the visible note (the "
    "API refuses a tool message without content).",
    {"messages": msgs},
    ok(
        [msgs[0], {"role": "assistant", "content": NOTE}, msgs[3]],
        repaired=[
            {
                "index": 1,
                "action": "incomplete_tool_calls_removed",
                "reason": 'tool call "c1" has no reply',
            },
            {
                "index": 2,
                "action": "empty_message_removed",
                "reason": "message has no content",
                "path": "messages[2].content",
            },
        ],
    ),
)
case(
    "chat_format_names_the_format_of_foreign_blocks",
    'Anthropic blocks passed without format="anthropic" are a mix-up of formats, not opaque parts '
    "(their image would cost its base64 length and their tool pairs would not be grouped): an "
    "error names the block and the format to pass.",
    {
        "messages": [
            user("read a"),
            {"role": "assistant", "content": [a_text("Reading."), a_use("tu_1")]},
        ]
    },
    err("invalid_request", path="messages[1].content[1].type"),
)
case(
    "content_of_wrong_type",
    "Content that is a number is named by its path.",
    {"messages": [{"role": "user", "content": 3}]},
    err(
        "invalid_request",
        path="messages[0].content",
        message="content must be a string, an array of parts or null",
    ),
)

# --- clear_tool_results (opt-in): old results cleared before whole exchanges go --------------
CLEARED = "[Old tool result cleared to fit the context budget.]"


def tool_loop(names: list[str]) -> list[Obj]:
    msgs = [sys("Use the tools."), user("Find the failing test.")]
    for i, name in enumerate(names):
        msgs.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [call(f"call_{i}", name, '{"q": "fail"}')],
            }
        )
        msgs.append(reply(f"call_{i}", filler(2000, f"result {i}")))
    msgs.append(assistant("Found it in test_io."))
    msgs.append(user("Fix it."))
    return msgs


def cleared(msgs: list[Obj], indices: list[int]) -> list[Obj]:
    out = copy.deepcopy(msgs)
    for i in indices:
        out[i]["content"] = CLEARED
    return out


msgs = tool_loop(["grep", "grep", "grep", "grep", "grep"])
# Five exchanges of ~2,100 bytes: without clearing the two oldest go whole. Clearing the results
# of the exchanges older than the newest three, oldest first, frees ~1,950 bytes each.
budget = total(cleared(msgs, [3, 5])) + 10
assert total(cleared(msgs, [3])) > budget
case(
    "clear_tool_results_before_dropping_exchanges",
    "With clear_tool_results (keep 3 by default), the results of the oldest exchanges become a "
    "short placeholder, oldest first, until the history fits: every call and id stays, nothing "
    "is dropped, and the report lists what was cleared with its cost.",
    {"messages": msgs, "max_bytes": budget, "clear_tool_results": True},
    ok(
        cleared(msgs, [3, 5]),
        dropped_messages=[],
        cleared_tool_results=[
            {"index": 3, "bytes": cost_of_text(msgs[3])},
            {"index": 5, "bytes": cost_of_text(msgs[5])},
        ],
        cost_bytes=total(cleared(msgs, [3, 5])),
    ),
)
budget = total(cleared(msgs, [3])) + 10
freed = cost_of_text(msgs[3]) - len(CLEARED)
case(
    "clear_tool_results_clears_at_least",
    "clear_at_least: once clearing starts it clears at least that much (here more than one "
    "result frees), so that clears are rare and the prefix holds between them.",
    {"messages": msgs, "max_bytes": budget, "clear_tool_results": {"clear_at_least": freed + 1}},
    ok(
        cleared(msgs, [3, 5]),
        dropped_messages=[],
        cleared_tool_results=[
            {"index": 3, "bytes": cost_of_text(msgs[3])},
            {"index": 5, "bytes": cost_of_text(msgs[5])},
        ],
    ),
)
case(
    "clear_tool_results_without_clear_at_least_clears_what_the_budget_needs",
    "The same budget without clear_at_least clears one result.",
    {"messages": msgs, "max_bytes": budget, "clear_tool_results": True},
    ok(
        cleared(msgs, [3]),
        dropped_messages=[],
        cleared_tool_results=[{"index": 3, "bytes": cost_of_text(msgs[3])}],
    ),
)
msgs = tool_loop(["plan", "grep", "grep", "grep", "grep"])
budget = total(cleared(msgs, [5, 7])) + 10
case(
    "clear_tool_results_keeps_excluded_tools",
    "exclude_tools keeps the results of exchanges calling those tools (here the plan): the next "
    "oldest are cleared instead; keep 1 lets all but the newest exchange be cleared.",
    {
        "messages": msgs,
        "max_bytes": budget,
        "clear_tool_results": {"keep": 1, "exclude_tools": ["plan"], "placeholder": CLEARED},
    },
    ok(
        cleared(msgs, [5, 7]),
        dropped_messages=[],
        cleared_tool_results=[
            {"index": 5, "bytes": cost_of_text(msgs[5])},
            {"index": 7, "bytes": cost_of_text(msgs[7])},
        ],
    ),
)
msgs = tool_loop(["grep", "grep", "grep", "grep", "grep"])
case(
    "clear_tool_results_is_off_by_default",
    "Without the option the same budget drops the oldest exchanges whole (DESIGN §6; fill: false, "
    "else the newest of them comes back with its result shrunk).",
    {"messages": msgs, "max_bytes": total(cleared(msgs, [3, 5])) + 10, "fill": False},
    ok(msgs[:2] + msgs[6:], dropped_messages=[2, 3, 4, 5], cleared_tool_results=[]),
)
case(
    "clear_tool_results_names_a_bad_key",
    "A misspelt key of clear_tool_results is named with its path.",
    {"messages": msgs, "max_bytes": 100000, "clear_tool_results": {"kep": 1}},
    err("invalid_request", path="clear_tool_results.kep"),
)

for c in CASES:
    (HERE / f"{c['name']}.json").write_text(json.dumps(c, indent=1, ensure_ascii=False) + "\n")
print(f"wrote {len(CASES)} cases to {HERE}")

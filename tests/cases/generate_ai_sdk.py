#!/usr/bin/env python3
"""Writes the shared cases of the Vercel AI SDK's `ModelMessage[]` format
(tests/cases/ai_sdk_*.json, `"format": "ai-sdk"`). Expectations are written by hand from
docs/formats.md's "AI SDK format", with byte costs from the small independent cost model below,
never by the library itself.

Run: python3 tests/cases/generate_ai_sdk.py   (rewrites tests/cases/ai_sdk_*.json)
"""

from __future__ import annotations

import base64
import copy
import json
import math
import pathlib
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "images"
NOTE = "[Incomplete tool calls removed from restored session.]"
MARKER = "\n[... {} bytes omitted to fit the context budget ...]\n"
# A JSON object: a message, a part, a request or an expectation.
Obj = dict[str, Any]
CASES: list[Obj] = []

PNG_B64 = base64.b64encode((FIXTURES / "png/rgb_1700x2200.png").read_bytes()).decode()
JPEG_B64 = base64.b64encode((FIXTURES / "jpeg/baseline_500x375.jpg").read_bytes()).decode()
SIZES = {PNG_B64: (1700, 2200), JPEG_B64: (500, 375)}


def ankita_tokens(w: float, h: float) -> int:
    """The default recipe (docs/images.md, "Image probe"), written out again: fit into 2048,
    scale the short side to 768 (up or down), 85 + 170 per 512-px tile."""
    w, h = float(w), float(h)
    fit = 2048 / max(w, h)
    if fit < 1:
        w, h = max(1.0, math.floor(w * fit)), max(1.0, math.floor(h * fit))
    d = 768 / min(w, h)
    if d != 1:
        w, h = max(1.0, math.floor(w * d)), max(1.0, math.floor(h * d))
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


assert ankita_tokens(1700, 2200) == 765
assert ankita_tokens(500, 375) == 765  # scaled up to 1024×768


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def jlen(value: Any) -> int:
    return len(compact(value).encode())


def image_bytes(data: str) -> int:
    return 4 * ankita_tokens(*SIZES[data])


# The cost model (docs/formats.md, "AI SDK format"). -----------------------------------------------
def part_cost(part: Obj) -> int:
    t = part["type"]
    if t == "text":
        return len(part["text"].encode())
    if t == "image":
        return image_bytes(part["image"])
    if t == "file" and part["mediaType"].startswith("image"):
        return image_bytes(part["data"])
    if t == "file":
        return len(f"Attached file: {part.get('filename', 'file')}\n".encode()) + len(
            part["data"].encode()
        )
    return jlen(part)  # reasoning, tool-call, tool-approval-request, anything else


def result_cost(part: Obj) -> int:
    """A tool-result: its JSON, with the text of its output counted as text and the media of a
    content output priced instead of counted as JSON."""
    cost = jlen(part)
    out = part.get("output", {})
    if out.get("type") in ("text", "error-text"):
        cost += len(out["value"].encode()) - jlen(out["value"])
    elif out.get("type") == "content":
        for item in out["value"]:
            if item["type"] == "text":
                cost += len(item["text"].encode()) - jlen(item)
            elif item["type"] in ("image-data", "media"):
                cost += image_bytes(item["data"]) - jlen(item)
    return cost


def cost(message: Obj) -> int:
    meta = jlen({k: v for k, v in message.items() if k != "content"})
    content: Any = message.get("content")
    if message["role"] == "tool":
        return sum(
            meta + (result_cost(p) if p["type"] == "tool-result" else jlen(p)) for p in content
        )
    if isinstance(content, str):
        return meta + len(content.encode())
    return meta + sum(part_cost(p) for p in content)


def total(messages: list[Obj]) -> int:
    return sum(cost(m) for m in messages)


# Messages. ----------------------------------------------------------------------------------------
def system(text: str) -> Obj:
    return {"role": "system", "content": text}


def user(*parts: str | Obj) -> Obj:
    if len(parts) == 1 and isinstance(parts[0], str):
        return {"role": "user", "content": parts[0]}
    return {"role": "user", "content": [text(p) if isinstance(p, str) else p for p in parts]}


def assistant(*parts: str | Obj) -> Obj:
    if len(parts) == 1 and isinstance(parts[0], str):
        return {"role": "assistant", "content": parts[0]}
    return {"role": "assistant", "content": [text(p) if isinstance(p, str) else p for p in parts]}


def tool(*parts: Obj) -> Obj:
    return {"role": "tool", "content": list(parts)}


def text(t: str) -> Obj:
    return {"type": "text", "text": t}


def image(data: str, media: str = "image/png") -> Obj:
    return {"type": "image", "image": data, "mediaType": media}


def call(cid: str, name: str = "read_file") -> Obj:
    return {
        "type": "tool-call",
        "toolCallId": cid,
        "toolName": name,
        "input": {"path": "src/main.rs"},
    }


def result(cid: str, value: str, name: str = "read_file") -> Obj:
    return {
        "type": "tool-result",
        "toolCallId": cid,
        "toolName": name,
        "output": {"type": "text", "value": value},
    }


def content_result(cid: str, items: list[Obj], name: str = "screenshot") -> Obj:
    return {
        "type": "tool-result",
        "toolCallId": cid,
        "toolName": name,
        "output": {"type": "content", "value": items},
    }


def approval_request(aid: str, cid: str) -> Obj:
    return {"type": "tool-approval-request", "approvalId": aid, "toolCallId": cid}


def approval_response(aid: str, approved: bool = True) -> Obj:
    return {"type": "tool-approval-response", "approvalId": aid, "approved": approved}


def reasoning(t: str) -> Obj:
    return {"type": "reasoning", "text": t, "providerOptions": {"anthropic": {"signature": "c2ln"}}}


def filler(n: int, seed: str = "log line") -> str:
    s = (seed + " ") * (n // (len(seed) + 1) + 1)
    return s[:n]


def shrunk(t: str, to_bytes: int) -> str:
    """DESIGN §6.7's shrink of an ASCII text to `to_bytes`: head and tail around the marker."""
    keep = to_bytes - len(MARKER.format(len(t) - to_bytes))
    out = t[: keep // 2] + MARKER.format(len(t) - keep) + t[len(t) - (keep - keep // 2) :]
    assert len(out) == to_bytes
    return out


def ok(messages: list[Obj], **report: Any) -> Obj:
    return {"ok": True, "messages": messages, "report": {"format": "ai-sdk", **report}}


def err(code: str, **error: Any) -> Obj:
    return {"ok": False, "error": {"code": code, **error}}


def case(name: str, description: str, request: Obj, expect: Obj, function: str = "trim") -> None:
    request = {"format": "ai-sdk", **request}
    CASES.append(
        {
            "name": f"ai_sdk_{name}",
            "description": f"AI SDK: {description}",
            "function": function,
            "request": request,
            "expect": expect,
        }
    )


SYSTEM = system("You are a desktop companion. Answer briefly; ask before changing anything.")

# --- a tool loop: calls and results are one exchange ----------------------------------------------
loop = [
    SYSTEM,
    user(
        "Check both config files. "
        + filler(600, "They are the ones the service reads at start-up.")
    ),
    assistant(reasoning("Read both."), "Reading them.", call("c_a"), call("c_b")),
    tool(result("c_b", filler(3000, "beta")), result("c_a", filler(3000, "alpha"))),
    assistant("Both parse."),
    user("Thanks. What next?"),
]
kept = [loop[0], loop[1], loop[4], loop[5]]
budget = total(kept) + 200
assert budget < total(loop)
case(
    "tool_exchange_dropped_whole",
    "tool-call parts and their tool-result parts (in the next tool message, in any order) are one "
    "exchange, dropped together with the reasoning of their step (fill: false: whole groups "
    "only); the system message is pinned.",
    {"messages": loop, "max_bytes": budget, "fill": False},
    ok(kept, dropped_messages=[2, 3], repaired=[], merged=[], cost_bytes=total(kept)),
)
case(
    "tool_exchange_kept",
    "with room, the loop comes back exactly as given, reasoning and all.",
    {"messages": loop, "max_bytes": 100_000},
    ok(
        loop,
        dropped_messages=[],
        repaired=[],
        merged=[],
        dropped_blocks=[],
        turn_start=None,
        cost_bytes=total(loop),
    ),
)

# --- the exchange in progress: its result shrinks -------------------------------------------------
big = filler(6000, "stack frame")
msgs = [
    user("Why does the build fail?"),
    assistant(reasoning("Look at the log."), call("c_1", "run")),
    tool(result("c_1", big, "run")),
]
others = cost(msgs[0]) + cost(msgs[1]) + cost(msgs[2]) - len(big)
to_bytes = 3400 - others
out = copy.deepcopy(msgs)
out[2]["content"][0]["output"]["value"] = shrunk(big, to_bytes)
case(
    "tool_result_shrunk_in_the_exchange_in_progress",
    "the exchange after the request is kept like an anchor; its text output shrinks head and "
    "tail, the reasoning stays as written.",
    {"messages": msgs, "max_bytes": 3400},
    ok(
        out,
        dropped_messages=[],
        truncated=[{"index": 2, "part": 0, "from_bytes": 6000, "to_bytes": to_bytes}],
        cost_bytes=3400,
    ),
)

# --- images by pixels, in user parts and in a tool result's content output ------------------------
shot = content_result(
    "c_s",
    [
        text("Here is the screen."),
        {"type": "image-data", "data": PNG_B64, "mediaType": "image/png"},
    ],
)
msgs = [
    SYSTEM,
    user("What is on my screen? This is the old one:", image(JPEG_B64, "image/jpeg")),
    assistant(call("c_s", "screenshot")),
    tool(shot),
]
case(
    "images_priced_by_pixels",
    "an image part (bare base64) and an image-data item of a tool result's content output are "
    "priced by their pixels (765 tokens each under the default rule), not by their base64.",
    {"messages": msgs, "max_bytes": 100_000},
    ok(msgs, dropped_messages=[], dropped_images=[], cost_bytes=total(msgs)),
)
placeholder = "[Image omitted to fit the context budget: PNG 1700×2200, ~765 tokens]"
msgs = [
    SYSTEM,
    user("What is on my screen? " + filler(400, "The settings page looks wrong.")),
    assistant(call("c_s", "screenshot")),
    tool(shot),
]
out = copy.deepcopy(msgs)
out[3]["content"][0]["output"]["value"][1] = text(placeholder)
after = total(out[:3]) + cost(out[3])
budget = after + 40
assert budget < total(msgs)
case(
    "tool_result_image_becomes_a_placeholder",
    "when the exchange in progress does not fit, the image of its tool result becomes a text item "
    "in its place (the content output stays valid) and the report lists it.",
    {"messages": msgs, "max_bytes": budget},
    ok(
        out,
        dropped_messages=[],
        dropped_images=[
            {
                "index": 3,
                "part": 0,
                "format": "png",
                "width": 1700,
                "height": 2200,
                "tokens": 765,
                "budget_bytes": 3060,
            }
        ],
        cost_bytes=after,
    ),
)

# --- tool approvals are paired like calls ---------------------------------------------------------
approval = [
    user("Delete the temp folder."),
    assistant("I need your approval.", call("c_rm", "delete"), approval_request("ap_1", "c_rm")),
    tool(approval_response("ap_1")),
]
case(
    "approval_answered_call_awaiting_its_result",
    "a call whose tool-approval-request is answered by a tool-approval-response is complete while "
    "its result has not come (the SDK runs it on its next step): nothing is repaired.",
    {"messages": approval, "max_bytes": 100_000},
    ok(approval, dropped_messages=[], repaired=[], cost_bytes=total(approval)),
)
done = approval + [
    tool(result("c_rm", "deleted 3 files", "delete")),
    assistant("Done: the folder is gone. " + filler(300, "It held build caches.")),
    user(filler(300, "Now tidy the downloads.")),
]
kept = [done[0], done[5]]
case(
    "approval_dropped_with_its_call",
    "the approval request, its response and the call's result are one exchange with the call: "
    "dropped together, never leaving a tool-approval-response whose request is gone.",
    {"messages": done, "max_bytes": cost(done[5]) + cost(done[4]) - 1, "fill": False},
    ok(kept, dropped_messages=[1, 2, 3, 4], repaired=[], cost_bytes=total(kept)),
)

# --- repair ---------------------------------------------------------------------------------------
broken = [
    tool(result("c_0", "stale")),
    user("start"),
    assistant("Running two tools.", call("c_1"), call("c_2")),
    tool(result("c_1", "ok")),
    assistant("Done."),
    user("and now?"),
]
repaired = [broken[1], assistant("Running two tools.", NOTE), broken[4], broken[5]]
REPAIRS = [
    {
        "index": 0,
        "action": "orphan_tool_result_removed",
        "reason": "tool-result does not answer a tool-call of the assistant message right "
        "before it",
        "path": "messages[0].content[0]",
    },
    {
        "index": 2,
        "action": "incomplete_tool_calls_removed",
        "reason": 'tool-call "c_2" has no reply',
    },
    {
        "index": 3,
        "action": "incomplete_tool_result_removed",
        "reason": "result of the incomplete tool calls of messages[2]",
        "path": "messages[3].content[0]",
    },
]
case(
    "repair",
    "a tool message that answers no call before it is removed; an assistant message whose calls "
    "are not all answered loses them and their results, and gets the note as a text part.",
    {"messages": broken, "max_bytes": 100_000},
    ok(repaired, dropped_messages=[], repaired=REPAIRS),
)
case(
    "sanitize_takes_the_format",
    'sanitize with {"messages", "format": "ai-sdk"} repairs as trim does.',
    {"messages": broken},
    {"ok": True, "messages": repaired, "report": {"format": "ai-sdk", "repaired": REPAIRS}},
    function="sanitize",
)

# --- files are attachments ------------------------------------------------------------------------
log = filler(4000, "2026-11-30 12:00:01 INFO worker started")
attach = {"type": "file", "data": log, "mediaType": "text/plain", "filename": "worker.log"}
msgs = [user("Here is the log.", attach), assistant("Thanks."), user("Summarise it.")]
case(
    "file_is_an_attachment",
    "a text file part costs `Attached file: {filename}` and its data; with room it is kept as "
    "given.",
    {"messages": msgs, "max_bytes": 100_000},
    ok(msgs, dropped_messages=[], dropped_attachments=[], cost_bytes=total(msgs)),
)

# --- the answer starts on the user's turn ---------------------------------------------------------
task = filler(5000, "spec of the settings page layout")
msgs = [
    SYSTEM,
    user(task),
    assistant(call("c_1")),
    tool(result("c_1", filler(400, "alpha"))),
    assistant(call("c_2")),
    tool(result("c_2", filler(400, "beta"))),
    user("Go on."),
]
room = total([msgs[0]] + msgs[2:])
budget = room + 150
out = copy.deepcopy(msgs)
out[1]["content"] = shrunk(task, 150 - 15)  # the room less {"role":"user"}
case(
    "follow_up_after_tool_loop_starts_on_the_user_turn",
    "the kept run starts with the model's calls; the user message that began that turn (too long "
    "to anchor) comes back shrunk into the room left, so the history starts on the user's turn.",
    {"messages": msgs, "max_bytes": budget},
    ok(
        out,
        dropped_messages=[],
        truncated=[{"index": 1, "part": None, "from_bytes": 5000, "to_bytes": 135}],
        turn_start={"index": 1, "kept": "shrunk", "from_bytes": 5015, "to_bytes": 150},
        cost_bytes=budget,
    ),
)

# --- other formats' messages are named ------------------------------------------------------------
case(
    "chat_tool_calls_name_the_format",
    "an OpenAI chat message (tool_calls) is refused with the format to pass.",
    {"messages": [{"role": "assistant", "content": None, "tool_calls": []}]},
    err("invalid_request", path="messages[0].tool_calls"),
)
case(
    "foreign_part_names_the_format",
    "an image_url part belongs to the OpenAI chat format: refused, naming it.",
    {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}],
            }
        ]
    },
    err("invalid_request", path="messages[0].content[0].type"),
)

for old in HERE.glob("ai_sdk_*.json"):
    old.unlink()
for c in CASES:
    (HERE / f"{c['name']}.json").write_text(json.dumps(c, indent=1, ensure_ascii=False) + "\n")
print(f"wrote {len(CASES)} cases")

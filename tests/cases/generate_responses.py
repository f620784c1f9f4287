#!/usr/bin/env python3
"""Writes the shared cases of the OpenAI Responses input items format (format "responses"),
tests/cases/responses_*.json. Like generate.py, expectations are written here by hand from
DESIGN.md and docs/formats.md's "Responses format", with byte costs from the small independent cost
model below, never from the library itself.

Run: python3 tests/cases/generate_responses.py   (rewrites tests/cases/responses_*.json)
"""

from __future__ import annotations

import base64
import json
import math
import pathlib
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "images"
# A JSON object: an item, a part, a request or an expectation.
Obj = dict[str, Any]
CASES: list[Obj] = []


def data_url(path: str, media: str = "image/png") -> str:
    return f"data:{media};base64," + base64.b64encode((FIXTURES / path).read_bytes()).decode()


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def utf8(s: str) -> int:
    return len(s.encode())


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


SCREEN = data_url("png/rgb_1700x2200.png")  # 765 tokens = 3060 bytes
SMALL = data_url("png/rgb_640x480.png")  # 765 tokens = 3060 bytes
REMOTE_TOKENS = 1445  # the ankita profile's worst case over typical sizes
IMAGE_BYTES = {SCREEN: 4 * ankita_tokens(1700, 2200), SMALL: 4 * ankita_tokens(640, 480)}
assert IMAGE_BYTES[SCREEN] == 3060 and len(SCREEN) > 20_000


# --- the cost model (docs/formats.md, "Responses format") -----------------------------------------


def image_cost(holder: Obj) -> int:
    """An input_image part or a computer screenshot: a data URL by its pixels, a file id or
    an http(s) URL like a remote image."""
    url = holder.get("image_url")
    if url is not None:
        return IMAGE_BYTES[url] if url.startswith("data:") else 4 * REMOTE_TOKENS
    return 4 * REMOTE_TOKENS


def part_cost(part: Obj) -> int:
    t = part.get("type")
    if t in ("input_text", "output_text"):
        return utf8(part["text"])
    if t == "refusal":
        return utf8(part["refusal"])
    if t == "input_image":
        return image_cost(part)
    if t == "input_file" and "file_data" in part:
        return utf8("Attached file: " + part.get("filename", "file") + "\n" + part["file_data"])
    return utf8(compact(part))


def body_cost(value: Any, screenshot: bool = False) -> int:
    if value is None:
        return 0
    if isinstance(value, str):
        return utf8(value)
    if isinstance(value, list):
        return sum(part_cost(p) for p in value)
    return image_cost(value) if screenshot else utf8(compact(value))


def cost(item: Obj) -> int:
    t = item.get("type", "message")
    if t == "message":
        key = "content"
    elif t.endswith("_output"):
        key = "output"
    else:
        return utf8(compact(item))
    meta = {k: v for k, v in item.items() if k != key}
    return utf8(compact(meta)) + body_cost(item.get(key), screenshot=t == "computer_call_output")


def total(items: list[Obj], instructions: str | None = None) -> int:
    pinned = 17 + utf8(instructions) if instructions is not None else 0
    return pinned + sum(cost(i) for i in items)


def case(name: str, description: str, request: Any, expect: Obj, function: str = "trim") -> None:
    assert name.startswith("responses_")
    CASES.append(
        {
            "name": name,
            "description": description,
            "function": function,
            "request": request,
            "expect": expect,
        }
    )


def ok(messages: Any, **report: Any) -> Obj:
    return {"ok": True, "messages": messages, "report": {"format": "responses", **report}}


def err(code: str, **error: Any) -> Obj:
    return {"ok": False, "error": {"code": code, **error}}


# --- items ---------------------------------------------------------------------------------


def user(text: str) -> Obj:
    return {"role": "user", "content": text}


def user_parts(*parts: Obj) -> Obj:
    return {"type": "message", "role": "user", "content": list(parts)}


def said(text: str) -> Obj:
    return {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def input_text(text: str) -> Obj:
    return {"type": "input_text", "text": text}


def input_image(url: str, detail: str = "auto") -> Obj:
    return {"type": "input_image", "image_url": url, "detail": detail}


def reasoning(k: int, summary: str = "Thinking about the next step.") -> Obj:
    return {
        "type": "reasoning",
        "id": f"rs_{k}",
        "summary": [{"type": "summary_text", "text": summary}],
        "encrypted_content": "gAAAAB" + "x" * 120,
    }


def fcall(cid: str, name: str = "read_file", args: str = '{"path":"src/main.rs"}') -> Obj:
    return {"type": "function_call", "call_id": cid, "name": name, "arguments": args}


def fout(cid: str, output: Any) -> Obj:
    return {"type": "function_call_output", "call_id": cid, "output": output}


def shrink(text: str, target: int) -> str:
    """DESIGN §6.7's shrink of an ASCII text to at most `target` bytes: head and tail around the
    marker that counts the bytes cut."""

    def marker(cut: int) -> str:
        return f"\n[... {cut} bytes omitted to fit the context budget ...]\n"

    n = len(text)
    if n <= target:
        return text
    keep = max(0, target - len(marker(n - target)))
    while True:
        head, tail = keep // 2, n - (keep - keep // 2)
        size = head + len(marker(tail - head)) + n - tail
        if size <= target or keep == 0:
            return text[:head] + marker(tail - head) + text[tail:]
        keep = max(0, keep - (size - target))


def filler(n: int, seed: str = "log line") -> str:
    s = (seed + " ") * (n // (len(seed) + 1) + 1)
    return s[:n]


INSTRUCTIONS = (
    "You are a coding agent. Read before you write, run the tests after every change, "
    "and say plainly when a tool fails."
)

# --- instructions are pinned -----------------------------------------------------------------
items = [
    user(filler(5000, "old question")),
    said(filler(900, "old answer")),
    user("What is in src/main.rs?"),
    said(filler(400, "It starts the server.")),
    user("And the tests?"),
]
keep = items[2:]
budget = total(keep, INSTRUCTIONS) + 50
assert budget < total(items, INSTRUCTIONS) - 900
case(
    "responses_instructions_pinned",
    "The Responses instructions (request key system) are pinned like a system message: always "
    "kept and costed (17 + their length), returned unchanged; the oldest turns go first.",
    {"format": "responses", "system": INSTRUCTIONS, "messages": items, "max_bytes": budget},
    ok(
        keep,
        budget_bytes=budget,
        cost_bytes=total(keep, INSTRUCTIONS),
        input_messages=5,
        output_messages=3,
        dropped_messages=[0, 1],
        truncated=[],
        repaired=[],
    ),
)

# --- a tool loop with reasoning items, trimmed whole -----------------------------------------
goal = user("Goal: find why the server panics on startup.")
request = user("Continue.")
loop = [goal]
for k in range(4):
    loop += [
        reasoning(k),
        fcall(f"call_{k}", args=json.dumps({"path": f"src/mod{k}.rs"})),
        fout(f"call_{k}", filler(600, f"mod{k} source")),
    ]
# A step with parallel calls answered out of order.
loop += [
    reasoning(4),
    fcall("call_4a"),
    fcall("call_4b"),
    fout("call_4b", filler(300, "b")),
    fout("call_4a", filler(300, "a")),
    said("The panic comes from mod3's unwrap."),
    request,
]
steps = [loop[1:4], loop[4:7], loop[7:10], loop[10:13], loop[13:19]]
fixed = total([goal, request], INSTRUCTIONS)
budget = fixed + total(steps[3]) + total(steps[4]) + 100
assert budget < fixed + total(steps[2]) + total(steps[3]) + total(steps[4])
kept = [goal] + steps[3] + steps[4] + [request]
case(
    "responses_tool_loop_reasoning_dropped_whole",
    "A step (a reasoning item, the calls it led to, their outputs, the assistant message after "
    "them) is kept or dropped whole: reasoning never loses its following item, a call never its "
    "output. Parallel calls answered out of order are one step. The goal stays as an anchor.",
    {"format": "responses", "system": INSTRUCTIONS, "messages": loop, "max_bytes": budget},
    ok(
        kept,
        budget_bytes=budget,
        cost_bytes=total(kept, INSTRUCTIONS),
        input_messages=len(loop),
        output_messages=len(kept),
        dropped_messages=list(range(1, 10)),
        truncated=[],
        dropped_images=[],
        repaired=[],
    ),
)

# --- a follow-up after a tool loop: the run of steps stands as it is ---------------------------
spec = filler(5000, "spec of the settings page layout")
follow = [user(spec)]
for i in range(3):
    follow += [fcall(f"call_f{i}"), fout(f"call_f{i}", filler(1200, f"result {i} line"))]
follow += [said("I changed the CSS."), user("Does it look right now?")]
budget = total(follow[3:]) + 600
assert total(follow[1:3]) > 600
filled_to = 600 - total([follow[1]]) - total([fout("call_f0", "")])
case(
    "responses_follow_up_after_tool_loop_keeps_the_newest_steps",
    "A follow-up after a tool loop, its first message too long to anchor: the newest steps that "
    "fit are kept; the Responses API takes input that starts with a function_call, so no user "
    "message is brought back (the Anthropic and Gemini formats start on the user's turn instead): "
    "the room left fills with the oldest step, its output shrunk (fill).",
    {"format": "responses", "messages": follow, "max_bytes": budget},
    ok(
        [follow[1], fout("call_f0", shrink(follow[2]["output"], filled_to))] + follow[3:],
        dropped_messages=[0],
        refilled=[1, 2],
        cost_bytes=budget,
        truncated=[{"index": 2, "part": None, "from_bytes": 1200, "to_bytes": filled_to}],
    ),
)


# --- a computer-use loop: screenshots priced by pixels ---------------------------------------
def ccall(k: int, action: Obj) -> Obj:
    return {
        "type": "computer_call",
        "id": f"cu_{k}",
        "call_id": f"cc_{k}",
        "action": action,
        "pending_safety_checks": [],
        "status": "completed",
    }


def cout(k: int, url: str = SCREEN) -> Obj:
    return {
        "type": "computer_call_output",
        "call_id": f"cc_{k}",
        "output": {"type": "computer_screenshot", "image_url": url},
    }


items = [user("Open the display settings and turn on night light.")]
actions: list[Obj] = [
    {"type": "screenshot"},
    {"type": "click", "button": "left", "x": 120, "y": 640},
    {"type": "click", "button": "left", "x": 900, "y": 210},
]
for k, action in enumerate(actions):
    items += [reasoning(k), ccall(k, action), cout(k)]
items += [said("Night light is on."), user("Thanks. Is it scheduled?")]
everything = total(items)
assert everything > 3 * 3060
budget = everything + 100
assert budget < len(SCREEN)  # one screenshot measured as text would not fit
case(
    "responses_computer_use_screenshots_priced_by_pixels",
    f"Three 1700×2200 screenshots ({len(SCREEN)}-byte data URLs) in computer_call_output items "
    "cost 765 tokens (3,060 bytes) each: the whole loop fits a budget smaller than one of them "
    "measured as text.",
    {"format": "responses", "messages": items, "max_bytes": budget},
    ok(
        items,
        budget_bytes=budget,
        cost_bytes=everything,
        dropped_messages=[],
        dropped_images=[],
        repaired=[],
    ),
)
keep = items[:1] + items[7:]
budget = total(keep) + 100
case(
    "responses_computer_use_older_steps_dropped_whole",
    "A screenshot cannot become text inside a computer_call_output: when the loop does not fit, "
    "older steps (reasoning, computer_call, its screenshot) go whole, oldest first.",
    {"format": "responses", "messages": items, "max_bytes": budget},
    ok(
        keep,
        budget_bytes=budget,
        cost_bytes=total(keep),
        dropped_messages=list(range(1, 7)),
        dropped_images=[],
        repaired=[],
    ),
)

# --- a function_call_output carrying an image --------------------------------------------------
out_parts = [input_text("Screenshot of the failing page:"), input_image(SCREEN)]
items = [
    user("Take a screenshot of the login page."),
    reasoning(0),
    fcall("shot", "screenshot", "{}"),
    fout("shot", out_parts),
]
placeholder = "[Image omitted to fit the context budget: PNG 1700×2200, ~765 tokens]"
after = items[:3] + [fout("shot", [out_parts[0], input_text(placeholder)])]
assert total(items) - total(after) > 2000
budget = total(after) + 100
case(
    "responses_function_call_output_image_priced_by_pixels",
    "An image inside a function_call_output's output parts is priced by its pixels; when the "
    "exchange in progress does not fit, it becomes an input_text placeholder that says what was "
    "omitted (the output stays valid for the Responses API).",
    {"format": "responses", "messages": items, "max_bytes": budget},
    ok(
        after,
        budget_bytes=budget,
        cost_bytes=total(after),
        dropped_messages=[],
        dropped_images=[
            {
                "index": 3,
                "part": 1,
                "format": "png",
                "width": 1700,
                "height": 2200,
                "tokens": 765,
                "budget_bytes": 3060,
            }
        ],
        repaired=[],
    ),
)
case(
    "responses_function_call_output_image_kept",
    f"The same exchange under a budget that holds the image's 3,060 bytes (its data URL has "
    f"{len(SCREEN)}): nothing changes.",
    {"format": "responses", "messages": items, "max_bytes": total(items) + 10},
    ok(items, cost_bytes=total(items), dropped_images=[], dropped_messages=[]),
)

# --- regrow, in tokens: the room an image's placeholder frees goes back to the cut text -----------
log = "".join(f"GET /api/items?page={i} 200 {i % 90 + 3}ms\n" for i in range(40))
ask = user_parts(input_text("Why does the page look broken?"), input_image(SCREEN))
regrow = [ask, fcall("c_log", "read_log", "{}"), fout("c_log", log)]
case(
    "responses_regrow_gives_freed_room_to_the_exchange_in_progress",
    "In tokens: the exchange in progress (a 40-line log, about 450 tokens) is first cut to fit, "
    "then the request's screenshot still does not fit and becomes a placeholder; the room that "
    "frees goes back to the cut log first (regrow): it is returned whole, nothing is reported "
    "truncated.",
    {
        "format": "responses",
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
            user_parts(
                ask["content"][0],
                input_text("[Image omitted to fit the context budget: PNG 1700×2200, ~765 tokens]"),
            ),
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

# --- an input_file attachment shed last ------------------------------------------------------
log = base64.b64encode(filler(6000, "2024-05-01 ERROR db timeout").encode()).decode()
file_data = "data:text/plain;base64," + log
request = user_parts(
    input_text("Why does the server log show timeouts? " + filler(500, "context")),
    {"type": "input_file", "filename": "server.log", "file_data": file_data},
)
items = [user("Hello."), said("Hi! How can I help?"), request]
body_bytes = utf8("Attached file: server.log\n" + file_data)
stub = (
    f"Attached file: server.log\n[File body omitted to fit the context budget: {body_bytes} bytes]"
)
after_request = user_parts(request["content"][0], input_text(stub))
budget = total([items[0], after_request]) + 20
case(
    "responses_input_file_shed_last",
    "An input_file's file_data is an attachment body: older turns go first, then the body, last "
    "resort; an input_text part naming the file stays in its place.",
    {"format": "responses", "messages": items, "max_bytes": budget},
    ok(
        [items[0], after_request],
        budget_bytes=budget,
        cost_bytes=total([items[0], after_request]),
        dropped_messages=[1],
        truncated=[],
        dropped_attachments=[{"index": 2, "part": 1, "bytes": body_bytes}],
        repaired=[],
    ),
)

# --- every exchange kind kept; opaque items priced as JSON -----------------------------------
items = [
    {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAB" + "c" * 60},
    user("Deploy it."),
    reasoning(0),
    {
        "type": "custom_tool_call",
        "call_id": "ct_1",
        "name": "apply_patch",
        "input": "*** Begin Patch",
    },
    {"type": "custom_tool_call_output", "call_id": "ct_1", "output": "patched"},
    {
        "type": "local_shell_call",
        "id": "ls_1",
        "call_id": "sh_1",
        "status": "completed",
        "action": {"type": "exec", "command": ["make", "deploy"], "env": {}},
    },
    {"type": "local_shell_call_output", "id": "sh_1", "output": "deployed"},
    {
        "type": "mcp_call",
        "id": "mcp_1",
        "server_label": "ops",
        "name": "status",
        "arguments": "{}",
        "output": "green",
    },
    {
        "type": "mcp_approval_request",
        "id": "apr_1",
        "server_label": "ops",
        "name": "restart",
        "arguments": "{}",
    },
    {"type": "mcp_approval_response", "approval_request_id": "apr_1", "approve": True},
    {"type": "web_search_call", "id": "ws_1", "status": "completed"},
    said("Deployed and restarted."),
    user("Show me the reference."),
    {"type": "item_reference", "id": "msg_earlier"},
    {
        "type": "function_call_output",
        "call_id": "call_stored",
        "output": "kept: its call may be the referenced item",
    },
    user("Done?"),
]
case(
    "responses_exchanges_of_every_kind_kept",
    "custom_tool_call, local_shell_call (its output names the call by id), mcp_approval_request "
    "and their outputs are matched; mcp_call, hosted tool calls, compaction and item_reference "
    "items are opaque, priced as JSON; an output in a step with an item_reference is kept (its "
    "call may be the referenced item).",
    {"format": "responses", "messages": items, "max_bytes": total(items) + 10},
    ok(items, cost_bytes=total(items), dropped_messages=[], repaired=[]),
)

# --- repair of each defect ---------------------------------------------------------------------
items = [
    user("Run the checks."),  # 0
    reasoning(0),  # 1  goes with its unanswered call
    fcall("c1", "lint", "{}"),  # 2  no output
    user("Also the tests."),  # 3
    reasoning(1),  # 4
    fcall("c2", "test", "{}"),  # 5
    fout("c2", "12 passed"),  # 6
    fout("c9", "stale output"),  # 7  answers no call of its step
    fout("c2", "12 passed again"),  # 8  answers c2 twice
    said("All tests pass."),  # 9
    reasoning(2),  # 10 nothing after it in its step
    user("Great."),  # 11
    {"type": "function_call_output", "call_id": "c5", "output": "no call before it"},  # 12
    {"type": "function_call", "name": "lint", "arguments": "{}"},  # 13 no call_id
    user("Bye."),  # 14
]
repaired = [
    {
        "index": 1,
        "action": "orphan_reasoning_removed",
        "reason": "the item it must be followed by, messages[2], was removed",
    },
    {
        "index": 2,
        "action": "incomplete_call_removed",
        "reason": 'call "c1" has no reply',
        "path": "messages[2]",
    },
    {
        "index": 7,
        "action": "orphan_call_output_removed",
        "reason": 'no call of its step has id "c9"',
        "path": "messages[7]",
    },
    {
        "index": 8,
        "action": "orphan_call_output_removed",
        "reason": 'call "c2" is answered twice',
        "path": "messages[8]",
    },
    {
        "index": 10,
        "action": "orphan_reasoning_removed",
        "reason": "a reasoning item must be followed by an item of its step",
    },
    {
        "index": 12,
        "action": "orphan_call_output_removed",
        "reason": 'no call of its step has id "c5"',
        "path": "messages[12]",
    },
    {
        "index": 13,
        "action": "incomplete_call_removed",
        "reason": "call id is missing or not a string",
        "path": "messages[13].call_id",
    },
]
repaired_items = [items[k] for k in (0, 3, 4, 5, 6, 9, 11, 14)]
case(
    "responses_repair",
    "Repair of restored Responses items: an output without its call (or a second output of one "
    "call) is removed; a call without its output is removed with the reasoning item before it "
    "(both reported); a reasoning item with nothing after it in its step is removed; a call "
    "without call_id is removed. Entries use the caller's item indices.",
    {"format": "responses", "messages": items},
    ok(
        repaired_items,
        budget_bytes=None,
        cost_bytes=total(repaired_items),
        dropped_messages=[],
        repaired=repaired,
    ),
)
case(
    "responses_sanitize_takes_the_format",
    'sanitize with {"messages", "format": "responses"} repairs Responses items as trim does '
    "(same answer as responses_repair).",
    {"messages": items, "format": "responses"},
    {"ok": True, "messages": repaired_items, "report": {"repaired": repaired}},
    function="sanitize",
)

# --- the request and the exchange in progress ----------------------------------------------------
items = [
    user(filler(5000, "older question")),
    said("Answer."),
    user("Read the config."),
    reasoning(0),
    fcall("c1", "read_file", '{"path":"config.toml"}'),
    fout("c1", filler(2000, "key = value")),
]
budget = total(items[2:]) - 1000
shrunk_to = 2000 - 1000
case(
    "responses_exchange_in_progress_kept_and_shrunk",
    "The request is the newest user message item; the step after it (the call the agent is "
    "waiting on) is kept like an anchor, and its output text shrinks (head and tail kept) "
    "before the step would go.",
    {"format": "responses", "messages": items, "max_bytes": budget},
    {
        "ok": True,
        "report": {
            "format": "responses",
            "dropped_messages": [0, 1],
            "truncated": [{"index": 5, "part": None, "from_bytes": 2000, "to_bytes": shrunk_to}],
            "repaired": [],
        },
    },
)


# --- model names never raise -------------------------------------------------------------------
def unknown_model(model: str, profile: str) -> Obj:
    return {
        "code": "unknown_model",
        "index": None,
        "part": None,
        "path": "model",
        "message": f"no model family claims {json.dumps(model)}; assumed: images priced by the "
        f'"{profile}" rule (the default), text counted in bytes; strict_model: true '
        f"makes an unknown model an error",
    }


items = [
    user_parts(input_text("Old screen:"), input_image(SCREEN)),
    said("Seen."),
    user("And now?"),
]
case(
    "responses_unknown_model_answers_with_a_warning",
    "A model no family claims is priced by the default recipe (the screenshot at 765 tokens) and "
    "the report says what was assumed.",
    {
        "format": "responses",
        "messages": items,
        "max_bytes": 100_000,
        "model": "my-router/house-model",
    },
    ok(
        items,
        cost_bytes=total(items),
        dropped_messages=[],
        warnings=[unknown_model("my-router/house-model", "ankita")],
    ),
)
case(
    "responses_unknown_model_strict_is_an_error",
    "strict_model: true makes a model no family claims an invalid_request at model.",
    {
        "format": "responses",
        "messages": items,
        "max_bytes": 100_000,
        "model": "my-router/house-model",
        "strict_model": True,
    },
    err("invalid_request", path="model"),
)
case(
    "responses_text_model_answers",
    "gpt-4 has no image rule but its family is known: the default recipe prices the screenshot, "
    "without a warning.",
    {"format": "responses", "messages": items, "max_bytes": 100_000, "model": "openai/gpt-4-0613"},
    ok(items, cost_bytes=total(items), dropped_messages=[], warnings=[]),
)

case(
    "responses_tokenizer_file_missing_names_the_path",
    "A tokenizer file that is not there is an invalid_request naming it.",
    {
        "format": "responses",
        "messages": items,
        "context_tokens": 8192,
        "tokenizer": {"file": "/no/such/model-dir"},
    },
    err(
        "invalid_request",
        path="tokenizer.file",
        message='tokenizer file "/no/such/model-dir": no such file or folder',
    ),
)
case(
    "responses_model_gives_the_window",
    "gpt-5's window is 400,000 with 272,000 input: the reserve is the other 128,000, and the "
    "budget 400,000 − 128,000 − 256 = 271,744 tokens.",
    {"format": "responses", "messages": items, "model": "gpt-5"},
    ok(items, unit="tokens", budget_tokens=271_744, warnings=[]),
)
case(
    "responses_model_without_a_window_says_so",
    "A model without a window entry keeps only max_messages, and says so.",
    {"format": "responses", "messages": items, "model": "deepseek-r1"},
    ok(
        items,
        budget_tokens=None,
        warnings=[
            {
                "code": "no_context_window",
                "index": None,
                "part": None,
                "path": "model",
                "message": 'no context window is known for model "deepseek-r1" (open-weight '
                "models run with their host's or runtime's window); only max_messages limits the "
                "history: give context_tokens or max_bytes",
            }
        ],
    ),
)

# --- shape errors name their path; chat parts name the format to pass --------------------------
case(
    "responses_invalid_part_names_its_path",
    "A chat image_url part among Responses items is a mix-up of formats: the error names the "
    "part and the format it belongs to.",
    {
        "format": "responses",
        "messages": [
            user("hi"),
            user_parts(input_text("see"), {"type": "image_url", "image_url": {"url": SMALL}}),
        ],
    },
    err("invalid_request", path="messages[1].content[1].type"),
)
case(
    "responses_item_without_type_or_role",
    "An item that is neither typed nor a bare {role, content} message is named by its path.",
    {"format": "responses", "messages": [user("hi"), {"call_id": "c1", "output": "x"}]},
    err("invalid_request", path="messages[1].type"),
)
case(
    "responses_parts_in_chat_format_name_the_format",
    "An input_image part passed in the chat format is not an opaque part (its data URL would be "
    'priced as text): the error names "responses" as the format to pass.',
    {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "what is this?"}, input_image(SCREEN)],
            }
        ]
    },
    err(
        "invalid_request",
        path="messages[0].content[1].type",
        message='a "input_image" part belongs to the "responses" format, not to OpenAI chat '
        'messages: pass format="responses"',
    ),
)

for stale in HERE.glob("responses_*.json"):
    stale.unlink()
for c in CASES:
    (HERE / f"{c['name']}.json").write_text(json.dumps(c, indent=1, ensure_ascii=False) + "\n")
print(f"wrote {len(CASES)} cases to {HERE}")

#!/usr/bin/env python3
"""Writes the shared cases of the OpenAI chat format's limits and options: the message count,
roles and pass-through fields, refill, implausible images, pricing profiles and remote images,
model names and windows, invalid requests, and clear_tool_results. Expectations are written by
hand from DESIGN.md and docs/ (trimming.md, options.md, images.md), with byte costs from
chat.py's cost model, never by the library itself.

Run: python3 tests/cases/generate_limits.py   (rewrites the JSON files of its cases)
"""

from __future__ import annotations

import base64
import copy
import json
import struct
import zlib

from chat import (
    BMP,
    IMAGE_BYTES,
    MISSING_TOKENIZER,
    NOTE,
    GIF_1x1,
    JPEG_500x375,
    Obj,
    PNG_1700x2200,
    a_text,
    a_use,
    assistant,
    call,
    calls,
    case,
    compact,
    cost,
    cost_of_text,
    err,
    filler,
    image,
    no_context_window,
    ok,
    reply,
    sys,
    text,
    total,
    unknown_model,
    user,
    write_cases,
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
img_ph = "[Image omitted to fit the context budget: PNG 1700×2200, ~765 tokens]"
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


# --- windows from the model (src/context_windows.rs) ----------------------------------------------


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

write_cases()

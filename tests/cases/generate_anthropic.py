#!/usr/bin/env python3
"""Writes the shared cases of the Anthropic Messages format (format "anthropic"): tool_use and
tool_result blocks, repair, merging, the answer starting on the user's turn, and regrow in
tokens. Anthropic messages are priced as their OpenAI-shaped equivalents (docs/formats.md,
"Anthropic format") with chat.py's cost model, never by the library itself.

Run: python3 tests/cases/generate_anthropic.py   (rewrites the JSON files of its cases)
"""

from __future__ import annotations

import copy
import json

from chat import (
    MISSING_TOKENIZER,
    NOTE,
    SYSTEM_PROMPT,
    Obj,
    PNG_1700x2200,
    a_result,
    a_text,
    a_use,
    assistant,
    call,
    calls,
    case,
    claude_tokens,
    compact,
    cost,
    err,
    filler,
    image,
    no_context_window,
    ok,
    reply,
    shrink,
    text,
    total,
    unknown_model,
    user,
    write_cases,
)

# --- Anthropic Messages format ----------------------------------------------------------------


PNG_B64 = PNG_1700x2200.split(",", 1)[1]
msgs: list[Obj] = [
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
# Anthropic messages are priced as their OpenAI-shaped equivalents (docs/formats.md,
# "Anthropic format"): tool_use blocks as tool_calls with the input as a JSON string, each
# tool_result as a tool message.
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

write_cases()

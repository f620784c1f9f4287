#!/usr/bin/env python3
"""Writes the shared cases of the Gemini `contents` format (tests/cases/gemini_*.json), each in
both spellings the SDKs produce: REST camelCase (`inlineData`, `functionCall`, …) and the Python
SDK's snake_case (`inline_data`, `function_call`, …). Expectations are written by hand from
docs/formats.md ("Gemini format"), with byte costs from the small independent cost model of
gemini.py, never by the library itself.

Run: python3 tests/cases/generate_gemini.py   (rewrites tests/cases/gemini_*.json)
"""

from __future__ import annotations

import copy
import json

from gemini import (
    CASES,
    HERE,
    LOCKED_B64,
    LOCKED_WARNING,
    NOTE,
    PNG_B64,
    REMOTE,
    SPELLINGS,
    STRIP_B64,
    STRIP_WARNING,
    SYSTEM,
    SYSTEM_COST,
    Obj,
    Spelling,
    case,
    compact,
    err,
    filler,
    gemini_tokens,
    model,
    ok,
    shrunk,
    user,
)

for s in SPELLINGS:
    # --- a function-calling loop, trimmed whole ---------------------------------------------------
    ask = "Check the config file. " + filler(400, "It is the one the service reads at start-up.")
    loop = [
        user(ask),
        model("Reading it.", s.fcall("read_file")),
        user(s.fresp("read_file", {"output": filler(3000, "config line")})),
        model("It parses."),
        user("Thanks. What next?"),
    ]
    budget = s.total([loop[0], loop[3], loop[4]]) + SYSTEM_COST + 200
    assert budget < s.total(loop) + SYSTEM_COST
    case(
        s,
        "function_loop_dropped_whole",
        "a functionCall and its functionResponse are one exchange, dropped together when it does "
        "not fit; the system instruction is pinned and echoed unchanged.",
        {"system": SYSTEM, "messages": loop, "max_bytes": budget},
        {
            "ok": True,
            "system": SYSTEM,
            "messages": [loop[0], loop[3], loop[4]],
            "report": {
                "format": "gemini",
                "dropped_messages": [1, 2],
                "merged": [],
                "repaired": [],
                "cost_bytes": s.total([loop[0], loop[3], loop[4]]) + SYSTEM_COST,
            },
        },
    )
    case(
        s,
        "function_loop_kept",
        "with room the loop comes back exactly as given.",
        {"system": SYSTEM, "messages": loop, "max_bytes": 100_000},
        ok(
            loop,
            dropped_messages=[],
            repaired=[],
            merged=[],
            cost_bytes=s.total(loop) + SYSTEM_COST,
        ),
    )

    # --- parallel calls, with and without ids -----------------------------------------------------
    par = [
        user("Weather in Paris and Rome? " + filler(500, "I am planning a trip.")),
        model(
            s.fcall("get_weather", {"city": "Paris"}, id="c1"),
            s.fcall("get_weather", {"city": "Rome"}, id="c2"),
        ),
        user(
            s.fresp("get_weather", {"temp": 25}, id="c2"),
            s.fresp("get_weather", {"temp": 20}, id="c1"),
        ),
        model("Paris 20, Rome 25."),
        user("And Berlin?"),
    ]
    case(
        s,
        "parallel_calls_with_ids_any_order",
        "parallel calls with ids are answered by id, in any order: one valid exchange.",
        {"messages": par, "max_bytes": 100_000},
        ok(par, repaired=[], dropped_messages=[], cost_bytes=s.total(par)),
    )
    tight = s.total([par[0], par[3], par[4]]) + 50
    case(
        s,
        "parallel_calls_dropped_whole",
        "when the exchange does not fit, both calls and both responses go together.",
        {"messages": par, "max_bytes": tight},
        ok([par[0], par[3], par[4]], dropped_messages=[1, 2], repaired=[]),
    )
    nid = [
        user("Read both files."),
        model(s.fcall("read_file", {"path": "a"}), s.fcall("stat_file", {"path": "b"})),
        user(s.fresp("read_file", {"output": "A"}), s.fresp("stat_file", {"size": 3})),
        user("Summarise."),
    ]
    case(
        s,
        "parallel_calls_without_ids_matched_by_order_and_name",
        "calls without ids are answered by order and name; the kept exchange is returned unchanged "
        "(no id is written).",
        {"messages": nid, "max_bytes": 100_000},
        ok(nid, repaired=[], dropped_messages=[], merged=[]),
    )
    swapped = copy.deepcopy(nid)
    swapped[2]["parts"].reverse()
    case(
        s,
        "repair_responses_out_of_order_without_ids",
        "responses without ids must follow the calls' order and names: swapped, they answer no "
        "call, so the calls go (the model content keeps the visible note) and so do the "
        "responses.",
        {"messages": swapped},
        ok(
            [swapped[0], model(NOTE), swapped[3]],
            repaired=[
                {
                    "index": 1,
                    "action": "incomplete_function_calls_removed",
                    "reason": 'a tool reply answers unknown function_call "messages[2].parts[0]"',
                },
                {
                    "index": 2,
                    "action": "incomplete_function_response_removed",
                    "reason": "response to the incomplete function calls of messages[1]",
                    "path": "messages[2].parts[0]",
                },
                {
                    "index": 2,
                    "action": "incomplete_function_response_removed",
                    "reason": "response to the incomplete function calls of messages[1]",
                    "path": "messages[2].parts[1]",
                },
            ],
            merged=[],
        ),
    )

    # --- an image inside a function response ------------------------------------------------------
    shot = [
        user("What does the tool's screenshot show? " + filler(500, "It is the settings window.")),
        model(s.fcall("screenshot", {})),
        user(s.fresp("screenshot", {"status": "captured"}, parts=[s.png()])),
    ]
    assert len(PNG_B64) > 8000
    case(
        s,
        "image_in_function_response_priced_by_pixels",
        "an image among a functionResponse's parts is priced by its pixels (Gemini 2.5's rule, "
        f"the format's default: {gemini_tokens(1700, 2200)} tokens), so it fits a budget its "
        "base64 alone would exceed.",
        {"messages": shot, "max_bytes": 8000},
        ok(shot, dropped_images=[], dropped_messages=[], cost_bytes=s.total(shot)),
    )
    ph = (
        "[Image omitted to fit the context budget: PNG 1700×2200, "
        f"~{gemini_tokens(1700, 2200)} tokens]"
    )
    without = copy.deepcopy(shot)
    without[2]["parts"] = [s.fresp("screenshot", {"status": "captured"}, parts=[s.text_blob(ph)])]
    budget = s.total(shot) - 4 * gemini_tokens(1700, 2200) + len(ph.encode()) + 20
    case(
        s,
        "image_in_function_response_placeholder",
        "when the exchange in progress does not fit, the response's image goes; a response's parts "
        "hold only media, so its placeholder is a text/plain blob in the image's place (in the "
        "spelling of the image part).",
        {"messages": shot, "max_bytes": budget},
        ok(
            without,
            dropped_images=[
                {
                    "index": 2,
                    "part": 0,
                    "format": "png",
                    "width": 1700,
                    "height": 2200,
                    "tokens": gemini_tokens(1700, 2200),
                    "budget_bytes": 4 * gemini_tokens(1700, 2200),
                }
            ],
            dropped_messages=[],
            cost_bytes=s.total(without),
        ),
    )
    assert s.total(without) == s.total(shot) - 4 * gemini_tokens(1700, 2200) + len(ph.encode())

    # --- the text of a function response shrinks -------------------------------------------------
    output = filler(6000, "stack frame")
    running = [
        user("Why does the build fail?"),
        model(s.fcall("run", {"cmd": "make"})),
        user(s.fresp("run", {"exit": 2, "output": output})),
    ]
    budget = s.total(running) - 3000
    out = copy.deepcopy(running)
    out[2]["parts"][0][s.response]["response"]["output"] = shrunk(output, 3000)
    case(
        s,
        "function_response_text_shrunk",
        "the exchange in progress does not fit: the strings of a functionResponse's response are "
        "its text, so its output shrinks (head and tail kept, the marker says how much was cut) "
        "instead of the agent losing the result it asked for.",
        {"messages": running, "max_bytes": budget},
        ok(
            out,
            truncated=[{"index": 2, "part": 0, "from_bytes": 6000, "to_bytes": 3000}],
            dropped_messages=[],
            cost_bytes=budget,
        ),
    )

    # --- thought signatures are untouched ---------------------------------------------------------
    plan = filler(2500, "thinking about the build")
    explain = filler(3000, "the linker says")
    signed = [
        user("Why does the build fail?"),
        model(
            {"text": plan, "thought": True, s.signature: "c2lnbmF0dXJlLTE="},
            {"text": explain},
            s.fcall("run", {"cmd": "make"}, **{s.signature: "c2lnbmF0dXJlLTI="}),
        ),
        user(s.fresp("run", {"exit": 2})),
    ]
    budget = s.total(signed) - 1500
    out = copy.deepcopy(signed)
    out[1]["parts"][1]["text"] = shrunk(explain, 1500)
    case(
        s,
        "thought_signature_untouched",
        "the exchange in progress does not fit: its plain text shrinks, while the thought part and "
        "the signed functionCall stay byte for byte.",
        {"messages": signed, "max_bytes": budget},
        ok(
            out,
            truncated=[{"index": 1, "part": 1, "from_bytes": 3000, "to_bytes": 1500}],
            dropped_messages=[],
            cost_bytes=budget,
        ),
    )

    # --- valid output: first content user, merging ------------------------------------------------
    greet = [model("Hi! How can I help?"), user("Open my calendar.")]
    case(
        s,
        "first_content_is_user",
        "the first content must be the user's: a leading model greeting goes.",
        {"messages": greet, "max_bytes": 600},
        ok([greet[1]], dropped_messages=[0]),
    )
    starts = [
        model(s.fcall("list_events", {})),
        user(s.fresp("list_events", {"events": []})),
        model("Your day is free."),
        user("Book lunch at noon."),
    ]
    case(
        s,
        "history_never_starts_with_a_function_call",
        "a history restored mid-loop starts with a function call: the exchange and the model turn "
        "after it go, so the history starts with the user.",
        {"messages": starts, "max_bytes": 4000},
        ok([starts[3]], dropped_messages=[0, 1, 2], repaired=[]),
    )
    long = [
        user(filler(5000, "long old context")),
        model("Old answer."),
        user("Short note."),
        model(filler(3000, "detailed answer")),
        user("So, which option?"),
    ]
    case(
        s,
        "roles_alternate_by_merging",
        "when the model content between two kept user contents is dropped, the two merge into one "
        "user content (parts in order); the report lists the merge (fill: false: whole groups "
        "only).",
        {"messages": long, "max_bytes": 600, "fill": False},
        ok(
            [user("Short note.", "So, which option?")],
            dropped_messages=[0, 1, 3],
            merged=[{"index": 4, "into": 2}],
        ),
    )

    # --- repair -----------------------------------------------------------------------------------
    orphan = [user("hi"), model("hello"), user(s.fresp("get_weather", {"temp": 3}), "and now?")]
    case(
        s,
        "repair_orphan_response",
        "a functionResponse that answers no call of the model content right before it is removed; "
        "the user's words in the same content stay.",
        {"messages": orphan},
        ok(
            [orphan[0], orphan[1], user("and now?")],
            repaired=[
                {
                    "index": 2,
                    "action": "orphan_function_response_removed",
                    "reason": "function_response does not answer a function_call of the assistant "
                    "message right before it",
                    "path": "messages[2].parts[0]",
                }
            ],
        ),
    )
    unanswered = [
        user("run it"),
        model("Running.", s.fcall("run", {"cmd": "make"}, id="c1")),
        user("status?"),
    ]
    case(
        s,
        "repair_call_without_response",
        "a functionCall without its response (a session saved mid-call) goes; the model content "
        "keeps its text and gets the visible note.",
        {"messages": unanswered},
        ok(
            [unanswered[0], model("Running.", NOTE), unanswered[2]],
            repaired=[
                {
                    "index": 1,
                    "action": "incomplete_function_calls_removed",
                    "reason": 'function_call "c1" has no reply',
                }
            ],
        ),
    )
    counts = [
        user("check"),
        model(s.fcall("a", {}), s.fcall("b", {})),
        user(s.fresp("a", {"ok": True})),
        model("Done."),
        user("next?"),
    ]
    case(
        s,
        "repair_response_count_differs",
        "two calls and one response: the counts must be equal, so the calls and the response go; "
        "the note stands alone and the two model contents left side by side merge.",
        {"messages": counts},
        ok(
            [counts[0], model(NOTE, "Done."), counts[4]],
            repaired=[
                {
                    "index": 1,
                    "action": "incomplete_function_calls_removed",
                    "reason": 'function_call "messages[1].parts[1]" has no reply',
                },
                {
                    "index": 2,
                    "action": "incomplete_function_response_removed",
                    "reason": "response to the incomplete function calls of messages[1]",
                    "path": "messages[2].parts[0]",
                },
            ],
            merged=[{"index": 3, "into": 1}],
        ),
    )
    badargs = [
        user("open a"),
        model("Let me look.", s.fcall("read", "a")),
        user(s.fresp("read", {"x": 1})),
        user("and?"),
    ]
    case(
        s,
        "repair_malformed_call",
        "args that are not an object: the call and its response go, the text keeps the note.",
        {"messages": badargs},
        ok(
            [badargs[0], model("Let me look.", NOTE), user("and?")],
            repaired=[
                {
                    "index": 1,
                    "action": "incomplete_function_calls_removed",
                    "reason": "function_call args is not an object",
                    "path": f"messages[1].parts[1].{s.call}.args",
                },
                {
                    "index": 2,
                    "action": "incomplete_function_response_removed",
                    "reason": "response to the incomplete function calls of messages[1]",
                    "path": "messages[2].parts[0]",
                },
            ],
        ),
    )
    case(
        s,
        "sanitize_takes_the_format",
        'sanitize with {"messages", "format": "gemini"} repairs contents as trim does.',
        {"messages": counts, "format": "gemini"},
        ok([counts[0], model(NOTE, "Done."), counts[4]], merged=[{"index": 3, "into": 1}]),
        function="sanitize",
    )

    # --- pricing and fields ----------------------------------------------------------------------
    pics = [user("Old screen:", s.jpeg()), model("Seen."), user("And this one?", s.remote())]
    case(
        s,
        "images_priced_by_gemini_rule",
        f"inline images are priced by their pixels under Gemini 2.5 ({gemini_tokens(500, 375)} "
        "tokens for 500×375), file images like remote ones (image_sizes: 960×540 is "
        f"{gemini_tokens(960, 540)}).",
        {"messages": pics, "max_bytes": 100_000, "image_sizes": {REMOTE: [960, 540]}},
        ok(pics, cost_bytes=s.total(pics), dropped_images=[]),
    )
    older = [user("Old screen:", s.jpeg()), model("Seen."), user("And now?")]
    budget = s.total(older) + 100
    placeholder = {"text": "[Image omitted to fit the context budget: JPEG 500×375, ~1120 tokens]"}
    case(
        s,
        "model_selects_pricing",
        "model=gemini-3-pro prices every image at 1,120 tokens (media resolution high), not "
        f"{gemini_tokens(500, 375)}: the older screenshot then no longer fits; the user content "
        "that began the kept model turn comes back with the image as a placeholder (the answer "
        "starts with the user's turn).",
        {"messages": older, "max_bytes": budget, "model": "gemini-3-pro"},
        ok(
            [user("Old screen:", placeholder), older[1], older[2]],
            dropped_messages=[],
            dropped_images=[
                {
                    "index": 0,
                    "part": 1,
                    "format": "jpeg",
                    "width": 500,
                    "height": 375,
                    "tokens": 1120,
                    "budget_bytes": 4480,
                }
            ],
            turn_start={"index": 0, "kept": "shrunk"},
        ),
    )
    case(
        s,
        "default_pricing_keeps_same_image",
        "the same session under the format's default pricing keeps the screenshot.",
        {"messages": older, "max_bytes": budget},
        ok(older, dropped_messages=[], cost_bytes=s.total(older)),
    )
    big = filler(2000, "row")
    fields = [
        user({"text": big, "partMetadata": {"source": "clipboard"}}, {"videoMetadata": {"fps": 1}}),
        model("Noted."),
        user("Go on."),
    ]
    budget = s.total([fields[0], fields[2]]) - 1000
    part = dict(fields[0]["parts"][0], text=shrunk(big, 1000))
    case(
        s,
        "unknown_fields_preserved",
        "fields the library does not know pass through, also on a text part whose text was shrunk "
        "(the model turn goes first, whole; the two user contents it leaves side by side merge).",
        {"messages": fields, "max_bytes": budget},
        ok(
            [user(part, fields[0]["parts"][1], "Go on.")],
            dropped_messages=[1],
            merged=[{"index": 2, "into": 0}],
            truncated=[{"index": 0, "part": 0, "from_bytes": 2000, "to_bytes": 1000}],
        ),
    )

    case(
        s,
        "unknown_model_answers_with_a_warning",
        "a model no family claims is priced by the format's default, Gemini 2.5's rule, and the "
        "report says what was assumed.",
        {"messages": older, "max_bytes": 100_000, "model": "vertex_ai/house-model"},
        ok(
            older,
            dropped_messages=[],
            cost_bytes=s.total(older),
            warnings=[
                {
                    "code": "unknown_model",
                    "index": None,
                    "part": None,
                    "path": "model",
                    "message": 'no model family claims "vertex_ai/house-model"; assumed: images '
                    'priced by the "gemini" rule (the default), text counted in bytes; '
                    "strict_model: true makes an unknown model an error",
                }
            ],
        ),
    )
    case(
        s,
        "unknown_model_strict_is_an_error",
        "strict_model: true makes a model no family claims an invalid_request at model.",
        {
            "messages": older,
            "max_bytes": 100_000,
            "model": "vertex_ai/house-model",
            "strict_model": True,
        },
        err("invalid_request", path="model"),
    )
    case(
        s,
        "text_model_answers",
        "gemma3 (Ollama's tag) has no image rule here but its family is known: the format's "
        "default prices the screenshot, without a warning.",
        {"messages": older, "max_bytes": 100_000, "model": "ollama/gemma3:4b"},
        ok(older, dropped_messages=[], cost_bytes=s.total(older), warnings=[]),
    )

    case(
        s,
        "tokenizer_file_missing_names_the_path",
        "a tokenizer file that is not there is an invalid_request naming it.",
        {"messages": older, "context_tokens": 8192, "tokenizer": {"file": "/no/such/model-dir"}},
        err(
            "invalid_request",
            path="tokenizer.file",
            message='tokenizer file "/no/such/model-dir": no such file or folder',
        ),
    )
    case(
        s,
        "model_gives_the_window",
        "gemini-2.5-flash's window is 1,048,576 with 65,536 output: 1,048,576 − 65,536 − 256 = "
        "982,784 tokens.",
        {"messages": older, "model": "gemini/gemini-2.5-flash"},
        ok(older, unit="tokens", budget_tokens=982_784, warnings=[]),
    )
    case(
        s,
        "model_without_a_window_says_so",
        "a model without a window entry keeps only max_messages, and says so.",
        {"messages": older, "model": "gemma3:27b"},
        ok(
            older,
            budget_tokens=None,
            warnings=[
                {
                    "code": "no_context_window",
                    "index": None,
                    "part": None,
                    "path": "model",
                    "message": 'no context window is known for model "gemma3:27b" (open-weight '
                    "models run with their host's or runtime's window); only max_messages limits "
                    "the history: give context_tokens or max_bytes",
                }
            ],
        ),
    )

# --- a follow-up after a function-calling loop: the answer starts on the user's turn --------------
for s in SPELLINGS:
    spec = filler(5000, "spec of the settings page layout")
    results = [filler(1200, f"result {i} line") for i in range(3)]
    follow = [user(spec)]
    for i, body in enumerate(results):
        follow += [
            model(s.fcall("read_file", id=f"c{i}")),
            user(s.fresp("read_file", {"output": body}, id=f"c{i}")),
        ]
    follow += [model("I changed the CSS."), user("Does it look right now?")]
    room = 600
    budget = s.total(follow[3:]) + room
    assert s.total(follow[1:3]) > room
    to_bytes = room - len(compact({"role": "user"}))
    case(
        s,
        "follow_up_after_function_loop_starts_on_the_user_turn",
        "the kept run starts with the model's turn (a functionCall exchange); Gemini wants a user "
        "content first, so the user content that began that turn (the long first one, too long to "
        "anchor) comes back shrunk into the room left, instead of the whole run being dropped.",
        {"messages": follow, "max_bytes": budget},
        ok(
            [user(shrunk(spec, to_bytes))] + follow[3:],
            dropped_messages=[1, 2],
            truncated=[{"index": 0, "part": 0, "from_bytes": len(spec), "to_bytes": to_bytes}],
            turn_start={"index": 0, "kept": "shrunk", "to_bytes": room},
            cost_bytes=budget,
        ),
    )

# --- regrow, in tokens: the room an image's placeholder frees goes back to the cut text -----------
for s in SPELLINGS:
    log = "".join(f"GET /api/items?page={i} 200 {i % 90 + 3}ms\n" for i in range(40))
    regrow = [
        user("Why does the page look broken?", s.png()),
        model(s.fcall("read_log", id="c_log")),
        user(s.fresp("read_log", {"output": log}, id="c_log")),
    ]
    case(
        s,
        "regrow_gives_freed_room_to_the_exchange_in_progress",
        "in tokens: the exchange in progress (a 40-line log, about 450 tokens) is first cut to "
        "fit, then the request's screenshot still does not fit and becomes a placeholder; the "
        "room that frees goes back to the cut log first (regrow): it is returned whole, nothing "
        "is reported truncated.",
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
                user(
                    "Why does the page look broken?",
                    {
                        "text": "[Image omitted to fit the context budget: PNG 1700×2200, ~765 "
                        "tokens]"
                    },
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

# --- errors name the keys as the caller spelled them ---------------------------------------------
for s in SPELLINGS:
    no_data = {s.inline: {s.mime: "image/png", "data": 5}}
    case(
        s,
        "image_without_data_names_its_path",
        "an inline image whose data is not a string is an invalid_request at its data, under "
        "the key as written.",
        {"messages": [user("look", no_data)]},
        err("invalid_request", path=f"messages[0].parts[1].{s.inline}.data"),
    )
    case(
        s,
        "image_file_without_uri_names_its_path",
        "an image file part without a file URI is an invalid_request at its URI, under the keys "
        "as written.",
        {"messages": [user("look", {s.file: {s.mime: "image/png"}})]},
        err("invalid_request", path=f"messages[0].parts[1].{s.file}.{s.uri}"),
    )
    case(
        s,
        "response_image_without_data_names_its_path",
        "an image among a function response's parts whose data is not a string is an "
        "invalid_request at its data, under the keys as written.",
        {
            "messages": [
                user("Take a screenshot."),
                model(s.fcall("screenshot", {}, id="c_shot")),
                user(s.fresp("screenshot", {}, id="c_shot", parts=[no_data])),
            ]
        },
        err("invalid_request", path=f"messages[2].parts[0].{s.response}.parts[0].{s.inline}.data"),
    )


# --- report paths inside a function response name its keys as the caller spelled them ---------
def screenshot_reply(s: Spelling, item: Obj) -> list[Obj]:
    """A request, the model's call, and the function response holding `item` among its parts."""
    return [
        user("Take a screenshot of the dialog."),
        model(s.fcall("screenshot", {}, id="c_1")),
        user(s.fresp("screenshot", {"output": "Screenshot taken."}, id="c_1", parts=[item])),
    ]


for s in SPELLINGS:
    at = f"messages[2].parts[0].{s.response}.parts[0]"
    strip = screenshot_reply(s, {s.inline: {s.mime: "image/png", "data": STRIP_B64}})
    warning = {"code": "implausible_image", "index": 2, "part": 0, "path": at}
    case(
        s,
        "response_implausible_image_warning_names_its_path",
        "an implausible PNG header among a function response's parts is warned about at the "
        "image's path, under the keys as written; every content fits and comes back as it is.",
        {"messages": strip, "max_bytes": 100_000, "image_profile": "ankita"},
        ok(strip, dropped_messages=[], warnings=[{**warning, "message": STRIP_WARNING}]),
    )
    screen = screenshot_reply(s, s.png())
    case(
        s,
        "response_image_overflow_error_names_its_path",
        "a screenshot among the parts of the function response the model has not seen yet does "
        'not fit and on_image_overflow is "error": the error names the image under the keys as '
        "written.",
        {
            "messages": screen,
            "max_bytes": 1_000,
            "image_profile": "ankita",
            "on_image_overflow": "error",
        },
        err(
            "image_overflow",
            path=at,
            message=f"Image {at} (PNG 1700×2200, ~765 tokens) does not fit the context budget "
            'and on_image_overflow is "error".',
        ),
    )
    locked = screenshot_reply(s, {s.inline: {s.mime: "application/pdf", "data": LOCKED_B64}})
    warning = {**warning, "code": "unreadable_file", "message": LOCKED_WARNING}
    case(
        s,
        "response_unreadable_file_warning_names_its_path",
        "an unreadable PDF among a function response's parts is priced conservatively and "
        "warned about at its path, under the keys as written.",
        {"messages": locked, "max_bytes": 100_000, "image_profile": "gemini"},
        ok(locked, dropped_messages=[], warnings=[warning]),
    )

# --- errors (spelling-free) -----------------------------------------------------------------------
s = SPELLINGS[0]
case(
    s,
    "roles_are_user_and_model",
    'an "assistant" role is a mix-up of formats, named by its path.',
    {"messages": [user("hi"), {"role": "assistant", "parts": [{"text": "hello"}]}]},
    err("invalid_request", path="messages[1].role"),
)
CASES[-1]["name"] = "gemini_roles_are_user_and_model"
CASES.append(
    {
        "name": "gemini_system_instruction_as_a_part",
        "description": "Gemini: the system instruction may be a single part (google-genai takes a "
        "str, a Part, parts or a Content): pinned, costed as its text, echoed unchanged.",
        "function": "trim",
        "request": {
            "format": "gemini",
            "system": {"text": "Be brief."},
            "messages": [user("hi")],
            "max_bytes": 1000,
        },
        "expect": {
            "ok": True,
            "system": {"text": "Be brief."},
            "messages": [user("hi")],
            "report": {"format": "gemini", "cost_bytes": len("Be brief.") + s.total([user("hi")])},
        },
    }
)
CASES.append(
    {
        "name": "gemini_chat_format_names_gemini",
        "description": 'Gemini contents passed without format="gemini": an error names the '
        "format to pass.",
        "function": "trim",
        "request": {"messages": [user("hi")]},
        "expect": err("invalid_request", path="messages[0].parts"),
    }
)

for old in HERE.glob("gemini_*.json"):
    old.unlink()
for c in CASES:
    (HERE / f"{c['name']}.json").write_text(json.dumps(c, indent=1, ensure_ascii=False) + "\n")
print(f"wrote {len(CASES)} cases to {HERE}")

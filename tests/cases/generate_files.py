#!/usr/bin/env python3
"""Writes the shared cases of documents and audio (tests/cases/files_*.json) in every format's
part: Anthropic `document`, OpenAI chat `file` and `input_audio`, Responses `input_file` and
`input_audio`, Gemini `inlineData` / `fileData`, AI SDK `file`. A shed file's placeholder and
report entry name it where the part does (a file name, a document title, a file id, a URL's
last segment). Prices follow docs/documents-and-audio.md under the `gemini` profile (258 tokens
a page, 32 a second: Gemini 2.5's published figures), with the page count and duration taken
from tests/fixtures/files/manifest.json (what pdfinfo and ffprobe say), never from the library
itself.

Run: python3 tests/cases/generate_files.py   (rewrites tests/cases/files_*.json)
"""

from __future__ import annotations

import base64
import json
import math
import pathlib
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
FILES = HERE.parent / "fixtures" / "files"
MANIFEST = {e["file"]: e for e in json.loads((FILES / "manifest.json").read_text())}
# A JSON object: a message, a part, a request or an expectation.
Obj = dict[str, Any]
CASES: list[Obj] = []
BYTES_PER_TOKEN = 4
PAGE = 258  # Gemini 2.5, a PDF page
SECOND = 32  # Gemini 2.5, a second of audio

PDF = "pdf-10-objstm.pdf"
PDF_B64 = base64.b64encode((FILES / PDF).read_bytes()).decode()
PAGES = MANIFEST[PDF]["pages"]
MP3 = "mp3-30s-cbr.mp3"
MP3_B64 = base64.b64encode((FILES / MP3).read_bytes()).decode()
SECONDS = math.ceil(MANIFEST[MP3]["seconds"])  # whole seconds, rounded up
ENCRYPTED_B64 = base64.b64encode((FILES / "pdf-3-encrypted-objstm.pdf").read_bytes()).decode()
REMOTE = "https://example.com/reports/q3.pdf"
REMOTE_NAME = "q3.pdf"  # the URL's last segment
# What each format's PDF part calls its file (an inline Gemini blob has no name).
PDF_NAME: dict[str, str | None] = {
    "openai": "q3.pdf",
    "anthropic": "Quarterly report, Q3",
    "responses": "q3.pdf",
    "gemini": None,
    "ai-sdk": "q3.pdf",
}
FORMATS = ["openai", "anthropic", "responses", "gemini", "ai-sdk"]
# An unreadable PDF counts a page per 4 KiB of its bytes (base64: 3 bytes in 4 characters).
LOCKED_PAGES = max(1, math.ceil(len(ENCRYPTED_B64) // 4 * 3 / 4096))
assert LOCKED_PAGES == 1


def group(n: int) -> str:
    return f"{n:,}"


def case(name: str, description: str, request: Obj, expect: Obj) -> None:
    CASES.append(
        {
            "name": name,
            "description": description,
            "function": "trim",
            "request": request,
            "expect": expect,
        }
    )


def text_part(fmt: str, t: str) -> Obj:
    if fmt == "gemini":
        return {"text": t}
    if fmt == "responses":
        return {"type": "input_text", "text": t}
    return {"type": "text", "text": t}


def pdf_part(fmt: str, b64: str) -> Obj:
    url = "data:application/pdf;base64," + b64
    by_format: dict[str, Obj] = {
        "openai": {"type": "file", "file": {"filename": PDF_NAME["openai"], "file_data": url}},
        "anthropic": {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": b64},
            "title": PDF_NAME["anthropic"],
        },
        "responses": {"type": "input_file", "filename": PDF_NAME["responses"], "file_data": url},
        "gemini": {"inlineData": {"mimeType": "application/pdf", "data": b64}},
        "ai-sdk": {
            "type": "file",
            "data": b64,
            "mediaType": "application/pdf",
            "filename": PDF_NAME["ai-sdk"],
        },
    }
    return by_format[fmt]


def remote_pdf_part(fmt: str) -> Obj:
    by_format: dict[str, Obj] = {
        "openai": {"type": "file", "file": {"file_id": REMOTE}},
        "anthropic": {"type": "document", "source": {"type": "url", "url": REMOTE}},
        "responses": {"type": "input_file", "file_url": REMOTE},
        "gemini": {"fileData": {"mimeType": "application/pdf", "fileUri": REMOTE}},
        "ai-sdk": {"type": "file", "data": REMOTE, "mediaType": "application/pdf"},
    }
    return by_format[fmt]


def audio_part(fmt: str) -> Obj:
    if fmt == "gemini":
        return {"inlineData": {"mimeType": "audio/mp3", "data": MP3_B64}}
    if fmt == "ai-sdk":
        return {"type": "file", "data": MP3_B64, "mediaType": "audio/mpeg"}
    return {"type": "input_audio", "input_audio": {"data": MP3_B64, "format": "mp3"}}


def case_name(fmt: str) -> str:
    return fmt.replace("-", "_")


def named(name: str | None) -> str:
    """How a placeholder or a message names a file: in quotes, before what it is."""
    return f'"{name}", ' if name is not None else ""


def user(fmt: str, parts: list[Obj]) -> Obj:
    key = "parts" if fmt == "gemini" else "content"
    return {"role": "user", key: parts}


def request(fmt: str, messages: list[Obj], budget: int, **extra: Any) -> Obj:
    return {
        "format": fmt,
        "messages": messages,
        "max_bytes": budget,
        "overhead_bytes": 0,
        "image_profile": "gemini",
        **extra,
    }


def ok(messages: list[Obj] | None = None, **report: Any) -> Obj:
    out: Obj = {"ok": True, "report": report}
    if messages is not None:
        out["messages"] = messages
    return out


def dropped(kind: str, fmt_name: str, count: int, tokens: int, name: str | None = None) -> Obj:
    unit = "pages" if kind == "document" else "seconds"
    return {
        "index": 0,
        "part": 1,
        "kind": kind,
        "name": name,
        "format": fmt_name,
        unit: count,
        "tokens": tokens,
        "budget_bytes": tokens * BYTES_PER_TOKEN,
    }


PDF_TOKENS = PAGES * PAGE


def pdf_placeholder(name: str | None) -> str:
    return (
        f"[Document omitted to fit the context budget: {named(name)}PDF, {PAGES} pages, "
        f"~{group(PDF_TOKENS)} tokens]"
    )


MP3_TOKENS = SECONDS * SECOND
MP3_PLACEHOLDER = (
    f"[Audio omitted to fit the context budget: MP3, {SECONDS} s, ~{group(MP3_TOKENS)} tokens]"
)
KEY = {"gemini": "parts"}

for fmt in FORMATS:
    key = KEY.get(fmt, "content")
    name = PDF_NAME[fmt]
    cname = case_name(fmt)
    ask = text_part(fmt, "Summarise the report.")
    msg = user(fmt, [ask, pdf_part(fmt, PDF_B64)])
    case(
        f"files_{cname}_pdf_fits_whole",
        f"A {PAGES}-page PDF (object-stream cross-references) costs {PAGE} tokens a page under "
        "the gemini profile, not its base64's length: in a window that holds it, it is "
        "returned byte for byte.",
        request(fmt, [msg], 100_000),
        ok([msg], dropped_files=[], dropped_messages=[], truncated=[], warnings=[]),
    )
    small = PDF_TOKENS * BYTES_PER_TOKEN // 4
    case(
        f"files_{cname}_pdf_shed_as_a_placeholder",
        "A PDF that does not fit the request's own window goes like an image: a text part says "
        "what it was (never a text block holding its base64), listed in dropped_files.",
        request(fmt, [msg], small),
        ok(
            [user(fmt, [ask, text_part(fmt, pdf_placeholder(name))])],
            limited_by="budget",
            dropped_files=[dropped("document", "pdf", PAGES, PDF_TOKENS, name)],
            dropped_images=[],
        ),
    )
    case(
        f"files_{cname}_pdf_drop_mode",
        "on_image_overflow=drop removes a document part that does not fit.",
        request(fmt, [msg], small, on_image_overflow="drop"),
        ok(
            [user(fmt, [ask])],
            dropped_files=[dropped("document", "pdf", PAGES, PDF_TOKENS, name)],
        ),
    )
    case(
        f"files_{cname}_pdf_error_mode",
        "on_image_overflow=error fails, naming the document.",
        request(fmt, [msg], small, on_image_overflow="error"),
        {
            "ok": False,
            "error": {
                "code": "image_overflow",
                "path": f"messages[0].{key}[1]",
                "message": f"Document messages[0].{key}[1] ({named(name)}PDF, {PAGES} pages, "
                f"~{group(PDF_TOKENS)} tokens) does not fit the context budget and "
                'on_image_overflow is "error".',
            },
        },
    )
    remote = user(fmt, [ask, remote_pdf_part(fmt)])
    case(
        f"files_{cname}_remote_pdf_sized_by_file_sizes",
        "A remote PDF (a URL or file id) is priced at the pages file_sizes gives.",
        request(fmt, [remote], 2_000, file_sizes={REMOTE: 3}),
        ok(
            [
                user(
                    fmt,
                    [
                        ask,
                        text_part(
                            fmt,
                            "[Document omitted to fit the context budget: "
                            f"{named(REMOTE_NAME)}remote PDF, 3 pages, "
                            f"~{group(3 * PAGE)} tokens]",
                        ),
                    ],
                )
            ],
            dropped_files=[
                {
                    "index": 0,
                    "part": 1,
                    "kind": "document",
                    "name": REMOTE_NAME,
                    "format": None,
                    "pages": 3,
                    "tokens": 3 * PAGE,
                    "budget_bytes": 3 * PAGE * BYTES_PER_TOKEN,
                }
            ],
        ),
    )
    locked = user(fmt, [ask, pdf_part(fmt, ENCRYPTED_B64)])
    case(
        f"files_{cname}_unreadable_pdf_is_warned_about",
        "A PDF whose objects sit in encrypted object streams cannot be read: it is priced "
        "conservatively (a page per 4 KiB, at least one) and the report warns.",
        request(fmt, [locked], 100_000),
        ok(
            [locked],
            warnings=[
                {
                    "code": "unreadable_file",
                    "index": 0,
                    "part": 1,
                    "path": f"messages[0].{key}[1]",
                    "message": "the file could not be read; priced conservatively: "
                    f"{named(name)}unreadable PDF (encrypted PDF), ~{LOCKED_PAGES} page "
                    f"estimated, ~{LOCKED_PAGES * PAGE} tokens",
                }
            ],
        ),
    )
    if fmt == "anthropic":
        continue  # Claude takes no audio input.
    ask = text_part(fmt, "Transcribe this.")
    msg = user(fmt, [ask, audio_part(fmt)])
    case(
        f"files_{cname}_audio_fits_whole",
        f"{SECONDS} s of MP3 cost {SECOND} tokens a second under the gemini profile: returned "
        "whole in a window that holds them.",
        request(fmt, [msg], 100_000),
        ok([msg], dropped_files=[], dropped_messages=[], truncated=[]),
    )
    case(
        f"files_{cname}_audio_shed_as_a_placeholder",
        "Audio that does not fit goes like an image: a placeholder says how long it was.",
        request(fmt, [msg], MP3_TOKENS * BYTES_PER_TOKEN // 4),
        ok(
            [user(fmt, [ask, text_part(fmt, MP3_PLACEHOLDER)])],
            dropped_files=[dropped("audio", "mp3", SECONDS, MP3_TOKENS)],
        ),
    )

# A shed file is named by what the part gives: a file id, a document's title over its source,
# a URL's last segment (its query left out), in every format that has the shape.
FILE_ID = "file-6F2ksmvXxt4VdoqmHRw6kL"
GEMINI_URI = "https://generativelanguage.googleapis.com/v1beta/files/quarterly-report-q3"
SIGNED = "https://cdn.example.com/reports/q3-board.pdf?X-Amz-Signature=abc123#page=2"
CALL = "gs://recordings/calls/monday-standup.mp3"
CALL_URL = "https://recordings.example.com/calls/monday-standup.mp3"
NAMED: list[tuple[str, str, str, Obj, str, str]] = [
    # (case, format, what names it, part, the key file_sizes knows it by, the name shown)
    (
        "openai_file_id",
        "openai",
        "a chat `file` part's file_id",
        {"type": "file", "file": {"file_id": FILE_ID}},
        FILE_ID,
        FILE_ID,
    ),
    (
        "openai_filename_over_file_id",
        "openai",
        "a chat `file` part's filename, over its file_id",
        {"type": "file", "file": {"file_id": FILE_ID, "filename": "board-deck.pdf"}},
        FILE_ID,
        "board-deck.pdf",
    ),
    (
        "responses_file_url",
        "responses",
        "an `input_file`'s file_url (its last segment, the query left out, which also says it "
        "is a PDF)",
        {"type": "input_file", "file_url": SIGNED},
        SIGNED,
        "q3-board.pdf",
    ),
    (
        "responses_filename_over_url",
        "responses",
        "an `input_file`'s filename, over its file_url",
        {"type": "input_file", "file_url": SIGNED, "filename": "Board deck.pdf"},
        SIGNED,
        "Board deck.pdf",
    ),
    (
        "anthropic_file_id",
        "anthropic",
        "a `document` block's file source (its file_id)",
        {"type": "document", "source": {"type": "file", "file_id": FILE_ID}},
        FILE_ID,
        FILE_ID,
    ),
    (
        "anthropic_title_over_url",
        "anthropic",
        "a `document` block's title, over its URL source",
        {
            "type": "document",
            "source": {"type": "url", "url": SIGNED},
            "title": "Board deck, Q3",
        },
        SIGNED,
        "Board deck, Q3",
    ),
    (
        "gemini_file_uri",
        "gemini",
        "a `fileData` part's fileUri (its last segment)",
        {"fileData": {"mimeType": "application/pdf", "fileUri": GEMINI_URI}},
        GEMINI_URI,
        "quarterly-report-q3",
    ),
    (
        "ai_sdk_file_url",
        "ai-sdk",
        "a `file` part's URL (its last segment, the query left out)",
        {"type": "file", "data": SIGNED, "mediaType": "application/pdf"},
        SIGNED,
        "q3-board.pdf",
    ),
    (
        "ai_sdk_filename_over_url",
        "ai-sdk",
        "a `file` part's filename, over its URL",
        {"type": "file", "data": SIGNED, "mediaType": "application/pdf", "filename": "deck.pdf"},
        SIGNED,
        "deck.pdf",
    ),
]
for label, fmt, what, part, key_name, shown in NAMED:
    ask = text_part(fmt, "Compare these.")
    msg = user(fmt, [ask, part])
    placeholder = (
        f"[Document omitted to fit the context budget: {named(shown)}remote PDF, 3 pages, "
        f"~{group(3 * PAGE)} tokens]"
    )
    case(
        f"files_{label}_names_the_shed_document",
        f"A shed document is named by {what}, in its placeholder and in dropped_files: the "
        "model is told which document it did not see.",
        request(fmt, [msg], 2_000, file_sizes={key_name: 3}),
        ok(
            [user(fmt, [ask, text_part(fmt, placeholder)])],
            dropped_files=[
                {
                    "index": 0,
                    "part": 1,
                    "kind": "document",
                    "name": shown,
                    "format": None,
                    "pages": 3,
                    "tokens": 3 * PAGE,
                    "budget_bytes": 3 * PAGE * BYTES_PER_TOKEN,
                }
            ],
            dropped_images=[],
        ),
    )
AUDIO_URLS: list[tuple[str, Obj]] = [
    ("gemini", {"fileData": {"mimeType": "audio/mpeg", "fileUri": CALL}}),
    ("ai-sdk", {"type": "file", "data": CALL_URL, "mediaType": "audio/mpeg"}),
]
for fmt, part in AUDIO_URLS:
    ask = text_part(fmt, "Transcribe this.")
    msg = user(fmt, [ask, part])
    url = CALL if fmt == "gemini" else CALL_URL
    case(
        f"files_{case_name(fmt)}_remote_audio_names_the_shed_file",
        "Shed audio known by URL is named by the URL's last segment.",
        request(fmt, [msg], 2_000, file_sizes={url: 60}),
        ok(
            [
                user(
                    fmt,
                    [
                        ask,
                        text_part(
                            fmt,
                            "[Audio omitted to fit the context budget: "
                            f'"monday-standup.mp3", remote audio, 60 s, ~{group(60 * SECOND)} '
                            "tokens]",
                        ),
                    ],
                )
            ],
            dropped_files=[
                {
                    "index": 0,
                    "part": 1,
                    "kind": "audio",
                    "name": "monday-standup.mp3",
                    "format": None,
                    "seconds": 60,
                    "tokens": 60 * SECOND,
                    "budget_bytes": 60 * SECOND * BYTES_PER_TOKEN,
                }
            ],
        ),
    )


def assistant(fmt: str, t: str) -> Obj:
    if fmt == "gemini":
        return {"role": "model", "parts": [{"text": t}]}
    return {"role": "assistant", "content": t}


# Fill (the group where selection stopped comes back shrunk into the room left) and the user-turn
# rule (the user message that began the kept run's turn comes back, shrunk) shed a file as
# shedding does: listed in dropped_files, never in dropped_images. The formats whose answer
# starts on the user's turn bring the old message back by that rule (turn_start), the others by
# fill (refilled).
USER_TURN_FIRST = {"anthropic", "gemini", "ai-sdk"}
for fmt in FORMATS:
    name = PDF_NAME[fmt]
    kinds: list[tuple[str, Obj, str, Obj]] = [
        (
            "document",
            pdf_part(fmt, PDF_B64),
            pdf_placeholder(name),
            dropped("document", "pdf", PAGES, PDF_TOKENS, name),
        )
    ]
    if fmt != "anthropic":
        kinds.append(
            (
                "audio",
                audio_part(fmt),
                MP3_PLACEHOLDER,
                dropped("audio", "mp3", SECONDS, MP3_TOKENS),
            )
        )
    for kind, part, placeholder, entry in kinds:
        # Over 4,096 bytes with its file, so that it is no anchor (the audio alone is 3,968).
        ask = text_part(
            fmt,
            "Here is the file: Monday's stand-up and the finance review that followed it, with "
            "the budget figures the team agreed on and the open questions for the quarter.",
        )
        answer = assistant(fmt, "Noted: I read it.")
        follow_up = user(fmt, [text_part(fmt, "What was the total?")])
        rule, slug = (
            ("the user-turn rule", "user_turn_rule") if fmt in USER_TURN_FIRST else ("fill", "fill")
        )
        how: Obj = (
            {"turn_start": {"index": 0, "kept": "shrunk"}}
            if fmt in USER_TURN_FIRST
            else {"refilled": [0]}
        )
        case(
            f"files_{case_name(fmt)}_{kind}_shed_by_{slug}_is_a_dropped_file",
            f"The old user message holding a {kind} does not fit whole; {rule} brings it back with "
            f"the {kind} as a placeholder, listed in dropped_files (as shedding lists it), not in "
            "dropped_images with a null format.",
            request(fmt, [user(fmt, [ask, part]), answer, follow_up], 2_000),
            ok(
                [user(fmt, [ask, text_part(fmt, placeholder)]), answer, follow_up],
                dropped_messages=[],
                dropped_images=[],
                dropped_files=[{**entry, "index": 0}],
                **how,
            ),
        )

# A Gemini blob may carry a displayName (display_name in the Python SDK's spelling).
for spelling, blob_key, name_key in [
    ("camel", "inlineData", "displayName"),
    ("snake", "inline_data", "display_name"),
]:
    mime_key = "mimeType" if spelling == "camel" else "mime_type"
    blob = {mime_key: "application/pdf", "data": PDF_B64, name_key: "Q3 board deck"}
    ask = text_part("gemini", "Summarise the report.")
    msg = user("gemini", [ask, {blob_key: blob}])
    case(
        f"files_gemini_display_name_names_the_shed_document_{spelling}",
        f"A Gemini blob's {name_key} names the shed document in its placeholder and in "
        "dropped_files.",
        request("gemini", [msg], PDF_TOKENS * BYTES_PER_TOKEN // 4),
        ok(
            [user("gemini", [ask, text_part("gemini", pdf_placeholder("Q3 board deck"))])],
            dropped_files=[dropped("document", "pdf", PAGES, PDF_TOKENS, "Q3 board deck")],
        ),
    )

# A PDF whose page tree states 1,000,000,000 pages in 209 bytes (fuzz/regressions/probe_pdf):
# priced as an unreadable PDF of its size (a page per 4 KiB, at least one), with a warning.
CLAIMS_B64 = base64.b64encode(
    (HERE.parent.parent / "fuzz/regressions/probe_pdf/implausible-count-1e9").read_bytes()
).decode()
for fmt in FORMATS:
    key = KEY.get(fmt, "content")
    name = PDF_NAME[fmt]
    claims = user(fmt, [text_part(fmt, "Summarise the report."), pdf_part(fmt, CLAIMS_B64)])
    case(
        f"files_{case_name(fmt)}_implausible_pdf_is_priced_by_its_size",
        "A PDF whose page tree claims more pages than its bytes can hold (10⁹ in 209 bytes) is "
        "not priced at its claim (258 × 10⁹ tokens) but as an unreadable PDF of its size, and "
        "the report warns.",
        request(fmt, [claims], 100_000),
        ok(
            [claims],
            dropped_files=[],
            warnings=[
                {
                    "code": "implausible_file",
                    "index": 0,
                    "part": 1,
                    "path": f"messages[0].{key}[1]",
                    "message": "the PDF's page tree states 1,000,000,000 pages, more than a file "
                    "of its size can hold (a page a byte); priced conservatively: "
                    f"{named(name)}PDF, ~1 page estimated, ~{PAGE} tokens",
                }
            ],
        ),
    )

for old in HERE.glob("files_*.json"):
    old.unlink()
for c in CASES:
    (HERE / f"{c['name']}.json").write_text(json.dumps(c, indent=1, ensure_ascii=False) + "\n")
print(f"wrote {len(CASES)} cases to {HERE}")

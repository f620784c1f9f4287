"""The Gemini `contents` format in both spellings (REST camelCase and the Python SDK's
snake_case), Gemini 2.5's image rule and the small independent cost model of docs/formats.md's
"Gemini format", for generate_gemini.py.
"""

from __future__ import annotations

import base64
import json
import math
import pathlib
import struct
import zlib
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "images"
NOTE = "[Incomplete tool calls removed from restored session.]"
MARKER = "\n[... {} bytes omitted to fit the context budget ...]\n"
# A JSON object: a content, a part, a request or an expectation.
Obj = dict[str, Any]
CASES: list[Obj] = []

PNG_B64 = base64.b64encode((FIXTURES / "png/rgb_1700x2200.png").read_bytes()).decode()
JPEG_B64 = base64.b64encode((FIXTURES / "jpeg/baseline_500x375.jpg").read_bytes()).decode()
REMOTE = "gs://bucket/screens/settings.png"
SIZES = {PNG_B64: (1700, 2200), JPEG_B64: (500, 375)}
# A PNG header claiming 2³²−1 × 1 pixels: implausible, priced as the ankita profile's largest
# typical image (1,445 tokens), and warned about.
IHDR = struct.pack(">IIBBBBB", 2**32 - 1, 1, 8, 6, 0, 0, 0)
STRIP_B64 = base64.b64encode(
    b"\x89PNG\r\n\x1a\n"
    + struct.pack(">I", 13)
    + b"IHDR"
    + IHDR
    + struct.pack(">I", zlib.crc32(b"IHDR" + IHDR))
).decode()
STRIP_WARNING = (
    "PNG header states 4294967295×1 pixels, more than any real image of its payload's "
    "size or any provider's limit; priced as the profile's largest typical image, "
    "1445 tokens"
)
# A PDF whose objects sit in encrypted object streams: unreadable, priced as a page per 4 KiB
# (one: 258 tokens under the gemini profile), and warned about.
LOCKED_B64 = base64.b64encode(
    (HERE.parent / "fixtures/files/pdf-3-encrypted-objstm.pdf").read_bytes()
).decode()
assert len(LOCKED_B64) // 4 * 3 <= 4096
LOCKED_WARNING = (
    "the file could not be read; priced conservatively: unreadable PDF "
    "(encrypted PDF), ~1 page estimated, ~258 tokens"
)


def gemini_tokens(w: int, h: int) -> int:
    """Gemini 2.0 / 2.5 (IMAGE_TOKENS.md), written out again: 258 when both sides are at most
    384 px, else 258 per tile of the crop unit floor(min(w, h) / 1.5)."""
    if w <= 384 and h <= 384:
        return 258
    unit = max(1, math.floor(min(w, h) / 1.5))
    return 258 * math.ceil(w / unit) * math.ceil(h / unit)


assert gemini_tokens(960, 540) == 1548  # the published example
assert gemini_tokens(1700, 2200) == 258 * 4


class Spelling:
    """The keys of one spelling."""

    def __init__(self, name: str, camel: bool) -> None:
        self.name = name

        def k(c: str, s: str) -> str:
            return c if camel else s

        self.inline, self.mime, self.file, self.uri = (
            k("inlineData", "inline_data"),
            k("mimeType", "mime_type"),
            k("fileData", "file_data"),
            k("fileUri", "file_uri"),
        )
        self.call, self.response = (
            k("functionCall", "function_call"),
            k("functionResponse", "function_response"),
        )
        self.signature = k("thoughtSignature", "thought_signature")

    def png(self) -> Obj:
        return {self.inline: {self.mime: "image/png", "data": PNG_B64}}

    def jpeg(self) -> Obj:
        return {self.inline: {self.mime: "image/jpeg", "data": JPEG_B64}}

    def remote(self) -> Obj:
        return {self.file: {self.mime: "image/png", self.uri: REMOTE}}

    def fcall(self, name: str, args: Any = None, id: str | None = None, **extra: Any) -> Obj:
        body = {"name": name, "args": {"path": "src/main.rs"} if args is None else args}
        if id is not None:
            body = {"id": id, **body}
        return {self.call: body, **extra}

    def fresp(
        self, name: str, response: Obj, id: str | None = None, parts: list[Obj] | None = None
    ) -> Obj:
        body: Obj = {"name": name, "response": response}
        if id is not None:
            body = {"id": id, **body}
        if parts is not None:
            body["parts"] = parts
        return {self.response: body}

    # The cost model (docs/formats.md, "Gemini format"). -------------------------------------------
    def text_blob(self, text: str) -> Obj:
        return {
            self.inline: {self.mime: "text/plain", "data": base64.b64encode(text.encode()).decode()}
        }

    def plain_text_bytes(self, part: Obj) -> int | None:
        """A text/plain blob costs its text (decoded from base64)."""
        blob = part.get(self.inline)
        if blob and blob.get(self.mime) == "text/plain":
            return len(base64.b64decode(blob["data"]))
        return None

    def image_bytes(self, part: Obj) -> int | None:
        if self.inline in part:
            w, h = SIZES[part[self.inline]["data"]]
            return 4 * gemini_tokens(w, h)
        if self.file in part:
            w, h = IMAGE_SIZES[part[self.file][self.uri]]
            return 4 * gemini_tokens(w, h)
        return None

    def part_cost(self, part: Obj) -> int:
        if part.get("thought") is True or self.signature in part:
            return len(compact(part).encode())
        if "text" in part:
            return len(part["text"].encode())
        blob = self.plain_text_bytes(part)
        if blob is not None:
            return blob
        image = self.image_bytes(part)
        return len(compact(part).encode()) if image is None else image

    def response_cost(self, part: Obj) -> int:
        """A function response: its JSON, its images priced, and its text blobs and the strings
        of its `response` counted as their text, instead of as JSON."""
        inner = part[self.response].get("parts", [])
        strings = [
            v for v in part[self.response].get("response", {}).values() if isinstance(v, str)
        ]
        inner_cost = [
            self.plain_text_bytes(p)
            if self.plain_text_bytes(p) is not None
            else self.image_bytes(p)
            for p in inner
        ]
        return (
            len(compact(part).encode())
            - sum(len(compact(p).encode()) for p, c in zip(inner, inner_cost) if c is not None)
            + sum(c for c in inner_cost if c is not None)
            - sum(len(compact(v).encode()) - len(v.encode()) for v in strings)
        )

    def cost(self, content: Obj) -> int:
        meta = len(compact({k: v for k, v in content.items() if k != "parts"}).encode())
        parts = content.get("parts", [])
        responses = [p for p in parts if self.response in p]
        others = [p for p in parts if self.response not in p]
        total = sum(meta + self.response_cost(p) for p in responses)
        if others or not responses:
            total += meta + sum(
                len(compact(p).encode()) if self.call in p else self.part_cost(p) for p in others
            )
        return total

    def total(self, contents: list[Obj]) -> int:
        return sum(self.cost(c) for c in contents)


IMAGE_SIZES = {REMOTE: (960, 540)}
SPELLINGS = [Spelling("camel", True), Spelling("snake", False)]


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def user(*parts: str | Obj) -> Obj:
    return {"role": "user", "parts": [{"text": p} if isinstance(p, str) else p for p in parts]}


def model(*parts: str | Obj) -> Obj:
    return {"role": "model", "parts": [{"text": p} if isinstance(p, str) else p for p in parts]}


def filler(n: int, seed: str = "log line") -> str:
    s = (seed + " ") * (n // (len(seed) + 1) + 1)
    return s[:n]


def shrunk(text: str, to_bytes: int) -> str:
    """DESIGN §6.7's shrink of an ASCII text to `to_bytes`: head and tail around the marker."""
    keep = to_bytes - len(MARKER.format(len(text) - to_bytes))
    out = (
        text[: keep // 2] + MARKER.format(len(text) - keep) + text[len(text) - (keep - keep // 2) :]
    )
    assert len(out) == to_bytes
    return out


def ok(messages: Any, **report: Any) -> Obj:
    return {"ok": True, "messages": messages, "report": {"format": "gemini", **report}}


def err(code: str, **error: Any) -> Obj:
    return {"ok": False, "error": {"code": code, **error}}


def case(
    s: Spelling, name: str, description: str, request: Any, expect: Obj, function: str = "trim"
) -> None:
    request = {"format": "gemini", **request} if function == "trim" else request
    CASES.append(
        {
            "name": f"gemini_{name}_{s.name}",
            "description": f"Gemini ({s.name} spelling): {description}",
            "function": function,
            "request": request,
            "expect": expect,
        }
    )


SYSTEM = {
    "parts": [
        {"text": "You are a desktop companion. Answer briefly; ask before changing anything."}
    ]
}
SYSTEM_COST = len(compact({})) + len(
    SYSTEM["parts"][0]["text"]
)  # a Content's other fields, its text

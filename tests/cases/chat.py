"""What the generators of the OpenAI chat format's cases (generate.py, generate_limits.py) and of
the Anthropic format's (generate_anthropic.py) share: the fixtures' images, the small independent
cost model (DESIGN §2), the messages and blocks of both formats, the report's warnings about a
model, and the case writer.
"""

from __future__ import annotations

import base64
import json
import math
import pathlib
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


# --- Anthropic blocks --------------------------------------------------------------------------
def a_text(t: str) -> Obj:
    return {"type": "text", "text": t}


def a_use(uid: str, name: str = "read_file") -> Obj:
    return {"type": "tool_use", "id": uid, "name": name, "input": {"path": "src/main.rs"}}


def a_result(uid: str, content: Any) -> Obj:
    return {"type": "tool_result", "tool_use_id": uid, "content": content}


# --- the report's warnings about a model, and a tokenizer file that is not there ---------------
def unknown_model(model: str, profile: str, text: str = "text counted in bytes") -> Obj:
    """The report warning of a model no family claims (docs/tokens-and-models.md, "Model names")."""
    return {
        "code": "unknown_model",
        "index": None,
        "part": None,
        "path": "model",
        "message": f"no model family claims {json.dumps(model)}; assumed: images priced by the "
        f'"{profile}" rule (the default), {text}; strict_model: true makes an '
        f"unknown model an error",
    }


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


MISSING_TOKENIZER = "/no/such/model-dir"


def write_cases() -> None:
    """Writes each case as tests/cases/NAME.json."""
    for c in CASES:
        (HERE / f"{c['name']}.json").write_text(json.dumps(c, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(CASES)} cases to {HERE}")

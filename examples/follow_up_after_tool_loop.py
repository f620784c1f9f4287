"""A follow-up after a tool loop, in every wire format and unit: the user's long first message
(a spec, too long to anchor), a tool loop, the answer, a short follow-up; trimmed by the CLI.
Anthropic and Gemini answers start on the user's turn (report.turn_start); every format keeps
the newest exchanges and fills the window.

Run: make build && python3 examples/follow_up_after_tool_loop.py target/release/ankita
"""

from __future__ import annotations

import json
import pathlib
import random
import subprocess
import sys
from typing import Any

# A step of the conversation: its kind, then its fields (a call's id and words, a result's id
# and text).
Step = tuple[str, ...]
Message = dict[str, Any]

random.seed(7)
# Real words: the repository's README and guides (the README alone is shorter than a long message).
root = pathlib.Path(__file__).resolve().parent.parent
words = [
    word
    for doc in [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    for word in doc.read_text().split()
]


def text(n: int) -> str:
    i = random.randrange(len(words) - n)
    return " ".join(words[i : i + n])


def conv(first_words: int, loops: int) -> list[Step]:
    msgs: list[Step] = [("user", text(first_words))]
    for i in range(loops):
        msgs.append(("call", f"call_{i}", text(random.randint(5, 20))))
        msgs.append(("result", f"call_{i}", text(random.randint(100, 600))))
    msgs.append(("assistant", "I changed the CSS."))
    msgs.append(("user", "U2: does it look right now?"))
    return msgs


def anthropic(c: list[Step]) -> list[Message]:
    out: list[Message] = []
    for m in c:
        if m[0] == "user":
            out.append({"role": "user", "content": m[1]})
        elif m[0] == "assistant":
            out.append({"role": "assistant", "content": m[1]})
        elif m[0] == "call":
            out.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": m[1], "name": "read", "input": {"q": m[2]}}
                    ],
                }
            )
        else:
            out.append(
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": m[1], "content": m[2]}],
                }
            )
    return out


def gemini(c: list[Step]) -> list[Message]:
    out: list[Message] = []
    for m in c:
        if m[0] == "user":
            out.append({"role": "user", "parts": [{"text": m[1]}]})
        elif m[0] == "assistant":
            out.append({"role": "model", "parts": [{"text": m[1]}]})
        elif m[0] == "call":
            out.append(
                {
                    "role": "model",
                    "parts": [{"functionCall": {"id": m[1], "name": "read", "args": {"q": m[2]}}}],
                }
            )
        else:
            out.append(
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "id": m[1],
                                "name": "read",
                                "response": {"output": m[2]},
                            }
                        }
                    ],
                }
            )
    return out


def openai(c: list[Step]) -> list[Message]:
    out: list[Message] = []
    for m in c:
        if m[0] in ("user", "assistant"):
            out.append({"role": m[0], "content": m[1]})
        elif m[0] == "call":
            out.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": m[1],
                            "type": "function",
                            "function": {"name": "read", "arguments": json.dumps({"q": m[2]})},
                        }
                    ],
                }
            )
        else:
            out.append({"role": "tool", "tool_call_id": m[1], "content": m[2]})
    return out


def responses(c: list[Step]) -> list[Message]:
    out: list[Message] = []
    for m in c:
        if m[0] in ("user", "assistant"):
            out.append({"role": m[0], "content": m[1]})
        elif m[0] == "call":
            out.append(
                {
                    "type": "function_call",
                    "call_id": m[1],
                    "name": "read",
                    "arguments": json.dumps({"q": m[2]}),
                }
            )
        else:
            out.append({"type": "function_call_output", "call_id": m[1], "output": m[2]})
    return out


cli = sys.argv[1]
for fmt, model, conv_fn in [
    ("anthropic", "claude-sonnet-4-5", anthropic),
    ("gemini", "gemini-2.5-flash", gemini),
    ("openai", "gpt-4o", openai),
    ("responses", "gpt-4o", responses),
]:
    for unit in ["tokens16k", "tokens8k", "bytes"]:
        if unit == "bytes":
            c = conv(750, 12)
            req = {"messages": conv_fn(c), "format": fmt, "max_bytes": 20000}
        else:
            c = conv(2000, 30)
            req = {
                "messages": conv_fn(c),
                "format": fmt,
                "model": model,
                "context_tokens": 16000 if unit == "tokens16k" else 8000,
                "max_output_tokens": 1000,
                "max_messages": None,
            }
        r = json.loads(
            subprocess.run(
                [cli, "trim", "-"], input=json.dumps(req), capture_output=True, text=True
            ).stdout
        )
        if not r["ok"]:
            print(fmt, unit, r["error"]["code"])
            continue
        rep = r["report"]
        b = rep.get("budget_tokens") or rep["budget_bytes"]
        cst = rep.get("cost_tokens") or rep["cost_bytes"]
        print(
            f"{fmt:10} {unit:10} kept {rep['output_messages']:3} of {rep['input_messages']}  "
            f"cost {cst} of {b} ({cst / b:.0%})  first={json.dumps(r['messages'][0])[:70]} "
            f"ts={rep.get('turn_start')}"
        )

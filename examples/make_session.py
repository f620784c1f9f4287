#!/usr/bin/env python3
"""Writes examples/session.json: a realistic desktop-companion session (system prompt, two pasted
screenshots, an attached log file, a long tool loop, and a final question about a screenshot).
The screenshots in examples/screenshots/ are real captures of an X11 desktop (Xvfb + xterm +
xmessage). Run: python3 examples/make_session.py
"""

from __future__ import annotations

import base64
import json
import pathlib
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent


def shot(name: str) -> str:
    return (
        "data:image/png;base64,"
        + base64.b64encode((HERE / "screenshots" / name).read_bytes()).decode()
    )


SYSTEM = (
    "You are Pip, a desktop companion for a developer named Ana. You can see screenshots she "
    "pastes, read files in her projects and run commands through tools. Keep answers short and "
    "concrete. Quote exact error codes and file positions from screenshots and logs. Ask before "
    "running commands that change files. If an image was omitted to fit the context budget, say "
    "you cannot see it instead of guessing. " * 3
).strip()

PLUGINS_RS = "\n".join(
    f"    // plugin registry entry {i}: load manifest, check token, start worker\n"
    f'    let plugin_{i} = registry.load("plugin-{i}")'
    f".map_err(|e| PluginError::new(E40{i:02}, e))?;"
    for i in range(60)
)
SETTINGS = "\n".join(f'[section{i}]\nkey_{i} = "value {i}"\nrate_{i} = {i / 10}' for i in range(25))
LOG = "\n".join(
    f"2026-11-30T07:{i // 60:02d}:{i % 60:02d}Z DEBUG companion::scheduler tick {i}: 3 tasks "
    "queued, 0 failed"
    for i in range(120)
)


def call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": cid,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


messages: list[dict[str, Any]] = [
    {"role": "system", "content": SYSTEM},
    {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "The companion crashed when I opened the calendar. This popped up:",
            },
            {"type": "image_url", "image_url": {"url": shot("calendar-error-dialog.png")}},
        ],
    },
    {
        "role": "assistant",
        "content": "I'll look at the plugin loader and your settings.",
        "tool_calls": [
            call("call_01", "read_file", {"path": "src/plugins.rs"}),
            call("call_02", "read_file", {"path": "~/.config/companion/settings.toml"}),
        ],
    },
    {"role": "tool", "tool_call_id": "call_02", "content": SETTINGS},
    {"role": "tool", "tool_call_id": "call_01", "content": PLUGINS_RS},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [call("call_03", "run_command", {"cmd": "cargo run --release"})],
    },
    {"role": "tool", "tool_call_id": "call_03", "content": LOG[:3000]},
    {
        "role": "assistant",
        "content": 'The calendar token expired (E4012) and `voice.rate` is set to "fast". '
        "Sign in again and set a number between 0.5 and 2.0.",
    },
    {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "Signed in again. Here is this morning's log in case it helps.",
            },
            {"type": "text", "text": "Attached file: companion.log\n" + LOG},
        ],
    },
]
for k in range(14):
    cid = f"call_{10 + k:02d}"
    messages.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [call(cid, "grep", {"pattern": f"scheduler tick {k}", "path": "src/"})],
        }
    )
    messages.append({"role": "tool", "tool_call_id": cid, "content": PLUGINS_RS[: 2500 + 150 * k]})
messages += [
    {
        "role": "assistant",
        "content": "The scheduler ticks look healthy; nothing in the log points at a new crash.",
    },
    {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "I changed the voice settings and restarted. Now the terminal shows this:",
            },
            {"type": "image_url", "image_url": {"url": shot("terminal-settings-error.png")}},
        ],
    },
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [call("call_40", "read_file", {"path": "src/config.rs"})],
    },
    {"role": "tool", "tool_call_id": "call_40", "content": PLUGINS_RS[:4000]},
    {"role": "assistant", "content": "The config loader rejects unknown keys."},
    {
        "role": "user",
        "content": "Looking at the terminal screenshot I sent: which line and column of "
        "settings.toml is wrong, and what key should I use instead?",
    },
]

(HERE / "session.json").write_text(json.dumps({"messages": messages}, indent=1) + "\n")
print(f"wrote examples/session.json: {len(messages)} messages")

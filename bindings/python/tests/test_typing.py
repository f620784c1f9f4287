"""The stubs match the native module, and typed callers (openai-SDK-style TypedDicts) keep
their types through trim. Skipped where mypy is not installed (run-tests.sh installs it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Literal, TypedDict

import ankita
import pytest

PACKAGE = Path(__file__).resolve().parents[1]


class UserMessage(TypedDict):
    role: Literal["user"]
    content: str


class AssistantMessage(TypedDict, total=False):
    role: Literal["assistant"]
    content: str | None
    refusal: str | None


def test_typed_messages_keep_their_type() -> None:
    messages: list[UserMessage | AssistantMessage] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "refusal": None},
        {"role": "user", "content": "again"},
    ]
    result = ankita.trim(messages, max_bytes=4096)
    # What mypy checks: the result can go straight back to an API typed like the input.
    same: list[UserMessage | AssistantMessage] = result.messages
    report: ankita.TrimReport = result.report
    repaired: list[UserMessage | AssistantMessage] = ankita.sanitize(messages)
    assert same[0] is messages[0]
    assert report["input_messages"] == 3
    assert len(repaired) == 2  # the assistant message has no content


def mypy(*args: str) -> None:
    pytest.importorskip("mypy")
    done = subprocess.run(
        [sys.executable, "-m", *args], cwd=PACKAGE, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_stubs_match_the_native_module() -> None:
    allowlist = "tests/stubtest-allowlist.txt"
    config = "tests/stubtest.ini"
    mypy(
        "mypy.stubtest",
        "ankita",
        "--allowlist",
        allowlist,
        "--ignore-unused-allowlist",
        "--mypy-config-file",
        config,
    )


def test_package_and_tests_type_check_strictly() -> None:
    mypy("mypy")

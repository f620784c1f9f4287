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
REPOSITORY = PACKAGE.parents[1]


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


def test_options_kept_in_a_dict_type_check() -> None:
    messages: list[UserMessage | AssistantMessage] = [{"role": "user", "content": "x" * 400}] * 3
    options: ankita.TrimOptions = {"max_bytes": 1000, "max_messages": None, "fill": False}
    result = ankita.trim(messages, **options)
    assert result.report["budget_bytes"] == 1000
    assert result.report["limited_by"] == "budget"
    assert (result.report["cost_bytes"] or 0) <= 1000 < 3 * 400
    # The mypy run below (warn_unused_ignores, from --strict) fails if any of these is not an
    # error: a misspelt key, a value of the wrong type, an option trim takes apart.
    typo: ankita.TrimOptions = {"max_byte": 1000}  # type: ignore[typeddict-unknown-key]
    wrong: ankita.TrimOptions = {"max_bytes": "1000"}  # type: ignore[typeddict-item]
    apart: ankita.TrimOptions = {"format": "gemini"}  # type: ignore[typeddict-unknown-key]
    request: ankita.RequestOptions = {"format": "anthropic", "system": "Be brief.", **options}
    session = ankita.Session(messages, **request)
    assert session.trim().report["format"] == "anthropic"
    del typo, wrong, apart


def mypy(*args: str, cwd: Path = PACKAGE) -> None:
    pytest.importorskip("mypy")
    done = subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, check=False
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


def test_repository_scripts_type_check_strictly() -> None:
    """The repository's other Python scripts (the examples, the case generators, the C suite's
    case runner, the README checks) under the root mypy.ini: strict, against the installed
    package and the examples' Ray and PySpark."""
    mypy("mypy", "--config-file", "mypy.ini", cwd=REPOSITORY)

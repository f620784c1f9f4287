#!/usr/bin/env python3
"""Runs every shared case (tests/cases/*.json) through the C ABI via case_driver (all of them in
one process, one call a line), under valgrind when its arguments are given, and checks the
answers as tests/cases/README.md says.

Usage: run_cases.py DRIVER [valgrind args...]
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any

CASES = pathlib.Path(__file__).resolve().parent.parent / "cases"


def is_subset(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(k in actual and is_subset(v, actual[k]) for k, v in expected.items())
    return bool(expected == actual)


def check(case: dict[str, Any], response: dict[str, Any]) -> str | None:
    expect = case["expect"]
    if expect["ok"] != response.get("ok"):
        return f"ok: expected {expect['ok']}, got {json.dumps(response)[:400]}"
    if "messages" in expect and expect["messages"] != response.get("messages"):
        return "messages differ"
    for key in ("report", "error"):
        if key in expect and not is_subset(expect[key], response.get(key)):
            return (
                f"{key}: expected ⊆ {json.dumps(expect[key])[:400]}, got "
                f"{json.dumps(response.get(key))[:400]}"
            )
    return None


def main() -> None:
    driver, wrapper = sys.argv[1], sys.argv[2:]
    paths = sorted(CASES.glob("*.json"))
    cases = [json.loads(path.read_text()) for path in paths]
    # Every case in one process (one valgrind start instead of one per case).
    calls = "".join(f"{case['function']} {json.dumps(case['request'])}\n" for case in cases)
    run = subprocess.run(wrapper + [driver, "--lines"], input=calls.encode(), capture_output=True)
    if run.returncode != 0:
        print(f"FAIL exit {run.returncode}: {run.stderr.decode()[-4000:]}", file=sys.stderr)
        sys.exit(1)
    answers = run.stdout.decode().splitlines()
    if len(answers) != len(cases):
        print(f"FAIL {len(answers)} answers to {len(cases)} calls", file=sys.stderr)
        sys.exit(1)
    failures = []
    for case, answer in zip(cases, answers):
        why = check(case, json.loads(answer))
        if why:
            failures.append(f"{case['name']}: {why}")
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    print(f"C ABI cases: {len(paths) - len(failures)} of {len(paths)} passed (one process)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

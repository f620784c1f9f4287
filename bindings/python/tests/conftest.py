"""Shared helpers: where the shared cases and image fixtures live, and how answers compare."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
CASES = sorted((ROOT / "tests" / "cases").glob("*.json"))
IMAGES = ROOT / "tests" / "fixtures" / "images"


def load_case(path: Path) -> dict[str, Any]:
    case: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return case


def is_subset(expected: Any, actual: Any) -> bool:
    """Every key of `expected` is in `actual` with a matching value (objects recursively)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(k in actual and is_subset(v, actual[k]) for k, v in expected.items())
    return bool(expected == actual) and type(expected) is type(actual)


def check_response(expect: dict[str, Any], response: dict[str, Any]) -> None:
    """Compares a response with a case's `expect` as tests/cases/README.md says."""
    assert response["ok"] == expect["ok"], response
    for key in ("messages", "system"):
        if key in expect:
            assert response[key] == expect[key], key
    for key in ("report", "error"):
        if key in expect:
            assert is_subset(expect[key], response[key]), (
                f"{key}: expected ⊆ {expect[key]!r}\n got {response[key]!r}"
            )


@pytest.fixture(scope="session")
def manifest() -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((IMAGES / "manifest.json").read_text())
    return entries

"""Every shared case in tests/cases/ through the Python API and through the JSON contract."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import ankita
import pytest
from conftest import CASES, check_response, load_case


def test_the_shared_cases_are_there() -> None:
    assert len(CASES) >= 20


def run_native(function: str, request: Any) -> dict[str, Any]:
    """A case through the Python API, answered in the JSON contract's shape."""
    try:
        if function == "trim":
            options = {k: v for k, v in request.items() if k != "messages"}
            result = ankita.trim(request["messages"], **options)
        elif function == "sanitize":
            # The messages array, or {"messages": [...], "format": ...}.
            given = request if isinstance(request, dict) else {"messages": request}
            options = {k: v for k, v in given.items() if k != "messages"}
            messages, report = ankita.sanitize_with_report(given["messages"], **options)
            assert ankita.sanitize(given["messages"], **options) == messages
            return {"ok": True, "messages": messages, "report": report}
        else:
            raise AssertionError(f"unknown function {function!r}")
    except ankita.AnkitaError as e:
        error: dict[str, Any] = {"code": e.code, "message": e.message}
        if e.path is not None:
            error["path"] = e.path
        error.update(e.details)
        return {"ok": False, "error": error}
    response: dict[str, Any] = {"ok": True}
    if result.system is not None:
        response["system"] = result.system  # the Anthropic format's top-level system
    response.update(messages=result.messages, report=result.report)
    return response


def run_json(function: str, request: Any) -> dict[str, Any]:
    text = json.dumps(request)
    answer = ankita.trim_json(text) if function == "trim" else ankita.sanitize_json(text)
    response: dict[str, Any] = json.loads(answer)
    return response


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_through_the_python_api(path: Path) -> None:
    case = load_case(path)
    request = case["request"]
    before = copy.deepcopy(request)
    response = run_native(case["function"], request)
    check_response(case["expect"], response)
    assert request == before, "the caller's messages were mutated"


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_through_the_json_contract(path: Path) -> None:
    case = load_case(path)
    check_response(case["expect"], run_json(case["function"], case["request"]))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_python_api_and_json_contract_agree_exactly(path: Path) -> None:
    case = load_case(path)
    native = run_native(case["function"], case["request"])
    through_json = run_json(case["function"], case["request"])
    assert native == through_json

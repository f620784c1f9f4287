"""Session.observe_usage: the provider's count of a request sets the token factor of a model
counted with a margin (the core's tests/calibration.rs runs the 200-call loop against a
stand-in provider; here, what the binding hands over and answers)."""

from __future__ import annotations

from typing import Any

import ankita
import pytest

TEXT = "The parser reads the window's buffer and reports the session's budget. " * 40


def history(n: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}]
    for k in range(n):
        messages.append({"role": "user", "content": f"Question {k}: {TEXT}"})
        messages.append({"role": "assistant", "content": f"Answer {k}: {TEXT}"})
    return messages


def test_observed_usage_sets_the_factor_of_the_next_trims() -> None:
    # Not cache-stable (trim_to=None): each trim fills the window, which the factor decides.
    session = ankita.Session(
        history(20),
        model="claude-sonnet-4-5",
        context_tokens=8000,
        max_output_tokens=1000,
        trim_to=None,
    )
    first = session.trim()
    fixed = first.report["token_factor"]
    assert (fixed["value"], fixed["source"], fixed["observations"]) == (1.35, "fixed_margin", 0)
    # A provider counting 10% over o200k_base: the factor follows, with a small margin.
    counted = fixed["counted"]
    factor = session.observe_usage(int(counted * 1.1))
    assert factor["source"] == "observed" and factor["observations"] == 1
    assert 1.1 <= factor["value"] < 1.15
    second = session.trim()
    assert second.report["token_factor"] == {
        **factor,
        "counted": second.report["token_factor"]["counted"],
    }
    # More of the history fits under the smaller factor.
    assert len(second.messages) > len(first.messages)
    budget = second.report["budget_tokens"]
    assert budget is not None and second.report["cost_tokens"] <= budget


def test_a_callers_factor_and_a_public_tokenizer_are_kept() -> None:
    cases: list[tuple[ankita.RequestOptions, float, str]] = [
        (
            {"model": "claude-sonnet-4-5", "context_tokens": 8000, "token_factor": 1.2},
            1.2,
            "caller",
        ),
        ({"model": "gpt-4o", "context_tokens": 8000}, 1.0, "tokenizer"),
    ]
    for options, value, source in cases:
        session = ankita.Session(history(2), **options)
        assert session.trim().report["token_factor"]["source"] == source
        factor = session.observe_usage(5000)
        assert factor == {"value": value, "source": source, "observations": 1}


def test_usage_that_cannot_be_paired_raises_invalid_argument() -> None:
    session = ankita.Session(history(2), model="claude-sonnet-4-5")
    with pytest.raises(ankita.AnkitaError, match="trim first") as before:
        session.observe_usage(100)
    assert before.value.code == "invalid_argument"
    session.trim()
    for bad in (-1, 0):
        with pytest.raises(ankita.AnkitaError) as e:
            session.observe_usage(bad)
        assert e.value.code == "invalid_argument" and str(bad) in str(e.value)
    with pytest.raises(ankita.AnkitaError, match="no factor"):
        session.observe_usage(10_000_000)
    in_bytes = ankita.Session(history(2), max_bytes=100_000)
    in_bytes.trim()
    with pytest.raises(ankita.AnkitaError, match="counts bytes"):
        in_bytes.observe_usage(100)


def test_a_stateless_trim_takes_the_observed_usage() -> None:
    options: ankita.TrimOptions = {"model": "gemini-3.1-pro", "context_tokens": 8000}
    first = ankita.trim(history(20), **options)
    factor = first.report["token_factor"]
    assert (factor["value"], factor["source"], factor["observations"]) == (1.25, "fixed_margin", 0)
    usage = [[factor["counted"], int(factor["counted"] * 1.05)]]
    calibrated: ankita.TrimOptions = {**options, "observed_usage": usage}
    second = ankita.trim(history(20), **calibrated)
    observed = second.report["token_factor"]
    assert (observed["source"], observed["observations"]) == ("observed", 1)
    assert 1.05 <= observed["value"] < 1.1
    assert len(second.messages) > len(first.messages)
    assert "token_factor" not in ankita.trim(history(2), max_bytes=100_000).report

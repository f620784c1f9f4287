"""Token mode from Python: count_tokens and trim in a model's tokens, with the caller's objects
and errors as elsewhere. (Counts are checked against an independent tokenizer in the Node
suite, bindings/node/test/tokens.test.js.)"""

from __future__ import annotations

import ankita
import pytest

LOG = "".join(
    f"2026-11-30 12:{i % 60:02d}:07 status installed libfoo{i}:amd64 1.{i}\n" for i in range(400)
)


def history() -> list[dict[str, object]]:
    messages: list[dict[str, object]] = [{"role": "system", "content": "You read logs."}]
    for i in range(12):
        messages.append({"role": "user", "content": f"what failed in run {i}?"})
        call = {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": "read_log", "arguments": "{}"},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": LOG})
        messages.append({"role": "assistant", "content": f"Run {i} was fine."})
    messages.append({"role": "user", "content": "and the last one?"})
    return messages


def test_count_tokens_per_message_and_total() -> None:
    messages = history()
    count = ankita.count_tokens(messages, model="gpt-4o")
    assert (count["unit"], count["tokenizer"], count["exact"]) == ("tokens", "o200k_base", True)
    assert len(count["messages"]) == len(messages)
    assert count["total"] == sum(count["messages"])
    # A log runs well under 4 bytes a token: the byte rule undercounts it.
    in_bytes = ankita.count_tokens(messages)
    assert in_bytes["unit"] == "bytes" and in_bytes["exact"] is False
    assert count["messages"][3] > len(LOG) / 4


def test_trim_in_tokens_fits_the_recounted_window() -> None:
    messages = history()
    result = ankita.trim(
        messages, model="gpt-4o", context_tokens=16_000, max_output_tokens=2_000, max_messages=None
    )
    report = result.report
    assert (report["unit"], report["tokenizer"], report["exact"]) == ("tokens", "o200k_base", True)
    assert report["cost_bytes"] is None and report["budget_tokens"] is not None
    assert ankita.count_tokens(result.messages, model="gpt-4o")["total"] == report["cost_tokens"]
    assert report["cost_tokens"] <= report["budget_tokens"]
    assert result.messages[-1] is messages[-1]


def test_estimates_for_models_without_a_public_tokenizer() -> None:
    messages = history()[:3]
    claude = ankita.count_tokens(messages, model="claude-sonnet-4-5")
    exact = ankita.count_tokens(messages, tokenizer="o200k_base")
    assert claude["exact"] is False and claude["total"] > exact["total"]
    same = ankita.count_tokens(messages, model="claude-sonnet-4-5", token_factor=1.0)
    assert same["total"] == exact["total"] and same["exact"] is False


def test_bad_token_options_name_their_key() -> None:
    with pytest.raises(ankita.InvalidRequest) as e:
        ankita.count_tokens(history(), tokenizer="p50k")  # type: ignore[arg-type]
    assert e.value.path == "tokenizer"
    with pytest.raises(ankita.InvalidRequest) as e:
        ankita.trim(history(), tokenizer="o200k_base", max_bytes=10_000)
    assert e.value.path == "max_bytes"
    with pytest.raises(ankita.InvalidRequest) as e:
        ankita.trim(history(), token_factor=1.2, max_bytes=8000)
    assert e.value.path == "token_factor"

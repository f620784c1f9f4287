"""Exceptions: classes, codes, paths and details, for what the core and the binding reject."""

from __future__ import annotations

import json
import math
import types
from typing import Any

import ankita
import pytest
from helpers import SCREENSHOT, image_part


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def test_class_hierarchy() -> None:
    assert issubclass(ankita.AnkitaError, ValueError)
    for cls in (
        ankita.InvalidRequest,
        ankita.ContextBudgetExceeded,
        ankita.HistoryBudgetTooSmall,
        ankita.ImageOverflow,
    ):
        assert issubclass(cls, ankita.AnkitaError)
        assert cls.__module__ == "ankita"
        assert cls.__doc__
    assert ankita.InvalidRequest.code == "invalid_request"
    assert ankita.ContextBudgetExceeded.code == "context_budget_exceeded"
    assert ankita.HistoryBudgetTooSmall.code == "history_budget_too_small"
    assert ankita.ImageOverflow.code == "image_overflow"


def test_invalid_request_names_the_path() -> None:
    messages = [user("a"), user([{"type": "text", "text": "x"}, {"image_url": {}}])]
    with pytest.raises(ankita.InvalidRequest) as info:
        ankita.trim(messages)
    e = info.value
    assert isinstance(e, ValueError)
    assert e.code == "invalid_request"
    assert e.message == "type is missing"
    assert e.path == "messages[1].content[1].type"
    assert str(e) == "type is missing (at messages[1].content[1].type)"
    assert e.details == {}


def test_context_budget_exceeded_has_a_breakdown() -> None:
    messages = [{"role": "system", "content": "policy " * 200}, user("question " * 100)]
    with pytest.raises(ankita.ContextBudgetExceeded) as info:
        ankita.trim(messages, max_bytes=1000)
    e = info.value
    assert e.code == "context_budget_exceeded"
    assert e.message == "The current request/tool schema exceeds the model context budget."
    assert e.path is None
    breakdown = e.details["breakdown"]
    assert e.breakdown == breakdown
    assert breakdown["max_bytes"] == 1000
    # A message costs its text plus the compact JSON of its other fields (DESIGN §2).
    assert breakdown["system_bytes"] == len("policy " * 200) + len('{"role":"system"}')
    assert breakdown["request_bytes"] == len("question " * 100) + len('{"role":"user"}')


def test_history_budget_too_small() -> None:
    with pytest.raises(ankita.HistoryBudgetTooSmall) as info:
        ankita.trim([user("hi")], context_tokens=300, tokenizer="bytes")
    e = info.value
    assert e.code == "history_budget_too_small"
    assert e.details["breakdown"]["context_bytes"] == 1200
    assert e.details["breakdown"]["history_bytes"] == 1200 - 1024


def test_image_overflow() -> None:
    messages = [
        user([{"type": "text", "text": "look"}, image_part(SCREENSHOT)]),
        {"role": "assistant", "content": "ok"},
        user("and now?"),
    ]
    with pytest.raises(ankita.ImageOverflow) as info:
        ankita.trim(messages, max_bytes=600, max_messages=3, on_image_overflow="error")
    e = info.value
    assert e.code == "image_overflow"
    assert e.path == "messages[0].content[1]"
    assert "PNG 1700×2200" in e.message


@pytest.mark.parametrize(
    ("options", "path", "fragment"),
    [
        ({"max_bytes": -1}, "max_bytes", "non-negative integer"),
        ({"max_bytes": "4096"}, "max_bytes", "non-negative integer"),
        ({"max_bytes": 1.5}, "max_bytes", "non-negative integer"),
        ({"bytes_per_token": 0}, "bytes_per_token", "at least 1"),
        ({"on_image_overflow": "explode"}, "on_image_overflow", "placeholder"),
        ({"image_profile": "no-such-profile"}, "image_profile", "ankita"),
        ({"tools": "not a list"}, "tools", "array"),
        ({"memory": ["a", 3]}, "memory[1]", "strings"),
        ({"max_byte": 4096}, "max_byte", "max_bytes"),  # a typo lists the known keys
    ],
)
def test_invalid_options(options: dict[str, Any], path: str, fragment: str) -> None:
    with pytest.raises(ankita.InvalidRequest) as info:
        ankita.trim([user("hi")], **options)
    assert info.value.path == path
    assert fragment in info.value.message


def test_a_model_no_family_claims_is_an_invalid_request_when_strict() -> None:
    with pytest.raises(ankita.InvalidRequest) as info:
        ankita.trim([user("hi")], model="no-such-model-anywhere", strict_model=True)
    assert info.value.path is not None and info.value.path.startswith("model")
    with pytest.raises(ankita.InvalidRequest):
        ankita.count_tokens([user("hi")], model="no-such-model-anywhere", strict_model=True)


def test_a_model_no_family_claims_answers_with_a_warning() -> None:
    result = ankita.trim([user("hi")], model="no-such-model-anywhere", context_tokens=8192)
    (warning,) = result.report["warnings"]
    assert (warning["code"], warning["path"], warning["index"]) == ("unknown_model", "model", None)
    assert "o200k_base × 1.35" in warning["message"]
    count = ankita.count_tokens([user("hi")], model="no-such-model-anywhere")
    assert count["tokenizer"] == "o200k_base" and count["exact"] is False
    assert count["warnings"][0]["code"] == "unknown_model"
    for name in [
        "gpt-4",
        "gpt-3.5-turbo",
        "ollama/llama3.1",
        "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0",
    ]:
        assert ankita.trim([user("hi")], model=name, context_tokens=8192).report["warnings"] == []
    assert ankita.count_tokens([user("hi")], model="gpt-4")["tokenizer"] == "cl100k_base"


def test_none_means_not_given() -> None:
    result = ankita.trim(
        [user("hi")],
        max_bytes=None,
        max_messages=None,
        image_profile=None,
        on_image_overflow=None,
        model=None,
    )
    assert result.report["budget_bytes"] is None


class Opaque:
    pass


class BrokenModel:
    """An object whose model_dump() does not take pydantic's keywords."""

    def model_dump(self) -> dict[str, Any]:
        return {"role": "user", "content": "hi"}


@pytest.mark.parametrize(
    ("messages", "path", "fragment"),
    [
        ("hello", "messages", "must be a list"),
        ({"role": "user"}, "messages", "must be a list"),
        (None, "messages", "must be a list"),
        ([user({1, 2})], "messages[0].content", "a set is not a JSON value"),
        ([user(b"bytes")], "messages[0].content", "a bytes is not a JSON value"),
        ([user([{"type": "text", "text": Opaque()}])], "messages[0].content[0].text", "Opaque"),
        ([BrokenModel()], "messages[0]", "raised"),
        ([user(2**64)], "messages[0].content", "content must be a string"),
        ([user(math.nan)], "messages[0].content", "not a JSON number"),
        ([user(math.inf)], "messages[0].content", "not a JSON number"),
        ([{"role": "user", "content": "x", 3: "three"}], "messages[0]", "not a string"),
        ([user("\ud800")], "messages[0].content", "a lone surrogate (U+D800) at character 0"),
        (
            [user([{"type": "text", "text": "naïve 😀 \udfff"}])],
            "messages[0].content[0].text",
            "is not valid Unicode: a lone surrogate (U+DFFF) at character 8",
        ),
        (
            [{"role": "user", "content": "x", "n\udc80me": 1}],
            "messages[0]",
            "a key is not valid Unicode: a lone surrogate (U+DC80) at character 1",
        ),
    ],
)
def test_values_that_are_not_json(messages: Any, path: str, fragment: str) -> None:
    with pytest.raises(ankita.InvalidRequest) as info:
        ankita.trim(messages)
    assert info.value.path == path
    assert fragment in info.value.message
    with pytest.raises(ankita.InvalidRequest):
        ankita.sanitize(messages)


def test_a_reference_cycle_is_an_error_not_a_crash() -> None:
    part: dict[str, Any] = {"type": "custom"}
    part["self"] = part
    with pytest.raises(ankita.InvalidRequest) as info:
        ankita.trim([user([part])])
    assert "nested more than 128 levels" in info.value.message
    assert info.value.path is not None
    assert info.value.path.startswith("messages[0].content[0].self.self")


def test_large_unsigned_integers_are_json() -> None:
    part = {"type": "custom", "n": 2**64 - 1, "m": -(2**63)}
    result = ankita.trim([user([{"type": "text", "text": "hi"}, part])])
    assert result.messages[0]["content"][1] is part


def test_integers_beyond_64_bits_pass_through_unchanged() -> None:
    seq = 123456789012345678901234567890
    message = {"role": "user", "content": "hi", "seq": seq, "meta": {"n": -(2**100)}}
    later = {"role": "user", "content": [{"type": "text", "text": "more"}], "seq": seq}
    result = ankita.trim([message, later], max_bytes=600)
    assert result.messages[0] is message
    assert result.messages[1]["seq"] == seq
    # Costed as the JSON front ends cost it: the digits as written.
    text = json.dumps({"messages": [message, later], "max_bytes": 600}, separators=(",", ":"))
    answer = json.loads(ankita.trim_json(text))
    assert answer["messages"][0]["seq"] == seq
    assert answer["report"]["cost_bytes"] == result.report["cost_bytes"]


def test_mappings_and_sequences_other_than_dict_and_list() -> None:
    message = types.MappingProxyType({"role": "user", "content": "hi"})
    result = ankita.trim([message])
    assert result.messages == [message]
    assert result.messages[0] is message


def test_estimate_image_tokens_errors() -> None:
    with pytest.raises(ankita.AnkitaError) as info:
        ankita.estimate_image_tokens(0, 10)
    assert info.value.code == "invalid_argument"
    assert type(info.value) is ankita.AnkitaError
    with pytest.raises(ankita.AnkitaError) as info:
        ankita.estimate_image_tokens(-5, 10)
    assert info.value.code == "invalid_argument"
    with pytest.raises(ankita.InvalidRequest) as bad_profile:
        ankita.estimate_image_tokens(10, 10, profile="nope")
    assert bad_profile.value.path == "image_profile"
    with pytest.raises(ankita.InvalidRequest):
        ankita.estimate_image_tokens(10, 10, model="no-such-model-anywhere", strict_model=True)
    with pytest.warns(UserWarning, match="no-such-model-anywhere"):
        assert ankita.estimate_image_tokens(1700, 2200, model="no-such-model-anywhere") == 765


def test_the_json_contract_answers_errors_instead_of_raising() -> None:
    import json

    answer = json.loads(ankita.trim_json("{not json"))
    assert answer["ok"] is False
    assert answer["error"]["code"] == "invalid_json"
    answer = json.loads(ankita.trim_json('{"messages": [], "max_byte": 1}'))
    assert answer["error"] == {
        "code": "invalid_request",
        "message": answer["error"]["message"],
        "path": "max_byte",
    }
    answer = json.loads(ankita.sanitize_json("42"))
    assert answer["error"]["code"] == "invalid_request"


@pytest.mark.parametrize("lone", ["\ud800", "\udbff", "\udc00", "\udfff"])
def test_json_text_with_a_lone_surrogate_is_answered_not_raised(lone: str) -> None:
    """A str may hold a lone surrogate, which no JSON text (nor UTF-8) can: trim_json and
    sanitize_json answer invalid_json naming it and where it is, as for any text that is not
    JSON, instead of raising UnicodeEncodeError; trim raises the package's own error."""
    messages = [{"role": "user", "content": "Grüße 😀 " + lone + " end"}]
    # ensure_ascii=False keeps the surrogate itself in the text (not a \\u escape).
    text = json.dumps({"messages": messages}, ensure_ascii=False)
    at = text.index(lone)
    expected = f"a lone surrogate (U+{ord(lone):04X}) at character {at}"
    for answer_text in (ankita.trim_json(text), ankita.sanitize_json(text)):
        answer = json.loads(answer_text)
        assert answer["ok"] is False
        assert answer["error"]["code"] == "invalid_json"
        assert expected in answer["error"]["message"], answer
    with pytest.raises(ankita.InvalidRequest) as info:
        ankita.trim(messages)
    assert info.value.path == "messages[0].content"
    assert f"a lone surrogate (U+{ord(lone):04X}) at character 8" in info.value.message
    # Escaped (json.dumps' default), the lone surrogate is the core's to reject: an escape no
    # character has, named by its line and column.
    escaped = json.loads(ankita.trim_json(json.dumps({"messages": messages})))
    assert escaped["error"]["code"] == "invalid_json"
    assert "line 1 column" in escaped["error"]["message"]


@pytest.mark.parametrize("probe", [ankita.probe_image, ankita.probe_file])
def test_probing_a_str_with_a_lone_surrogate_raises_invalid_request(probe: Any) -> None:
    with pytest.raises(ankita.InvalidRequest) as info:
        probe("data:image/png;base64,iVBOR\ud800")
    assert info.value.path == "data"
    assert "a lone surrogate (U+D800) at character 27" in info.value.message

"""trim_many: many requests at once answer what trim_json answers for each, row for row."""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import ankita
import pytest
from conftest import CASES, load_case


def compact(value: Any) -> str:
    """JSON text as the native converter writes a Python request (no spaces)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def words(rng: random.Random, n: int) -> str:
    vocabulary = ["disk", "log", "error", "screen", "file", "ok", "näher", "日本", "build", "🙂"]
    return " ".join(rng.choice(vocabulary) for _ in range(n))


def openai_messages(rng: random.Random) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": words(rng, 8)}]
    for turn in range(rng.randint(1, 6)):
        messages.append({"role": "user", "content": words(rng, rng.randint(1, 200))})
        if rng.random() < 0.5:
            call = f"call_{turn}"
            args = compact({"n": turn})
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call,
                            "type": "function",
                            "function": {"name": "f", "arguments": args},
                        }
                    ],
                }
            )
            messages.append({"role": "tool", "tool_call_id": call, "content": words(rng, 300)})
        messages.append({"role": "assistant", "content": words(rng, rng.randint(1, 50))})
    messages.append({"role": "user", "content": words(rng, 5)})
    return messages


def anthropic_messages(rng: random.Random) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for turn in range(rng.randint(1, 6)):
        messages.append({"role": "user", "content": [{"type": "text", "text": words(rng, 80)}]})
        if rng.random() < 0.5:
            tool_id = f"toolu_{turn}"
            use = {"type": "tool_use", "id": tool_id, "name": "f", "input": {"n": turn}}
            messages.append({"role": "assistant", "content": [use]})
            result = {"type": "tool_result", "tool_use_id": tool_id, "content": words(rng, 300)}
            messages.append({"role": "user", "content": [result]})
        messages.append({"role": "assistant", "content": words(rng, rng.randint(1, 50))})
    messages.append({"role": "user", "content": words(rng, 5)})
    return messages


def responses_items(rng: random.Random) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for turn in range(rng.randint(1, 6)):
        items.append({"role": "user", "content": words(rng, rng.randint(1, 150))})
        if rng.random() < 0.5:
            call = f"call_{turn}"
            items.append({"type": "function_call", "call_id": call, "name": "f", "arguments": "{}"})
            items.append(
                {"type": "function_call_output", "call_id": call, "output": words(rng, 300)}
            )
        items.append(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": words(rng, 30)}],
            }
        )
    items.append({"role": "user", "content": words(rng, 5)})
    return items


def gemini_contents(rng: random.Random) -> list[dict[str, Any]]:
    contents: list[dict[str, Any]] = []
    for turn in range(rng.randint(1, 6)):
        contents.append({"role": "user", "parts": [{"text": words(rng, rng.randint(1, 150))}]})
        if rng.random() < 0.5:
            call = {"functionCall": {"name": "f", "args": {"n": turn}}}
            contents.append({"role": "model", "parts": [call]})
            answer = {"functionResponse": {"name": "f", "response": {"out": words(rng, 300)}}}
            contents.append({"role": "user", "parts": [answer]})
        contents.append({"role": "model", "parts": [{"text": words(rng, 30)}]})
    contents.append({"role": "user", "parts": [{"text": words(rng, 5)}]})
    return contents


FORMATS = {
    "openai": openai_messages,
    "anthropic": anthropic_messages,
    "responses": responses_items,
    "gemini": gemini_contents,
}


def generated(n: int, seed: int = 29) -> list[dict[str, Any]]:
    """Requests of every format with budgets from roomy to impossible (budget errors)."""
    rng = random.Random(seed)
    requests = []
    for i in range(n):
        fmt = list(FORMATS)[i % 4]
        request: dict[str, Any] = {"messages": FORMATS[fmt](rng), "format": fmt}
        if fmt != "openai" and rng.random() < 0.5:
            request["system"] = words(rng, 10)
        budget = rng.choice(["bytes", "tokens", "tiny"])
        if budget == "bytes":
            request["max_bytes"] = rng.randint(800, 20_000)
        elif budget == "tokens":
            request["context_tokens"] = rng.randint(400, 8_000)
            request["max_output_tokens"] = rng.randint(0, 300)
            if rng.random() < 0.5:
                request["model"] = rng.choice(["gpt-4o", "claude-sonnet-4-5", "gemini-2.5-pro"])
        else:
            request["max_bytes"] = rng.randint(1, 60)
        requests.append(request)
    return requests


def case_requests() -> list[dict[str, Any]]:
    cases = (load_case(path) for path in CASES)
    return [case["request"] for case in cases if case["function"] == "trim"]


BAD_TEXTS = [
    "",
    '{"messages": [',
    '{"messages": [], "max_byte": 1}',
    '{"messages": [{"role": "user", "content": "x"}], "max_bytes": "many"}',
    "[1, 2]",
    "7",
]


def test_every_row_answers_what_trim_json_answers() -> None:
    requests = case_requests() + generated(400)
    texts = [compact(r) for r in requests] + BAD_TEXTS
    answers = ankita.trim_many(texts)
    assert len(answers) == len(texts)
    for text, answer in zip(texts, answers):
        expected = text if not text.startswith("[") else '{"messages":' + text + "}"
        assert answer == ankita.trim_json(expected), text[:200]
    outcomes = [json.loads(a)["ok"] for a in answers]
    assert outcomes.count(True) > 200 and outcomes.count(False) > 50, "both kinds are tested"
    codes = {json.loads(a)["error"]["code"] for a in answers if not json.loads(a)["ok"]}
    assert {"invalid_json", "invalid_request"} <= codes, codes
    assert codes & {"history_budget_too_small", "context_budget_exceeded"}, codes


def test_bytes_dicts_and_message_lists_are_requests_too() -> None:
    requests = generated(40, seed=7)
    texts = [compact(r) for r in requests]
    expected = ankita.trim_many(texts, threads=1)
    assert ankita.trim_many([t.encode() for t in texts]) == expected
    assert ankita.trim_many([bytearray(t.encode()) for t in texts]) == expected
    assert ankita.trim_many(requests) == expected
    assert ankita.trim_many(tuple(requests)) == expected
    assert ankita.trim_many(iter(requests)) == expected
    # A messages list is {"messages": [...]}: its options come from the keywords.
    openai = [r for r in requests if r["format"] == "openai" and "max_bytes" in r]
    lists = ankita.trim_many([r["messages"] for r in openai], max_bytes=3000)
    for request, answer in zip(openai, lists):
        assert answer == ankita.trim_json(
            compact({"messages": request["messages"]} | {"max_bytes": 3000})
        )


def test_a_bad_row_is_its_own_error_never_the_batchs() -> None:
    good = compact({"messages": [{"role": "user", "content": "hi"}]})
    rows: list[Any] = [good, b"\xff\xfe{}", 7, None, {"messages": [{1, 2}]}, "\ud800", good]
    answers = [json.loads(a) for a in ankita.trim_many(rows)]
    assert answers[0]["ok"] and answers[-1]["ok"]
    assert answers[0] == json.loads(ankita.trim_json(good))
    assert answers[1]["error"]["code"] == "invalid_json"
    assert answers[1]["error"]["message"].startswith("requests[1] is not valid UTF-8")
    for i in (2, 3):
        assert answers[i]["error"]["code"] == "invalid_request"
        assert "a request must be JSON text" in answers[i]["error"]["message"]
    assert answers[4]["error"]["code"] == "invalid_request"
    assert answers[4]["error"]["path"] == "messages[0]"
    assert answers[5]["error"]["code"] == "invalid_json"


def test_options_fill_in_what_a_request_lacks() -> None:
    requests = generated(60, seed=11)
    bare = [{"messages": r["messages"], "format": r["format"]} for r in requests]
    answers = ankita.trim_many([compact(b) for b in bare], context_tokens=2000, model="gpt-4o")
    for request, answer in zip(bare, answers):
        with_keys = compact(request)[:-1] + ',"context_tokens":2000,"model":"gpt-4o"}'
        assert answer == ankita.trim_json(with_keys)
    # A request's own keys win; max_messages=None is "no count limit".
    own = {"messages": [{"role": "user", "content": str(i)} for i in range(50)], "max_bytes": 99}
    got = json.loads(ankita.trim_many([compact(own)], max_bytes=100_000, max_messages=None)[0])
    assert got == json.loads(ankita.trim_json(compact(own | {"max_messages": None})))
    default = json.loads(ankita.trim_many([compact({"messages": own["messages"]})])[0])
    assert default["report"]["output_messages"] == 40
    unlimited = ankita.trim_many([compact({"messages": own["messages"]})], max_messages=None)
    assert json.loads(unlimited[0])["report"]["output_messages"] == 50
    # None is "not given".
    assert ankita.trim_many([compact(own)], max_bytes=None) == ankita.trim_many([compact(own)])


def test_bad_options_and_arguments_raise_at_once() -> None:
    rows = [compact({"messages": []})]
    with pytest.raises(ankita.InvalidRequest) as e:
        ankita.trim_many(rows, max_byte=1)  # type: ignore[call-arg]
    assert e.value.path == "max_byte"
    with pytest.raises(ankita.InvalidRequest) as e:
        ankita.trim_many(rows, context_tokens="many")  # type: ignore[arg-type]
    assert e.value.path == "context_tokens"
    with pytest.raises(ankita.InvalidRequest):
        ankita.trim_many(rows, messages=[])  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="threads must be at least 1"):
        ankita.trim_many(rows, threads=0)
    with pytest.raises(TypeError, match="threads"):
        ankita.trim_many(rows, threads="2")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not one request"):
        ankita.trim_many(rows[0])
    with pytest.raises(TypeError, match="not one request"):
        ankita.trim_many({"messages": []})
    with pytest.raises(TypeError, match="iterable"):
        ankita.trim_many(5)  # type: ignore[arg-type]
    assert ankita.trim_many([]) == []


def test_threads_answer_the_same_in_order() -> None:
    texts = [compact(r) for r in generated(200, seed=3)]
    one = ankita.trim_many(texts, threads=1)
    assert ankita.trim_many(texts, threads=2) == one
    assert ankita.trim_many(texts, threads=7) == one
    assert ankita.trim_many(texts) == one


def test_the_gil_is_released_while_the_batch_runs() -> None:
    texts = [compact(r) for r in generated(100, seed=5)] * 30
    done = threading.Event()
    answers: list[str] = []

    def run() -> None:
        answers.extend(ankita.trim_many(texts, threads=1))
        done.set()

    worker = threading.Thread(target=run)
    ticks = 0
    worker.start()
    while not done.is_set():
        ticks += 1
        done.wait(0.001)
    worker.join()
    assert len(answers) == len(texts)
    assert ticks > 5, "the calling thread ran while the batch was trimmed"


def test_pyarrow_columns_are_read_in_place() -> None:
    pyarrow = pytest.importorskip("pyarrow")
    texts = [compact(r) for r in generated(80, seed=13)] + BAD_TEXTS
    expected = ankita.trim_many(texts)
    for kind in (
        pyarrow.string(),
        pyarrow.large_string(),
        pyarrow.binary(),
        pyarrow.large_binary(),
    ):
        values = [t.encode() for t in texts] if "binary" in str(kind) else texts
        array = pyarrow.array(values, type=kind)
        assert ankita.trim_many(array) == expected, kind
        chunked = pyarrow.chunked_array([array[:30], array[30:]])
        assert ankita.trim_many(chunked, threads=2) == expected, kind
        # A slice starts past the buffers' start (an offset).
        assert ankita.trim_many(array[10:50]) == expected[10:50], kind
    # A dictionary-encoded column is cast to strings; a null row is its own error.
    assert ankita.trim_many(pyarrow.array(texts).dictionary_encode()) == expected
    with_null = ankita.trim_many(pyarrow.array([texts[0], None, texts[1]]))
    assert with_null[0] == expected[0] and with_null[2] == expected[1]
    assert json.loads(with_null[1])["error"]["message"] == (
        "requests[1] is null; each row must hold one request"
    )
    with pytest.raises(TypeError, match="strings or binary"):
        ankita.trim_many(pyarrow.array([1, 2, 3]))

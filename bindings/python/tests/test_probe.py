"""probe_image on the real encoder fixtures, and estimate_image_tokens."""

from __future__ import annotations

import base64
from typing import Any

import ankita
import pytest
from conftest import IMAGES


def test_worked_example() -> None:
    assert ankita.estimate_image_tokens(1700, 2200) == 765
    assert ankita.estimate_image_tokens(2200, 1700, profile="ankita") == 765
    assert ankita.estimate_image_tokens(1, 1) == 85 + 170 * 4
    assert ankita.estimate_image_tokens(1024, 1024, detail="low") == 765  # ankita ignores detail


def test_provider_profiles_and_models() -> None:
    # Published figures (IMAGE_TOKENS.md): OpenAI tiles, Anthropic, Gemini.
    assert ankita.estimate_image_tokens(1024, 1024, model="gpt-4o") == 765
    assert ankita.estimate_image_tokens(2048, 4096, model="gpt-4o", detail="high") == 1105
    assert ankita.estimate_image_tokens(4096, 8192, model="gpt-4o", detail="low") == 85
    assert ankita.estimate_image_tokens(1000, 1000, profile="anthropic") == 1296
    assert ankita.estimate_image_tokens(960, 540, profile="gemini") == 1548
    raw = (IMAGES / "png" / "rgb_1700x2200.png").read_bytes()
    info = ankita.probe_image(raw, profile="anthropic")
    assert info is not None
    assert info.tokens == ankita.estimate_image_tokens(1700, 2200, profile="anthropic")
    assert info.budget_bytes == info.tokens * 4
    with pytest.raises(ankita.InvalidRequest) as both:
        ankita.estimate_image_tokens(10, 10, profile="openai", model="gpt-4o")
    assert both.value.path == "model"
    with pytest.raises(ankita.InvalidRequest) as unknown:
        ankita.probe_image(raw, model="no-such-model-anywhere", strict_model=True)
    assert unknown.value.path == "model"
    with pytest.warns(UserWarning, match="unknown model|no model family"):
        assumed = ankita.probe_image(raw, model="no-such-model-anywhere")
    assert assumed is not None and assumed.tokens == 765


def test_every_fixture(manifest: list[dict[str, Any]]) -> None:
    assert len(manifest) >= 40
    for entry in manifest:
        raw = (IMAGES / entry["file"]).read_bytes()
        b64 = base64.b64encode(raw).decode("ascii")
        mime = f"image/{entry['format'] or 'png'}"
        answers = [
            ankita.probe_image(raw),
            ankita.probe_image(bytearray(raw)),
            ankita.probe_image(f"data:{mime};base64,{b64}"),
            ankita.probe_image(b64),
        ]
        for info in answers:
            if entry["format"] is None:
                assert info is None, entry["file"]
                continue
            assert info is not None, entry["file"]
            assert (info.format, info.width, info.height) == (
                entry["format"],
                entry["width"],
                entry["height"],
            ), entry["file"]
            assert info.tokens == ankita.estimate_image_tokens(info.width, info.height)
            assert info.budget_bytes == info.tokens * 4
        assert len(set(answers)) == 1, entry["file"]


def test_image_info_value_semantics() -> None:
    raw = (IMAGES / "png" / "rgb_1700x2200.png").read_bytes()
    info = ankita.probe_image(raw)
    assert info is not None
    assert info == ankita.probe_image(raw)
    assert hash(info) == hash(ankita.probe_image(raw))
    assert repr(info) == (
        'ImageInfo(format="png", width=1700, height=2200, tokens=765, budget_bytes=3060)'
    )
    with pytest.raises(AttributeError):
        info.width = 3  # type: ignore[misc]  # read-only


def test_not_decodable() -> None:
    assert ankita.probe_image("https://example.com/cat.png") is None
    assert ankita.probe_image("") is None
    assert ankita.probe_image(b"") is None
    assert ankita.probe_image("data:image/png;base64,!!!!") is None


def test_wrong_argument_type() -> None:
    with pytest.raises(TypeError):
        ankita.probe_image(42)  # type: ignore[arg-type]


def test_probe_file_reads_pdfs_and_audio() -> None:
    from pathlib import Path

    files = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "files"
    pdf = (files / "pdf-10-objstm.pdf").read_bytes()
    info = ankita.probe_file(pdf, model="gemini-2.5-flash")
    assert info is not None
    assert (info["kind"], info["format"], info["pages"]) == ("document", "pdf", 10)
    assert (info["page_width"], info["page_height"]) == (612, 792)
    assert (info["tokens"], info["exact"]) == (2580, True)
    url = "data:application/pdf;base64," + base64.b64encode(pdf).decode()
    assert ankita.probe_file(url, model="gemini-2.5-flash") == info
    mp3 = (files / "mp3-30s-cbr.mp3").read_bytes()
    audio = ankita.probe_file(base64.b64encode(mp3).decode(), profile="gemini")
    assert audio is not None and audio["format"] == "mp3"
    seconds = audio["seconds"]
    assert seconds is not None and audio["tokens"] == 32 * seconds
    assert ankita.probe_file((files / "pdf-3-encrypted-objstm.pdf").read_bytes()) is None
    assert ankita.probe_file(b"not a file") is None

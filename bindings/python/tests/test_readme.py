"""The README's examples run as doctests, so they cannot rot."""

from __future__ import annotations

import doctest
import shutil
from pathlib import Path

import pytest
from conftest import IMAGES

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_examples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The example reads a screenshot from the working directory, as an application would.
    shutil.copy(IMAGES / "png" / "rgb_1700x2200.png", tmp_path / "screenshot.png")
    monkeypatch.chdir(tmp_path)
    results = doctest.testfile(
        str(README),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        verbose=False,
    )
    assert results.attempted >= 10
    assert results.failed == 0, f"{results.failed} README example(s) failed: see the output above"

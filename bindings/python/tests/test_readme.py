"""The README's examples run as doctests, and the Python examples of the READMEs and docs
type-check, so they cannot rot (tests/docs/run_blocks.py runs every one of them)."""

from __future__ import annotations

import doctest
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import IMAGES

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    # The examples name their fixtures by their path in the repository.
    assert (IMAGES / "png" / "rgb_1700x2200.png").is_file()
    monkeypatch.chdir(REPOSITORY)
    results = doctest.testfile(
        str(README),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        verbose=False,
    )
    assert results.attempted >= 10
    assert results.failed == 0, f"{results.failed} README example(s) failed: see the output above"


REPOSITORY = Path(__file__).resolve().parents[3]
# The repository's README and guides: their Python blocks are fragments of their own.
DOCUMENTS = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]
# A fence's info string may say more after the language (`python stand-in=client`).
BLOCK = re.compile(r"```(?:python|pycon)[^\n]*\n(.*?)```", re.S)

# What the repository README's fragments take as given, typed as an application types it with
# the SDKs: the name, the imports its type needs, and its declaration.
GIVEN = {
    "messages": (
        "from openai.types.chat import ChatCompletionMessageParam",
        "messages: list[ChatCompletionMessageParam] = []",
    ),
    "tools": (
        "from openai.types.chat import ChatCompletionToolParam",
        "tools: list[ChatCompletionToolParam] = []",
    ),
    "user_message": (
        "from openai.types.chat import ChatCompletionMessageParam",
        'user_message: ChatCompletionMessageParam = {"role": "user", "content": "Hi"}',
    ),
    "lines": ("", "lines: list[str] = []"),
    "items": (
        "from openai.types.responses import ResponseInputItemParam",
        "items: list[ResponseInputItemParam] = []",
    ),
    "instructions": ("", 'instructions = "Be brief."'),
    "contents": ("from google.genai import types", "contents: list[types.Content] = []"),
    "system_instruction": (
        "from google.genai import types",
        'system_instruction = types.Content(role="user", parts=[types.Part(text="Be brief.")])',
    ),
}


def given(code: str) -> str:
    """The imports and declarations of the names a README fragment uses but does not define."""
    lines = ["import ankita"]
    for name, (imports, declaration) in GIVEN.items():
        if re.search(rf"\b{name}\b", code) and not re.search(rf"^{name}\s*[:=]", code, re.M):
            lines += [imports, declaration]
    if re.search(r"\bclient\.", code):
        if "generate_content" in code:
            lines += ["from google import genai", 'client = genai.Client(api_key="unused")']
        else:
            lines += ["import openai", 'client = openai.OpenAI(api_key="unused")']
    return "\n".join(line for line in lines if line) + "\n"


def doctest_source(block: str) -> str:
    """The code of a doctest block (its prompts' lines, without the prompts)."""
    code = [line[4:] for line in block.splitlines() if line[:4] in (">>> ", "... ")]
    code += [""] if code else []
    return "\n".join(code)


def test_readme_examples_type_check_strictly(tmp_path: Path) -> None:
    """The Python examples of the READMEs and docs pass ``mypy --strict`` against the installed
    package and the real SDKs (openai, anthropic, google-genai, langchain-core, pydantic-ai):
    the repository README's and guides' fragments each as a module of their own, after
    declarations of what they take as given (a provider's client, which the block runner
    replaces with a stand-in); this README's doctests as one module, in order, as doctest runs
    them (a name is bound again from one example to the next, as in a session)."""
    pytest.importorskip("mypy")
    fragments = [
        (document.stem, code)
        for document in DOCUMENTS
        for code in BLOCK.findall(document.read_text(encoding="utf-8"))
    ]
    assert len(fragments) >= 8
    files = []
    for k, (name, code) in enumerate(fragments):
        path = tmp_path / f"{name.replace('-', '_').lower()}_{k}.py"
        path.write_text(given(code) + code, encoding="utf-8")
        files.append(str(path))
    doctests = [doctest_source(b) for b in BLOCK.findall(README.read_text(encoding="utf-8"))]
    assert sum(1 for d in doctests if d) >= 7
    path = tmp_path / "python_readme.py"
    path.write_text("# mypy: allow-redefinition\n" + "".join(doctests), encoding="utf-8")
    files.append(str(path))
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *files],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr

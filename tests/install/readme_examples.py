#!/usr/bin/env python3
"""Runs the documents' examples as written, against an installed package or a `make install`.

tests/docs/run_blocks.py runs every block of the READMEs and docs against what the repository
built; this script runs the README's quickstarts against the packages as a user installs them.

readme_examples.py c-api docs/c-api.md SCRATCH_DIR
    The "Install and build" section: its ```c, ```cpp and ```cmake blocks are written to
    probe.c, probe.cpp and CMakeLists.txt in a scratch directory; its ```sh blocks run in order
    in one shell (a block with `make install` in the repository, the others in the scratch
    directory) with HOME pointing to a scratch home, so `$HOME/.local` is a fresh prefix; every
    ```text block must appear in what they print.
readme_examples.py python README.md PYTHON
    The "Quickstart" section's ```python blocks, run as written by PYTHON (where ankita is
    installed) from the repository's root, where the files they name are.
readme_examples.py js README.md APP_DIR
    Its ```js blocks, run as written by node as ES modules placed in APP_DIR (where ankita is
    installed, so `import "ankita"` finds it there), from the repository's root.
"""

import os
import pathlib
import re
import subprocess
import sys

FILES = {"c": "probe.c", "cpp": "probe.cpp", "cmake": "CMakeLists.txt"}


def section(readme: str, title: str) -> str:
    start = readme.index(f"\n## {title}\n")
    end = readme.find("\n## ", start + 1)
    return readme[start : end if end != -1 else len(readme)]


def blocks_of(readme_path: pathlib.Path, title: str) -> list[tuple[str, str]]:
    """The section's fenced blocks: (language, text); the info string's other words are left."""
    return re.findall(
        r"^```(\w+)[^\n]*\n(.*?)^```$", section(readme_path.read_text(), title), re.M | re.S
    )


def python_examples(readme_path: pathlib.Path, python: str) -> int:
    repo = readme_path.parent
    code = [text for lang, text in blocks_of(readme_path, "Quickstart") if lang == "python"]
    if not code:
        print("no ```python block in the Quickstart section", file=sys.stderr)
        return 1
    for text in code:
        run = subprocess.run([python, "-c", text], cwd=repo, capture_output=True, text=True)
        if run.returncode != 0:
            print(text, run.stderr, sep="\n", file=sys.stderr)
            return 1
    print(f"{len(code)} Python block(s) ran as written")
    return 0


def js_examples(readme_path: pathlib.Path, app: str) -> int:
    repo = readme_path.parent
    code = [text for lang, text in blocks_of(readme_path, "Quickstart") if lang == "js"]
    if not code:
        print("no ```js block in the Quickstart section", file=sys.stderr)
        return 1
    for i, text in enumerate(code):
        script = pathlib.Path(app).resolve() / f"readme-{i}.mjs"
        script.write_text(text)
        run = subprocess.run(["node", str(script)], cwd=repo, capture_output=True, text=True)
        if run.returncode != 0:
            print(text, run.stderr, sep="\n", file=sys.stderr)
            return 1
    print(f"{len(code)} JavaScript block(s) ran as written")
    return 0


def c_api_examples(readme_path: pathlib.Path, scratch: pathlib.Path) -> int:
    repo = readme_path.parent.parent
    work = scratch / "example"
    home = scratch / "home"
    work.mkdir(parents=True)
    home.mkdir(parents=True)

    blocks = blocks_of(readme_path, "Install and build")
    script = ["set -euo pipefail"]
    expected = []
    for lang, text in blocks:
        if lang in FILES:
            (work / FILES[lang]).write_text(text)
        elif lang == "sh":
            where = repo if "make install" in text else work
            script.append(f"cd '{where}'")
            script.append(text)
        elif lang == "text":
            expected.append(text)
    missing = [name for name in FILES.values() if not (work / name).exists()]
    if missing or not expected or len(script) < 3:
        print(
            f"the Install and build section lacks examples: {missing or 'sh or text blocks'}",
            file=sys.stderr,
        )
        return 1

    env = dict(os.environ, HOME=str(home))
    # The toolchain stays where it is when HOME moves.
    real_home = pathlib.Path(os.environ.get("HOME", "/root"))
    env.setdefault("CARGO_HOME", os.environ.get("CARGO_HOME", str(real_home / ".cargo")))
    env.setdefault("RUSTUP_HOME", os.environ.get("RUSTUP_HOME", str(real_home / ".rustup")))
    env.pop("PKG_CONFIG_PATH", None)
    run = subprocess.run(["bash", "-c", "\n".join(script)], env=env, capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stdout[-3000:], run.stderr[-3000:], sep="\n", file=sys.stderr)
        print(f"the document's commands failed ({run.returncode})", file=sys.stderr)
        return 1
    failures = [text for text in expected if text not in run.stdout]
    for text in failures:
        print(f"expected in the output:\n{text}", file=sys.stderr)
    if failures:
        print(f"got:\n{run.stdout[-3000:]}", file=sys.stderr)
        return 1
    print(f"{len(blocks)} blocks of {readme_path.name}: built and ran as written")
    return 0


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    mode, readme, where = sys.argv[1], pathlib.Path(sys.argv[2]).resolve(), sys.argv[3]
    if mode == "c-api":
        return c_api_examples(readme, pathlib.Path(where).resolve())
    if mode == "python":
        return python_examples(readme, where)
    if mode == "js":
        return js_examples(readme, where)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs README.md's examples as written, with their inputs made here.

readme_examples.py c-api README.md SCRATCH_DIR
    The "C API" section: its ```c, ```cpp and ```cmake blocks are written to probe.c,
    probe.cpp and CMakeLists.txt in a scratch directory; its ```sh blocks run in order in one
    shell (a block with `make install` in the repository, the others in the scratch directory)
    with HOME pointing to a scratch home, so `$HOME/.local` is a fresh prefix; every ```text
    block must appear in what they print.
readme_examples.py python README.md PYTHON
    The "Python and Node" section's ```python blocks, run by PYTHON (where ankita is
    installed) after `messages` and `tools` are read from examples/.
readme_examples.py js README.md APP_DIR
    Its ```js blocks, run by node as an ES module in APP_DIR (where ankita is installed),
    after `messages` is read from examples/.
readme_examples.py cli README.md SCRATCH_DIR
    The "Command line" section's ```sh lines, each run in a scratch directory holding the files
    they name (session.json, tools.json, request.json, restored.json, screenshot.png,
    contents.json, instruction.txt); the
    `ankita` on PATH is the caller's (make puts target/release first).
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

FILES = {"c": "probe.c", "cpp": "probe.cpp", "cmake": "CMakeLists.txt"}


def section(readme: str, title: str) -> str:
    start = readme.index(f"\n## {title}\n")
    end = readme.find("\n## ", start + 1)
    return readme[start : end if end != -1 else len(readme)]


def blocks_of(readme_path: pathlib.Path, title: str) -> list[tuple[str, str]]:
    return re.findall(
        r"^```(\w+)\n(.*?)^```$", section(readme_path.read_text(), title), re.M | re.S
    )


def python_examples(readme_path: pathlib.Path, python: str) -> int:
    repo = readme_path.parent
    code = [text for lang, text in blocks_of(readme_path, "Python and Node") if lang == "python"]
    if not code:
        print("no ```python block in the Python and Node section", file=sys.stderr)
        return 1
    prelude = (
        "import json, pathlib\n"
        f"examples = pathlib.Path({str(repo / 'examples')!r})\n"
        "messages = json.loads((examples / 'session.json').read_text())['messages']\n"
        "tools = json.loads((examples / 'tools.json').read_text())\n"
    )
    check = (
        "\nassert result.messages and result.report['output_messages'] == len(result.messages)\n"
    )
    for text in code:
        run = subprocess.run([python, "-c", prelude + text + check], capture_output=True, text=True)
        if run.returncode != 0:
            print(text, run.stderr, sep="\n", file=sys.stderr)
            return 1
    print(f"{len(code)} Python block(s) ran as written")
    return 0


def js_examples(readme_path: pathlib.Path, app: str) -> int:
    repo = readme_path.parent
    code = [text for lang, text in blocks_of(readme_path, "Python and Node") if lang == "js"]
    if not code:
        print("no ```js block in the Python and Node section", file=sys.stderr)
        return 1
    session = json.dumps(str(repo / "examples" / "session.json"))
    for i, text in enumerate(code):
        script = pathlib.Path(app) / f"readme-{i}.mjs"
        script.write_text(
            'import fs from "node:fs";\n'
            f'const messages = JSON.parse(fs.readFileSync({session}, "utf8")).messages;\n'
            + text
            + "\nif (!(kept.length > 0 && report.output_messages === kept.length)) "
            "process.exit(3);\n"
        )
        run = subprocess.run(["node", script.name], cwd=app, capture_output=True, text=True)
        if run.returncode != 0:
            print(text, run.stderr, sep="\n", file=sys.stderr)
            return 1
    print(f"{len(code)} JavaScript block(s) ran as written")
    return 0


def cli_examples(readme_path: pathlib.Path, scratch: pathlib.Path) -> int:
    repo = readme_path.parent
    work = scratch / "cli"
    work.mkdir(parents=True)
    session = json.loads((repo / "examples" / "session.json").read_text())
    shutil.copy(repo / "examples" / "session.json", work / "session.json")
    shutil.copy(repo / "examples" / "tools.json", work / "tools.json")
    (work / "request.json").write_text(json.dumps({"messages": session["messages"]}))
    # A restored session with an orphan tool reply, for sanitize.
    restored = [{"role": "tool", "tool_call_id": "call_0", "content": "orphan"}] + session[
        "messages"
    ][:3]
    (work / "restored.json").write_text(json.dumps(restored))
    shutil.copy(
        sorted((repo / "examples" / "screenshots").glob("*.png"))[0], work / "screenshot.png"
    )
    # A batch: one request per line (the session whole, and its first turns on a tight budget).
    batch = [
        {"messages": session["messages"]},
        {"messages": session["messages"][:4], "max_bytes": 2000},
        session["messages"][:2],
    ]
    (work / "requests.jsonl").write_text("".join(json.dumps(r) + "\n" for r in batch))
    # A Gemini history (a function call and its response) and its system instruction.
    contents = [
        {"role": "user", "parts": [{"text": "What is in a.txt?"}]},
        {
            "role": "model",
            "parts": [{"functionCall": {"name": "read_file", "args": {"path": "a.txt"}}}],
        },
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "read_file", "response": {"output": "alpha"}}}],
        },
    ]
    (work / "contents.json").write_text(json.dumps(contents))
    (work / "instruction.txt").write_text("Be brief.\n")
    lines = [
        line
        for lang, text in blocks_of(readme_path, "Command line")
        if lang == "sh"
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if not lines:
        print("no ```sh block in the Command line section", file=sys.stderr)
        return 1
    for line in lines:
        run = subprocess.run(["bash", "-c", line], cwd=work, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{line}\nexit {run.returncode}\n{run.stderr[-2000:]}", file=sys.stderr)
            return 1
    print(f"{len(lines)} command lines ran as written")
    return 0


def c_api_examples(readme_path: pathlib.Path, scratch: pathlib.Path) -> int:
    repo = readme_path.parent
    work = scratch / "example"
    home = scratch / "home"
    work.mkdir(parents=True)
    home.mkdir(parents=True)

    blocks = blocks_of(readme_path, "C API")
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
            f"the C API section lacks examples: {missing or 'sh or text blocks'}", file=sys.stderr
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
        print(f"the README's commands failed ({run.returncode})", file=sys.stderr)
        return 1
    failures = [text for text in expected if text not in run.stdout]
    for text in failures:
        print(f"expected in the output:\n{text}", file=sys.stderr)
    if failures:
        print(f"got:\n{run.stdout[-3000:]}", file=sys.stderr)
        return 1
    print(f"{len(blocks)} README blocks: built and ran as written")
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
    if mode == "cli":
        return cli_examples(readme, pathlib.Path(where).resolve())
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs every code block of the READMEs and docs, and checks their relative links.

    tests/docs/run_blocks.py [--python PY] [--only LANG,...] [--no-links] [FILE.md ...]

Without files: README.md, docs/*.md, bindings/python/README.md and bindings/node/README.md.
What is built already is used, nothing is built here: PY (default bindings/python/.venv/bin/python,
where the package is installed) runs the Python blocks; node runs the JavaScript blocks against
bindings/node (its node_modules installed: `npm ci`); the C and C++ blocks are compiled against
include/ and target/release/libankita.so and run; `sh` blocks whose every line is an `ankita …`
call run with target/release/ankita.

Each file's blocks run in order in a scratch directory of their own (target/docs-blocks/…) that
holds the repository's examples/ and tests/ as links, so fixtures are named by their path in the
repository (`examples/session.json`) and what a block writes (`> answer.json`) stays there for
the next block. The fence's info string says more than the language:

    ```python no-run: <reason>       not run, and counted and listed as not run with the reason
    ```python stand-in=client        `client` is a recording stand-in (unittest.mock.MagicMock;
                                     in JavaScript a Proxy answering every call) for a
                                     provider's client the block would need
    ```python continue               runs after the file's previous block of the language
    ```text output                   what the block before it prints: each line must appear in
                                     its output

A Python block written as a doctest (`>>>`) runs with the file's other doctests, in order, as
one doctest (ELLIPSIS, NORMALIZE_WHITESPACE). Code blocks in any other language (cmake,
a shell block that is not only `ankita` calls) must say `no-run: <reason>`; `text`, `json` and
unlabelled blocks are not code. The link check reads every `[text](target)` outside code: a
relative file must exist, and an anchor (`file.md#heading`, `#heading`) must be a heading of
that file as GitHub writes its anchors.

Prints, for each file, how many blocks ran and how many did not (with why), and exits 1 on any
failure. Runs in make test at the end of bindings/python/run-tests.sh.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRATCH = REPO / "target" / "docs-blocks"
TIMEOUT = 600

PYTHON = {"python", "py", "pycon"}
JS = {"js", "javascript", "mjs"}
C = {"c"}
CPP = {"cpp", "c++", "cxx"}
SHELL = {"sh", "bash", "shell", "console"}
# Code that is never run here: it must say why.
OTHER_CODE = {"cmake", "ts", "typescript", "powershell", "ps1", "bat", "cmd", "rust", "toml"}
CODE = PYTHON | JS | C | CPP | SHELL | OTHER_CODE
LANGS = {"python": PYTHON, "js": JS, "c": C | CPP, "sh": SHELL}

FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*([^`]*)$")


@dataclass
class Block:
    path: Path
    line: int
    lang: str
    info: str
    text: str
    no_run: str | None = None
    stand_ins: list[str] = field(default_factory=list)
    cont: bool = False
    output: bool = False


def blocks_of(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, with what their info strings say."""
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = m.group(1), m.group(2), m.group(3).strip()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not (
            lines[i].strip().startswith(fence) and lines[i].strip().strip(fence[0]) == ""
        ):
            line = lines[i]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            i += 1
        i += 1
        words = info.split()
        lang = words[0].lower() if words else ""
        block = Block(path, start + 1, lang, info, "\n".join(body) + "\n")
        rest = info[len(words[0]) :].strip() if words else ""
        if rest.startswith("no-run"):
            block.no_run = rest[len("no-run") :].lstrip(" :") or "(no reason given)"
        for word in rest.split():
            if word.startswith("stand-in="):
                block.stand_ins = [n for n in word[len("stand-in=") :].split(",") if n]
            elif word == "continue":
                block.cont = True
            elif word == "output":
                block.output = True
        found.append(block)
    return found


# --- links ------------------------------------------------------------------------------------


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, inline markup and punctuation gone, spaces -."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors_of(path: Path) -> set[str]:
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_code = not in_code
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if in_code or not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        anchors.add(base if n == 0 else f"{base}-{n}")
    return anchors


def check_links(path: Path) -> list[str]:
    """Broken relative links and anchors of a Markdown file."""
    problems: list[str] = []
    in_code = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        prose = re.sub(r"`[^`]*`", "", line)
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # https:, mailto:
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            where = f"{path.relative_to(REPO)}:{number}: {target}"
            if not dest.exists():
                problems.append(f"{where}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors_of(dest):
                problems.append(f"{where}: no heading with that anchor in {dest.name}")
    return problems


# --- running ----------------------------------------------------------------------------------


@dataclass
class Runner:
    python: str
    release: Path
    node_package: Path
    only: set[str]
    work: Path = REPO
    failures: list[str] = field(default_factory=list)

    def scratch(self, path: Path) -> Path:
        name = str(path.relative_to(REPO)).replace("/", "_").removesuffix(".md")
        work = SCRATCH / name
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        for linked in ("examples", "tests"):
            (work / linked).symlink_to(REPO / linked)
        return work

    def node_modules(self) -> None:
        """target/docs-blocks/node_modules: `ankita` is bindings/node, beside its dependencies
        (the SDKs a block imports), so a block's imports resolve as in an application."""
        modules = SCRATCH / "node_modules"
        shutil.rmtree(modules, ignore_errors=True)
        modules.mkdir(parents=True)
        installed = self.node_package / "node_modules"
        if not installed.is_dir():
            raise SystemExit(f"{installed} is missing: npm ci in {self.node_package}")
        for entry in installed.iterdir():
            if entry.name.startswith("."):
                continue
            (modules / entry.name).symlink_to(entry)
        (modules / "ankita").symlink_to(self.node_package)

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PATH"] = f"{self.release}{os.pathsep}{env.get('PATH', '')}"
        env.pop("ANKITA_LIB", None)
        return env

    def run(self, argv: list[str], what: str, stdin: str | None = None) -> str | None:
        try:
            done = subprocess.run(
                argv,
                cwd=self.work,
                env=self.env(),
                input=stdin,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            self.failures.append(f"{what}: no answer in {TIMEOUT} s")
            return None
        if done.returncode != 0:
            self.failures.append(
                f"{what}: exit {done.returncode}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
            )
            return None
        return done.stdout + done.stderr

    # Each returns what the block printed, or None when it failed.

    def python_block(self, block: Block, source: str, what: str) -> str | None:
        prelude = "".join(
            f"from unittest import mock as _mock\n{name} = _mock.MagicMock(name={name!r})\n"
            for name in block.stand_ins
        )
        script = self.work / f"block_{block.line}.py"
        script.write_text(prelude + source, encoding="utf-8")
        return self.run([self.python, script.name], what)

    def doctests(self, blocks: list[Block], what: str) -> str | None:
        script = self.work / "doctests.txt"
        script.write_text("\n".join(b.text for b in blocks), encoding="utf-8")
        flags = ["-o", "ELLIPSIS", "-o", "NORMALIZE_WHITESPACE"]
        return self.run([self.python, "-m", "doctest", *flags, script.name], what)

    def js_block(self, block: Block, source: str, what: str) -> str | None:
        prelude = ""
        if block.stand_ins:
            prelude = (
                "const __standIn = (name) => {\n"
                "  const proxy = new Proxy(function () {}, {\n"
                "    get: (_, key) =>\n"
                '      key === "then" ? undefined\n'
                "      : key === Symbol.iterator ? function* () {}\n"
                "      : key === Symbol.toPrimitive ? () => name\n"
                "      : proxy,\n"
                "    apply: () => Promise.resolve(proxy),\n"
                "    construct: () => proxy,\n"
                "  });\n"
                "  return proxy;\n"
                "};\n" + "".join(f'const {n} = __standIn("{n}");\n' for n in block.stand_ins)
            )
        script = SCRATCH / f"{self.work.name}_{block.line}.mjs"
        script.write_text(prelude + source, encoding="utf-8")
        return self.run(["node", str(script)], what)

    def c_block(self, block: Block, source: str, what: str) -> str | None:
        cpp = block.lang in CPP
        src = self.work / f"block_{block.line}.{'cpp' if cpp else 'c'}"
        exe = self.work / f"block_{block.line}"
        src.write_text(source, encoding="utf-8")
        compiler = (
            [os.environ.get("CXX", "c++"), "-std=c++17"]
            if cpp
            else [os.environ.get("CC", "cc"), "-std=c99"]
        )
        built = self.run(
            [
                *compiler,
                "-Wall",
                "-Wextra",
                "-Werror",
                f"-I{REPO / 'include'}",
                src.name,
                f"-L{self.release}",
                "-lankita",
                f"-Wl,-rpath,{self.release}",
                "-o",
                exe.name,
            ],
            f"{what} (compiling)",
        )
        return None if built is None else self.run([str(exe)], what)

    def sh_block(self, block: Block, what: str) -> str | None:
        out = ""
        for line in commands(block.text):
            done = self.run(["bash", "-o", "pipefail", "-c", line], f"{what}: {line}")
            if done is None:
                return None
            out += done
        return out

    def file(self, path: Path) -> tuple[int, list[Block]]:
        """Runs a file's blocks; answers how many ran and the blocks that did not."""
        blocks = blocks_of(path)
        rel = path.relative_to(REPO)
        self.work = self.scratch(path)
        ran = 0
        not_run: list[Block] = []
        last_source: dict[str, str] = {}
        last_output: str | None = None
        doctests = [b for b in blocks if b.lang in PYTHON and b.no_run is None and is_doctest(b)]
        for block in blocks:
            what = f"{rel}:{block.line} ({block.lang})"
            if block.output:
                if last_output is not None:
                    missing = [
                        line
                        for line in block.text.splitlines()
                        if line.strip() and " ".join(line.split()) not in squash(last_output)
                    ]
                    if missing:
                        self.failures.append(
                            f"{what}: the block before it did not print {missing!r}; it printed\n"
                            + last_output[-2000:]
                        )
                continue
            if block.lang not in CODE:
                continue
            family = next((name for name, langs in LANGS.items() if block.lang in langs), "")
            if block.no_run is not None:
                # An output block after it is that of the last block that ran.
                not_run.append(block)
                continue
            last_output = None
            if family == "sh" and not commands(block.text):
                block.no_run = "(not `ankita` calls only, and not marked no-run)"
                self.failures.append(
                    f"{what}: a shell block runs only when every line is an `ankita` call; "
                    "otherwise mark it `no-run: <reason>`"
                )
                not_run.append(block)
                continue
            if not family:
                self.failures.append(f"{what}: a {block.lang} block must say `no-run: <reason>`")
                not_run.append(block)
                continue
            if self.only and family not in self.only:
                continue
            source = block.text
            if block.cont:
                source = last_source.get(block.lang, "") + source
            last_source[block.lang] = source
            before = len(self.failures)
            if family == "python" and is_doctest(block):
                if block is doctests[0]:
                    self.doctests(doctests, f"{rel}: the doctests ({len(doctests)} blocks)")
                last_output = None
            elif family == "python":
                last_output = self.python_block(block, source, what)
            elif family == "js":
                last_output = self.js_block(block, source, what)
            elif family == "c":
                last_output = self.c_block(block, source, what)
            else:
                last_output = self.sh_block(block, what)
            if len(self.failures) == before:
                ran += 1
        return ran, not_run


def is_doctest(block: Block) -> bool:
    return any(line.startswith(">>> ") for line in block.text.splitlines())


def squash(text: str) -> str:
    return " ".join(text.split())


def commands(text: str) -> list[str]:
    """The lines of a shell block when every one is an `ankita` call (else none)."""
    lines = [
        line.removeprefix("$ ").strip()
        for line in text.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    if lines and all(line.startswith("ankita ") for line in lines):
        return lines
    return []


def default_files() -> list[Path]:
    return [
        REPO / "README.md",
        *sorted((REPO / "docs").glob("*.md")),
        REPO / "bindings" / "python" / "README.md",
        REPO / "bindings" / "node" / "README.md",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument(
        "--python", default=str(REPO / "bindings" / "python" / ".venv" / "bin" / "python")
    )
    parser.add_argument("--release", type=Path, default=REPO / "target" / "release")
    parser.add_argument("--node-package", type=Path, default=REPO / "bindings" / "node")
    parser.add_argument("--only", default="", help="python,js,c,sh: run only these")
    parser.add_argument("--no-links", action="store_true")
    args = parser.parse_args()
    files = [p.resolve() for p in args.files] or default_files()
    only = {x for x in args.only.split(",") if x}
    runner = Runner(args.python, args.release.resolve(), args.node_package.resolve(), only)
    for built in ("libankita.so", "ankita"):
        if not (runner.release / built).exists():
            print(f"{runner.release / built} is missing: make build", file=sys.stderr)
            return 1
    SCRATCH.mkdir(parents=True, exist_ok=True)
    if not only or "js" in only:
        runner.node_modules()
    link_problems: list[str] = []
    total_run = total_not_run = 0
    for path in files:
        ran, not_run = runner.file(path)
        total_run += ran
        total_not_run += len(not_run)
        print(f"{path.relative_to(REPO)}: {ran} run, {len(not_run)} not run", flush=True)
        for block in not_run:
            print(f"    not run: line {block.line} ({block.lang}): {block.no_run}")
        if not args.no_links:
            link_problems += check_links(path)
    print(f"all: {total_run} blocks run, {total_not_run} not run, in {len(files)} files")
    for problem in link_problems:
        print(f"broken link: {problem}", file=sys.stderr)
    for failure in runner.failures:
        print(f"FAILED {failure}", file=sys.stderr)
    if runner.failures or link_problems:
        print(
            f"{len(runner.failures)} block(s) failed, {len(link_problems)} broken link(s)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

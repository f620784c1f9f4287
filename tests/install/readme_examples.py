#!/usr/bin/env python3
"""Runs the examples of README.md's "C API" section as written.

The section's ```c, ```cpp and ```cmake blocks are written to probe.c, probe.cpp and
CMakeLists.txt in a scratch directory; its ```sh blocks run in order in one shell (a block with
`make install` in the repository, the others in the scratch directory) with HOME pointing to a
scratch home, so `$HOME/.local` is a fresh prefix; every ```text block must appear in what they
print.

Usage: readme_examples.py README.md SCRATCH_DIR
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


def main() -> int:
    readme_path = pathlib.Path(sys.argv[1]).resolve()
    repo = readme_path.parent
    scratch = pathlib.Path(sys.argv[2]).resolve()
    work = scratch / "example"
    home = scratch / "home"
    work.mkdir(parents=True)
    home.mkdir(parents=True)

    blocks = re.findall(r"^```(\w+)\n(.*?)^```$", section(readme_path.read_text(), "C API"), re.M | re.S)
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
        print(f"the C API section lacks examples: {missing or 'sh or text blocks'}", file=sys.stderr)
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


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Time and peak memory of `ankita trim --model MODEL` on text without a break.

Each case is one user message holding a long run the pre-tokenizer leaves as one piece (a
letter repeated, CJK without punctuation), written to a file and trimmed by the release CLI in
a child process; the child's CPU time and peak resident memory come from
getrusage(RUSAGE_CHILDREN), read in a fresh interpreter of this script per case that holds
nothing big (a child is counted from its fork, with its parent's pages).

    cargo build --release && python3 scripts/long_runs.py [--model MODEL] [CASE ...]

MODEL is gpt-4o unless given (`--model gemini-2.5-flash` counts with Gemma 3's tokenizer). The
CLI is `target/release/ankita`, under $CARGO_TARGET_DIR when that is set, or $ANKITA_CLI.
CASE is `a:MB` (that many megabytes of `a`), `spaces:MB` (of spaces), `letters:MB` (of
pseudo-random letters `a` to `p`, which Gemma 3's vocabulary holds side by side in every pair),
`cjk:MB` (of common CJK characters without punctuation) or `punct=UNIT:MB` (of the punctuation
UNIT repeated: `punct=-:5` is 5 MB of `-`, `punct=-=:5` of `-=-=`); the default is a:5 a:50
cjk:3 and 5 MB of each of `-`, `=`, `*`, `.`, `_`, `#`, `~` and `-=`. Prints a row per case:
input bytes, exit code, CPU seconds, peak RSS in MB and its ratio to the input.
"""

import json
import os
import resource
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("ANKITA_CLI") or os.path.join(
    os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "release", "ankita"
)
CJK = (
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学"
    "对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头"
)


PUNCTUATION = ["-", "=", "*", ".", "_", "#", "~", "-="]


def text_of(case: str) -> str:
    kind, _, mb = case.rpartition(":")
    size = int(float(mb) * 1_000_000)
    if kind.startswith("punct="):
        unit = kind.removeprefix("punct=")
        if not unit or any(c.isalnum() or c.isspace() for c in unit):
            raise SystemExit(f"{case!r}: punctuation, no letters, digits or spaces")
        return (unit * (size // len(unit) + 1))[:size]
    if kind == "a":
        return "a" * size
    if kind == "spaces":
        return " " * size
    if kind == "letters":
        letters, state = bytearray(size), 0x2545F4914F6CDD1D
        for i in range(size):
            state ^= (state << 13) & 0xFFFFFFFFFFFFFFFF
            state ^= state >> 7
            state ^= (state << 17) & 0xFFFFFFFFFFFFFFFF
            letters[i] = ord("a") + state % 16
        return letters.decode()
    if kind == "cjk":
        # A fixed pseudo-random walk over the characters (3 bytes each), no repeating period.
        out, state = [], 0x2545F4914F6CDD1D
        for _ in range(size // 3):
            state ^= (state << 13) & 0xFFFFFFFFFFFFFFFF
            state ^= state >> 7
            state ^= (state << 17) & 0xFFFFFFFFFFFFFFFF
            out.append(CJK[state % len(CJK)])
        return "".join(out)
    raise SystemExit(f"unknown case {case!r}: a:MB, spaces:MB, letters:MB, cjk:MB or punct=UNIT:MB")


def measure(model: str, case: str, path: str) -> None:
    """Runs the CLI on the request at `path`: this interpreter holds nothing big, so that the
    child's peak (getrusage counts a child from its fork) is the CLI's own."""
    size = os.path.getsize(path)
    proc = subprocess.run(
        [CLI, "trim", "--model", model, path],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    peak_mb = usage.ru_maxrss / 1024  # kilobytes on Linux
    ratio = usage.ru_maxrss * 1024 / size
    err = proc.stderr.decode(errors="replace").strip().splitlines()
    note = f"  ({err[-1][:60]})" if proc.returncode not in (0, 1) and err else ""
    print(
        f"{case:11} {size / 1e6:7.1f} MB  exit {proc.returncode}  "
        f"cpu {cpu:6.2f} s  peak {peak_mb:7.1f} MB  {ratio:4.1f}x input{note}",
        flush=True,
    )


def main() -> None:
    if os.environ.get("LONG_RUNS_CHILD"):
        measure(sys.argv[1], sys.argv[2], sys.argv[3])
        return
    args = sys.argv[1:]
    model = "gpt-4o"
    if args[:1] == ["--model"] and len(args) > 1:
        model, args = args[1], args[2:]
    cases = args or ["a:5", "a:50", "cjk:3"] + [f"punct={u}:5" for u in PUNCTUATION]
    env = dict(os.environ, LONG_RUNS_CHILD="1")
    for case in cases:
        text = text_of(case)
        request = json.dumps({"messages": [{"role": "user", "content": text}]}, ensure_ascii=False)
        del text
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
            f.write(request.encode())
            path = f.name
        del request
        try:
            # A fresh interpreter per case: RUSAGE_CHILDREN's peak is the largest child's so far.
            subprocess.run([sys.executable, __file__, model, case, path], env=env, check=True)
        finally:
            os.unlink(path)


if __name__ == "__main__":
    main()

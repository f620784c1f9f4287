"""Benchmark: a dataset of requests trimmed by trim_many on 1 and 2 threads, by the command
line's batch, and by the Ray Data pipeline of examples/ray_dataset.py.

    python bindings/python/bench/bench_batch.py [--requests 3000] [--runs 5] [--cli PATH] [--no-ray]

Writes --requests generated requests (the four wire formats in turn, 10 to 60 messages of chat,
tool calls and tool output each, 8 to 40 kB) to a JSONL file, then prints, each measured in this
one run: the median wall time of trim_many on 1 thread and on 2 (runs alternate, so both see
the same load) and their ratio; rows/s of trim_many, of `ankita trim --jsonl` (--threads 1 and
2) and of the Ray pipeline on a local Ray of 2 CPUs (from Ray's read to the last Parquet file,
its start left out). The machine's load average is printed before and after: a busy machine
lowers the 2-thread figure, so measure when it is quiet.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import ankita

ROOT = Path(__file__).resolve().parents[3]
OPTIONS: dict[str, Any] = {"context_tokens": 8000, "max_output_tokens": 1000, "model": "gpt-4o"}
FLAGS = ["--context-tokens", "8000", "--max-output-tokens", "1000", "--model", "gpt-4o"]
WORDS = "the build failed because the disk is full so we cleaned the cache and ran it again".split()


def text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def request(rng: random.Random, fmt: str) -> dict[str, Any]:
    """A chat with tool exchanges in one wire format."""
    messages: list[dict[str, Any]] = []
    for turn in range(rng.randint(4, 20)):
        question, output, answer = text(rng, 40), text(rng, rng.randint(50, 400)), text(rng, 60)
        call = f"call_{turn}"
        if fmt == "openai":
            fn = {"name": "run", "arguments": '{"cmd": "make"}'}
            messages += [
                {"role": "user", "content": question},
                {
                    "role": "assistant",
                    "tool_calls": [{"id": call, "type": "function", "function": fn}],
                },
                {"role": "tool", "tool_call_id": call, "content": output},
                {"role": "assistant", "content": answer},
            ]
        elif fmt == "anthropic":
            use = {"type": "tool_use", "id": call, "name": "run", "input": {"cmd": "make"}}
            result = {"type": "tool_result", "tool_use_id": call, "content": output}
            messages += [
                {"role": "user", "content": question},
                {"role": "assistant", "content": [use]},
                {"role": "user", "content": [result]},
                {"role": "assistant", "content": answer},
            ]
        elif fmt == "responses":
            messages += [
                {"role": "user", "content": question},
                {"type": "function_call", "call_id": call, "name": "run", "arguments": "{}"},
                {"type": "function_call_output", "call_id": call, "output": output},
                {"role": "assistant", "content": answer},
            ]
        else:
            messages += [
                {"role": "user", "parts": [{"text": question}]},
                {"role": "model", "parts": [{"functionCall": {"name": "run", "args": {}}}]},
                {
                    "role": "user",
                    "parts": [{"functionResponse": {"name": "run", "response": {"out": output}}}],
                },
                {"role": "model", "parts": [{"text": answer}]},
            ]
    messages.append(
        {"role": "user", "parts": [{"text": "and now?"}]}
        if fmt == "gemini"
        else {"role": "user", "content": "and now?"}
    )
    return {"messages": messages, "format": fmt}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(f: Any) -> float:
    started = time.perf_counter()
    f()
    return time.perf_counter() - started


def timed_cpu(f: Any) -> tuple[float, float]:
    """Wall time and the CPU time of every thread of this process."""
    wall, cpu = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cli", default=str(ROOT / "target" / "release" / "ankita"))
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()

    rng = random.Random(29)
    formats = ["openai", "anthropic", "responses", "gemini"]
    lines = [json.dumps(request(rng, formats[i % 4])) for i in range(args.requests)]
    mb = sum(len(line) for line in lines) / 1e6
    print(f"{len(lines)} requests, {mb:.1f} MB of JSON; load average before: {load()}")
    assert ankita.trim_many(lines[:50], threads=1, **OPTIONS) == ankita.trim_many(
        lines[:50], threads=2, **OPTIONS
    )
    oks = sum(json.loads(a)["ok"] for a in ankita.trim_many(lines, **OPTIONS))
    print(f"  {oks} of them trimmed (the rest answered with an error)")

    one: list[tuple[float, float]] = []
    two: list[tuple[float, float]] = []
    for _ in range(args.runs):
        one.append(timed_cpu(lambda: ankita.trim_many(lines, threads=1, **OPTIONS)))
        two.append(timed_cpu(lambda: ankita.trim_many(lines, threads=2, **OPTIONS)))
    t1, t2 = (statistics.median(w for w, _ in runs) for runs in (one, two))
    c1, c2 = (statistics.median(c for _, c in runs) for runs in (one, two))
    for label, t, c in (("1 thread: ", t1, c1), ("2 threads:", t2, c2)):
        print(
            f"trim_many, {label} {t * 1e3:7.0f} ms  {len(lines) / t:8.0f} rows/s  ({c:.2f} s CPU)"
        )
    print(f"  2 threads / 1 thread: {t1 / t2:.2f}x (median of {args.runs} runs each)")
    print(f"  CPU time of 1 thread / of 2: {c1 / c2:.2f} (1.00: threads add no work)")

    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "requests.jsonl"
        source.write_text("\n".join(lines) + "\n", encoding="utf-8")
        if Path(args.cli).exists():
            for threads in ("1", "2"):
                command = [args.cli, "trim", "--jsonl", str(source), *FLAGS, "--threads", threads]
                runs = []
                for _ in range(args.runs):
                    runs.append(
                        timed(lambda c=command: subprocess.run(c, capture_output=True, check=False))
                    )
                t = statistics.median(runs)
                print(f"ankita trim --jsonl --threads {threads}: {len(lines) / t:8.0f} rows/s")
        else:
            print(f"no command line at {args.cli}: cargo build --release")
        if args.no_ray:
            pass
        else:
            try:
                import ray  # noqa: F401
            except ImportError:
                print("Ray pipeline: ray is not installed (pip install 'ray[data]')")
            else:
                done = subprocess.run(
                    [
                        sys.executable,
                        str(ROOT / "examples" / "ray_dataset.py"),
                        str(source),
                        str(Path(scratch) / "answers"),
                        *FLAGS,
                        "--num-cpus",
                        "2",
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                summary = json.loads(done.stdout.strip().splitlines()[-1])
                print(
                    f"Ray pipeline (local Ray, 2 CPUs): {summary['rows_per_second']:8.0f} rows/s "
                    f"({summary['rows']} rows in {summary['seconds']} s, Ray's start left out)"
                )
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()

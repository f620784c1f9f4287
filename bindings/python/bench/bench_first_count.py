"""Benchmark: import plus the first gpt-4o count, in a fresh interpreter each time.

    python bindings/python/bench/bench_first_count.py [--runs N] [PYTHON ...]

Each PYTHON (default: this interpreter) is an interpreter with an ``ankita`` installed; the runs
alternate between them, so that two builds (say an older wheel's venv and a newer one's) are
measured under the same load. Prints the median wall and CPU time of ``import ankita``
followed by ``ankita.count_tokens`` of a one-message chat (the tokenizer's vocabulary is read
then), and of ``import ankita`` alone.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

CHILD = """
import time
t0, c0 = time.perf_counter(), time.process_time()
import ankita
t1, c1 = time.perf_counter(), time.process_time()
ankita.count_tokens([{"role": "user", "content": "How many tokens is this?"}], model="gpt-4o")
t2, c2 = time.perf_counter(), time.process_time()
print((t1 - t0) * 1e3, (t2 - t0) * 1e3, (c1 - c0) * 1e3, (c2 - c0) * 1e3)
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("pythons", nargs="*", default=[sys.executable])
    args = parser.parse_args()
    times: dict[str, list[list[float]]] = {p: [] for p in args.pythons}
    for _ in range(args.runs):
        for python in args.pythons:
            out = subprocess.run(
                [python, "-c", CHILD], check=True, capture_output=True, text=True
            ).stdout.split()
            times[python].append([float(x) for x in out])
    for python, runs in times.items():
        imported, first, imported_cpu, first_cpu = (
            statistics.median(r[i] for r in runs) for i in range(4)
        )
        print(
            f"{python}: import + first gpt-4o count {first:.0f} ms wall, {first_cpu:.0f} ms "
            f"CPU (import alone {imported:.0f} ms wall, {imported_cpu:.0f} ms CPU), "
            f"median of {len(runs)}"
        )


if __name__ == "__main__":
    main()

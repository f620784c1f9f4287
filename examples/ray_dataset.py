"""Trim a JSONL of requests on a Ray cluster with Ray Data, writing the answers as Parquet.

    python examples/ray_dataset.py INPUT.jsonl OUTDIR [--context-tokens N] [--model M] ...

Each line of INPUT.jsonl is one request of the JSON contract (an object, or a bare messages
array); the options fill in the keys a line lacks, as ``ankita trim --jsonl`` does with its flags.
Ray Data reads the file, splits it into lines (each with its index), spreads them over the
cluster, and trims each batch with ``ankita.trim_many`` (the batch goes to the core as its Arrow
buffer, without a Python object per row). OUTDIR gets Parquet files with a string column
``answer`` (the answer JSON, as ``ankita.trim_json`` answers the line with those options; a bad
line is answered with its error JSON) and an integer column ``row`` (the line's index, from 0).

Ray runs locally unless ``--address`` (or RAY_ADDRESS) names a cluster; on a cluster INPUT and
OUTDIR must be paths every node reaches (shared storage, ``s3://``, ...). Needs ``ray[data]``
(with pyarrow) besides ``ankita-context``; ankita itself never imports Ray.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from typing import Any

import ankita
import pyarrow as pa
import pyarrow.dataset
import ray

# Request keys given as options: (flag, key, type).
OPTIONS: list[tuple[str, str, type]] = [
    ("--context-tokens", "context_tokens", int),
    ("--max-output-tokens", "max_output_tokens", int),
    ("--max-bytes", "max_bytes", int),
    ("--max-messages", "max_messages", int),
    ("--model", "model", str),
    ("--image-profile", "image_profile", str),
    ("--tokenizer", "tokenizer", str),
    ("--format", "format", str),
    ("--on-image-overflow", "on_image_overflow", str),
]


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("input", help="a JSONL file: one request per line")
    parser.add_argument("outdir", help="where the Parquet files go")
    for flag, key, kind in OPTIONS:
        parser.add_argument(flag, dest=key, type=kind, help=f"the request key {key}")
    parser.add_argument("--address", help="a Ray cluster's address (default: a local Ray)")
    parser.add_argument("--num-cpus", type=int, help="CPUs of the local Ray (default: all)")
    parser.add_argument(
        "--blocks", type=int, help="how many blocks the lines are split into (default: 4 a CPU)"
    )
    parser.add_argument("--batch-size", type=int, default=1024, help="requests a trim_many call")
    return parser.parse_args(argv)


def options_of(args: argparse.Namespace) -> dict[str, Any]:
    """The request keys given on the command line."""
    return {key: getattr(args, key) for _, key, _ in OPTIONS if getattr(args, key) is not None}


def split_lines(batch: pa.Table) -> pa.Table:
    """A file's bytes as its lines (without the line end), each with its index."""
    lines: list[bytes] = []
    for data in batch.column("bytes").to_pylist():
        for line in data.split(b"\n"):
            lines.append(line[:-1] if line.endswith(b"\r") else line)
        if lines and lines[-1] == b"" and data.endswith(b"\n"):
            lines.pop()  # the line end of the last line, not an empty line
    return pa.table(
        {
            "row": pa.array(range(len(lines)), type=pa.int64()),
            "request": pa.array(lines, type=pa.large_binary()),
        }
    )


def trim(batch: pa.Table, options: dict[str, Any]) -> pa.Table:
    """Trims a batch of lines: the options fill in what a line lacks. One thread a task: Ray
    runs a task on each CPU it has."""
    answers = ankita.trim_many(batch.column("request"), threads=1, **options)
    return pa.table(
        {"row": batch.column("row"), "answer": pa.array(answers, type=pa.large_string())}
    )


def run(args: argparse.Namespace) -> tuple[int, float]:
    """Trims INPUT into OUTDIR; answers how many lines were written, and in how many seconds
    (from the read to the last Parquet file, Ray's start left out)."""
    options = options_of(args)
    # A bad option fails at once, before Ray starts: the same check trim_many makes.
    ankita.trim_many([], **options)
    ray.init(address=args.address, num_cpus=args.num_cpus, include_dashboard=False)
    cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
    started = time.perf_counter()
    files = ray.data.read_binary_files(os.path.abspath(args.input))
    lines = files.map_batches(split_lines, batch_format="pyarrow", batch_size=None)
    answers = lines.repartition(args.blocks or 4 * cpus).map_batches(
        functools.partial(trim, options=options), batch_format="pyarrow", batch_size=args.batch_size
    )
    answers.write_parquet(os.path.abspath(args.outdir))
    seconds = time.perf_counter() - started
    written = pyarrow.dataset.dataset(os.path.abspath(args.outdir), format="parquet").count_rows()
    return int(written), seconds


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    rows, seconds = run(args)
    summary = {"rows": rows, "seconds": round(seconds, 2), "rows_per_second": round(rows / seconds)}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

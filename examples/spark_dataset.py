"""Trim a JSONL of requests with PySpark's ``mapInArrow``, writing the answers as Parquet.

    python examples/spark_dataset.py INPUT.jsonl OUTDIR [--context-tokens N] [--model M] ...

The Spark twin of examples/ray_dataset.py (same options, same output): each line of INPUT.jsonl
is one request, the options fill in the keys a line lacks, and OUTDIR gets Parquet with a string
column ``answer`` (what ``ankita.trim_json`` answers for the line with those options) and an
integer column ``row`` (the line's index, from 0). Each Arrow batch goes to ``ankita.trim_many``
as it is, without a Python object per row. Spark runs locally (``local[*]``) unless ``--master``
names a cluster. Needs ``pyspark`` and Java besides ``ankita-context``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

import ankita
import pyarrow as pa
from pyspark.sql import SparkSession

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
    parser.add_argument("--master", default="local[*]", help="the Spark master (default: local)")
    return parser.parse_args(argv)


def trimmer(options: dict[str, Any]) -> Any:
    """The mapInArrow function: each batch of (row, request) answered as (row, answer)."""

    def trim(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            answers = ankita.trim_many(batch.column("request"), threads=1, **options)
            yield pa.RecordBatch.from_arrays(
                [batch.column("row"), pa.array(answers, type=pa.string())],
                names=["row", "answer"],
            )

    return trim


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    options = {key: getattr(args, key) for _, key, _ in OPTIONS if getattr(args, key) is not None}
    ankita.trim_many([], **options)  # a bad option fails before Spark starts
    spark = (
        SparkSession.builder.master(args.master)
        .appName("ankita-trim")
        .config("spark.ui.enabled", "false")
        # Parquet's default codec, snappy, loads a native library that snappy-java picks by
        # the C library it finds: a glibc machine with musl's loader installed (musl-tools)
        # gets the musl build, which does not load. zstd's does not make that guess.
        .config("spark.sql.parquet.compression.codec", "zstd")
        .getOrCreate()
    )
    started = time.perf_counter()
    lines = spark.sparkContext.textFile(os.path.abspath(args.input))
    indexed = lines.zipWithIndex().map(lambda pair: (pair[1], pair[0]))
    requests = spark.createDataFrame(indexed, "row long, request string")
    answers = requests.mapInArrow(trimmer(options), "row long, answer string")
    answers.write.mode("overwrite").parquet(os.path.abspath(args.outdir))
    seconds = time.perf_counter() - started
    rows = spark.read.parquet(os.path.abspath(args.outdir)).count()
    spark.stop()
    summary = {"rows": rows, "seconds": round(seconds, 2), "rows_per_second": round(rows / seconds)}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

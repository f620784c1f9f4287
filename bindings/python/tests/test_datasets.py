"""examples/ray_dataset.py on a local Ray (and examples/spark_dataset.py where Java and pyspark
are installed): the Parquet answers equal trim_json of each line with the same options."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import ankita
import pytest
from conftest import ROOT
from test_batch import compact, generated

OPTIONS: dict[str, Any] = {"context_tokens": 3000, "model": "gpt-4o"}
FLAGS = ["--context-tokens", "3000", "--model", "gpt-4o"]


def lines() -> list[str]:
    """Requests lacking the options, some with their own, and bad lines."""
    out = []
    for i, request in enumerate(generated(240, seed=17)):
        for key in ("max_bytes", "context_tokens", "max_output_tokens", "model"):
            if i % 3 and key in request:
                del request[key]
        out.append(compact(request) if i % 5 else compact(request["messages"]))
    bad = ["", "{", "[1, 2]", '{"messages": [], "max_byte": 1}', "7", "   "]
    for i, line in enumerate(bad):
        out.insert(17 * (i + 1), line)
    return out


def expected(line: str) -> str:
    """trim_json of the line with the options filling in what it lacks (as text)."""
    try:
        value = json.loads(line)
    except ValueError:
        return ankita.trim_json(line)
    if isinstance(value, list):
        line, value = '{"messages":' + line + "}", {"messages": value}
    if not isinstance(value, dict):
        return ankita.trim_json(line)
    missing: dict[str, Any] = {}
    if value.get("context_tokens") is None:
        missing["context_tokens"] = OPTIONS["context_tokens"]
    if value.get("model") is None and value.get("image_profile") is None:
        missing["model"] = OPTIONS["model"]
    tail = "".join(f",{json.dumps(k)}:{json.dumps(v)}" for k, v in missing.items())
    return ankita.trim_json(line.rstrip()[:-1] + tail + "}")


def check_parquet(outdir: Path, written: list[str]) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")

    table = pq.read_table(outdir).sort_by("row")
    assert pa.types.is_integer(table.schema.field("row").type)
    assert pa.types.is_string(table.schema.field("answer").type) or pa.types.is_large_string(
        table.schema.field("answer").type
    )
    assert table.column("row").to_pylist() == list(range(len(written)))
    answers = table.column("answer").to_pylist()
    for i, (line, answer) in enumerate(zip(written, answers)):
        assert answer == expected(line), f"line {i}: {line[:120]}"
    oks = [json.loads(a)["ok"] for a in answers]
    assert oks.count(True) > 100 and oks.count(False) >= 6


def write_jsonl(path: Path, rows: list[str]) -> None:
    # One line with a Windows line end: it is the same request.
    text = "\n".join(rows[:3]) + "\r\n" + "\n".join(rows[3:]) + "\n"
    path.write_text(text, encoding="utf-8")


def run_example(script: str, args: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr[-4000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["rows"] > 0


def test_the_ray_example_answers_each_line_as_trim_json(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    rows = lines()
    source = tmp_path / "requests.jsonl"
    write_jsonl(source, rows)
    out = tmp_path / "answers"
    run_example(
        "ray_dataset.py",
        [str(source), str(out), *FLAGS, "--num-cpus", "2", "--batch-size", "50"],
        {"RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0"},
    )
    check_parquet(out, rows)


def test_the_spark_example_answers_each_line_as_trim_json(tmp_path: Path) -> None:
    if shutil.which("java") is None:
        pytest.skip("Java is not installed")
    pytest.importorskip("pyspark")
    rows = lines()
    source = tmp_path / "requests.jsonl"
    write_jsonl(source, rows)
    out = tmp_path / "answers"
    run_example(
        "spark_dataset.py",
        [str(source), str(out), *FLAGS, "--master", "local[2]"],
        {"PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable},
    )
    check_parquet(out, rows)

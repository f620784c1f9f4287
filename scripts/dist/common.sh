# Sourced by the platform test scripts: the paths, a check counter, and the reference answers of
# the shared cases from the Linux glibc library of make dist.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dist=$root/target/dist
if [ "${DIST_TREE:-}" = 1 ]; then src=$root; else src=$dist/src; fi
# Wine's 64-bit loader: Debian's wine64 package has it in /usr/lib/wine/; elsewhere `wine64` or
# `wine` on PATH.
wine=${WINE:-}
if [ -z "$wine" ]; then
    for w in /usr/lib/wine/wine64 "$(command -v wine64 || true)" "$(command -v wine || true)"; do
        if [ -n "$w" ] && [ -x "$w" ]; then wine=$w; break; fi
    done
fi
export WINEARCH=win64 WINEPREFIX=$root/target/wine WINEDEBUG=-all
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*" >&2; }
check() { # check "what" command...
    local what=$1
    shift
    if "$@" >"$work/check.out" 2>&1; then ok "$what"; else fail "$what"; tail -20 "$work/check.out" >&2; fi
}
finish() {
    echo "$1: $passed passed, $failed failed"
    [ "$failed" = 0 ]
}
# The shared cases as case_driver --lines reads them (as tests/c/run_cases.py sends them).
write_calls() { # write_calls FILE
    python3 - "$src/tests/cases" "$1" <<'PY'
import json, pathlib, sys
cases = [json.loads(p.read_text()) for p in sorted(pathlib.Path(sys.argv[1]).glob("*.json"))]
pathlib.Path(sys.argv[2]).write_text(
    "".join(f"{c['function']} {json.dumps(c['request'])}\n" for c in cases))
print(len(cases))
PY
}
# The answers of the Linux glibc library (x86_64) of make dist to FILE, in REFERENCE.
reference_answers() { # reference_answers CALLS REFERENCE
    local dir=$work/linux
    mkdir -p "$dir"
    cp "$dist/lib/x86_64-unknown-linux-gnu/libankita.so" "$dir/"
    ln -sf libankita.so "$dir/libankita.so.0"
    cc -std=c99 -Wall -Wextra -Werror -I"$src/include" "$src/tests/c/case_driver.c" -L"$dir" \
        -lankita -Wl,-rpath,"$dir" -o "$dir/case_driver"
    "$dir/case_driver" --lines <"$1" >"$2"
}

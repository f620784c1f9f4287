#!/usr/bin/env bash
# The musl library of make dist (x86_64-unknown-linux-musl) with musl's own tools
# (musl-tools): it needs musl's libc.so alone; tests/c/test_ankita.c and the C case driver
# built with musl-gcc against it run with musl's loader (/lib/ld-musl-x86_64.so.1), every
# shared case passes (tests/c/run_cases.py) and the answers are byte for byte the glibc
# library's. The musllinux wheel's extension needs musl's libc.so alone too.
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$root/target/platforms/musl
lib=$dist/lib/x86_64-unknown-linux-musl/libankita.so
rm -rf "$work"
mkdir -p "$work/lib"
cp "$lib" "$work/lib/"
ln -s libankita.so "$work/lib/libankita.so.0"

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' '; }
check "libankita.so needs libc.so alone ($(needed "$lib"))" test "$(needed "$lib")" = "libc.so "
for program in test_ankita case_driver; do
    check "$program builds with musl-gcc" musl-gcc -std=c99 -Wall -Wextra -Werror \
        -I"$src/include" "$src/tests/c/$program.c" -L"$work/lib" -lankita -o "$work/$program"
done
check "the programs run with musl's loader" bash -c \
    "readelf -l '$work/case_driver' | grep -q 'interpreter: /lib/ld-musl-x86_64.so.1'"
run=(env "LD_LIBRARY_PATH=$work/lib")
check "tests/c/test_ankita.c on musl" bash -c "cd '$src' && LD_LIBRARY_PATH='$work/lib' '$work/test_ankita'"
check "every shared case through the musl library (tests/c/run_cases.py)" \
    python3 "$src/tests/c/run_cases.py" "$work/case_driver" "${run[@]}"
grep -h "cases:" "$work/check.out" || true

calls=$work/calls.txt
echo "== $(write_calls "$calls") shared cases, answered by the glibc and the musl library"
reference_answers "$calls" "$work/glibc.out"
"${run[@]}" "$work/case_driver" --lines <"$calls" >"$work/musl.out"
check "the musl library answers byte for byte as the glibc one ($(wc -c <"$work/glibc.out") bytes)" \
    cmp "$work/glibc.out" "$work/musl.out"

for wheel in "$dist"/wheels/*musllinux*x86_64.whl; do
    [ -f "$wheel" ] || continue
    rm -rf "$work/wheel"
    python3 -m zipfile -e "$wheel" "$work/wheel"
    so=$(ls "$work"/wheel/ankita/_ankita*.so)
    check "$(basename "$wheel"): its extension needs libc.so alone ($(needed "$so"))" \
        test "$(needed "$so")" = "libc.so "
done
finish "musl"

#!/usr/bin/env bash
# The aarch64 Linux glibc library of make dist (built when its Rust standard library is
# installed), run here by QEMU's user-mode emulator against Debian's aarch64 glibc
# (qemu-user, libc6-arm64-cross; installed when missing): tests/c/test_ankita.c and the C case
# driver built by zig's C compiler for aarch64-linux-gnu.2.17, every shared case passes and the
# answers are byte for byte the x86-64 library's. Skipped (and said so) without the library.
set -euo pipefail
source "$(dirname "$0")/common.sh"
lib=$dist/lib/aarch64-unknown-linux-gnu/libankita.so
if [ ! -f "$lib" ]; then
    echo "aarch64: no library (rustup target add aarch64-unknown-linux-gnu, then make dist); skipped"
    exit 0
fi
sysroot=/usr/aarch64-linux-gnu
if ! command -v qemu-aarch64 >/dev/null || [ ! -f "$sysroot/lib/libc.so.6" ]; then
    echo "== apt-get install qemu-user libc6-arm64-cross"
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    { $sudo apt-get update -qq -o DPkg::Lock::Timeout=600 &&
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 \
            qemu-user libc6-arm64-cross; } </dev/null >/dev/null
fi
work=$root/target/platforms/aarch64
rm -rf "$work"
mkdir -p "$work/lib"
cp "$lib" "$work/lib/"
ln -s libankita.so "$work/lib/libankita.so.0"
for program in test_ankita case_driver; do
    check "$program builds for aarch64 (zig cc, glibc 2.17)" "$dist/venv/bin/python" -m ziglang cc \
        -target aarch64-linux-gnu.2.17 -std=c99 -Wall -Wextra -Werror -I"$src/include" \
        "$src/tests/c/$program.c" -L"$work/lib" -lankita -o "$work/$program"
done
run=(qemu-aarch64 -L "$sysroot" -E "LD_LIBRARY_PATH=$work/lib")
check "tests/c/test_ankita.c on aarch64 (QEMU)" bash -c "cd '$src' && $(printf '%q ' "${run[@]}") '$work/test_ankita'"
check "every shared case through the aarch64 library (tests/c/run_cases.py)" \
    python3 "$src/tests/c/run_cases.py" "$work/case_driver" "${run[@]}"
grep -h "cases:" "$work/check.out" || true
calls=$work/calls.txt
echo "== $(write_calls "$calls") shared cases, answered by the x86-64 and the aarch64 library"
reference_answers "$calls" "$work/x86_64.out"
"${run[@]}" "$work/case_driver" --lines <"$calls" >"$work/aarch64.out"
check "the aarch64 library answers byte for byte as the x86-64 one ($(wc -c <"$work/x86_64.out") bytes)" \
    cmp "$work/x86_64.out" "$work/aarch64.out"
finish "aarch64 (QEMU)"

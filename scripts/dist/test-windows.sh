#!/usr/bin/env bash
# The Windows library of make dist under Wine (wine64, a prefix of its own in target/wine):
#   - it imports no MSVC runtime (msvcrt, the system's, and Windows API sets only);
#   - tests/c/test_ankita.c and the C case driver built with mingw-w64 against ankita.dll
#     (through its import library), every shared case run through it (tests/c/run_cases.py),
#     and its answers byte for byte the Linux library's (the line ends of Windows' text mode
#     aside).
# Rust's standard library imports ProcessPrng from bcryptprimitives.dll, which Wine 8 lacks:
# a stand-in (scripts/dist/windows/bcryptprimitives.c) is built next to the test programs. It
# is for Wine only and never shipped (real Windows 10 and later have the DLL).
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$root/target/platforms/windows
lib=$dist/lib/x86_64-pc-windows-gnu
rm -rf "$work"
mkdir -p "$work"
cc=x86_64-w64-mingw32-gcc

check "ankita.dll imports no MSVC runtime" bash -c \
    "! x86_64-w64-mingw32-objdump -p '$lib/ankita.dll' | grep -i 'DLL Name' | grep -iv -e kernel32 -e msvcrt.dll -e ntdll -e userenv -e ws2_32 -e 'api-ms-win-' -e bcryptprimitives"
cp "$lib/ankita.dll" "$work/"
$cc -O2 -shared "$root/scripts/dist/windows/bcryptprimitives.c" -o "$work/bcryptprimitives.dll" -ladvapi32
for program in test_ankita case_driver; do
    check "$program.exe builds with mingw-w64 against the import library" \
        $cc -std=c99 -Wall -Wextra -Werror -I"$src/include" "$src/tests/c/$program.c" -L"$lib" \
        -lankita -o "$work/$program.exe"
done
# The first run makes the prefix (a warning about syswow64\rundll32.exe is harmless).
if [ ! -d "$WINEPREFIX/drive_c" ]; then "$wine" wineboot --init >/dev/null 2>&1 || true; fi

# test_ankita reads its fixtures from tests/fixtures/, relative to the source tree.
check "tests/c/test_ankita.c under Wine" bash -c "cd '$src' && '$wine' '$work/test_ankita.exe'"
check "every shared case through ankita.dll (tests/c/run_cases.py)" \
    python3 "$src/tests/c/run_cases.py" "$work/case_driver.exe" "$wine"
grep -h "cases:" "$work/check.out" || true

calls=$work/calls.txt
echo "== $(write_calls "$calls") shared cases, answered by the Linux library and by ankita.dll"
reference_answers "$calls" "$work/linux.out"
"$wine" "$work/case_driver.exe" --lines <"$calls" >"$work/windows.out"
tr -d '\r' <"$work/windows.out" >"$work/windows.lf.out"
check "ankita.dll answers byte for byte as the Linux library ($(wc -c <"$work/linux.out") bytes)" \
    cmp "$work/linux.out" "$work/windows.lf.out"
finish "Windows (Wine)"

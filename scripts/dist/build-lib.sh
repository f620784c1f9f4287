#!/usr/bin/env bash
# Builds the C library for one target triple and copies it to target/dist/lib/<triple>/.
#
#   scripts/dist/build-lib.sh TRIPLE
#
# It builds target/dist/src (scripts/dist/snapshot.sh: the committed tree), or the working tree
# when DIST_TREE=1. The cross builds use their own target directory (CARGO_TARGET_DIR, target/cross by default),
# stripped and without debug info. Linkers: mingw-w64 for Windows; zig's C compiler
# (scripts/dist/zigcc, the ziglang package of target/dist/venv) for Linux musl
# (-crt-static off: a shared library that needs musl's libc.so alone) and Linux glibc (2.17,
# as the manylinux2014 wheel); LLVM's ld64.lld for macOS (scripts/dist/ld64: install name
# @rpath/libankita.dylib; minimum macOS 11.0 on arm64, 10.12 on x86-64).
set -euo pipefail
triple=${1:?usage: build-lib.sh TRIPLE}
root=$(cd "$(dirname "$0")/../.." && pwd)
dist=$root/target/dist
python=$dist/venv/bin/python
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target/cross}
export CARGO_PROFILE_RELEASE_STRIP=symbols CARGO_PROFILE_RELEASE_DEBUG=0
# One codegen unit with fat LTO, as the Makefile's PACKAGE_LTO builds the packages' library.
export CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
upper=$(echo "$triple" | tr 'a-z-' 'A-Z_')
use_zig() {
    export "CARGO_TARGET_${upper}_LINKER=$root/scripts/dist/zigcc"
    export ZIG_PYTHON=$python ZIG_TARGET=$1
}
case "$triple" in
    x86_64-pc-windows-gnu)
        files="ankita.dll libankita.dll.a libankita.a" ;;
    aarch64-apple-darwin | x86_64-apple-darwin)
        # LLVM's Mach-O linker (scripts/dist/ld64): zig's ignores the list of exports.
        if [ "$triple" = aarch64-apple-darwin ]; then min=11.0; else min=10.12; fi
        export "CARGO_TARGET_${upper}_LINKER=$root/scripts/dist/ld64"
        export ZIG_PYTHON=$python MACOSX_DEPLOYMENT_TARGET=$min
        export LD64_ARGS="-install_name @rpath/libankita.dylib"
        files="libankita.dylib libankita.a" ;;
    *-unknown-linux-musl)
        use_zig "${triple%%-*}-linux-musl"
        export "CARGO_TARGET_${upper}_RUSTFLAGS=-C target-feature=-crt-static"
        files="libankita.so libankita.a" ;;
    *-unknown-linux-gnu)
        use_zig "${triple%%-*}-linux-gnu.2.17"
        files="libankita.so libankita.a" ;;
    *) echo "build-lib.sh: no recipe for $triple" >&2; exit 2 ;;
esac
start=$(date +%s)
if [ "${DIST_TREE:-}" = 1 ]; then cd "$root"; else cd "$dist/src"; fi
cargo build --release --locked --lib --target "$triple"
out=$dist/lib/$triple
rm -rf "$out"
mkdir -p "$out"
for file in $files; do
    cp "$CARGO_TARGET_DIR/$triple/release/$file" "$out/"
done
echo "== $triple: $(( $(date +%s) - start )) s: $(cd "$out" && ls -l $files | awk '{printf "%s %d B  ", $NF, $5}')"

#!/usr/bin/env bash
# The Python wheels (abi3, CPython 3.9+) of every platform built here, and the sdist, into
# target/dist/wheels/:
#   manylinux2014 x86_64 (zig, glibc 2.17)     maturin --compatibility manylinux2014
#   musllinux_1_2 x86_64 (zig, musl)           maturin --compatibility musllinux_1_2
#   macOS arm64 (11.0) and x86-64 (10.12)      LLVM's ld64.lld (scripts/dist/ld64)
#   Windows x86-64 (win_amd64)                 mingw-w64
# and aarch64 Linux (manylinux2014, musllinux_1_2) when its Rust standard library is installed.
#
#   scripts/dist/wheels.sh [TRIPLE...]   (default: every one above, and the sdist)
#
# Each build's failure is reported and the others go on; the exit status is 1 if one failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dist=$root/target/dist
out=$dist/wheels
venv=$dist/venv
if [ "${DIST_TREE:-}" = 1 ]; then src=$root; else src=$dist/src; fi
export PATH="$venv/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target/cross}
export CARGO_PROFILE_RELEASE_STRIP=symbols CARGO_PROFILE_RELEASE_DEBUG=0
# One codegen unit with fat LTO, as the Makefile's PACKAGE_LTO builds the packages' library.
export CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1
installed=$(rustup target list --installed 2>/dev/null)
if [ $# -gt 0 ]; then
    triples=("$@")
else
    triples=(x86_64-unknown-linux-gnu x86_64-unknown-linux-musl aarch64-apple-darwin
        x86_64-apple-darwin x86_64-pc-windows-gnu)
    for t in aarch64-unknown-linux-gnu aarch64-unknown-linux-musl; do
        if grep -qx "$t" <<<"$installed"; then triples+=("$t"); fi
    done
fi
# All the wheels are rebuilt: the old ones go; given triples replace their own wheels alone.
if [ $# -eq 0 ]; then rm -rf "$out"; fi
mkdir -p "$out"
cd "$src"
failed=()
build() { # build TRIPLE [NAME=VALUE...] [maturin arguments...]
    local triple=$1 start=$SECONDS envs=()
    shift
    while [ $# -gt 0 ] && [[ $1 == *=* ]]; do envs+=("$1"); shift; done
    echo "== wheel for $triple"
    if env "${envs[@]}" maturin build --release --locked --strip -m bindings/python/Cargo.toml \
        --out "$out" --target "$triple" "$@"; then
        echo "== wheel for $triple: $((SECONDS - start)) s"
    else
        failed+=("$triple")
        echo "== wheel for $triple FAILED" >&2
    fi
}
for triple in "${triples[@]}"; do
    upper=$(echo "$triple" | tr 'a-z-' 'A-Z_')
    case "$triple" in
        # The linkers and flags of the library's builds (scripts/dist/build-lib.sh), so that
        # the dependencies compiled for them are reused (cargo rebuilds everything for another
        # linker): zig's C compiler, as maturin --zig uses it.
        *-unknown-linux-gnu)
            build "$triple" "CARGO_TARGET_${upper}_LINKER=$root/scripts/dist/zigcc" \
                "ZIG_PYTHON=$venv/bin/python" "ZIG_TARGET=${triple%%-*}-linux-gnu.2.17" \
                --compatibility manylinux2014 ;;
        *-unknown-linux-musl)
            build "$triple" "CARGO_TARGET_${upper}_LINKER=$root/scripts/dist/zigcc" \
                "ZIG_PYTHON=$venv/bin/python" "ZIG_TARGET=${triple%%-*}-linux-musl" \
                "CARGO_TARGET_${upper}_RUSTFLAGS=-C target-feature=-crt-static" \
                --compatibility musllinux_1_2 ;;
        *-apple-darwin)
            if [ "$triple" = aarch64-apple-darwin ]; then min=11.0; else min=10.12; fi
            build "$triple" "CARGO_TARGET_${upper}_LINKER=$root/scripts/dist/ld64" \
                "ZIG_PYTHON=$venv/bin/python" "MACOSX_DEPLOYMENT_TARGET=$min" ;;
        *) build "$triple" ;;
    esac
done
if [ $# -eq 0 ]; then maturin sdist -m bindings/python/Cargo.toml --out "$out" || failed+=(sdist); fi
ls -l "$out"
if [ ${#failed[@]} -gt 0 ]; then
    echo "== wheels that failed: ${failed[*]}" >&2
    exit 1
fi

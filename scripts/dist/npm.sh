#!/usr/bin/env bash
# The Node package with a prebuild for every platform built: fills
# bindings/node/prebuilds/<platform>-<arch>[-musl]/ from target/dist/lib/<triple>/ (the loader,
# bindings/node/lib/native.js, picks the directory and the file name), then `npm pack`s
# bindings/node into target/dist/npm/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=$root/target/dist/lib
prebuilds=$root/bindings/node/prebuilds
out=$root/target/dist/npm
rm -rf "$prebuilds" "$out"
mkdir -p "$out"
declare -A dirs=(
    [x86_64-pc-windows-gnu]=win32-x64
    [aarch64-apple-darwin]=darwin-arm64
    [x86_64-apple-darwin]=darwin-x64
    [x86_64-unknown-linux-gnu]=linux-x64
    [aarch64-unknown-linux-gnu]=linux-arm64
    [x86_64-unknown-linux-musl]=linux-x64-musl
    [aarch64-unknown-linux-musl]=linux-arm64-musl
)
for triple in "${!dirs[@]}"; do
    [ -d "$lib/$triple" ] || continue
    mkdir -p "$prebuilds/${dirs[$triple]}"
    for file in ankita.dll libankita.dylib libankita.so; do
        if [ -f "$lib/$triple/$file" ]; then cp "$lib/$triple/$file" "$prebuilds/${dirs[$triple]}/"; fi
    done
done
(cd "$root/bindings/node" && npm pack --silent --pack-destination "$out" >/dev/null)
ls "$out"/*.tgz >/dev/null
for tarball in "$out"/*.tgz; do
    echo "== $(basename "$tarball"): $(stat -c %s "$tarball") B; prebuilds:" \
        "$(tar tzf "$tarball" | sed -n 's|^package/prebuilds/\([^/]*\)/.*|\1|p' | sort | tr '\n' ' ')"
done

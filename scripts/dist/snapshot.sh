#!/usr/bin/env bash
# Lays the committed tree (HEAD) out in target/dist/src, which make dist builds: a release holds
# what is committed, and edits in progress in the working tree do not leak into it. Only the
# files that changed since the last snapshot are rewritten (a separate index, a two-way
# read-tree), so cargo rebuilds only what changed. DIST_TREE=1 skips it: make dist then builds
# the working tree itself.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
src=$root/target/dist/src
export GIT_INDEX_FILE=$root/target/dist/src.index
mkdir -p "$src"
if [ -f "$GIT_INDEX_FILE" ]; then
    git -C "$root" --work-tree="$src" read-tree -m -u HEAD
else
    git -C "$root" --work-tree="$src" read-tree HEAD
    git -C "$root" --work-tree="$src" checkout-index -a -f
fi
echo "== target/dist/src: $(git -C "$root" log -1 --format='%h %s' HEAD | cut -c1-100)"

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
git=(git -C "$root" --work-tree="$src")
if [ -f "$GIT_INDEX_FILE" ]; then
    # Files a build rewrote as they were (build.rs refreshes include/ankita.h) are reset too.
    "${git[@]}" update-index -q --refresh >/dev/null || true
    "${git[@]}" read-tree --reset -u HEAD
else
    "${git[@]}" read-tree HEAD
    "${git[@]}" checkout-index -a -f -u
fi
echo "== target/dist/src: $(git -C "$root" log -1 --format='%h %s' HEAD | cut -c1-100)"

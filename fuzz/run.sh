#!/usr/bin/env bash
# Runs every fuzz target one after another for SECONDS each (default 60), one process each.
#   fuzz/run.sh [SECONDS] [TARGET...]
# Builds are optimized with debug assertions and overflow checks on (-O -a), under
# AddressSanitizer (cargo-fuzz's default). Needs the nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`). New corpus entries land in fuzz/corpus/<target>/ (minimize
# before committing: `cargo +nightly fuzz cmin -O -a <target>`); crashes land in
# fuzz/artifacts/<target>/, logs in fuzz/logs/.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(probe_bytes probe_text probe_base64 probe_pdf probe_audio trim_json trim_session)
fi
# CI=1: the core's build script leaves include/ankita.h alone.
export CI=1
cargo +nightly fuzz build -O -a
mkdir -p logs
status=0
for t in "${targets[@]}"; do
    extra=()
    case "$t" in
        trim_json) extra=(-dict=dict/trim_json.dict -max_len=16384) ;;
        trim_session) extra=(-max_len=8192 -len_control=20) ;;
        probe_pdf) extra=(-dict=dict/probe_pdf.dict -max_len=16384) ;;
        probe_audio) extra=(-max_len=65536) ;;
    esac
    mkdir -p "corpus/$t"
    echo "== $t (${seconds}s)"
    if ! cargo +nightly fuzz run -O -a "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
        "${extra[@]}" >"logs/$t.log" 2>&1; then
        echo "   FAILED: see fuzz/logs/$t.log and fuzz/artifacts/$t/"
        status=1
    fi
    # The last status line (cov: / ft: / corp:), the run count and the time.
    grep -E '^#[0-9]+' "logs/$t.log" | tail -1 | sed 's/^/   /' || true
    grep -E '^Done [0-9]+ runs' "logs/$t.log" | sed 's/^/   /' || true
done
exit $status

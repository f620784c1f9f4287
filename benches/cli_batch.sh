#!/usr/bin/env bash
# Batch throughput of the command line: `ankita trim --jsonl` on N requests (default 10,000),
# on every core and on one thread, against one `ankita trim` process per request. The requests
# are the shared trim cases (tests/cases/) in turn, with varied byte budgets. Prints requests per
# second of each and the ratios, and checks that both ways give the same answers.
#
#   benches/cli_batch.sh            # N=10000
#   N=2000 benches/cli_batch.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000}
cargo build --release --locked -q
BIN=target/release/ankita
WORK=target/cli_batch
mkdir -p "$WORK"

python3 - "$N" > "$WORK/requests.jsonl" <<'EOF'
import glob, json, sys
n = int(sys.argv[1])
requests = []
for path in sorted(glob.glob("tests/cases/*.json")):
    case = json.load(open(path))
    if case["function"] == "trim" and isinstance(case["request"], dict):
        requests.append(case["request"])
for i in range(n):
    request = dict(requests[i % len(requests)])
    if "max_bytes" in request and i % 3 == 0:
        request["max_bytes"] = 600 + (i * 37) % 6000
    print(json.dumps(request, separators=(",", ":")))
EOF

# Wall-clock and CPU seconds (user + system) of a command, as "WALL CPU".
measure() {
    local TIMEFORMAT='%R %U %S' t
    t=$( { time "$@" > /dev/null 2>&1 || true; } 2>&1 )
    python3 -c "import sys; r, u, s = map(float, sys.argv[1:]); print(r, u + s)" $t
}
single_run() {
    while IFS= read -r line; do
        "$BIN" trim - <<< "$line" 2> /dev/null || true
    done < "$WORK/requests.jsonl"
}

# The answers first: both ways must agree.
"$BIN" trim --jsonl "$WORK/requests.jsonl" > "$WORK/batch.jsonl" 2> "$WORK/batch.err" || true
"$BIN" trim --jsonl --threads 1 "$WORK/requests.jsonl" > "$WORK/batch1.jsonl" 2> /dev/null || true
single_run > "$WORK/single.jsonl"
cmp -s "$WORK/batch.jsonl" "$WORK/single.jsonl" || { echo "batch and per-process answers differ" >&2; exit 1; }
cmp -s "$WORK/batch.jsonl" "$WORK/batch1.jsonl" || { echo "answers differ with --threads 1" >&2; exit 1; }

read -r batch_wall batch_cpu < <(measure "$BIN" trim --jsonl "$WORK/requests.jsonl")
read -r batch1_wall batch1_cpu < <(measure "$BIN" trim --jsonl --threads 1 "$WORK/requests.jsonl")
read -r single_wall single_cpu < <(measure single_run)

echo "requests: $N ($(wc -c < "$WORK/requests.jsonl") bytes); $(tail -1 "$WORK/batch.err" | sed 's/^ankita: //')"
echo "cores: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$N" "$batch_wall" "$batch_cpu" "$batch1_wall" "$batch1_cpu" "$single_wall" "$single_cpu" <<'EOF'
import sys
n = int(sys.argv[1])
bw, bc, b1w, b1c, sw, sc = map(float, sys.argv[2:])
row = "{:<27} {:>8,.0f} requests/s {:>8,.1f} µs CPU per request"
print(row.format("trim --jsonl (every core)", n / bw, bc / n * 1e6))
print(row.format("trim --jsonl --threads 1", n / b1w, b1c / n * 1e6))
print(row.format("one process per request", n / sw, sc / n * 1e6))
print(f"ratio, wall clock: --jsonl is {sw / bw:,.0f}x one process per request "
      f"({sw / b1w:,.0f}x on one thread)")
print(f"ratio, CPU time:   --jsonl is {sc / bc:,.0f}x one process per request")
EOF

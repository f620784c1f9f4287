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

now() { date +%s.%N; }
rate() { python3 -c "import sys; print(f'{$N / ($2 - $1):,.0f}')"; }

t0=$(now)
"$BIN" trim --jsonl "$WORK/requests.jsonl" > "$WORK/batch.jsonl" 2> "$WORK/batch.err" || true
t1=$(now)
"$BIN" trim --jsonl --threads 1 "$WORK/requests.jsonl" > "$WORK/batch1.jsonl" 2> /dev/null || true
t2=$(now)
while IFS= read -r line; do
    "$BIN" trim - <<< "$line" 2> /dev/null || true
done < "$WORK/requests.jsonl" > "$WORK/single.jsonl"
t3=$(now)

cmp -s "$WORK/batch.jsonl" "$WORK/single.jsonl" || { echo "batch and per-process answers differ" >&2; exit 1; }
cmp -s "$WORK/batch.jsonl" "$WORK/batch1.jsonl" || { echo "answers differ with --threads 1" >&2; exit 1; }

batch=$(rate "$t0" "$t1")
batch1=$(rate "$t1" "$t2")
single=$(rate "$t2" "$t3")
echo "requests: $N ($(wc -c < "$WORK/requests.jsonl") bytes); $(tail -1 "$WORK/batch.err" | sed 's/^ankita: //')"
echo "cores: $(nproc)"
echo "trim --jsonl (every core):  $batch requests/s"
echo "trim --jsonl --threads 1:   $batch1 requests/s"
echo "one process per request:    $single requests/s"
python3 -c "
b, b1, s = $t1 - $t0, $t2 - $t1, $t3 - $t2
print(f'ratio: --jsonl is {s / b:,.0f}x one process per request ({s / b1:,.0f}x on one thread)')"

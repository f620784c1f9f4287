#!/usr/bin/env bash
# Instruction counts (callgrind) of trimming the 200-message, 20-screenshot session against
# parsing the same bytes: repeatable where wall-clock benchmarks are at the mercy of the machine.
# Run: benches/instructions.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --example trim_instructions
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    target/release/examples/trim_instructions "$1" 2>&1 | awk '/refs:/ {gsub(",", "", $4); print $4}'
}
base=$(count generate)
parse=$(( $(count ignored-any) - base ))
value=$(( $(count value) - base ))
trim=$(( $(count trim) - base ))
awk -v p="$parse" -v v="$value" -v t="$trim" 'BEGIN {
  printf "%-42s %14s %7s\n", "step (20.3 MB request)", "instructions", "ratio"
  printf "%-42s %14d %7.2f\n", "serde_json parse into IgnoredAny", p, 1
  printf "%-42s %14d %7.2f\n", "serde_json parse into Value", v, v / p
  printf "%-42s %14d %7.2f\n", "ankita trim_json (parse, trim, write)", t, t / p
}'

#!/usr/bin/env bash
# The 64-bit keys and payloads runs (issue 13's bars), merged into one JSON document:
#   u32 keys + u32 payload at n = 2^26, delta = 50, sigma = 50 (key-value H-P against CUB pairs);
#   u64 keys at the same parameters, keys only and with a u64 payload (hp-auto against CUB);
#   u64 keys uniform over the whole domain [0, 2^64) at 2^26 (every algorithm that takes them);
#   the u32 keys-only H-P points (delta = 50, sigma = 50; maxVal = 1000, sigma = 1), so a payload
#   path that slowed the keys-only path would show in the same run.
#
#   scripts/keys64.sh OUT.json        (SORTBENCH: the executable; BUDGET: seconds per algorithm)
set -euo pipefail
out=${1:?usage: scripts/keys64.sh OUT.json}
source "$(dirname "$0")/bench_runs.sh"

hp_and_cub='hp*,cub-radix-bits,cub-radix,cub-radix-pairs'
run kv32 -n 2^26 --delta 50 --sigma 50 --payload u32 --algo "$hp_and_cub"
run u64 -n 2^26 --delta 50 --sigma 50 --key u64 --algo "$hp_and_cub"
run u64kv -n 2^26 --delta 50 --sigma 50 --key u64 --payload u64 --algo "$hp_and_cub"
run u64full -n 2^26 --key u64 --min-val 0 --max-val 2^64 --algo all
run u32d50 -n 2^26 --delta 50 --sigma 50 --algo 'hp*,cub-radix-bits'
run u32m1000 -n 2^26 --max-val 1000 --sigma 1 --algo 'hp*,cub-radix-bits'
merge_runs "$out"
echo "keys64.sh: wrote $out"

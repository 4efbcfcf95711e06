#!/usr/bin/env bash
# The comparison-sort runs (issue 18's bars), merged into one JSON document: quick-sample
# and quick-sample-nodp (and quick-fast, the K <= 8 DP quicksort they replace) against CUB's merge sort and radix sort
#   u32 uniform keys at n = 2^24 and 2^26;
#   at 2^26: sorted, reverse, zipf (delta = 1), many duplicates (delta = 1000), nearly sorted;
#   u64 keys over the whole domain with a u64 payload at 2^26.
#
#   scripts/comparison.sh OUT.json        (SORTBENCH: the executable; BUDGET: seconds per algorithm)
set -euo pipefail
out=${1:?usage: scripts/comparison.sh OUT.json}
algos=${ALGOS:-quick-sample-nodp,quick-sample,quick-fast,cub-merge,cub-radix}
source "$(dirname "$0")/bench_runs.sh"

run_algos() {  # NAME ARGS...: every run of this script takes the same algorithms
  local name=$1
  shift
  run "$name" --algo "$algos" "$@"
}

run_algos u24 -n 2^24
run_algos u26 -n 2^26
run_algos sorted -n 2^26 --dist sorted
run_algos reverse -n 2^26 --dist reverse
run_algos zipf -n 2^26 --dist zipf
run_algos dup -n 2^26 --delta 1000
run_algos nearly -n 2^26 --dist nearly-sorted
run_algos u64kv -n 2^26 --key u64 --payload u64 --min-val 0 --max-val 2^64
merge_runs "$out"
echo "comparison.sh: wrote $out"

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
sortbench=${SORTBENCH:-build/apps/sortbench/sortbench}
budget=${BUDGET:-0.4}
algos=${ALGOS:-quick-sample-nodp,quick-sample,quick-fast,cub-merge,cub-radix}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # NAME ARGS...
  local name=$1
  shift
  "$sortbench" run --budget "$budget" --quiet --json "$tmp/$name.json" --algo "$algos" "$@"
  parts+=("$tmp/$name.json")
}

parts=()
run u24 -n 2^24
run u26 -n 2^26
run sorted -n 2^26 --dist sorted
run reverse -n 2^26 --dist reverse
run zipf -n 2^26 --dist zipf
run dup -n 2^26 --delta 1000
run nearly -n 2^26 --dist nearly-sorted
run u64kv -n 2^26 --key u64 --payload u64 --min-val 0 --max-val 2^64
python3 "$here/merge_results.py" "$out" "${parts[@]}"
echo "comparison.sh: wrote $out"

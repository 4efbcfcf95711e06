#!/usr/bin/env bash
# Issue 37's bars, merged into one JSON document (the context carries the link's measured
# rates): inputs larger than the GPU memory they may use, streamed from pinned host memory.
#   n33_limit8g      u32, n = 2^33 (32 GiB), delta = sigma = 50, limit 8G: ooc-hp against
#                    link_limit_ms, with ooc-sort and cpu-parallel-sort on the same input
#   n32_u64_limit8g  u64 over the whole domain, n = 2^32 (32 GiB), limit 8G: ooc-sort against
#                    link_limit_ms and cpu-parallel-sort
#   n33_auto         u32, n = 2^33 with no limit: the automatic choice (three copies do not fit)
#   n26, n28         the in-core H-P bars, which keep their placement and times
#   sort             `sort --json` of a 16 GiB .npy file (2^31 u64, delta = sigma = 50) with the
#                    limit at 4G, into OUT's name with -sort.json (the file and its output go to
#                    TMPDIR: 32 GiB of free disk)
# Out-of-core rows take seconds a sample and the CPU sort a minute: one sample each.
#
#   scripts/out-of-core.sh OUT.json [BAR...]   (default: every bar; SORTBENCH: the executable)
set -euo pipefail
out=${1:?usage: scripts/out-of-core.sh OUT.json [BAR...]}
shift
bars=${*:-n33_limit8g n32_u64_limit8g n33_auto n26 n28 sort}
source "$(dirname "$0")/bench_runs.sh"
wanted() { [[ " $bars " == *" $1 "* ]]; }
# Each input apart: one that cannot run (a host without the memory) leaves the others' rows.
bar() { if wanted "$1"; then run "$@" || echo "out-of-core.sh: $1 did not run" >&2; fi; }

budget=0
one='--reps 1 --warmup 0'
bar n33_limit8g -n 2^33 --delta 50 --sigma 50 --gpu-memory-limit 8G $one --algo ooc-hp,ooc-sort,cpu-parallel-sort
bar n32_u64_limit8g -n 2^32 --key u64 --min-val 0 --max-val 2^64 --gpu-memory-limit 8G $one \
    --algo ooc-sort,cpu-parallel-sort
bar n33_auto -n 2^33 --delta 50 --sigma 50 $one --algo ooc-hp,hp-auto,cub-radix-bits
budget=${BUDGET:-0.4}
bar n26 -n 2^26 --delta 50 --sigma 50 --algo hp-auto,cub-radix-bits
bar n28 -n 2^28 --delta 50 --sigma 50 --algo hp-auto,cub-radix-bits
if ((${#parts[@]})); then
  merge_runs "$out"
  echo "out-of-core.sh: wrote $out"
fi

if wanted sort; then
  file="${TMPDIR:-/tmp}/sortbench-ooc-$$.npy"
  trap 'rm -f "$file" "$file.sorted.npy"; rm -rf "$tmp"' EXIT
  "$sortbench" gen -n 2^31 --key u64 --delta 50 --sigma 50 -o "$file"
  "$sortbench" sort "$file" -o "$file.sorted.npy" --gpu-memory-limit 4G --json "${out%.json}-sort.json"
  echo "out-of-core.sh: wrote ${out%.json}-sort.json"
fi

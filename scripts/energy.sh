#!/usr/bin/env bash
# Issue 16's energy runs, merged into one JSON document: keys/s and keys per joule
# (`sortbench run --energy`) of every GPU algorithm on
#   d50        u32 keys, n = 2^26, delta = 50, sigma = 50 (the H-P papers' duplicate-heavy point),
#              every GPU algorithm but the slow paper variants below;
#   d50-paper  the same input for the faithful paper variants that take seconds per sort
#              (quick-* paper kernels, merge-dp): one timed sample and no warm-up each, one run
#              per algorithm so each result is kept as it finishes;
#   u28        uniform u32 keys, n = 2^28, delta = 1, without those paper variants and
#              bitonic-b2 (radix-lsd-seed declines n > 2^20 anyway).
#
#   scripts/energy.sh OUT.json [d50] [d50-paper] [u28]   (default: all three; SORTBENCH: the
#       executable; BUDGET: seconds per algorithm; REPS: minimum samples)
# Then: scripts/energy_plot.py OUT.json -o DIR
set -euo pipefail
out=${1:?usage: scripts/energy.sh OUT.json [d50] [d50-paper] [u28]}
shift
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(d50 d50-paper u28)
sortbench=${SORTBENCH:-build/apps/sortbench/sortbench}
budget=${BUDGET:-0.3}
reps=${REPS:-5}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
paper='quick-seq-nodp|quick-seq|quick-prefix-nodp|quick-prefix|quick-pprefix|quick-direct|merge-dp'

gpu_algorithms() {  # GPU algorithms, those matching the regex $1 kept (keep) or dropped (drop by $2)
  "$sortbench" list | awk -v re="^($1)\$" -v keep="$2" \
    'NR > 1 && $3 == "gpu" && (($1 ~ re) == keep) { printf "%s%s", sep, $1; sep = "," }'
}

d50=(-n 2^26 --delta 50 --sigma 50)
files=()
for part in "${parts[@]}"; do
  case $part in
    d50)
      "$sortbench" run "${d50[@]}" --algo "$(gpu_algorithms "$paper" 0)" --energy --reps "$reps" --budget "$budget" \
        --quiet --json "$tmp/d50.json"
      files+=("$tmp/d50.json") ;;
    d50-paper)
      for algo in $(gpu_algorithms "$paper" 1 | tr , ' '); do
        "$sortbench" run "${d50[@]}" --algo "$algo" --energy --reps 1 --warmup 0 --budget 0 --quiet \
          --json "$tmp/d50-$algo.json"
        files+=("$tmp/d50-$algo.json")
      done ;;
    u28)
      "$sortbench" run -n 2^28 --delta 1 --algo "$(gpu_algorithms "$paper|bitonic-b2|radix-lsd-seed" 0)" --energy \
        --reps "$reps" --budget "$budget" --quiet --json "$tmp/u28.json"
      files+=("$tmp/u28.json") ;;
    *) echo "energy.sh: unknown part '$part' (d50, d50-paper or u28)" >&2; exit 2 ;;
  esac
done
python3 "$here/merge_results.py" "$out" "${files[@]}"
echo "energy.sh: wrote $out"

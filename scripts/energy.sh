#!/usr/bin/env bash
# Issue 16's energy runs, merged into one JSON document: keys/s and keys per joule
# (`sortbench run --energy`) of every GPU algorithm on
#   d50   u32 keys, n = 2^26, delta = 50, sigma = 50 (the H-P papers' duplicate-heavy point);
#   u28   uniform u32 keys, n = 2^28, delta = 1.
# At 2^28 the faithful paper variants that take seconds per sort (the quick-* paper kernels,
# merge-dp, bitonic-b2) are left out, and radix-lsd-seed declines n > 2^20 anyway.
#
#   scripts/energy.sh OUT.json [d50] [u28]   (default: both; SORTBENCH: the executable;
#                                            BUDGET: seconds per algorithm; REPS: minimum samples)
# Then: scripts/energy_plot.py OUT.json --out DIR
set -euo pipefail
out=${1:?usage: scripts/energy.sh OUT.json [d50] [u28]}
shift
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(d50 u28)
sortbench=${SORTBENCH:-build/apps/sortbench/sortbench}
budget=${BUDGET:-0.3}
reps=${REPS:-5}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gpu_algorithms() {  # every GPU algorithm but those named in $1 (a |-separated regex)
  "$sortbench" list | awk -v skip="^($1)\$" 'NR > 1 && $3 == "gpu" && $1 !~ skip { printf "%s%s", sep, $1; sep = "," }'
}

files=()
for part in "${parts[@]}"; do
  case $part in
    d50) args=(-n 2^26 --delta 50 --sigma 50 --algo "$(gpu_algorithms '-')") ;;
    u28) args=(-n 2^28 --delta 1 --algo "$(gpu_algorithms 'quick-seq-nodp|quick-seq|quick-prefix-nodp|quick-prefix|quick-pprefix|quick-direct|merge-dp|bitonic-b2|radix-lsd-seed')") ;;
    *) echo "energy.sh: unknown part '$part' (d50 or u28)" >&2; exit 2 ;;
  esac
  "$sortbench" run "${args[@]}" --energy --reps "$reps" --budget "$budget" --quiet --json "$tmp/$part.json"
  files+=("$tmp/$part.json")
done
python3 "$here/merge_results.py" "$out" "${files[@]}"
echo "energy.sh: wrote $out"

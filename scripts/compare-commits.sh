#!/usr/bin/env bash
# Two builds on the same cases, judged by `sortbench compare` (issue 49's "behaviour unchanged":
# no row slower beyond the threshold and the noise). Each group runs the base executable, then
# the new one, on this machine:
#   hp-range   scripts/hp-range.sh's cases (2^26 ... 2^32; hp-auto, hp-tiled, cub-radix-bits), one GPU
#   dist       scripts/dist-v2.sh's dense and uniform cases (2^31 on two GPUs, NCCL_NVLS_ENABLE=0)
#   ooc        n = 2^33 u32 (32 GiB), delta = sigma = 50, --gpu-memory-limit 8G: ooc-hp and ooc-sort,
#              3 samples each (out-of-core.sh's case without its minute-long CPU row)
# It writes OUT_DIR/<group>-base.json, <group>-new.json and <group>-compare.txt, and exits 1 when
# any comparison found a slower or failed row (2 for a wrong argument).
#
#   scripts/compare-commits.sh BASE_EXE NEW_EXE OUT_DIR [GROUP...]   (default: every group)
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: scripts/compare-commits.sh BASE_EXE NEW_EXE OUT_DIR [hp-range] [dist] [ooc]" >&2
  exit 2
fi
base=$1 new=$2 out=$3
shift 3
groups=${*:-hp-range dist ooc}
for exe in "$base" "$new"; do
  [ -x "$exe" ] || { echo "compare-commits: $exe is not an executable" >&2; exit 2; }
done
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0
status=0

run_group() {  # GROUP EXE OUT.json
  case $1 in
    hp-range) SORTBENCH=$2 bash "$here/hp-range.sh" "$3" ;;
    dist) SORTBENCH=$2 bash "$here/dist-v2.sh" "$3" dense uniform ;;
    ooc) "$2" run -n 2^33 --delta 50 --sigma 50 --gpu-memory-limit 8G --algo ooc-hp,ooc-sort --reps 3 \
           --warmup 0 --budget 0 --quiet --json "$3" ;;
    *) echo "compare-commits: unknown group $1; give hp-range, dist or ooc" >&2; exit 2 ;;
  esac
}

for group in $groups; do
  for side in base new; do
    exe=$base
    [ "$side" = new ] && exe=$new
    echo "compare-commits: $group with the $side executable"
    run_group "$group" "$exe" "$out/$group-$side.json"
  done
  if "$new" compare "$out/$group-base.json" "$out/$group-new.json" >"$out/$group-compare.txt"; then
    echo "compare-commits: $group: no row slower"
  else
    status=1
    echo "compare-commits: $group: a row is slower or failed (see $out/$group-compare.txt)"
  fi
  cat "$out/$group-compare.txt"
done
exit $status

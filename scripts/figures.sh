#!/usr/bin/env bash
# Runs every paper sweep (and the winner map) in pieces: each call spends at most SECONDS
# (default 480, to fit one 10-minute GPU call) and continues where the last call stopped
# (--resume); call it again until it prints "all sweeps complete". Then, or whenever
# matplotlib is there, it draws the figures from whatever results exist.
#
#   scripts/figures.sh [SECONDS]
#
# OUTDIR (default results/h200): where the JSONL files and figures/ go.
# SORTBENCH: the executable (default build/apps/sortbench/sortbench).
# SPECS: the spec names to run (default: every paper spec below, in this order).
set -euo pipefail

budget=${1:-480}
outdir=${OUTDIR:-results/h200}
sortbench=${SORTBENCH:-build/apps/sortbench/sortbench}
export SORTBENCH=$sortbench
here=$(cd "$(dirname "$0")" && pwd)
specs=(${SPECS:-hp-6.3.1-no-duplicates hp-6.3.2-duplicates hp-6.3.3-fixed-len hp-6.3.4-len-equals-range
  hp-6.3.5-fixed-maxval bitonic-table quicksort-comparison radix-comparison winner-map})
mkdir -p "$outdir"

remaining_results() {  # results of a spec still missing from its output
  "$sortbench" sweep --spec "datasets/$1.json" -o "$outdir/$1.jsonl" --resume --dry-run |
    sed -n 's/^\([0-9]*\) results to run.*/\1/p'
}

start=$(date +%s)
incomplete=0
for name in "${specs[@]}"; do
  left=$((budget - ($(date +%s) - start)))
  if [ "$(remaining_results "$name")" = "0" ]; then
    echo "figures.sh: $name complete"
    continue
  fi
  if [ "$left" -le 0 ]; then
    incomplete=1
    continue
  fi
  echo "figures.sh: $name, at most ${left}s"
  "$here/sweep.sh" "datasets/$name.json" "$outdir/$name.jsonl" --resume --stop-after "$left" || true
  [ "$(remaining_results "$name")" = "0" ] || incomplete=1
done

python=
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import matplotlib' 2>/dev/null; then python=$candidate && break; fi
done
if [ -n "$python" ]; then
  for name in "${specs[@]}"; do
    [ -s "$outdir/$name.jsonl" ] || continue
    "$python" "$here/plot.py" --spec "datasets/$name.json" "$outdir/$name.jsonl" -o "$outdir/figures" ||
      echo "figures.sh: plotting $name failed" >&2
  done
else
  echo "figures.sh: matplotlib missing here; draw the figures elsewhere with scripts/plot.py"
fi
if [ "$incomplete" -ne 0 ]; then
  echo "figures.sh: some sweeps are incomplete; run scripts/figures.sh again to continue"
else
  echo "figures.sh: all sweeps complete"
fi

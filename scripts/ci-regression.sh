#!/usr/bin/env bash
# The intended CI use of `sortbench compare`: run a small sweep, compare it with a committed
# baseline from the same kind of machine, and fail the job on a regression (exit 1).
#
#   scripts/ci-regression.sh [SPEC] [BASELINE]
#
# SPEC defaults to datasets/smoke.json, BASELINE to results/baselines/<spec name>.jsonl.
# Without a baseline it writes one (commit it from the machine CI runs on) and passes.
# THRESHOLD (default 5%) is the smallest change that counts; differences inside the measured
# noise are "same" whatever their size. SORTBENCH: the executable.
set -euo pipefail

sortbench=${SORTBENCH:-build/apps/sortbench/sortbench}
spec=${1:-datasets/smoke.json}
baseline=${2:-results/baselines/$(basename "$spec" .json).jsonl}
threshold=${THRESHOLD:-5%}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$sortbench" sweep --spec "$spec" -o "$work/new.jsonl"

if [ ! -f "$baseline" ]; then
  mkdir -p "$(dirname "$baseline")"
  cp "$work/new.jsonl" "$baseline"
  echo "ci-regression.sh: no baseline yet; wrote $baseline (commit it to compare against later runs)"
  exit 0
fi
"$sortbench" compare "$baseline" "$work/new.jsonl" --threshold "$threshold"

#!/usr/bin/env bash
# Issue 50's bars for the automatic choices, merged into one JSON document (scripts/merge_results.py),
# every row verified, single-GPU rows on --device 0:
#   keys   n = 2^28: i32, u32, i64, u64 over their whole domain and over a range of 2^24, and f32,
#          f64 with --dist real over [0, 1000) and over their whole real range: `auto` (what
#          `sort --algo auto` and Python's sort() run) beside cub-radix, cub-radix-bits and, on
#          32-bit integer keys, hp-auto. Bar: auto <= 1.03x the fastest of them.
# It prints each case's ratio of auto to the fastest other row and exits 1 when one is above the
# bar (2 for a wrong argument).
#
#   scripts/auto-grid.sh OUT.json [GROUP...]   (default: every group; SORTBENCH: the executable;
#                                               BUDGET: seconds per row, default 0.3)
set -euo pipefail
out=${1:?usage: scripts/auto-grid.sh OUT.json [keys]}
shift
groups=${*:-keys}
source "$(dirname "$0")/bench_runs.sh"
budget=${BUDGET:-0.3}
for group in $groups; do
  case $group in
    keys) ;;
    *) echo "auto-grid: unknown group $group; give keys" >&2; exit 2 ;;
  esac
done
# Each case apart: one that cannot run leaves the others' rows.
case_args() { run "$@" -n 2^28 --reps 3 --device 0 || echo "auto-grid: $1 did not run" >&2; }

if [[ " $groups " == *" keys "* ]]; then
  cub=auto,cub-radix,cub-radix-bits
  case_args i32-full --key i32 --min-val -2^31 --max-val 2^31 --algo $cub,hp-auto
  case_args i32-narrow --key i32 --min-val -2^23 --max-val 2^23 --algo $cub,hp-auto
  case_args u32-full --key u32 --min-val 0 --max-val 2^32 --algo $cub,hp-auto
  case_args u32-narrow --key u32 --min-val 0 --max-val 2^24 --algo $cub,hp-auto
  case_args i64-full --key i64 --min-val -2^63 --max-val 2^63 --algo $cub
  case_args i64-narrow --key i64 --min-val -2^23 --max-val 2^23 --algo $cub
  case_args u64-full --key u64 --min-val 0 --max-val 2^64 --algo $cub
  case_args u64-narrow --key u64 --min-val 2^40 --max-val 1099528404992 --algo $cub
  case_args f32-narrow --key f32 --dist real --min-val 0 --max-val 1000 --algo $cub
  case_args f32-wide --key f32 --dist real --min-val -4194303 --max-val 4194303 --algo $cub
  case_args f64-narrow --key f64 --dist real --min-val 0 --max-val 1000 --algo $cub
  case_args f64-wide --key f64 --dist real --min-val -2251799813685247 --max-val 2251799813685247 --algo $cub
fi
merge_runs "$out"
echo "auto-grid: wrote $out"
python3 - "$out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
worst, failed = 0.0, False
by_input = {}
for row in doc["results"]:
    by_input.setdefault(json.dumps(row["input"], sort_keys=True), []).append(row)
for rows in by_input.values():
    i = rows[0]["input"]
    name = f"{i['key']} [{i.get('min_val')}, {i.get('max_val')})"
    if any(r["status"] != "ok" for r in rows):
        print(f"auto-grid: {name}: a row did not verify")
        failed = True
        continue
    auto = [r for r in rows if r["algorithm"] == "auto"]
    others = [r for r in rows if r["algorithm"] != "auto"]
    if not auto or not others:
        continue
    a = auto[0]["time_ms"]["median"]
    best = min(others, key=lambda r: r["time_ms"]["median"])
    ratio = a / best["time_ms"]["median"]
    worst = max(worst, ratio)
    variant = auto[0]["details"].get("variant", "?")
    print(f"auto-grid: {name}: auto ({variant}) {a:.3f} ms, fastest other {best['algorithm']} "
          f"{best['time_ms']['median']:.3f} ms: {ratio:.3f}x{'  ABOVE 1.03' if ratio > 1.03 else ''}")
    failed = failed or ratio > 1.03
print(f"auto-grid: worst ratio {worst:.3f} (bar 1.03)")
sys.exit(1 if failed else 0)
PY

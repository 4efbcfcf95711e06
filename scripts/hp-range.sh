#!/usr/bin/env bash
# Issue 36's bars, merged into one JSON document: hp-auto and hp-tiled against cub-radix-bits
# in the same run at the sizes and ranges where H-P's lead used to end (n = 2^31, delta = sigma
# = 50: range 43 M, two levels; n = 2^30, delta = 4, sigma = 1; n = 2^32, delta = sigma = 50:
# 64-bit counts) and the keys-only bars that must hold beside them (2^26 and 2^28, delta =
# sigma = 50). The grid at 2^28 is datasets/hp-range-grid.json (scripts/sweep.sh).
#
#   scripts/hp-range.sh OUT.json       (SORTBENCH: the executable; BUDGET: seconds per algorithm)
set -euo pipefail
out=${1:?usage: scripts/hp-range.sh OUT.json}
source "$(dirname "$0")/bench_runs.sh"

algos='hp-tiled,hp-auto,cub-radix-bits'
run n26 -n 2^26 --delta 50 --sigma 50 --algo "$algos"
run n28 -n 2^28 --delta 50 --sigma 50 --algo "$algos"
run n30d4 -n 2^30 --delta 4 --sigma 1 --algo "$algos"
run n31 -n 2^31 --delta 50 --sigma 50 --algo "$algos"
# 2^32 keys (16 GiB) need three copies and hp-tiled's 4-byte partition beside them: kept
# apart so that a GPU without room for them still writes the other bars.
run n32 -n 2^32 --delta 50 --sigma 50 --algo "$algos" || echo "hp-range.sh: n = 2^32 did not run" >&2
merge_runs "$out"
echo "hp-range.sh: wrote $out"

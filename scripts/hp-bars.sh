#!/usr/bin/env bash
# Issue 17's single points, merged into one JSON document: the range past shared memory at
# n = 2^26 and 2^28 (delta = 50, sigma = 50), delta = 2 at 2^26 and 2^24 (hp-auto's choice), hp-tiled
# with 2^15-bin buckets beside the default, u32 keys with a u32 payload (the key-value path),
# and maxVal = 1000, sigma = 1 (hp-smem, which must not get slower). The winner map's grid
# is datasets/hp-winner-map.json (scripts/sweep.sh).
#
#   scripts/hp-bars.sh OUT.json        (SORTBENCH: the executable; BUDGET: seconds per algorithm)
set -euo pipefail
out=${1:?usage: scripts/hp-bars.sh OUT.json}
source "$(dirname "$0")/bench_runs.sh"

fast='hp-smem,hp-global,hp-hybrid,hp-tiled,hp-auto,cub-radix-bits'
run d50 -n 2^26 --delta 50 --sigma 50 --algo "$fast"
run d50n28 -n 2^28 --delta 50 --sigma 50 --algo "$fast"
run d2 -n 2^26 --delta 2 --algo "$fast"
run d2n24 -n 2^24 --delta 2 --algo "$fast"
run lb15 -n 2^26 --delta 50 --sigma 50 --algo hp-tiled --param low_bits=15
run kv32 -n 2^26 --delta 50 --sigma 50 --payload u32 --algo hp-hybrid,hp-tiled,cub-radix-bits
run m1000 -n 2^26 --max-val 1000 --sigma 1 --algo hp-smem,hp-auto,cub-radix-bits
merge_runs "$out"
echo "hp-bars.sh: wrote $out"

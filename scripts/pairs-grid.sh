#!/usr/bin/env bash
# hp-tiled's key-value path against CUB over the inputs that set hp-auto's payload rule
# (kAutoPairs* in kernels/hp/hp_fast.cu): u32 keys + u32 payload at n = 2^24 and 2^26,
# delta 4, 16, 64, 256 x sigma 4, 50, 1024, each with hp-tiled, hp-tiled-stable, hp-auto and
# cub-radix-bits, merged into one JSON document.
#
#   scripts/pairs-grid.sh OUT.json     (SORTBENCH: the executable; BUDGET: seconds per algorithm)
set -euo pipefail
out=${1:?usage: scripts/pairs-grid.sh OUT.json}
source "$(dirname "$0")/bench_runs.sh"

for n in 24 26; do
  for delta in 4 16 64 256; do
    for sigma in 4 50 1024; do
      run "n${n}d${delta}s${sigma}" -n "2^$n" --delta "$delta" --sigma "$sigma" --payload u32 \
        --algo hp-tiled,hp-tiled-stable,hp-auto,cub-radix-bits
    done
  done
done
merge_runs "$out"
echo "pairs-grid.sh: wrote $out"

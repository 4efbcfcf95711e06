#!/usr/bin/env bash
# Issue 15's performance bars on a host with 2 GPUs, one JSON document per run in OUT_DIR:
#   hp-keys-g2     n = 2^31, delta = 50, sigma = 50, u32 keys only: dist-hp and dist-sample-sort
#                  on 2 GPUs beside the single-GPU references on GPU 0 (cub-radix,
#                  cub-radix-bits, hp-auto); bar: dist-hp >= 2.0x the fastest reference
#   hp-keys-g2-global, hp-keys-g2-low14: the same with dist-hp's histogram variants
#   hp-keys-g1     the same input with one rank (G = 1: the cost model's local rates)
#   uniform-g2     n = 2^31 u32 uniform over [0, 2^32): bar: dist-sample-sort >= 1.3x cub-radix
#   uniform-g1     the same with one rank
#   beyond-2e34    n = 2^34 u32 uniform (64 GiB): the references are unsupported, the
#                  distributed sample sort runs and verifies
# plus `sortbench info` (every GPU and the links) as info.txt.
#
#   scripts/dist-bars.sh OUT_DIR      (SORTBENCH: the executable; BUDGET: seconds per algorithm)
set -euo pipefail
out=${1:?usage: scripts/dist-bars.sh OUT_DIR}
sortbench=${SORTBENCH:-build/apps/sortbench/sortbench}
budget=${BUDGET:-1}
# NVLink SHARP (multicast) stays off: it is not needed here and can upset shared GPUs.
export NCCL_NVLS_ENABLE=0
mkdir -p "$out"

run() {  # NAME ARGS...
  local name=$1
  shift
  "$sortbench" run --budget "$budget" --json "$out/$name.json" "$@"
}

"$sortbench" info >"$out/info.txt"
refs=cub-radix,cub-radix-bits,hp-auto
run hp-keys-g2 --gpus 2 -n 2^31 --delta 50 --sigma 50 --algo "$refs,dist-hp,dist-sample-sort"
# dist-hp's local histogram variants (hp's global atomics; the hybrid with 2^14-bin buckets),
# each beside the references in its own run.
run hp-keys-g2-global --gpus 2 -n 2^31 --delta 50 --sigma 50 --algo "$refs,dist-hp" --param histogram=global
run hp-keys-g2-low14 --gpus 2 -n 2^31 --delta 50 --sigma 50 --algo "$refs,dist-hp" --param low_bits=14
run hp-keys-g1 --gpus 1 -n 2^31 --delta 50 --sigma 50 --algo dist-hp,dist-sample-sort
run uniform-g2 --gpus 2 -n 2^31 --min-val 0 --max-val 2^32 --algo "$refs,dist-sample-sort"
run uniform-g1 --gpus 1 -n 2^31 --min-val 0 --max-val 2^32 --algo dist-sample-sort
run beyond-2e34 --gpus 2 -n 2^34 --min-val 0 --max-val 2^32 --reps 3 --algo cub-radix,dist-sample-sort

#!/usr/bin/env bash
# Issue 38's bars on a host with 2 GPUs (NCCL_NVLS_ENABLE=0), merged into one JSON document, each
# input with its single-GPU references (the whole input on GPU 0) beside the distributed rows:
#   dense       n = 2^31, delta = sigma = 50: dist-hp >= 1.7x hp-auto, hp-auto >= 2.0x cub-radix-bits
#   uniform     n = 2^31 u32 over [0, 2^32): dist-sample-sort >= 1.4x cub-radix
#   uniform-partition, uniform-sort
#               the same input, dist-sample-sort with each exchange (--param exchange=...)
#   zipf, twovalues, f64, tiny
#               dist-auto within 5 % (or 0.5 ms) of the best single-GPU row, or faster, as on
#               dense and uniform: zipf delta = 0.5 at 2^30, two values over [0, 4e9) at 2^29,
#               f64 `real` at 2^28, n = 3
#   wide        n = 2^32, delta = sigma = 50: dist-hp with 8-byte global counts
#   pairs-u32, pairs-index
#               payloads on both distributed sorts and dist-auto (n = 2^28, delta = sigma = 50)
#   file        run --input of a .npy file (2^28 keys written by `sortbench gen`) on 2 ranks
#
#   scripts/dist-v2.sh OUT.json [BAR...]   (default: every bar; SORTBENCH: the executable)
set -euo pipefail
out=${1:?usage: scripts/dist-v2.sh OUT.json [BAR...]}
shift
bars=${*:-dense uniform uniform-partition uniform-sort zipf twovalues f64 tiny wide pairs-u32 pairs-index file}
source "$(dirname "$0")/bench_runs.sh"
export NCCL_NVLS_ENABLE=0
wanted() { [[ " $bars " == *" $1 "* ]]; }
bar() { if wanted "$1"; then run "$@" --gpus 2 || echo "dist-v2.sh: $1 did not run" >&2; fi; }

budget=${BUDGET:-1}
dist=dist-hp,dist-sample-sort,dist-auto
bar dense -n 2^31 --delta 50 --sigma 50 --algo cub-radix,cub-radix-bits,hp-auto,$dist
bar uniform -n 2^31 --min-val 0 --max-val 2^32 --algo cub-radix,cub-radix-bits,hp-auto,dist-sample-sort,dist-auto
bar uniform-partition -n 2^31 --min-val 0 --max-val 2^32 --algo cub-radix,dist-sample-sort --param exchange=partition
bar uniform-sort -n 2^31 --min-val 0 --max-val 2^32 --algo cub-radix,dist-sample-sort --param exchange=sort
bar zipf -n 2^30 --dist zipf --delta 0.5 --algo cub-radix,cub-radix-bits,hp-auto,dist-sample-sort,dist-auto
bar twovalues -n 2^29 --len 2 --min-val 0 --max-val 4000000000 \
    --algo cub-radix,cub-radix-bits,hp-auto,dist-sample-sort,dist-auto
bar f64 -n 2^28 --key f64 --dist real --algo cub-radix,cub-radix-bits,dist-sample-sort,dist-auto
bar tiny -n 3 --algo cub-radix,cub-radix-bits,hp-auto,$dist
bar wide -n 2^32 --delta 50 --sigma 50 --algo hp-auto,dist-hp,dist-auto
bar pairs-u32 -n 2^28 --delta 50 --sigma 50 --payload u32 --algo cub-radix-bits,hp-auto,$dist
bar pairs-index -n 2^28 --delta 50 --sigma 50 --payload index --algo cub-radix-bits,hp-auto,$dist
if wanted file; then
  file="$tmp/keys.npy"
  "$sortbench" gen -n 2^28 --delta 50 --sigma 50 -o "$file" >/dev/null
  bar file --input "$file" --algo cub-radix,hp-auto,$dist
fi
if ((${#parts[@]})); then
  merge_runs "$out"
  echo "dist-v2.sh: wrote $out"
fi

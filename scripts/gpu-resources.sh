#!/usr/bin/env bash
# Writes CTest's resource spec for the GPU tests (tests/CMakeLists.txt): one "gpus" resource per
# GPU of this machine (or of CUDA_VISIBLE_DEVICES when it lists ordinals), each with
# SORTBENCH_GPU_TEST_SLOTS slots (default 8, as the CMake cache's), so that
#   ctest -L gpu -j N --resource-spec-file FILE
# uses every GPU and never puts more tests on one than it has slots.
#   bash scripts/gpu-resources.sh [FILE]     (default: build/gpu-resources.json); prints FILE
# Exit 77, with one line, where there is no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${BUILD_DIR:-build}/gpu-resources.json}
slots=${SORTBENCH_GPU_TEST_SLOTS:-8}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! ids=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null) ||
   [ -z "$ids" ]; then
  echo "gpu-resources: no GPU here (nvidia-smi lists none); the GPU tests need one" >&2
  exit 77
fi
if [[ "${CUDA_VISIBLE_DEVICES:-}" =~ ^[0-9]+(,[0-9]+)*$ ]]; then
  ids=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES")
fi
mkdir -p "$(dirname "$out")"
{
  printf '{"version": {"major": 1, "minor": 0}, "local": [{"gpus": ['
  sep=""
  for id in $ids; do
    printf '%s{"id": "%s", "slots": %s}' "$sep" "$id" "$slots"
    sep=", "
  done
  printf ']}]}\n'
} >"$out"
echo "$out"

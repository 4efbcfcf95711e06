#!/usr/bin/env bash
# Configures and builds sortbench into ${BUILD_DIR:-build}.
#   CUDA_HOME    the CUDA Toolkit to build with: its bin/ goes first on PATH and its nvcc is
#                the CUDA compiler. Unset: the nvcc on PATH, else /usr/local/cuda/bin/nvcc.
#   CMAKE_ARGS   extra configure arguments, e.g. "-DCMAKE_CUDA_ARCHITECTURES=80;90
#                -DCMAKE_PREFIX_PATH=$HOME/prefix" (split at spaces).
#   JOBS         parallel build jobs (default: nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
cuda_args=()
if [ -n "${CUDA_HOME:-}" ]; then
  export PATH="$CUDA_HOME/bin:$PATH"
  cuda_args=(-DCMAKE_CUDA_COMPILER="$CUDA_HOME/bin/nvcc" -DCUDAToolkit_ROOT="$CUDA_HOME")
else
  export PATH="$PATH:/usr/local/cuda/bin"
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${cuda_args[@]}" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}"

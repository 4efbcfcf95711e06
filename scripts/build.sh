#!/usr/bin/env bash
# Configures and builds sortbench into ${BUILD_DIR:-build}: every target, or the targets named
# as arguments (scripts/run.sh builds `sortbench` alone; scripts/test.sh everything).
#   CUDA_HOME    the CUDA Toolkit to build with: its bin/ goes first on PATH and its nvcc is
#                the CUDA compiler. Unset: the nvcc on PATH, else /usr/local/cuda/bin/nvcc.
#   CMAKE_ARGS   extra configure arguments, e.g. "-DCMAKE_CUDA_ARCHITECTURES=80;90
#                -DCMAKE_PREFIX_PATH=$HOME/prefix" (split at spaces).
#   JOBS         parallel build jobs (default: nproc).
# One build folder serves run.sh, test.sh and `pip install .` (pyproject.toml builds in build/
# too): they configure the same compile lines, so each kernel is compiled once. The generator
# is Ninja where `ninja` is on PATH (scikit-build-core takes it too), else Make; a folder keeps
# the generator it was configured with. The build prints one line a target it compiles.
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
generator_args=()
if [ ! -f "$build_dir/CMakeCache.txt" ] && [ -z "${CMAKE_GENERATOR:-}" ] && [[ "${CMAKE_ARGS:-}" != *-G* ]] &&
   command -v ninja >/dev/null 2>&1; then
  generator_args=(-G Ninja)
fi
targets=()
for target in "$@"; do targets+=(--target "$target"); done
echo "build: configuring $build_dir"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DSORTBENCH_BUILD_TESTS=ON "${generator_args[@]}" \
  "${cuda_args[@]}" ${CMAKE_ARGS:-} >/dev/null
echo "build: compiling ${*:-every target} with ${JOBS:-$(nproc)} jobs" \
  "(a first build: about 5 minutes for sortbench, 8 for everything, on 2 cores)"
# Ninja's own status line ([done/total] what) is the progress; its output is a pipe here, so
# it prints each line in full. Make prints [ n%] lines itself.
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" "${targets[@]}"

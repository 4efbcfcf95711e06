#!/usr/bin/env bash
# The README's test command: set up what is missing, build, run every test suite.
# GPU suites (ctest labels gpu, gpu-quick, gpu-multi: one ctest test per gtest test) report
# "skipped" on a machine without a CUDA device; scripts/gpu-check.sh runs them on GPUs.
# The Python face (issue 39 item 4): the same build makes the module (SORTBENCH_BUILD_PYTHON),
# and pytest runs tests/python against it; its GPU tests (mark gpu) skip, saying why, without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --python
py=$(command -v "${SORTBENCH_PYTHON:-python3}")
export CMAKE_ARGS="${CMAKE_ARGS:-} -DSORTBENCH_BUILD_PYTHON=ON -DPython_EXECUTABLE=$py"
bash scripts/build.sh
build_dir=${BUILD_DIR:-build}
[[ $build_dir == /* ]] || build_dir=$PWD/$build_dir
# Every core: the GPU suites are about 2,000 ctest tests, each skipped in milliseconds without a GPU.
(cd "$build_dir" && ctest --output-on-failure -j "${CTEST_JOBS:-$(nproc)}" "$@")
PYTHONPATH="$build_dir/python" "$py" -m pytest -p no:cacheprovider -rs tests/python

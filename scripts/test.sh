#!/usr/bin/env bash
# The README's test command: set up what is missing, build, run every test suite.
# GPU suites (ctest label gpu) report "skipped" on a machine without a CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure "$@"

#!/usr/bin/env bash
# The main job: set up, build, and run every algorithm on the default input (2^24 keys,
# delta = 1), verified and timed, writing results/last-run.json. Extra arguments go to
# `sortbench run` (e.g. -n 2^26 --delta 50 --sigma 50). Without a GPU it runs the CPU
# backend on 2^20 keys and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh >/dev/null
bin="${BUILD_DIR:-build}/apps/sortbench/sortbench"
mkdir -p results
if "$bin" info >/dev/null 2>&1; then
  "$bin" info
  exec "$bin" run --algo all --json results/last-run.json "$@"
else
  echo "run: no CUDA device here, so this runs the CPU backend (on a GPU machine the same command runs every GPU algorithm)"
  exec "$bin" run --backend cpu --algo all -n 1M --json results/last-run.json "$@"
fi

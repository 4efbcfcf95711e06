#!/usr/bin/env bash
# The main job: set up, build, and run every algorithm on the default input (2^24 keys,
# delta = 1), verified and timed, writing results/last-run.json. Extra arguments go to
# `sortbench run` (e.g. -n 2^26 --delta 50 --sigma 50) and win over these defaults. Without a
# GPU it runs the CPU backend, on 2^20 keys unless -n or --input says otherwise, and says so.
# SORTBENCH_RUN_NO_BUILD=1 runs the executable already built (the tests of this script).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${SORTBENCH_RUN_NO_BUILD:-}" ]; then
  bash scripts/setup.sh
  bash scripts/build.sh sortbench
fi
bin="${BUILD_DIR:-build}/apps/sortbench/sortbench"
mkdir -p results

given() {  # given OPTION...: whether the user's arguments name one of these options
  local arg option
  for arg in "${user_args[@]}"; do
    for option in "$@"; do
      [[ $arg == "$option" || $arg == "$option="* ]] && return 0
    done
  done
  return 1
}
user_args=("$@")
defaults=()
given --algo || defaults+=(--algo all)
given --json || defaults+=(--json results/last-run.json)
if "$bin" info >/dev/null 2>&1; then
  "$bin" info
else
  echo "run: no CUDA device here, so this runs the CPU backend (on a GPU machine the same command runs every GPU algorithm)"
  given --backend || defaults+=(--backend cpu)
  if ! given -n --n --input; then
    defaults+=(-n 2^20)
    echo "run: n = 2^20 keys instead of the GPU default 2^24, so the CPU sorts finish in seconds (-n sets it)"
  fi
fi
exec "$bin" run "${defaults[@]}" "$@"

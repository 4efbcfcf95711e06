#!/usr/bin/env bash
# The GPU test suite on this machine's GPUs, as ctest cases (tests/CMakeLists.txt; docs/setup.md
# "The GPU tests" says when to run which):
#   bash scripts/gpu-check.sh quick   the gpu-quick tier with one GPU visible (about 2 minutes):
#                                     after each kernel change
#   bash scripts/gpu-check.sh full    every GPU test (gpu, gpu-quick, gpu-multi) over every GPU:
#                                     before an issue about a kernel is resolved; with more
#                                     than two GPUs the gpu-multi tests also run on all of them
# It sets up and builds (scripts/build.sh), writes the resource spec (scripts/gpu-resources.sh),
# runs ctest with JUnit output and writes results/<gpu>/gpu-suite-<tier>.json:
#   {commit, gpu, gpus, wall_s (ctest's wall, the build excluded), tests, passed, failed, skipped,
#    tests_before (full: the suite's gtest tests before issue 48, tests/gpu-suite-base.json),
#    slowest: [{test, seconds}] x 20}
# and the JUnit file beside it (build/gpu-suite-<tier>.xml); full also writes the tests' times as
# ctest cost data (build/gpu-test-costs.txt: commit it as tests/gpu-test-costs.txt to keep the
# order). Exit: ctest's (0 when every test passed or skipped); 77 with one line where there is
# no GPU; 2 for a wrong argument.
#   JOBS_PER_GPU  tests at once on one GPU (default: SORTBENCH_GPU_TEST_SLOTS, 8)
#   RESULTS_DIR   where the JSON goes (default results/<gpu>, e.g. results/h200, results/h200x2)
#   STOP_AFTER_S  ctest stops after this many seconds (--stop-time), so a job with a time limit
#                 still gets its report: the tier's tests it never started are "not_run" (those it
#                 stopped count as failed)
set -euo pipefail
cd "$(dirname "$0")/.."
tier=${1:-}
case $tier in
  quick | full) ;;
  *) echo "gpu-check: give quick or full (got '${tier}')" >&2; exit 2 ;;
esac
if ! command -v nvidia-smi >/dev/null 2>&1 || [ -z "$(nvidia-smi -L 2>/dev/null)" ]; then
  echo "gpu-check: no GPU here (nvidia-smi lists none); run it on a machine with an NVIDIA GPU" >&2
  exit 77
fi
build_dir=${BUILD_DIR:-build}
[[ $build_dir == /* ]] || build_dir=$PWD/$build_dir
if [ "$tier" = quick ]; then
  # One GPU visible: the tier must pass on a single-GPU machine.
  first=${CUDA_VISIBLE_DEVICES:-$(nvidia-smi --query-gpu=index --format=csv,noheader | head -n1)}
  export CUDA_VISIBLE_DEVICES=${first%%,*}
fi
bash scripts/setup.sh
spec=$(bash scripts/gpu-resources.sh "$build_dir/gpu-resources.json")
gpus=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["local"][0]["gpus"]))' "$spec")
# Past two GPUs, full runs the gpu-multi tests again with one rank on every GPU (all<N>.*).
all=0
[ "$tier" = full ] && [ "$gpus" -gt 2 ] && all=$gpus
export CMAKE_ARGS="${CMAKE_ARGS:-} -DSORTBENCH_GPU_MULTI_ALL=$all"
# What the GPU tests run: the executable and the two GPU test executables (not the CPU suites).
bash scripts/build.sh sortbench sortbench_gpu_tests sortbench_gpu_multi_tests
slots=${SORTBENCH_GPU_TEST_SLOTS:-8}
jobs=$((gpus * ${JOBS_PER_GPU:-$slots}))
# Tests at once share the host's cores: each test's OpenMP work gets its share, and waits
# without spinning, so that concurrent tests do not starve one another.
cores=$(nproc)
export OMP_NUM_THREADS=$(( cores / jobs > 2 ? cores / jobs * 2 : 2 ))
export OMP_WAIT_POLICY=PASSIVE
label=gpu-quick
[ "$tier" = full ] && label=gpu
select=(-L "$label")
if [ "$tier" = full ] && [ "$gpus" -lt 2 ]; then
  # ctest could never give a two-GPU test its resources here: it would report them as failed.
  select+=(-LE gpu-multi)
  echo "gpu-check: one GPU, so the gpu-multi tests (two GPUs each) are left out"
fi
junit=$build_dir/gpu-suite-$tier.xml
# A multi-GPU test needs every slot of its GPUs at once, which one-GPU tests beside it never
# leave free until they run out: in one ctest run it started last, after a stop time had passed
# (2 x H200, issue 51). full runs them first, in a ctest run of their own.
tier_select=("${select[@]}")  # the whole tier, as ctest lists it
multi_first=0
if [ "$tier" = full ] && [ "$gpus" -ge 2 ]; then
  multi_first=1
  select+=(-LE gpu-multi)
fi
# The longest tests first: ctest orders by the cost data of earlier runs, seeded from the
# committed times of the last full run (tests/gpu-test-costs.txt) where this build has none.
costs=$build_dir/Testing/Temporary/CTestCostData.txt
if [ ! -s "$costs" ] && [ -f tests/gpu-test-costs.txt ]; then
  mkdir -p "$(dirname "$costs")"
  cp tests/gpu-test-costs.txt "$costs"
fi
echo "gpu-check: $tier tier (ctest -L $label) on $gpus GPU(s), $jobs tests at once"
start=$(date +%s.%N)
stop=()
[ -n "${STOP_AFTER_S:-}" ] && stop=(--stop-time "$(date -d "+${STOP_AFTER_S} seconds" +%H:%M:%S)")
set +e
junits=()
multi_status=0
if [ "$multi_first" = 1 ]; then
  (cd "$build_dir" && ctest -L gpu-multi -j "$jobs" --resource-spec-file "$spec" --output-junit "$junit.multi" \
    --output-on-failure "${stop[@]}")
  multi_status=$?
  junits+=(--junit "$junit.multi")
fi
(cd "$build_dir" && ctest "${select[@]}" -j "$jobs" --resource-spec-file "$spec" --output-junit "$junit" \
  --output-on-failure "${stop[@]}")
status=$?
[ "$status" = 0 ] && status=$multi_status
junits+=(--junit "$junit")
set -e
listed=$(cd "$build_dir" && ctest -N "${tier_select[@]}" | sed -n 's/^Total Tests: //p')
wall=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$start" "$(date +%s.%N)")
python3 scripts/gpu_suite_report.py "${junits[@]}" --tier "$tier" --gpus "$gpus" --wall "$wall" --listed "$listed" \
  --base tests/gpu-suite-base.json --results-dir "${RESULTS_DIR:-}" \
  $([ "$tier" = full ] && echo --costs-out "$build_dir/gpu-test-costs.txt")
exit $status

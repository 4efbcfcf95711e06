#!/usr/bin/env bash
# The Python face's GPU checks and measurement (issue 39, the GPU bar), on a GPU machine:
#   1. sets up the Python part (bash scripts/setup.sh --python: nanobind, scikit-build-core and
#      pytest from ./wheels/ with no index when they are missing; carry that folder, made by
#      bash scripts/setup.sh --download-wheels where an index answers);
#   2. builds the CLI and the module in one build folder (${BUILD_DIR:-build-py}), so both run
#      the same compiled kernels;
#   3. runs the GPU pytest tests (mark gpu) against that module;
#   4. measures, on one input (i32 keys, n = 2^26, delta = sigma = 50: torch.sort has no uint32
#      CUDA sort in every version), range measured in every row: hp-auto through Python
#      (details.interface "python"), hp-auto through the CLI on the same keys saved as .npy
#      ("cli"), and cupy.sort and torch.sort timed by sortbench.benchmark(others=...); writes
#      results/<gpu>/python.json (gpu: h100, h200, ... from nvidia-smi) and prints the ratios.
# Extra arguments go to the measurement: --n-log2 K (default 26), --skip-tests.
set -euo pipefail
cd "$(dirname "$0")/.."
n_log2=26 skip_tests=0
while (($#)); do
  case $1 in
    --n-log2) n_log2=$2; shift 2 ;;
    --skip-tests) skip_tests=1; shift ;;
    *) echo "python-gpu: unknown argument $1; give --n-log2 K or --skip-tests" >&2; exit 2 ;;
  esac
done
py=$(command -v "${SORTBENCH_PYTHON:-python3}")
bash scripts/setup.sh --python
build_dir=${BUILD_DIR:-build-py}
[[ $build_dir == /* ]] || build_dir=$PWD/$build_dir
export PATH="${CUDA_HOME:+$CUDA_HOME/bin:}$PATH:/usr/local/cuda/bin"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DSORTBENCH_BUILD_PYTHON=ON -DPython_EXECUTABLE="$py" \
  ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}" --target sortbench _sortbench
export PYTHONPATH="$build_dir/python"
if [ "$skip_tests" = 0 ]; then
  "$py" -m pytest -p no:cacheprovider -rs -m gpu tests/python
fi

# results/<gpu>/python.json as the bar scripts name it (a subshell: bench_runs.sh's own temporary
# folder and trap stay there).
out=$(source scripts/bench_runs.sh && results_path python)
mkdir -p "$(dirname "$out")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$py" - "$n_log2" "$work/keys.npy" "$work/python.json" <<'PY'
import sys
import cupy, numpy, torch
import sortbench
n_log2, keys_path, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
keys = sortbench.generate(n=1 << n_log2, delta=50, sigma=50, key="i32", device="cuda")
numpy.save(keys_path, cupy.asnumpy(keys))
rows = sortbench.benchmark(keys, algo=["hp-auto"], range="measured",
                           others={"cupy.sort": cupy.sort, "torch.sort": torch.sort})
rows.write_json(out)
PY
"$build_dir/apps/sortbench/sortbench" run --input "$work/keys.npy" --algo hp-auto --range measured \
  --json "$work/cli.json" --quiet
"$py" - "$work/python.json" "$work/cli.json" "$out" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    python_doc = json.load(f)
with open(sys.argv[2]) as f:
    cli_doc = json.load(f)
out = sys.argv[3]
for row in cli_doc["results"]:
    row["details"]["interface"] = "cli"
python_doc["results"] += cli_doc["results"]
python_doc["context"]["cli_command_line"] = cli_doc["context"]["command_line"]
with open(out, "w") as f:
    json.dump(python_doc, f, indent=2, sort_keys=True)
    f.write("\n")
median = {(r["algorithm"], r["details"]["interface"]): r["time_ms"]["median"]
          for r in python_doc["results"] if r["status"] == "ok"}
for r in python_doc["results"]:
    ms = r.get("time_ms", {}).get("median", float("nan"))
    print(f'{r["algorithm"]:12s} {r["details"]["interface"]:7s} {r["status"]:8s} {r["verification"]:8s} '
          f'range {r["range_mode"]:9s} median {ms:.3f} ms {r["reason"]}')
if ("hp-auto", "python") not in median or ("hp-auto", "cli") not in median:
    sys.exit("python-gpu: hp-auto did not run through both faces; see the rows above")
py_hp, cli_hp = median[("hp-auto", "python")], median[("hp-auto", "cli")]
print(f"hp-auto python / cli: {py_hp / cli_hp:.3f} (bar: within 5 %)")
for other in ("cupy.sort", "torch.sort"):
    if (other, "python") in median:
        print(f"{other} / hp-auto: {median[(other, 'python')] / py_hp:.2f}x (bar: >= 3x)")
print(f"wrote {out}")
PY

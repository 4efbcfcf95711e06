# Sourced by the benchmark-bar scripts (keys64.sh, hp-bars.sh, comparison.sh): one `sortbench
# run` per named input into a temporary JSON file, then all of them merged into OUT in the
# order they ran. Reads SORTBENCH (the executable) and BUDGET (seconds per algorithm).
sortbench=${SORTBENCH:-build/apps/sortbench/sortbench}
budget=${BUDGET:-0.4}
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
parts=()

run() {  # NAME ARGS...
  local name=$1
  shift
  "$sortbench" run --budget "$budget" --quiet --json "$tmp/$name.json" "$@" || return $?
  parts+=("$tmp/$name.json")
}

merge_runs() {  # OUT
  python3 "$bench_dir/merge_results.py" "$1" "${parts[@]}"
}

results_path() {  # NAME: results/<gpu>/NAME.json, <gpu> from the first GPU's name (h100, h200, ...)
  local gpu
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null |
    sed -n '1s/.*\b\([A-Za-z][0-9][0-9]*\)\b.*/\1/p' | tr '[:upper:]' '[:lower:]' || true)
  echo "results/${gpu:-gpu}/$1.json"
}

#!/usr/bin/env bash
# Runs a sweep with one shard per visible GPU (sortbench sweep --shard i/N --device i) and
# merges the shards into one JSONL: the first shard's context line, then every result in row
# order. Extra options go to every shard, e.g. --resume --stop-after 480.
#
#   scripts/sweep.sh datasets/hp-6.3.2-duplicates.json results/h200/hp-6.3.2-duplicates.jsonl [--resume ...]
#
# SORTBENCH: the executable (default build/apps/sortbench/sortbench).
# SWEEP_GPUS: how many GPUs to use (default: CUDA_VISIBLE_DEVICES, else nvidia-smi -L, else 1).
# Shard files stay beside OUT (NAME.shard-I-of-N.jsonl for NAME.jsonl, each with a .log) so
# --resume continues them.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 SPEC OUT.jsonl [sortbench sweep options]" >&2
  exit 2
fi
sortbench=${SORTBENCH:-build/apps/sortbench/sortbench}
spec=$1
out=$2
shift 2

if [ -n "${SWEEP_GPUS:-}" ]; then
  gpus=$SWEEP_GPUS
elif [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  gpus=$(awk -F, '{print NF}' <<<"$CUDA_VISIBLE_DEVICES")
else
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
fi
[ "${gpus:-0}" -ge 1 ] || gpus=1
mkdir -p "$(dirname "$out")"

dry_run=0
for arg in "$@"; do [ "$arg" = "--dry-run" ] && dry_run=1; done
if [ "$gpus" -eq 1 ] || [ "$dry_run" -eq 1 ]; then
  exec "$sortbench" sweep --spec "$spec" -o "$out" "$@"
fi

base=${out%.jsonl}
pids=()
for ((i = 0; i < gpus; i++)); do
  shard="$base.shard-$i-of-$gpus.jsonl"
  "$sortbench" sweep --spec "$spec" -o "$shard" --shard "$i/$gpus" --device "$i" "$@" 2>"$shard.log" &
  pids+=("$!")
done
status=0
for ((i = 0; i < gpus; i++)); do
  if ! wait "${pids[$i]}"; then
    status=1
    echo "sweep.sh: shard $i/$gpus failed; its log: $base.shard-$i-of-$gpus.jsonl.log" >&2
    tail -n 3 "$base.shard-$i-of-$gpus.jsonl.log" >&2 || true
  fi
done

# Merge: complete lines only (a killed shard may end in a partial one), rows in order.
python3 - "$out" "$base" "$gpus" <<'PY'
import json, os, sys
out, base, gpus = sys.argv[1], sys.argv[2], int(sys.argv[3])
context, rows = None, []
for i in range(gpus):
    path = f"{base}.shard-{i}-of-{gpus}.jsonl"
    if not os.path.exists(path):
        continue
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for line in text.split("\n")[:-1]:  # the piece after the last newline is partial or empty
        if not line.strip():
            continue
        j = json.loads(line)
        if "context" in j and "algorithm" not in j:
            if context is None:
                j.setdefault("sweep", {})["shard"] = f"merged from {gpus} shards"
                context = json.dumps(j)
        else:
            rows.append((j["row_index"], line))
if context is None and not rows:
    sys.exit(f"sweep.sh: no shard output to merge; {out} left as it was")
rows.sort(key=lambda r: r[0])  # stable: algorithms keep their order within a row
tmp = out + ".tmp"
with open(tmp, "w", encoding="utf-8") as f:
    if context:
        f.write(context + "\n")
    for _, line in rows:
        f.write(line + "\n")
os.replace(tmp, out)
print(f"sweep.sh: merged {len(rows)} results from {gpus} shards into {out}", file=sys.stderr)
PY
if [ "$status" -ne 0 ]; then
  echo "sweep.sh: some shards stopped early; rerun with --resume to continue them" >&2
fi
exit "$status"

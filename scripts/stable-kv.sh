#!/usr/bin/env bash
# Issue 40's bars, merged into one JSON document: the stable key-value H-P (hp-split-stable)
# against cub-radix-bits in the same run at n = 2^26, delta = sigma = 50, for u32 keys + u32
# values (bar 1.3x), u64 keys + u64 values (bar 1.5x) and the index payload (an argsort, bar
# 1.3x), beside hp-tiled-stable (the old stable path), hp-tiled (unstable: its times must hold)
# and hp-auto (which takes hp-split-stable there with a payload); then the keys-only hp-tiled
# point, which nothing of issue 40 touches. Prints each bar's ratio at the end.
#
#   scripts/stable-kv.sh [OUT.json]   (default results/<gpu>/stable-kv.json, gpu: h100, h200, ...
#                                      from nvidia-smi; SORTBENCH: the executable; BUDGET: seconds
#                                      per algorithm)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench_runs.sh
out=${1:-$(results_path stable-kv)}
mkdir -p "$(dirname "$out")"

algos='hp-split-stable,hp-tiled-stable,hp-tiled,hp-auto,cub-radix-bits'
point=(-n 2^26 --delta 50 --sigma 50)
run kv32 "${point[@]}" --payload u32 --algo "$algos"
run kv64 "${point[@]}" --key u64 --payload u64 --algo "$algos"
run index "${point[@]}" --payload index --algo "$algos"
run keys "${point[@]}" --algo 'hp-tiled,hp-auto,cub-radix-bits'
merge_runs "$out"
echo "stable-kv.sh: wrote $out"

python3 - "$out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {}
for r in doc["results"]:
    i = r["input"]
    rows[(i["key"], i["payload"], r["algorithm"])] = r
bars = {("u32", "u32"): 1.3, ("u64", "u64"): 1.5, ("u32", "index"): 1.3, ("u32", "none"): None}
for (key, payload), bar in bars.items():
    cub = rows.get((key, payload, "cub-radix-bits"))
    if not cub or cub["status"] != "ok":
        print(f"{key} + {payload}: cub-radix-bits did not run")
        continue
    base = cub["time_ms"]["median"]
    line = [f"{key} + {payload}: cub-radix-bits {base:.3f} ms"]
    for algo in ("hp-split-stable", "hp-tiled-stable", "hp-tiled", "hp-auto"):
        r = rows.get((key, payload, algo))
        if not r:
            continue
        if r["status"] != "ok":
            line.append(f"{algo} {r['status']} ({r.get('reason', '')})")
            continue
        t = r["time_ms"]["median"]
        variant = r.get("details", {}).get("variant")
        line.append(f"{algo} {t:.3f} ms {base / t:.2f}x" + (f" [{variant}]" if variant else ""))
    print("; ".join(line) + (f" (bar for hp-split-stable: {bar}x)" if bar else ""))
PY

#!/usr/bin/env bash
# Issue 53's bars, merged into one JSON document (results/<gpu>/hp-floor.json): hp-auto against
# cub-radix-bits in the same run for u32 keys alone at n = 2^26, 2^28, 2^31 (delta = sigma = 50),
# 2^30 (delta = 4, sigma = 1) and 2^32 (delta = sigma = 50); and the stable key-value H-P members
# (hp-split-stable, hp-tiled-stable) against cub-radix-bits at n = 2^26, delta = sigma = 50 for
# u32 keys + u32 values, u32 keys + the index payload and u64 keys + u64 values. Every H-P row
# carries details.traffic_bytes_per_key (docs/hp.md, "Bytes a key"). Prints each bar's ratio and
# exits 1 where one is missed.
#
#   scripts/hp-floor.sh [OUT.json]   (SORTBENCH: the executable; BUDGET: seconds per algorithm)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench_runs.sh
out=${1:-$(results_path hp-floor)}
mkdir -p "$(dirname "$out")"

keys='hp-auto,hp-tiled,cub-radix-bits'
pairs='hp-split-stable,hp-tiled-stable,hp-tiled,hp-auto,cub-radix-bits'
run n26 -n 2^26 --delta 50 --sigma 50 --algo "$keys"
run n28 -n 2^28 --delta 50 --sigma 50 --algo "$keys"
run n30d4 -n 2^30 --delta 4 --sigma 1 --algo "$keys"
run n31 -n 2^31 --delta 50 --sigma 50 --algo "$keys"
run kv32 -n 2^26 --delta 50 --sigma 50 --payload u32 --algo "$pairs"
run index -n 2^26 --delta 50 --sigma 50 --payload index --algo "$pairs"
run kv64 -n 2^26 --delta 50 --sigma 50 --key u64 --payload u64 --algo "$pairs"
# 2^32 keys need three copies of 16 GiB beside hp-tiled's partition: last, so that a GPU without
# room for them still writes the other bars.
run n32 -n 2^32 --delta 50 --sigma 50 --algo "$keys" || echo "hp-floor.sh: n = 2^32 did not run" >&2
merge_runs "$out"
echo "hp-floor.sh: wrote $out"

python3 - "$out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {}
for r in doc["results"]:
    i = r["input"]
    rows[(i["n"], i["key"], i["payload"], i["requested"]["delta"], r["algorithm"])] = r

def median(r):
    return r["time_ms"]["median"] if r and r.get("status") == "ok" else None

missed = 0
def bar(name, key, fast_names, bar_ratio):
    global missed
    cub = median(rows.get(key + ("cub-radix-bits",)))
    times = [(median(rows.get(key + (a,))), a) for a in fast_names]
    times = [(t, a) for t, a in times if t]
    if not cub or not times:
        print(f"hp-floor.sh: {name}: did not run")
        missed += 1
        return
    t, a = min(times)
    traffic = rows[key + (a,)]["details"].get("traffic_bytes_per_key", "?")
    ratio = cub / t
    ok = ratio >= bar_ratio
    missed += not ok
    print(f"hp-floor.sh: {name}: {a} {t:.3f} ms, cub-radix-bits {cub:.3f} ms, {ratio:.2f}x "
          f"(bar {bar_ratio}){'' if ok else '  MISSED'}; {traffic} bytes a key")

for n, delta, b in [(2**26, 50, 3.3), (2**28, 50, 3.0), (2**30, 4, 2.2), (2**31, 50, 2.8), (2**32, 50, 2.6)]:
    bar(f"u32 2^{n.bit_length() - 1} delta {delta}", (n, "u32", "none", delta), ["hp-auto"], b)
stable = ["hp-split-stable", "hp-tiled-stable"]
bar("stable u32 + u32", (2**26, "u32", "u32", 50), stable, 1.3)
bar("stable u32 + index", (2**26, "u32", "index", 50), stable, 1.3)
bar("stable u64 + u64", (2**26, "u64", "u64", 50), stable, 1.5)
sys.exit(1 if missed else 0)
PY

#!/usr/bin/env bash
# Issue 50's bars for the automatic choices, on a host with two GPUs (NCCL_NVLS_ENABLE=0), merged
# into one JSON document (scripts/merge_results.py) whose context records the tune
# ("tune": {"wall_s", "profile"}); every row verified, single-GPU rows on --device 0:
#   tune   `sortbench tune -o` a profile that every later run reads (--profile); with the dist group,
#          `tune --gpus 2` (dist-auto's ways measured against its predictions). Bar: wall_s <= 120.
#   grid   n = 2^27 and 2^29, u32 keys, delta in {0.5, 1, 2, 3, 6, 24, 96, 700} x sigma in {1, 5, 60,
#          900} where delta * sigma >= 1: hp-auto beside every H-P variant it can pick,
#          cub-radix-bits and cub-radix. Bar: hp-auto <= 1.03x the fastest row of the point.
#   keys   n = 2^28: i32, u32, i64, u64 over their whole domain and over a range of 2^24, and f32,
#          f64 with --dist real over [0, 1000) and over their whole real range: `auto` (what
#          `sort --algo auto` and Python's sort() run) beside cub-radix, cub-radix-bits and, on
#          32-bit integer keys, hp-auto. Bar: auto <= 1.03x the fastest of them.
#   pairs  n = 2^26, u32 keys with u32 values, delta in {16, 64, 256} x sigma in {4, 50, 1024}: hp-auto
#          beside hp-tiled and cub-radix-bits. Bar: hp-auto <= 1.03x the fastest row of the point.
#   dist   n = 2^26, 2^28, 2^30, delta = sigma = 50, keys alone and with u32 and index payloads:
#          dist-auto on both GPUs beside cub-radix, cub-radix-bits and hp-auto on one. Bar:
#          dist-auto >= 0.95x the best single-GPU row, or within 0.5 ms of it.
# It prints each case's ratio and exits 1 when one misses its bar (2 for a wrong argument).
#
#   scripts/auto-grid.sh OUT.json [GROUP...]   (default: every group; SORTBENCH: the executable;
#                                               BUDGET: seconds per row, default 0.3)
set -euo pipefail
out=${1:?usage: scripts/auto-grid.sh OUT.json [tune] [grid] [keys] [pairs] [dist]}
shift
groups=${*:-tune grid keys pairs dist}
source "$(dirname "$0")/bench_runs.sh"
budget=${BUDGET:-0.3}
export NCCL_NVLS_ENABLE=0
for group in $groups; do
  case $group in
    tune | grid | keys | pairs | dist) ;;
    *) echo "auto-grid: unknown group $group; give tune, grid, keys, pairs or dist" >&2; exit 2 ;;
  esac
done
wanted() { [[ " $groups " == *" $1 "* ]]; }

profile_args=()
if wanted tune; then
  profile="$tmp/profile.json"
  tune_gpus=()
  if wanted dist; then tune_gpus=(--gpus 2); fi
  "$sortbench" tune -o "$profile" "${tune_gpus[@]}"
  profile_args=(--profile "$profile")
fi
# Each case apart: one that cannot run leaves the others' rows.
case_args() {
  local name=$1
  shift
  run "$name" "$@" --reps 3 "${profile_args[@]}" || echo "auto-grid: $name did not run" >&2
}

if wanted grid; then
  hp=hp-auto,hp-smem,hp-hybrid,hp-global,hp-tiled,cub-radix-bits,cub-radix
  for n in 27 29; do
    for sigma in 1 5 60 900; do
      for delta in 0.5 1 2 3 6 24 96 700; do
        python3 -c "import sys; sys.exit(0 if $delta * $sigma >= 1 else 1)" || continue
        case_args "grid-$n-$delta-$sigma" -n 2^$n --delta "$delta" --sigma "$sigma" --device 0 --algo $hp
      done
    done
  done
fi

if wanted keys; then
  cub=auto,cub-radix,cub-radix-bits
  one=(-n 2^28 --device 0)
  case_args i32-full "${one[@]}" --key i32 --min-val -2^31 --max-val 2^31 --algo $cub,hp-auto
  case_args i32-narrow "${one[@]}" --key i32 --min-val -2^23 --max-val 2^23 --algo $cub,hp-auto
  case_args u32-full "${one[@]}" --key u32 --min-val 0 --max-val 2^32 --algo $cub,hp-auto
  case_args u32-narrow "${one[@]}" --key u32 --min-val 0 --max-val 2^24 --algo $cub,hp-auto
  case_args i64-full "${one[@]}" --key i64 --min-val -2^63 --max-val 2^63 --algo $cub
  case_args i64-narrow "${one[@]}" --key i64 --min-val -2^23 --max-val 2^23 --algo $cub
  case_args u64-full "${one[@]}" --key u64 --min-val 0 --max-val 2^64 --algo $cub
  case_args u64-narrow "${one[@]}" --key u64 --min-val 2^40 --max-val 1099528404992 --algo $cub
  case_args f32-narrow "${one[@]}" --key f32 --dist real --min-val 0 --max-val 1000 --algo $cub
  case_args f32-wide "${one[@]}" --key f32 --dist real --min-val -4194303 --max-val 4194303 --algo $cub
  case_args f64-narrow "${one[@]}" --key f64 --dist real --min-val 0 --max-val 1000 --algo $cub
  case_args f64-wide "${one[@]}" --key f64 --dist real --min-val -2251799813685247 --max-val 2251799813685247 \
      --algo $cub
fi

if wanted pairs; then
  for sigma in 4 50 1024; do
    for delta in 16 64 256; do
      case_args "pairs-$delta-$sigma" -n 2^26 --delta "$delta" --sigma "$sigma" --payload u32 --device 0 \
          --algo hp-auto,hp-tiled,cub-radix-bits
    done
  done
fi

if wanted dist; then
  for n in 26 28 30; do
    for payload in none u32 index; do
      case_args "dist-$n-$payload" -n 2^$n --delta 50 --sigma 50 --payload $payload --gpus 2 \
          --algo cub-radix,cub-radix-bits,hp-auto,dist-auto
    done
  done
fi

merge_runs "$out"
echo "auto-grid: wrote $out"
python3 - "$out" "${profile:-}" <<'PY'
import json, sys
path, profile_path = sys.argv[1], sys.argv[2]
doc = json.load(open(path))
failed = False
if profile_path:
    profile = json.load(open(profile_path))
    wall = profile.get("tune", {}).get("wall_s", 0)
    doc["context"]["tune"] = {"wall_s": wall, "profile": profile}
    json.dump(doc, open(path, "w"), indent=2)
    print(f"auto-grid: tune took {wall:.1f} s (bar 120)")
    failed = failed or wall > 120
by_input = {}
for row in doc["results"]:
    by_input.setdefault(json.dumps(row["input"], sort_keys=True), []).append(row)
worst = {"hp-auto": 0.0, "auto": 0.0}
for rows in by_input.values():
    i = rows[0]["input"]
    name = f"n={i['n']} {i['key']} payload={i['payload']} [{i.get('min_val')}, {i.get('max_val')}) len={i.get('len')}"
    bad = [r for r in rows if r["status"] not in ("ok", "unsupported")]
    if bad:
        print(f"auto-grid: {name}: {', '.join(r['algorithm'] for r in bad)} did not verify")
        failed = True
        continue
    ok = [r for r in rows if r["status"] == "ok"]
    t = {r["algorithm"]: r["time_ms"]["median"] for r in ok}
    if "dist-auto" in t:
        single = {a: m for a, m in t.items() if not a.startswith("dist")}
        best = min(single, key=single.get)
        speed = single[best] / t["dist-auto"]
        miss = speed < 0.95 and t["dist-auto"] - single[best] > 0.5
        print(f"auto-grid: {name}: dist-auto {t['dist-auto']:.3f} ms, best single {best} {single[best]:.3f} ms: "
              f"{speed:.3f}x{'  BELOW 0.95' if miss else ''}")
        failed = failed or miss
        continue
    for chooser in ("auto", "hp-auto"):
        if chooser not in t or (chooser == "hp-auto" and "auto" in t):
            continue
        others = {a: m for a, m in t.items() if a != chooser}
        if not others:
            continue
        best = min(others, key=others.get)
        ratio = t[chooser] / min(others[best], t[chooser])
        worst[chooser] = max(worst[chooser], ratio)
        variant = next(r for r in ok if r["algorithm"] == chooser)["details"].get("variant", "?")
        print(f"auto-grid: {name}: {chooser} ({variant}) {t[chooser]:.3f} ms, fastest other {best} "
              f"{others[best]:.3f} ms: {ratio:.3f}x{'  ABOVE 1.03' if ratio > 1.03 else ''}")
        failed = failed or ratio > 1.03
print(f"auto-grid: worst hp-auto {worst['hp-auto']:.3f}, worst auto {worst['auto']:.3f} (bar 1.03)")
sys.exit(1 if failed else 0)
PY

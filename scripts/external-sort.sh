#!/usr/bin/env bash
# Issue 52's bars: `sortbench sort` of files past host memory at disk speed, each case's wall
# time beside a copy of the same input to the output's folder, into OUT (JSON):
#   {context (the first sort's --json context: GPU, host, commit), cold_cache (whether the page
#    cache could be dropped before each timed command), cases: [{case, file_bytes, wall_ms,
#    cp_ms, host_peak_bytes, tmp_bytes, runs_in, phases, disk_floor_ms, disk (the probed rates),
#    details (the sort's: its host thread's time a kind of work), verified, in_core_wall_ms,
#    in_core_phases, numpy_ms, ratios}]}
# wall_ms: the sort process from start to exit plus `sync`; cp_ms: `cp --reflink=never` of the
# input file(s) into the output's folder plus `sync`, median of 3. Each case's output and copies
# are deleted before the next. Cases (the issue's bars):
#   u64-16g-host4g  2^31 u64 keys over the whole domain (16 GiB), --host-memory-limit 4G
#                   --gpu-memory-limit 2G: wall <= 2.5x cp, host peak <= 1.1 x 4 GiB
#   u64-16g         the same file, no limits: wall <= 1.3x cp
#   u32-4g-gpu1g    2^30 uniform u32 keys (4 GiB), --gpu-memory-limit 1G: wall <= 1.3x the same
#                   file's in-core sort, numpy.sort >= 4x wall
#   u64-8g-values   2^30 u64 keys and 2^30 u64 values, host 2G, GPU 1G: wall <= 3.5x cp of both
#   u64-8g-argsort  2^30 u64 keys --argsort, host 2G, GPU 1G: wall <= 3.5x cp
# Needs free disk for the largest case: input, output and runs (48 GiB at 2^31 u64). DIR (default
# TMPDIR or /tmp) holds the files; SCALE=K divides every n by 2^K (a small trial run).
#
#   scripts/external-sort.sh OUT.json [CASE...]   (SORTBENCH: the executable)
set -euo pipefail
out=${1:?usage: scripts/external-sort.sh OUT.json [CASE...]}
shift
cases=${*:-u64-16g-host4g u64-16g u32-4g-gpu1g u64-8g-values u64-8g-argsort}
sortbench=$(realpath "${SORTBENCH:-build/apps/sortbench/sortbench}")
dir=$(mktemp -d "${DIR:-${TMPDIR:-/tmp}}/sortbench-external.XXXXXX")
trap 'rm -rf "$dir"' EXIT
exec python3 - "$sortbench" "$dir" "$out" "${SCALE:-0}" $cases <<'PY'
import json, os, statistics, subprocess, sys, time

exe, work, out, scale = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
wanted = sys.argv[5:]
known = ["u64-16g-host4g", "u64-16g", "u32-4g-gpu1g", "u64-8g-values", "u64-8g-argsort"]
for c in wanted:
    if c not in known:
        sys.exit(f"external-sort: unknown case {c}; give any of {', '.join(known)}")

def drop_caches():
    subprocess.run(["sync"], check=True)
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False

def timed(cmd):
    cold = drop_caches()
    t0 = time.perf_counter()
    r = subprocess.run(cmd)
    subprocess.run(["sync"], check=True)
    ms = (time.perf_counter() - t0) * 1e3
    if r.returncode != 0:
        sys.exit(f"external-sort: {' '.join(cmd)} exited {r.returncode}")
    return ms, cold

def cp_ms(files):
    times = []
    for _ in range(3):
        copies = [os.path.join(work, "copy-" + os.path.basename(f)) for f in files]
        cold = drop_caches()
        t0 = time.perf_counter()
        for f, c in zip(files, copies):
            subprocess.run(["cp", "--reflink=never", f, c], check=True)
        subprocess.run(["sync"], check=True)
        times.append((time.perf_counter() - t0) * 1e3)
        for c in copies:
            os.remove(c)
    return statistics.median(times)

def gen(name, n_log2, *args):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        print(f"external-sort: generating {name} (2^{n_log2 - scale} keys)", flush=True)
        subprocess.run([exe, "gen", "-n", f"2^{n_log2 - scale}", *args, "-o", path], check=True)
    return path

def sort(case, inputs, extra, out_files):
    report = os.path.join(work, case + ".json")
    cmd = [exe, "sort", inputs[0], "-o", out_files[0], "--json", report, *extra]
    wall, cold = timed(cmd)
    doc = json.load(open(report))
    for f in out_files:
        os.remove(f)
    os.remove(report)
    return wall, cold, doc

def numpy_sort_ms(path):
    code = ("import numpy, time, sys; a = numpy.load(sys.argv[1]); t = time.perf_counter(); a.sort(); "
            "print((time.perf_counter() - t) * 1e3)")
    r = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, check=True)
    return float(r.stdout)

doc_context, rows, all_cold = None, [], True
files = {}
for case in wanted:
    print(f"external-sort: {case}", flush=True)
    row = {"case": case}
    if case.startswith("u64-16g"):
        keys = gen("u64-31.npy", 31, "--key", "u64", "--min-val", "0", "--max-val", "2^64")
        inputs, outs = [keys], [os.path.join(work, "out.npy")]
        extra = ["--host-memory-limit", "4G", "--gpu-memory-limit", "2G"] if case.endswith("host4g") else []
    elif case == "u32-4g-gpu1g":
        keys = gen("u32-30.npy", 30, "--key", "u32", "--min-val", "0", "--max-val", "2^32")
        inputs, outs, extra = [keys], [os.path.join(work, "out.npy")], ["--gpu-memory-limit", "1G"]
    else:
        keys = gen("u64-30.npy", 30, "--key", "u64", "--min-val", "0", "--max-val", "2^64")
        inputs, outs = [keys], [os.path.join(work, "out.npy")]
        extra = ["--host-memory-limit", "2G", "--gpu-memory-limit", "1G"]
        if case.endswith("values"):
            vals = gen("u64-30-values.npy", 30, "--key", "u64", "--min-val", "0", "--max-val", "2^64", "--seed", "7")
            inputs.append(vals)
            outs.append(os.path.join(work, "out-values.npy"))
            extra += ["--values", vals, "--values-out", outs[1]]
        else:
            extra += ["--argsort"]
    wall, cold, doc = sort(case, inputs, extra, outs)
    all_cold = all_cold and cold
    doc_context = doc_context or doc["context"]
    s = doc["sort"]
    row.update(file_bytes=sum(os.path.getsize(f) for f in inputs), wall_ms=round(wall, 1),
               cp_ms=round(cp_ms(inputs), 1), host_peak_bytes=s["memory"]["host_peak_bytes"],
               tmp_bytes=s["memory"].get("tmp_bytes", 0), runs_in=s["memory"].get("runs_in"),
               algorithm=s["algorithm"], placement=s["placement"], phases=s["phases"],
               disk_floor_ms=s.get("disk_floor_ms"), disk=s.get("disk"), details=s.get("details"),
               verified=s["verified_on"] in ("gpu", "host"))
    if case == "u32-4g-gpu1g":
        in_core_wall, _, in_core = sort(case + "-in-core", inputs, [], outs)
        row["in_core_wall_ms"] = round(in_core_wall, 1)
        row["in_core_phases"] = in_core["sort"]["phases"]
        row["numpy_ms"] = round(numpy_sort_ms(keys), 1)
    bars = []
    if case == "u64-16g-host4g":
        bars = [("wall/cp", row["wall_ms"] / row["cp_ms"], 2.5), ("host_peak/4GiB", row["host_peak_bytes"] / 2**32, 1.1)]
    elif case == "u64-16g":
        bars = [("wall/cp", row["wall_ms"] / row["cp_ms"], 1.3)]
    elif case == "u32-4g-gpu1g":
        bars = [("wall/in_core", row["wall_ms"] / row["in_core_wall_ms"], 1.3),
                ("wall/numpy (at most 1/4)", row["wall_ms"] / row["numpy_ms"], 0.25)]
    else:
        bars = [("wall/cp", row["wall_ms"] / row["cp_ms"], 3.5)]
    row["ratios"] = {name: round(v, 3) for name, v, _ in bars}
    row["bars_met"] = all(v <= bar for _, v, bar in bars) and row["verified"]
    for name, v, bar in bars:
        print(f"external-sort: {case}: {name} {v:.3f} (bar {bar}){'' if v <= bar else '  MISSED'}", flush=True)
    rows.append(row)
    # Inputs no later case reads leave now: the largest cases need the disk to themselves.
    later = wanted[wanted.index(case) + 1:]
    needed = {"u64-31.npy": any(c.startswith("u64-16g") for c in later),
              "u32-30.npy": "u32-4g-gpu1g" in later,
              "u64-30.npy": any(c.startswith("u64-8g") for c in later),
              "u64-30-values.npy": "u64-8g-values" in later}
    for name, keep in needed.items():
        if not keep and os.path.exists(os.path.join(work, name)):
            os.remove(os.path.join(work, name))

json.dump({"schema_version": 1, "context": doc_context, "cold_cache": all_cold, "scale_log2": scale, "cases": rows},
          open(out, "w"), indent=2)
print(f"external-sort: wrote {out}")
sys.exit(0 if all(r["bars_met"] for r in rows) else 1)
PY

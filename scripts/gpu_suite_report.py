#!/usr/bin/env python3
"""The GPU suite's result (scripts/gpu-check.sh): ctest's JUnit file summed into
results/<gpu>/gpu-suite-<tier>.json, the format issue 48 names:
{commit, gpu, gpus, wall_s, tests, passed, failed, skipped, not_run (the tier's tests that were
never started: ctest --stop-time), tests_before, slowest: [{test, seconds}], context: {date, host,
devices: nvidia-smi's index, name, driver, memory, compute capability and bus of each GPU used}}.
Also importable: summarize() is tested on the CPU with a JUnit file made by hand."""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import xml.etree.ElementTree as ET


def test_cases(junit_paths):
    """The testcase elements of one ctest JUnit file, or of several (gpu-check.sh full runs the
    multi-GPU tests in a ctest run of their own, first)."""
    paths = [junit_paths] if isinstance(junit_paths, str) else junit_paths
    return [case for path in paths for case in ET.parse(path).getroot().iter("testcase")]


def summarize(junit_paths, slowest=20):
    """Counts and the slowest tests of ctest's JUnit file(s)."""
    cases = test_cases(junit_paths)
    passed = failed = skipped = not_run = 0
    times = []
    for case in cases:
        name = case.get("name", "")
        seconds = float(case.get("time", "0") or 0)
        status = case.get("status", "")
        if case.find("failure") is not None or case.find("error") is not None or status == "fail":
            failed += 1
        elif case.find("skipped") is not None or status == "disabled":
            skipped += 1
        elif status == "notrun":  # never started (ctest --stop-time)
            not_run += 1
        else:
            passed += 1
        times.append((seconds, name))
    times.sort(key=lambda t: (-t[0], t[1]))
    return {
        "tests": passed + failed + skipped + not_run,
        "passed": passed,
        "failed": failed,
        "skipped": skipped,
        "not_run": not_run,
        "slowest": [{"test": name, "seconds": round(seconds, 2)} for seconds, name in times[:slowest]],
    }


def write_costs(junit_paths, path):
    """ctest's cost data (Testing/Temporary/CTestCostData.txt: name, runs, seconds) from JUnit
    file(s), so that the next run starts the longest tests first instead of finding them last."""
    with open(path, "w") as f:
        for case in test_cases(junit_paths):
            # Tests that did not run to an end (skipped, stopped, failed) leave no cost to learn.
            if case.get("status") in ("notrun", "fail") or case.find("skipped") is not None:
                continue
            f.write(f"{case.get('name')} 1 {float(case.get('time') or 0):.3f}\n")
        f.write("---\n")


GPU_FIELDS = ("index", "name", "driver_version", "memory.total", "compute_cap", "pci.bus_id")


def visible_gpus():
    """The GPUs the tests ran on, as nvidia-smi describes them (CUDA_VISIBLE_DEVICES applied where it
    lists ordinals): the report's device context."""
    out = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(GPU_FIELDS), "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, check=True).stdout
    rows = [dict(zip(GPU_FIELDS, (v.strip() for v in line.split(","))))
            for line in out.strip().splitlines() if line.strip()]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    if re.fullmatch(r"\d+(,\d+)*", visible):
        rows = [r for r in rows if r["index"] in visible.split(",")]
    return [{"index": int(r["index"]), "name": r["name"], "driver": r["driver_version"],
             "memory_mib": int(float(r["memory.total"])), "compute_capability": r["compute_cap"],
             "pci_bus_id": r["pci.bus_id"]} for r in rows]


def folder_of(name, gpus):
    """results/ folder of a GPU model: 'NVIDIA H200' -> h200, on two GPUs h200x2."""
    words = [w for w in name.split() if w.upper() not in ("NVIDIA", "TESLA", "GEFORCE")]
    model = re.sub(r"[^a-z0-9]", "", (words[0] if words else name).lower()) or "gpu"
    return model + (f"x{gpus}" if gpus > 1 else "")


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return os.environ.get("SORTBENCH_GIT_COMMIT", "unknown")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--junit", required=True, action="append", help="ctest's JUnit file; again for each run")
    ap.add_argument("--tier", required=True, choices=["quick", "full"])
    ap.add_argument("--gpus", type=int, required=True)
    ap.add_argument("--wall", type=float, required=True)
    ap.add_argument("--listed", type=int, default=0, help="the tier's tests as ctest lists them")
    ap.add_argument("--base", required=True, help="tests/gpu-suite-base.json")
    ap.add_argument("--results-dir", default="")
    ap.add_argument("--costs-out", default="", help="also write ctest's cost data here")
    a = ap.parse_args()
    if a.costs_out:
        write_costs(a.junit, a.costs_out)
    gpus = visible_gpus()
    doc = {"commit": os.environ.get("SORTBENCH_GIT_COMMIT") or commit(), "gpu": gpus[0]["name"] if gpus else "unknown",
           "gpus": a.gpus, "tier": a.tier, "wall_s": a.wall}
    summary = summarize(a.junit)
    # Tests ctest stopped before they ended (--stop-time) are missing from its JUnit file.
    missing = max(0, a.listed - summary["tests"])
    summary["not_run"] += missing
    summary["tests"] += missing
    doc.update({k: summary[k] for k in ("tests", "passed", "failed", "skipped", "not_run")})
    if a.tier == "full":
        with open(a.base) as f:
            doc["tests_before"] = json.load(f)["tests"]
    doc["slowest"] = summary["slowest"]
    doc["context"] = {"date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                      "host": {"hostname": platform.node(), "cpu_threads": os.cpu_count()},
                      "devices": gpus, "omp_num_threads": os.environ.get("OMP_NUM_THREADS")}
    folder = a.results_dir or os.path.join("results", folder_of(doc["gpu"], a.gpus))
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"gpu-suite-{a.tier}.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    slowest = summary["slowest"][0]["seconds"] if summary["slowest"] else 0
    print(f"gpu-check: {doc['tests']} tests, {doc['passed']} passed, {doc['failed']} failed, {doc['skipped']} "
          f"skipped in {doc['wall_s']} s on {a.gpus} x {doc['gpu']}; slowest {slowest} s; {path}")


if __name__ == "__main__":
    sys.exit(main())

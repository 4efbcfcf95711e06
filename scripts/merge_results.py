#!/usr/bin/env python3
"""Merge several `sortbench run --json` documents taken on one device into one document.

The merged context is the first document's, plus `runs`: each source's command line and
date. Documents from different GPUs are refused. `--git-commit` fills in a context whose
commit is "unknown" (a run from a source copy without .git).

    scripts/merge_results.py OUT.json IN1.json IN2.json ... [--git-commit HASH]
"""
import argparse
import json
import os
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--git-commit", default=None)
    args = parser.parse_args()

    docs = []
    for path in args.inputs:
        with open(path) as f:
            docs.append(json.load(f))
    versions = {d.get("schema_version") for d in docs}
    if len(versions) != 1:
        sys.exit(f"merge_results: mixed schema versions {sorted(versions)}")
    gpus = {(d["context"].get("gpu") or {}).get("name") for d in docs}
    if len(gpus) != 1:
        sys.exit(f"merge_results: results from different devices {sorted(map(str, gpus))}; merge per device")

    merged = {"schema_version": docs[0]["schema_version"], "context": dict(docs[0]["context"]), "results": []}
    merged["context"]["runs"] = [
        {"command_line": d["context"].get("command_line"), "date_utc": d["context"].get("date_utc")} for d in docs
    ]
    if args.git_commit and merged["context"].get("git_commit") in (None, "", "unknown"):
        merged["context"]["git_commit"] = args.git_commit
    for d in docs:
        merged["results"].extend(d["results"])

    tmp = f"{args.out}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(merged, f, indent=2)
        f.write("\n")
    os.replace(tmp, args.out)
    print(f"merge_results: {len(merged['results'])} rows from {len(docs)} runs -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

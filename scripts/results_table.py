#!/usr/bin/env python3
"""Print a Markdown table of a sortbench results JSON (or JSONL), one row per result.

    scripts/results_table.py results/h200/baselines.json [--algo PREFIX ...] [--ratio-to NAME]

--ratio-to adds a column: that algorithm's median on the same input divided by each row's
(values above 1: faster than it).
"""
import argparse
import json


def load_rows(path):
    with open(path) as f:
        text = f.read()
    if path.endswith(".jsonl"):
        return [r for r in (json.loads(line) for line in text.splitlines() if line.strip()) if "algorithm" in r]
    return json.loads(text)["results"]


def input_key(row):
    i = row["input"]
    source = i.get("source", {})
    if source.get("kind") == "file":  # a file has no generator parameters: its content names it
        return (i["n"], source.get("hash"), i["key"], i["payload"])
    return (i["n"], i["min_val"], i["max_val"], i["len"], i["dist"], i["key"], i["payload"], i["seed"])


def shape(row):
    """δ, σ and dist: as requested for generated inputs, as measured for a file."""
    i = row["input"]
    if "delta" in i:
        return f"{i['delta']:.3g}", f"{i['sigma']:.3g}", i["dist"]
    z = row["realized"]
    return f"{z.get('delta', 0):.3g}", f"{z.get('sigma', 0):.3g}", "file"


def pow2(n):
    return f"2^{n.bit_length() - 1}" if n and n & (n - 1) == 0 else str(n)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("path")
    p.add_argument("--algo", nargs="*", default=None, help="keep algorithms with these name prefixes")
    p.add_argument("--ratio-to", default=None)
    args = p.parse_args()
    rows = load_rows(args.path)
    if args.algo:
        rows = [r for r in rows if any(r["algorithm"].startswith(a) for a in args.algo)]
    base = {}
    if args.ratio_to:
        for r in load_rows(args.path):
            if r["algorithm"] == args.ratio_to and r.get("time_ms"):
                base[input_key(r)] = r["time_ms"]["median"]
    head = "| n | δ | σ | dist | key | payload | algorithm | median ms | Gkeys/s | % copy bw | status |"
    if args.ratio_to:
        head += f" speed-up vs {args.ratio_to} |"
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for r in rows:
        i, t = r["input"], r.get("time_ms")
        cells = [pow2(i["n"]), *shape(r), i["key"], i["payload"], r["algorithm"]]
        if t:
            cells += [f"{t['median']:.4f}", f"{r['keys_per_s'] / 1e9:.2f}",
                      f"{r['bandwidth_pct_of_copy']:.1f}" if r.get("bandwidth_pct_of_copy") else "-"]
        else:
            cells += ["-", "-", "-"]
        cells.append(r["status"] if r["status"] != "ok" else "verified")
        if args.ratio_to:
            b = base.get(input_key(r))
            cells.append(f"{b / t['median']:.2f}×" if b and t else "-")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

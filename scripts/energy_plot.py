#!/usr/bin/env python3
"""Keys per second against keys per joule (issue 16): which sort is the most efficient, not
just the fastest. One panel per input of a `sortbench run --energy` result file (or several,
merged), one point per algorithm with status "ok" and an energy figure; the dashed lines are
constant average power (keys/s / keys/J = watts).

    scripts/energy_plot.py results/h200/energy.json -o results/h200/figures

Writes DIR/energy.png and DIR/energy.md (the same numbers as a table, fastest first).
"""
import argparse
import os
import sys

from plot import load_results  # scripts/plot.py: a run document or JSON lines


def input_label(row):
    inp = row["input"]
    req = inp.get("requested", {})
    n = inp["n"]
    size = f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)
    parts = [f"n={size}", inp["key"]]
    for name in ("delta", "sigma"):
        if req.get(name) is not None:
            parts.append(f"{name}={req[name]:g}")
    return " ".join(parts)


def points(rows):
    """{input label: [(algorithm, keys/s, keys/J, power W, idle W)]} of the rows with energy."""
    by_input = {}
    for r in rows:
        energy = r.get("energy") or {}
        if r.get("status") != "ok" or "keys_per_joule" not in energy or not r.get("keys_per_s"):
            continue
        by_input.setdefault(input_label(r), []).append(
            (r["algorithm"], r["keys_per_s"], energy["keys_per_joule"], energy.get("power_w", 0),
             energy.get("idle_power_w", 0)))
    return by_input


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     allow_abbrev=False)
    parser.add_argument("results", nargs="+")
    parser.add_argument("-o", "--output", required=True, help="folder for energy.png and energy.md")
    args = parser.parse_args()
    rows = []
    for path in args.results:
        rows.extend(load_results(path)[0])
    by_input = points(rows)
    if not by_input:
        sys.exit("energy_plot.py: no row with an energy figure (run sortbench run --energy)")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(args.output, exist_ok=True)
    fig, axes = plt.subplots(1, len(by_input), figsize=(7 * len(by_input), 6), squeeze=False)
    table = []
    for ax, (label, pts) in zip(axes[0], sorted(by_input.items())):
        pts.sort(key=lambda p: -p[1])
        for name, rate, per_joule, power, idle in pts:
            ax.scatter(rate / 1e9, per_joule / 1e6, s=18)
            ax.annotate(name, (rate / 1e9, per_joule / 1e6), fontsize=7, xytext=(3, 2), textcoords="offset points")
        xs = [p[1] for p in pts]
        lo, hi = min(xs) / 1.5, max(xs) * 1.5
        for watts in (100, 200, 400, 700):
            ax.plot([lo / 1e9, hi / 1e9], [lo / watts / 1e6, hi / watts / 1e6], "--", color="0.8", linewidth=0.8)
            ax.annotate(f"{watts} W", (hi / 1e9, hi / watts / 1e6), fontsize=7, color="0.5")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("Gkeys/s (median sort)")
        ax.set_ylabel("Mkeys/J (batch of back-to-back sorts)")
        ax.set_title(label)
        ax.grid(True, which="both", alpha=0.3)
        table.append(f"\n### {label}\n\n| algorithm | Gkeys/s | Mkeys/J | W | idle W |\n| --- | ---: | ---: | ---: | ---: |")
        for name, rate, per_joule, power, idle in pts:
            table.append(f"| {name} | {rate / 1e9:.3f} | {per_joule / 1e6:.2f} | {power:.0f} | {idle:.0f} |")
    fig.tight_layout()
    fig.savefig(os.path.join(args.output, "energy.png"), dpi=130)
    with open(os.path.join(args.output, "energy.md"), "w", encoding="utf-8") as f:
        f.write("# Keys per second and keys per joule\n" + "\n".join(table) + "\n")
    print(f"energy_plot.py: wrote {args.output}/energy.png and energy.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())

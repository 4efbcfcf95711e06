#!/usr/bin/env python3
"""The distributed sorts' cost model against the committed measurements (issue 15;
docs/distributed.md).

    scripts/dist_model.py results/h200x2 [--figure results/h200x2/figures/scaling.png]

Reads the runs of scripts/dist-bars.sh (hp-keys-g1/g2: n = 2^31, delta = 50, sigma = 50;
uniform-g1/g2: n = 2^31 u32 over [0, 2^32)), calibrates the model's local rates on the G = 1
runs (and the sample sort's merge rate on the G = 2 run's merge phase, which has no G = 1
counterpart), takes the link rates from the issue's NCCL measurements on the same host type,
and prints a Markdown table of prediction beside measurement for G = 1, 2 and predictions for
4 and 8 GPUs on one NVLink host and 4 hosts x 8 GPUs over 400 Gb/s InfiniBand. With
--figure it draws time and keys/s against G: measurements as points, the model as lines,
dashed where it is a prediction only.

The formulas are those of kernels/distributed/dist_cost_model.hpp (predict_dist_hp_s,
predict_sample_sort_s, all_to_all_s, all_reduce_s), which the CPU tests check.
"""
import argparse
import json
import os
import sys

# Link rates measured with NCCL on 2 H200s linked by NVLink (NV18), issue 15: an all-to-all of
# 4 GiB per GPU in 6.37 ms (337 GB/s leaving each GPU); an all-reduce of 1.34 M 4-byte bins in
# 0.054 ms, of which the ring's 2 (G-1)/G share at 337 GB/s is 0.016 ms: ~0.04 ms per collective.
NVLINK_GBS = 337.0
LATENCY_S = 0.04e-3
IB_GBS = 400 / 8  # 400 Gb/s InfiniBand, one NIC per GPU


class Fabric:
    def __init__(self, hosts, gpus_per_host):
        self.hosts, self.gpus_per_host = hosts, gpus_per_host

    @property
    def world(self):
        return self.hosts * self.gpus_per_host

    def label(self):
        return f"{self.hosts} x {self.gpus_per_host}" if self.hosts > 1 else f"{self.gpus_per_host}"


def all_to_all_s(nbytes, f):
    g = f.world
    if g <= 1:
        return 0.0
    in_host = nbytes * (f.gpus_per_host - 1) / g
    off_host = nbytes * (g - f.gpus_per_host) / g
    t_nv = in_host / (NVLINK_GBS * 1e9) if f.gpus_per_host > 1 else 0.0
    t_ib = off_host / (IB_GBS * 1e9) if f.hosts > 1 else 0.0
    return max(t_nv, t_ib) + LATENCY_S


def all_reduce_s(nbytes, f):
    g = f.world
    if g <= 1:
        return 0.0
    gbs = IB_GBS if f.hosts > 1 else NVLINK_GBS
    return 2.0 * (g - 1) / g * nbytes / (gbs * 1e9) + LATENCY_S


def predict_dist_hp_s(n, bins, rates, f):
    return n / f.world / rates["hp"] + all_reduce_s(4.0 * bins, f)


def predict_sample_sort_s(n, key_bytes, rates, f):
    local = n / f.world
    merge = local / rates["merge"] if f.world > 1 else 0.0
    return local / rates["sort"] + all_to_all_s(local * key_bytes, f) + merge


def load(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)["results"]


def row(rows, name):
    for r in rows:
        if r["algorithm"] == name and r["status"] == "ok":
            return r
    return None


def median_s(r):
    return r["time_ms"]["median"] * 1e-3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", help="the folder of scripts/dist-bars.sh's JSON files")
    ap.add_argument("--figure", help="write the scaling figure (PNG) here")
    args = ap.parse_args()
    need = ["hp-keys-g1", "hp-keys-g2", "uniform-g1", "uniform-g2"]
    runs = {}
    for name in need:
        path = os.path.join(args.results, name + ".json")
        if not os.path.exists(path):
            sys.exit(f"dist_model.py: {path} is missing; run scripts/dist-bars.sh {args.results} on a 2-GPU host")
        runs[name] = load(path)

    hp1, hp2 = row(runs["hp-keys-g1"], "dist-hp"), row(runs["hp-keys-g2"], "dist-hp")
    ss1, ss2 = row(runs["uniform-g1"], "dist-sample-sort"), row(runs["uniform-g2"], "dist-sample-sort")
    if not all([hp1, hp2, ss1, ss2]):
        sys.exit("dist_model.py: a dist-hp or dist-sample-sort row is missing or not ok")
    n_hp, n_ss = hp1["input"]["n"], ss1["input"]["n"]
    bins = int(hp1["details"]["histogram_bins"])
    merge_s = max(float(v) for k, v in ss2["details"].items() if k.endswith("_merge_ms")) * 1e-3
    rates = {"hp": n_hp / median_s(hp1), "sort": n_ss / median_s(ss1), "merge": (n_ss / 2) / merge_s}

    fabrics = [Fabric(1, 1), Fabric(1, 2), Fabric(1, 4), Fabric(1, 8), Fabric(4, 8)]
    measured = {("dist-hp", 1): median_s(hp1), ("dist-hp", 2): median_s(hp2),
                ("dist-sample-sort", 1): median_s(ss1), ("dist-sample-sort", 2): median_s(ss2)}
    refs = {"dist-hp": row(runs["hp-keys-g2"], "hp-auto"), "dist-sample-sort": row(runs["uniform-g2"], "cub-radix")}
    print(f"Local rates (G = 1 runs): dist-hp {rates['hp'] / 1e9:.2f} G keys/s, local radix sort "
          f"{rates['sort'] / 1e9:.2f} G keys/s; merge {rates['merge'] / 1e9:.2f} G keys/s (G = 2 merge phase). "
          f"Links: NVLink {NVLINK_GBS:.0f} GB/s per GPU, InfiniBand {IB_GBS:.0f} GB/s per GPU, "
          f"{LATENCY_S * 1e3:.2f} ms per collective.\n")
    print("| GPUs | dist-hp model (ms) | dist-hp measured (ms) | dist-sample-sort model (ms) | "
          "dist-sample-sort measured (ms) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    table = {}
    for f in fabrics:
        hp = predict_dist_hp_s(n_hp, bins, rates, f)
        ss = predict_sample_sort_s(n_ss, 4, rates, f)
        table[f.world] = (hp, ss)
        m_hp = measured.get(("dist-hp", f.world))
        m_ss = measured.get(("dist-sample-sort", f.world))
        fmt = lambda v: f"{v * 1e3:.2f}" if v is not None else "-"
        print(f"| {f.label()} | {hp * 1e3:.2f} | {fmt(m_hp)} | {ss * 1e3:.2f} | {fmt(m_ss)} |")
    for name, ref in refs.items():
        if ref:
            print(f"\nSingle-GPU reference for {name}: {ref['algorithm']} {ref['time_ms']['median']:.2f} ms")

    if args.figure:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        for name, col, n, color in [("dist-hp", 0, n_hp, "tab:blue"), ("dist-sample-sort", 1, n_ss, "tab:orange")]:
            g_all = [f.world for f in fabrics]
            model = [table[g][col] for g in g_all]
            for ax, scale in [(axes[0], lambda t, n=n: t * 1e3), (axes[1], lambda t, n=n: n / t / 1e9)]:
                ax.plot(g_all[:2], [scale(t) for t in model[:2]], "-", color=color, label=f"{name} model")
                ax.plot(g_all[1:], [scale(t) for t in model[1:]], "--", color=color, label=f"{name} model (prediction)")
                gm = [g for g in (1, 2) if (name, g) in measured]
                ax.plot(gm, [scale(measured[(name, g)]) for g in gm], "o", color=color, label=f"{name} measured")
        axes[0].set_ylabel("time (ms, median)")
        axes[1].set_ylabel("G keys/s")
        for ax in axes:
            ax.set_xscale("log", base=2)
            ax.set_xticks([1, 2, 4, 8, 32])
            ax.set_xticklabels(["1", "2", "4", "8", "4x8\nIB"])
            ax.set_xlabel("GPUs")
            ax.grid(alpha=0.3)
        axes[0].set_yscale("log")
        axes[1].legend(fontsize=7)
        fig.suptitle(f"n = 2^31: dist-hp (delta = 50, sigma = 50) and dist-sample-sort (u32 uniform); H200 + NVLink")
        fig.tight_layout()
        os.makedirs(os.path.dirname(os.path.abspath(args.figure)), exist_ok=True)
        fig.savefig(args.figure, dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())

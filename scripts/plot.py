#!/usr/bin/env python3
"""Figures from sweep results (issue 7; docs/sweep.md "Figures").

    scripts/plot.py --spec datasets/hp-6.3.2-duplicates.json results/h200/hp-6.3.2-duplicates.jsonl -o DIR

Reads the results (a sweep's JSONL, or a `sortbench run --json` document; several files are
merged) and draws every figure the spec's "plot" list describes, into DIR:

  kind "lines"   time (ms, median) against an input field, one line per algorithm, one panel
                 per value of the "panels" fields; "highlight" also draws the paper's own
                 panel alone as FILE-main.png; "only" (fnmatch patterns) picks algorithms.
  kind "table"   a table of times against n (the bitonic article's): FILE.png with our lines
                 and the article's numbers dashed, FILE.md with both side by side.
  kind "winner"  for each cell of an x by y grid of input fields (delta by sigma at fixed n),
                 the fastest algorithm and its speed-up over "baseline", as a heat map
                 (FILE.png) and a Markdown table (FILE.md).

Only rows with status "ok" are drawn; labels map algorithm names to the paper's names.
"""
import argparse
import fnmatch
import json
import math
import os
import sys
from collections import OrderedDict, defaultdict


def load_results(path):
    """Rows and context of one result file: a JSON document with "results", or JSON lines."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        doc = json.loads(text)
        if isinstance(doc, dict) and "results" in doc:
            return doc["results"], doc.get("context")
    except json.JSONDecodeError:
        pass
    rows, context = [], None
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            j = json.loads(line)
        except json.JSONDecodeError:
            if number == text.count("\n") + 1:
                continue  # a partial last line: the result in flight when a sweep was killed
            raise SystemExit(f"plot.py: {path}:{number}: not JSON")
        if "context" in j and "algorithm" not in j:
            context = context or j["context"]
            continue
        rows.append(j)
    return rows, context


def requested(row, name):
    """The value the spec asked for (delta 0.5, not the realized 0.4999...), else the derived one."""
    inp = row["input"]
    if name.startswith("param:"):
        return row.get("params", {}).get(name[len("param:"):])
    value = inp.get("requested", {}).get(name)
    if value is None:
        value = inp.get(name)
    return value


def explicitly_requested(row, name):
    if name.startswith("param:"):
        return row.get("params", {}).get(name[len("param:"):])
    return row["input"].get("requested", {}).get(name)


def median_ms(row):
    if row.get("status") != "ok" or not row.get("time_ms"):
        return None
    return row["time_ms"]["median"]


def fmt_value(v):
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, int) and v >= 1024 and v & (v - 1) == 0:
        return f"2^{v.bit_length() - 1}"
    return str(v)


class Labels:
    def __init__(self, figure):
        self.names = figure.get("labels", {})
        self.rule = figure.get("label_rule")

    def __call__(self, algorithm):
        label = self.names.get(algorithm, algorithm)
        if algorithm not in self.names and self.rule == "bitonic-suffix-upper" and algorithm.startswith("bitonic-"):
            label = algorithm[len("bitonic-"):].upper()
        return " " + label if label.startswith("_") else label  # matplotlib hides labels starting with _


def device_name(context):
    if context and context.get("gpu"):
        return context["gpu"].get("name", "")
    if context and context.get("host"):
        return context["host"].get("cpu", "")
    return ""


def algorithm_order(rows):
    order = OrderedDict()
    for r in rows:
        order.setdefault(r["algorithm"], None)
    return list(order)


def color_map(rows):
    """One color per algorithm for a whole figure, so panels missing an algorithm agree."""
    palette = [f"C{i}" for i in range(10)] + ["black", "grey", "olive", "navy", "maroon", "teal", "gold", "indigo"]
    return {a: palette[i % len(palette)] for i, a in enumerate(algorithm_order(rows))}


def draw_lines(ax, rows, x_field, labels, logx=False, logy=False, colors=None):
    series = defaultdict(dict)
    for r in rows:
        t = median_ms(r)
        if t is not None:
            series[r["algorithm"]][requested(r, x_field)] = t
    for algorithm in algorithm_order(rows):
        points = sorted(series.get(algorithm, {}).items())
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3, label=labels(algorithm),
                    color=(colors or {}).get(algorithm))
    ax.set_xlabel(x_field)
    ax.set_ylabel("time (ms)")
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    return len(series)


def panel_title(fields, key):
    return ", ".join(f"{f} = {fmt_value(v)}" for f, v in zip(fields, key))


def selected(figure, rows):
    """The rows of the algorithms the figure's "only" list names (fnmatch patterns), or all."""
    only = figure.get("only")
    if not only:
        return rows
    return [r for r in rows if any(fnmatch.fnmatchcase(r["algorithm"], p) for p in only)]


def plot_lines(plt, figure, rows, context, out_dir):
    rows = selected(figure, rows)
    if not any(median_ms(r) is not None for r in rows):
        print(f"plot.py: {figure['file']}: no timed rows of its algorithms; skipped", file=sys.stderr)
        return []
    x_field = figure.get("x", "n")
    panels = figure.get("panels", [])
    labels = Labels(figure)
    groups = OrderedDict()
    for r in sorted(rows, key=lambda r: tuple(requested(r, f) for f in panels)):
        groups.setdefault(tuple(requested(r, f) for f in panels), []).append(r)
    if len(panels) == 2:
        firsts = list(OrderedDict.fromkeys(k[0] for k in groups))
        seconds = list(OrderedDict.fromkeys(k[1] for k in groups))
        nrows, ncols = len(firsts), len(seconds)
        position = {k: (firsts.index(k[0]), seconds.index(k[1])) for k in groups}
    else:
        ncols = min(3, len(groups))
        nrows = math.ceil(len(groups) / ncols)
        position = {k: divmod(i, ncols) for i, k in enumerate(groups)}
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.2 * nrows), squeeze=False)
    colors = color_map(rows)
    for key, group in groups.items():
        ax = axes[position[key]]
        draw_lines(ax, group, x_field, labels, figure.get("logx", False), figure.get("logy", False), colors)
        if panels:
            ax.set_title(panel_title(panels, key), fontsize=9)
    for ax in axes.flat:
        if not ax.has_data():
            ax.set_visible(False)
    handles, names = [], []
    for ax in axes.flat:
        for h, n in zip(*ax.get_legend_handles_labels()):
            if n not in names:
                handles.append(h)
                names.append(n)
    height = 3.2 * nrows
    legend_rows = math.ceil(len(names) / 4)
    bottom = (0.3 + 0.25 * legend_rows) / height
    fig.legend(handles, names, loc="lower center", ncol=min(4, max(1, len(names))), fontsize=8)
    fig.suptitle(f"{figure.get('title', '')} [{device_name(context)}]", fontsize=11)
    fig.tight_layout(rect=(0, bottom, 1, 1 - 0.1 / nrows))
    written = [save(plt, fig, out_dir, figure["file"] + ".png")]
    if "highlight" in figure:
        want = figure["highlight"]
        chosen = [r for r in rows if all(close(requested(r, f), v) for f, v in want.items())]
        if chosen:
            fig, ax = plt.subplots(figsize=(6, 4))
            draw_lines(ax, chosen, x_field, labels, figure.get("logx", False), figure.get("logy", False), colors)
            ax.legend(fontsize=8)
            ax.set_title(f"{figure.get('title', '')}: {panel_title(list(want), list(want.values()))}\n"
                         f"[{device_name(context)}]", fontsize=10)
            fig.tight_layout()
            written.append(save(plt, fig, out_dir, figure["file"] + "-main.png"))
    return written


def close(a, b):
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9)
    except (TypeError, ValueError):
        return a == b


def plot_table(plt, figure, rows, context, out_dir):
    labels = Labels(figure)
    reference = figure.get("reference", {})
    ref_n = reference.get("n", [])
    ref_cols = reference.get("columns", {})
    times = defaultdict(dict)  # label -> n -> ms
    for r in rows:
        t = median_ms(r)
        if t is not None:
            times[labels(r["algorithm"])][r["input"]["n"]] = t
    ours = [labels(a) for a in algorithm_order(rows) if labels(a) in times]
    fig, ax = plt.subplots(figsize=(8, 5))
    colors = {}
    for label in ours:
        points = sorted(times[label].items())
        line, = ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3, label=label)
        colors[label] = line.get_color()
    for label, values in ref_cols.items():
        ax.plot(ref_n, values, linestyle="--", color=colors.get(label, "grey"), alpha=0.6,
                label=f"{label} ({reference.get('source', 'reference')})" if label not in colors else None)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel("time (ms)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title(f"{figure.get('title', '')} [{device_name(context)}]\ndashed: {reference.get('source', '')}",
                 fontsize=10)
    fig.tight_layout()
    written = [save(plt, fig, out_dir, figure["file"] + ".png")]

    all_n = sorted({n for label in times for n in times[label]} | set(ref_n))
    columns = ours + [c for c in ref_cols if c not in ours]
    lines = [f"{figure.get('title', '')}: median ms on {device_name(context)}"
             + (f" / {reference['source']}" if reference else "") + "\n",
             "| n | " + " | ".join(columns) + " |",
             "| --- |" + " --- |" * len(columns)]
    for n in all_n:
        cells = []
        for c in columns:
            mine = times.get(c, {}).get(n)
            text = f"{mine:.4g}" if mine is not None else "-"
            if c in ref_cols and n in ref_n:
                text += f" / {ref_cols[c][ref_n.index(n)]}"
            cells.append(text)
        lines.append(f"| {fmt_value(n)} | " + " | ".join(cells) + " |")
    written.append(write_text(out_dir, figure["file"] + ".md", "\n".join(lines) + "\n"))
    return written


def plot_winner(plt, figure, rows, context, out_dir):
    x_field, y_field = figure["x"], figure["y"]
    baseline = figure.get("baseline", "cub-radix-bits")
    cells = defaultdict(dict)  # (x, y) -> algorithm -> ms
    for r in rows:
        x, y = explicitly_requested(r, x_field), explicitly_requested(r, y_field)
        t = median_ms(r)
        if x is None or y is None or t is None:
            continue
        cells[(x, y)][r["algorithm"]] = t
    if not cells:
        raise SystemExit(f"plot.py: no timed rows with both {x_field} and {y_field} requested")
    xs = sorted({k[0] for k in cells})
    ys = sorted({k[1] for k in cells})
    import numpy as np
    grid = np.full((len(ys), len(xs)), np.nan)
    notes = {}
    for (x, y), by_algo in cells.items():
        best = min(by_algo, key=by_algo.get)
        ratio = by_algo[baseline] / by_algo[best] if baseline in by_algo else float("nan")
        grid[ys.index(y), xs.index(x)] = ratio
        notes[(x, y)] = (best, ratio)
    fig, ax = plt.subplots(figsize=(1.5 * len(xs) + 2, 1.0 * len(ys) + 1.5))
    finite = grid[np.isfinite(grid)]
    top = max(2.0, float(finite.max())) if finite.size else 2.0
    from matplotlib.colors import LogNorm
    image = ax.imshow(grid, origin="lower", cmap="viridis", norm=LogNorm(vmin=1.0, vmax=top), aspect="auto")
    for (x, y), (best, ratio) in notes.items():
        text = f"{best}\n{ratio:.2f}x" if math.isfinite(ratio) else best
        ax.text(xs.index(x), ys.index(y), text, ha="center", va="center", fontsize=7, color="black",
                bbox={"facecolor": "white", "alpha": 0.7, "edgecolor": "none", "pad": 1})
    ax.set_xticks(range(len(xs)), [fmt_value(v) for v in xs])
    ax.set_yticks(range(len(ys)), [fmt_value(v) for v in ys])
    ax.set_xlabel(x_field)
    ax.set_ylabel(y_field)
    fig.colorbar(image, ax=ax, label=f"speed-up of the fastest over {baseline}")
    ax.set_title(f"{figure.get('title', '')} [{device_name(context)}]", fontsize=10)
    fig.tight_layout()
    written = [save(plt, fig, out_dir, figure["file"] + ".png")]
    lines = [f"{figure.get('title', '')}: fastest algorithm and its speed-up over {baseline} "
             f"on {device_name(context)}\n",
             f"| {y_field} \\ {x_field} | " + " | ".join(fmt_value(x) for x in xs) + " |",
             "| --- |" + " --- |" * len(xs)]
    for y in ys:
        row = []
        for x in xs:
            if (x, y) in notes:
                best, ratio = notes[(x, y)]
                row.append(f"{best} ({ratio:.2f}x)" if math.isfinite(ratio) else best)
            else:
                row.append("-")
        lines.append(f"| {fmt_value(y)} | " + " | ".join(row) + " |")
    written.append(write_text(out_dir, figure["file"] + ".md", "\n".join(lines) + "\n"))
    return written


def save(plt, fig, out_dir, name):
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def write_text(out_dir, name, text):
    path = os.path.join(out_dir, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


KINDS = {"lines": plot_lines, "table": plot_table, "winner": plot_winner}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     allow_abbrev=False)
    parser.add_argument("--spec", required=True, help="the sweep spec whose \"plot\" list describes the figures")
    parser.add_argument("results", nargs="+", help="sweep JSONL or run JSON files")
    parser.add_argument("-o", "--output", required=True, help="folder for the PNG and Markdown files")
    args = parser.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("plot.py: matplotlib is missing; install python3-matplotlib (scripts/setup.sh does)")
    with open(args.spec, encoding="utf-8") as f:
        spec = json.load(f)
    figures = spec.get("plot", [])
    if isinstance(figures, dict):
        figures = [figures]
    if not figures:
        raise SystemExit(f"plot.py: {args.spec} has no \"plot\" list")
    rows, context = [], None
    for path in args.results:
        r, c = load_results(path)
        rows += r
        context = context or c
    # A result run twice (a merged rerun) counts once, the last one.
    unique = OrderedDict()
    for r in rows:
        unique[(r["algorithm"], r.get("row_key") or json.dumps(r["input"], sort_keys=True))] = r
    rows = list(unique.values())
    if not rows:
        raise SystemExit("plot.py: no results in " + ", ".join(args.results))
    os.makedirs(args.output, exist_ok=True)
    for figure in figures:
        kind = figure.get("kind")
        if kind not in KINDS:
            raise SystemExit(f"plot.py: {args.spec}: plot kind {kind!r} is not one of {', '.join(KINDS)}")
        for path in KINDS[kind](plt, figure, rows, context, args.output):
            print(path)


if __name__ == "__main__":
    main(sys.argv[1:])

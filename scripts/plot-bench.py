#!/usr/bin/env python3
"""The README's plot and summary table, drawn from the measurements.csv of published runs.

    scripts/plot-bench.py [-o docs/benchmarks/invar-vs-best-peer.svg] RUN [RUN ...]
    scripts/plot-bench.py --table RUN [RUN ...]

RUN is a published run folder (docs/benchmarks/<date>-<cpu>/, as scripts/bench.sh --publish
writes it). For each run and thread count the plot shows invar's median GFLOP/s divided by the
best peer's (the fastest other library at the same shape and thread count in that run) on the
f32 squares 128^3-4096^3; 1.0 is parity. --table prints, instead, a markdown table of the same
ratios at a few headline shapes, one column per run and thread count.

"invar" is the run's first invar row in its peer tables (invar-avx512, or invar-avx2 on a CPU
without AVX-512), as in the run's summary.md; a shape with "-packed" uses invar's row over the
weight packed once. Nothing is measured here: every number comes from the files.
Needs matplotlib for the plot (PyPI's, or Debian's python3-matplotlib).
"""
import argparse
import csv
import os
import re
import sys

# Headline shapes of the table: (label, shape in measurements.csv, invar row suffix).
TABLE_SHAPES = [
    ("f32 1024³", "1024^3", ""),
    ("f32 4096³", "4096^3", ""),
    ("f32 decode, x·Wᵀ 1×4096×4096", "1x4096x4096 B^T", ""),
    ("f32 decode, W packed once", "1x4096x4096 B^T", "-packed"),
    ("f32 prefill, x·Wᵀ 256×4096×4096", "256x4096x4096 B^T", ""),
    ("f32 tall-skinny 4096×4096×64", "4096x4096x64", ""),
    ("f64 1024³", "f64 1024^3", ""),
    ("bf16 A, B, f32 C 1024³", "bf16 1024^3", ""),
    ("int8 u8×s8→s32 1024³", "u8s8 1024^3", ""),
]


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def usable(r):
    return not r["check"].startswith("error") and float(r["median_gflops"]) > 0


def machine_name(folder):
    """'Intel Xeon, AVX-512' from machine.csv: the brand, the AMD core generation from the folder
    name bench_publish.py gave it, and the widest vector path the run measured."""
    m = {r["metric"]: r["value"] for r in read_rows(os.path.join(folder, "machine.csv"))}
    brand = re.sub(r"\((R|TM)\)|\bProcessor\b|CPU @.*", "", m.get("cpu_brand", "CPU"))
    brand = " ".join(brand.split())
    generation = re.search(r"-(zen\d*)$", os.path.basename(os.path.normpath(folder)))
    if generation:
        brand += " " + generation.group(1).capitalize().replace("Zen", "Zen ")
    avx512 = float(m.get("fma_peak_avx512_start") or 0) > 0
    return f"{brand}, {'AVX-512' if avx512 else 'AVX2'}"


class Run:
    def __init__(self, folder):
        self.folder = folder
        self.date = os.path.basename(os.path.normpath(folder))[:8]
        self.name = machine_name(folder)
        self.rows = [r for r in read_rows(os.path.join(folder, "measurements.csv")) if usable(r)]
        names = [r["row"] for r in self.rows
                 if r["is_invar"] == "1" and r["peer_table"] == "1"
                 and not r["row"].endswith("-packed") and r["row"] != "invar-generic"]
        if not names:
            sys.exit(f"plot-bench: {folder} has no invar row in its peer tables")
        self.invar = names[0]
        self.threads = sorted({int(r["requested_threads"]) for r in self.rows})

    def ratio(self, shape, threads, suffix=""):
        """invar's median GFLOP/s ÷ the best peer's at this shape and thread count, or None."""
        def at(r):
            return r["shape"] == shape and int(r["requested_threads"]) == threads
        mine = [float(r["median_gflops"]) for r in self.rows
                if at(r) and r["row"] == self.invar + suffix]
        peers = [float(r["median_gflops"]) for r in self.rows
                 if at(r) and r["is_invar"] == "0" and r["peer_table"] == "1"]
        if not mine or not peers:
            return None
        return mine[0] / max(peers)


def squares(run):
    sizes = sorted({int(r["m"]) for r in run.rows
                    if r["op"] == "f32" and r["small"] == "0" and re.fullmatch(r"\d+\^3", r["shape"])})
    return [n for n in sizes if n >= 128]


def table(runs):
    head = "| shape |" + "".join(
        f" {run.name}<br>{t} thread{'s' if t > 1 else ''} |" for run in runs for t in run.threads)
    lines = [head, "|---|" + "---:|" * sum(len(run.threads) for run in runs)]
    for label, shape, suffix in TABLE_SHAPES:
        cells = []
        for run in runs:
            for t in run.threads:
                r = run.ratio(shape, t, suffix)
                cells.append("—" if r is None else f"{r:.2f}")
        if any(c != "—" for c in cells):
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(runs, out):
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "invar"  # the same file from the same data
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#17becf"]
    styles = {1: ("-", "o"), 2: ("--", "s")}
    fig, ax = plt.subplots(figsize=(8, 4.5))
    all_sizes = set()
    for i, run in enumerate(runs):
        sizes = squares(run)
        all_sizes.update(sizes)
        for t in run.threads:
            pts = [(n, run.ratio(f"{n}^3", t)) for n in sizes]
            pts = [(n, r) for n, r in pts if r is not None]
            if not pts:
                continue
            line, marker = styles.get(t, (":", "^"))
            ax.plot([n for n, _ in pts], [r for _, r in pts], line, marker=marker,
                    color=colors[i % len(colors)], markersize=4,
                    label=f"{run.name}, {run.date} ({run.invar}), {t} thread{'s' if t > 1 else ''}")
    ax.axhline(1.0, color="#d62728", linewidth=1)
    ax.set_xscale("log", base=2)
    ticks = sorted(n for n in all_sizes if n != 1000)  # 1000 sits beside 1024: no label
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([str(n) for n in ticks])
    ax.set_xlabel("f32 square size n (n × n × n)")
    ax.set_ylabel("invar ÷ best peer (median GFLOP/s)")
    ax.set_title("invar against the fastest other library at each size and thread count",
                 fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(out, metadata={"Date": None} if out.endswith(".svg") else None)
    print(f"plot-bench: wrote {out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", help="published run folders")
    parser.add_argument("-o", "--output", default="docs/benchmarks/invar-vs-best-peer.svg")
    parser.add_argument("--table", action="store_true", help="print the markdown table instead")
    a = parser.parse_args()
    runs = [Run(folder) for folder in a.runs]
    if a.table:
        print(table(runs))
    else:
        plot(runs, a.output)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Plots of one invar_bench run, drawn from its measurements.csv and machine.csv.

    scripts/bench_plot.py results/<timestamp>

writes into that folder, for what the run measured:
  ladder.png     the optimization ladder on squares: plain loops up to invar on every thread,
                 median GFLOP/s against size (log x, linear y), with the measured FMA peak
  squares.png    invar against the peer libraries on squares from 64 up, median GFLOP/s against
                 size, one panel per thread count
  small.png      small squares: calls per second against size (log-log)
  squares_f64.png  the same for f64 squares, against the f64 FMA peak
  inference.png  the inference shapes M x 4096 x 4096 (x * W^T with W stored N x K, when the run
                 has them, else B row-major K x N): GFLOP/s against M with the roofline, one
                 panel per thread count
and adds links to them in report.md (a "Plots" section, replaced when run again) and the
squares plot to summary.md.
Needs matplotlib (scripts/bench_peers_setup.sh installs it into .venv-bench).
"""
import csv
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, NullLocator  # noqa: E402

INFERENCE_NK = (4096, 4096)
# Qualitative colors (matplotlib's tab10 without its red, which marks invar in comparisons).
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#7f7f7f", "#bcbd22"]
PEER_COLORS = PALETTE
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LADDER_LABELS = {
    1: "naive i-j-k loop",
    2: "i-k-j loop (compiler-vectorized)",
    3: "cache-blocked i-k-j loop",
    4: "invar portable path",
    5: "invar SIMD path, 1 thread",
    6: "invar SIMD path, all threads",
}


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def usable(r):
    return not r["check"].startswith("error") and float(r["median_gflops"]) > 0


def machine_values(path):
    """Numbers as floats; text (CPU brand, thread list, timestamp) as it is."""
    values = {}
    for r in read_rows(path):
        try:
            values[r["metric"]] = float(r["value"] or 0)
        except ValueError:
            values[r["metric"]] = r["value"]
    return values


def one_core_peak(machine):
    """The widest vector width's FMA peak of one core, the larger of start and end."""
    avx2 = max(machine.get("fma_peak_avx2_start", 0), machine.get("fma_peak_avx2_end", 0))
    avx512 = max(machine.get("fma_peak_avx512_start", 0), machine.get("fma_peak_avx512_end", 0))
    return max(avx2, avx512)


def threads_of(r):
    """The thread count the row was asked for (older files: the one it reported)."""
    return int(r.get("requested_threads") or r["threads"])


def series(rows, name, key, x_of, keep, threads=None):
    pts = sorted((x_of(r), float(r[key])) for r in rows
                 if r["row"] == name and keep(r) and (threads is None or threads_of(r) == threads))
    return [p[0] for p in pts], [p[1] for p in pts]


def thread_counts(rows, keep):
    return sorted({threads_of(r) for r in rows if keep(r)})


def is_square(r):
    return r["m"] == r["n"] == r["k"]


def size_axis(ax, sizes, label):
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sizes))
    ax.xaxis.set_minor_locator(NullLocator())
    # Sizes between powers of two (1000, 1531) get their label a line lower, clear of 1024's.
    ax.set_xticklabels([str(s) if s & (s - 1) == 0 else f"\n{s}" for s in sizes])
    ax.set_xlabel(label)
    ax.grid(True, which="major", alpha=0.3)


def peak_lines(ax, peak, threads):
    if peak <= 0:
        return
    ax.axhline(peak, color="black", linestyle="--", linewidth=1.2)
    ax.annotate(f"FMA peak, 1 core: {peak:.0f} GFLOP/s", (0.01, peak), xycoords=("axes fraction",
                "data"), xytext=(0, 3), textcoords="offset points", fontsize=9)
    if threads > 1:
        ax.axhline(peak * threads, color="grey", linestyle=":", linewidth=1.2)
        ax.annotate(f"FMA peak x {threads} threads: {peak * threads:.0f}", (0.01, peak * threads),
                    xycoords=("axes fraction", "data"), xytext=(0, 3), textcoords="offset points",
                    fontsize=9, color="grey")


def title(fig, text, machine_line):
    fig.suptitle(text, fontsize=12, fontweight="bold")
    fig.text(0.5, 0.005, machine_line, ha="center", va="bottom", fontsize=8, color="dimgrey")


def plot_ladder(rows, peak, machine_line, out):
    steps = {}
    for r in rows:
        step = int(r.get("ladder_step") or 0)
        if step > 0 and is_square(r) and usable(r):
            steps[step] = (r["row"], threads_of(r))
    if not steps:
        return None
    sizes = sorted({int(r["m"]) for r in rows if is_square(r)})
    max_threads = max(t for _, t in steps.values())
    # Left: the required linear scale; right: the same on a log scale, where the low steps
    # (a few GFLOP/s or less) can be read.
    fig, (lin, log) = plt.subplots(1, 2, figsize=(13, 6.2), gridspec_kw={"width_ratios": [3, 2]})
    top = 0.0
    for i, step in enumerate(sorted(steps)):
        name, threads = steps[step]
        xs, ys = series(rows, name, "median_gflops", lambda r: int(r["m"]),
                        lambda r: is_square(r) and usable(r), threads)
        kw = {"marker": MARKERS[i % len(MARKERS)], "color": PALETTE[i % len(PALETTE)],
              "linewidth": 2, "markersize": 7}
        lin.plot(xs, ys, label=f"{step}. {LADDER_LABELS.get(step, name)} ({name}, {threads} thr)",
                 **kw)
        log.plot(xs, ys, **kw)
        top = max(top, max(ys))
    for ax in (lin, log):
        peak_lines(ax, peak, max_threads)
        size_axis(ax, sizes, "N (square N x N x N, f32)")
        ax.set_ylabel("GFLOP/s (median call)")
    lin.set_ylim(0, max(top, peak * max_threads) * 1.08)
    lin.set_title("linear scale")
    log.set_yscale("log")
    log.set_ylim(min(0.3, lin.get_ylim()[1]), max(top, peak * max_threads) * 1.5)
    log.set_title("the same, log scale")
    fig.legend(loc="lower center", ncol=3, fontsize=9, frameon=False, bbox_to_anchor=(0.5, 0.035))
    title(fig, "Optimization ladder: C = A * B, squares", machine_line)
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def comparison_rows(rows):
    """Rows of the invar-against-peers tables, without invar's slow portable path."""
    names = []
    for r in rows:
        if r.get("peer_table", "1") == "1" and r["row"] != "invar-generic" and r["row"] not in names:
            names.append(r["row"])
    return names


def styles(names):
    """invar bold and crimson; each peer its own color and marker."""
    out, peer = {}, 0
    for name in names:
        if name.startswith("invar") and name.endswith("-packed"):
            out[name] = {"linewidth": 2.4, "marker": "s", "color": "darkred", "linestyle": "--",
                         "zorder": 5}
        elif name.startswith("invar"):
            out[name] = {"linewidth": 3.2, "marker": "o", "color": "crimson", "zorder": 5}
        else:
            out[name] = {"linewidth": 1.6, "marker": MARKERS[peer % len(MARKERS)],
                         "color": PEER_COLORS[peer % len(PEER_COLORS)], "zorder": 3}
            peer += 1
    return out


def op_of(r):
    """The kind of product (older files: f32 only)."""
    return r.get("op") or "f32"


def plot_squares(rows, peak, machine_line, out, kind="f32"):
    def keep(r):
        return is_square(r) and int(r["m"]) >= 64 and usable(r)

    names = [n for n in comparison_rows(rows) if any(r["row"] == n and keep(r) for r in rows)]
    counts = thread_counts(rows, keep)
    if not names or not counts:
        return None
    sizes = sorted({int(r["m"]) for r in rows if keep(r)})
    fig, axes = plt.subplots(1, len(counts), figsize=(7.5 * len(counts), 6), squeeze=False)
    style = styles(names)
    for ax, threads in zip(axes[0], counts):
        for name in names:
            xs, ys = series(rows, name, "median_gflops", lambda r: int(r["m"]), keep, threads)
            if xs:
                ax.plot(xs, ys, label=name, **style[name])
        peak_lines(ax, peak, threads)
        size_axis(ax, sizes, f"N (square N x N x N, {kind})")
        ax.set_ylim(0, peak * threads * 1.1 if peak > 0 else None)
        ax.set_ylabel("GFLOP/s (median call)")
        ax.set_title(f"{threads} thread{'s' if threads > 1 else ''}")
        ax.legend(loc="lower right", fontsize=9, ncol=2, framealpha=0.9)
    title(fig, f"invar against peer libraries, squares{'' if kind == 'f32' else ', ' + kind}",
          machine_line)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_small(rows, machine_line, out):
    def keep(r):
        return r.get("small") == "1" and usable(r)

    names = [n for n in comparison_rows(rows) if any(r["row"] == n and keep(r) for r in rows)]
    if not names:
        return None
    sizes = sorted({int(r["m"]) for r in rows if keep(r)})
    fig, ax = plt.subplots(figsize=(9, 6))
    style = styles(names)
    for name in names:
        xs, ys = series(rows, name, "median_calls_per_s", lambda r: int(r["m"]), keep)
        ax.plot(xs, ys, label=name, **style[name])
    size_axis(ax, sizes, "N (square N x N x N, f32)")
    ax.set_yscale("log")
    ax.set_ylabel("calls per second (median, batches of back-to-back calls)")
    ax.legend(loc="upper right", fontsize=9, ncol=2, framealpha=0.9)
    threads = thread_counts(rows, keep)
    title(fig, f"Small squares, {threads[0] if threads else 1} thread", machine_line)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_inference(rows, machine_line, out, bt=False):
    def keep(r):
        return (int(r["n"]), int(r["k"])) == INFERENCE_NK and not is_square(r) and usable(r)

    names = [n for n in comparison_rows(rows) if any(r["row"] == n and keep(r) for r in rows)]
    counts = thread_counts(rows, keep)
    if not names or not counts:
        return None
    ms = sorted({int(r["m"]) for r in rows if keep(r)})
    fig, axes = plt.subplots(1, len(counts), figsize=(6.5 * len(counts), 5.5), squeeze=False)
    style = styles(names)
    for ax, threads in zip(axes[0], counts):
        for name in names:
            xs, ys = series(rows, name, "median_gflops", lambda r: int(r["m"]), keep, threads)
            if xs:
                ax.plot(xs, ys, label=name, **style[name])
        roof = {}
        for r in rows:
            if keep(r) and threads_of(r) == threads:
                roof[int(r["m"])] = max(roof.get(int(r["m"]), 0.0), float(r["roof_gflops"]))
        if roof:
            xs = sorted(roof)
            ax.plot(xs, [roof[x] for x in xs], color="black", linestyle="--", linewidth=1.2,
                    label="roof: min(FMA peak, read bandwidth x intensity)")
        ax.set_yscale("log")
        ax.set_ylabel("GFLOP/s (median call, log scale)")
        size_axis(ax, ms, "M (rows of A and C); W is a 4096 x 4096 f32 weight stored N x K, used "
                  "transposed" if bt else
                  "M (rows of A and C); B is a row-major 4096 x 4096 f32 weight")
        ax.legend(loc="lower right", fontsize=8, ncol=2, framealpha=0.9)
        ax.set_title(f"{threads} thread{'s' if threads > 1 else ''}")
    title(fig, "Inference shapes: C (M x 4096) = A (M x 4096) * W^T (W 4096 x 4096)" if bt else
          "Inference shapes: C (M x 4096) = A (M x 4096) * B (4096 x 4096)", machine_line)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def link_plots(report, pngs):
    """Puts a Plots section after the report's opening lines, replacing an earlier one."""
    if not os.path.exists(report) or not pngs:
        return
    with open(report) as f:
        text = f.read()
    text = re.sub(r"<!-- plots -->.*?<!-- /plots -->\n\n", "", text, flags=re.S)
    section = "<!-- plots -->\n## Plots\n\n" + "".join(
        f"![{name}]({name})\n\n" for name in pngs) + "<!-- /plots -->\n\n"
    at = text.find("\n## ")
    text = text + "\n" + section if at < 0 else text[:at + 1] + section + text[at + 1:]
    with open(report, "w") as f:
        f.write(text)


def link_summary(summary, pngs):
    """Puts the squares plot at the end of summary.md, replacing an earlier one."""
    if not os.path.exists(summary) or "squares.png" not in pngs:
        return
    with open(summary) as f:
        text = f.read()
    text = re.sub(r"\n<!-- plots -->.*?<!-- /plots -->\n", "", text, flags=re.S)
    text += ("\n<!-- plots -->\n![invar against the peers on squares, per thread count]"
             "(squares.png)\n<!-- /plots -->\n")
    with open(summary, "w") as f:
        f.write(text)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench_plot.py RESULTS_DIR")
    folder = sys.argv[1]
    rows = read_rows(os.path.join(folder, "measurements.csv"))
    machine = machine_values(os.path.join(folder, "machine.csv"))
    peak = one_core_peak(machine)
    bandwidth = max(machine.get("mem_read_bandwidth_start", 0),
                    machine.get("mem_read_bandwidth_end", 0))
    machine_line = (f"{os.path.basename(os.path.normpath(folder))}: FMA peak {peak:.1f} GFLOP/s "
                    f"per core, read bandwidth {bandwidth:.1f} GB/s, both measured in the run")
    peak_f64 = max(machine.get("fma_peak_avx2_f64_start", 0), machine.get("fma_peak_avx2_f64_end", 0),
                   machine.get("fma_peak_avx512_f64_start", 0),
                   machine.get("fma_peak_avx512_f64_end", 0))
    by_op = {}
    for r in rows:
        by_op.setdefault(op_of(r), []).append(r)
    f32 = by_op.get("f32", [])
    bt = "f32-bt" in by_op
    made = []
    for name, draw in (
            ("ladder.png", lambda p: plot_ladder(f32, peak, machine_line, p)),
            ("squares.png", lambda p: plot_squares(f32, peak, machine_line, p)),
            ("squares_f64.png", lambda p: plot_squares(by_op.get("f64", []), peak_f64,
                                                       machine_line, p, "f64")),
            ("small.png", lambda p: plot_small(f32, machine_line, p)),
            ("inference.png", lambda p: plot_inference(by_op["f32-bt"] if bt else f32,
                                                       machine_line, p, bt))):
        if draw(os.path.join(folder, name)):
            made.append(name)
            print(f"plot: {os.path.join(folder, name)}")
        else:
            print(f"plot: {name} skipped (no such measurements in this run)")
    link_plots(os.path.join(folder, "report.md"), made)
    link_summary(os.path.join(folder, "summary.md"), made)


if __name__ == "__main__":
    main()

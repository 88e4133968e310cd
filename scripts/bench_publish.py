#!/usr/bin/env python3
"""Publishes one invar_bench run: the results folder goes to docs/benchmarks/<date>-<cpu>/ and the
README's benchmark section is rewritten from its summary.md.

    scripts/bench_publish.py results/<timestamp> [--readme README.md] [--docs docs/benchmarks]

<cpu> comes from the run's machine.csv: the CPU brand, and for AMD CPUs the core generation read
from the CPUID family and model (e.g. "amd-epyc-zen3"). The README keeps everything outside the
marker comments <!-- bench:begin --> and <!-- bench:end -->; between them goes summary.md (the
table of invar against the best peer per shape and thread count, and the squares plot), with its
links pointing into the published folder, then a link to the full report.
"""
import argparse
import csv
import os
import re
import shutil
import sys

BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
FILES = re.compile(r"(report\.md|summary\.md|.*\.csv|.*\.png)$")


def machine(folder):
    with open(os.path.join(folder, "machine.csv"), newline="") as f:
        return {r["metric"]: r["value"] for r in csv.DictReader(f)}


def amd_generation(family, model):
    if family == 0x17:
        return "zen2" if model >= 0x30 else "zen"
    if family == 0x19:
        return "zen4" if 0x10 <= model <= 0x1f or 0x60 <= model <= 0xaf else "zen3"
    if family == 0x1a:
        return "zen5"
    return ""


def cpu_slug(m):
    brand = m.get("cpu_brand", "cpu")
    slug = re.sub(r"[^a-z0-9]+", "-", re.sub(r"\(r\)|\(tm\)|processor|cpu @.*", "", brand.lower()))
    slug = slug.strip("-") or "cpu"
    family, model = int(m.get("cpu_family") or 0), int(m.get("cpu_model") or 0)
    generation = amd_generation(family, model) if slug.startswith("amd") else ""
    if generation and generation not in slug:
        slug += "-" + generation
    return slug


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results")
    parser.add_argument("--readme", default="README.md")
    parser.add_argument("--docs", default="docs/benchmarks")
    a = parser.parse_args()
    m = machine(a.results)
    stamp = m.get("timestamp") or os.path.basename(os.path.normpath(a.results))
    name = f"{stamp[:8]}-{cpu_slug(m)}"
    dest = os.path.join(a.docs, name)
    # A day's folder may also hold the blocking sweep of a separate --sweep run: a run without a
    # sweep replaces everything else and keeps those files.
    sweep = re.compile(r"blocking_sweep")
    run_has_sweep = any(sweep.match(e) for e in os.listdir(a.results))
    os.makedirs(dest, exist_ok=True)
    for entry in os.listdir(dest):
        if sweep.match(entry) and not run_has_sweep:
            continue
        path = os.path.join(dest, entry)
        if os.path.isdir(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    for entry in sorted(os.listdir(a.results)):
        if FILES.match(entry):
            shutil.copy2(os.path.join(a.results, entry), dest)
    with open(os.path.join(dest, "summary.md")) as f:
        summary = f.read().strip()
    # Relative links of the summary point into the published folder.
    summary = re.sub(r"\]\((?![a-z]+:|/|#)([^)]+)\)", lambda g: f"]({dest}/{g.group(1)})", summary)
    section = (f"{BEGIN}\n<!-- written by scripts/bench_publish.py from {dest}/summary.md -->\n\n"
               f"{summary}\n\nFull report (every row, % of peak, the ladder, checks, rows and "
               f"versions): [{dest}/report.md]({dest}/report.md).\n{END}")
    with open(a.readme) as f:
        readme = f.read()
    if BEGIN not in readme or END not in readme:
        sys.exit(f"bench_publish: {a.readme} has no {BEGIN} ... {END} section")
    readme = re.sub(re.escape(BEGIN) + r".*?" + re.escape(END), lambda _: section, readme,
                    flags=re.S)
    with open(a.readme, "w") as f:
        f.write(readme)
    print(f"published: {dest}/ and the {a.readme} section between {BEGIN} and {END}")


if __name__ == "__main__":
    main()

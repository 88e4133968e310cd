#!/usr/bin/env bash
# Benchmarks invar's f32 GEMM against the other BLAS libraries on this machine, 1 thread each,
# with the optimization ladder (plain loops up to invar on every thread) in the same run:
#   scripts/bench.sh            squares 256..4096, inference shapes M x 4096 x 4096 (M = 1, 16,
#                               64, 256) and 1 x 16384 x 4096 (10-15 min on 2 cores)
#   scripts/bench.sh --quick    squares 256..2048, shorter measurements (about 1 min once built)
#   scripts/bench.sh --sweep    only the cache-blocking sweep: the model's blocks against a grid of
#                               fixed ones, 1024^3..4096^3 (about 3 min; with --quick, no 4096)
# Other arguments go to invar_bench (e.g. --sizes 512,1024; build/bench/bench/invar_bench --help).
# Installs what it needs (scripts/bench_peers_setup.sh), builds build/bench (Release), runs, draws
# the plots (scripts/bench_plot.py) and prints the results folder results/<timestamp>/
# (report.md, measurements.csv, machine.csv, the PNGs; blocking_sweep*.csv for a sweep).
set -euo pipefail
cd "$(dirname "$0")/.."

args=()
for arg in "$@"; do
  if [[ $arg == --sweep ]]; then args+=(--sweep-only); else args+=("$arg"); fi
done

peer_args_file=$(mktemp)
trap 'rm -f "$peer_args_file"' EXIT
scripts/bench_peers_setup.sh >"$peer_args_file"
mapfile -t peer_args <"$peer_args_file"

cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DINVAR_BUILD_BENCH=ON \
  -DINVAR_BUILD_TESTS=OFF -DINVAR_BUILD_TOOLS=OFF >/dev/null
nice -n 10 cmake --build build/bench -j "$(nproc)" --target invar_bench

out="results/$(date +%Y%m%d-%H%M%S)"
status=0
build/bench/bench/invar_bench "${peer_args[@]}" --out "$out" "${args[@]}" || status=$?

if [[ -f $out/measurements.csv ]]; then
  if .venv-bench/bin/python -c 'import matplotlib' 2>/dev/null; then
    .venv-bench/bin/python scripts/bench_plot.py "$out" || echo "bench: plotting failed" >&2
  else
    echo "bench: matplotlib is not in .venv-bench, no plots" >&2
  fi
fi
exit "$status"

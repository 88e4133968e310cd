#!/usr/bin/env bash
# Benchmarks invar's f32 GEMM against the other BLAS libraries on this machine, 1 thread each:
#   scripts/bench.sh            squares 256..4096 and one M = 1 shape (5-10 min on 2 cores)
#   scripts/bench.sh --quick    squares 256..2048, shorter measurements (about 2 min)
# Other arguments go to invar_bench (e.g. --sizes 512,1024; build/bench/bench/invar_bench --help).
# Installs what it needs (scripts/bench_peers_setup.sh), builds build/bench (Release), runs, and
# prints the results folder results/<timestamp>/ (report.md, measurements.csv, machine.csv).
set -euo pipefail
cd "$(dirname "$0")/.."

peer_args_file=$(mktemp)
trap 'rm -f "$peer_args_file"' EXIT
scripts/bench_peers_setup.sh >"$peer_args_file"
mapfile -t peer_args <"$peer_args_file"

cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DINVAR_BUILD_BENCH=ON \
  -DINVAR_BUILD_TESTS=OFF -DINVAR_BUILD_TOOLS=OFF >/dev/null
cmake --build build/bench -j "$(nproc)" --target invar_bench

build/bench/bench/invar_bench "${peer_args[@]}" --out "results/$(date +%Y%m%d-%H%M%S)" "$@"

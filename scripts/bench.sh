#!/usr/bin/env bash
# Benchmarks invar's GEMM against the other BLAS libraries on this machine (OpenBLAS twice,
# BLIS, oneDNN, Eigen, MKL, numpy.matmul) at 1 thread and at every core, with the optimization
# ladder (plain loops up to invar on every thread) in the same run:
#   scripts/bench.sh            small squares 4..64 (calls per second), squares 128..4096 with
#                               1000 and 1531, inference shapes x * W^T with W 4096 x 4096 stored
#                               N x K (M = 1, 16, 64, 256; invar also over W prepacked), the
#                               decode step over row-major 4096 x 4096 and 4096 x 16384 weights,
#                               tall-skinny 64x64x65536, 4096x4096x64 and 4096x32x1024 (f32 and
#                               f64), f64 squares 512..2048, bf16 inputs at 1024 and 2048,
#                               u8 x s8 -> s32 at 1024 and 2048 and over a 4096 x 4096 int8 B at
#                               M = 1 and 64 (also prepacked), and libinvar_blas's gemv (4096 x
#                               4096 and 16384 x 4096, both transposes, f32 and f64) and syrk
#                               (2048, 4096) against the peers' (about 20 min on 2 cores)
#   scripts/bench.sh --quick    fewer shapes, shorter measurements (about 2 min once built)
#   scripts/bench.sh --sweep    only the cache-blocking sweep: the model's blocks against a grid of
#                               fixed ones, 1024^3..4096^3 (about 3 min; with --quick, no 4096)
#   --publish                   afterwards, copy the results into docs/benchmarks/<date>-<cpu>/
#                               and rewrite the README's table and plot from them
#                               (scripts/bench_publish.py)
#   --pin CPUS                  run the benchmark under taskset -c CPUS (e.g. 0,1)
# Other arguments go to invar_bench (e.g. --sizes 512,1024 --threads 1, --groups blas; see
# build/bench/bench/invar_bench --help).
# Installs what it needs (scripts/bench_peers_setup.sh), builds build/bench (Release), runs, draws
# the plots (scripts/bench_plot.py) and prints the results folder results/<timestamp>/
# (report.md, summary.md, measurements.csv, machine.csv, the PNGs; blocking_sweep*.csv for a
# sweep).
set -euo pipefail
cd "$(dirname "$0")/.."

args=()
publish=0
pin=()
while (($#)); do
  case $1 in
    --sweep) args+=(--sweep-only) ;;
    --publish) publish=1 ;;
    --pin) pin=(taskset -c "$2"); shift ;;
    --pin=*) pin=(taskset -c "${1#--pin=}") ;;
    *) args+=("$1") ;;
  esac
  shift
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
start=$SECONDS
"${pin[@]}" build/bench/bench/invar_bench "${peer_args[@]}" --out "$out" "${args[@]}" || status=$?
echo "bench: the measurements took $((SECONDS - start)) s"

if [[ -f $out/measurements.csv ]]; then
  if .venv-bench/bin/python -c 'import matplotlib' 2>/dev/null; then
    .venv-bench/bin/python scripts/bench_plot.py "$out" || echo "bench: plotting failed" >&2
  else
    echo "bench: matplotlib is not in .venv-bench, no plots" >&2
  fi
fi
if ((publish)); then
  if ((status == 0)); then
    python3 scripts/bench_publish.py "$out"
  else
    echo "bench: not published: some results are wrong or failed (see above)" >&2
  fi
fi
exit "$status"

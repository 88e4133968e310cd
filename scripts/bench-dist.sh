#!/usr/bin/env bash
# libinvar_scalapack's PxGEMM against ScaLAPACK's own (Debian's libscalapack-openmpi over
# OpenBLAS: apt-get install libopenblas-dev) on the same grids: 1x1 (one process, two threads each
# for invar and OpenBLAS, and invar_dgemm of the whole matrices for invar's shared-memory rate),
# 1x2 and 2x1 (one process per core, one thread each). First an FMA loop alone and then one per
# CPU at once: whether the two CPUs have arithmetic of their own.
#   scripts/bench-dist.sh [build dir] [type s|d] [sizes...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench-dist}
type=${2:-d}
shift $(( $# > 2 ? 2 : $# ))
sizes=("$@")
((${#sizes[@]})) || sizes=(2048 4096)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DINVAR_BUILD_BENCH=ON \
  -DINVAR_BUILD_TESTS=OFF -DINVAR_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" --target dist_bench >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# ScaLAPACK over OpenBLAS even where the system's libblas.so.3 is another BLAS (the reference one
# for the BLAS testers): Debian's OpenBLAS ships its own libblas.so.3 in a directory of its own.
openblas_dir=/usr/lib/$(gcc -print-multiarch)/openblas-pthread
if [[ -e $openblas_dir/libblas.so.3 ]]; then
  export LD_LIBRARY_PATH=$openblas_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # An OpenBLAS older than the CPU does not know it and runs its SSE3 (Prescott) kernels; name
  # the newest kernel family the CPU runs instead, as its users would.
  core=$(OPENBLAS_VERBOSE=2 python3 -c "import ctypes; ctypes.CDLL('$openblas_dir/libblas.so.3')" 2>&1 |
    sed -n 's/^Core: //p')
  if [[ -z ${OPENBLAS_CORETYPE:-} && $core == Prescott ]]; then
    if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SKYLAKEX
    elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=HASWELL; fi
  fi
  echo "# ScaLAPACK over $openblas_dir (OpenBLAS detects '$core'${OPENBLAS_CORETYPE:+, run as $OPENBLAS_CORETYPE})"
fi
echo "# $(lscpu | grep 'Model name' | sed 's/  */ /g'); $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
fma=$(mktemp)
cc -O2 -mavx2 -mfma bench/dist/fma_pair.c -o "$fma"
echo "# FMA loop alone: $(taskset -c 0 "$fma" 2 | cut -d' ' -f1-2); one per CPU at once:" \
  "$( (taskset -c 0 "$fma" 2 & taskset -c 1 "$fma" 2; wait) | cut -d' ' -f1-2 | paste -sd' ')"
rm -f "$fma"
for n in "${sizes[@]}"; do
  reps=$((n >= 4096 ? 2 : 4))
  INVAR_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 mpirun -n 1 --bind-to none \
    "$build/bench/dist/dist_bench" "$type" "$n" 1 1 256 "$reps"
  for grid in "1 2" "2 1"; do
    INVAR_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 mpirun -n 2 --bind-to core \
      "$build/bench/dist/dist_bench" "$type" "$n" $grid 256 "$reps"
  done
done

#!/usr/bin/env bash
# The distributed product under MPI: tests/dist's programs on 1, 2, 3, 4 and 6 processes (every
# grid shape of each), oversubscribed on however few cores there are. Prints one "ok ..." or
# "FAILED ..." line per check; exits non-zero on any failure.
#   scripts/test-dist.sh <build dir>
# Each process runs invar on one thread, and the k-panels are 7 wide (INVAR_DIST_PANEL) so that
# small matrices cross many panels; one launch keeps the default 256 on two threads.
set -uo pipefail
build=${1:?usage: scripts/test-dist.sh <build dir>}
bin=$build/tests/dist
if [[ ! -x $bin/dist_test ]]; then
  echo "FAILED dist: $bin/dist_test not built (is MPI installed? scripts/install-deps.sh)"
  exit 1
fi
# Open MPI refuses to run as root unless told; CI containers run as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# No network probing or shared-memory warnings on a container: loopback TCP and shared memory.
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
rc=0
launch() {  # launch <ranks> <env assignments...> -- <program> <args...>
  local n=$1
  shift
  local envs=()
  while [[ $1 != -- ]]; do envs+=("-x" "$1"); shift; done
  shift
  local log
  log=$(mktemp)
  timeout 300 mpirun --oversubscribe -n "$n" "${envs[@]}" "$@" >"$log" 2>&1
  local status=$?
  grep -E '^(ok|FAILED) ' "$log"
  if [[ $status -ne 0 ]]; then
    grep -vE '^(ok|FAILED) ' "$log" | tail -20
    grep -q '^FAILED ' "$log" || echo "FAILED dist: mpirun -n $n $* exited $status"
    rc=1
  fi
  rm -f "$log"
}
for n in 1 2 3 4 6; do
  launch "$n" INVAR_NUM_THREADS=1 INVAR_DIST_PANEL=7 -- "$bin/dist_test" 30
done
launch 2 INVAR_NUM_THREADS=2 -- "$bin/dist_test" 30
if [[ -x $bin/scalapack_test ]]; then
  for n in 1 2 3 4 6; do
    launch "$n" INVAR_NUM_THREADS=1 INVAR_DIST_PANEL=7 -- "$bin/scalapack_test" 12
  done
  lib=$(ls "$build"/src/dist/libinvar_scalapack.so | head -1)
  launch 4 INVAR_NUM_THREADS=1 INVAR_DIST_PANEL=5 "LD_PRELOAD=$(realpath "$lib")" -- \
    "$bin/scalapack_preload_test" 8
else
  echo "FAILED dist: $bin/scalapack_test not built (libscalapack-openmpi-dev missing)"
  rc=1
fi
# The mpi4py example, with Debian's python3 (python3-numpy, python3-mpi4py).
python=/usr/bin/python3
[[ -x $python ]] || python=python3
if "$python" -c "import mpi4py, numpy" 2>/dev/null; then
  lib=$(realpath "$(ls "$build"/src/dist/libinvar_scalapack.so | head -1)")
  root=$(cd "$(dirname "$0")/.." && pwd)
  for n in 3 4; do
    launch "$n" INVAR_NUM_THREADS=1 -- "$python" "$root/examples/dist_mpi4py.py" "$lib"
  done
else
  echo "FAILED dist: $python lacks mpi4py or numpy (scripts/install-deps.sh installs them)"
  rc=1
fi
exit $rc

#!/usr/bin/env bash
# Installs what scripts/bench.sh needs, idempotently (run as root, or with sudo available):
#   Debian: build tools and peer libraries (OpenBLAS, BLIS, oneDNN, Eigen, libxsmm, Google
#   Benchmark);
#   PyPI, into the virtual environment .venv-bench/: scipy-openblas32 (a current OpenBLAS), mkl,
#   numpy and threadpoolctl (the numpy row, scripts/bench_numpy.py), and matplotlib for
#   scripts/bench_plot.py.
# A package that cannot be installed is reported and skipped; invar_bench then skips that peer
# (without matplotlib, scripts/bench.sh skips the plots).
# Prints on stdout the invar_bench arguments that point at the PyPI libraries, one per line;
# everything else goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-bench
log() { echo "bench setup: $*" >&2; }

debian=(cmake ninja-build g++
  libopenblas-dev libblis-dev libdnnl-dev libeigen3-dev libbenchmark-dev libxsmm-dev)
python3 -c 'import venv, ensurepip' 2>/dev/null || debian+=(python3-venv)

missing=()
for p in "${debian[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  log "installing Debian packages: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq >&2 || log "apt-get update failed"
  if ! DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq \
      --no-install-recommends "${missing[@]}" >&2; then
    for p in "${missing[@]}"; do  # one by one, so one unavailable package does not block the rest
      DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq \
        --no-install-recommends "$p" >&2 || log "could not install $p: its row will be skipped"
    done
  fi
fi

if [[ ! -x $venv/bin/python ]]; then
  log "creating $venv"
  python3 -m venv "$venv" >&2 || { log "cannot create $venv: PyPI peers skipped"; exit 0; }
fi
for wheel in scipy-openblas32 mkl numpy threadpoolctl matplotlib; do
  if ! "$venv/bin/python" -m pip show -q "$wheel" >/dev/null 2>&1; then
    log "installing $wheel into $venv"
    "$venv/bin/python" -m pip install -q --only-binary=:all: "$wheel" >&2 ||
      log "could not install $wheel: what needs it will be skipped"
  fi
done

# The libraries inside the wheels.
openblas_dir=$("$venv/bin/python" -c 'import scipy_openblas32 as m; print(m.get_lib_dir())' \
  2>/dev/null || true)
if [[ -n $openblas_dir ]]; then
  lib=$(find "$openblas_dir" -maxdepth 1 -name 'libscipy_openblas*.so*' | sort | head -n1)
  [[ -n $lib ]] && echo "--openblas-current=$(realpath "$lib")"
fi
mkl=$(find "$venv/lib" -maxdepth 1 -name 'libmkl_rt.so.*' 2>/dev/null | sort -V | tail -n1)
[[ -n $mkl ]] && echo "--mkl=$(realpath "$mkl")"
"$venv/bin/python" -c 'import numpy, threadpoolctl' 2>/dev/null &&
  echo "--numpy=$PWD/$venv/bin/python"
exit 0

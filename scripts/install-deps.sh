#!/usr/bin/env bash
# Installs what building and testing invar needs on a fresh Debian 12 machine (run as root).
# Packages already present are not fetched again, so this is cheap on a prepared machine.
#   scripts/install-deps.sh           build + tests
#   scripts/install-deps.sh --cross   also the aarch64 cross compiler and qemu-user
set -euo pipefail

# libblas-test and python3-numpy: the outside checks of libinvar_blas (scripts/check-blas.sh);
# pkgconf and python3-threadpoolctl: the checks of the installed package (scripts/check-install.sh);
# python3-venv, python3-dev, python3-torch: the Python package's venv, its build and its PyTorch
# tests (scripts/test-python.sh; python3-torch 1.13 is ~48 MB to fetch, ~40 s to install).
# Open MPI, ScaLAPACK (its BLACS and the reference PxGEMM) and mpi4py: libinvar_scalapack and its
# tests (scripts/test-dist.sh).
# clang-14 and libclang-rt-14-dev: the libFuzzer targets (tests/fuzz, libFuzzer's runtime);
# clang-format-14: the format check (scripts/check-format.sh).
packages=(cmake ninja-build g++ googletest libgtest-dev libcli11-dev libssl-dev libbenchmark-dev
          libblas-test python3-numpy pkgconf python3-threadpoolctl python3-venv python3-dev
          python3-torch libopenmpi-dev openmpi-bin libscalapack-openmpi-dev python3-mpi4py
          clang-14 libclang-rt-14-dev clang-format-14)
if [[ "${1:-}" == "--cross" ]]; then
  packages+=(g++-aarch64-linux-gnu qemu-user)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
fi

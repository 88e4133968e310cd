#!/usr/bin/env bash
# The Python package from the outside: a fresh venv over Debian's python3 (--system-site-packages,
# so Debian's python3-torch and python3-numpy are the ones tested), `pip install .` from the
# repository (scikit-build-core and nanobind from PyPI, the library compiled into the extension),
# then the pytest suite, whose bits are compared with the C library and the tool of a CMake build:
#   scripts/test-python.sh [build dir with libinvar.so and tools/invar, default build/release]
# Ends with pytest's summary line ("N passed, N failed ..."), which scripts/test.sh counts.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${1:-build/release}
venv=build/pyenv

rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
# numpy < 2: Debian's torch 1.13 is built against numpy 1.x (ml-dtypes would otherwise pull 2.x).
"$venv/bin/pip" install -q --disable-pip-version-check "numpy<2" pytest ml-dtypes "threadpoolctl>=3.2"
CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$venv/bin/pip" install -q --disable-pip-version-check "$root"
# Run from outside the source tree so that `import invar` is the installed package.
cd "$root/tests/python"
INVAR_LIBRARY="$root/$build/libinvar.so" INVAR_CLI="$root/$build/tools/invar" \
  "$root/$venv/bin/python" -m pytest -q -p no:cacheprovider .

#!/usr/bin/env bash
# Checks an installed invar the way a consumer that does not use CMake meets it: programs built
# with nothing but the C compiler and pkg-config against the prefix, then run.
#   1. `pkg-config --cflags --libs invar`: examples/hello.c against libinvar.so;
#   2. `pkg-config --cflags --libs invar-blas`: examples/cblas_hello.c, which includes <cblas.h>
#      and calls cblas_sgemm and openblas_set_num_threads, against libinvar_blas.so;
#   3. threadpoolctl (Debian's python3-threadpoolctl, system python) in a process with
#      libinvar_blas.so preloaded lists it and sets its threads
#      (scripts/threadpoolctl_through_invar.py).
# Prints one "ok" or "FAILED" line per check and exits non-zero if any failed.
#
#   scripts/check-install.sh PREFIX OUT_DIR    (OUT_DIR receives the programs)
set -uo pipefail
cd "$(dirname "$0")/.."
prefix=$(realpath "${1:?usage: scripts/check-install.sh PREFIX OUT_DIR}")
out=${2:?usage: scripts/check-install.sh PREFIX OUT_DIR}
mkdir -p "$out"
out=$(realpath "$out")
cc=${CC:-cc}
failures=0
fail() {
  echo "FAILED $*"
  failures=$((failures + 1))
}

pcfile=$(find "$prefix" -path '*/pkgconfig/invar.pc' | head -1)
if [[ -z $pcfile ]]; then
  fail "no invar.pc under $prefix"
  exit 1
fi
export PKG_CONFIG_PATH=$(dirname "$pcfile")
libdir=$(pkg-config --variable=libdir invar)

# check <name> <package> <source>: compiles <source> with the package's flags and runs it.
check() {
  local name=$1 package=$2 source=$3 flags
  if ! flags=$(pkg-config --cflags --libs "$package" 2>&1); then
    fail "$name: pkg-config $package: $flags"
    return
  fi
  # shellcheck disable=SC2086  # the flags are words
  if ! "$cc" -std=c11 -Wall -Werror "$source" $flags -o "$out/$name" 2>"$out/$name.log"; then
    fail "$name: $cc $source $flags"
    sed 's/^/    /' "$out/$name.log"
    return
  fi
  local output
  if output=$(LD_LIBRARY_PATH=$libdir "$out/$name" 2>&1); then
    echo "ok     $name: pkg-config $package ($flags): $(head -1 <<<"$output")"
  else
    fail "$name: the program failed"
    sed 's/^/    /' <<<"$output"
  fi
}

check hello_pkgconfig invar examples/hello.c
check cblas_pkgconfig invar-blas examples/cblas_hello.c

if ! LD_PRELOAD="$libdir/libinvar_blas.so" /usr/bin/python3 scripts/threadpoolctl_through_invar.py \
     "$libdir"; then
  failures=$((failures + 1))  # the script printed its FAILED line
fi

[[ $failures -eq 0 ]]

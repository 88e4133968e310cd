#!/usr/bin/env bash
# Checks libinvar_blas from the outside, the way a program that already uses BLAS meets it:
#   1. Debian's reference BLAS testers (package libblas-test) with libinvar_blas.so preloaded
#      ahead of the system BLAS: xblat3s < sblat3.in, xblat3d < dblat3.in, xscblat3 < sin3 and
#      xdcblat3 < din3. Their GEMM calls bind to invar (checked with LD_DEBUG=bindings), the other
#      routines stay the system's, and every SGEMM/DGEMM line must report PASSED, for the
#      error exits and for the computations (both layouts for CBLAS).
#   2. numpy (Debian's python3-numpy, system python): with the library preloaded, a @ b in
#      float32 and float64 has the bits of invar_sgemm / invar_dgemm (scripts/numpy_through_invar.py).
# Prints one "ok" or "FAILED" line per check and exits non-zero if any failed.
#
#   scripts/check-blas.sh LIB_DIR    (the directory of libinvar_blas.so and libinvar.so: a build
#                                    directory, or the lib directory of an installed prefix)
set -uo pipefail
cd "$(dirname "$0")/.."
lib=$(realpath "${1:?usage: scripts/check-blas.sh LIB_DIR}")
preload=$lib/libinvar_blas.so
failures=0
fail() {
  echo "FAILED $*"
  failures=$((failures + 1))
}

testers=$(dirname "$(dpkg -L libblas-test 2>/dev/null | grep '/xblat3s$' | head -1)")
if [[ ! -x $testers/xblat3s ]]; then
  fail "reference testers: package libblas-test is not installed (scripts/install-deps.sh)"
  exit 1
fi

# run_tester <program> <input> <routine name as the tester prints it> <symbol> <required...>
run_tester() {
  local program=$1 input=$2 routine=$3 symbol=$4
  shift 4
  local dir
  dir=$(mktemp -d)
  # The testers write their summary and snapshot files into the working directory.
  (cd "$dir" && LD_PRELOAD="$preload" LD_DEBUG=bindings LD_DEBUG_OUTPUT="$dir/bindings" \
     "$testers/$program" <"$testers/$input" >stdout.txt 2>stderr.txt)
  local rc=$?
  local report="$dir/report.txt"
  cat "$dir"/stdout.txt "$dir"/*.out >"$report" 2>/dev/null
  local problems=()
  [[ $rc -eq 0 ]] || problems+=("exit status $rc")
  if ! grep -qs "to $preload.*symbol \`$symbol'" "$dir"/bindings.*; then
    problems+=("$symbol did not bind to $preload")
  fi
  for line in "$@"; do
    grep -qF -- "$routine PASSED THE $line" "$report" || problems+=("no '$routine PASSED THE $line'")
  done
  # Every line that names the routine must be a PASSED line.
  local other
  other=$(grep -iF -- "${routine%% *}" "$report" | grep -v "PASSED THE" | grep -iv "T PUT F FOR NO TEST")
  [[ -z $other ]] || problems+=("unexpected lines: $other")
  if ((${#problems[@]})); then
    fail "$program < $input: ${problems[*]}"
    grep -iF -- "${routine%% *}" "$report" | sed 's/^/    /'
  else
    echo "ok     $program < $input: $(grep -cF -- "$routine PASSED" "$report") $routine lines PASSED"
    grep -F -- "$routine PASSED" "$report" | sed 's/^/    /'
  fi
  rm -rf "$dir"
}

run_tester xblat3s sblat3.in "SGEMM " sgemm_ "TESTS OF ERROR-EXITS" "COMPUTATIONAL TESTS"
run_tester xblat3d dblat3.in "DGEMM " dgemm_ "TESTS OF ERROR-EXITS" "COMPUTATIONAL TESTS"
run_tester xscblat3 sin3 "cblas_sgemm " cblas_sgemm "TESTS OF ERROR-EXITS" \
  "COLUMN-MAJOR COMPUTATIONAL TESTS" "ROW-MAJOR    COMPUTATIONAL TESTS"
run_tester xdcblat3 din3 "cblas_dgemm " cblas_dgemm "TESTS OF ERROR-EXITS" \
  "COLUMN-MAJOR COMPUTATIONAL TESTS" "ROW-MAJOR    COMPUTATIONAL TESTS"

if LD_PRELOAD="$preload" /usr/bin/python3 scripts/numpy_through_invar.py "$lib/libinvar.so"; then
  echo "ok     numpy a @ b through invar (float32, float64)"
else
  fail "numpy a @ b through invar"
fi

[[ $failures -eq 0 ]]

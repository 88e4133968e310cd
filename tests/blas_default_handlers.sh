#!/usr/bin/env bash
# Runs blas_default_handlers in each mode: the default handler must print the expected line on
# stderr and end the program with a non-zero status before the call returns.
#   blas_default_handlers.sh [EMULATOR...] PROGRAM
set -uo pipefail
program=${*: -1}
runner=("${@:1:$#-1}")
failures=0
check() {
  local mode=$1 expected=$2 out err status
  out=$(mktemp) err=$(mktemp)
  "${runner[@]}" "$program" "$mode" >"$out" 2>"$err"
  status=$?
  if [[ $status -eq 0 || $status -eq 2 ]] || grep -q returned "$out" || ! grep -qxF -- "$expected" "$err"; then
    echo "FAILED $mode: status $status, stdout '$(cat "$out")', stderr '$(cat "$err")'"
    failures=$((failures + 1))
  else
    echo "ok     $mode: $expected"
  fi
  rm -f "$out" "$err"
}
check fortran-transa " ** On entry to SGEMM parameter number  1 had an illegal value"
check fortran-m " ** On entry to SGEMM parameter number  3 had an illegal value"
check cblas-row-m "Parameter 4 to routine cblas_sgemm was incorrect"
check cblas-row-lda "Parameter 9 to routine cblas_sgemm was incorrect"
check cblas-col-ldb "Parameter 11 to routine cblas_sgemm was incorrect"
[[ $failures -eq 0 ]]

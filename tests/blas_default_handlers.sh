#!/usr/bin/env bash
# Runs blas_default_handlers (the library's own handlers) and blas_own_xerbla (the same program
# with only xerbla_ replaced) in each mode and checks stderr, stdout and the exit status against
# what Debian's reference libblas.so.3 gives for the same calls.
#   blas_default_handlers.sh [EMULATOR...] DEFAULT_PROGRAM OWN_XERBLA_PROGRAM
set -uo pipefail
default_program=${*: -2:1}
own_program=${*: -1}
runner=("${@:1:$#-2}")
failures=0
# check <program> <mode> <status> <stdout> <stderr>   (exact text, lines joined by '|')
check() {
  local program=$1 mode=$2 want_status=$3 want_out=$4 want_err=$5 out err status
  out=$("${runner[@]}" "$program" "$mode" 2>/tmp/blas_handlers_err.$$)
  status=$?
  err=$(cat /tmp/blas_handlers_err.$$)
  rm -f /tmp/blas_handlers_err.$$
  out=${out//$'\n'/|}
  err=${err//$'\n'/|}
  if [[ $status -ne $want_status || $out != "$want_out" || $err != "$want_err" ]]; then
    echo "FAILED $(basename "$program") $mode: status $status (want $want_status)," \
      "stdout '$out' (want '$want_out'), stderr '$err' (want '$want_err')"
    failures=$((failures + 1))
  else
    echo "ok     $(basename "$program") $mode: status $status, stderr '$err', stdout '$out'"
  fi
}
d=$default_program
check "$d" fortran-transa 0 returned "Parameter 1 to routine SGEMM  was incorrect"
check "$d" fortran-m 0 returned "Parameter 3 to routine SGEMM  was incorrect"
check "$d" cblas-layout 255 "" "Parameter 1 to routine cblas_sgemm was incorrect|Illegal layout setting, 5"
check "$d" cblas-row-transb 255 "" "Parameter 2 to routine cblas_sgemm was incorrect|Illegal TransB setting, 5"
check "$d" cblas-row-m 255 "" "Parameter 4 to routine cblas_sgemm  was incorrect"
check "$d" cblas-col-m 255 "" "Parameter 4 to routine cblas_sgemm  was incorrect"
check "$d" cblas-row-lda 255 "" "Parameter 9 to routine cblas_sgemm  was incorrect"
check "$d" cblas-col-ldb 255 "" "Parameter 11 to routine cblas_sgemm  was incorrect"
check "$d" cblas-gemv-row-m 255 "" "Parameter 3 to routine cblas_sgemv  was incorrect"
check "$d" cblas-gemv-incx 255 "" "Parameter 9 to routine cblas_sgemv  was incorrect"
check "$d" cblas-syrk-n 255 "" "Parameter 4 to routine cblas_ssyrk  was incorrect"
check "$d" cblas-syrk-lda 255 "" "Parameter 8 to routine cblas_ssyrk  was incorrect"
o=$own_program
check "$o" fortran-m 0 "xerbla_ 'SGEMM ' 3|returned" ""
check "$o" cblas-layout 255 "" "Parameter 1 to routine cblas_sgemm was incorrect|Illegal layout setting, 5"
check "$o" cblas-row-m 0 "xerbla_ 'SGEMM ' 4|returned" ""
check "$o" cblas-col-m 0 "xerbla_ 'SGEMM ' 3|returned" ""
check "$o" cblas-row-lda 0 "xerbla_ 'SGEMM ' 10|returned" ""
check "$o" cblas-gemv-incx 0 "xerbla_ 'SGEMV ' 8|returned" ""
check "$o" cblas-syrk-lda 0 "xerbla_ 'SSYRK ' 7|returned" ""
[[ $failures -eq 0 ]]

#!/usr/bin/env bash
# Checks libinvar_blas from the outside, the way a program that already uses BLAS meets it:
#   1. Debian's reference BLAS testers (package libblas-test) with libinvar_blas.so preloaded
#      ahead of the system BLAS, for every routine the library provides: GEMM, SYMM, SYRK
#      (xblat3s/xblat3d, xscblat3/xdcblat3), GEMV (xblat2s/xblat2d, xscblat2/xdcblat2) and DOT
#      (xblat1s/xblat1d, xscblat1/xdcblat1). Each routine's symbol must bind to invar (checked with
#      LD_DEBUG=bindings) and every line the tester prints about it must report PASSED (error
#      exits and computations, both layouts for CBLAS); the other routines stay the system's.
#   2. numpy (Debian's python3-numpy, system python): with the library preloaded, every route
#      numpy takes to the BLAS for float32 and float64 (matmul, dot, inner, vdot, einsum: gemm,
#      gemv, syrk, dot) has the bytes of invar's C API, the symbols resolve to libinvar_blas.so,
#      and decode rows equal prefill rows (scripts/numpy_through_invar.py). The same script run
#      without the preload must fail: a check that passes with nothing intercepted proves nothing.
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

# run_tester <program> <input or -> <routine as the tester prints it> <symbol> <required...>
# Level 1 testers (no input) print a "Test of subprogram ... NAME" header followed by PASS lines;
# for them the required lines are not used and the routine's block must hold only PASS lines.
run_tester() {
  local program=$1 input=$2 routine=$3 symbol=$4
  shift 4
  local dir
  dir=$(mktemp -d)
  # The testers write their summary and snapshot files into the working directory.
  if [[ $input == - ]]; then
    (cd "$dir" && LD_PRELOAD="$preload" LD_DEBUG=bindings LD_DEBUG_OUTPUT="$dir/bindings" \
       "$testers/$program" </dev/null >stdout.txt 2>stderr.txt)
  else
    (cd "$dir" && LD_PRELOAD="$preload" LD_DEBUG=bindings LD_DEBUG_OUTPUT="$dir/bindings" \
       "$testers/$program" <"$testers/$input" >stdout.txt 2>stderr.txt)
  fi
  local rc=$?
  local report="$dir/report.txt"
  cat "$dir"/stdout.txt "$dir"/*.out >"$report" 2>/dev/null
  local problems=()
  [[ $rc -eq 0 ]] || problems+=("exit status $rc")
  if ! grep -qs "to $preload.*symbol \`$symbol'" "$dir"/bindings.*; then
    problems+=("$symbol did not bind to $preload")
  fi
  local summary
  if [[ $input == - ]]; then
    local block
    block=$(awk -v name="$routine" '/Test of subprogram/ { inside = ($NF == name) ; next }
                                    inside && NF > 0 { print }' "$report")
    if [[ -z $block ]] || grep -qv -- "----- PASS -----" <<<"$block"; then
      problems+=("$routine block: ${block:-missing}")
    fi
    summary="$(grep -c -- "PASS" <<<"$block") $routine PASS lines"
  else
    for line in "$@"; do
      grep -qF -- "$routine PASSED THE $line" "$report" || problems+=("no '$routine PASSED THE $line'")
    done
    # Every line that names the routine must be a PASSED line.
    local other
    other=$(grep -F -- "$routine" "$report" | grep -v "PASSED THE" | grep -iv "T PUT F FOR NO TEST")
    [[ -z $other ]] || problems+=("unexpected lines: $other")
    summary="$(grep -cF -- "$routine PASSED" "$report") $routine lines PASSED"
  fi
  if ((${#problems[@]})); then
    fail "$program < $input: ${problems[*]}"
    grep -F -- "$routine" "$report" | sed 's/^/    /'
  else
    echo "ok     $program < $input: $summary"
  fi
  rm -rf "$dir"
}

fortran3=("TESTS OF ERROR-EXITS" "COMPUTATIONAL TESTS")
cblas=("TESTS OF ERROR-EXITS" "COLUMN-MAJOR COMPUTATIONAL TESTS" "ROW-MAJOR    COMPUTATIONAL TESTS")
for p in s d; do
  P=${p^^}
  run_tester "xblat3$p" "${p}blat3.in" "${P}GEMM " "${p}gemm_" "${fortran3[@]}"
  run_tester "xblat3$p" "${p}blat3.in" "${P}SYMM " "${p}symm_" "${fortran3[@]}"
  run_tester "xblat3$p" "${p}blat3.in" "${P}SYRK " "${p}syrk_" "${fortran3[@]}"
  run_tester "x${p}cblat3" "${p}in3" "cblas_${p}gemm " "cblas_${p}gemm" "${cblas[@]}"
  run_tester "x${p}cblat3" "${p}in3" "cblas_${p}symm " "cblas_${p}symm" "${cblas[@]}"
  run_tester "x${p}cblat3" "${p}in3" "cblas_${p}syrk " "cblas_${p}syrk" "${cblas[@]}"
  run_tester "xblat2$p" "${p}blat2.in" "${P}GEMV " "${p}gemv_" "${fortran3[@]}"
  run_tester "x${p}cblat2" "${p}in2" "cblas_${p}gemv " "cblas_${p}gemv" "${cblas[@]}"
  run_tester "xblat1$p" - "${P}DOT" "${p}dot_"
  run_tester "x${p}cblat1" - "CBLAS_${P}DOT" "cblas_${p}dot"
done

numpy_log=$(mktemp)
if LD_PRELOAD="$preload" /usr/bin/python3 scripts/numpy_through_invar.py "$lib" >"$numpy_log" 2>&1; then
  echo "ok     numpy through invar: matmul, dot, inner, vdot, einsum (gemm, gemv, syrk, dot)"
else
  fail "numpy through invar"
fi
sed 's/^/  /' "$numpy_log"
# Without the preload nothing is intercepted: the same checks must fail, on the symbols and on
# the bytes of the products.
if /usr/bin/python3 scripts/numpy_through_invar.py "$lib" >"$numpy_log" 2>&1; then
  fail "numpy without the preload: the checks passed with nothing intercepted"
elif ! grep -q "do not resolve to libinvar_blas\|is not mapped" "$numpy_log" ||
  [[ $(grep -c "FAILED float" "$numpy_log") -lt 40 ]]; then
  fail "numpy without the preload: expected every route to differ from invar"
  sed 's/^/  /' "$numpy_log"
else
  echo "ok     numpy without the preload differs from invar on $(grep -c "FAILED float" "$numpy_log") routes (the check can fail)"
fi
rm -f "$numpy_log"

[[ $failures -eq 0 ]]

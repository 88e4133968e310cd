#!/usr/bin/env bash
# Builds and runs every test of invar from a fresh clone:
#   0. the sources' format (scripts/check-format.sh, clang-format 14);
#   1. release build, whole suite once per instruction-set path (CTest);
#   1b. the distributed product under MPI: oversubscribed launches of 1-6 processes
#      (scripts/test-dist.sh), one count per check;
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer, and under
#      ThreadSanitizer (thread pool, parallel driver, concurrent callers);
#   3. install into a prefix and build/run examples/ against the installed package (a C-only
#      project linking the static library and a C++-only one among them) and C programs built
#      with pkg-config; the reference BLAS testers and numpy with the installed libinvar_blas
#      preloaded, one count per checker (scripts/check-blas.sh);
#   4. the Python package: pip install . into a fresh venv, its pytest suite against the C
#      library and the tool of the release build (scripts/test-python.sh);
#   5. the aarch64 cross build, whole suite under qemu-user, fingerprint equal to x86-64's;
#   6. the libFuzzer targets (Clang, ASan+UBSan), each for a bounded time from its seed corpus,
#      one count per target;
# and ends with one line "tests: N passed, N failed" summing every CTest run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=$(nproc)

scripts/install-deps.sh

passed=0
failed=0
skipped=0
# tally <log> <exit code> <label>: adds a CTest output's result lines to the counts; a non-zero
# exit without a failed test line (a build or comparison step failed) counts as one failure.
tally() {
  local log=$1 rc=$2 label=$3
  passed=$((passed + $(grep -cE 'Test +#[0-9]+: .* Passed' "$log" || true)))
  failed=$((failed + $(grep -cE 'Test +#[0-9]+: .*\*\*\*(Failed|Exception|Timeout)' "$log" || true)))
  skipped=$((skipped + $(grep -cE 'Test +#[0-9]+: .*\*\*\*Skipped' "$log" || true)))
  if [[ $rc -ne 0 ]] && ! grep -qE '\*\*\*(Failed|Exception|Timeout)' "$log"; then
    echo "$label exited $rc without a failed test: counted as a failure"
    failed=$((failed + 1))
  fi
}

# run_ctest <build dir> <label>: runs the suite and tallies it.
run_ctest() {
  local dir=$1 label=$2 log
  log=$(mktemp)
  echo "== ctest: $label"
  set +e
  (cd "$dir" && ctest --output-on-failure -j 2) | tee "$log"
  local rc=${PIPESTATUS[0]}
  set -e
  tally "$log" "$rc" "ctest ($label)"
  rm -f "$log"
}

configure_build() {
  local dir=$1
  shift
  cmake -S "$root" -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
}

echo "== format"
if scripts/check-format.sh; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi

configure_build build/release -DCMAKE_BUILD_TYPE=Release
run_ctest build/release "release"

echo "== distributed product under MPI"
dist_log=$(mktemp)
set +e
scripts/test-dist.sh build/release 2>&1 | tee "$dist_log"
dist_rc=${PIPESTATUS[0]}
set -e
passed=$((passed + $(grep -c '^ok ' "$dist_log" || true)))
failed=$((failed + $(grep -c '^FAILED ' "$dist_log" || true)))
if [[ $dist_rc -ne 0 ]] && ! grep -q '^FAILED ' "$dist_log"; then
  echo "scripts/test-dist.sh exited $dist_rc without a failed check: counted as a failure"
  failed=$((failed + 1))
fi
rm -f "$dist_log"

# The sanitizer build also checks the kernels' stated assumptions (INVAR_DCHECK, src/common/check.h).
configure_build build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINVAR_SANITIZE=address,undefined \
  -DINVAR_BUILD_TOOLS=OFF -DINVAR_ENABLE_DCHECKS=ON
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 run_ctest build/asan "asan+ubsan"

configure_build build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINVAR_SANITIZE=thread \
  -DINVAR_BUILD_TOOLS=OFF
TSAN_OPTIONS=halt_on_error=1 run_ctest build/tsan "tsan"

echo "== install and examples"
rm -rf build/prefix build/examples
cmake --install build/release --prefix build/prefix >/dev/null
if cmake -S examples -B build/examples -G Ninja -DCMAKE_PREFIX_PATH="$root/build/prefix" >/dev/null &&
   cmake --build build/examples &&
   build/examples/hello_c && build/examples/c_only/static_c && build/examples/decode_equals_prefill &&
   build/examples/cxx_only/decode_equals_prefill &&
   build/examples/quantized_layer && build/examples/blas_drop_in &&
   build/prefix/bin/invar fingerprint; then
  passed=$((passed + 1))
else
  echo "examples against the installed package: FAILED"
  failed=$((failed + 1))
fi
# Consumers without CMake: the C compiler and pkg-config alone (scripts/check-install.sh).
install_log=$(mktemp)
set +e
scripts/check-install.sh build/prefix build/examples/pkgconfig 2>&1 | tee "$install_log"
install_rc=${PIPESTATUS[0]}
set -e
passed=$((passed + $(grep -c '^ok ' "$install_log" || true)))
failed=$((failed + $(grep -c '^FAILED ' "$install_log" || true)))
if [[ $install_rc -ne 0 ]] && ! grep -q '^FAILED ' "$install_log"; then
  echo "scripts/check-install.sh exited $install_rc without a failed check: counted as a failure"
  failed=$((failed + 1))
fi
rm -f "$install_log"

echo "== libinvar_blas from the outside: reference BLAS testers and numpy"
blas_log=$(mktemp)
set +e
scripts/check-blas.sh build/prefix/lib 2>&1 | tee "$blas_log"
blas_rc=${PIPESTATUS[0]}
set -e
passed=$((passed + $(grep -c '^ok ' "$blas_log" || true)))
failed=$((failed + $(grep -c '^FAILED ' "$blas_log" || true)))
if [[ $blas_rc -ne 0 ]] && ! grep -q '^FAILED ' "$blas_log"; then
  echo "scripts/check-blas.sh exited $blas_rc without a failed check: counted as a failure"
  failed=$((failed + 1))
fi
rm -f "$blas_log"

echo "== Python package"
python_log=$(mktemp)
set +e
scripts/test-python.sh build/release 2>&1 | tee "$python_log"
python_rc=${PIPESTATUS[0]}
set -e
# pytest's summary line, e.g. "88 passed, 2 skipped in 4.0s" or "1 failed, 87 passed in 4.1s".
python_summary=$(grep -E '^(=+ )?[0-9]+ (passed|failed|error|errors|skipped)' "$python_log" | tail -n 1 || true)
count() { grep -oE "[0-9]+ $1" <<<"$python_summary" | grep -oE '[0-9]+' || echo 0; }
passed=$((passed + $(count passed)))
failed=$((failed + $(count failed) + $(count 'errors?')))
skipped=$((skipped + $(count skipped)))
if [[ $python_rc -ne 0 ]] && [[ $(count failed) -eq 0 ]] && [[ $(count 'errors?') -eq 0 ]]; then
  echo "scripts/test-python.sh exited $python_rc without a failed test: counted as a failure"
  failed=$((failed + 1))
fi
rm -f "$python_log"

echo "== aarch64"
aarch64_log=$(mktemp)
set +e
scripts/test-aarch64.sh "$(build/release/tools/invar fingerprint)" 2>&1 | tee "$aarch64_log"
aarch64_rc=${PIPESTATUS[0]}
set -e
tally "$aarch64_log" "$aarch64_rc" "aarch64 (build, qemu suite or fingerprint)"
rm -f "$aarch64_log"

echo "== fuzzing"
# Each target replays its checked-in corpus (tests/fuzz/corpus/<target>/), then mutates it for
# the rest of its time from a fixed seed (a run finds the same inputs as the last one, give or
# take what the threads' timing changes); new inputs go to a scratch directory, a failing one to
# build/fuzz/. Longer runs with other seeds belong outside the test command.
fuzz_seconds=${INVAR_FUZZ_SECONDS:-90}
if CC=clang-14 CXX=clang++-14 cmake -S "$root" -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
     -DINVAR_BUILD_FUZZERS=ON -DINVAR_BUILD_TESTS=OFF -DINVAR_BUILD_TOOLS=OFF >/dev/null &&
   cmake --build build/fuzz -j "$jobs" --target gemm_fuzz; then
  for target in gemm_fuzz; do
    scratch=$(mktemp -d)
    # A request for more memory than exists must come back as INVAR_ENOMEM, not end the run.
    if ASAN_OPTIONS=allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
       build/fuzz/tests/fuzz/$target -seed=1 -max_total_time="$fuzz_seconds" -timeout=60 -rss_limit_mb=4096 \
         -artifact_prefix="$root/build/fuzz/$target-" -print_final_stats=1 \
         "$scratch" "tests/fuzz/corpus/$target"; then
      echo "fuzz $target: passed"
      passed=$((passed + 1))
    else
      echo "fuzz $target: FAILED (the input is in build/fuzz/$target-*)"
      failed=$((failed + 1))
    fi
    rm -rf "$scratch"
  done
else
  echo "fuzz targets: build FAILED"
  failed=$((failed + 1))
fi

echo "tests: $passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]

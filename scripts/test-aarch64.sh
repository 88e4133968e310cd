#!/usr/bin/env bash
# Cross-builds invar for aarch64 and runs it under qemu-user, from a fresh clone on a Debian 12
# x86-64 machine (run as root, or with sudo available):
#   1. installs the cross compiler, qemu-user and the arm64 libssl (multiarch) if missing;
#   2. configures build/aarch64 with cmake/toolchains/aarch64-linux-gnu.cmake (Release), builds;
#   3. runs the whole suite under qemu (CTest: once per path, generic and neon, then coverage);
#   4. compares the aarch64 `invar fingerprint` with the x86-64 one.
#
#   scripts/test-aarch64.sh [X86_FINGERPRINT]
#
# The x86-64 fingerprint is the first argument, else computed by build/release/tools/invar when
# that exists (scripts/run.sh or scripts/test.sh build it), else the comparison is skipped.
# If the arm64 libssl cannot be installed, the tool (and so the fingerprint) is left out and the
# script says so; the suite still runs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=build/aarch64
triple=aarch64-linux-gnu
jobs=$(nproc)

sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# ---- dependencies -----------------------------------------------------------------------------

scripts/install-deps.sh --cross

with_tools=ON
if ! installed libssl-dev:arm64; then
  echo "installing: libssl-dev:arm64"
  added_arch=0
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    "${sudo_cmd[@]}" dpkg --add-architecture arm64
    added_arch=1
  fi
  if ! { "${sudo_cmd[@]}" apt-get update -qq &&
         DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq \
           --no-install-recommends libssl-dev:arm64; }; then
    echo "libssl-dev:arm64 could not be installed: building without the invar tool"
    with_tools=OFF
    # leave the package system as it was (this fails harmlessly if arm64 packages got in)
    ((added_arch)) && "${sudo_cmd[@]}" dpkg --remove-architecture arm64 2>/dev/null || true
  fi
fi

# ---- build ------------------------------------------------------------------------------------

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/$triple.cmake" \
  -DINVAR_BUILD_TOOLS="$with_tools" >/dev/null
cmake --build "$build" -j "$jobs"

# ---- suite under qemu -------------------------------------------------------------------------

echo "== ctest: aarch64 (qemu)"
start=$SECONDS
set +e
(cd "$build" && ctest --output-on-failure -j 2)
ctest_rc=$?
set -e
echo "aarch64 suite: $((SECONDS - start)) s"

# ---- fingerprint ------------------------------------------------------------------------------

fp_rc=0
if [[ $with_tools == ON ]]; then
  # as CMAKE_CROSSCOMPILING_EMULATOR in the toolchain file, which ctest uses
  qemu=(qemu-aarch64 -L "/usr/$triple" -E "LD_LIBRARY_PATH=/usr/$triple/lib")
  arm_fp=$("${qemu[@]}" "$build/tools/invar" fingerprint) || { arm_fp="(invar fingerprint failed)"; fp_rc=1; }
  x86_fp=${1:-}
  if [[ -z $x86_fp && -x build/release/tools/invar ]]; then
    x86_fp=$(build/release/tools/invar fingerprint)
  fi
  echo "fingerprint aarch64: $arm_fp"
  if [[ -z $x86_fp ]]; then
    echo "fingerprint x86-64:  (none: pass it as the first argument or build build/release)"
  else
    echo "fingerprint x86-64:  $x86_fp"
    if [[ $arm_fp == "$x86_fp" ]]; then
      echo "fingerprints: equal"
    else
      echo "fingerprints: DIFFERENT"
      fp_rc=1
    fi
  fi
fi

[[ $ctest_rc -eq 0 && $fp_rc -eq 0 ]]

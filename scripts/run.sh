#!/usr/bin/env bash
# The main job: build invar, show what it chose on this machine, time a 1024^3 f32 multiply.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)" --target invar_tool
build/release/tools/invar info
build/release/tools/invar bench --shape 1024 1024 1024
build/release/tools/invar fingerprint

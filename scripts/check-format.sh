#!/usr/bin/env bash
# Checks that every C and C++ source in the repository is formatted by .clang-format (clang-format
# 14, the version Debian 12 ships: another version may format differently). Prints the files that
# differ and exits non-zero if any does. To format them: scripts/check-format.sh --fix
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=${CLANG_FORMAT:-clang-format-14}
mapfile -t files < <(git ls-files '*.c' '*.cc' '*.cpp' '*.h' '*.hpp')
if [[ "${1:-}" == "--fix" ]]; then
  "$formatter" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$formatter" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "format: ${#bad[@]} of ${#files[@]} files differ from .clang-format (scripts/check-format.sh --fix)"
  exit 1
fi
echo "format: all ${#files[@]} files follow .clang-format"

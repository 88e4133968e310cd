#!/usr/bin/env bash
# cblas.h declares exactly what libinvar_blas exports: every exported cblas_*, openblas_* and
# goto_* function is declared, and every declared one is exported, except the routines listed
# as not yet in this build (which must then really be missing, so the list cannot go stale).
#   cblas_exports.sh NM LIBRARY HEADER [NOT_YET_EXPORTED...]
set -euo pipefail
nm=$1 lib=$2 header=$3
shift 3
pattern='^(cblas|openblas|goto)_[A-Za-z0-9_]+$'
exported=$("$nm" -D --defined-only "$lib" | awk '$2 ~ /^[TtWi]$/ {print $3}' | grep -E "$pattern" | sort -u)
# Declarations start in column 0 with their return type; comments do not.
declared=$(grep -E '^[A-Za-z]' "$header" | grep -oE '\b(cblas|openblas|goto)_[A-Za-z0-9_]+ *\(' |
           tr -d ' (' | sort -u)
pending=$(printf '%s\n' "$@" | grep -v '^$' | sort -u || true)
status=0
undeclared=$(comm -23 <(echo "$exported") <(echo "$declared"))
if [[ -n $undeclared ]]; then
  echo "exported but not declared in cblas.h:" $undeclared
  status=1
fi
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [[ "$missing" != "$pending" ]]; then
  echo "declared but not exported:" $(comm -23 <(echo "$missing") <(echo "$pending"))
  echo "listed as not yet exported but exported:" $(comm -13 <(echo "$missing") <(echo "$pending"))
  status=1
fi
echo "cblas.h: $(echo "$declared" | wc -l) functions declared, $(echo "$exported" | wc -l) exported" \
     "($(echo "$pending" | grep -c . || true) not yet)"
exit $status

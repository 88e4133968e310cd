#!/usr/bin/env bash
# `invar fingerprint` must print the pinned string (the one every machine and path prints; see
# the README) under every instruction-set path this CPU runs, and a path the CPU lacks must be
# refused with a message and a non-zero exit (never SIGILL).
set -euo pipefail
pinned=$(<"$1")  # tests/fingerprint.txt
shift
tool=("$@")   # [emulator args...] path/to/invar
available=$("${tool[@]}" info | sed -n 's/^available: *//p')
echo "pinned: $pinned"
for isa in $available; do
  fp=$(INVAR_ISA=$isa "${tool[@]}" fingerprint)
  echo "$isa: $fp"
  if [[ "$fp" != "$pinned" ]]; then
    echo "fingerprint under INVAR_ISA=$isa differs from the pinned one"; exit 1
  fi
done
for isa in avx512 avx2 neon generic; do
  [[ " $available " == *" $isa "* ]] && continue
  set +e
  msg=$(INVAR_ISA=$isa "${tool[@]}" fingerprint 2>&1)
  rc=$?
  set -e
  echo "$isa (unavailable): exit $rc: $msg"
  if [[ $rc -eq 0 || $rc -ge 128 ]]; then echo "INVAR_ISA=$isa was not refused cleanly"; exit 1; fi
done

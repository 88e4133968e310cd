#!/usr/bin/env bash
# The ODR trap of per-ISA translation units: an inline function or a standard-library template
# instantiated in a TU built with -mavx512f (say) is emitted there as a weak symbol, and the
# linker may keep that copy for every caller, so the library dies with SIGILL on a CPU without
# the instruction set. Every weak symbol of an ISA folder's objects must belong to that ISA's own
# namespace, which no other TU defines.
set -euo pipefail
nm_tool=$1     # CMAKE_NM
objects=$2     # the library's object directory (CMakeFiles/invar_objects.dir)
checked=0
bad=0
for isa in avx2 avx512 neon; do
  [[ -d "$objects/src/kernels/$isa" ]] || continue
  while IFS= read -r -d '' object; do
    checked=$((checked + 1))
    # DW.ref.__gxx_personality_v0 (emitted where code has unwinding, e.g. sanitizer builds) is a
    # pointer to the C++ runtime's personality routine: data, no code built with ISA flags.
    leaks=$("$nm_tool" -C "$object" | awk '$2 == "W" || $2 == "V" || $2 == "u"' |
            grep -v -e " invar::kernels::$isa::" -e " DW\.ref\.__gxx_personality_v0$" || true)
    if [[ -n $leaks ]]; then
      echo "weak symbols outside invar::kernels::$isa:: in ${object#"$objects"/}:"
      echo "$leaks"
      bad=1
    fi
  done < <(find "$objects/src/kernels/$isa" -name '*.o' -print0)
done
echo "ISA objects checked: $checked"
[[ $checked -gt 0 && $bad -eq 0 ]]

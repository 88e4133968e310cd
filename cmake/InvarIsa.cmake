# The one place instruction-set flags appear. Each ISA folder under src/kernels/ is compiled with
# its own flags only; everything else is built for the baseline of the target architecture, so one
# binary runs on every CPU of that architecture and picks its path at run time.

# Which ISA paths this target architecture builds.
function(invar_isas_for_target out)
  string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" proc)
  if(proc MATCHES "^(x86_64|amd64|x64)$")
    set(${out} avx2 avx512 PARENT_SCOPE)
  elseif(proc MATCHES "^(aarch64|arm64)$")
    set(${out} neon PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

function(invar_isa_flags isa out)
  if(isa STREQUAL "avx2")
    set(flags -mavx2 -mfma -mf16c)          # Haswell and later, Zen 1 and later
  elseif(isa STREQUAL "avx512")
    set(flags -mavx512f -mavx2 -mfma -mf16c)  # Skylake-X and later, Zen 4 and later
  elseif(isa STREQUAL "avx512_vnni")
    # Not an ISA path of its own: kernels of the avx512 path that only CPUs with these
    # extensions run (chosen at run time, kernels/sets/avx512.cpp).
    set(flags -mavx512f -mavx512bw -mavx512vnni -mavx2 -mfma -mf16c)  # Ice Lake, Zen 4 and later
  elseif(isa STREQUAL "avx512_amx")
    # Likewise: the integer kernels of CPUs with AMX tiles and their int8 products.
    set(flags -mamx-tile -mamx-int8 -mavx512f -mavx512bw -mavx512vnni -mavx2 -mfma -mf16c)
  elseif(isa STREQUAL "avx512_bf16")
    # Likewise: the bf16 dot-product kernels (vdpbf16ps) of CPUs with AVX512_BF16, used only
    # where the instruction passes its check at run time (kernels/bf16_dot.h).
    set(flags -mavx512f -mavx512bw -mavx512bf16 -mavx2 -mfma -mf16c)  # Cooper Lake, Sapphire Rapids, Zen 4
  elseif(isa STREQUAL "neon")
    set(flags "")                           # Advanced SIMD is baseline on AArch64
  else()
    message(FATAL_ERROR "invar: unknown ISA '${isa}'")
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# invar_add_isa_sources(<target> <isa> <sources>...): adds the sources built with that ISA's flags
# and defines INVAR_HAVE_<ISA> on the target so the kernel registry knows the path exists.
function(invar_add_isa_sources target isa)
  invar_isa_flags(${isa} flags)
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${target}
                              PROPERTIES COMPILE_OPTIONS "${flags}")
  target_sources(${target} PRIVATE ${ARGN})
  string(TOUPPER ${isa} upper)
  target_compile_definitions(${target} PRIVATE INVAR_HAVE_${upper}=1)
endfunction()

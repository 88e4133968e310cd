// The registry: which sets this build has (kernels/sets/, one file per path) and which form of a
// path this CPU takes.
#include "kernels/kernel_set.h"

#include "arch/cpu_features.h"
#include "kernels/sets/sets.h"

namespace invar::kernels {
namespace {

// The x86 sets' form for this CPU: on AMD's cores (and Hygon's) B blocks in L3, on every other
// core in L2 (sets/x86.h); on the AVX-512 path A's broadcasts folded into the fmas where the core
// runs 512-bit operations on 256-bit halves, in registers elsewhere (sets/avx512.cpp).
[[maybe_unused]] sets::X86Form x86_form() {
  const arch::CpuFeatures& cpu = arch::cpu_features();
  return {.b_in_l3 = arch::amd_or_hygon(cpu.vendor),
          .folded_broadcasts = arch::avx512_on_256bit_halves(cpu)};
}

}  // namespace

const KernelSet* compiled_kernel_set(Isa isa) {
  switch (isa) {
    case Isa::kGeneric: return &sets::generic_set();
#if defined(INVAR_HAVE_AVX2)
    case Isa::kAvx2: return &sets::avx2_set(x86_form().b_in_l3);
#endif
#if defined(INVAR_HAVE_AVX512)
    case Isa::kAvx512: return &sets::avx512_set(x86_form());
#endif
#if defined(INVAR_HAVE_NEON)
    case Isa::kNeon: return &sets::neon_set();
#endif
    default: return nullptr;
  }
}

std::vector<const KernelSet*> compiled_kernel_sets(Isa isa) {
#if defined(INVAR_HAVE_AVX512)
  if (isa == Isa::kAvx512) return sets::avx512_sets(x86_form());
#endif
  const KernelSet* chosen = compiled_kernel_set(isa);
  if (chosen == nullptr) return {};
  return {chosen};
}

bool cpu_supports(Isa isa) {
  const arch::CpuFeatures& f = arch::cpu_features();
  switch (isa) {
    case Isa::kGeneric: return true;
    case Isa::kAvx2: return f.avx2_fma;
    case Isa::kAvx512: return f.avx512f;
    case Isa::kNeon: return f.neon;
    case Isa::kAuto: return true;
  }
  return false;
}

std::vector<Isa> available_isas() {
  std::vector<Isa> out;
  for (Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kNeon, Isa::kGeneric}) {
    if (compiled_kernel_set(isa) != nullptr && cpu_supports(isa)) out.push_back(isa);
  }
  return out;
}

}  // namespace invar::kernels

// The registry: which sets this build has (kernels/sets/, one file per path) and which form of a
// path this CPU takes.
#include "kernels/kernel_set.h"

#include "arch/cpu_features.h"
#include "kernels/sets/sets.h"

namespace invar::kernels {
namespace {

// The x86 sets' form for this CPU: on AMD's cores (and Hygon's) B blocks in L3 and, on the
// AVX-512 path, the folded broadcasts; on every other core B blocks in L2 and broadcasts in
// registers (sets/x86.h, sets/avx512.cpp).
[[maybe_unused]] bool amd_form() { return arch::amd_or_hygon(arch::cpu_features().vendor); }

}  // namespace

const KernelSet* compiled_kernel_set(Isa isa) {
  switch (isa) {
    case Isa::kGeneric: return &sets::generic_set();
#if defined(INVAR_HAVE_AVX2)
    case Isa::kAvx2: return &sets::avx2_set(amd_form());
#endif
#if defined(INVAR_HAVE_AVX512)
    case Isa::kAvx512: return &sets::avx512_set(amd_form());
#endif
#if defined(INVAR_HAVE_NEON)
    case Isa::kNeon: return &sets::neon_set();
#endif
    default: return nullptr;
  }
}

std::vector<const KernelSet*> compiled_kernel_sets(Isa isa) {
#if defined(INVAR_HAVE_AVX512)
  if (isa == Isa::kAvx512) return sets::avx512_sets(amd_form());
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

#include <cstdio>

#include "api/context_impl.h"
#include "arch/cpu_features.h"
#include "blocking/block_sizes.h"
#include "tools/commands.h"

namespace invar::tool {

int run_info(const InfoOptions& o) {
  const arch::CpuFeatures& cpu = arch::cpu_features();
  Context& context = Context::default_context();  // throws on a bad INVAR_* setting
  const Context::Impl& impl = context.impl();
  const kernels::GemmKernel& sgemm = impl.kernels->sgemm;

  std::printf("invar %s\n", version());
  std::printf("cpu:        %s%s%s\n", cpu.vendor.c_str(), cpu.brand.empty() ? "" : ", ",
              cpu.brand.c_str());
  if (cpu.x86) {
    std::printf("features:   avx2+fma %s, avx512f %s (OS saves ymm: %s, zmm: %s)\n",
                cpu.avx2_fma ? "yes" : "no", cpu.avx512f ? "yes" : "no",
                cpu.os_saves_ymm ? "yes" : "no", cpu.os_saves_zmm ? "yes" : "no");
  } else if (cpu.aarch64) {
    std::printf("features:   neon %s\n", cpu.neon ? "yes" : "no");
  }
  std::printf("available:  ");
  for (Isa isa : kernels::available_isas()) std::printf("%s ", isa_name(isa));
  std::printf("\nisa:        %s (%s)\n", isa_name(impl.isa), impl.isa_reason.c_str());
  std::printf("sgemm:      %s (tile %d x %d)\n", sgemm.name, sgemm.mr, sgemm.nr);
  const blocking::BlockSizes b =
      blocking::choose_block_sizes({sgemm.mr, sgemm.nr}, o.m, o.n, o.k, impl.overrides);
  std::printf("blocking:   MC %lld, KC %lld, NC %lld for %lld x %lld x %lld%s\n",
              static_cast<long long>(b.mc), static_cast<long long>(b.kc),
              static_cast<long long>(b.nc), static_cast<long long>(o.m),
              static_cast<long long>(o.n), static_cast<long long>(o.k),
              impl.overrides.mc || impl.overrides.kc || impl.overrides.nc
                  ? " (INVAR_MC/KC/NC overrides in force)"
                  : "");
  std::printf("threads:    %d\n", context.num_threads());
  return 0;
}

}  // namespace invar::tool

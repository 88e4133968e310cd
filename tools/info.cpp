#include <cstdio>

#include "api/context_impl.h"
#include "api/gemm_call.h"
#include "arch/cache_topology.h"
#include "arch/cpu_features.h"
#include "blocking/block_sizes.h"
#include "driver/gemm_driver.h"
#include "invar/invar.h"
#include "kernels/bf16_dot.h"
#include "tools/commands.h"

namespace invar::tool {
namespace {

// "L2  512 KiB, 8-way, 64 B lines, 1 worker per cache"; `package` is a package-wide total the
// source reported, when it differs from the reachable size shown.
void print_cache(const char* label, const arch::CacheLevel& c, int64_t package) {
  if (!c.present()) {
    std::printf("%s none\n", label);
    return;
  }
  std::printf("%s %s, %d-way, %d B lines, %d worker%s per cache", label,
              arch::format_bytes(c.bytes).c_str(), c.ways, c.line, c.sharing,
              c.sharing == 1 ? "" : "s");
  if (package > c.bytes) std::printf(" (package total %s)", arch::format_bytes(package).c_str());
  std::printf("\n");
}

}  // namespace

int run_info(const InfoOptions& o) {
  const arch::CpuFeatures& cpu = arch::cpu_features();
  Context& context = Context::default_context();  // throws on a bad INVAR_* setting
  const arch::EffectiveCacheTopology& caches = arch::cache_topology();
  if (!caches.error.empty()) throw InvalidArgument(caches.error);  // a bad INVAR_L1D/L2/L3
  const Context::Impl& impl = context.impl();
  const kernels::GemmKernel& sgemm = impl.kernels->sgemm;

  std::printf("invar %s\n", version());
  std::printf("cpu:        %s%s%s", cpu.vendor.c_str(), cpu.brand.empty() ? "" : ", ",
              cpu.brand.c_str());
  if (cpu.x86) std::printf(" (family 0x%x, model 0x%x)", cpu.family, cpu.model);
  std::printf("\n");
  if (cpu.x86) {
    std::printf(
        "features:   avx2+fma+f16c %s, avx512f %s, avx512bw+vnni %s, avx512-bf16 %s, amx-int8 %s "
        "(OS saves ymm: %s, zmm: %s, tiles: %s)\n",
        cpu.avx2_fma ? "yes" : "no", cpu.avx512f ? "yes" : "no", cpu.avx512_vnni ? "yes" : "no",
        cpu.avx512_bf16 ? "yes" : "no", cpu.amx_int8 ? "yes" : "no",
        cpu.os_saves_ymm ? "yes" : "no", cpu.os_saves_zmm ? "yes" : "no",
        cpu.os_saves_tiles ? "yes" : "no");
  } else if (cpu.aarch64) {
    std::printf("features:   neon %s\n", cpu.neon ? "yes" : "no");
  }
  std::printf("available:  ");
  for (Isa isa : kernels::available_isas()) std::printf("%s ", isa_name(isa));
  std::printf("\nisa:        %s (%s)\n", isa_name(impl.isa), impl.isa_reason.c_str());
  if (impl.isa == Isa::kAvx2 || impl.isa == Isa::kAvx512) {
    // kernels/kernel_set.cpp and kernels/sets/: the x86 sets' forms by vendor and core.
    std::printf("form:       %s", sgemm.b_block_in_l2
                                      ? "B blocks sized for L2 (every x86 core but AMD's)"
                                      : "B blocks sized for L3 (AMD cores)");
    if (impl.isa == Isa::kAvx512)
      std::printf("; A's broadcasts %s",
                  arch::avx512_on_256bit_halves(cpu)
                      ? "folded into the fmas (512-bit operations on 256-bit halves)"
                      : "in registers (512-bit units)");
    std::printf("\n");
  }
  std::printf("sgemm:      %s (tile %d x %d)\n", sgemm.name, sgemm.mr, sgemm.nr);
  const kernels::GemmKernel& dgemm = impl.kernels->dgemm;
  std::printf("dgemm:      %s (tile %d x %d)\n", dgemm.name, dgemm.mr, dgemm.nr);
  const kernels::GemmKernel& sbgemm = impl.kernels->sbgemm;
  std::printf("sbgemm:     %s (tile %d x %d)\n", sbgemm.name, sbgemm.mr, sbgemm.nr);
  const kernels::Bf16DotStatus& dot = kernels::bf16_dot_status();
  std::printf("bf16 dot:   %s %s\n", dot.kernel ? dot.kernel->name : "none",
              impl.sbgemm_dot_reason.c_str());
  if (impl.sbgemm_dot)
    std::printf("            (bf16 products with alpha +-1 and no subnormal risk run it)\n");
  // The integer kernels that products will run: where those are AMX kernels, kernel_for asks
  // the OS for tile data here, as the first integer product would.
  const kernels::GemmKernel& s8gemm = kernels::kernel_for<int8_t>(*impl.kernels);
  const kernels::GemmKernel& u8gemm = kernels::kernel_for<uint8_t>(*impl.kernels);
  for (const kernels::GemmKernel* k : {&s8gemm, &u8gemm})
    std::printf("%s %s (tile %d x %d)\n", k == &s8gemm ? "s8s8s32:   " : "u8s8s32:   ", k->name,
                k->mr, k->nr);
  if (cpu.amx_int8)
    std::printf("            AMX tile data %s by the OS\n",
                arch::request_tile_data() ? "granted" : "refused");
  const arch::CacheTopology& topo = caches.topology;
  print_cache("caches:     L1d", topo.l1d, 0);
  print_cache("            L2 ", topo.l2, 0);
  print_cache("            L3 ", topo.l3, topo.l3_package_bytes);
  std::printf("            from %s\n", topo.source.c_str());
  if (!topo.notes.empty()) std::printf("            (%s)\n", topo.notes.c_str());
  const blocking::TileShape tile = driver::tile_shape(sgemm);
  const blocking::PackedBytes packed{sgemm.a_packed_bytes, sgemm.b_packed_bytes};
  const int64_t kc_max = blocking::kc_limit(topo.l1d, tile, packed);
  std::printf("model:      KC <= %lld (%s), then MC <= %lld (L2), NC <= %lld (%s) at that depth\n",
              static_cast<long long>(kc_max), tile.b_streams ? "B streams" : "L1",
              static_cast<long long>(blocking::l2_mc(topo.l2, tile, packed, kc_max)),
              static_cast<long long>(blocking::nc_limit(topo, tile, packed, kc_max)),
              tile.b_block_in_l2  ? "L2"
              : topo.l3.present() ? "L3"
                                  : "no L3");
  for (const kernels::GemmKernel* k : {&sgemm, &u8gemm}) {
    const blocking::BlockSizes b = blocking::choose_block_sizes(
        topo, driver::tile_shape(*k), {k->a_packed_bytes, k->b_packed_bytes}, o.m, o.n, o.k,
        impl.overrides);
    std::printf(
        "%s MC %lld, KC %lld, NC %lld for %lld x %lld x %lld%s\n",
        k == &sgemm ? "blocking:   f32:" : "            u8s8s32:", static_cast<long long>(b.mc),
        static_cast<long long>(b.kc), static_cast<long long>(b.nc), static_cast<long long>(o.m),
        static_cast<long long>(o.n), static_cast<long long>(o.k),
        impl.overrides.mc || impl.overrides.kc || impl.overrides.nc
            ? " (INVAR_MC/KC/NC overrides in force)"
            : "");
  }
  // The plan each of these kernels takes for the shape (alpha 1, beta 0, A row-major, B
  // row-major or transposed, as the API would pass it): the Plan the engine executes.
  for (const kernels::GemmKernel* k : {&sgemm, &u8gemm}) {
    driver::GemmProblem p;
    p.m = o.m;
    p.n = o.n;
    p.k = o.k;
    p.a_rs = o.k;
    p.a_cs = 1;
    p.b_rs = o.trans_b ? 1 : o.n;
    p.b_cs = o.trans_b ? o.k : 1;
    p.ldc = o.n;
    p.unit_alpha = true;
    p.first_init = kernels::AccInit::kZero;
    p.allow_direct = impl.allow_direct;
    const driver::Plan plan = api::plan_product(impl, *k, p, topo);
    std::printf("%s %lld x %lld x %lld%s, alpha 1, beta 0:\n%s",
                k == &sgemm ? "plan:       f32" : "            u8s8s32",
                static_cast<long long>(o.m), static_cast<long long>(o.n),
                static_cast<long long>(o.k), o.trans_b ? " (B transposed)" : "",
                driver::describe_plan(plan, "              ").c_str());
  }
  std::printf("threads:    %d\n", context.num_threads());
  std::printf("config:     %s\n", invar_get_config());
  return 0;
}

}  // namespace invar::tool

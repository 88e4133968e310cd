// A bf16 or f16 B packed once and kept in 16 bits: panels of the kernel's NR columns over all of
// K (row stride NR, zero-padded), the caller's values unwidened, so a decode step over prepacked
// weights reads half the bytes of f32 panels and widens them in registers
// (GemmKernel::direct_panels_16bit). Products with more rows (or forced through the loop nest)
// widen the panels a run at a time into the kernel's own packed layout, as its packer would have
// made it from the unpacked B, and run over those: the same chains, so the same bits.
#include "api/packed16.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "api/gemm_call.h"

namespace invar::api {

namespace {

std::size_t aligned(std::size_t bytes) {
  return (bytes + runtime::kBufferAlignment - 1) / runtime::kBufferAlignment *
         runtime::kBufferAlignment;
}

// At most about this many bytes of widened panels per run: each run is one product over a
// prepacked B, packing A once (as the loop nest does for each of its column blocks).
constexpr std::size_t kWidenedRunBytes = std::size_t{8} << 20;

void run_planned(Context::Impl& context, const kernels::GemmKernel& kernel,
                 const driver::GemmProblem& p, const arch::CacheTopology& caches) {
  const driver::Plan plan = plan_product(context, kernel, p, caches);
  if (plan.workspace_bytes == 0) {
    driver::run_gemm(kernel, p, plan, nullptr, &context.pool);
  } else {
    auto workspace = context.workspaces.lease();
    driver::run_gemm(kernel, p, plan, &*workspace, &context.pool);
  }
}

struct FreeBuffer {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

std::size_t narrow_b_bytes(const kernels::GemmKernel& kernel, int64_t k, int64_t n) {
  const int64_t panels = (n + kernel.nr - 1) / kernel.nr;
  return aligned(static_cast<std::size_t>(panels * kernel.nr * k) * sizeof(uint16_t));
}

void pack_narrow_b(const kernels::GemmKernel& kernel, int64_t k, int64_t n, const uint16_t* b,
                   int64_t rs, int64_t cs, uint16_t* dst) {
  const int64_t nr = kernel.nr;
  for (int64_t j0 = 0; j0 < n; j0 += nr) {
    const int64_t cols = std::min(nr, n - j0);
    uint16_t* panel = dst + j0 * k;  // panel j0 / nr starts at (j0 / nr) * k * nr
    for (int64_t p = 0; p < k; ++p) {
      uint16_t* row = panel + p * nr;
      for (int64_t j = 0; j < cols; ++j) row[j] = b[p * rs + (j0 + j) * cs];
      for (int64_t j = cols; j < nr; ++j) row[j] = 0;
    }
  }
}

void run_narrow_packed_b(Context::Impl& context, const kernels::GemmKernel& kernel,
                         const driver::GemmProblem& problem, const detail::PackedOperand& b,
                         const arch::CacheTopology& caches) {
  const int64_t nr = kernel.nr, k = problem.k, n = problem.n;
  if (problem.allow_direct && problem.m <= kernels::kDirectMaxRows &&
      kernel.direct_panels_16bit != nullptr && kernel.direct != nullptr) {
    // The decode step: the planner's path over prepacked panels with direct_panels, here the
    // kernel that reads 16-bit panels.
    kernels::GemmKernel narrow = kernel;
    narrow.b_packed_bytes = static_cast<int>(sizeof(uint16_t));
    narrow.direct_panels = kernel.direct_panels_16bit;
    run_planned(context, narrow, problem, caches);
    return;
  }
  // Runs of panels widened into the kernel's packed layout (its pack_b over each 16-bit panel,
  // itself a row-major k x NR matrix), each run a product over a prepacked B.
  const int64_t panels = (n + nr - 1) / nr;
  const std::size_t panel_bytes = static_cast<std::size_t>(k * nr) * kernel.b_packed_bytes;
  const int64_t per_run =
      std::max<int64_t>(1, std::min<int64_t>(panels, kWidenedRunBytes / panel_bytes));
  std::unique_ptr<void, FreeBuffer> buffer(
      std::aligned_alloc(runtime::kBufferAlignment, aligned(per_run * panel_bytes)));
  if (buffer == nullptr) throw std::bad_alloc();
  const auto* narrow_panels = static_cast<const uint16_t*>(b.data.get());
  for (int64_t s0 = 0; s0 < panels; s0 += per_run) {
    const int64_t s1 = std::min(panels, s0 + per_run);
    for (int64_t s = s0; s < s1; ++s) {
      kernel.pack_b(k, std::min(nr, n - s * nr), narrow_panels + s * k * nr, nr, 1,
                    static_cast<char*>(buffer.get()) + (s - s0) * panel_bytes);
    }
    driver::GemmProblem run = problem;
    const int64_t j0 = s0 * nr;
    run.n = std::min(n, s1 * nr) - j0;
    run.c = static_cast<char*>(problem.c) + j0 * kernel.c_bytes;
    run.b_panels = buffer.get();
    run.allow_direct = false;  // the widened panels are the loop nest's
    if (run.epilogue.bias == numeric::Bias::kPerColumn)
      run.epilogue.bias_values =
          static_cast<const char*>(run.epilogue.bias_values) + j0 * run.epilogue.elem_bytes;
    run_planned(context, kernel, run, caches);
  }
}

}  // namespace invar::api

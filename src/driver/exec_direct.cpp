// The paths that pack nothing: Path::kDirect, kDirectTransposed, kSmall, kDirectPrepacked.
#include <algorithm>

#include "driver/executors.h"

namespace invar::driver::exec {

using kernels::AccInit;
using kernels::GemmKernel;

// A product with a few rows, or a small one, and a row-major B: reading B in place beats
// copying it into panels that are used once (or, for a small product, costs less than setting
// packing up). B is read in k-blocks of plan.direct_kc rows (kDirectKc, or all of K for a small
// product or a transposed B): within a block the kernel sweeps its columns left to right.
// Between k-blocks the accumulators go through C, which is exact. Rows go plan.direct_rows at a
// time (direct_mr; kDirectMaxRows over a transposed B); members take contiguous runs of
// plan.direct_cols-column groups, the last run ending at n.
// With B stored transposed (x * W^T) the kernel is direct_t: each column of B is a contiguous row
// of W, and one pass over all of K streams those rows once; over a W in cache it is
// direct_t_cached, and for one thread streaming it from memory direct_t_alone (plan_direct).
void run_direct(const GemmKernel& kern, const GemmProblem& p, const Plan& plan,
                runtime::ThreadPool* pool) {
  const bool transposed = plan.path == Path::kDirectTransposed;
  const int64_t width = plan.direct_cols;
  const int64_t height = plan.direct_rows;
  const auto fn = !transposed            ? kern.direct
                  : plan.direct_t_cached ? kern.direct_t_cached
                  : plan.direct_t_alone  ? kern.direct_t_alone
                                         : kern.direct_t;
  INVAR_DCHECK(fn != nullptr, "the plan's direct kernel exists");
  INVAR_DCHECK(1 <= height && height <= (transposed ? kernels::kDirectMaxRows : kern.direct_mr),
               "the direct kernel gets at most the rows it handles");
  const int64_t ldb = transposed ? p.b_cs : p.b_rs;
  const int64_t k_block = plan.direct_kc;
  if (plan.threads == 1 && p.m <= height && p.k <= k_block) {
    // One member, one row group, one k-block (a tiny product): the loops below make one call.
    fn(p.m, p.n, p.k, p.alpha, p.a, p.a_rs, p.a_cs, p.b, ldb, p.c, p.ldc, p.first_init, p.beta);
    if (!p.epilogue.empty()) numeric::apply_epilogue(p.epilogue, p.c, p.ldc, p.m, p.n, 0, 0);
    return;
  }
  const int64_t groups = (p.n + width - 1) / width;
  auto member = [&](int me, int members) {
    int64_t lo = 0, hi = 0;
    share(groups, me, members, &lo, &hi);
    if (hi == lo) return;
    const int64_t j = lo * width;
    const int64_t cols = std::min(p.n, hi * width) - j;
    for (int64_t i = 0; i < p.m; i += height) {
      const int64_t rows = std::min(height, p.m - i);
      for (int64_t pc = 0; pc < p.k; pc += k_block) {
        const int64_t kc = std::min(k_block, p.k - pc);
        dcheck_k_block(kern, pc, kc, p.k);
        const AccInit init = pc == 0 ? p.first_init : AccInit::kLoad;
        fn(rows, cols, kc, p.alpha, at(p.a, i * p.a_rs + pc * p.a_cs, kern.a_in_bytes), p.a_rs,
           p.a_cs, at(p.b, pc * p.b_rs + j * p.b_cs, kern.b_in_bytes), ldb,
           static_cast<char*>(p.c) + (i * p.ldc + j) * kern.c_bytes, p.ldc, init, p.beta);
      }
      numeric::apply_epilogue(p.epilogue, static_cast<char*>(p.c) + (i * p.ldc + j) * kern.c_bytes,
                              p.ldc, rows, cols, i, j);
    }
  };
  run_members(pool, plan.threads, member);
}

// A product whose operands fit the small path's budget (Plan::small_fits) runs the kernel's
// ukernel_a_in_place: the packed kernel's tiles over A and B in place, no packing at all. Measured
// on the Zen 4 machine against the paths it replaces (invar bench, one thread): 32^3 92 vs 69
// GFLOP/s (direct path), 96^3 109 vs 96, 192^3 104 vs 94, 256^3 107 vs 104, 1024x64x64 108 vs
// 94 (packed loop nest); 48^3 96 vs 102 (direct path). The members take contiguous runs of
// MR-row tiles, or of NR-column groups when there are too few rows (small_split_rows).
void run_small(const GemmKernel& kern, const GemmProblem& p, const Plan& plan,
               runtime::ThreadPool* pool) {
  if (plan.threads == 1) {
    // One member: the whole block in one call (as the split below gives it).
    kern.ukernel_a_in_place(p.m, p.n, p.k, p.a, p.a_rs, p.b, p.b_rs, kern.nr, p.c, p.ldc,
                            p.first_init, p.beta);
    if (!p.epilogue.empty()) numeric::apply_epilogue(p.epilogue, p.c, p.ldc, p.m, p.n, 0, 0);
    return;
  }
  const int64_t row_tiles = (p.m + kern.mr - 1) / kern.mr;
  const int64_t groups = (p.n + kern.nr - 1) / kern.nr;
  auto member = [&](int me, int members) {
    int64_t i = 0, rows = p.m, j = 0, cols = p.n, lo = 0, hi = 0;
    const bool by_rows =
        members == plan.threads ? plan.small_by_rows : small_split_rows(kern, p.m, members);
    if (by_rows) {
      share(row_tiles, me, members, &lo, &hi);
      i = lo * kern.mr;
      rows = std::min(p.m, hi * kern.mr) - i;
    } else {
      share(groups, me, members, &lo, &hi);
      j = lo * kern.nr;
      cols = std::min(p.n, hi * kern.nr) - j;
    }
    if (rows <= 0 || cols <= 0) return;
    INVAR_DCHECK(kern.ukernel_a_in_place != nullptr, "the plan's kernel over A in place exists");
    char* c = static_cast<char*>(p.c) + (i * p.ldc + j) * kern.c_bytes;
    kern.ukernel_a_in_place(rows, cols, p.k, at(p.a, i * p.a_rs, kern.a_in_bytes), p.a_rs,
                            at(p.b, j, kern.b_in_bytes), p.b_rs, kern.nr, c, p.ldc, p.first_init,
                            p.beta);
    numeric::apply_epilogue(p.epilogue, c, p.ldc, rows, cols, i, j);
  };
  run_members(pool, plan.threads, member);
}

// A few rows times a prepacked B (the decode step over prepacked weights): each K x NR panel is
// itself a row-major matrix with NR columns, so the direct kernel streams it once, contiguously,
// over all of K with its accumulators in registers. Members take contiguous runs of panels.
// A kernel with direct_panels takes the A-in-place path instead, which walks a member's run
// with several panels in flight; this is the panel-by-panel walk for the others.
void run_direct_prepacked(const GemmKernel& kern, const GemmProblem& p, const Plan& plan,
                          runtime::ThreadPool* pool) {
  const int64_t nr = plan.direct_cols;
  const int64_t height = plan.direct_rows;
  const int64_t panels = (p.n + nr - 1) / nr;
  const int64_t panel_bytes = p.k * nr * kern.b_packed_bytes;
  auto member = [&](int me, int members) {
    int64_t lo = 0, hi = 0;
    share(panels, me, members, &lo, &hi);
    for (int64_t i = 0; i < p.m; i += height) {
      const int64_t rows = std::min<int64_t>(height, p.m - i);
      for (int64_t s = lo; s < hi; ++s) {
        const int64_t cols = std::min(nr, p.n - s * nr);
        INVAR_DCHECK(1 <= rows && rows <= kern.direct_mr,
                     "the direct kernel gets 1 to direct_mr rows");
        INVAR_DCHECK_GE(cols, 1);
        char* c = static_cast<char*>(p.c) + (i * p.ldc + s * nr) * kern.c_bytes;
        kern.direct(rows, cols, p.k, p.alpha, at(p.a, i * p.a_rs, kern.a_in_bytes), p.a_rs, p.a_cs,
                    static_cast<const char*>(p.b_panels) + s * panel_bytes, nr, c, p.ldc,
                    p.first_init, p.beta);
        numeric::apply_epilogue(p.epilogue, c, p.ldc, rows, cols, i, s * nr);
      }
    }
  };
  run_members(pool, plan.threads, member);
}

}  // namespace invar::driver::exec

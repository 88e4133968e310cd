// Path::kAInPlace: B packed alone (or prepacked), A read in place.
#include <algorithm>

#include "driver/executors.h"

namespace invar::driver::exec {

using kernels::AccInit;
using kernels::GemmKernel;

// A narrow product (reads_a_in_place: few enough panels that a packed A micro-panel would serve
// too few tiles to repay its packing): B is packed alone, in k-blocks of plan.in_place_kc (as
// deep as fit in half of L2, BlockSizes::b_l2_depth; usually all of K), and A is read in place,
// each group of rows running its chains over the whole k-block in registers while the panels
// stream from L2 (and the rows' segment of A from L1 after the first panel). A row-major A with
// alpha 1 goes through the kernel's ukernel_a_in_place (Plan::in_place_tiles: the packed kernel's
// tiles, at most kInPlaceTileRows rows and one tile's), any other through direct_panels (direct_mr
// rows at most, alpha applied to each A value). Between k-blocks the accumulators go through C,
// which is exact. The members take runs of panels (each packs and reads only its own, and nobody
// meets) or runs of rows (Plan::in_place_by_rows; kPanelsSplitRowsPerColumn): they then pack their
// share of each block's panels (a prepacked B needs none) and meet before reading the whole block.
// Two buffers alternate, so one meeting per k-block is enough: a member packing block t + 1 has
// passed the meeting of block t, which everyone reached only after finishing block t - 1, the
// buffer's last reader. Rows are split in near-equal contiguous runs, cut into near-equal groups:
// 64 rows on two members are 32 + 32, each as 6 + 6 + 5 + 5 + 5 + 5, where six-row groups would
// leave a four-row one (and one member 36 rows). The decode step over prepacked weights comes here
// too (at most kDirectMaxRows rows, all of K in one block): the members then take runs of panels,
// each walked with several panels in flight. `workspace` may be null when B is prepacked (nothing
// is packed then).
void run_a_in_place(const GemmKernel& kern, const GemmProblem& p, const Plan& plan,
                    runtime::Workspace* workspace, runtime::ThreadPool* pool) {
  const bool prepacked = p.b_panels != nullptr;
  const bool tiles = plan.in_place_tiles;
  const int64_t nr = kern.nr;
  const int64_t height = plan.in_place_rows;
  const int64_t panels = (p.n + nr - 1) / nr;
  const int64_t kb = plan.in_place_kc;
  const int buffers = plan.in_place_buffers;
  const std::size_t block_bytes = plan.in_place_block_bytes;
  char* const b_packed =
      prepacked ? nullptr : static_cast<char*>(workspace->reserve(buffers * block_bytes));

  auto member = [&](int me, int members, auto&& barrier) {
    // This member's rows and panels.
    const bool by_rows = members == plan.threads ? plan.in_place_by_rows
                                                 : in_place_split_rows(p.m, p.n, plan, nr, members);
    int64_t row_lo = 0, row_hi = p.m, lo = 0, hi = panels;
    if (by_rows)
      share(p.m, me, members, &row_lo, &row_hi);
    else
      share(panels, me, members, &lo, &hi);
    const int64_t groups = (row_hi - row_lo + height - 1) / height;
    const int64_t j = lo * nr;
    const int64_t cols = std::min(p.n, hi * nr) - j;
    int64_t pack_lo = 0, pack_hi = 0;
    share(panels, me, members, &pack_lo, &pack_hi);
    for (int64_t pc = 0, t = 0; pc < p.k; pc += kb, ++t) {
      const int64_t kc = std::min(kb, p.k - pc);
      dcheck_k_block(kern, pc, kc, p.k);
      // This member's panels: rows pc.. of prepacked panels (k * NR apart), or packed here (kc *
      // NR apart). In the rows split the block's panels lie side by side for all to read; in the
      // panels split each member's run starts where a block of the full depth kb would put it,
      // so that members on blocks of different depths (they do not meet) never share a byte.
      const char* my_panels = nullptr;
      int64_t panel_stride = kc * nr;
      if (prepacked) {
        panel_stride = p.k * nr;
        my_panels =
            static_cast<const char*>(p.b_panels) + (lo * p.k * nr + pc * nr) * kern.b_packed_bytes;
      } else {
        char* const buffer = b_packed + (t % buffers) * block_bytes;
        const int64_t pack_at = (by_rows ? kc : kb) * nr * pack_lo;
        if (pack_hi > pack_lo) {
          const int64_t pack_cols = std::min(p.n, pack_hi * nr) - pack_lo * nr;
          kern.pack_b(kc, pack_cols, at(p.b, pc * p.b_rs + pack_lo * nr * p.b_cs, kern.b_in_bytes),
                      p.b_rs, p.b_cs, buffer + pack_at * kern.b_packed_bytes);
        }
        // The block is packed; in the panels split each member reads only what it packed.
        if (by_rows) barrier();
        my_panels = buffer + (by_rows ? lo * panel_stride : pack_at) * kern.b_packed_bytes;
      }
      if (cols <= 0) continue;
      const AccInit init = pc == 0 ? p.first_init : AccInit::kLoad;
      for (int64_t g = 0; g < groups; ++g) {
        int64_t i = 0, i_end = 0;
        share(row_hi - row_lo, static_cast<int>(g), static_cast<int>(groups), &i, &i_end);
        i += row_lo, i_end += row_lo;
        char* c = static_cast<char*>(p.c) + (i * p.ldc + j) * kern.c_bytes;
        if (tiles) {
          kern.ukernel_a_in_place(i_end - i, cols, kc, at(p.a, i * p.a_rs + pc, kern.a_in_bytes),
                                  p.a_rs, my_panels, nr, panel_stride, c, p.ldc, init, p.beta);
        } else {
          INVAR_DCHECK(1 <= i_end - i && i_end - i <= kern.direct_mr,
                       "the direct kernel gets 1 to direct_mr rows");
          kern.direct_panels(i_end - i, cols, kc, p.alpha,
                             at(p.a, i * p.a_rs + pc * p.a_cs, kern.a_in_bytes), p.a_rs, p.a_cs,
                             my_panels, panel_stride, c, p.ldc, init, p.beta);
        }
        if (pc + kc == p.k) numeric::apply_epilogue(p.epilogue, c, p.ldc, i_end - i, cols, i, j);
      }
    }
  };
  run_team(pool, plan.threads, member);
}

}  // namespace invar::driver::exec

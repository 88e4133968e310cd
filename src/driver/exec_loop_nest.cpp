// Path::kLoopNest: the Goto loop nest over packed A and B blocks (gemm_driver.h).
#include <algorithm>
#include <cstring>

#include "driver/executors.h"

namespace invar::driver::exec {
namespace {

using kernels::AccInit;
using kernels::GemmKernel;

// A partial tile (rows < MR or cols < NR) runs through the kernel's edge form when it has one
// (only the tile's rows, C under masks). Otherwise it runs on an MR x NR scratch tile: the
// valid part of C is copied in (unless the accumulators start from zero, where C must not be
// read), the kernel runs on whole registers as usual, and the valid part is copied back. The
// scratch's padding is zeroed so no lane ever computes on uninitialised memory.
void edge_tile(const GemmKernel& kern, int64_t kc, const void* a_panel, const void* b_panel,
               char* c, int64_t ldc, int64_t rows, int64_t cols, AccInit init, const void* alpha,
               const void* beta, char* scratch) {
  INVAR_DCHECK(1 <= rows && rows <= kern.mr, "an edge tile's rows are within the tile");
  INVAR_DCHECK(1 <= cols && cols <= kern.nr, "an edge tile's columns are within the tile");
  if (kern.ukernel_edge != nullptr) {
    kern.ukernel_edge(rows, cols, kc, a_panel, b_panel, c, ldc, init, alpha, beta);
    return;
  }
  const std::size_t row_bytes = static_cast<std::size_t>(cols) * kern.c_bytes;
  const std::size_t scratch_row = static_cast<std::size_t>(kern.nr) * kern.c_bytes;
  std::memset(scratch, 0, scratch_row * kern.mr);
  if (init != AccInit::kZero) {
    for (int64_t i = 0; i < rows; ++i)
      std::memcpy(scratch + i * scratch_row, c + i * ldc * kern.c_bytes, row_bytes);
  }
  kern.ukernel(kc, a_panel, b_panel, scratch, kern.nr, init, alpha, beta);
  for (int64_t i = 0; i < rows; ++i)
    std::memcpy(c + i * ldc * kern.c_bytes, scratch + i * scratch_row, row_bytes);
}

// Where a block of C lies in a product of one triangle (GemmProblem::triangle): its element
// (0, 0) is C's (i0, j0).
struct TriangleBlock {
  Triangle triangle = Triangle::kNone;
  int64_t i0 = 0, j0 = 0;
};

bool in_triangle(Triangle t, int64_t i, int64_t j) {
  return t == Triangle::kUpper ? i <= j : i >= j;
}

// Whether rows [i, i + rows) and columns [j, j + cols) of C share an element with the triangle:
// the upper one holds (i, j + cols - 1) then, the lower one (i + rows - 1, j).
bool meets_triangle(Triangle t, int64_t i, int64_t rows, int64_t j, int64_t cols) {
  return t == Triangle::kNone || (t == Triangle::kUpper ? i <= j + cols - 1 : i + rows - 1 >= j);
}

// A tile across the diagonal: the kernel runs on an MR x NR scratch tile holding the triangle's
// part of C (read unless the accumulators start from zero; zeros elsewhere), and only that part
// is copied back, so the other triangle is neither read nor written. Its elements' chains are
// the full product's: a kernel's chain does not depend on where the tile lies.
void triangle_tile(const GemmKernel& kern, int64_t kc, const void* a_panel, const void* b_panel,
                   char* c, int64_t ldc, int64_t rows, int64_t cols, const TriangleBlock& at_tile,
                   AccInit init, const void* alpha, const void* beta, char* scratch) {
  const int64_t bytes = kern.c_bytes;
  std::memset(scratch, 0, static_cast<std::size_t>(kern.mr * kern.nr * bytes));
  // Row i's part of the triangle is one run of columns: from the diagonal on (upper), or up to
  // it (lower).
  const auto run = [&](int64_t i, int64_t* from, int64_t* to) {
    const int64_t diagonal = at_tile.i0 + i - at_tile.j0;  // the column of element (i, i)
    *from = at_tile.triangle == Triangle::kUpper ? std::clamp<int64_t>(diagonal, 0, cols) : 0;
    *to = at_tile.triangle == Triangle::kUpper ? cols : std::clamp<int64_t>(diagonal + 1, 0, cols);
  };
  for (int64_t i = 0; init != AccInit::kZero && i < rows; ++i) {
    int64_t from = 0, to = 0;
    run(i, &from, &to);
    if (to > from)
      std::memcpy(scratch + (i * kern.nr + from) * bytes, c + (i * ldc + from) * bytes,
                  static_cast<std::size_t>((to - from) * bytes));
  }
  kern.ukernel(kc, a_panel, b_panel, scratch, kern.nr, init, alpha, beta);
  for (int64_t i = 0; i < rows; ++i) {
    int64_t from = 0, to = 0;
    run(i, &from, &to);
    if (to > from)
      std::memcpy(c + (i * ldc + from) * bytes, scratch + (i * kern.nr + from) * bytes,
                  static_cast<std::size_t>((to - from) * bytes));
  }
}

// Asks for the rows of the next C tile while the kernel works on this one: the kernel's first
// instructions load its accumulators from C, and a miss there would stall every chain at once.
// No numeric effect.
// Only on x86 (prefetcht0), and only when the product outgrows the last-level cache
// (BlockSizes::prefetch_c); elsewhere the hardware prefetchers are left alone.
void prefetch_tile(const char* c, int64_t ldc, int64_t rows, const GemmKernel& kern) {
#if defined(__x86_64__) || defined(__i386__)
  const int64_t row_bytes = static_cast<int64_t>(kern.nr) * kern.c_bytes;
  for (int64_t i = 0; i < rows; ++i) {
    const char* row = c + i * ldc * kern.c_bytes;
    __builtin_prefetch(row, 1, 3);
    __builtin_prefetch(row + row_bytes - 1, 1, 3);
  }
#else
  (void)c, (void)ldc, (void)rows, (void)kern;
#endif
}

// All tiles of one packed A block (mc x kc) times one packed B block (kc x nc).
//
// Order: each A micro-panel (MR x kc, small) stays in L1 while the B micro-panels stream past it
// from L2/L3 in the order they were packed, and the C tiles it updates lie side by side along
// one band of MR rows. The other order (one B micro-panel in L1, A streaming) walks C down its
// rows, a page apart for large N, and measured 3-8% slower on the Zen 3 machine at 1024^3-4096^3
// (bench/invar_bench against OpenBLAS in the same run, 1 thread).
// With b_outer the order is the other one: each B micro-panel serves all of the block's rows
// before the next is read. For a B that streams from memory (prepacked weights) past a block of
// a few rows (x * W^T at M = 12..36), reading each panel once instead of once per A micro-panel
// is what counts (Plan::b_outer_rows, kBOuterPanels).
// A and B micro-panels lie a_panel_bytes and b_panel_bytes apart: kc * MR and kc * NR elements
// in packed blocks, k * MR and k * NR in prepacked operands.
// B in place (`b_source`, its rows ldb elements apart): the whole panels of the block are not
// packed yet, and the first row of tiles packs them into b_fill (the block at b_packed) as it
// reads them (GemmKernel::ukernel_packing_b; run_loop_nest gives it a whole first row of tiles); a
// partial last panel is packed already.
struct BSource {
  const char* b = nullptr;
  int64_t ldb = 0;
  char* fill = nullptr;
};

// In a product of one triangle (`block`), the tiles outside it are skipped and those across its
// diagonal run through triangle_tile.
void macro_kernel(const GemmKernel& kern, int64_t mc, int64_t nc, int64_t kc, const char* a_packed,
                  int64_t a_panel_bytes, const char* b_packed, int64_t b_panel_bytes, char* c,
                  int64_t ldc, AccInit init, const void* alpha, const void* beta, char* scratch,
                  bool prefetch_c, bool b_outer, const BSource& b_source = {},
                  const TriangleBlock& block = {}) {
  INVAR_DCHECK_EQ(address_of(b_packed) % b_panel_alignment(kern), 0);
  INVAR_DCHECK_EQ(b_panel_bytes % b_panel_alignment(kern), 0);
  INVAR_DCHECK(b_source.b == nullptr || kern.ukernel_packing_b != nullptr,
               "B is packed by the first row of tiles only by a kernel that can");
  auto tile = [&](int64_t ir, int64_t jr) {
    const int64_t rows = std::min<int64_t>(kern.mr, mc - ir);
    const int64_t cols = std::min<int64_t>(kern.nr, nc - jr);
    const char* a_panel = a_packed + (ir / kern.mr) * a_panel_bytes;
    const char* b_panel = b_packed + (jr / kern.nr) * b_panel_bytes;
    char* c_tile = c + (ir * ldc + jr) * kern.c_bytes;
    if (block.triangle != Triangle::kNone) {
      const int64_t i = block.i0 + ir, j = block.j0 + jr;
      if (!meets_triangle(block.triangle, i, rows, j, cols)) return;
      if (!in_triangle(block.triangle, i + rows - 1, j) ||
          !in_triangle(block.triangle, i, j + cols - 1)) {
        triangle_tile(kern, kc, a_panel, b_panel, c_tile, ldc, rows, cols, {block.triangle, i, j},
                      init, alpha, beta, scratch);
        return;
      }
    }
    if (ir == 0 && b_source.b != nullptr && cols == kern.nr) {
      kern.ukernel_packing_b(kc, a_panel, b_source.b + jr * kern.b_in_bytes, b_source.ldb,
                             b_source.fill + (jr / kern.nr) * b_panel_bytes, c_tile, ldc, init,
                             alpha, beta);
    } else if (rows == kern.mr && cols == kern.nr) {
      kern.ukernel(kc, a_panel, b_panel, c_tile, ldc, init, alpha, beta);
    } else {
      edge_tile(kern, kc, a_panel, b_panel, c_tile, ldc, rows, cols, init, alpha, beta, scratch);
    }
  };
  if (b_outer) {
    for (int64_t jr = 0; jr < nc; jr += kern.nr)
      for (int64_t ir = 0; ir < mc; ir += kern.mr) tile(ir, jr);
    return;
  }
  for (int64_t ir = 0; ir < mc; ir += kern.mr) {
    const int64_t rows = std::min<int64_t>(kern.mr, mc - ir);
    for (int64_t jr = 0; jr < nc; jr += kern.nr) {
      if (prefetch_c && jr + kern.nr < nc)
        prefetch_tile(c + (ir * ldc + jr + kern.nr) * kern.c_bytes, ldc, rows, kern);
      tile(ir, jr);
    }
  }
}

}  // namespace

void run_loop_nest(const GemmKernel& kern, const GemmProblem& p, const Plan& plan,
                   runtime::Workspace& workspace, runtime::ThreadPool* pool) {
  const bool prepacked = p.b_panels != nullptr;
  const bool prepacked_a = p.a_panels != nullptr;
  const int64_t mr = kern.mr, nr = kern.nr;
  const int64_t mc_max = plan.mc;
  const int64_t nc_max = plan.nc;
  const int64_t kc_max = plan.kc;
  const std::size_t a_bytes = plan.a_bytes;
  const std::size_t b_bytes = plan.b_bytes;
  const std::size_t slot_bytes = plan.slot_bytes;
  // One slot per member (Plan::slot_bytes): a packed B block, a packed A block (or a member's
  // rows of a whole k-block) and a scratch tile.
  char* const slots = static_cast<char*>(workspace.reserve(plan.workspace_bytes));

  // One member's whole share of the product; `barrier` waits for the other members.
  auto member = [&](int me, int members, auto&& barrier) {
    char* const b_packed = slots + static_cast<std::size_t>(me) * slot_bytes;
    char* const a_packed = b_packed + b_bytes;
    char* const scratch = a_packed + a_bytes;
    // The kernel's per-thread state is given back when this member has run its last tile, on
    // every exit (GemmKernel::release).
    struct Release {
      void (*fn)();
      ~Release() {
        if (fn != nullptr) fn();
      }
    } const release{kern.release};
    const TeamPlan team = members == plan.threads
                              ? plan.team
                              : team_plan(kern, request_of(p, members, members), plan, members);
    const Partition part = team.partition;
    // This member's rows, cut into blocks of near-equal height in whole tiles (partial tiles
    // only at the end of the run); a prepacked A's runs start on a tile, its panels' origin.
    int64_t row_lo = 0, row_hi = p.m;
    if (part.tm > 1) member_rows(p.m, part.row_unit, me, members, &row_lo, &row_hi, p.triangle);
    const int64_t mc_step =
        blocking::balanced_block(std::max<int64_t>(1, row_hi - row_lo), mc_max, mr);
    // In the rows split without own copies the members pack one B block together (in member
    // 0's slot), meeting before reading it and before packing the next.
    const bool shared_b = team.shared_b;
    // With the columns split every member multiplies all rows of A: the members pack each A
    // block together, a share of its micro-panels each, and meet before reading it. Two buffers
    // (the A slots of members 0 and 1) take turns: a member packs turn t only after the meeting
    // of turn t - 1, which everyone reached after finishing with turn t - 2, the buffer's last
    // use. Two threads, Zen 4, against each member packing all of A (alternating runs): 1024^3
    // +1.0 %, 2048^3 -0.3 %, 4096^3 +0.9 %.
    const bool shared_a = team.shared_a;
    // The k-blocks outer (LoopOrder::kKBlocksOuter) with this member's rows of each packed once.
    const bool whole_a = team.whole_a;
    // A member's own B block of a row-major B is packed by its first row of tiles when the kernel
    // can (GemmKernel::ukernel_packing_b) and that row is whole (the first block has MR rows).
    // (Not in a product of one triangle, whose first row of tiles may skip some.)
    const bool packs_b_on_first_tiles = kern.ukernel_packing_b != nullptr && !prepacked &&
                                        !shared_b && p.b_cs == 1 && row_hi - row_lo >= mr &&
                                        p.triangle == Triangle::kNone;
    INVAR_DCHECK(p.triangle == Triangle::kNone || (p.m == p.n && p.epilogue.empty()),
                 "a triangle of a square C, without an epilogue");
    int64_t a_turn = 0;

    // Column block jc against k-block pc: this member's B panels, then its row blocks. In
    // either order each C element gets its k-blocks in increasing order: the same chains.
    const auto block = [&](int64_t jc, int64_t pc) {
      const int64_t nc = std::min(nc_max, p.n - jc);
      const int64_t panels = (nc + nr - 1) / nr;
      int64_t col_lo = 0, col_hi = panels;
      if (part.tn > 1) share(panels, me, members, &col_lo, &col_hi);
      const int64_t c0 = col_lo * nr;
      const int64_t ncols = std::min(nc, col_hi * nr) - c0;
      const int64_t kc = std::min(kc_max, p.k - pc);
      dcheck_k_block(kern, pc, kc, p.k);
      const AccInit init = pc == 0 ? p.first_init : AccInit::kLoad;
      // In a product of one triangle, a member whose rows have none of its elements in these
      // columns skips the block, unless the team packs B or A together (and meets around it).
      if (!shared_b && !shared_a && ncols > 0 &&
          !meets_triangle(p.triangle, row_lo, row_hi - row_lo, jc + c0, ncols))
        return;
      // This member's B micro-panels, kc * NR apart: packed here into its own block, or by the
      // whole team into a shared one; or rows pc.. of the prepacked panels, k * NR apart.
      const char* my_panels = b_packed;
      int64_t b_panel_bytes = kc * nr * kern.b_packed_bytes;
      BSource b_source;
      if (prepacked) {
        b_panel_bytes = p.k * nr * kern.b_packed_bytes;
        my_panels = static_cast<const char*>(p.b_panels) + (jc / nr + col_lo) * b_panel_bytes +
                    pc * nr * kern.b_packed_bytes;
      } else if (shared_b) {
        char* const shared = slots;  // member 0's B block
        int64_t lo = 0, hi = 0;
        share(panels, me, members, &lo, &hi);
        if (hi > lo) {
          kern.pack_b(kc, std::min(nc, hi * nr) - lo * nr,
                      at(p.b, pc * p.b_rs + (jc + lo * nr) * p.b_cs, kern.b_in_bytes), p.b_rs,
                      p.b_cs, shared + lo * b_panel_bytes);
        }
        barrier();  // the whole B block is packed
        my_panels = shared;
      } else if (ncols > 0 && packs_b_on_first_tiles) {
        // The first row of tiles packs the whole panels; a partial one is packed here.
        const int64_t whole = ncols / nr * nr;
        b_source = {at(p.b, pc * p.b_rs + jc + c0, kern.b_in_bytes), p.b_rs, b_packed};
        if (whole < ncols) {
          kern.pack_b(kc, ncols - whole, at(p.b, pc * p.b_rs + jc + c0 + whole, kern.b_in_bytes),
                      p.b_rs, p.b_cs, b_packed + whole / nr * b_panel_bytes);
        }
      } else if (ncols > 0) {
        kern.pack_b(kc, ncols, at(p.b, pc * p.b_rs + (jc + c0) * p.b_cs, kern.b_in_bytes), p.b_rs,
                    p.b_cs, b_packed);
      }

      for (int64_t ic = row_lo; (shared_a || ncols > 0) && ic < row_hi; ic += mc_step) {
        const int64_t mc = std::min(mc_step, row_hi - ic);
        // Rows without an element of the triangle here: nothing to pack or run, unless the team
        // packs the A block together.
        const bool meets = meets_triangle(p.triangle, ic, mc, jc + c0, ncols);
        if (!meets && !shared_a) continue;
        // The A block's micro-panels, kc * MR apart: packed here, or by the team, or part of
        // this member's whole k-block; or rows pc.. of the prepacked panels (ic is a multiple
        // of MR), k * MR apart.
        const char* a_block = a_packed;
        int64_t a_panel_bytes = kc * mr * kern.a_packed_bytes;
        if (prepacked_a) {
          a_panel_bytes = p.k * mr * kern.a_packed_bytes;
          a_block = static_cast<const char*>(p.a_panels) + (ic / mr) * a_panel_bytes +
                    pc * mr * kern.a_packed_bytes;
        } else if (whole_a) {
          a_block = a_packed + (ic - row_lo) / mr * a_panel_bytes;
        } else if (shared_a) {
          char* const buffer = slots + (a_turn++ % 2) * slot_bytes + b_bytes;
          int64_t lo = 0, hi = 0;
          share((mc + mr - 1) / mr, me, members, &lo, &hi);
          if (hi > lo) {
            kern.pack_a(std::min(mc, hi * mr) - lo * mr, kc,
                        at(p.a, (ic + lo * mr) * p.a_rs + pc * p.a_cs, kern.a_in_bytes), p.a_rs,
                        p.a_cs, p.alpha, buffer + lo * a_panel_bytes);
          }
          barrier();  // the whole A block is packed
          a_block = buffer;
        } else {
          kern.pack_a(mc, kc, at(p.a, ic * p.a_rs + pc * p.a_cs, kern.a_in_bytes), p.a_rs, p.a_cs,
                      p.alpha, a_packed);
        }
        if (ncols <= 0 || !meets) continue;  // a member without columns only helps pack A
        char* c_block = static_cast<char*>(p.c) + (ic * p.ldc + jc + c0) * kern.c_bytes;
        macro_kernel(kern, mc, ncols, kc, a_block, a_panel_bytes, my_panels, b_panel_bytes, c_block,
                     p.ldc, init, p.alpha, p.beta, scratch, plan.blocks.prefetch_c,
                     prepacked && mc <= plan.b_outer_rows, b_source, {p.triangle, ic, jc + c0});
        b_source = {};  // the block is packed
        // The block's chains end with the last k-block: its epilogue runs while it is in cache.
        if (pc + kc == p.k)
          numeric::apply_epilogue(p.epilogue, c_block, p.ldc, mc, ncols, ic, jc + c0);
      }
      // A shared block is packed again only once nobody reads it (after the last one, the
      // pool's run() waits for everyone). Own blocks and the A buffers need no meeting here.
      if (shared_b && !(pc + kc == p.k && jc + nc == p.n)) barrier();
    };

    INVAR_DCHECK_EQ(address_of(b_packed) % 64, 0);
    if (whole_a) {
      for (int64_t pc = 0; pc < p.k; pc += kc_max) {
        kern.pack_a(row_hi - row_lo, std::min(kc_max, p.k - pc),
                    at(p.a, row_lo * p.a_rs + pc * p.a_cs, kern.a_in_bytes), p.a_rs, p.a_cs,
                    p.alpha, a_packed);
        for (int64_t jc = 0; jc < p.n; jc += nc_max) block(jc, pc);
      }
    } else {
      for (int64_t jc = 0; jc < p.n; jc += nc_max)
        for (int64_t pc = 0; pc < p.k; pc += kc_max) block(jc, pc);
    }
  };
  run_team(pool, plan.threads, member);
}

}  // namespace invar::driver::exec

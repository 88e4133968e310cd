#include "driver/gemm_driver.h"

#include <algorithm>
#include <cstring>

namespace invar::driver {
namespace {

using kernels::AccInit;
using kernels::GemmKernel;

std::size_t align_up(std::size_t x) {
  return (x + runtime::kBufferAlignment - 1) / runtime::kBufferAlignment *
         runtime::kBufferAlignment;
}

const char* at(const void* base, int64_t elements, int elem_bytes) {
  return static_cast<const char*>(base) + elements * elem_bytes;
}

// A partial tile (rows < MR or cols < NR) runs through the kernel's edge form when it has one
// (only the tile's rows, C under masks). Otherwise it runs on an MR x NR scratch tile: the
// valid part of C is copied in (unless the accumulators start from zero, where C must not be
// read), the kernel runs on whole registers as usual, and the valid part is copied back. The
// scratch's padding is zeroed so no lane ever computes on uninitialised memory.
void edge_tile(const GemmKernel& kern, int64_t kc, const void* a_panel, const void* b_panel,
               char* c, int64_t ldc, int64_t rows, int64_t cols, AccInit init, const void* alpha,
               const void* beta, char* scratch) {
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
// is what counts (see kBOuterPanels).
// A and B micro-panels lie a_panel_bytes and b_panel_bytes apart: kc * MR and kc * NR elements
// in packed blocks, k * MR and k * NR in prepacked operands.
// B in place (`b_source`, its rows ldb elements apart): the whole panels of the block are not
// packed yet, and the first row of tiles packs them into b_fill (the block at b_packed) as it
// reads them (GemmKernel::ukernel_packing_b; run_gemm gives it a whole first row of tiles); a
// partial last panel is packed already.
struct BSource {
  const char* b = nullptr;
  int64_t ldb = 0;
  char* fill = nullptr;
};

void macro_kernel(const GemmKernel& kern, int64_t mc, int64_t nc, int64_t kc, const char* a_packed,
                  int64_t a_panel_bytes, const char* b_packed, int64_t b_panel_bytes, char* c,
                  int64_t ldc, AccInit init, const void* alpha, const void* beta, char* scratch,
                  bool prefetch_c, bool b_outer, const BSource& b_source = {}) {
  auto tile = [&](int64_t ir, int64_t jr) {
    const int64_t rows = std::min<int64_t>(kern.mr, mc - ir);
    const int64_t cols = std::min<int64_t>(kern.nr, nc - jr);
    const char* a_panel = a_packed + (ir / kern.mr) * a_panel_bytes;
    const char* b_panel = b_packed + (jr / kern.nr) * b_panel_bytes;
    char* c_tile = c + (ir * ldc + jr) * kern.c_bytes;
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

// Up to how many A micro-panels a row block runs macro_kernel's B-outer order over a prepacked
// B. Measured x * W^T, W 4096 x 4096 prepacked (64 MiB, streaming from memory), one thread,
// against the A-outer order (alternating runs, Zen 3 machine): M = 12 +32 %, 16 +23 %, 18 +39 %,
// 24 +31 %, 36 +10 %, 48 +-0. Over a B packed in the call (just written, in cache) the B-outer
// order lost 12-26 % at M = 24..48: C's rows, a page apart, then pass through L1 once per panel.
constexpr int64_t kBOuterPanels = 6;

// Up to this many bytes of packed A per member, a product over B blocks sized for L2 runs its
// k-blocks outer: each member packs the A of its rows for a whole k-block once and runs every
// column block against it (run_gemm). A is then read from the caller's memory once per k-block
// instead of once per column block, and its micro-panels come back from L3 in packed order. On
// the Intel Xeon of block_sizes.h, alternating runs against the column-block-outer order
// (median GFLOP/s, GOP/s for u8 x s8). One thread: f32 1536^3 158.1 -> 162.9, 2048^3
// 161.6 -> 164.0, 4096^3 156.4 -> 158.7; u8 x s8 2048^3 1998 -> 2167, 4096^3 1755 -> 1905; f64
// 2048^3 73.3 -> 76.0 (every one of the nine f32 pairs faster). Two threads (rows split, one
// shared B block): f32 2048^3 305.5-306.1 -> 311.2-313.1, 3000^3 311-313 -> 317-321, 4096^3
// level (300-309 against 298-316); u8 x s8 2048^3 3786-3923 -> 4082-4227, 4096^3 3296-3364 ->
// 3735-3838; f64 2048^3 146-147 -> 148-153.
constexpr std::size_t kWholeKBlockABytes = std::size_t{8} << 20;

// How the members of a team share one product: by rows (each member a contiguous run of rows,
// all columns) or by columns (each a contiguous run of B micro-panels, all rows). K is never
// split. In the columns split each member packs its own B panels, and the members pack each A
// block together (a share of its micro-panels each) and meet before reading it. In the rows
// split every member reads all of each B block: each packs a copy of its own when the team's
// copies fit together in one block's L3 budget, else the members pack one block together.
//
// Packing into lines that another core has read is slow: the store waits for the other copy
// to be invalidated. On the Zen 4 a core wrote 2 MiB that both cores had read at 25 GB/s
// against 72 GB/s for lines only it had read (256 KiB still in the other core's L2: 7 against
// 76 GB/s), and in a rows split of 512^3 on two threads each member took 135-161k TSC cycles to
// pack its half of a shared B block, 75k for the whole block into its own buffer (which also
// saves the meetings around each block). Own copies against one shared block in the same split
// (TSC cycles per call): 512^3 -3.7 %, 96 x 1024 x 1024 -8 %. Large blocks stay shared (the
// budget): at 4096^3 the rows split with own 8 MiB copies ran 4.2 % slower than the columns
// split (alternating runs, 0.927-0.979), with one shared block 1.4 % faster (0.995-1.047); own
// against shared copies in the same split measured -5 % (2048^3) to +1.6 % (4096^3) on a
// noisy host, undecided.
//
// The choice weighs the busiest member's share of the rows against its share of the panels,
// each charged the packing the split adds to a member's multiply-adds: the rows split the
// other members' panels of B in its own copy, or its share of a shared B block at the
// contended rate; the columns split its share of each A block at the contended rate. Equal
// counts go to rows. Rows are split only with at least two tiles of rows per member.
// What it chooses, against the other split (two threads, Zen 4, alternating runs): columns at
// 96 x 1024 x 1024 (5.9 % faster), 128 x 4096 x 4096 (3 %), 64 x 4096 x 4096; rows at
// 192 x 1024 x 1024 (4.5 %), 384 x 1024 x 1024 (4.8 %), 1024 x 256 x 1024 (5.4 %), 512^3 (2 %),
// 1024^3 (0.7 %), level at 512 x 2048 x 512.
// Over a prepacked B (weights streaming from memory) a few rows are split by columns too, so that
// B is read once: x * W^T, W 4096 x 4096 prepacked, 2 threads, M = 24 +10 %, M = 36 +30 %
// against the rows split (alternating runs, Zen 3 machine).
struct Partition {
  int tm = 1;            // members along M
  int tn = 1;            // members along N
  int64_t row_unit = 1;  // the rows split's boundaries are multiples of it (member_rows)
};

// The most rows any of `members` gets from member_rows.
int64_t widest_rows(int64_t m, int64_t unit, int members) {
  int64_t widest = 0;
  for (int i = 0; i < members; ++i) {
    int64_t lo = 0, hi = 0;
    member_rows(m, unit, i, members, &lo, &hi);
    widest = std::max(widest, hi - lo);
  }
  return widest;
}

// The busiest member's share (per_member of `items`) as a multiple of an even share.
double imbalance(int64_t items, int64_t per_member, int members) {
  return static_cast<double>(per_member) * members / static_cast<double>(items);
}

// What packing one element costs in the kernel's multiply-adds, measured on one Zen 4 thread at
// 512^3 (145k and 75k TSC cycles for 262144 elements of A and of B, against about 22
// multiply-adds per cycle), and the factor for packing into lines the other members read (the
// 3x above, at L3).
constexpr double kPackAElementFmas = 12.0;
constexpr double kPackBElementFmas = 6.0;
constexpr double kContendedPacking = 3.0;

// own_b: in a rows split each member would pack a B block of its own.
Partition partition(int64_t m, int64_t n, int64_t panels, int64_t mr, int members, bool packs_a,
                    bool packs_b, bool own_b, bool prepacked_b) {
  Partition part;
  part.tn = members;
  // A prepacked A's panels start on whole tiles.
  part.row_unit = packs_a ? 1 : mr;
  const int64_t row_tiles = (m + mr - 1) / mr;
  if (members == 1 || row_tiles < 2 * members) return part;
  // A prepacked B streams from memory; split by rows, each member would stream all of it.
  if (prepacked_b && row_tiles <= members * kBOuterPanels) return part;
  const int64_t busiest = widest_rows(m, part.row_unit, members);
  // Per member and element of B (of A), the rows' (columns') split does m / members
  // (n / members) multiply-adds; it packs (members - 1) / members of an element more into its
  // own copy, or 1 / members of one at the contended rate.
  const double b_charge =
      !packs_b ? 0.0
      : own_b  ? kPackBElementFmas * (members - 1)
               : kPackBElementFmas * kContendedPacking;
  const double a_charge = packs_a ? kPackAElementFmas * kContendedPacking : 0.0;
  const double by_rows = imbalance(m, busiest, members) + b_charge / static_cast<double>(m);
  const double by_cols = imbalance(panels, (panels + members - 1) / members, members) +
                         a_charge / static_cast<double>(n);
  if (by_cols < by_rows) return part;
  part.tm = members;
  part.tn = 1;
  return part;
}

// [lo, hi) of `count` items for member `i` of `n`, contiguous and near-equal.
void share(int64_t count, int i, int n, int64_t* lo, int64_t* hi) {
  *lo = count * i / n;
  *hi = count * (i + 1) / n;
}

// member(me, members) on the calling thread alone, or on a team of `threads` from the pool.
template <class Member>
void run_members(runtime::ThreadPool* pool, int threads, const Member& member) {
  if (threads <= 1 || pool == nullptr) {
    member(0, 1);
  } else {
    pool->run(threads, [&](runtime::Team& team) { member(team.tid(), team.size()); });
  }
}

// Below this many flops per member a second thread costs more in start-up and barriers than it
// saves. An order-of-magnitude choice: 0.25 Mflop is ~2.3 us on one Zen 4 core, against ~1 us to
// wake a spinning pool thread and ~0.3 us per barrier (measured on a Zen 3). At 1 Mflop the
// small squares stayed on one thread while oneDNN ran them on two (80^3: 105 against 173
// GFLOP/s); at 0.25 Mflop, two threads (invar bench, Zen 4): 64^3 107 -> 119, 80^3 102 -> 151,
// 96^3 106 -> 175 GFLOP/s. (At 4 Mflop, 128^3 had stayed on one thread.)
constexpr double kMinFlopsPerThread = 2.5e5;

}  // namespace

void member_rows(int64_t m, int64_t unit, int me, int members, int64_t* lo, int64_t* hi) {
  // Boundary i: the multiple of `unit` nearest to i * m / members (halves round up), m at the
  // end. Nondecreasing in i, so the runs are contiguous and cover [0, m).
  const auto boundary = [&](int i) {
    if (i >= members) return m;
    const int64_t even = m * i / members;
    return std::min(m, (even + unit / 2) / unit * unit);
  };
  *lo = boundary(me);
  *hi = boundary(me + 1);
}

int useful_threads(int64_t m, int64_t n, int64_t k, int threads) {
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (threads <= 1 || flops < 2.0 * kMinFlopsPerThread) return 1;  // no division on the way
  const double limit = flops / kMinFlopsPerThread;
  return limit < threads ? static_cast<int>(limit) : threads;
}

namespace {

// A product with a few rows, or a small one, and a row-major B: reading B in place beats
// copying it into panels that are used once (or, for a small product, costs less than setting
// packing up). B is read in k-blocks of kDirectKc rows: within a block the kernel sweeps its
// columns left to right, so the kDirectKc rows stream sequentially (a strip of one column group
// down all of K would touch a new page every row). Between k-blocks the accumulators go through
// C, which is exact. Rows go direct_mr at a time (kDirectMaxRows over a transposed B); members
// take contiguous runs of direct_nr-column groups, the last run ending at n.
// Measured best of 4, 8, 16, 32 at M = 1 and M = 4, N = K = 4096, one thread, on the Zen 3
// machine (bench/invar_bench against BLIS in the same run).
constexpr int64_t kDirectKc = 8;

// Products up to this many multiply-adds (64^3) with a row-major B take the direct path whatever
// M is: everything fits in L1/L2 and setting packing up would dominate. On the Zen 3 machine
// the direct path ran 16^3-32^3 products 1.5x faster than OpenBLAS and 64^3 at 57 GFLOP/s.
constexpr double kSmallDirectFmas = 262144.0;

// With B stored transposed (x * W^T) the kernel is direct_t: each column of B is a contiguous row
// of W, and one pass over all of K streams those rows once.
void run_direct(const GemmKernel& kern, const GemmProblem& p, runtime::ThreadPool* pool,
                int threads, bool small, bool transposed) {
  const int64_t width = transposed ? kern.direct_t_nr : kern.direct_nr;
  const int64_t height = transposed ? kernels::kDirectMaxRows : kern.direct_mr;
  const auto fn = transposed ? kern.direct_t : kern.direct;
  const int64_t ldb = transposed ? p.b_cs : p.b_rs;
  // A small product's B is in cache: one pass over all of K keeps the accumulators in registers.
  const int64_t k_block = small || transposed ? std::max<int64_t>(p.k, 1) : kDirectKc;
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
        const AccInit init = pc == 0 ? p.first_init : AccInit::kLoad;
        fn(rows, cols, kc, p.alpha, at(p.a, i * p.a_rs + pc * p.a_cs, kern.a_in_bytes), p.a_rs,
           p.a_cs, at(p.b, pc * p.b_rs + j * p.b_cs, kern.b_in_bytes), ldb,
           static_cast<char*>(p.c) + (i * p.ldc + j) * kern.c_bytes, p.ldc, init, p.beta);
      }
      numeric::apply_epilogue(p.epilogue, static_cast<char*>(p.c) + (i * p.ldc + j) * kern.c_bytes,
                              p.ldc, rows, cols, i, j);
    }
  };
  run_members(pool, threads, member);
}

// A product whose operands fit the small kernel's budget (GemmProblem::small_fits) runs the
// kernel's small form: the packed kernel's tiles over A and B in place, no packing at all.
// Measured on the Zen 4 machine against the paths it replaces (invar bench, one thread): 32^3
// 92 vs 69 GFLOP/s (direct path), 96^3 109 vs 96, 192^3 104 vs 94, 256^3 107 vs 104,
// 1024x64x64 108 vs 94 (packed loop nest); 48^3 96 vs 102 (direct path). The members take
// contiguous runs of MR-row tiles, or of NR-column groups when there are too few rows.
void run_small(const GemmKernel& kern, const GemmProblem& p, runtime::ThreadPool* pool,
               int threads) {
  const int64_t row_tiles = (p.m + kern.mr - 1) / kern.mr;
  const int64_t groups = (p.n + kern.nr - 1) / kern.nr;
  auto member = [&](int me, int members) {
    int64_t i = 0, rows = p.m, j = 0, cols = p.n, lo = 0, hi = 0;
    if (row_tiles >= 2 * members) {
      share(row_tiles, me, members, &lo, &hi);
      i = lo * kern.mr;
      rows = std::min(p.m, hi * kern.mr) - i;
    } else {
      share(groups, me, members, &lo, &hi);
      j = lo * kern.nr;
      cols = std::min(p.n, hi * kern.nr) - j;
    }
    if (rows <= 0 || cols <= 0) return;
    char* c = static_cast<char*>(p.c) + (i * p.ldc + j) * kern.c_bytes;
    kern.small(rows, cols, p.k, at(p.a, i * p.a_rs, kern.a_in_bytes), p.a_rs,
               at(p.b, j, kern.b_in_bytes), p.b_rs, kern.nr, c, p.ldc, p.first_init, p.beta);
    numeric::apply_epilogue(p.epilogue, c, p.ldc, rows, cols, i, j);
  };
  run_members(pool, threads, member);
}

// What packing A and B would add to a product's multiply-adds (kPackAElementFmas per element of
// A, m k of them, and kPackBElementFmas per element of B, k n, against m n k).
double packing_share(int64_t m, int64_t n) {
  return kPackAElementFmas / static_cast<double>(n) + kPackBElementFmas / static_cast<double>(m);
}

// The small path saves packing, but its tiles run slower over operands in place (B's rows read
// ldb apart) than over packed panels: beyond 64^3 multiply-adds it takes a product whose packing
// would add at least this share. Measured on the Intel Xeon of block_sizes.h (invar bench,
// alternating runs, small path against the loop nest, GFLOP/s, one thread / two): 256^3
// (share 7 %) 166-172 / 305-323 against 161-166 / 236-238, 384^3 (4.7 %) level / 299-306
// against 276-278, 1024 x 256 x 512 (5.3 %) 161-168 against 153-154; 448^3 to 500^3
// (3.6-4 %) level; 512^3 (3.5 %) 151-161 / 269-288 against 161-164 / 298-301, 256 x 1024 x 128
// (3.5 %) 149-151 against 156-162, 2000 x 500 x 256 (2.7 %) 155-163 / 301-304 against
// 167-172 / 323-331, 1000 x 1000 x 64 (1.8 %) 156-157 against 166-167.
constexpr double kSmallPackingShare = 0.04;

// A few rows times a prepacked B (the decode step over prepacked weights): each K x NR panel is
// itself a row-major matrix with NR columns, so the direct kernel streams it once, contiguously,
// over all of K with its accumulators in registers. Members take contiguous runs of panels.
// A kernel with direct_panels takes run_a_in_place instead, which walks a member's run with
// several panels in flight (one core read 21 GB/s from one stream and 29 from four on the Zen 3
// machine); this is the panel-by-panel walk for the others.
void run_direct_prepacked(const GemmKernel& kern, const GemmProblem& p, runtime::ThreadPool* pool,
                          int threads) {
  const int64_t nr = kern.nr;
  const int64_t panels = (p.n + nr - 1) / nr;
  const int64_t panel_bytes = p.k * nr * kern.b_packed_bytes;
  auto member = [&](int me, int members) {
    int64_t lo = 0, hi = 0;
    share(panels, me, members, &lo, &hi);
    for (int64_t i = 0; i < p.m; i += kernels::kDirectMaxRows) {
      const int64_t rows = std::min<int64_t>(kernels::kDirectMaxRows, p.m - i);
      for (int64_t s = lo; s < hi; ++s) {
        const int64_t cols = std::min(nr, p.n - s * nr);
        char* c = static_cast<char*>(p.c) + (i * p.ldc + s * nr) * kern.c_bytes;
        kern.direct(rows, cols, p.k, p.alpha, at(p.a, i * p.a_rs, kern.a_in_bytes), p.a_rs,
                    p.a_cs, static_cast<const char*>(p.b_panels) + s * panel_bytes, nr, c, p.ldc,
                    p.first_init, p.beta);
        numeric::apply_epilogue(p.epilogue, c, p.ldc, rows, cols, i, s * nr);
      }
    }
  };
  run_members(pool, threads, member);
}

// A narrow product (reads_a_in_place: few enough panels that a packed A micro-panel would serve
// too few tiles to repay its packing): B is packed alone, in k-blocks as deep as fit in half of
// L2 (BlockSizes::b_l2_depth; usually all of K), and A is read in place, each group of rows
// running its chains over the whole k-block in registers while the panels stream from L2 (and
// the rows' segment of A from L1 after the first panel). A row-major A with alpha 1 goes through
// the kernel's small form (in_place_tiles: the packed kernel's tiles, at most kInPlaceTileRows
// rows and one tile's), any other through direct_panels (direct_mr rows at most, alpha applied
// to each A value).
// Between k-blocks the accumulators go through C, which is exact.
// The members take runs of panels (each packs and reads only its own, and nobody meets) when
// there are enough panels and A is at most kPanelsSplitRowsPerColumn times as tall as B is wide;
// else runs of rows: they then pack their share of each block's panels (a prepacked B needs
// none) and meet before reading the whole block. Two buffers alternate, so one meeting per
// k-block is enough: a member packing block t + 1 has passed the meeting of block t, which
// everyone reached only after finishing block t - 1, the buffer's last reader. Rows are split in
// near-equal contiguous runs, cut into near-equal groups: 64 rows on two members are 32 + 32,
// each as 6 + 6 + 5 + 5 + 5 + 5, where six-row groups would leave a four-row one (and one member
// 36 rows).
// try_direct also sends the decode step over prepacked weights here (at most kDirectMaxRows rows,
// all of K in one block): the members then take runs of panels, each walked with several panels
// in flight.
// `workspace` may be null when B is prepacked (nothing is packed then).
// The tiles' row groups: each row of A is a stream from memory, and the tiles ran fastest at 6 to
// 10 rows and 25-30 % slower at 12 (Zen 4, 4096x32x1024 and 1024x64x2048, one thread): more
// streams than the prefetchers follow. Against direct_panels, in alternating runs at 8 rows, one
// thread: 4096x32x1024 +13 %, 1024x64x2048 +10 %, 64x64x65536 +11 %, 300x40x5000 +18 %, f64
// 4096x32x1024 +9 %; 512x32x512 -4 % (its A is in cache, where 8 rows are too few); two
// threads 4096x32x1024 +17 %.
constexpr int64_t kInPlaceTileRows = 8;

// In the panels split each member reads all of A in place but only the panels it packed itself;
// in the rows split half of A but all of each B block, half of it packed by (and read from the
// cache of) the other member, after a meeting per block. Measured on the Intel Xeon of
// block_sizes.h, two threads, alternating runs, panels against rows split (GFLOP/s): m / n = 1,
// 64x64x65536 230-244 against 172-174, 128x128x16384 280-289 / 227-240; 64x128x32768 246-247 /
// 186-188; 128x64x16384 287-296 / 233-235; 256x64x8192 315-325 / 278-285; 512x64x4096 353-355
// / 314-320; 1024x128x1024 325-336 / 316-335; m / n = 16, 1024x64x2048 333-335 / 322-325; at 32
// and beyond the rows split wins or ties: 2048x64x1024 333-337 / 352-354, 4096x128x1024 312-329
// / 332-338, 4096x64x1024 328-330 / 344-347, 2048x64x4096 343-349 / 322-339, 8192x64x512 level.
constexpr int64_t kPanelsSplitRowsPerColumn = 8;

void run_a_in_place(const GemmKernel& kern, const GemmProblem& p, int64_t depth,
                    runtime::Workspace* workspace, runtime::ThreadPool* pool, int threads) {
  const bool prepacked = p.b_panels != nullptr;
  const bool tiles = in_place_tiles(kern, p);
  const int64_t nr = kern.nr;
  const int64_t height = tiles ? std::min<int64_t>(kInPlaceTileRows, kern.mr) : kern.direct_mr;
  const int64_t panels = (p.n + nr - 1) / nr;
  const int64_t kb = blocking::balanced_block(p.k, std::max<int64_t>(1, depth), kern.k_unit);
  const int buffers = kb < p.k ? 2 : 1;
  const std::size_t block_bytes = packed_b_bytes(kern, kb, p.n);
  char* const b_packed =
      prepacked ? nullptr : static_cast<char*>(workspace->reserve(buffers * block_bytes));
  const int64_t row_groups = (p.m + height - 1) / height;
  if (pool == nullptr) threads = 1;

  auto member = [&](int me, int members, auto&& barrier) {
    // This member's rows and panels.
    const bool by_rows =
        row_groups >= members && !(panels >= members && p.m <= kPanelsSplitRowsPerColumn * p.n);
    int64_t row_lo = 0, row_hi = p.m, lo = 0, hi = panels;
    if (by_rows) share(p.m, me, members, &row_lo, &row_hi);
    else share(panels, me, members, &lo, &hi);
    const int64_t groups = (row_hi - row_lo + height - 1) / height;
    const int64_t j = lo * nr;
    const int64_t cols = std::min(p.n, hi * nr) - j;
    int64_t pack_lo = 0, pack_hi = 0;
    share(panels, me, members, &pack_lo, &pack_hi);
    for (int64_t pc = 0, t = 0; pc < p.k; pc += kb, ++t) {
      const int64_t kc = std::min(kb, p.k - pc);
      // This member's panels: rows pc.. of prepacked panels (k * NR apart), or packed here (kc *
      // NR apart). In the rows split the block's panels lie side by side for all to read; in the
      // panels split each member's run starts where a block of the full depth kb would put it,
      // so that members on blocks of different depths (they do not meet) never share a byte.
      const char* my_panels = nullptr;
      int64_t panel_stride = kc * nr;
      if (prepacked) {
        panel_stride = p.k * nr;
        my_panels = static_cast<const char*>(p.b_panels) +
                    (lo * p.k * nr + pc * nr) * kern.b_packed_bytes;
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
          kern.small(i_end - i, cols, kc, at(p.a, i * p.a_rs + pc, kern.a_in_bytes), p.a_rs,
                     my_panels, nr, panel_stride, c, p.ldc, init, p.beta);
        } else {
          kern.direct_panels(i_end - i, cols, kc, p.alpha,
                             at(p.a, i * p.a_rs + pc * p.a_cs, kern.a_in_bytes), p.a_rs, p.a_cs,
                             my_panels, panel_stride, c, p.ldc, init, p.beta);
        }
        if (pc + kc == p.k) numeric::apply_epilogue(p.epilogue, c, p.ldc, i_end - i, cols, i, j);
      }
    }
  };
  if (threads <= 1) {
    member(0, 1, [] {});
  } else {
    pool->run(threads, [&](runtime::Team& team) {
      member(team.tid(), team.size(), [&team] { team.barrier(); });
    });
  }
}

}  // namespace

bool in_place_tiles(const kernels::GemmKernel& kern, const GemmProblem& p) {
  return kern.small != nullptr && kern.mr > kern.direct_mr && p.unit_alpha && p.a_cs == 1 &&
         p.m > kernels::kDirectMaxRows;
}

bool reads_a_in_place(const kernels::GemmKernel& kern, const GemmProblem& p,
                      const blocking::BlockSizes& blocks, int threads) {
  const bool whole_k = blocks.b_l2_depth >= p.k;
  const bool tiles = in_place_tiles(kern, p);
  // The tiles need no direct_panels; without the tiles a kernel lacking it has no such path.
  const int64_t panels = tiles                           ? kInPlaceTilePanels
                         : kern.direct_panels == nullptr ? 0
                         : threads > 1                   ? kern.a_in_place_team_panels
                                                         : kern.a_in_place_panels;
  return p.allow_direct && (whole_k || blocks.b_l2_depth >= kMinInPlaceDepth) &&
         p.n <= panels * kern.nr && p.a_panels == nullptr && p.m > kernels::kDirectMaxRows;
}

std::size_t packed_a_bytes(const GemmKernel& kern, int64_t m, int64_t k) {
  const int64_t panels = (m + kern.mr - 1) / kern.mr;
  return align_up(static_cast<std::size_t>(panels * kern.mr * k) * kern.a_packed_bytes);
}

void pack_a_whole(const GemmKernel& kern, int64_t m, int64_t k, const void* a, int64_t a_rs,
                  int64_t a_cs, const void* alpha, void* dst) {
  // One block of m rows and depth k: panel r lands at r * k * MR, the prepacked layout.
  kern.pack_a(m, k, a, a_rs, a_cs, alpha, dst);
}

std::size_t packed_b_bytes(const GemmKernel& kern, int64_t k, int64_t n) {
  const int64_t panels = (n + kern.nr - 1) / kern.nr;
  return align_up(static_cast<std::size_t>(panels * kern.nr * k) * kern.b_packed_bytes);
}

void pack_b_whole(const GemmKernel& kern, int64_t k, int64_t n, const void* b, int64_t b_rs,
                  int64_t b_cs, void* dst) {
  // One k-block of depth k: panel s lands at s * k * NR, the prepacked layout.
  kern.pack_b(k, n, b, b_rs, b_cs, dst);
}

bool try_direct(const GemmKernel& kern, const GemmProblem& p, runtime::ThreadPool* pool,
                int threads) {
  if (!p.allow_direct || p.a_panels != nullptr) return false;
  const double fmas =
      static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
  const bool small = fmas <= kSmallDirectFmas;
  if (p.b_panels != nullptr) {
    if (kern.direct == nullptr || p.m > kernels::kDirectMaxRows) return false;
    // All of K in one block over the prepacked panels: the members take runs of panels.
    if (kern.direct_panels != nullptr) run_a_in_place(kern, p, p.k, nullptr, pool, threads);
    else run_direct_prepacked(kern, p, pool, threads);
    return true;
  }
  if (kern.small != nullptr && p.small_fits && p.unit_alpha && p.a_cs == 1 && p.b_cs == 1 &&
      p.m > kernels::kDirectMaxRows && (small || packing_share(p.m, p.n) >= kSmallPackingShare)) {
    run_small(kern, p, pool, threads);
    return true;
  }
  if (p.m > kernels::kDirectMaxRows && !small) return false;
  if (kern.direct != nullptr && p.b_cs == 1) {
    run_direct(kern, p, pool, threads, small, false);
    return true;
  }
  if (kern.direct_t != nullptr && p.b_rs == 1) {
    run_direct(kern, p, pool, threads, small, true);
    return true;
  }
  return false;
}

void run_gemm(const GemmKernel& kern, const GemmProblem& p, const blocking::BlockSizes& blocks,
              runtime::Workspace& workspace, runtime::ThreadPool* pool, int threads) {
  if (try_direct(kern, p, pool, threads)) return;
  // The team this call may get (the workspace below is sized for it).
  threads = pool == nullptr ? 1 : std::max(1, std::min(threads, pool->max_threads()));
  if (reads_a_in_place(kern, p, blocks, threads)) {
    run_a_in_place(kern, p, blocks.b_l2_depth, &workspace, pool, threads);
    return;
  }
  const bool prepacked = p.b_panels != nullptr;
  const bool prepacked_a = p.a_panels != nullptr;
  const int64_t mr = kern.mr, nr = kern.nr;
  const int64_t mc_max = (blocks.mc + mr - 1) / mr * mr;
  const int64_t nc_max = (blocks.nc + nr - 1) / nr * nr;
  const int64_t kc_max = blocks.kc;

  // In a rows split of `members`, whether each member packs a B block of its own (see
  // Partition). Never for a B block sized for L2 (GemmKernel::b_block_in_l2): each member then
  // packs half of one block from memory and reads the other half once from the other member's
  // L2. Two threads on the Intel Xeon of block_sizes.h, alternating runs, shared against own
  // blocks: 1024^3 +2.3 %, 2048^3 +6.4 %, 4096^3 +4.0 %, 512^3 and 1000^3 level.
  const auto own_b_for = [&](int members) {
    return !kern.b_block_in_l2 &&
           static_cast<int64_t>(members) * kc_max * nc_max * kern.b_packed_bytes <=
               blocks.b_block_budget;
  };
  const auto partition_for = [&](int members) {
    return partition(p.m, p.n, (std::min(p.n, nc_max) + nr - 1) / nr, mr, members, !prepacked_a,
                     !prepacked, own_b_for(members), prepacked);
  };

  // k-blocks outer (see kWholeKBlockABytes): each member packs the A of its rows for a whole
  // k-block once, and every column block runs against it. Over B blocks sized for L2 only (the
  // column blocks are then narrow, and A would be read N / NC times), when there are several
  // column blocks, and for one thread or a rows split (each member its own rows).
  const bool k_outer = kern.b_block_in_l2 && !prepacked && !prepacked_a && p.n > nc_max &&
                       (threads == 1 || partition_for(threads).tm == threads);
  // A member's packed A for rows [lo, hi) of one k-block.
  const auto whole_a_bytes = [&](int64_t rows) {
    return static_cast<std::size_t>((rows + mr - 1) / mr * mr * kc_max) * kern.a_packed_bytes;
  };
  // The largest member's rows when a team of `threads` splits the rows (member_rows, runs
  // starting anywhere: a packed A).
  const int64_t widest = widest_rows(p.m, 1, threads);
  const bool room_for_whole_a = k_outer && whole_a_bytes(widest) <= kWholeKBlockABytes;

  // Workspace: one slot per member (sized for the largest team this call may get): a packed B
  // block, a packed A block (or a member's rows of a whole k-block) and a scratch tile.
  const std::size_t a_bytes =
      prepacked_a ? 0
                  : align_up(std::max(static_cast<std::size_t>(mc_max * kc_max) *
                                          kern.a_packed_bytes,
                                      room_for_whole_a ? whole_a_bytes(widest) : 0));
  const std::size_t b_bytes =
      prepacked ? 0 : align_up(static_cast<std::size_t>(nc_max * kc_max) * kern.b_packed_bytes);
  const std::size_t tile_bytes = align_up(static_cast<std::size_t>(mr * nr) * kern.c_bytes);
  const std::size_t slot_bytes = b_bytes + a_bytes + tile_bytes;
  char* const slots =
      static_cast<char*>(workspace.reserve(static_cast<std::size_t>(threads) * slot_bytes));

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
    const bool own_b = own_b_for(members);
    const Partition part = partition_for(members);
    // This member's rows, cut into blocks of near-equal height in whole tiles (partial tiles
    // only at the end of the run); a prepacked A's runs start on a tile, its panels' origin.
    int64_t row_lo = 0, row_hi = p.m;
    if (part.tm > 1) member_rows(p.m, part.row_unit, me, members, &row_lo, &row_hi);
    const int64_t mc_step = blocking::balanced_block(std::max<int64_t>(1, row_hi - row_lo),
                                                     mc_max, mr);
    // In the rows split without own copies the members pack one B block together (in member
    // 0's slot), meeting before reading it and before packing the next.
    const bool shared_b = !prepacked && part.tm > 1 && !own_b;
    // With the columns split every member multiplies all rows of A: the members pack each A
    // block together, a share of its micro-panels each, and meet before reading it. Two buffers
    // (the A slots of members 0 and 1) take turns: a member packs turn t only after the meeting
    // of turn t - 1, which everyone reached after finishing with turn t - 2, the buffer's last
    // use. Two threads, Zen 4, against each member packing all of A (alternating runs): 1024^3
    // +1.0 %, 2048^3 -0.3 %, 4096^3 +0.9 %.
    const bool shared_a = part.tm == 1 && members > 1 && !prepacked_a;
    // The k-blocks outer with this member's rows of each packed once. The whole team takes the
    // same order (the shared B blocks come in the same sequence for all): a smaller team than
    // the workspace was sized for, whose widest rows outgrow a slot, takes the usual one.
    const bool whole_a = room_for_whole_a && !shared_a &&
                         whole_a_bytes(widest_rows(p.m, part.row_unit, members)) <= a_bytes;
    // A member's own B block of a row-major B is packed by its first row of tiles when the kernel
    // can (GemmKernel::ukernel_packing_b) and that row is whole (the first block has MR rows).
    const bool packs_b_on_first_tiles = kern.ukernel_packing_b != nullptr && !prepacked &&
                                        !shared_b && p.b_cs == 1 && row_hi - row_lo >= mr;
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
      const AccInit init = pc == 0 ? p.first_init : AccInit::kLoad;
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
        kern.pack_b(kc, ncols, at(p.b, pc * p.b_rs + (jc + c0) * p.b_cs, kern.b_in_bytes),
                    p.b_rs, p.b_cs, b_packed);
      }

      for (int64_t ic = row_lo; (shared_a || ncols > 0) && ic < row_hi; ic += mc_step) {
        const int64_t mc = std::min(mc_step, row_hi - ic);
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
          kern.pack_a(mc, kc, at(p.a, ic * p.a_rs + pc * p.a_cs, kern.a_in_bytes), p.a_rs,
                      p.a_cs, p.alpha, a_packed);
        }
        if (ncols <= 0) continue;  // a member without columns only helps pack A
        char* c_block = static_cast<char*>(p.c) + (ic * p.ldc + jc + c0) * kern.c_bytes;
        macro_kernel(kern, mc, ncols, kc, a_block, a_panel_bytes, my_panels, b_panel_bytes,
                     c_block, p.ldc, init, p.alpha, p.beta, scratch, blocks.prefetch_c,
                     prepacked && mc <= kBOuterPanels * mr, b_source);
        b_source = {};  // the block is packed
        // The block's chains end with the last k-block: its epilogue runs while it is in cache.
        if (pc + kc == p.k)
          numeric::apply_epilogue(p.epilogue, c_block, p.ldc, mc, ncols, ic, jc + c0);
      }
      // A shared block is packed again only once nobody reads it (after the last one, the
      // pool's run() waits for everyone). Own blocks and the A buffers need no meeting here.
      if (shared_b && !(pc + kc == p.k && jc + nc == p.n)) barrier();
    };

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
  if (threads == 1) {
    member(0, 1, [] {});
  } else {
    pool->run(threads, [&](runtime::Team& team) {
      member(team.tid(), team.size(), [&team] { team.barrier(); });
    });
  }
}

}  // namespace invar::driver

// The Goto/BLIS loop nest, for any element type and ISA.
//
//   for jc in [0, N) step NC:                 column block of C and B
//     for pc in [0, K) step KC:               k-block, always in increasing order
//       pack op(B)[pc:pc+kc, jc:jc+nc]        -> packed B block (L3)
//       for ic in [0, M) step MC:             row block of C and A
//         pack alpha*op(A)[ic:ic+mc, pc:pc+kc] -> packed A block (L2)
//         for ir in [0, mc) step MR:          A micro-panel (L1)
//           for jr in [0, nc) step NR:        B micro-panel (streams from L2/L3)
//             micro-kernel on the MR x NR tile C[ic+ir, jc+jr]
//
// A kernel with a B-packing tile (GemmKernel::ukernel_packing_b) packs a row-major B block on the
// first row of tiles instead, reading B in place there: B's copy then rides on the tiles' pass.
// The first k-block starts each accumulator from 0, C or beta*C; every later one loads C back.
// A team of threads splits the rows or the columns of C (never K), and each member runs the
// loop nest over its part. A member packs its B panels into a block of its own, except in a rows
// split whose copies would not fit in L3 together: there the members pack one block together
// and meet around each k-block. In the columns split they pack each A block together and meet
// before reading it.
//
// A small product (all of op(B) in half of L2, an MR-row strip of A in half of L1; alpha 1,
// row-major A and B) runs the kernel's small form when it has one: the packed kernel's tiles
// over the operands in place. Otherwise products of at most kDirectMaxRows rows (a decode step),
// or of at most ~64^3 multiply-adds, skip packing when the kernel offers a direct path for B's
// layout: a row-major B is read in
// place in short k-blocks swept along j; a transposed B (x * W^T) eight rows of W at a time,
// transposed in registers. The members split the columns. A larger product narrow enough that
// packing A would not pay for itself (GemmKernel::a_in_place_panels) packs B alone, in k-blocks
// as deep as half of L2 holds (BlockSizes::b_l2_depth; all of K when it fits), and reads A in
// place: the kernel's small form (its tiles over A in place, alpha 1) or its direct_panels runs
// a few rows at a time over the packed panels; the members split the packing, then the rows.
// Same chains, so the same bits as the loop nest. Either operand may have been packed ahead of
// time (GemmProblem::a_panels, b_panels); the loop nest then reads its panels where the packer
// would have left them.
// The loop nest never splits K between workers and never reorders k, so each element's chain is
// the contract's chain whatever the block sizes are.
// The driver computes in the floating-point mode it finds: its callers (api/, blas/) enter the
// contract's mode (runtime/fp_mode.h) around every call, and pool workers live in it.
#ifndef INVAR_DRIVER_GEMM_DRIVER_H_
#define INVAR_DRIVER_GEMM_DRIVER_H_

#include <cstddef>
#include <cstdint>

#include "blocking/block_sizes.h"
#include "kernels/kernel_set.h"
#include "numeric/epilogue.h"
#include "runtime/thread_pool.h"
#include "runtime/workspace.h"

namespace invar::driver {

// A validated, non-degenerate problem (m, n, k >= 1, alpha != 0), type-erased.
//   op(A)[i][p] is element (i * a_rs + p * a_cs) of a; op(B)[p][j] is element (p * b_rs + j * b_cs)
//   of b; C[i][j] is element (i * ldc + j) of c. alpha and beta point to scalars of C's type.
struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int64_t a_rs = 0, a_cs = 0;
  const void* b = nullptr;
  int64_t b_rs = 0, b_cs = 0;
  void* c = nullptr;
  int64_t ldc = 0;
  const void* alpha = nullptr;
  const void* beta = nullptr;
  kernels::AccInit first_init = kernels::AccInit::kZero;  // how the first k-block starts
  bool unit_alpha = false;  // alpha is exactly 1 (the small kernels take only that)
  // The operands fit the small kernel's cache budget (blocking::small_kernel_fits): with
  // unit_alpha and row-major A and B, a kernel with a small form runs it instead of packing.
  // Left false at kernels::kDirectMaxRows rows or fewer, where the small path is never taken.
  bool small_fits = false;
  // Whether the product may take a direct path (few rows, small, B alone packed) or must run
  // the loop nest; the bits are the same either way.
  bool allow_direct = true;
  // When set, op(B) was packed ahead of time (a prepacked operand) and b, b_rs, b_cs are not
  // used: ceil(n / NR) micro-panels of the kernel's NR columns over all of K, panel s starting
  // at element s * k * NR, 64-byte aligned. Rows pc..pc+kc of a panel are then exactly the kc x NR
  // micro-panel the packer would have made for that k-block, so the bits are the same.
  const void* b_panels = nullptr;
  // When set, alpha * op(A) was packed ahead of time and a, a_rs, a_cs are not used (nor is
  // alpha, except by the caller's special cases): ceil(m / MR) micro-panels of the kernel's MR
  // rows over all of K, panel r starting at element r * k * MR, the layout pack_a makes for one
  // k-block of depth k. Its rows pc..pc+kc are that k-block's micro-panel, as for b_panels.
  // Such a product always runs the loop nest (the direct kernels read A in place).
  const void* a_panels = nullptr;
  // Applied to each element once its chain has ended (numeric/epilogue.h).
  numeric::Epilogue epilogue;
};
// The blocking model's view of a kernel's tile (blocking::TileShape).
inline blocking::TileShape tile_shape(const kernels::GemmKernel& kernel) {
  return {kernel.mr,        kernel.nr,        kernel.k_unit,
          kernel.b_streams, kernel.b_block_in_l2, kernel.panels_from_l2};
}

// Packs all of op(B) (k x n) into the prepacked layout of GemmProblem::b_panels; dst holds
// packed_b_bytes(kernel, k, n) bytes, 64-byte aligned.
std::size_t packed_b_bytes(const kernels::GemmKernel& kernel, int64_t k, int64_t n);
void pack_b_whole(const kernels::GemmKernel& kernel, int64_t k, int64_t n, const void* b,
                  int64_t b_rs, int64_t b_cs, void* dst);

// Packs all of alpha * op(A) (m x k) into the prepacked layout of GemmProblem::a_panels; dst
// holds packed_a_bytes(kernel, m, k) bytes, 64-byte aligned.
std::size_t packed_a_bytes(const kernels::GemmKernel& kernel, int64_t m, int64_t k);
void pack_a_whole(const kernels::GemmKernel& kernel, int64_t m, int64_t k, const void* a,
                  int64_t a_rs, int64_t a_cs, const void* alpha, void* dst);

// Runs the product on up to `threads` threads of `pool` (the caller included; nullptr or 1: the
// caller alone). The bits do not depend on the thread count: threads split M and N, never K.
void run_gemm(const kernels::GemmKernel& kernel, const GemmProblem& problem,
              const blocking::BlockSizes& blocks, runtime::Workspace& workspace,
              runtime::ThreadPool* pool = nullptr, int threads = 1);

// Runs the product on a direct path when one applies (few rows, or a small product, and a kernel
// for B's layout); returns false, having done nothing, when the loop nest is needed. run_gemm
// tries this first; a caller may try it before setting up blocks and workspace.
bool try_direct(const kernels::GemmKernel& kernel, const GemmProblem& problem,
                runtime::ThreadPool* pool = nullptr, int threads = 1);

// When K must be cut for the A-in-place path (BlockSizes::b_l2_depth < K), the shallowest
// k-block worth it: every block sends the accumulators through C and restarts the streams.
// Measured for f64 on the Zen 3 machine, one thread, against the loop nest (alternating runs of
// both builds): blocks of 512 (64 columns) +11 % at 4096 x 64 x 4096 and 1024 x 64 x 8192, 409
// (80 columns) +4 %, 341 (96) +-2 %, 256 (128) -6 to -13 %. f32 blocks are 1024 deep at 64
// columns.
inline constexpr int64_t kMinInPlaceDepth = 384;

// Whether the A-in-place path runs the packed kernel's tiles (its small form) rather than
// direct_panels: a row-major A with alpha 1, more than kDirectMaxRows rows, and a tile taller
// than direct_mr (on a kernel whose tile is no taller, the two ran alike).
bool in_place_tiles(const kernels::GemmKernel& kernel, const GemmProblem& problem);

// Up to how many panels (n <= kInPlaceTilePanels * nr) the tiles over A in place beat the loop
// nest, on one thread and on a team alike. Measured on the Zen 4 (invar bench, alternating),
// against the loop nest: f32 on one thread 1024x128x2048 +20 %, 2048x96x1024 +16 %,
// 512x128x512 +4 %; on two threads 64x64x65536 +56 %, 1024x64x2048 +41 %, 2048x128x1024
// +12 %, 512x64x512 +11 %, 4096x96x1024 +15 %; f64 at 64 columns +10 to +20 % on one and two
// threads. At eight f32 panels (256 columns) the two were level.
inline constexpr int kInPlaceTilePanels = 4;

// Whether run_gemm packs B alone and reads A in place (see above) rather than running the loop
// nest, once try_direct has declined the product: up to kInPlaceTilePanels panels with the tiles,
// up to the kernel's a_in_place_panels (a_in_place_team_panels for a team) with direct_panels.
// `threads` is the team's size.
bool reads_a_in_place(const kernels::GemmKernel& kernel, const GemmProblem& problem,
                      const blocking::BlockSizes& blocks, int threads);

// How many of `threads` are worth starting for an m x n x k product (at least 1).
int useful_threads(int64_t m, int64_t n, int64_t k, int threads);

// Rows [*lo, *hi) of member `me` of `members` when run_gemm splits m rows: contiguous runs of
// near-equal length, boundaries on multiples of `unit` (the nearest to the even ones): 1 for an
// A packed in the call, MR for a prepacked A, whose panels start on whole tiles. A member's time
// goes with its rows, an edge tile's with its rows too (the kernels' edge forms run only the
// tile's rows), so 512 rows of 12-row tiles on two members go as 256 + 256 (21 tiles and a
// 4-row edge each), not 252 + 260 or 264 + 248.
void member_rows(int64_t m, int64_t unit, int me, int members, int64_t* lo, int64_t* hi);

}  // namespace invar::driver

#endif  // INVAR_DRIVER_GEMM_DRIVER_H_

// The engine: runs a product as its Plan (driver/plan.h) says. The paths, for any element type
// and ISA (executors.h names the file of each):
//
// The Goto/BLIS loop nest (Path::kLoopNest):
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
// row-major A and B) runs the kernel's tiles over A in place when it has them (ukernel_a_in_place,
// Path::kSmall): the packed kernel's tiles over the operands in place. Otherwise products of at
// most kDirectMaxRows rows (a decode step), or of at most ~64^3 multiply-adds, skip packing when
// the kernel offers a direct path for B's layout (Path::kDirect, kDirectTransposed): a row-major B
// is read in place in short k-blocks swept along j; a transposed B (x * W^T) eight rows of W at a
// time, transposed in registers. The members split the columns. A larger product narrow enough that
// packing A would not pay for itself (GemmKernel::a_in_place_panels) packs B alone
// (Path::kAInPlace), in k-blocks as deep as half of L2 holds (BlockSizes::b_l2_depth; all of K
// when it fits), and reads A in place: the kernel's tiles over A in place (ukernel_a_in_place,
// alpha 1) or its direct_panels runs a few rows at a time over the packed panels; the members
// split the packing, then the rows. Same chains, so the same bits as the loop nest. Either
// operand may have been packed ahead of time (GemmProblem::a_panels, b_panels); the loop nest
// then reads its panels where the packer would have left them.
// The loop nest never splits K between workers and never reorders k, so each element's chain is
// the contract's chain whatever the block sizes are.
// The driver computes in the floating-point mode it finds: its callers (api/, blas/) enter the
// contract's mode (runtime/fp_mode.h) around every call, and pool workers live in it.
#ifndef INVAR_DRIVER_GEMM_DRIVER_H_
#define INVAR_DRIVER_GEMM_DRIVER_H_

#include <cstddef>
#include <cstdint>

#include "blocking/block_sizes.h"
#include "driver/plan.h"
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
  bool unit_alpha = false;  // alpha is exactly 1 (the tiles over A in place take only that)
  // Read only by run_gemm with given blocks (tests): the operands fit the small path's cache
  // budget (blocking::small_kernel_fits), as make_plan finds from the topology itself.
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
  // One triangle of a square C only (m == n; no epilogue, no prepacked operand, allow_direct
  // false): the loop nest runs the tiles that hold some of its elements, and a tile across the
  // diagonal on a copy of the triangle's part (plan.h's Triangle).
  Triangle triangle = Triangle::kNone;
};
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

// The planner's view of a problem: its shape, layouts and scalars' class, with `threads` offered
// and a pool of at most `max_team` (plan.h).
inline PlanRequest request_of(const GemmProblem& p, int threads, int max_team) {
  PlanRequest r;
  r.m = p.m;
  r.n = p.n;
  r.k = p.k;
  r.a_row_major = p.a_cs == 1;
  r.b_row_major = p.b_cs == 1;
  r.b_transposed = p.b_rs == 1;
  r.unit_alpha = p.unit_alpha;
  r.first_init = p.first_init;
  r.a_prepacked = p.a_panels != nullptr;
  r.b_prepacked = p.b_panels != nullptr;
  r.allow_direct = p.allow_direct;
  r.triangle = p.triangle;
  r.threads = threads;
  r.max_team = max_team;
  return r;
}

// Runs the product as `plan` (made for it by make_plan) says, on the pool when the plan's team
// has more than one member (nullptr: the caller alone). `workspace` may be null when
// plan.workspace_bytes is 0. The bits depend on nothing in the plan: threads split M and N,
// never K.
void run_gemm(const kernels::GemmKernel& kernel, const GemmProblem& problem, const Plan& plan,
              runtime::Workspace* workspace, runtime::ThreadPool* pool);

// A tiny product (plan_tiny: one thread, a direct path or the small one) planned and run at once,
// with the plan and kernel calls make_plan and run_gemm would make for it: true when it ran,
// false (nothing done) for any other product. Tried first on every call, so it does no more
// than the smallest products need.
bool run_tiny(const kernels::GemmKernel& kernel, const GemmProblem& problem,
              const arch::CacheTopology& topology);

// Runs a product with a plan plan_tiny made for it, or for a product that differs from it only
// in the operands' addresses (a batch's entries), as run_gemm would.
void run_tiny_plan(const kernels::GemmKernel& kernel, const GemmProblem& problem, const Plan& plan);

// Plans the product with the given blocks and GemmProblem::small_fits (make_plan_with_blocks)
// for up to `threads` threads of `pool` (nullptr or 1: the caller alone), then runs it.
void run_gemm(const kernels::GemmKernel& kernel, const GemmProblem& problem,
              const blocking::BlockSizes& blocks, runtime::Workspace& workspace,
              runtime::ThreadPool* pool = nullptr, int threads = 1);

// The planner's in_place_tiles and reads_a_in_place for a problem (plan.h).
bool in_place_tiles(const kernels::GemmKernel& kernel, const GemmProblem& problem);
bool reads_a_in_place(const kernels::GemmKernel& kernel, const GemmProblem& problem,
                      const blocking::BlockSizes& blocks, int threads);

}  // namespace invar::driver

#endif  // INVAR_DRIVER_GEMM_DRIVER_H_

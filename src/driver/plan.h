// The planner: every choice of how a product runs, made once, before anything runs.
//
// make_plan is a pure function of (kernel, shape and layout, alpha and beta class, cache
// topology, threads, block overrides) to a Plan: the path, the team, the split of the work
// between its members, the block sizes, the loop order, whether the members share their packed
// buffers or own them, and the workspace the executors reserve. It never runs a kernel and never
// queries the machine (the topology and the thread count are arguments), so tests give it
// made-up caches (tests/plan_test.cpp) and `invar info --shape M N K` prints the plan a shape
// really takes. The executors (gemm_driver.h: run_gemm) do what the plan says.
//
// Every tuning constant of the driver is here, each with the reason for its value. None of them
// can change a result's bits (each element is one chain whatever the path, split or blocks);
// they choose speed only.
#ifndef INVAR_DRIVER_PLAN_H_
#define INVAR_DRIVER_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "arch/cache_topology.h"
#include "blocking/block_sizes.h"
#include "kernels/kernel_set.h"

namespace invar::driver {

// ---- Tuning constants ---------------------------------------------------------------------

// Below this many flops per member a second thread costs more in start-up and barriers than it
// saves. An order-of-magnitude choice: 0.25 Mflop is ~2.3 us on one Zen 4 core, against ~1 us to
// wake a spinning pool thread and ~0.3 us per barrier (measured on a Zen 3). At 1 Mflop the
// small squares stayed on one thread while oneDNN ran them on two (80^3: 105 against 173
// GFLOP/s); at 0.25 Mflop, two threads (invar bench, Zen 4): 64^3 107 -> 119, 80^3 102 -> 151,
// 96^3 106 -> 175 GFLOP/s. (At 4 Mflop, 128^3 had stayed on one thread.)
inline constexpr double kMinFlopsPerThread = 2.5e5;

// Products up to this many multiply-adds (64^3) with a row-major B take the direct path whatever
// M is: everything fits in L1/L2 and setting packing up would dominate. On the Zen 3 machine
// the direct path ran 16^3-32^3 products 1.5x faster than OpenBLAS and 64^3 at 57 GFLOP/s.
inline constexpr double kSmallDirectFmas = 262144.0;

// Rows of B per k-block of the direct path over a row-major B: the kernel sweeps a block's
// columns left to right, so its rows stream sequentially (a strip of one column group down all
// of K would touch a new page every row). Measured best of 4, 8, 16, 32 at M = 1 and M = 4,
// N = K = 4096, one thread, on the Zen 3 machine (bench/invar_bench against BLIS in the same
// run).
inline constexpr int64_t kDirectKc = 8;

// What packing one element costs in the kernel's multiply-adds, measured on one Zen 4 thread at
// 512^3 (145k and 75k TSC cycles for 262144 elements of A and of B, against about 22
// multiply-adds per cycle), and the factor for packing into lines the other members read (on
// the Zen 4 a core wrote 2 MiB that both cores had read at 25 GB/s against 72 GB/s for lines
// only it had read: the 3x, at L3).
inline constexpr double kPackAElementFmas = 12.0;
inline constexpr double kPackBElementFmas = 6.0;
inline constexpr double kContendedPacking = 3.0;

// The small path saves packing, but its tiles run slower over operands in place (B's rows read
// ldb apart) than over packed panels: beyond 64^3 multiply-adds it takes a product whose packing
// would add at least this share (packing_share). Measured on the Intel Xeon of block_sizes.h
// (invar bench, alternating runs, small path against the loop nest, GFLOP/s, one thread / two):
// 256^3 (share 7 %) 166-172 / 305-323 against 161-166 / 236-238, 384^3 (4.7 %) level / 299-306
// against 276-278, 1024 x 256 x 512 (5.3 %) 161-168 against 153-154; 448^3 to 500^3
// (3.6-4 %) level; 512^3 (3.5 %) 151-161 / 269-288 against 161-164 / 298-301, 256 x 1024 x 128
// (3.5 %) 149-151 against 156-162, 2000 x 500 x 256 (2.7 %) 155-163 / 301-304 against
// 167-172 / 323-331, 1000 x 1000 x 64 (1.8 %) 156-157 against 166-167.
inline constexpr double kSmallPackingShare = 0.04;

// When K must be cut for the A-in-place path (BlockSizes::b_l2_depth < K), the shallowest
// k-block worth it: every block sends the accumulators through C and restarts the streams.
// Measured for f64 on the Zen 3 machine, one thread, against the loop nest (alternating runs of
// both builds): blocks of 512 (64 columns) +11 % at 4096 x 64 x 4096 and 1024 x 64 x 8192, 409
// (80 columns) +4 %, 341 (96) +-2 %, 256 (128) -6 to -13 %. f32 blocks are 1024 deep at 64
// columns.
inline constexpr int64_t kMinInPlaceDepth = 384;

// Up to how many panels (n <= kInPlaceTilePanels * nr) the tiles over A in place beat the loop
// nest, on one thread and on a team alike. Measured on the Zen 4 (invar bench, alternating),
// against the loop nest: f32 on one thread 1024x128x2048 +20 %, 2048x96x1024 +16 %,
// 512x128x512 +4 %; on two threads 64x64x65536 +56 %, 1024x64x2048 +41 %, 2048x128x1024
// +12 %, 512x64x512 +11 %, 4096x96x1024 +15 %; f64 at 64 columns +10 to +20 % on one and two
// threads. At eight f32 panels (256 columns) the two were level.
inline constexpr int kInPlaceTilePanels = 4;

// Rows per group of the tiles over A in place: each row of A is a stream from memory, and the
// tiles ran fastest at 6 to 10 rows and 25-30 % slower at 12 (Zen 4, 4096x32x1024 and
// 1024x64x2048, one thread): more streams than the prefetchers follow. Against direct_panels,
// in alternating runs at 8 rows, one thread: 4096x32x1024 +13 %, 1024x64x2048 +10 %,
// 64x64x65536 +11 %, 300x40x5000 +18 %, f64 4096x32x1024 +9 %; 512x32x512 -4 % (its A is in
// cache, where 8 rows are too few); two threads 4096x32x1024 +17 %.
inline constexpr int64_t kInPlaceTileRows = 8;

// The A-in-place path splits panels rather than rows while A is at most this many times as tall
// as B is wide. In the panels split each member reads all of A in place but only the panels it
// packed itself; in the rows split half of A but all of each B block, half of it packed by (and
// read from the cache of) the other member, after a meeting per block. Measured on the Intel
// Xeon of block_sizes.h, two threads, alternating runs, panels against rows split (GFLOP/s):
// m / n = 1, 64x64x65536 230-244 against 172-174, 128x128x16384 280-289 / 227-240;
// 64x128x32768 246-247 / 186-188; 128x64x16384 287-296 / 233-235; 256x64x8192 315-325 /
// 278-285; 512x64x4096 353-355 / 314-320; 1024x128x1024 325-336 / 316-335; m / n = 16,
// 1024x64x2048 333-335 / 322-325; at 32 and beyond the rows split wins or ties: 2048x64x1024
// 333-337 / 352-354, 4096x128x1024 312-329 / 332-338, 4096x64x1024 328-330 / 344-347,
// 2048x64x4096 343-349 / 322-339, 8192x64x512 level.
inline constexpr int64_t kPanelsSplitRowsPerColumn = 8;

// Up to how many A micro-panels a row block runs the macro-kernel's B-outer order over a
// prepacked B, and up to how many tiles of rows per member a prepacked B is split by columns
// (so that B, streaming from memory, is read once). Measured x * W^T, W 4096 x 4096 prepacked
// (64 MiB, streaming from memory), one thread, against the A-outer order (alternating runs, Zen 3
// machine): M = 12 +32 %, 16 +23 %, 18 +39 %, 24 +31 %, 36 +10 %, 48 +-0. Over a B packed in the
// call (just written, in cache) the B-outer order lost 12-26 % at M = 24..48: C's rows, a page
// apart, then pass through L1 once per panel. Two threads, the columns split against the rows
// split: M = 24 +10 %, M = 36 +30 %.
inline constexpr int64_t kBOuterPanels = 6;

// Up to this many bytes of packed A per member, a product over B blocks sized for L2 runs its
// k-blocks outer: each member packs the A of its rows for a whole k-block once and runs every
// column block against it. A is then read from the caller's memory once per k-block instead of
// once per column block, and its micro-panels come back from L3 in packed order. On the Intel
// Xeon of block_sizes.h, alternating runs against the column-block-outer order (median GFLOP/s,
// GOP/s for u8 x s8). One thread: f32 1536^3 158.1 -> 162.9, 2048^3 161.6 -> 164.0, 4096^3
// 156.4 -> 158.7; u8 x s8 2048^3 1998 -> 2167, 4096^3 1755 -> 1905; f64 2048^3 73.3 -> 76.0
// (every one of the nine f32 pairs faster). Two threads (rows split, one shared B block): f32
// 2048^3 305.5-306.1 -> 311.2-313.1, 3000^3 311-313 -> 317-321, 4096^3 level (300-309 against
// 298-316); u8 x s8 2048^3 3786-3923 -> 4082-4227, 4096^3 3296-3364 -> 3735-3838; f64 2048^3
// 146-147 -> 148-153.
inline constexpr std::size_t kWholeKBlockABytes = std::size_t{8} << 20;

// The widest packed B block of the loop nest over a transposed B (x * W^T: each column of op(B) a
// row of W in memory) when all of A is one row block. Packing a k-block of such a B reads a
// KC-long piece of each of NC rows of W, and the next k-block the pieces that follow them; the
// smaller NC, the sooner the packer comes back to a row (it is not the TLB: W on 2 MiB pages
// showed the same gain). Zen 3 (AVX2), W 4096 x 4096 f32, alternating runs against NC = 4096
// (its L3 block), median GFLOP/s, one / two threads: M = 16 41.5 -> 46.4 / 63.9 -> 74.8, M = 64
// 62.6 -> 67.0 / 116.1 -> 124.9, M = 128 76.5 -> 77.4, M = 256 80.7 -> 82.3 / 135.2 -> 134.4
// (NC = 256 and 1024 within a few per cent of 512). Over a row-major B, whose k-block is KC whole
// rows, it lost (M = 64: 75.3 -> 70.9) and is not applied; nor under an NC the caller set.
inline constexpr int64_t kTransposedBNc = 512;

// ---- The plan -------------------------------------------------------------------------------

// What the planner needs to know of a product (validated, m, n, k >= 1, alpha != 0).
// Which elements of C a product computes: all of them, or one triangle of a square C (gemmt,
// syrk): the upper (i <= j) or the lower (i >= j), the diagonal included. The others are neither
// read nor written; each computed element gets the chain, and so the bits, of the full product.
enum class Triangle : uint8_t { kNone, kUpper, kLower };

struct PlanRequest {
  int64_t m = 0, n = 0, k = 0;
  bool a_row_major = true;    // op(A)'s rows are contiguous (a_cs == 1)
  bool b_row_major = true;    // op(B)'s rows are contiguous (b_cs == 1)
  bool b_transposed = false;  // op(B)'s columns are contiguous (b_rs == 1; x * W^T)
  bool unit_alpha = false;    // alpha is exactly 1 (the tiles over A in place take only that)
  kernels::AccInit first_init = kernels::AccInit::kZero;  // beta == 0, 1 or another value
  bool a_prepacked = false;  // alpha * op(A) was packed ahead of time (GemmProblem::a_panels)
  bool b_prepacked = false;  // op(B) was packed ahead of time (GemmProblem::b_panels)
  bool allow_direct = true;  // false: every product runs the loop nest (tests)
  Triangle triangle = Triangle::kNone;  // one triangle only: the loop nest, split by rows
  int threads = 1;                      // the threads the caller offers (the context's count)
  int max_team = 1;                     // the largest team the pool can give (1 without a pool)
};

enum class Path {
  kDirect,            // B row-major, read in place in k-blocks swept along j; A in place
  kDirectTransposed,  // B transposed (x * W^T), all of K in one pass; A in place
  kSmall,             // the kernel's tiles over A and B in place (ukernel_a_in_place)
  kDirectPrepacked,   // few rows over a prepacked B, panel by panel (no direct_panels)
  kAInPlace,          // B packed alone (or prepacked) in deep k-blocks, A read in place
  kLoopNest,          // the Goto loop nest over packed A and B blocks
};
const char* path_name(Path path);

// How the members of a team share the loop nest (see partition() in plan.cpp): by rows (each
// member a contiguous run of rows, all columns) or by columns (each a contiguous run of B
// micro-panels, all rows). K is never split.
struct Partition {
  int tm = 1;            // members along M
  int tn = 1;            // members along N
  int64_t row_unit = 1;  // the rows split's boundaries are multiples of it (member_rows)
};

// The loop nest's choices that depend on the team's size (a pool may give a smaller team than
// asked: the executor then asks team_plan for its size).
struct TeamPlan {
  Partition partition;
  bool own_b = false;     // in a rows split, each member packs a B block of its own
  bool shared_b = false;  // the members pack one B block together and meet around it
  bool shared_a = false;  // columns split: the members pack each A block together
  bool whole_a = false;   // k-blocks outer, each member's rows of a whole k-block packed once
};

enum class LoopOrder {
  kColumnBlocksOuter,  // for jc: for pc: pack B, for ic: pack A, macro-kernel
  kKBlocksOuter,       // for pc: pack this member's A rows once; for jc: pack B, for ic: ...
};

// The fields under each path's heading are set for that path only; the others are left unset
// (a plan is made on every call, and zeroing all of it showed in the smallest products' cost).
struct Plan {
  Path path = Path::kLoopNest;
  // The team asked of the pool (1: the caller alone); a pool may give fewer.
  int threads = 1;
  // The operands fit the small path's cache budget (blocking::small_kernel_fits).
  bool small_fits = false;

  // kDirect, kDirectTransposed, kDirectPrepacked: rows per kernel call, columns per member's
  // unit, k-block depth.
  int64_t direct_rows;
  int64_t direct_cols;
  int64_t direct_kc;
  // kDirectTransposed: a W the caches hold, on kernel.direct_t_cached; or one thread streaming W
  // from memory, on kernel.direct_t_alone.
  bool direct_t_cached;
  bool direct_t_alone;
  // kSmall: whether the members split rows (else columns) for a full team.
  bool small_by_rows;

  // kAInPlace: the tiles (ukernel_a_in_place) rather than direct_panels; rows per group;
  // the depth of B's k-blocks (balanced), the number of buffers taking turns, each's bytes;
  // whether the members split rows (else panels) for a full team.
  bool in_place_tiles;
  int64_t in_place_rows;
  int64_t in_place_kc;
  int in_place_buffers;
  std::size_t in_place_block_bytes;
  bool in_place_by_rows;

  // kLoopNest: block sizes (blocks.mc/nc before rounding to whole tiles) and their whole-tile
  // maxima; loop order; the team's split; each member's workspace slot.
  blocking::BlockSizes blocks;
  int64_t mc, nc, kc;
  LoopOrder order;
  bool room_for_whole_a;  // the slots can hold the widest member's whole k-block of A
  TeamPlan team;
  std::size_t a_bytes, b_bytes, tile_bytes, slot_bytes;
  // Row blocks of at most this many rows over a prepacked B run B-outer (kBOuterPanels tiles).
  int64_t b_outer_rows;

  // Bytes the executor reserves in the workspace (0: none is needed).
  std::size_t workspace_bytes = 0;
};

// The plan in a few lines of text, for `invar info --shape` (each line starts with `indent`).
std::string describe_plan(const Plan& plan, const std::string& indent);

// Up to how many bytes of B an x * W^T of a few rows counts on the caches to hold its W, and runs
// kernel.direct_t_cached: the larger of L2 and a quarter of L3 (a core's share of an L3 that
// others use too). The pairs form (sgemm_avx2_direct_t8_pairs) against direct_t on the Intel Xeon
// of block_sizes.h (L3 300 MiB, shared with other guests), one thread, alternating, GB/s of W:
// 1 x 256 x 1024 (W in L2) 42 / 22; 1 x 4096 x 4096 (64 MiB) 24-26 / 19-20; 1 x 8192 x 4096
// (128 MiB) 14.0 / 15.6; 1 x 16384 x 4096 12.5-12.7 / 13.4-14.5.
int64_t cached_w_bytes(const arch::CacheTopology& topology);

// How many of `threads` are worth starting for an m x n x k product (at least 1).
int useful_threads(int64_t m, int64_t n, int64_t k, int threads);

// How many members run a batch of `count` products shaped m x n x k side by side, each product
// on one thread (1: the products one after another, each with the whole team): a product that
// is worth all `threads` by itself runs alone.
int batch_members(int64_t m, int64_t n, int64_t k, int threads, int64_t count);

// The whole plan: the team (useful_threads, then the pool's limit), then the path, then, when
// a packed path is taken, block sizes from the topology (overrides win) and the rest.
Plan make_plan(const kernels::GemmKernel& kernel, const PlanRequest& request,
               const arch::CacheTopology& topology, const blocking::BlockOverrides& overrides);

// Whether an m x n x k product (m, n, k >= 1) is tiny: below kMinFlopsPerThread multiply-adds,
// so one thread runs it, and it counts as small (kSmallDirectFmas). plan_tiny plans only these.
inline bool tiny_shape(int64_t m, int64_t n, int64_t k) {
  static_assert(kMinFlopsPerThread <= kSmallDirectFmas, "a one-thread product must be small");
  constexpr int64_t kTinyFmas = static_cast<int64_t>(kMinFlopsPerThread);
  return (m | n | k) < (int64_t{1} << 20) && m * n * k < kTinyFmas;
}

// The plan of a product small enough to be decided from its shape and layouts alone: below
// kMinFlopsPerThread multiply-adds (one thread, useful_threads) with a direct path or the small
// one for it, exactly as make_plan plans it; false (and *plan partly written) for any other.
// make_plan asks it first; run_tiny (gemm_driver.h) plans and runs with it.
bool plan_tiny(const kernels::GemmKernel& kernel, const PlanRequest& request,
               const arch::CacheTopology& topology, Plan* plan);

// Whether plan_tiny's plan for a product that may take a direct path (allow_direct, neither
// operand prepacked) is known without making it: the kernel's direct form over all of K in one
// call, for a tiny product of at most kDirectMaxRows rows over a row-major B (op(B)[k][j] at
// b[k * b_rs + j * b_cs], b_cs == 1; plan_test.cpp checks the plan). run_tiny and the C API's
// tiny lane call kernel.direct at once there.
inline bool direct_at_once(const kernels::GemmKernel& kernel, int64_t m, int64_t n, int64_t k,
                           int64_t b_cs) {
  return m <= kernels::kDirectMaxRows && b_cs == 1 && kernel.direct != nullptr &&
         tiny_shape(m, n, k);
}

// Whether a tiny product over a row-major B runs as one call of the direct kernel's record form
// (kernels::DirectArgs, GemmKernel::direct_args): direct_at_once's products, up to
// kFewRowsMaxRows rows of at most kFewRowsMaxCols columns, and any rows of at most
// kFewRowsGroupsMaxBytes of columns, which the record form runs as blocks of accumulators over
// groups of rows where plan_tiny's plan may run the small path's tiles. The chains are the same
// either way. The C API's tiny lane and a strided batch's entries take it.
// few_rows_extents is the rule on m and n alone, for a caller that has tested the rest.
inline bool few_rows_extents(int64_t m, int64_t n, int64_t element_bytes) {
  return m <= kernels::kDirectMaxRows ||
         (m <= kernels::kFewRowsMaxRows && n <= kernels::kFewRowsMaxCols) ||
         n * element_bytes <= kernels::kFewRowsGroupsMaxBytes;
}
inline bool few_rows_at_once(const kernels::GemmKernel& kernel, int64_t m, int64_t n, int64_t k,
                             int64_t b_cs, int64_t element_bytes) {
  return kernel.direct_args != nullptr && b_cs == 1 && tiny_shape(m, n, k) &&
         few_rows_extents(m, n, element_bytes);
}

// The kernel calls plan_tiny's plan for a tiny product (tiny_shape) that may take a direct path
// (allow_direct, neither operand prepacked) makes, found without making the plan, from the small
// path's budget for the topology (blocking::small_budget) found once: the small path's one call
// of the tiles over A and B in place (kSmall: ukernel_a_in_place over the whole product), or a
// direct kernel over all of K and all columns, one call per group of rows (kDirect:
// kernel.direct, kernel.direct_mr rows at a time; kDirectTransposed: kernel.direct_t, or
// direct_t_cached where offered, over a transposed B, kDirectMaxRows rows at a time), or none of
// these (kPlanned: the plan's executor, run_tiny). plan_test.cpp checks it against plan_tiny.
enum class TinyCall { kSmall, kDirect, kDirectTransposed, kPlanned };
inline TinyCall tiny_call(const kernels::GemmKernel& kernel, const blocking::SmallBudget& budget,
                          int64_t m, int64_t n, int64_t k, bool a_row_major, bool b_row_major,
                          bool b_transposed, bool unit_alpha) {
  if (!b_row_major) {
    return b_transposed && kernel.direct_t != nullptr ? TinyCall::kDirectTransposed
                                                      : TinyCall::kPlanned;
  }
  if (m > kernels::kDirectMaxRows && unit_alpha && a_row_major &&
      kernel.ukernel_a_in_place != nullptr &&
      blocking::small_kernel_fits(budget, {kernel.mr, kernel.nr},
                                  {kernel.a_packed_bytes, kernel.b_packed_bytes}, n, k))
    return TinyCall::kSmall;
  return kernel.direct != nullptr ? TinyCall::kDirect : TinyCall::kPlanned;
}

// The same with the team and the blocks given (request.threads is the team asked, as is; the
// blocks are used only if a packed path is taken) and small_fits as given.
Plan make_plan_with_blocks(const kernels::GemmKernel& kernel, const PlanRequest& request,
                           bool small_fits, const blocking::BlockSizes& blocks);

// The loop nest's team choices for a team of `members` (plan.team is this for plan.threads).
TeamPlan team_plan(const kernels::GemmKernel& kernel, const PlanRequest& request, const Plan& plan,
                   int members);

// Whether the A-in-place path runs the packed kernel's tiles (ukernel_a_in_place) rather than
// direct_panels: a row-major A with alpha 1, more than kDirectMaxRows rows, and a tile taller
// than direct_mr (on a kernel whose tile is no taller, the two ran alike).
bool in_place_tiles(const kernels::GemmKernel& kernel, const PlanRequest& request);

// Whether a product the direct paths declined packs B alone and reads A in place rather than
// running the loop nest: up to kInPlaceTilePanels panels with the tiles, up to the kernel's
// a_in_place_panels (a_in_place_team_panels for a team of `threads`) with direct_panels.
bool reads_a_in_place(const kernels::GemmKernel& kernel, const PlanRequest& request,
                      const blocking::BlockSizes& blocks, int threads);

// The A-in-place path's split for `members`: rows (true) or panels.
bool in_place_split_rows(int64_t m, int64_t n, const Plan& plan, int64_t nr, int members);

// The small path's split for `members`: rows of tiles (true) or column groups.
bool small_split_rows(const kernels::GemmKernel& kernel, int64_t m, int members);

// Rows [*lo, *hi) of member `me` of `members` when the loop nest splits m rows: contiguous runs
// of near-equal length, boundaries on multiples of `unit` (the nearest to the even ones): 1 for
// an A packed in the call, MR for a prepacked A, whose panels start on whole tiles. A member's
// time goes with its rows, an edge tile's with its rows too (the kernels' edge forms run only
// the tile's rows), so 512 rows of 12-row tiles on two members go as 256 + 256 (21 tiles and a
// 4-row edge each), not 252 + 260 or 264 + 248.
// For a triangle of a square C (m x m), the runs hold near-equal shares of the triangle's
// elements instead (a member's time goes with them): the upper triangle's top rows are long,
// so two members split 4096 rows as 1200 + 2896.
void member_rows(int64_t m, int64_t unit, int me, int members, int64_t* lo, int64_t* hi,
                 Triangle triangle = Triangle::kNone);

// The most rows any of `members` gets from member_rows.
int64_t widest_rows(int64_t m, int64_t unit, int members, Triangle triangle = Triangle::kNone);

// [lo, hi) of `count` items for member `i` of `n`, contiguous and near-equal.
inline void share(int64_t count, int i, int n, int64_t* lo, int64_t* hi) {
  *lo = count * i / n;
  *hi = count * (i + 1) / n;
}

// The blocking model's view of a kernel's tile (blocking::TileShape).
inline blocking::TileShape tile_shape(const kernels::GemmKernel& kernel) {
  return {kernel.mr,
          kernel.nr,
          kernel.k_unit,
          kernel.b_streams,
          kernel.b_block_in_l2,
          kernel.panels_from_l2};
}

// Bytes of the prepacked layouts (GemmProblem::a_panels, b_panels), 64-byte aligned.
std::size_t packed_b_bytes(const kernels::GemmKernel& kernel, int64_t k, int64_t n);
std::size_t packed_a_bytes(const kernels::GemmKernel& kernel, int64_t m, int64_t k);

}  // namespace invar::driver

#endif  // INVAR_DRIVER_PLAN_H_

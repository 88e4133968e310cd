// Cache blocking: how big the packed blocks of the Goto loop nest are.
//
//   KC: depth of a k-block; an MR x KC A micro-panel and a KC x NR B micro-panel stream from L1.
//   MC: rows of a packed A block (MC x KC, meant to stay in L2); a multiple of MR.
//   NC: columns of a packed B block (KC x NC, meant to stay in L3); a multiple of NR.
//
// By the numeric contract none of these can change a result's bits, only its speed, so the
// choice is free per machine and per shape. It is an analytic model over a cache topology value
// (arch/cache_topology.h), in the spirit of Low et al., "Analytical Modeling Is Enough for
// High-Performance BLIS" (ACM TOMS 2016). Everything here is a pure function of its arguments:
// this layer never queries the CPU, and never sees the thread count (block sizes depend on the
// machine and the shape only). Sizes count packed elements, whose byte sizes are arguments, so a
// narrow element type gets deeper and wider blocks from the same caches.
//
// The model, for a cache with W ways of `way` bytes (way = sets x line):
//
//   KC (l1_kc): the kernel reads one A and one B micro-panel per tile, and one of them is reused
//     across tiles (the driver keeps the A micro-panel and streams B micro-panels past it; the
//     formula below keeps both resident either way). With LRU replacement a set keeps them when
//     B takes b ways, A takes a = ceil(MR*KC*sizeA / way) ways and one way is left for the C
//     tile and the lines of the next panel:
//       b + a <= W - 1,   KC = floor(b * way / (NR * sizeB)),   largest such b.
//     Floor kMinKc (below it the C tile's load and store outweigh the k-loop).
//     A kernel that keeps its pace with B streaming from L2/L3 (TileShape::b_streams: few B bytes
//     per cycle of multiply-adds, as the 12 x 32 AVX-512 tile's 128 per 24 FMAs) gains from a
//     deeper k-loop, which loads and stores each C tile fewer times, more than from B in L1
//     (streaming_kc). Its KC is the deeper of two depths: the one whose A micro-panel fits
//     a <= W - 2 ways of L1 (a way for the B lines in flight, one for C),
//       KC = floor((W - 2) * way / (MR * sizeA)),
//     and kStreamKc (1024) steps. The tile pays a fixed cost once per KC steps (its C tile's load
//     and store, the chains' start), and the depth is where measurements stopped gaining: on a
//     Zen 4 (L1d 32 KiB 8-way, L2 1 MiB), one thread, alternating runs of this model against the
//     L1 depth (512 f32, 256 f64): 12 x 32 f32 +2.0 % at 1000^3, +2.2 % at 1024^3, +1.2 % at
//     2048^3, +1.9 % at 4096^3; 12 x 16 f64 +2.3 to +3.5 % at 1024^3, level at 2048^3, +2.3 % at
//     4096^3; KC 2048 no better than 1024 (f32 2048^3, NC 1024).
//     The A micro-panel (48 KiB f32, 96 KiB f64 at 1024) then comes from L2 each tile, which the
//     B panels streaming through L1 would force at any depth.
//     The depth is not cut to keep a small product's B block in L2: such a cut (to the depth at
//     which all N columns fit half of L2, when that was at least half the depth) won 6 % at
//     512^3 before the A broadcast moved into the fma, and lost after it, against the full
//     depth: 512^3 KC 256 vs 512 -1.4 %, 1024 x 256 x 1024 KC 512 vs 1024 -2.7 %.
//   A B block in L2 (TileShape::b_block_in_l2, without b_streams): KC as l1_kc, and NC fills
//     half of this worker's L2 share (l2_nc) instead of a quarter of L3; the B micro-panels then
//     come from L2 each time the next A micro-panel sweeps them. Measured on an Intel Xeon with
//     AMX (family 6 model 167 as the VM reports it, L1d 48 KiB 12-way, L2 2 MiB, a 480 MiB L3
//     shared by the package), f32 12 x 32, one thread, alternating runs: 2048^3 with the L3
//     model (KC 1024, NC 2048) 129-133 GFLOP/s against 141-148 with a 1 MiB B block in L2;
//     4096^3 at 1 MiB, KC 256 (l1_kc: 8 ways of B, 3 of A) 148-154, KC 128 / 192 / 384 / 512
//     145-148 / 145-146 / 145-148 / 142-145, KC 256 with 1.5 / 2 MiB 146-150 / 136-143; the
//     order with one B micro-panel in L1 and the A block in L2 120-128. That core does twice the
//     Zen 4's multiply-adds per cycle and its L3 is the package's mesh: 128 bytes of B per 12
//     cycles is more than it brings from there.
//   Rebalancing (balanced_block): K is cut into ceil(K / KCmax) near-equal slices, so K = 300
//     with KCmax = 256 runs 150 + 150, not 256 + 44. MC and NC are rebalanced the same way in
//     whole tiles.
//   MC (l2_mc): the packed A block is reused across the B block, so it lives in this worker's
//     share of L2 (L2 / sharing): the share's ways less the ways a B micro-panel takes
//     (ceil(NR*KC*sizeB / way)) and less one way for the C tiles passing through; a multiple of
//     MR. KC here is the rebalanced depth actually used.
//   NC (l3_nc): the packed B block is reused for every A block and shared by all workers, so it
//     lives in L3; it takes a quarter of it (a multiple of NR). The block is read once per A
//     micro-panel and L3 also holds A, C and other cores' lines: on the Zen 4 (32 MiB L3), one
//     thread, a 16 MiB B block ran 2 % slower than an 8 MiB one at f32 4096^3 (KC 1024, NC 4096
//     against 2048) and 16 % slower at f64 2048^3 (KC 1024, NC 2048 against 1024). Without an
//     L3 it is kNoL3Panels micro-panels: then B streams from memory once per A block whatever
//     NC is, and NC only has to amortize the packing of A.
//   A package-wide L3 report (AMD's legacy leaf: 508 MiB on a Zen 5 VM) has already been cut to
//   the 32 MiB one core reaches by arch/ (see the rule in cache_topology.h), so NC comes out as
//   for a 32 MiB L3, never sized for memory the core cannot cache.
//   Small problems (fits_in_l1): when the packed A and B of the whole product fit in half of L1,
//     nothing needs blocking; the model is skipped and each block is the whole problem.
//
// Explicit overrides (INVAR_MC/KC/NC, ContextOptions) win over the model. The result is finally
// clamped to the problem so small products do not reserve large workspaces.
#ifndef INVAR_BLOCKING_BLOCK_SIZES_H_
#define INVAR_BLOCKING_BLOCK_SIZES_H_

#include <cstdint>

#include "arch/cache_topology.h"

namespace invar::blocking {

struct BlockSizes {
  int64_t mc = 0;
  int64_t kc = 0;
  int64_t nc = 0;
  // Whether the driver prefetches the next C tile: only once A, B and C together outgrow the
  // last-level cache, so that C tiles come from memory (below that they are in cache and the
  // prefetches only cost issue slots).
  bool prefetch_c = false;
  // The deepest k-block of op(B), all n columns packed, that fits in half of one worker's share
  // of L2 (at most k; 0 when not one row does): the driver may then pack B alone, a block of that
  // depth at a time, and stream each panel from L2 once per group of rows (gemm_driver.h).
  int64_t b_l2_depth = 0;
  // The bytes of L3 a packed B block is sized for (l3_nc's budget: a quarter of this worker's
  // share; 0 without an L3). A team whose B blocks all fit in it together may give each member
  // a block of its own (driver/plan.cpp).
  int64_t b_block_budget = 0;
};

// Each field > 0 replaces the model's choice (MC and NC rounded up to whole tiles).
struct BlockOverrides {
  int64_t mc = 0;
  int64_t kc = 0;
  int64_t nc = 0;
};

struct TileShape {
  int mr = 1;
  int nr = 1;
  int ku = 1;  // k steps per group of the packed panels: KC is a multiple of it (kernel_set.h)
  // Whether the kernel keeps its pace with B micro-panels streaming from L2/L3, so that KC is
  // sized for a deeper k-loop (streaming_kc) rather than for both micro-panels in L1 (l1_kc).
  bool b_streams = false;
  // Whether the packed B block is sized for this worker's L2 (l2_nc) rather than for L3 (l3_nc):
  // for a core whose L3 cannot feed the B micro-panels at the kernel's pace.
  bool b_block_in_l2 = false;
  // Whether both micro-panels stream from L2 (panels_from_l2 below): for a tile whose product of
  // two deep micro-panels takes too few cycles for either to be worth keeping in L1 (the AMX
  // tiles). Takes precedence over b_streams and b_block_in_l2.
  bool panels_from_l2 = false;
};

// Bytes of one element of a packed A panel and of a packed B panel.
struct PackedBytes {
  int a = 4;
  int b = 4;
};

constexpr int64_t kMinKc = 64;
constexpr int64_t kNoL3Panels = 256;

// The deepest KC for which a B micro-panel stays in L1 (before rebalancing); >= kMinKc.
int64_t l1_kc(const arch::CacheLevel& l1, TileShape tile, PackedBytes bytes);

// A streaming-B kernel's KC (before rebalancing): the deeper of the depth whose A micro-panel
// leaves two ways of L1 free and kStreamKc.
constexpr int64_t kStreamKc = 1024;
int64_t streaming_kc(const arch::CacheLevel& l1, TileShape tile, PackedBytes bytes);

// The model's KC before rebalancing: streaming_kc for a kernel that streams B, else l1_kc.
int64_t kc_limit(const arch::CacheLevel& l1, TileShape tile, PackedBytes bytes);

// The most rows of a packed A block of depth kc that this worker's share of L2 holds; a multiple
// of MR, >= MR.
int64_t l2_mc(const arch::CacheLevel& l2, TileShape tile, PackedBytes bytes, int64_t kc);

// The most columns of a packed B block of depth kc that half of this worker's share of L2
// holds; a multiple of NR, >= NR.
int64_t l2_nc(const arch::CacheLevel& l2, TileShape tile, PackedBytes bytes, int64_t kc);

// The model's NC before rebalancing: l2_nc for a B block in L2, else l3_nc.
int64_t nc_limit(const arch::CacheTopology& topology, TileShape tile, PackedBytes bytes,
                 int64_t kc);

// The blocks of a kernel whose micro-panels both stream from L2 (TileShape::panels_from_l2):
// KC as deep as kL2PanelsKc, so that C, read and written once per k-block, is little traffic
// next to the tiles' work; the B block at that depth filling half of the worker's L2 share
// (l2_nc); and the A block kL2PanelsMcPanels micro-panels high, so that the tiles read it from
// L2 right after it is packed. Measured with the AMX u8 x s8 tile (32 x 32, 1-byte panels) on an
// Intel Xeon with AMX (48 KiB L1d, 2 MiB L2), one thread, 2048^3 / 4096^3, GOP/s: KC 2048, MC
// 128, NC 512 2116 / 1650; MC 64 2114 / 1688, MC 256 1913 / 1626; NC 256 1792 / 1526, NC 1024
// 1583 / 1289; KC 1024 with NC 1024 2011 / 1547, with NC 512 1971 / 1574; the L1 model's KC 640,
// MC 2048, NC 1376 1394 at 4096^3.
constexpr int64_t kL2PanelsKc = 2048;
constexpr int64_t kL2PanelsMcPanels = 4;

// A quarter of this worker's share of L3, in bytes (0 without an L3): what a packed B block
// may take.
int64_t b_block_budget(const arch::CacheLevel& l3);
// The most columns of a packed B block of depth kc that a quarter of L3 holds (kNoL3Panels
// micro-panels when there is no L3); a multiple of NR, >= NR.
int64_t l3_nc(const arch::CacheLevel& l3, TileShape tile, PackedBytes bytes, int64_t kc);

// The block that cuts `extent` into ceil(extent / max_block) near-equal pieces, rounded up to a
// multiple of `multiple` (max_block is assumed to be such a multiple; the result never exceeds
// it when it is). extent <= max_block gives extent rounded up.
int64_t balanced_block(int64_t extent, int64_t max_block, int64_t multiple);

// Whether a product may run the micro-kernel over A in place (kernels/ukernel.h) instead of
// packing: all of op(B) (k x n) fits in this worker's budget of L2 (below), where it stays while
// the tiles sweep it once per MR rows, and an MR-row strip of A over all of k fits in half of L1,
// where it stays while the strip's tiles sweep B. Operands are counted at their packed size (as
// they are read). Inline: the planner asks it on every small product's call.
//
// The budget is small_budget's, which a caller asking on every call finds once for its topology:
// half of L1 for the strip; for B half of the L2 share, or a quarter of a share below
// kSmallWholeHalfL2. Each tile reads B's rows in place, one line per k step, from L2; a 512 KiB
// L2 served that worse than a packed panel in L1 well before B filled half of it. An AMD EPYC
// Zen 3 (L1d 32 KiB, L2 512 KiB), one thread, alternating calls in one process, GFLOP/s,
// tiles over operands in place against the loop nest: 128^3 (B 64 KiB) 82 against 72, 256 x 256 x
// 64 (64 KiB) 60 against 51; 192^3 (144 KiB) 80 against 87, 255^3 (254 KiB) 79 against 84, 256^3
// 65 against 82, 64 x 256 x 256 67 against 77. With a 1 MiB or larger L2 half held: the Zen 4
// machine, 192^3 104 against 94 and 256^3 107 against 104 (exec_direct.cpp); the Intel Xeon's
// 2 MiB, 384^3 (576 KiB) level on one thread and +9 % on two (driver/plan.h).
inline constexpr double kSmallWholeHalfL2 = 1 << 20;
struct SmallBudget {
  double b_bytes;      // all of op(B)
  double strip_bytes;  // an MR-row strip of A
};
inline SmallBudget small_budget(const arch::CacheTopology& topology) {
  const double l2_share = static_cast<double>(topology.l2.bytes) /
                          static_cast<double>(topology.l2.sharing > 1 ? topology.l2.sharing : 1);
  return {l2_share >= kSmallWholeHalfL2 ? l2_share / 2 : l2_share / 4,
          static_cast<double>(topology.l1d.bytes) / 2};
}
inline bool small_kernel_fits(SmallBudget budget, TileShape tile, PackedBytes bytes, int64_t n,
                              int64_t k) {
  // In doubles: n and k come straight from the caller.
  const double b = static_cast<double>(n) * static_cast<double>(k) * bytes.b;
  const double strip = static_cast<double>(tile.mr) * static_cast<double>(k) * bytes.a;
  return b <= budget.b_bytes && strip <= budget.strip_bytes;
}
inline bool small_kernel_fits(const arch::CacheTopology& topology, TileShape tile,
                              PackedBytes bytes, int64_t n, int64_t k) {
  return small_kernel_fits(small_budget(topology), tile, bytes, n, k);
}

// Whether the packed A and B of the whole m x n x k product fit in half of L1.
bool fits_in_l1(const arch::CacheTopology& topology, TileShape tile, PackedBytes bytes, int64_t m,
                int64_t n, int64_t k);

// Block sizes for an m x n x k product with the given tile and packed element sizes on a machine
// with the given caches; overrides win; clamped to the problem.
BlockSizes choose_block_sizes(const arch::CacheTopology& topology, TileShape tile,
                              PackedBytes bytes, int64_t m, int64_t n, int64_t k,
                              const BlockOverrides& overrides);

}  // namespace invar::blocking

#endif  // INVAR_BLOCKING_BLOCK_SIZES_H_

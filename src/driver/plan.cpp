#include "driver/plan.h"

#include <algorithm>

#include "runtime/workspace.h"

namespace invar::driver {
namespace {

using kernels::GemmKernel;

std::size_t align_up(std::size_t x) {
  return (x + runtime::kBufferAlignment - 1) / runtime::kBufferAlignment *
         runtime::kBufferAlignment;
}

// The busiest member's share (per_member of `items`) as a multiple of an even share.
double imbalance(int64_t items, int64_t per_member, int members) {
  return static_cast<double>(per_member) * members / static_cast<double>(items);
}

// What packing A and B would add to a product's multiply-adds (kPackAElementFmas per element of
// A, m k of them, and kPackBElementFmas per element of B, k n, against m n k).
double packing_share(int64_t m, int64_t n) {
  return kPackAElementFmas / static_cast<double>(n) + kPackBElementFmas / static_cast<double>(m);
}

// The loop nest's split between `members` (Partition). In the columns split each member packs
// its own B panels, and the members pack each A block together (a share of its micro-panels
// each) and meet before reading it. In the rows split every member reads all of each B block:
// each packs a copy of its own when the team's copies fit together in one block's L3 budget,
// else the members pack one block together.
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
// B is read once (kBOuterPanels).
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
  const double b_charge = !packs_b ? 0.0
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

// Whether the B blocks are sized for L2 (blocking::TileShape::b_block_in_l2): the kernel's own
// choice for the B it packs in the call, and for a prepacked B whenever the kernel's tile does
// not take B streaming (b_streams, panels_from_l2). A prepacked B is not one packed block: the
// k-block of each panel is a run of KC * NR elements, and the next panel's run is all of K further
// on; over B blocks sized for L3 those short runs came back from L3 for every A micro-panel and
// held the kernel back where the same block packed in the call did not. On the Zen 3 of
// block_sizes.h (b_block_in_l2 false), the library built both ways in one process, calls
// alternating, x * W^T over W 4096 x 4096 prepacked, one / two threads: M = 64 1.11x / 1.12x,
// 256 1.05x / 1.07x, 1024 1.13x / 1.07x; f64 512 x 4096 x 4096 1.11x / 1.14x; M <= 36 (B-outer
// tiles, kBOuterPanels) level. With the k-blocks outer (plan_packed) A is packed once per k-block
// over the narrower column blocks. Not with A prepacked as well: that A is read from its panels
// once per column block, and the narrower blocks read it more often than they gained (2048^3, one
// thread: 0.94-0.96 of the unpacked call against 0.98 with the L3 blocks).
bool b_blocks_in_l2(const GemmKernel& kern, const PlanRequest& r) {
  return kern.b_block_in_l2 ||
         (r.b_prepacked && !r.a_prepacked && !kern.b_streams && !kern.panels_from_l2);
}

// In a rows split of `members`, whether each member packs a B block of its own (see partition).
// Never for a B block sized for L2 (GemmKernel::b_block_in_l2): each member then packs half of
// one block from memory and reads the other half once from the other member's L2. Two threads
// on the Intel Xeon of block_sizes.h, alternating runs, shared against own blocks: 1024^3
// +2.3 %, 2048^3 +6.4 %, 4096^3 +4.0 %, 512^3 and 1000^3 level.
bool own_b_for(const GemmKernel& kern, const Plan& plan, int members) {
  return !kern.b_block_in_l2 &&
         static_cast<int64_t>(members) * plan.kc * plan.nc * kern.b_packed_bytes <=
             plan.blocks.b_block_budget;
}

Partition partition_for(const GemmKernel& kern, const PlanRequest& r, const Plan& plan,
                        int members) {
  Partition part =
      partition(r.m, r.n, (std::min(r.n, plan.nc) + kern.nr - 1) / kern.nr, kern.mr, members,
                !r.a_prepacked, !r.b_prepacked, own_b_for(kern, plan, members), r.b_prepacked);
  // A triangle goes by rows, whose runs member_rows sizes by the triangle's elements: equal runs
  // of panels would leave the member on the triangle's short side with little to do.
  if (r.triangle != Triangle::kNone && part.tm == 1 && members > 1 &&
      (r.m + kern.mr - 1) / kern.mr >= 2 * members) {
    part.tm = members;
    part.tn = 1;
  }
  return part;
}

// A member's packed A for `rows` rows of one k-block of the loop nest.
std::size_t whole_a_bytes(const GemmKernel& kern, const Plan& plan, int64_t rows) {
  return static_cast<std::size_t>((rows + kern.mr - 1) / kern.mr * kern.mr * plan.kc) *
         kern.a_packed_bytes;
}

// The direct paths (few rows, or a small product, and a kernel for B's layout, or a kernel's
// ukernel_a_in_place): true and the path set in *plan when one applies.
// Inlined: every call plans, and the smallest products take these paths.
inline __attribute__((always_inline)) bool plan_direct(const GemmKernel& kern, const PlanRequest& r,
                                                       bool small_fits, bool w_cached, Plan* plan) {
  if (!r.allow_direct || r.a_prepacked) return false;
  const double fmas =
      static_cast<double>(r.m) * static_cast<double>(r.n) * static_cast<double>(r.k);
  const bool small = fmas <= kSmallDirectFmas;
  if (r.b_prepacked) {
    if (kern.direct == nullptr || r.m > kernels::kDirectMaxRows) return false;
    if (kern.direct_panels != nullptr) {
      // All of K in one block over the prepacked panels: the members take runs of panels, each
      // walked with several panels in flight (one core read 21 GB/s from one stream and 29 from
      // four on the Zen 3 machine).
      plan->path = Path::kAInPlace;
      plan->in_place_tiles = false;
      plan->in_place_rows = kern.direct_mr;
      plan->in_place_kc = blocking::balanced_block(r.k, std::max<int64_t>(1, r.k), kern.k_unit);
      plan->in_place_buffers = plan->in_place_kc < r.k ? 2 : 1;
      plan->in_place_block_bytes = packed_b_bytes(kern, plan->in_place_kc, r.n);
      plan->in_place_by_rows = in_place_split_rows(r.m, r.n, *plan, kern.nr, plan->threads);
    } else {
      plan->path = Path::kDirectPrepacked;
      plan->direct_rows = kernels::kDirectMaxRows;
      plan->direct_cols = kern.nr;
      plan->direct_kc = r.k;
    }
    return true;
  }
  if (kern.ukernel_a_in_place != nullptr && small_fits && r.unit_alpha && r.a_row_major &&
      r.b_row_major && r.m > kernels::kDirectMaxRows &&
      (small || packing_share(r.m, r.n) >= kSmallPackingShare)) {
    plan->path = Path::kSmall;
    plan->small_by_rows = small_split_rows(kern, r.m, plan->threads);
    return true;
  }
  if (r.m > kernels::kDirectMaxRows && !small) return false;
  if (kern.direct != nullptr && r.b_row_major) {
    plan->path = Path::kDirect;
    plan->direct_rows = kern.direct_mr;
    plan->direct_cols = kern.direct_nr;
    // A small product's B is in cache: one pass over all of K keeps the accumulators in
    // registers.
    plan->direct_kc = small ? std::max<int64_t>(r.k, 1) : kDirectKc;
    return true;
  }
  if (kern.direct_t != nullptr && r.b_transposed) {
    // Each column of B is a contiguous row of W: one pass over all of K streams those rows once.
    plan->path = Path::kDirectTransposed;
    plan->direct_rows = kernels::kDirectMaxRows;
    plan->direct_t_cached = w_cached && kern.direct_t_cached != nullptr;
    plan->direct_t_alone =
        !plan->direct_t_cached && plan->threads == 1 && kern.direct_t_alone != nullptr;
    plan->direct_cols = kern.direct_t_nr * (plan->direct_t_cached || plan->direct_t_alone ? 2 : 1);
    plan->direct_kc = std::max<int64_t>(r.k, 1);
    return true;
  }
  return false;
}

}  // namespace

const char* path_name(Path path) {
  switch (path) {
    case Path::kDirect: return "direct";
    case Path::kDirectTransposed: return "direct, B transposed";
    case Path::kSmall: return "small";
    case Path::kDirectPrepacked: return "direct over prepacked B";
    case Path::kAInPlace: return "A in place";
    case Path::kLoopNest: return "loop nest";
  }
  return "?";
}

std::string describe_plan(const Plan& plan, const std::string& indent) {
  const auto num = [](int64_t x) { return std::to_string(x); };
  const auto kib = [](std::size_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; };
  std::string s = indent + "path " + path_name(plan.path) + ", team " + num(plan.threads);
  switch (plan.path) {
    case Path::kDirect:
    case Path::kDirectTransposed:
    case Path::kDirectPrepacked:
      s += std::string(plan.threads > 1 ? " (column groups split)" : "") + "\n" + indent + "rows " +
           num(plan.direct_rows) + " per call, column groups of " + num(plan.direct_cols) +
           ", k-blocks of " + num(plan.direct_kc) +
           (plan.path != Path::kDirectTransposed ? ""
            : plan.direct_t_cached
                ? "\n" + indent + "W counted as in cache: the kernel's direct_t_cached form"
            : plan.direct_t_alone
                ? "\n" + indent + "W streamed by one thread: the kernel's direct_t_alone form"
                : "");
      break;
    case Path::kSmall:
      if (plan.threads > 1)
        s += plan.small_by_rows ? " (rows of tiles split)" : " (column groups split)";
      break;
    case Path::kAInPlace:
      if (plan.threads > 1) s += plan.in_place_by_rows ? " (rows split)" : " (panels split)";
      s += "\n" + indent + (plan.in_place_tiles ? "tiles" : "direct_panels") +
           " over A in place, " + num(plan.in_place_rows) +
           " rows per group; B packed alone in k-blocks of " + num(plan.in_place_kc) + " (" +
           num(plan.in_place_buffers) + " buffer" + (plan.in_place_buffers == 1 ? "" : "s") +
           " of " + kib(plan.in_place_block_bytes) + ")";
      break;
    case Path::kLoopNest: {
      const Partition& part = plan.team.partition;
      s += part.tm > 1   ? " (rows split, row unit " + num(part.row_unit) + ")"
           : part.tn > 1 ? std::string(" (columns split)")
                         : std::string();
      s += "\n" + indent + "blocks MC " + num(plan.mc) + ", KC " + num(plan.kc) + ", NC " +
           num(plan.nc) + (plan.blocks.prefetch_c ? ", C prefetched" : "") + "; order " +
           (plan.order == LoopOrder::kKBlocksOuter ? "k-blocks outer (A rows packed once)"
                                                   : "column blocks outer");
      s += "\n" + indent + "B " +
           (plan.b_bytes == 0            ? "prepacked"
            : plan.team.shared_b         ? "packed by the team into one shared block"
            : plan.team.partition.tm > 1 ? "packed by each member into a block of its own"
            : plan.threads > 1           ? "panels packed by the member that reads them"
                                         : "packed") +
           ", A " +
           (plan.a_bytes == 0                                 ? "prepacked"
            : plan.team.shared_a                              ? "blocks packed by the team together"
            : plan.threads > 1 && plan.team.partition.tm == 1 ? "packed whole by each member"
            : plan.threads > 1                                ? "packed by each member for its rows"
                                                              : "packed") +
           "; slot " + kib(plan.slot_bytes) + " per member";
      break;
    }
  }
  s += "\n" + indent + "workspace " + kib(plan.workspace_bytes) + "\n";
  return s;
}

namespace {

// The elements of rows [0, r) of an m x m C inside the triangle: row i holds m - i of the upper
// triangle's, i + 1 of the lower's.
double triangle_rows_elements(int64_t m, Triangle triangle, int64_t r) {
  const double rows = static_cast<double>(r);
  return triangle == Triangle::kUpper ? rows * static_cast<double>(m) - rows * (rows - 1) / 2
                                      : rows * (rows + 1) / 2;
}

}  // namespace

void member_rows(int64_t m, int64_t unit, int me, int members, int64_t* lo, int64_t* hi,
                 Triangle triangle) {
  // Boundary i: the multiple of `unit` nearest to the even one (halves round up), m at the end:
  // i * m / members, or for a triangle the first row r at which rows [0, r) hold i / members of
  // its elements. Nondecreasing in i, so the runs are contiguous and cover [0, m).
  const auto boundary = [&](int i) {
    if (i >= members) return m;
    int64_t even = m * i / members;
    if (triangle != Triangle::kNone && i > 0) {
      const double share = triangle_rows_elements(m, triangle, m) * i / members;
      int64_t below = 0, above = m;  // the first r with share <= elements(r) lies in (below, above]
      while (above - below > 1) {
        const int64_t mid = below + (above - below) / 2;
        (triangle_rows_elements(m, triangle, mid) < share ? below : above) = mid;
      }
      even = above;
    }
    return std::min(m, (even + unit / 2) / unit * unit);
  };
  *lo = boundary(me);
  *hi = boundary(me + 1);
}

int64_t widest_rows(int64_t m, int64_t unit, int members, Triangle triangle) {
  int64_t widest = 0;
  for (int i = 0; i < members; ++i) {
    int64_t lo = 0, hi = 0;
    member_rows(m, unit, i, members, &lo, &hi, triangle);
    widest = std::max(widest, hi - lo);
  }
  return widest;
}

int64_t cached_w_bytes(const arch::CacheTopology& topology) {
  return std::max(topology.l2.bytes, topology.l3.bytes / 4);
}

int useful_threads(int64_t m, int64_t n, int64_t k, int threads) {
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (threads <= 1 || flops < 2.0 * kMinFlopsPerThread) return 1;  // no division on the way
  const double limit = flops / kMinFlopsPerThread;
  return limit < threads ? static_cast<int>(limit) : threads;
}

int batch_members(int64_t m, int64_t n, int64_t k, int threads, int64_t count) {
  if (count <= 1 || useful_threads(m, n, k, threads) >= threads) return 1;
  return static_cast<int>(std::min<int64_t>(threads, count));
}

std::size_t packed_a_bytes(const GemmKernel& kern, int64_t m, int64_t k) {
  const int64_t panels = (m + kern.mr - 1) / kern.mr;
  return align_up(static_cast<std::size_t>(panels * kern.mr * k) * kern.a_packed_bytes);
}

std::size_t packed_b_bytes(const GemmKernel& kern, int64_t k, int64_t n) {
  const int64_t panels = (n + kern.nr - 1) / kern.nr;
  return align_up(static_cast<std::size_t>(panels * kern.nr * k) * kern.b_packed_bytes);
}

bool in_place_tiles(const GemmKernel& kern, const PlanRequest& r) {
  return kern.ukernel_a_in_place != nullptr && kern.mr > kern.direct_mr && r.unit_alpha &&
         r.a_row_major && r.m > kernels::kDirectMaxRows;
}

bool reads_a_in_place(const GemmKernel& kern, const PlanRequest& r,
                      const blocking::BlockSizes& blocks, int threads) {
  const bool whole_k = blocks.b_l2_depth >= r.k;
  const bool tiles = in_place_tiles(kern, r);
  // The tiles need no direct_panels; without the tiles a kernel lacking it has no such path.
  const int64_t panels = tiles                           ? kInPlaceTilePanels
                         : kern.direct_panels == nullptr ? 0
                         : threads > 1                   ? kern.a_in_place_team_panels
                                                         : kern.a_in_place_panels;
  return r.allow_direct && (whole_k || blocks.b_l2_depth >= kMinInPlaceDepth) &&
         r.n <= panels * kern.nr && !r.a_prepacked && r.m > kernels::kDirectMaxRows;
}

bool in_place_split_rows(int64_t m, int64_t n, const Plan& plan, int64_t nr, int members) {
  const int64_t panels = (n + nr - 1) / nr;
  const int64_t row_groups = (m + plan.in_place_rows - 1) / plan.in_place_rows;
  return row_groups >= members && !(panels >= members && m <= kPanelsSplitRowsPerColumn * n);
}

bool small_split_rows(const GemmKernel& kern, int64_t m, int members) {
  // At least 2 * members tiles of rows: ceil(m / mr) >= t exactly when m > (t - 1) * mr (no
  // division on the smallest products' way).
  return m > (2 * static_cast<int64_t>(members) - 1) * kern.mr;
}

TeamPlan team_plan(const GemmKernel& kern, const PlanRequest& r, const Plan& plan, int members) {
  TeamPlan t;
  // A triangle's members pack their own B blocks: they skip different blocks, and a shared one
  // would make each wait at every block for the other's share of it, which the triangle's
  // diagonal makes unequal block by block (equal only in total). Each member's copy of B is a
  // few multiply-adds' worth of its n^3 / 4.
  t.own_b = own_b_for(kern, plan, members) || r.triangle != Triangle::kNone;
  t.partition = partition_for(kern, r, plan, members);
  t.shared_b = !r.b_prepacked && t.partition.tm > 1 && !t.own_b;
  // With the columns split over all of A in one row block (x * W^T, a few rows against many
  // columns), every member packs each k-block of A itself, once (k-blocks outer), and never meets
  // the others; otherwise the members pack each A block together. Packing together, the team met
  // once per column block and k-block and packed A once per column block: x * W^T, W 4096 x 4096
  // with NC 512 (kTransposedBNc), 104 meetings a call. On the Zen 3 of block_sizes.h, two
  // threads, the two builds alternating (median GFLOP/s of six runs): M = 16 82.9 -> 85.5, 64
  // 147.5 -> 145.6, 256 161.0 -> 166.7.
  const bool columns = t.partition.tm == 1 && members > 1;
  const bool own_whole_a = columns && plan.room_for_whole_a && r.m <= plan.mc;
  t.shared_a = columns && !r.a_prepacked && !own_whole_a;
  // The whole team takes the same order (the shared B blocks come in the same sequence for all):
  // a smaller team than the workspace was sized for, whose widest rows outgrow a slot, takes the
  // usual one.
  const int64_t rows = columns ? r.m : widest_rows(r.m, t.partition.row_unit, members, r.triangle);
  t.whole_a =
      plan.room_for_whole_a && !t.shared_a && whole_a_bytes(kern, plan, rows) <= plan.a_bytes;
  return t;
}

namespace {

// The packed paths, once the direct ones have declined the product.
void plan_packed(const GemmKernel& kern, const PlanRequest& r, const blocking::BlockSizes& blocks,
                 Plan* out) {
  Plan& plan = *out;
  plan.blocks = blocks;
  if (reads_a_in_place(kern, r, blocks, plan.threads)) {
    plan.path = Path::kAInPlace;
    plan.in_place_tiles = in_place_tiles(kern, r);
    plan.in_place_rows =
        plan.in_place_tiles ? std::min<int64_t>(kInPlaceTileRows, kern.mr) : kern.direct_mr;
    plan.in_place_kc =
        blocking::balanced_block(r.k, std::max<int64_t>(1, blocks.b_l2_depth), kern.k_unit);
    plan.in_place_buffers = plan.in_place_kc < r.k ? 2 : 1;
    plan.in_place_block_bytes = packed_b_bytes(kern, plan.in_place_kc, r.n);
    plan.in_place_by_rows = in_place_split_rows(r.m, r.n, plan, kern.nr, plan.threads);
    plan.workspace_bytes = r.b_prepacked ? 0 : plan.in_place_buffers * plan.in_place_block_bytes;
    return;
  }
  plan.path = Path::kLoopNest;
  const int64_t mr = kern.mr, nr = kern.nr;
  plan.mc = (blocks.mc + mr - 1) / mr * mr;
  plan.nc = (blocks.nc + nr - 1) / nr * nr;
  plan.kc = blocks.kc;
  plan.b_outer_rows = kBOuterPanels * mr;
  // k-blocks outer (see kWholeKBlockABytes): over B blocks sized for L2 only (the column blocks
  // are then narrow, and A would be read N / NC times), when there are several column blocks,
  // and for one thread or a rows split (each member its own rows).
  const int threads = plan.threads;
  const Partition part = partition_for(kern, r, plan, threads);
  const bool one_row_block_by_columns =
      threads > 1 && part.tm == 1 && r.m <= plan.mc && r.triangle == Triangle::kNone;
  const bool in_l2 = b_blocks_in_l2(kern, r);
  const bool k_outer =
      !r.a_prepacked && (!r.b_prepacked || in_l2) && r.n > plan.nc &&
      ((in_l2 && (threads == 1 || part.tm == threads)) || one_row_block_by_columns);
  // The largest member's rows when a team of `threads` splits the rows (member_rows, runs
  // starting anywhere: a packed A).
  const int64_t widest = one_row_block_by_columns ? r.m : widest_rows(r.m, 1, threads, r.triangle);
  plan.room_for_whole_a = k_outer && whole_a_bytes(kern, plan, widest) <= kWholeKBlockABytes;
  // One workspace slot per member (sized for the largest team this call may get): a packed B
  // block, a packed A block (or a member's rows of a whole k-block) and a scratch tile.
  plan.a_bytes =
      r.a_prepacked
          ? 0
          : align_up(std::max(static_cast<std::size_t>(plan.mc * plan.kc) * kern.a_packed_bytes,
                              plan.room_for_whole_a ? whole_a_bytes(kern, plan, widest) : 0));
  plan.b_bytes = r.b_prepacked
                     ? 0
                     : align_up(static_cast<std::size_t>(plan.nc * plan.kc) * kern.b_packed_bytes);
  plan.tile_bytes = align_up(static_cast<std::size_t>(mr * nr) * kern.c_bytes);
  plan.slot_bytes = plan.b_bytes + plan.a_bytes + plan.tile_bytes;
  plan.workspace_bytes = static_cast<std::size_t>(threads) * plan.slot_bytes;
  plan.team = team_plan(kern, r, plan, threads);
  plan.order = plan.team.whole_a ? LoopOrder::kKBlocksOuter : LoopOrder::kColumnBlocksOuter;
}

}  // namespace

Plan make_plan_with_blocks(const GemmKernel& kern, const PlanRequest& r, bool small_fits,
                           const blocking::BlockSizes& blocks) {
  Plan plan;
  plan.threads = std::max(1, std::min(r.threads, r.max_team));
  plan.small_fits = small_fits;
  if (!plan_direct(kern, r, small_fits, /*w_cached=*/false, &plan))
    plan_packed(kern, r, blocks, &plan);
  return plan;
}

bool plan_tiny(const GemmKernel& kern, const PlanRequest& r, const arch::CacheTopology& topology,
               Plan* plan) {
  // Below kMinFlopsPerThread multiply-adds a product runs on one thread (useful_threads) and
  // counts as small (kSmallDirectFmas), so a direct path or the small one is decided from the
  // shape and layouts alone, without the team's arithmetic.
  if (!r.allow_direct || r.a_prepacked || r.b_prepacked || !tiny_shape(r.m, r.n, r.k)) return false;
  plan->threads = 1;
  plan->small_fits =
      r.m > kernels::kDirectMaxRows &&
      blocking::small_kernel_fits(topology, {kern.mr, kern.nr},
                                  {kern.a_packed_bytes, kern.b_packed_bytes}, r.n, r.k);
  // B is a tiny product's: in cache.
  return plan_direct(kern, r, plan->small_fits, /*w_cached=*/true, plan);
}

Plan make_plan(const GemmKernel& kern, const PlanRequest& r, const arch::CacheTopology& topology,
               const blocking::BlockOverrides& overrides) {
  // The smallest products first, whose plan is most of their call's cost.
  Plan plan;
  if (plan_tiny(kern, r, topology, &plan)) return plan;
  // Only the small path reads it, and only above kDirectMaxRows rows.
  const bool small_fits =
      r.m > kernels::kDirectMaxRows &&
      blocking::small_kernel_fits(topology, {kern.mr, kern.nr},
                                  {kern.a_packed_bytes, kern.b_packed_bytes}, r.n, r.k);
  plan.threads = std::max(1, std::min(useful_threads(r.m, r.n, r.k, r.threads), r.max_team));
  plan.small_fits = small_fits;
  // The direct paths need no block sizes.
  const double b_bytes =
      static_cast<double>(r.n) * static_cast<double>(r.k) * static_cast<double>(kern.b_in_bytes);
  const bool w_cached = b_bytes <= static_cast<double>(cached_w_bytes(topology));
  if (!plan_direct(kern, r, small_fits, w_cached, &plan)) {
    blocking::TileShape shape = tile_shape(kern);
    shape.b_block_in_l2 = b_blocks_in_l2(kern, r);
    blocking::BlockSizes blocks = blocking::choose_block_sizes(
        topology, shape, {kern.a_packed_bytes, kern.b_packed_bytes}, r.m, r.n, r.k, overrides);
    if (r.b_transposed && !r.b_prepacked && overrides.nc <= 0 && r.m <= blocks.mc)
      blocks.nc = std::min(blocks.nc, blocking::balanced_block(r.n, kTransposedBNc, kern.nr));
    plan_packed(kern, r, blocks, &plan);
  }
  return plan;
}

}  // namespace invar::driver

// The analytic blocking model over synthetic topologies: pure functions, the same on every
// machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "arch/cache_topology.h"
#include "blocking/block_sizes.h"

namespace invar::test {
namespace {

using arch::CacheLevel;
using arch::CacheTopology;
using arch::kKiB;
using arch::kMiB;
using blocking::BlockOverrides;
using blocking::BlockSizes;
using blocking::PackedBytes;
using blocking::TileShape;

constexpr TileShape kAvx2{6, 16};
constexpr TileShape kAvx512{12, 32};
constexpr TileShape kNeon{8, 12};
constexpr TileShape kGeneric{4, 8};
constexpr PackedBytes kF32{4, 4};

CacheTopology make(const char* name, CacheLevel l1, CacheLevel l2, CacheLevel l3) {
  CacheTopology t;
  t.l1d = l1;
  t.l2 = l2;
  t.l3 = l3;
  t.source = name;
  return t;
}

// A Zen 3 guest (the caches of tests/fixtures/sysfs_zen3_vm).
CacheTopology zen3() {
  return make("zen3", {32 * kKiB, 8, 64, 1}, {512 * kKiB, 8, 64, 1}, {32 * kMiB, 16, 64, 1});
}
// The Zen 5 VM as the legacy leaves report it, after the reachable-L3 rule.
CacheTopology zen5_vm() {
  CacheTopology t =
      make("zen5_vm", {48 * kKiB, 12, 64, 1}, {1 * kMiB, 8, 64, 1}, {32 * kMiB, 16, 64, 1});
  t.l3_package_bytes = 508 * kMiB;
  return t;
}
// Core i9-7980XE.
CacheTopology skylake_x() {
  return make("skylake_x", {32 * kKiB, 8, 64, 1}, {1 * kMiB, 16, 64, 1}, {25344 * kKiB, 11, 64, 1});
}
// Apple M-series performance cluster: 128 KiB L1d, 16 MiB L2 shared by 4 cores, no L3.
CacheTopology apple_m() {
  return make("apple_m", {128 * kKiB, 8, 128, 1}, {16 * kMiB, 16, 128, 4}, {});
}
// A small embedded core: 8 KiB 2-way L1d, 128 KiB 4-way L2, no L3.
CacheTopology tiny() { return make("tiny", {8 * kKiB, 2, 64, 1}, {128 * kKiB, 4, 64, 1}, {}); }

BlockSizes choose(const CacheTopology& t, TileShape tile, int64_t m, int64_t n, int64_t k,
                  BlockOverrides o = {}, PackedBytes bytes = kF32) {
  return blocking::choose_block_sizes(t, tile, bytes, m, n, k, o);
}

// Block sizes depend on the machine and the shape, never on the thread count.
static_assert(std::is_same_v<decltype(&blocking::choose_block_sizes),
                             BlockSizes (*)(const CacheTopology&, TileShape, PackedBytes, int64_t,
                                            int64_t, int64_t, const BlockOverrides&)>);

TEST(BlockingModel, KcKeepsTheBMicroPanelInL1) {
  // Zen 3, 6 x 16 f32: 64 sets of 64 bytes, 4 KiB per way. B takes 5 ways (KC = 5 * 4096 / 64 =
  // 320), the A micro-panel ceil(6 * 320 * 4 / 4096) = 2, one way is left: 5 + 2 = 8 - 1. Six
  // B ways (KC 384) would need 3 for A.
  EXPECT_EQ(blocking::l1_kc(zen3().l1d, kAvx2, kF32), 320);
  // Zen 5 (48 KiB, 12 ways): 12 x 32 takes 8 ways of B (KC 256) + 3 of A; 6 x 16 reaches 512.
  EXPECT_EQ(blocking::l1_kc(zen5_vm().l1d, kAvx512, kF32), 256);
  EXPECT_EQ(blocking::l1_kc(zen5_vm().l1d, kAvx2, kF32), 512);
  // Skylake-X, 12 x 32: 5 ways of B (KC 160) + 2 of A.
  EXPECT_EQ(blocking::l1_kc(skylake_x().l1d, kAvx512, kF32), 160);
  for (const CacheTopology& t : {zen3(), zen5_vm(), skylake_x(), apple_m(), tiny()}) {
    for (TileShape tile : {kAvx2, kAvx512, kNeon, kGeneric}) {
      const int64_t kc = blocking::l1_kc(t.l1d, tile, kF32);
      EXPECT_GE(kc, blocking::kMinKc);
      if (kc > blocking::kMinKc) {
        const int64_t way = t.l1d.way_bytes();
        const int64_t b_ways = (tile.nr * kc * 4 + way - 1) / way;
        const int64_t a_ways = (tile.mr * kc * 4 + way - 1) / way;
        EXPECT_LE(b_ways + a_ways, t.l1d.ways - 1) << tile.mr << "x" << tile.nr;
      }
    }
  }
}

TEST(BlockingModel, NarrowTypesGetDeeperBlocks) {
  EXPECT_EQ(blocking::l1_kc(zen3().l1d, kAvx2, PackedBytes{2, 2}), 640);
  EXPECT_EQ(blocking::l1_kc(zen3().l1d, kAvx2, PackedBytes{1, 1}), 1280);
  // At one depth, half the element size fits twice the rows and columns.
  const int64_t mc4 = blocking::l2_mc(zen3().l2, kAvx2, kF32, 256);
  const int64_t mc2 = blocking::l2_mc(zen3().l2, kAvx2, PackedBytes{2, 2}, 256);
  EXPECT_GE(mc2, 2 * mc4 - kAvx2.mr);
  EXPECT_EQ(blocking::l3_nc(zen3().l3, kAvx2, PackedBytes{2, 2}, 256),
            2 * blocking::l3_nc(zen3().l3, kAvx2, kF32, 256));
}

TEST(BlockingModel, TinyL1FallsToTheFloor) {
  // 8 KiB 2-way: one way for A and one for C leave B nothing; the floor holds.
  EXPECT_EQ(blocking::l1_kc(tiny().l1d, kAvx2, kF32), blocking::kMinKc);
  CacheLevel four_way{8 * kKiB, 4, 64, 1};  // 2 KiB ways: B 2 ways = KC 64, A 1 way
  EXPECT_EQ(blocking::l1_kc(four_way, kAvx2, kF32), 64);
  const BlockSizes b = choose(tiny(), kAvx2, 1000, 1000, 1000);
  EXPECT_EQ(b.kc, 63);  // 1000 in 16 slices of at most 64
  EXPECT_EQ(b.mc % kAvx2.mr, 0);
  EXPECT_LE(b.mc * b.kc * 4, 128 * kKiB);
  EXPECT_EQ(b.nc, 1008);  // no L3: 256 micro-panels, more than N
}

TEST(BlockingModel, McFillsTheL2ShareLessBAndC) {
  // Zen 3 at KC 256: 64 KiB ways, the B micro-panel (16 KiB) takes one, C one, A the other 6:
  // 384 KiB / 1 KiB per row = 384 rows.
  EXPECT_EQ(blocking::l2_mc(zen3().l2, kAvx2, kF32, 256), 384);
  // Apple: a worker owns a quarter of the shared 16 MiB (4 ways of 1 MiB): B one, C one, A two.
  const int64_t kc = blocking::l1_kc(apple_m().l1d, kNeon, kF32);
  const int64_t shared = blocking::l2_mc(apple_m().l2, kNeon, kF32, kc);
  EXPECT_EQ(shared % kNeon.mr, 0);
  EXPECT_LE(shared * kc * 4, 2 * kMiB);
  EXPECT_GT(shared * kc * 4, 2 * kMiB - kNeon.mr * kc * 4);
  CacheLevel private_l2 = apple_m().l2;
  private_l2.sharing = 1;
  EXPECT_GT(blocking::l2_mc(private_l2, kNeon, kF32, kc), 6 * shared);
  // An L2 shared by more workers than it has ways: half the share.
  CacheLevel crowded{1 * kMiB, 4, 64, 8};
  EXPECT_EQ(blocking::l2_mc(crowded, kAvx2, kF32, 256), 64 * kKiB / 1024 / 6 * 6);
}

TEST(BlockingModel, NcFillsAQuarterOfL3) {
  // Zen 3 at KC 256: 8 of 32 MiB / 1 KiB per column.
  EXPECT_EQ(blocking::l3_nc(zen3().l3, kAvx2, kF32, 256), 8192);
  // A deeper block has fewer columns: 8 MiB / 4 KiB at KC 1024.
  EXPECT_EQ(blocking::l3_nc(zen3().l3, kAvx512, kF32, 1024), 2048);
  // No L3: a fixed number of micro-panels.
  EXPECT_EQ(blocking::l3_nc(apple_m().l3, kNeon, kF32, 512), blocking::kNoL3Panels * 12);
  // The budget the driver weighs its B blocks against is the same quarter, 0 without an L3,
  // whatever the shape.
  EXPECT_EQ(blocking::b_block_budget(zen3().l3), 8 * kMiB);
  EXPECT_EQ(blocking::b_block_budget(apple_m().l3), 0);
  EXPECT_EQ(choose(zen3(), kAvx512, 64, 64, 64).b_block_budget, 8 * kMiB);
  EXPECT_EQ(choose(zen3(), kAvx512, 4096, 4096, 4096).b_block_budget, 8 * kMiB);
}

TEST(BlockingModel, Zen5VmPackageL3IsNotAPerCoreL3) {
  // The legacy report (508 MiB) reaches the model as 32 MiB, so the B block is sized for one
  // CCD: a quarter of it, 8 MiB at KC 256, 8192 columns of 12 x 32 f32 panels.
  const CacheTopology t = zen5_vm();
  const BlockSizes b = choose(t, kAvx512, 8192, 1 << 20, 8192);
  EXPECT_EQ(b.kc, 256);
  EXPECT_LE(b.nc * b.kc * 4, 8 * kMiB);
  EXPECT_EQ(b.nc % kAvx512.nr, 0);
  EXPECT_GT(b.nc * b.kc * 4, 8 * kMiB - 256 * kKiB);  // near-equal slices of 2^20
  // Taken at face value the package total would ask for a 475 MiB B block.
  CacheTopology raw = t;
  raw.l3.bytes = 508 * kMiB;
  EXPECT_GT(blocking::l3_nc(raw.l3, kAvx512, kF32, 256),
            15 * blocking::l3_nc(t.l3, kAvx512, kF32, 256));
}

TEST(BlockingModel, KSlicesComeOutNearEqual) {
  EXPECT_EQ(blocking::balanced_block(300, 256, 1), 150);
  EXPECT_EQ(blocking::balanced_block(1024, 320, 1), 256);
  EXPECT_EQ(blocking::balanced_block(256, 256, 1), 256);
  EXPECT_EQ(blocking::balanced_block(257, 256, 1), 129);
  EXPECT_EQ(blocking::balanced_block(1000, 306, 6), 252);  // 4 row blocks of 252, 252, 252, 244
  EXPECT_EQ(blocking::balanced_block(5, 306, 6), 6);
  // K = 300 on a 256-deep model: two slices of 150, not 256 + 44.
  EXPECT_EQ(choose(zen5_vm(), kAvx512, 1000, 1000, 300).kc, 150);
  for (int64_t k = 1; k <= 3000; k += 7) {
    const int64_t kc = choose(zen3(), kAvx2, 512, 512, k).kc;
    const int64_t slices = (k + kc - 1) / kc;
    const int64_t last = k - (slices - 1) * kc;
    EXPECT_LE(kc, 320);
    EXPECT_EQ(slices, (k + 319) / 320) << "k=" << k;  // no more slices than needed
    EXPECT_LE(kc - last, slices) << "k=" << k << " kc=" << kc;
  }
}

// A kernel that keeps its pace with B streaming from L2/L3 gets the deeper of two depths: the one
// whose A micro-panel leaves two ways of L1 free (one for B's lines in flight, one for C), and
// kStreamKc.
TEST(BlockingModel, StreamingBKernelsSizeKcForTheAMicroPanel) {
  const TileShape streaming{12, 32, 1, true};
  const CacheTopology zen4 =
      make("zen4", {32 * kKiB, 8, 64, 1}, {1 * kMiB, 8, 64, 1}, {32 * kMiB, 16, 64, 1});
  // f32 and f64: 512 and 256 deep in L1, so kStreamKc.
  EXPECT_EQ(blocking::streaming_kc(zen4.l1d, streaming, kF32), blocking::kStreamKc);
  EXPECT_EQ(blocking::streaming_kc(zen4.l1d, streaming, {8, 8}), blocking::kStreamKc);
  // u8 panels: 24 KiB of A is 2048 steps, deeper than kStreamKc.
  EXPECT_EQ(blocking::streaming_kc(zen4.l1d, streaming, {1, 1}), 2048);
  EXPECT_EQ(blocking::streaming_kc(zen5_vm().l1d, streaming, {1, 1}), 3413);  // 10 of 12 ways
  EXPECT_EQ(blocking::l1_kc(zen4.l1d, kAvx512, kF32), 160);  // both panels: 5 ways of B, 2 of A
  // Through the model: K = 4096 in four slices of kStreamKc; K = 1500 in two near-equal ones.
  EXPECT_EQ(choose(zen4, streaming, 4096, 4096, 4096).kc, 1024);
  EXPECT_EQ(choose(zen4, streaming, 4096, 4096, 1500).kc, 750);
  // The kernel that keeps B in L1 is not affected.
  EXPECT_EQ(choose(zen4, kAvx512, 4096, 4096, 4096).kc, 158);  // 26 slices of at most 160
  for (const CacheTopology& t : {zen3(), zen4, zen5_vm(), skylake_x(), apple_m(), tiny()}) {
    // u8 panels: the L1 depth wins wherever it is deeper than kStreamKc.
    const int64_t kc = blocking::streaming_kc(t.l1d, streaming, {1, 1});
    const int64_t a_bytes = 12 * kc, budget = (t.l1d.ways - 2) * t.l1d.way_bytes();
    EXPECT_GE(kc, blocking::kStreamKc) << t.source;
    if (kc > blocking::kStreamKc) {
      EXPECT_LE(a_bytes, budget) << t.source;
      EXPECT_GT(a_bytes + 12, budget) << t.source;  // and one step deeper would not fit
    }
    // MC follows KC as for any kernel: the A block still fits L2's share.
    const BlockSizes b = choose(t, streaming, 4096, 4096, 4096);
    EXPECT_LE(b.mc * b.kc * 4, t.l2.bytes / std::max(1, t.l2.sharing)) << t.source;
  }
}

// The streaming depth holds whatever N is: a narrow B block is not cut shallower to stay in L2.
TEST(BlockingModel, StreamingBKeepsItsDepthForANarrowB) {
  const TileShape streaming{12, 32, 1, true};
  const CacheTopology zen4 =
      make("zen4", {32 * kKiB, 8, 64, 1}, {1 * kMiB, 8, 64, 1}, {32 * kMiB, 16, 64, 1});
  EXPECT_EQ(choose(zen4, streaming, 512, 512, 512).kc, 512);
  EXPECT_EQ(choose(zen4, streaming, 512, 512, 4096).kc, 1024);
  EXPECT_EQ(choose(zen4, streaming, 1024, 2048, 1024).kc, 1024);
  EXPECT_EQ(choose(zen4, streaming, 2048, 2048, 2048).kc, 1024);
  for (int64_t n : {32, 64, 256, 512, 1024, 4096})
    EXPECT_EQ(choose(zen4, streaming, 4096, n, 4096).kc, 1024) << "n=" << n;
}

// A B block sized for L2 (TileShape::b_block_in_l2): KC as l1_kc, NC fills half of the worker's
// L2 share instead of a quarter of L3.
TEST(BlockingModel, BBlockInL2) {
  const TileShape in_l2{12, 32, 1, false, true};
  // The Intel Xeon with AMX this was measured on: 48 KiB 12-way L1d, 2 MiB L2, a package L3.
  const CacheTopology xeon =
      make("xeon", {48 * kKiB, 12, 64, 1}, {2 * kMiB, 16, 64, 1}, {480 * kMiB, 16, 64, 1});
  EXPECT_EQ(blocking::l1_kc(xeon.l1d, in_l2, kF32), 256);  // 8 ways of B, 3 of A
  const TileShape in_l2_f64{12, 16, 1, false, true};
  EXPECT_EQ(blocking::l1_kc(xeon.l1d, in_l2_f64, {8, 8}), 192);  // f64: 6 ways of B, 5 of A
  EXPECT_EQ(blocking::l2_nc(xeon.l2, in_l2, kF32, 256), 1024);   // 1 MiB / 1 KiB per column
  EXPECT_EQ(blocking::l2_nc(xeon.l2, in_l2_f64, {8, 8}, 192), 672);
  EXPECT_EQ(blocking::l2_nc(xeon.l2, in_l2, kF32, 1 << 20), 32);  // at least one panel
  const BlockSizes b = choose(xeon, in_l2, 4096, 4096, 4096);
  EXPECT_EQ(b.kc, 256);
  EXPECT_EQ(b.nc, 1024);
  const BlockSizes d = choose(xeon, in_l2_f64, 4096, 4096, 4096, {}, {8, 8});
  EXPECT_EQ(d.kc, 187);  // 4096 in 22 near-equal slices of at most 192
  EXPECT_LE(d.nc * d.kc * 8, xeon.l2.bytes / 2);
  // The same tile with the B block in L3: as wide as a quarter of L3 holds (all 4096 here).
  EXPECT_EQ(choose(xeon, kAvx512, 4096, 4096, 4096).nc, 4096);
  // Two workers behind one L2 split it.
  CacheTopology shared = xeon;
  shared.l2.sharing = 2;
  EXPECT_EQ(blocking::l2_nc(shared.l2, in_l2, kF32, 256), 512);
  // Whatever the machine, the block stays in half of the L2 share.
  for (const CacheTopology& t : {zen3(), zen5_vm(), skylake_x(), apple_m(), tiny(), xeon}) {
    for (int64_t s : {100, 2048, 5000}) {
      const BlockSizes x = choose(t, in_l2, s, s, s);
      if (x.nc > in_l2.nr)
        EXPECT_LE(x.nc * x.kc * 4, t.l2.bytes / t.l2.sharing / 2) << t.source << " " << s;
    }
  }
}

// Both micro-panels from L2 (TileShape::panels_from_l2, the AMX tiles): KC up to kL2PanelsKc
// in whole 64-step chunks, the A block kL2PanelsMcPanels micro-panels, the B block in half of
// the L2 share at that depth.
TEST(BlockingModel, PanelsFromL2) {
  TileShape amx{32, 32, 64};
  amx.b_block_in_l2 = true;
  amx.panels_from_l2 = true;
  const PackedBytes bytes{1, 1};
  const CacheTopology xeon =
      make("xeon", {48 * kKiB, 12, 64, 1}, {2 * kMiB, 16, 64, 1}, {480 * kMiB, 16, 64, 1});
  const BlockSizes b = choose(xeon, amx, 4096, 4096, 4096, {}, bytes);
  EXPECT_EQ(b.kc, 2048);
  EXPECT_EQ(b.mc, 128);
  EXPECT_EQ(b.nc, 512);  // 1 MiB of B at 2048 bytes per column
  EXPECT_EQ(blocking::kc_limit(xeon.l1d, amx, bytes), 2048);
  // 3000 in two near-equal k-blocks of whole chunks; 100 rows in one block.
  const BlockSizes c = choose(xeon, amx, 100, 4096, 3000, {}, bytes);
  EXPECT_EQ(c.kc, 1536);
  EXPECT_EQ(c.mc, 128);
  EXPECT_EQ(c.nc, 608);  // at most 1 MiB / 1536 bytes (672 columns): 4096 in 7 near-equal blocks
  for (const CacheTopology& t : {zen3(), zen5_vm(), skylake_x(), apple_m(), tiny(), xeon}) {
    for (int64_t s : {100, 2048, 5000}) {
      const BlockSizes x = choose(t, amx, s, s, s, {}, bytes);
      EXPECT_TRUE(x.kc == s || x.kc % 64 == 0) << t.source << " " << s;
      EXPECT_LE(x.mc, 128) << t.source << " " << s;
      if (x.nc > amx.nr) EXPECT_LE(x.nc * x.kc, t.l2.bytes / t.l2.sharing / 2) << t.source;
    }
  }
}

// Panels grouping k in quads (the VNNI byte panels, k_unit 4): every k-block but the last is a
// multiple of 4 deep, an override included, and the slices stay near-equal.
TEST(BlockingModel, KBlocksAreWholeGroupsOfTheKernelsKUnit) {
  const TileShape quads{12, 32, 4};
  const PackedBytes bytes{1, 1};
  for (const CacheTopology& t : {zen3(), zen5_vm()}) {
    for (int64_t k = 1; k <= 5000; k += 13) {
      for (int64_t kc_override : {int64_t{0}, int64_t{7}, int64_t{9}, int64_t{100}}) {
        BlockOverrides o;
        o.kc = kc_override;
        const int64_t kc = choose(t, quads, 2048, 2048, k, o, bytes).kc;
        ASSERT_GE(kc, 1);
        if (kc < k) {
          EXPECT_EQ(kc % 4, 0) << t.source << " k=" << k << " override " << kc_override;
        } else {
          EXPECT_EQ(kc, k);
        }
        if (kc_override > 0 && kc < k) EXPECT_EQ(kc, (kc_override + 3) / 4 * 4);
      }
    }
  }
}

TEST(BlockingModel, ThisMachineClass) {
  // Zen 3 (sysfs_zen3_vm's caches), AVX2 6 x 16 f32: what `invar info` shows on such a guest.
  auto expect = [](BlockSizes b, int64_t mc, int64_t kc, int64_t nc, const char* shape) {
    EXPECT_EQ(b.mc, mc) << shape;
    EXPECT_EQ(b.kc, kc) << shape;
    EXPECT_EQ(b.nc, nc) << shape;
  };
  expect(choose(zen3(), kAvx2, 1024, 1024, 1024), 342, 256, 1024, "1024^3");
  expect(choose(zen3(), kAvx2, 2048, 2048, 2048), 294, 293, 2048, "2048^3");
  expect(choose(zen3(), kAvx2, 4096, 4096, 4096), 294, 316, 4096, "4096^3");
  expect(choose(zen3(), kAvx2, 1, 4096, 4096), 6, 316, 4096, "1 x 4096 x 4096");
  // N = 40000: a quarter of L3 holds 6624 columns at KC 316; seven near-equal blocks.
  expect(choose(zen3(), kAvx2, 40000, 40000, 4096), 306, 316, 5728, "N = 40000");
}

TEST(BlockingModel, BlocksStayInsideTheirCaches) {
  for (const CacheTopology& t :
       {zen3(), zen5_vm(), skylake_x(), apple_m(), tiny(), arch::fallback_topology()}) {
    for (TileShape tile : {kAvx2, kAvx512, kNeon, kGeneric}) {
      for (int64_t s : {1, 7, 100, 513, 2048, 5000}) {
        for (int64_t k : {1, 63, 300, 4096}) {
          const int64_t m = s, n = 3 * s + 1;
          const BlockSizes b = choose(t, tile, m, n, k);
          SCOPED_TRACE(t.source + " " + std::to_string(tile.mr) + "x" + std::to_string(tile.nr) +
                       " m=" + std::to_string(m) + " n=" + std::to_string(n) +
                       " k=" + std::to_string(k));
          EXPECT_GE(b.kc, 1);
          EXPECT_LE(b.kc, k);
          EXPECT_EQ(b.mc % tile.mr, 0);
          EXPECT_EQ(b.nc % tile.nr, 0);
          EXPECT_LE(b.mc, (m + tile.mr - 1) / tile.mr * tile.mr);
          EXPECT_LE(b.nc, (n + tile.nr - 1) / tile.nr * tile.nr);
          if (blocking::fits_in_l1(t, tile, kF32, m, n, k)) continue;
          EXPECT_LE(b.kc, std::max(blocking::l1_kc(t.l1d, tile, kF32), int64_t{1}));
          if (b.mc > tile.mr) {
            EXPECT_LE(b.mc * b.kc * 4, t.l2.bytes / t.l2.sharing);
          }
          if (b.nc > tile.nr && t.l3.present()) {
            EXPECT_LE(b.nc * b.kc * 4, t.l3.bytes);
          }
        }
      }
    }
  }
}

TEST(BlockingModel, SmallProblemsSkipTheModel) {
  EXPECT_TRUE(blocking::fits_in_l1(zen3(), kAvx2, kF32, 16, 16, 16));
  EXPECT_FALSE(blocking::fits_in_l1(zen3(), kAvx2, kF32, 1024, 1024, 1024));
  EXPECT_FALSE(blocking::fits_in_l1(zen3(), kAvx2, kF32, int64_t{1} << 40, 1 << 20, 1 << 20));
  const BlockSizes b = choose(zen3(), kAvx2, 5, 5, 5);
  EXPECT_EQ(b.mc, 6);
  EXPECT_EQ(b.kc, 5);
  EXPECT_EQ(b.nc, 16);
  // 8 x 8 x 200 is 22 KiB packed: too much for half of a 32 KiB L1, so the model cuts K.
  EXPECT_EQ(choose(zen3(), kAvx2, 8, 8, 200).kc, 200);
  EXPECT_EQ(choose(zen3(), kAvx2, 8, 8, 700).kc, 234);
}

// C tiles are prefetched only when A, B and C together outgrow the last-level cache (L2 when
// there is no L3).
TEST(BlockingModel, PrefetchOfCOnlyPastTheLastLevelCache) {
  EXPECT_FALSE(choose(zen3(), kAvx2, 1024, 1024, 1024).prefetch_c);  // 12 MiB in 32 MiB
  EXPECT_TRUE(choose(zen3(), kAvx2, 2048, 2048, 2048).prefetch_c);   // 48 MiB
  EXPECT_FALSE(choose(zen3(), kAvx2, 16, 16, 16).prefetch_c);
  EXPECT_FALSE(choose(apple_m(), kNeon, 1024, 1024, 1024).prefetch_c);  // 12 MiB in its 16 MiB L2
  EXPECT_TRUE(choose(apple_m(), kNeon, 2048, 2048, 2048).prefetch_c);
}

// The deepest k-block of op(B), packed, in half of one worker's share of L2 (256 KiB on Zen 3):
// the columns count in whole panels, and the depth is at most K.
TEST(BlockingModel, PackedBDepthAgainstHalfOfL2) {
  EXPECT_EQ(choose(zen3(), kAvx2, 4096, 64, 1024).b_l2_depth, 1024);  // 256 KiB: all of K
  EXPECT_EQ(choose(zen3(), kAvx2, 4096, 64, 1025).b_l2_depth, 1024);  // 256 KiB + 256 B
  EXPECT_EQ(choose(zen3(), kAvx2, 8, 65, 65536).b_l2_depth, 819);     // 80 columns packed
  EXPECT_EQ(choose(zen3(), kAvx2, 8, 48, 1025).b_l2_depth, 1025);     // 192.2 KiB
  EXPECT_EQ(choose(zen3(), kAvx2, 8, 48, 100).b_l2_depth, 100);
  EXPECT_EQ(choose(zen3(), kAvx2, 512, 512, 512).b_l2_depth, 128);
  EXPECT_EQ(choose(zen3(), kAvx2, 4, 1 << 20, 64).b_l2_depth, 0);  // not one row: 4 MiB
}

// The small path's budget: all of op(B) in half of the L2 share, a strip of MR rows of A over
// all of k in half of L1; m does not enter.
TEST(BlockingModel, SmallKernelBudget) {
  const CacheTopology zen4 =
      make("zen4", {32 * kKiB, 8, 64, 1}, {1 * kMiB, 8, 64, 1}, {32 * kMiB, 16, 64, 1});
  EXPECT_TRUE(blocking::small_kernel_fits(zen4, kAvx512, kF32, 256, 256));    // 256 + 12 KiB
  EXPECT_TRUE(blocking::small_kernel_fits(zen4, kAvx512, kF32, 1024, 128));   // 512 KiB of B
  EXPECT_FALSE(blocking::small_kernel_fits(zen4, kAvx512, kF32, 1025, 128));  // just over
  EXPECT_TRUE(blocking::small_kernel_fits(zen4, kAvx512, kF32, 32, 341));     // 15.98 KiB strip
  EXPECT_FALSE(blocking::small_kernel_fits(zen4, kAvx512, kF32, 32, 342));    // 16.03 KiB
  EXPECT_FALSE(blocking::small_kernel_fits(zen4, kAvx512, kF32, 512, 512));
  EXPECT_TRUE(blocking::small_kernel_fits(zen4, kAvx2, kF32, 64, 682));        // 6-row strip
  EXPECT_FALSE(blocking::small_kernel_fits(zen4, kAvx512, {8, 8}, 256, 256));  // f64: 24 KiB strip
  // A shared L2 counts this worker's share.
  EXPECT_FALSE(blocking::small_kernel_fits(apple_m(), kNeon, kF32, 4096, 512));  // 8 of 2 MiB
  EXPECT_TRUE(blocking::small_kernel_fits(apple_m(), kNeon, kF32, 1024, 512));   // 2 of 2 MiB
}

TEST(BlockingModel, OverridesWin) {
  BlockOverrides o;
  o.mc = 100;
  o.kc = 100;
  o.nc = 100;
  BlockSizes b = choose(zen3(), kAvx2, 4096, 4096, 4096, o);
  EXPECT_EQ(b.mc, 102);
  EXPECT_EQ(b.kc, 100);
  EXPECT_EQ(b.nc, 112);
  // Overrides also win over the small-problem shortcut, and are still clamped to the problem.
  b = choose(zen3(), kAvx2, 5, 5, 5, o);
  EXPECT_EQ(b.mc, 6);
  EXPECT_EQ(b.kc, 5);
  EXPECT_EQ(b.nc, 16);
  // A KC override alone: MC and NC follow the depth actually used.
  BlockOverrides shallow;
  shallow.kc = 128;
  b = choose(zen3(), kAvx2, 4096, 4096, 4096, shallow);
  EXPECT_EQ(b.kc, 128);
  EXPECT_GT(b.mc, choose(zen3(), kAvx2, 4096, 4096, 4096).mc);
  EXPECT_LE(b.mc * 128 * 4, 384 * kKiB);
}

}  // namespace
}  // namespace invar::test

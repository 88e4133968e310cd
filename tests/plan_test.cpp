// The planner over made-up kernels and cache topologies: which path, split, blocks and loop
// order a shape gets, and the invariants every plan keeps. Pure functions: the same on every
// machine, and no kernel runs.
#include "driver/plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "arch/cache_topology.h"
#include "blocking/block_sizes.h"
#include "kernels/kernel_set.h"

namespace invar::test {
namespace {

using arch::CacheTopology;
using arch::kKiB;
using arch::kMiB;
using driver::LoopOrder;
using driver::Path;
using driver::Plan;
using driver::PlanRequest;
using kernels::AccInit;
using kernels::GemmKernel;

// Counts any kernel call: the planner must make none.
int g_kernel_calls = 0;
void stub_pack_a(int64_t, int64_t, const void*, int64_t, int64_t, const void*, void*) {
  ++g_kernel_calls;
}
void stub_pack_b(int64_t, int64_t, const void*, int64_t, int64_t, void*) { ++g_kernel_calls; }
void stub_tile(int64_t, const void*, const void*, void*, int64_t, AccInit, const void*,
               const void*) {
  ++g_kernel_calls;
}
void stub_small(int64_t, int64_t, int64_t, const void*, int64_t, const void*, int64_t, int64_t,
                void*, int64_t, AccInit, const void*) {
  ++g_kernel_calls;
}
void stub_direct(int64_t, int64_t, int64_t, const void*, const void*, int64_t, int64_t, const void*,
                 int64_t, void*, int64_t, AccInit, const void*) {
  ++g_kernel_calls;
}

// An f32 kernel with every form: tile mr x nr, direct kernels 4 rows by 16/8 columns.
GemmKernel f32_kernel(const char* name, int mr, int nr, bool b_streams, bool b_block_in_l2) {
  GemmKernel k;
  k.name = name;
  k.mr = mr;
  k.nr = nr;
  k.a_in_bytes = k.b_in_bytes = k.a_packed_bytes = k.b_packed_bytes = k.c_bytes = 4;
  k.b_streams = b_streams;
  k.b_block_in_l2 = b_block_in_l2;
  k.pack_a = stub_pack_a;
  k.pack_b = stub_pack_b;
  k.ukernel = stub_tile;
  k.ukernel_a_in_place = stub_small;
  k.direct_mr = 4;
  k.direct_nr = 16;
  k.direct = stub_direct;
  k.direct_panels = stub_direct;
  k.a_in_place_panels = 2;
  k.a_in_place_team_panels = 2;
  k.direct_t_nr = 8;
  k.direct_t = stub_direct;
  return k;
}
// The AMD form of the AVX-512 set (B blocks in L3) and the Intel form (B blocks in L2).
GemmKernel avx512_amd() { return f32_kernel("avx512_amd", 12, 32, true, false); }
GemmKernel avx512_intel() { return f32_kernel("avx512_intel", 12, 32, false, true); }
GemmKernel avx2() { return f32_kernel("avx2", 6, 16, false, false); }
// A kernel with no direct kernels or tiles over A in place (the narrow and integer kernels): it
// always packs.
GemmKernel packs_only() {
  GemmKernel k = f32_kernel("packs_only", 8, 8, false, false);
  k.ukernel_a_in_place = nullptr;
  k.direct = nullptr;
  k.direct_panels = nullptr;
  k.direct_t = nullptr;
  k.a_in_place_panels = k.a_in_place_team_panels = 0;
  k.direct_mr = k.direct_nr = k.direct_t_nr = 0;
  return k;
}

CacheTopology make(const char* name, arch::CacheLevel l1, arch::CacheLevel l2,
                   arch::CacheLevel l3) {
  CacheTopology t;
  t.l1d = l1;
  t.l2 = l2;
  t.l3 = l3;
  t.source = name;
  return t;
}
CacheTopology zen4() {
  return make("zen4", {32 * kKiB, 8, 64, 1}, {1 * kMiB, 8, 64, 1}, {32 * kMiB, 16, 64, 1});
}
CacheTopology xeon_amx() {
  return make("xeon_amx", {48 * kKiB, 12, 64, 1}, {2 * kMiB, 16, 64, 1}, {300 * kMiB, 20, 64, 1});
}
CacheTopology zen3() {
  return make("zen3", {32 * kKiB, 8, 64, 1}, {512 * kKiB, 8, 64, 1}, {32 * kMiB, 16, 64, 1});
}
CacheTopology tiny() { return make("tiny", {8 * kKiB, 2, 64, 1}, {128 * kKiB, 4, 64, 1}, {}); }

PlanRequest request(int64_t m, int64_t n, int64_t k, int threads) {
  PlanRequest r;
  r.m = m;
  r.n = n;
  r.k = k;
  r.unit_alpha = true;
  r.threads = threads;
  r.max_team = std::max(threads, 1);
  return r;
}

Plan plan(const GemmKernel& kern, const PlanRequest& r, const CacheTopology& t,
          blocking::BlockOverrides o = {}) {
  return driver::make_plan(kern, r, t, o);
}

// Every row in exactly one member's run, runs contiguous, boundaries multiples of `unit`.
void expect_rows_covered(int64_t m, int64_t unit, int members) {
  int64_t next = 0;
  for (int i = 0; i < members; ++i) {
    int64_t lo = 0, hi = 0;
    driver::member_rows(m, unit, i, members, &lo, &hi);
    ASSERT_EQ(lo, next) << "m=" << m << " unit=" << unit << " member " << i;
    ASSERT_LE(lo, hi);
    if (hi != m) ASSERT_EQ(hi % unit, 0);
    next = hi;
  }
  ASSERT_EQ(next, m);
}

// Every one of `count` items in exactly one member's share.
void expect_shared_out(int64_t count, int members) {
  int64_t next = 0;
  for (int i = 0; i < members; ++i) {
    int64_t lo = 0, hi = 0;
    driver::share(count, i, members, &lo, &hi);
    ASSERT_EQ(lo, next);
    ASSERT_LE(lo, hi);
    next = hi;
  }
  ASSERT_EQ(next, count);
}

// The invariants of any plan for request r.
void expect_invariants(const GemmKernel& kern, const PlanRequest& r, const Plan& p) {
  SCOPED_TRACE(std::string(kern.name) + " " + std::to_string(r.m) + "x" + std::to_string(r.n) +
               "x" + std::to_string(r.k) + " threads=" + std::to_string(r.threads) +
               " path=" + driver::path_name(p.path));
  ASSERT_GE(p.threads, 1);
  ASSERT_LE(p.threads, std::max(1, r.threads));
  ASSERT_LE(p.threads, r.max_team);
  ASSERT_LE(p.threads, driver::useful_threads(r.m, r.n, r.k, r.threads));
  switch (p.path) {
    case Path::kDirect:
    case Path::kDirectTransposed:
      ASSERT_TRUE(r.allow_direct);
      ASSERT_LE(p.direct_rows, std::max(kern.direct_mr, kernels::kDirectMaxRows));
      ASSERT_GE(p.direct_kc, 1);
      ASSERT_LE(p.direct_kc, r.k);
      ASSERT_EQ(p.workspace_bytes, 0u);
      expect_shared_out((r.n + p.direct_cols - 1) / p.direct_cols, p.threads);
      break;
    case Path::kSmall:
      ASSERT_TRUE(r.allow_direct && r.unit_alpha && p.small_fits);
      ASSERT_GT(r.m, kernels::kDirectMaxRows);
      ASSERT_EQ(p.workspace_bytes, 0u);
      break;
    case Path::kDirectPrepacked:
      ASSERT_TRUE(r.b_prepacked);
      ASSERT_LE(r.m, kernels::kDirectMaxRows);
      ASSERT_EQ(p.workspace_bytes, 0u);
      break;
    case Path::kAInPlace:
      ASSERT_TRUE(r.allow_direct && !r.a_prepacked);
      ASSERT_GE(p.in_place_kc, 1);
      ASSERT_LE(p.in_place_kc, r.k);
      if (p.in_place_kc < r.k) {
        ASSERT_EQ(p.in_place_kc % kern.k_unit, 0);
        ASSERT_GE(p.in_place_kc, driver::kMinInPlaceDepth);
        ASSERT_EQ(p.in_place_buffers, 2);
      } else {
        ASSERT_EQ(p.in_place_buffers, 1);
      }
      ASSERT_LE(p.in_place_rows, std::max<int64_t>(kern.mr, kern.direct_mr));
      ASSERT_EQ(p.workspace_bytes,
                r.b_prepacked ? 0u : p.in_place_buffers * p.in_place_block_bytes);
      ASSERT_GE(p.in_place_block_bytes, driver::packed_b_bytes(kern, p.in_place_kc, r.n));
      break;
    case Path::kLoopNest: {
      ASSERT_EQ(p.mc % kern.mr, 0);
      ASSERT_EQ(p.nc % kern.nr, 0);
      ASSERT_GE(p.mc, kern.mr);
      ASSERT_GE(p.nc, kern.nr);
      ASSERT_LE(p.mc, (r.m + kern.mr - 1) / kern.mr * kern.mr);
      ASSERT_LE(p.nc, (r.n + kern.nr - 1) / kern.nr * kern.nr);
      ASSERT_GE(p.kc, 1);
      ASSERT_LE(p.kc, r.k);
      if (p.kc < r.k) ASSERT_EQ(p.kc % kern.k_unit, 0);
      const driver::Partition& part = p.team.partition;
      ASSERT_TRUE((part.tm == p.threads && part.tn == 1) || (part.tm == 1 && part.tn == p.threads))
          << "tm=" << part.tm << " tn=" << part.tn;
      ASSERT_TRUE(part.row_unit == 1 || part.row_unit == kern.mr);
      if (part.tm > 1) expect_rows_covered(r.m, part.row_unit, part.tm);
      const int64_t panels = (std::min(r.n, p.nc) + kern.nr - 1) / kern.nr;
      if (part.tn > 1) expect_shared_out(panels, part.tn);
      ASSERT_FALSE(p.team.shared_a && p.team.shared_b);
      ASSERT_FALSE(p.team.shared_a && p.team.whole_a);
      if (p.team.shared_b) ASSERT_GT(part.tm, 1);
      if (p.team.shared_a) ASSERT_GT(part.tn, 1);
      ASSERT_EQ(p.order == LoopOrder::kKBlocksOuter, p.team.whole_a);
      // Each slot holds a B block, an A block and a scratch tile.
      ASSERT_GE(p.b_bytes, r.b_prepacked ? 0 : std::size_t(p.nc * p.kc * kern.b_packed_bytes));
      ASSERT_GE(p.a_bytes, r.a_prepacked ? 0 : std::size_t(p.mc * p.kc * kern.a_packed_bytes));
      ASSERT_GE(p.tile_bytes, std::size_t(kern.mr * kern.nr * kern.c_bytes));
      ASSERT_EQ(p.slot_bytes, p.a_bytes + p.b_bytes + p.tile_bytes);
      ASSERT_EQ(p.workspace_bytes, p.slot_bytes * p.threads);
      // A smaller team than planned gets a plan of its own that keeps the same invariants.
      for (int members = 1; members < p.threads; ++members) {
        const driver::TeamPlan t = driver::team_plan(kern, r, p, members);
        ASSERT_TRUE((t.partition.tm == members && t.partition.tn == 1) ||
                    (t.partition.tm == 1 && t.partition.tn == members));
        if (t.partition.tm > 1) expect_rows_covered(r.m, t.partition.row_unit, members);
      }
      break;
    }
  }
}

TEST(Plan, TheTeamIsWhatTheWorkIsWorth) {
  EXPECT_EQ(driver::useful_threads(32, 32, 32, 8), 1);  // 65 kflop
  EXPECT_EQ(driver::useful_threads(64, 64, 64, 8), 2);  // 524 kflop: two members' worth
  EXPECT_EQ(driver::useful_threads(1024, 1024, 1024, 8), 8);
  EXPECT_EQ(driver::useful_threads(1024, 1024, 1024, 1), 1);
  // The pool's limit caps the team, whatever is offered.
  PlanRequest r = request(2048, 2048, 2048, 8);
  r.max_team = 3;
  EXPECT_EQ(plan(avx2(), r, zen4()).threads, 3);
}

TEST(Plan, BatchesOfSmallProductsRunSideBySide) {
  EXPECT_EQ(driver::batch_members(32, 32, 32, 2, 100), 2);     // one thread's worth each
  EXPECT_EQ(driver::batch_members(32, 32, 32, 8, 3), 3);       // no more members than products
  EXPECT_EQ(driver::batch_members(32, 32, 32, 2, 1), 1);       // a batch of one
  EXPECT_EQ(driver::batch_members(32, 32, 32, 1, 100), 1);     // one thread
  EXPECT_EQ(driver::batch_members(512, 512, 512, 2, 100), 1);  // each worth the whole team
}

TEST(Plan, FewRowsReadBInPlace) {
  const GemmKernel kern = avx2();
  // A decode step over a row-major B: k-blocks of kDirectKc rows, swept along j.
  Plan p = plan(kern, request(1, 4096, 4096, 1), zen4());
  EXPECT_EQ(p.path, Path::kDirect);
  EXPECT_EQ(p.direct_kc, driver::kDirectKc);
  EXPECT_EQ(p.direct_rows, kern.direct_mr);
  EXPECT_EQ(p.workspace_bytes, 0u);
  // x * W^T: all of K in one pass, kDirectMaxRows rows at a time.
  PlanRequest r = request(4, 4096, 4096, 2);
  r.b_row_major = false;
  r.b_transposed = true;
  p = plan(kern, r, zen4());
  EXPECT_EQ(p.path, Path::kDirectTransposed);
  EXPECT_EQ(p.direct_kc, 4096);
  EXPECT_EQ(p.direct_rows, kernels::kDirectMaxRows);
  EXPECT_EQ(p.direct_cols, kern.direct_t_nr);
  EXPECT_EQ(p.threads, 2);
  EXPECT_FALSE(p.direct_t_cached);  // no cached form offered
  // Without a direct form it packs.
  EXPECT_EQ(plan(packs_only(), request(1, 4096, 4096, 1), zen4()).path, Path::kLoopNest);
}

// x * W^T of a few rows runs the kernel's direct_t_cached form where W is at most
// cached_w_bytes (the larger of L2 and a quarter of L3), in column groups of twice direct_t_nr;
// over a larger W the plain direct_t, or on one thread its direct_t_alone form where offered.
TEST(Plan, FewRowsOverAWInCacheTakeTheCachedForm) {
  GemmKernel kern = avx2();
  kern.direct_t_cached = stub_direct;
  EXPECT_EQ(driver::cached_w_bytes(zen4()), 8 * kMiB);
  EXPECT_EQ(driver::cached_w_bytes(xeon_amx()), 75 * kMiB);
  EXPECT_EQ(driver::cached_w_bytes(tiny()), 128 * kKiB);
  const auto transposed = [](int64_t m, int64_t n, int64_t k) {
    PlanRequest r = request(m, n, k, 2);
    r.b_row_major = false;
    r.b_transposed = true;
    return r;
  };
  struct Case {
    CacheTopology topology;
    int64_t m, n, k;
    bool cached;
  };
  for (const Case& c : {Case{xeon_amx(), 1, 4096, 4096, true},   // 64 MiB
                        Case{xeon_amx(), 1, 8192, 4096, false},  // 128 MiB
                        Case{xeon_amx(), 3, 4096, 4096, true},   // three rows
                        Case{zen4(), 1, 4096, 4096, false},      // 64 MiB
                        Case{zen4(), 1, 1024, 2048, true},       // 8 MiB
                        Case{zen4(), 1, 1024, 2049, false},      // one step more
                        Case{tiny(), 1, 512, 512, false}}) {     // 1 MiB, an L2 of 128 KiB
    const Plan p = plan(kern, transposed(c.m, c.n, c.k), c.topology);
    ASSERT_EQ(p.path, Path::kDirectTransposed);
    EXPECT_EQ(p.direct_t_cached, c.cached)
        << c.topology.source << " " << c.m << " x " << c.n << " x " << c.k;
    EXPECT_EQ(p.direct_cols, kern.direct_t_nr * (c.cached ? 2 : 1));
  }
  // Over a W from memory one thread alone takes direct_t_alone where offered, a team direct_t.
  kern.direct_t_alone = stub_direct;
  for (int threads : {1, 2}) {
    PlanRequest r = transposed(1, 4096, 4096);  // 64 MiB
    r.threads = threads;
    const Plan q = plan(kern, r, zen4());
    ASSERT_EQ(q.path, Path::kDirectTransposed);
    EXPECT_EQ(q.threads, threads);
    EXPECT_FALSE(q.direct_t_cached);
    EXPECT_EQ(q.direct_t_alone, threads == 1);
    EXPECT_EQ(q.direct_cols, kern.direct_t_nr * (threads == 1 ? 2 : 1));
  }
  PlanRequest in_cache = transposed(1, 1024, 1024);  // 4 MiB: the cached form, not the alone one
  in_cache.threads = 1;
  EXPECT_TRUE(plan(kern, in_cache, zen4()).direct_t_cached);
  EXPECT_FALSE(plan(kern, in_cache, zen4()).direct_t_alone);
  kern.direct_t_alone = nullptr;
  // A tiny product's W is in cache whatever the topology.
  Plan p;
  ASSERT_TRUE(driver::plan_tiny(kern, transposed(1, 64, 64), zen4(), &p));
  EXPECT_TRUE(p.direct_t_cached);
  ASSERT_TRUE(driver::plan_tiny(kern, transposed(4, 64, 64), zen4(), &p));
  EXPECT_TRUE(p.direct_t_cached);
  kern.direct_t_cached = nullptr;
  ASSERT_TRUE(driver::plan_tiny(kern, transposed(1, 64, 64), zen4(), &p));
  EXPECT_FALSE(p.direct_t_cached);
}

// driver::direct_at_once: a tiny product of at most kDirectMaxRows rows over a row-major B is
// planned as the direct kernel over all of K in one call (run_tiny calls it without planning);
// more rows, a transposed B or a larger product are not.
TEST(Plan, FewRowsOfATinyProductAreOneDirectCall) {
  const GemmKernel kern = avx2();
  for (int64_t m = 1; m <= 6; ++m) {
    for (int64_t nk : {1, 4, 63, 200, 250}) {
      for (bool unit_alpha : {true, false}) {
        PlanRequest r = request(m, nk, nk, 1);
        r.unit_alpha = unit_alpha;
        r.b_row_major = true;
        r.a_row_major = true;
        Plan p;
        const bool tiny = driver::plan_tiny(kern, r, zen4(), &p);
        const bool at_once = driver::direct_at_once(kern, m, nk, nk, /*b_cs=*/1);
        EXPECT_EQ(at_once, m <= kernels::kDirectMaxRows && m * nk * nk < 250000)
            << m << " x " << nk;
        if (!at_once) continue;
        ASSERT_TRUE(tiny);
        EXPECT_EQ(p.path, Path::kDirect);
        EXPECT_GE(p.direct_rows, m);
        EXPECT_GE(p.direct_kc, nk);
      }
    }
  }
  EXPECT_FALSE(driver::direct_at_once(kern, 4, 64, 64, /*b_cs=*/64));  // a transposed B
  EXPECT_FALSE(driver::direct_at_once(packs_only(), 4, 64, 64, 1));
}

// driver::tiny_call: the kernel calls plan_tiny's plan makes of a tiny product (the small path's
// tiles, or a direct kernel over all of K per row group), or kPlanned where the plan makes others,
// for every row count to 17, layouts (B row-major, transposed, neither, both), alpha, kernels (with
// the direct kernel taking 4 rows, 6, or none) and topologies (the small path's budget met or not).
TEST(Plan, TinyCallIsThePlansKernelCalls) {
  GemmKernel six_rows = avx2();
  six_rows.direct_mr = 6;
  GemmKernel no_small = avx2();
  no_small.ukernel_a_in_place = nullptr;
  int calls[4] = {0, 0, 0, 0};
  for (const GemmKernel& kern : {avx2(), six_rows, no_small, packs_only()}) {
    for (const CacheTopology& topology : {zen4(), tiny()}) {
      const blocking::SmallBudget budget = blocking::small_budget(topology);
      for (int64_t m = 1; m <= 17; ++m) {
        for (int64_t n : {1, 3, 8, 40, 300}) {
          for (int64_t k : {1, 5, 16, 200, 1000}) {
            if (!driver::tiny_shape(m, n, k)) continue;
            for (int layout = 0; layout < 16; ++layout) {
              PlanRequest r = request(m, n, k, 1);
              r.a_row_major = (layout & 1) != 0;
              r.unit_alpha = (layout & 2) != 0;
              // B row-major, transposed, neither (strided both ways) or both (one row or column).
              r.b_row_major = (layout >> 2) == 0 || (layout >> 2) == 3;
              r.b_transposed = (layout >> 2) == 1 || (layout >> 2) == 3;
              Plan p;
              const bool planned = driver::plan_tiny(kern, r, topology, &p);
              driver::TinyCall want = driver::TinyCall::kPlanned;
              if (planned && p.path == Path::kSmall) want = driver::TinyCall::kSmall;
              // The direct paths: one member, all of K in one block, the rows tiny_call's.
              if (planned && p.path == Path::kDirect) {
                want = driver::TinyCall::kDirect;
                EXPECT_EQ(p.direct_rows, kern.direct_mr);
              }
              if (planned && p.path == Path::kDirectTransposed) {
                want = driver::TinyCall::kDirectTransposed;
                EXPECT_EQ(p.direct_rows, kernels::kDirectMaxRows);
              }
              if (planned && p.path != Path::kSmall) {
                EXPECT_EQ(p.threads, 1);
                EXPECT_GE(p.direct_kc, k);
              }
              const driver::TinyCall got =
                  driver::tiny_call(kern, budget, m, n, k, r.a_row_major, r.b_row_major,
                                    r.b_transposed, r.unit_alpha);
              EXPECT_EQ(static_cast<int>(got), static_cast<int>(want))
                  << kern.name << " " << topology.source << " " << m << " x " << n << " x " << k
                  << " layout " << layout;
              ++calls[static_cast<int>(got)];
            }
          }
        }
      }
    }
  }
  // Each answer was given somewhere.
  EXPECT_GT(calls[static_cast<int>(driver::TinyCall::kSmall)], 0);
  EXPECT_GT(calls[static_cast<int>(driver::TinyCall::kDirect)], 0);
  EXPECT_GT(calls[static_cast<int>(driver::TinyCall::kDirectTransposed)], 0);
  EXPECT_GT(calls[static_cast<int>(driver::TinyCall::kPlanned)], 0);
}

TEST(Plan, SmallProductsRunTheSmallFormWithUnitAlphaOnly) {
  const GemmKernel kern = avx2();
  Plan p = plan(kern, request(16, 16, 16, 1), zen4());
  EXPECT_EQ(p.path, Path::kSmall);
  EXPECT_TRUE(p.small_fits);
  // alpha != 1: the tiles over A in place take only 1, so the direct path, all of K in one pass.
  PlanRequest r = request(16, 16, 16, 1);
  r.unit_alpha = false;
  p = plan(kern, r, zen4());
  EXPECT_EQ(p.path, Path::kDirect);
  EXPECT_EQ(p.direct_kc, 16);
  // A transposed A is not read in place by the tiles.
  r = request(16, 16, 16, 1);
  r.a_row_major = false;
  EXPECT_EQ(plan(kern, r, zen4()).path, Path::kDirect);
  // 256^3: packing would add about 7 % (>= kSmallPackingShare), and the operands fit Zen 4's
  // caches; 512^3 (3.5 %) packs.
  EXPECT_EQ(plan(kern, request(256, 256, 256, 1), zen4()).path, Path::kSmall);
  EXPECT_EQ(plan(kern, request(512, 512, 512, 1), zen4()).path, Path::kLoopNest);
  // The same 256^3 on a core whose L2 cannot hold B packs as well.
  p = plan(kern, request(256, 256, 256, 1), tiny());
  EXPECT_FALSE(p.small_fits);
  EXPECT_EQ(p.path, Path::kLoopNest);
  // A 512 KiB L2 lends B a quarter of itself (blocking::small_budget): 160^3 (B 100 KiB) reads
  // its operands in place, 192^3 (144 KiB) and 256^3 pack; a 1 MiB L2 half (192^3 in place).
  EXPECT_EQ(plan(kern, request(160, 160, 160, 1), zen3()).path, Path::kSmall);
  EXPECT_EQ(plan(kern, request(192, 192, 192, 1), zen3()).path, Path::kLoopNest);
  EXPECT_EQ(plan(kern, request(256, 256, 256, 1), zen3()).path, Path::kLoopNest);
  EXPECT_EQ(plan(kern, request(192, 192, 192, 1), zen4()).path, Path::kSmall);
}

TEST(Plan, NothingDirectWhenNotAllowedOrAPrepacked) {
  const GemmKernel kern = avx2();
  PlanRequest r = request(8, 8, 8, 1);
  r.allow_direct = false;
  EXPECT_EQ(plan(kern, r, zen4()).path, Path::kLoopNest);
  r = request(1, 4096, 4096, 1);
  r.a_prepacked = true;
  const Plan p = plan(kern, r, zen4());
  EXPECT_EQ(p.path, Path::kLoopNest);
  EXPECT_EQ(p.a_bytes, 0u);  // nothing of A packed in the call
  EXPECT_EQ(p.team.partition.row_unit, kern.mr);
}

TEST(Plan, DecodeOverPrepackedWeights) {
  PlanRequest r = request(2, 4096, 4096, 2);
  r.b_prepacked = true;
  // With direct_panels: the A-in-place walk, all of K in one block, nothing to pack.
  Plan p = plan(avx2(), r, zen4());
  EXPECT_EQ(p.path, Path::kAInPlace);
  EXPECT_EQ(p.in_place_kc, 4096);
  EXPECT_FALSE(p.in_place_tiles);
  EXPECT_FALSE(p.in_place_by_rows);
  EXPECT_EQ(p.workspace_bytes, 0u);
  // Without it, panel by panel.
  GemmKernel kern = avx2();
  kern.direct_panels = nullptr;
  p = plan(kern, r, zen4());
  EXPECT_EQ(p.path, Path::kDirectPrepacked);
  EXPECT_EQ(p.direct_cols, kern.nr);
  // A few more rows over the prepacked B on two threads: the loop nest splits the columns, so
  // that B is read once.
  r.m = 24;
  p = plan(avx2(), r, zen4());
  EXPECT_EQ(p.path, Path::kLoopNest);
  EXPECT_EQ(p.team.partition.tn, 2);
  EXPECT_EQ(p.b_bytes, 0u);
  EXPECT_EQ(p.b_outer_rows, driver::kBOuterPanels * 6);
}

// A prepacked B's k-block is a piece of every panel, each all of K deep: short runs a panel's
// length apart, not one packed block, and read back from L3 once per A micro-panel they held the
// kernel back. So on a kernel that does not take B streaming a prepacked B's blocks are sized for
// L2, whatever the kernel's own B block, with the k-blocks outer so that A is packed once per
// k-block, not once per column block.
TEST(Plan, PrepackedBBlocksSizedForL2) {
  const GemmKernel kern = avx2();  // B blocks in L3 when packed in the call
  PlanRequest r = request(1024, 4096, 4096, 1);
  r.b_transposed = true;
  const Plan packed_here = plan(kern, r, zen3());
  ASSERT_EQ(packed_here.path, Path::kLoopNest);
  EXPECT_EQ(packed_here.nc, 4096);  // a quarter of L3 holds all of its columns
  r.b_prepacked = true;
  for (int threads : {1, 2}) {
    r.threads = r.max_team = threads;
    const Plan p = plan(kern, r, zen3());
    ASSERT_EQ(p.path, Path::kLoopNest);
    EXPECT_EQ(p.kc, packed_here.kc);
    EXPECT_EQ(p.mc, packed_here.mc);
    EXPECT_LE(p.nc * p.kc * kern.b_packed_bytes, 256 * kKiB);  // half of the 512 KiB L2
    EXPECT_GE(p.nc * p.kc * kern.b_packed_bytes, 128 * kKiB);
    EXPECT_EQ(p.order, LoopOrder::kKBlocksOuter) << threads << " threads";
    EXPECT_EQ(p.b_bytes, 0u);
  }
  // With A prepacked as well, read from its panels once per column block: the kernel's blocks.
  r.a_prepacked = true;
  r.threads = r.max_team = 1;
  EXPECT_EQ(plan(kern, r, zen3()).nc, packed_here.nc);
  r.a_prepacked = false;
  // A kernel that keeps its pace with B streaming (AVX-512 on AMD) keeps its blocks.
  const GemmKernel streams = avx512_amd();
  const Plan prepacked = plan(streams, r, zen4());
  r.b_prepacked = false;
  EXPECT_EQ(prepacked.nc, plan(streams, r, zen4()).nc);
}

TEST(Plan, NarrowProductsPackBAlone) {
  const GemmKernel kern = avx512_amd();
  // Up to kInPlaceTilePanels panels, the tiles over A in place; all of K fits half of L2.
  Plan p = plan(kern, request(1024, 64, 1024, 1), zen4());
  EXPECT_EQ(p.path, Path::kAInPlace);
  EXPECT_TRUE(p.in_place_tiles);
  EXPECT_EQ(p.in_place_rows, driver::kInPlaceTileRows);
  EXPECT_EQ(p.in_place_kc, 1024);
  EXPECT_EQ(p.in_place_buffers, 1);
  EXPECT_EQ(p.workspace_bytes, driver::packed_b_bytes(kern, 1024, 64));
  // Deep K: blocks as deep as half of L2 holds (512 KiB of 64 f32 columns: 2048), balanced.
  p = plan(kern, request(64, 64, 65536, 2), zen4());
  EXPECT_EQ(p.path, Path::kAInPlace);
  EXPECT_EQ(p.in_place_kc, 2048);
  EXPECT_EQ(p.in_place_buffers, 2);
  EXPECT_FALSE(p.in_place_by_rows);  // m / n = 1: the panels split
  p = plan(kern, request(4096, 64, 1024, 2), zen4());
  EXPECT_TRUE(p.in_place_by_rows);  // m / n = 64: the rows split
  // alpha != 1 and no more than a_in_place_panels: direct_panels; wider: the loop nest.
  PlanRequest r = request(1024, 64, 1024, 1);
  r.unit_alpha = false;
  p = plan(kern, r, zen4());
  EXPECT_EQ(p.path, Path::kAInPlace);
  EXPECT_FALSE(p.in_place_tiles);
  EXPECT_EQ(p.in_place_rows, kern.direct_mr);
  r.n = 96;
  EXPECT_EQ(plan(kern, r, zen4()).path, Path::kLoopNest);
}

TEST(Plan, TheTeamSplitsRowsOrColumnsAsMeasured) {
  // The choices the partition comment records (two threads, Zen 4, B blocks in L3).
  const GemmKernel kern = avx512_amd();
  const auto split = [&](int64_t m, int64_t n, int64_t k) {
    const Plan p = plan(kern, request(m, n, k, 2), zen4());
    EXPECT_EQ(p.path, Path::kLoopNest);
    return p.team.partition.tm > 1 ? 'r' : 'c';
  };
  EXPECT_EQ(split(96, 1024, 1024), 'c');
  EXPECT_EQ(split(128, 4096, 4096), 'c');
  EXPECT_EQ(split(64, 4096, 4096), 'c');
  EXPECT_EQ(split(192, 1024, 1024), 'r');
  EXPECT_EQ(split(384, 1024, 1024), 'r');
  EXPECT_EQ(split(1024, 1024, 1024), 'r');
  // Columns: the members pack each A block together; rows: each packs its own A.
  Plan p = plan(kern, request(96, 1024, 1024, 2), zen4());
  EXPECT_TRUE(p.team.shared_a);
  p = plan(kern, request(1024, 1024, 1024, 2), zen4());
  EXPECT_FALSE(p.team.shared_a);
  // A B block in L3 small enough for a copy per member: own copies, no meetings around it.
  EXPECT_TRUE(p.team.own_b);
  EXPECT_FALSE(p.team.shared_b);
  // Intel's form (B blocks in L2) never gives each member a copy: one shared block.
  p = plan(avx512_intel(), request(1024, 1024, 1024, 2), xeon_amx());
  EXPECT_EQ(p.team.partition.tm, 2);
  EXPECT_FALSE(p.team.own_b);
  EXPECT_TRUE(p.team.shared_b);
}

TEST(Plan, KBlocksOuterOverBBlocksInL2) {
  // Several column blocks of an L2-sized B block and room for a member's rows of a whole
  // k-block: A is packed once per k-block.
  Plan p = plan(avx512_intel(), request(2048, 2048, 2048, 1), xeon_amx());
  EXPECT_EQ(p.path, Path::kLoopNest);
  EXPECT_LT(p.nc, 2048);
  EXPECT_EQ(p.order, LoopOrder::kKBlocksOuter);
  EXPECT_GE(p.a_bytes, std::size_t(2048 * p.kc * 4));
  // Too many rows for kWholeKBlockABytes: the usual order.
  p = plan(avx512_intel(), request(16384, 2048, 2048, 1), xeon_amx());
  EXPECT_EQ(p.order, LoopOrder::kColumnBlocksOuter);
  // B blocks in L3 (AMD's form): the usual order.
  p = plan(avx512_amd(), request(2048, 2048, 2048, 1), zen4());
  EXPECT_EQ(p.order, LoopOrder::kColumnBlocksOuter);
}

TEST(Plan, ATransposedBUnderOneRowBlockPacksNarrowBlocks) {
  // x * W^T, W 4096 x 4096, all of A in one row block: NC at most kTransposedBNc.
  PlanRequest r = request(64, 4096, 4096, 1);
  r.b_row_major = false;
  r.b_transposed = true;
  Plan p = plan(avx2(), r, zen3());
  ASSERT_EQ(p.path, Path::kLoopNest);
  EXPECT_LE(p.nc, driver::kTransposedBNc);
  EXPECT_EQ(p.nc % avx2().nr, 0);
  // Not under an NC the caller set, not over a row-major B, not with several row blocks.
  blocking::BlockOverrides o;
  o.nc = 2048;
  EXPECT_EQ(plan(avx2(), r, zen3(), o).nc, 2048);
  const int64_t row_major_nc = plan(avx2(), request(64, 4096, 4096, 1), zen3()).nc;
  EXPECT_GT(row_major_nc, driver::kTransposedBNc);
  r.m = 4096;
  p = plan(avx2(), r, zen3());
  EXPECT_GT(p.nc, driver::kTransposedBNc);
  EXPECT_LT(p.mc, r.m);
}

TEST(Plan, AColumnsSplitOverOneRowBlockPacksAWholeInEachMember) {
  // x * W^T on two threads, all of A in one row block, several column blocks: the columns split,
  // each member packs every k-block of A itself, once, and the members never meet.
  PlanRequest r = request(64, 4096, 4096, 2);
  r.b_row_major = false;
  r.b_transposed = true;
  Plan p = plan(avx2(), r, zen3());
  ASSERT_EQ(p.path, Path::kLoopNest);
  ASSERT_EQ(p.team.partition.tm, 1);
  EXPECT_EQ(p.order, LoopOrder::kKBlocksOuter);
  EXPECT_TRUE(p.team.whole_a);
  EXPECT_FALSE(p.team.shared_a);
  EXPECT_GE(p.a_bytes, std::size_t(66 * p.kc * 4));
  // One column block: the members pack each A block together.
  r.n = p.nc;
  p = plan(avx2(), r, zen3());
  ASSERT_EQ(p.team.partition.tm, 1);
  EXPECT_EQ(p.order, LoopOrder::kColumnBlocksOuter);
  EXPECT_TRUE(p.team.shared_a);
}

TEST(Plan, OverridesWin) {
  blocking::BlockOverrides o;
  o.mc = 50;
  o.kc = 100;
  o.nc = 70;
  const Plan p = plan(avx2(), request(1000, 1000, 1000, 1), zen4(), o);
  EXPECT_EQ(p.path, Path::kLoopNest);
  EXPECT_EQ(p.mc, 54);  // whole tiles
  EXPECT_EQ(p.kc, 100);
  EXPECT_EQ(p.nc, 80);
}

TEST(Plan, EveryPlanKeepsItsInvariantsAndRunsNoKernel) {
  g_kernel_calls = 0;
  const std::vector<GemmKernel> kernels = {avx2(), avx512_amd(), avx512_intel(), packs_only()};
  const std::vector<CacheTopology> topologies = {zen4(), xeon_amx(), tiny()};
  const int64_t sizes[] = {1, 3, 4, 5, 7, 13, 32, 64, 100, 257, 1000, 4096};
  int plans = 0;
  for (const GemmKernel& kern : kernels) {
    for (const CacheTopology& t : topologies) {
      for (int64_t m : sizes) {
        for (int64_t n : sizes) {
          for (int64_t k : {int64_t{1}, int64_t{64}, int64_t{1000}, int64_t{8192}}) {
            for (int threads : {1, 2, 5}) {
              for (int variant = 0; variant < 4; ++variant) {
                PlanRequest r = request(m, n, k, threads);
                r.unit_alpha = variant != 1;
                r.b_prepacked = variant == 2;
                r.a_prepacked = variant == 3;
                if (variant == 1) r.b_row_major = false, r.b_transposed = true;
                const Plan p = plan(kern, r, t);
                expect_invariants(kern, r, p);
                if (HasFatalFailure()) return;
                ++plans;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(plans, 10000);
  EXPECT_EQ(g_kernel_calls, 0);
}

TEST(Plan, TheBuildsKernelSetsPlanWithinTheirInvariants) {
  // The real kernels of every path compiled in and runnable here, over the Zen 4 caches.
  for (Isa isa : kernels::available_isas()) {
    for (const kernels::KernelSet* set : kernels::compiled_kernel_sets(isa)) {
      for (const GemmKernel* kern : {&set->sgemm, &set->dgemm, &set->s8gemm, &set->u8gemm}) {
        for (int64_t m : {1, 6, 64, 500, 3000})
          for (int64_t n : {1, 64, 500, 3000})
            for (int64_t k : {1, 300, 5000}) {
              const PlanRequest r = request(m, n, k, 2);
              expect_invariants(*kern, r, plan(*kern, r, zen4()));
              if (HasFatalFailure()) return;
            }
      }
    }
  }
}

TEST(Plan, Describes) {
  const Plan p = plan(avx2(), request(1000, 1000, 1000, 2), zen4());
  const std::string text = driver::describe_plan(p, "  ");
  EXPECT_NE(text.find("path loop nest, team 2"), std::string::npos) << text;
  EXPECT_NE(text.find("MC " + std::to_string(p.mc)), std::string::npos) << text;
  EXPECT_NE(text.find("workspace"), std::string::npos) << text;
}

}  // namespace
}  // namespace invar::test

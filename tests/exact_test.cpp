// Bit-exact differential tests: invar against the scalar reference, compared with memcmp, over
// shapes around every tile and block edge, both transposes, strided views and the alpha/beta
// special values.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>
#include <vector>

#include "api/context_impl.h"
#include "arch/cache_topology.h"
#include "driver/gemm_driver.h"
#include "runtime/thread_pool.h"
#include "runtime/workspace.h"
#include "support/driver_problem.h"
#include "support/gemm_case.h"
#include "testing/reference.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

// 3.7 rounds in both precisions, so alpha * a and beta * c round too.
const double kScalars[] = {0.0, 1.0, -1.0, 0.5, 2.0, 3.7};

struct Tile {
  int64_t mr, nr;
};

template <class T>
const kernels::GemmKernel& kernel_of(Context& context) {
  return kernels::kernel_for<T>(*context.impl().kernels);
}

template <class T>
Tile tile_of(Context& context) {
  const auto& k = kernel_of<T>(context);
  return {k.mr, k.nr};
}

// Every test runs for f32 (invar_sgemm's engine) and f64 (invar_dgemm's).
template <class T>
class Exact : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Exact, ElementTypes);

// Every product through the packed loop nest, none on a direct path.
void nest_only(Context& context) { context.impl().allow_direct = false; }

// Small blocks force every loop of the nest to take several trips on small problems (which
// need nest_only: they would otherwise take the direct path).
ContextOptions small_blocks(Tile t) {
  ContextOptions o;
  o.mc = 2 * t.mr;
  o.kc = 5;
  o.nc = 2 * t.nr;
  return o;
}

TYPED_TEST(Exact, TileEdgesAllTransposes) {
  Context context;
  const Tile t = tile_of<TypeParam>(context);
  Context small(small_blocks(t));
  nest_only(small);
  const int64_t ms[] = {1, t.mr - 1, t.mr, t.mr + 1, 2 * t.mr + 1};
  const int64_t ns[] = {1, t.nr - 1, t.nr, t.nr + 1, 2 * t.nr + 3};
  const int64_t ks[] = {1, 2, 4, 9, 16};
  uint64_t seed = 1;
  for (int trans = 0; trans < 4; ++trans) {
    for (int64_t m : ms) {
      for (int64_t n : ns) {
        for (int64_t k : ks) {
          if (m < 1 || n < 1) continue;
          GemmCase g;
          g.trans_a = trans & 1;
          g.trans_b = trans & 2;
          g.m = m;
          g.n = n;
          g.k = k;
          g.alpha = kScalars[seed % 6];
          g.beta = kScalars[(seed / 6) % 6];
          g.seed = seed++;
          ASSERT_EQ(check_case<TypeParam>(g, context), "");
          ASSERT_EQ(check_case<TypeParam>(g, small), "");
        }
      }
    }
  }
}

TYPED_TEST(Exact, AllAlphaBetaPairsWithViews) {
  Context context;
  uint64_t seed = 1000;
  for (double alpha : kScalars) {
    for (double beta : kScalars) {
      for (int trans = 0; trans < 4; ++trans) {
        GemmCase g;
        g.trans_a = trans & 1;
        g.trans_b = trans & 2;
        g.m = 37;
        g.n = 29;
        g.k = 41;
        g.alpha = alpha;
        g.beta = beta;
        g.pad_a = 3;
        g.pad_b = 5;
        g.pad_c = 7;
        g.seed = seed++;
        ASSERT_EQ(check_case<TypeParam>(g, context), "");
      }
    }
  }
}

TYPED_TEST(Exact, KAcrossTheDefaultBlockDepth) {
  Context context, nest;
  nest_only(nest);
  const auto& kern = kernel_of<TypeParam>(context);
  const auto blocks =
      blocking::choose_block_sizes(arch::cache_topology().topology, {kern.mr, kern.nr},
                                   {kern.a_packed_bytes, kern.b_packed_bytes}, 1 << 20, 1 << 20,
                                   1 << 20, context.impl().overrides);
  const int64_t kc = blocks.kc;
  uint64_t seed = 2000;
  for (int64_t k : {kc - 1, kc, kc + 1, 2 * kc + 1}) {
    for (int trans = 0; trans < 4; ++trans) {
      GemmCase g;
      g.trans_a = trans & 1;
      g.trans_b = trans & 2;
      g.m = 37;  // more than a few rows (a narrow B may still be read in place: `nest` packs)
      g.n = 41;
      g.k = k;
      g.alpha = 0.5;
      g.beta = 3.7;
      g.pad_c = 1;
      g.seed = seed++;
      ASSERT_EQ(check_case<TypeParam>(g, context), "");
      ASSERT_EQ(check_case<TypeParam>(g, nest), "");
    }
  }
}

// A few rows and a long row-major B: the direct path in k-blocks, columns split among threads.
TYPED_TEST(Exact, DecodeShapesOnTheDirectPath) {
  uint64_t seed = 5000;
  for (int threads : {1, 2}) {
    ContextOptions o;
    o.num_threads = threads;
    Context context(o);
    for (int64_t m : {1, 3, 4}) {
      for (bool trans_a : {false, true}) {
        GemmCase g;
        g.trans_a = trans_a;
        g.m = m;
        g.n = 1037;
        g.k = 301;
        g.alpha = kScalars[seed % 6];
        g.beta = kScalars[(seed / 2) % 6];
        g.pad_b = 3;
        g.pad_c = 1;
        g.seed = seed++;
        ASSERT_EQ(check_case<TypeParam>(g, context), "") << "threads=" << threads;
      }
    }
  }
}

TYPED_TEST(Exact, RandomShapesUpToThreeHundred) {
  Context context;
  Rng rng(42);
  const int64_t primes[] = {2, 3, 5, 7, 11, 13, 31, 61, 97, 127, 131, 197, 251, 257, 293};
  for (int iter = 0; iter < 24; ++iter) {
    GemmCase g;
    g.trans_a = rng.below(2);
    g.trans_b = rng.below(2);
    g.m = rng.below(2) ? primes[rng.below(15)] : 1 + rng.below(300);
    g.n = rng.below(2) ? primes[rng.below(15)] : 1 + rng.below(300);
    g.k = rng.below(2) ? primes[rng.below(15)] : 1 + rng.below(300);
    // Keep the suite fast on the scalar path: cap the work at ~2.5 Mflop per case.
    while (g.m * g.n * g.k > 1250000) g.k = g.k / 2 + 1;
    g.alpha = kScalars[rng.below(6)];
    g.beta = kScalars[rng.below(6)];
    g.pad_a = rng.below(4);
    g.pad_b = rng.below(4);
    g.pad_c = rng.below(4);
    g.seed = 3000 + iter;
    ASSERT_EQ(check_case<TypeParam>(g, context), "");
  }
}

TYPED_TEST(Exact, LargeProductCrossesEveryBlock) {
  // Several column blocks, row blocks and k-blocks at the default block sizes.
  Context context;
  const Tile t = tile_of<TypeParam>(context);
  ContextOptions o;
  o.mc = 4 * t.mr;
  o.nc = 3 * t.nr;
  o.kc = 64;
  Context blocked(o);
  nest_only(blocked);
  GemmCase g;
  g.m = 6 * t.mr + 1;
  g.n = 7 * t.nr + 2;
  g.k = 3 * 64 + 5;
  g.alpha = -1.0;
  g.beta = 0.5;
  g.pad_c = 2;
  g.seed = 4000;
  ASSERT_EQ(check_case<TypeParam>(g, context), "");
  ASSERT_EQ(check_case<TypeParam>(g, blocked), "");
}

// Products at most the kernel's a_in_place_panels wide: B is packed alone (or was prepacked),
// all of K deep or in k-blocks of the depth L2 holds, and A read in place by the kernel's tiles
// (row-major A, alpha 1; the choice asserted against its own statement here) or by
// direct_panels. Over row counts that leave uneven groups, column counts with a
// partial last panel, both layouts of A and of B, every start of the accumulators, alpha 1 and
// not, 1..3 threads (rows split, or panels when rows are few), B's depth in L2 all of K, under K
// but deep enough (three k-blocks through the two buffers) and too shallow: run_gemm must take
// that path exactly when the kernel offers it and the depth allows, and equal the reference bit
// for bit.
TYPED_TEST(Exact, PackedBAloneWithAReadInPlace) {
  using T = TypeParam;
  Context context;
  const kernels::GemmKernel& kern = kernel_of<T>(context);
  runtime::ThreadPool pool(3);
  const int64_t nr = kern.nr;
  // The limits of one thread, of a team and of the tiles, and the columns around each.
  const int64_t widest = std::max<int64_t>(1, kern.a_in_place_panels) * nr;
  const int64_t team_widest = std::max<int64_t>(1, kern.a_in_place_team_panels) * nr;
  const int64_t tiles_widest = int64_t{driver::kInPlaceTilePanels} * nr;
  uint64_t seed = 6000;
  const std::set<int64_t> widths = {
      1,           nr + 3,          widest - 5,   widest,          widest + 1,
      team_widest, team_widest + 1, tiles_widest, tiles_widest + 1};
  for (const int64_t n : widths) {
    if (n < 1) continue;
    for (const int64_t m : {int64_t{kernels::kDirectMaxRows + 1}, int64_t{31}, int64_t{7}}) {
      const int64_t k = m == 31 ? 1000 : 33;
      for (int layout = 0; layout < 4; ++layout) {
        const bool trans_a = layout & 1, trans_b = layout & 2;
        const kernels::AccInit init = static_cast<kernels::AccInit>(seed % 3);
        // alpha 1 on layouts 2 and 3 (seed advances by four per shape): with a row-major A
        // (layout 2) that is the tiles' case.
        const T alpha = (seed / 2) % 2 ? T(1) : T(-0.5);
        const T beta = init == kernels::AccInit::kScale  ? T(3.7)
                       : init == kernels::AccInit::kLoad ? T(1)
                                                         : T(0);
        const int64_t lda = (trans_a ? m : k) + 2, ldb = (trans_b ? k : n) + 1, ldc = n + 3;
        const auto a = random_values<T>((trans_a ? k : m) * lda, seed);
        const auto b = random_values<T>((trans_b ? n : k) * ldb, seed + 1);
        auto c0 = random_values<T>(m * ldc, seed + 2);
        // Accumulators that start from zero must not read C: its cells are NaN then.
        if (init == kernels::AccInit::kZero)
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) c0[i * ldc + j] = std::numeric_limits<T>::quiet_NaN();
        auto expected = c0;
        reference_gemm<T>(trans_a, trans_b, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta,
                          expected.data(), ldc);
        driver::GemmProblem p = driver_problem<T>(m, n, k, trans_a, a.data(), lda, trans_b,
                                                  b.data(), ldb, nullptr, ldc, &alpha, &beta, init);
        blocking::BlockSizes blocks{2 * kern.mr, 16, 3 * nr};
        for (const int64_t depth : {k, driver::kMinInPlaceDepth, driver::kMinInPlaceDepth - 1}) {
          if (depth > k) continue;  // the same as depth == k, already run
          blocks.b_l2_depth = depth;
          for (int threads : {1, 2, 3}) {
            // The tiles: a row-major A, alpha 1, a tile taller than the direct kernel's rows.
            const bool tiles = kern.ukernel_a_in_place != nullptr && kern.mr > kern.direct_mr &&
                               !trans_a && alpha == T(1) && m > kernels::kDirectMaxRows;
            ASSERT_EQ(driver::in_place_tiles(kern, p), tiles) << kern.name << " m=" << m;
            const int64_t panels = tiles         ? driver::kInPlaceTilePanels
                                   : threads > 1 ? kern.a_in_place_team_panels
                                                 : kern.a_in_place_panels;
            const bool offered =
                n <= panels * nr && (depth >= k || depth >= driver::kMinInPlaceDepth);
            ASSERT_EQ(driver::reads_a_in_place(kern, p, blocks, threads), offered)
                << kern.name << " m=" << m << " n=" << n << " k=" << k << " depth=" << depth
                << " threads=" << threads;
          }
          runtime::Workspace workspace, prepacked;
          p.b_panels = nullptr;
          for (bool use_prepacked : {false, true}) {
            if (use_prepacked) {
              void* panels = prepacked.reserve(driver::packed_b_bytes(kern, k, n));
              driver::pack_b_whole(kern, k, n, b.data(), p.b_rs, p.b_cs, panels);
              p.b_panels = panels;
            }
            for (int threads : {1, 2, 3}) {
              auto c = c0;
              p.c = c.data();
              driver::run_gemm(kern, p, blocks, workspace, &pool, threads);
              ASSERT_TRUE(same_bits(c, expected))
                  << kern.name << " m=" << m << " n=" << n << " k=" << k << " depth=" << depth
                  << " trans_a=" << trans_a << " trans_b=" << trans_b
                  << " init=" << static_cast<int>(init) << " prepacked=" << use_prepacked
                  << " threads=" << threads;
            }
          }
        }
        ++seed;
      }
    }
  }
}

}  // namespace
}  // namespace invar::test

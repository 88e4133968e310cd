// Bit-exact differential tests: invar against the scalar reference, compared with memcmp, over
// shapes around every tile and block edge, both transposes, strided views and the alpha/beta
// special values.
#include <gtest/gtest.h>

#include <vector>

#include "api/context_impl.h"
#include "arch/cache_topology.h"
#include "support/gemm_case.h"

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

// Small blocks force every loop of the nest to take several trips on small problems.
Context small_block_context(Tile t) {
  ContextOptions o;
  o.mc = 2 * t.mr;
  o.kc = 5;
  o.nc = 2 * t.nr;
  return Context(o);
}

TYPED_TEST(Exact, TileEdgesAllTransposes) {
  Context context;
  const Tile t = tile_of<TypeParam>(context);
  Context small = small_block_context(t);
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
  Context context;
  const auto& kern = kernel_of<TypeParam>(context);
  const auto blocks = blocking::choose_block_sizes(
      arch::cache_topology().topology, {kern.mr, kern.nr},
      {kern.a_packed_bytes, kern.b_packed_bytes}, 1 << 20, 1 << 20, 1 << 20,
      context.impl().overrides);
  const int64_t kc = blocks.kc;
  uint64_t seed = 2000;
  for (int64_t k : {kc - 1, kc, kc + 1, 2 * kc + 1}) {
    for (int trans = 0; trans < 4; ++trans) {
      GemmCase g;
      g.trans_a = trans & 1;
      g.trans_b = trans & 2;
      g.m = 37;  // large enough for the packed path
      g.n = 41;
      g.k = k;
      g.alpha = 0.5;
      g.beta = 3.7;
      g.pad_c = 1;
      g.seed = seed++;
      ASSERT_EQ(check_case<TypeParam>(g, context), "");
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

}  // namespace
}  // namespace invar::test

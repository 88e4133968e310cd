// The properties the contract promises beyond agreement with the reference: a row's result does
// not depend on the batch around it or on the cache blocking.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "api/context_impl.h"
#include "support/gemm_case.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

// Every property holds for f32 and f64.
template <class T>
class Invariance : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Invariance, ElementTypes);

// x * W^T with K = 300: every row computed alone (the decode step, M = 1) equals the same row
// inside a batch of 1..37 rows (prefill), at every offset in the batch.
TYPED_TEST(Invariance, RowAloneEqualsRowInEveryBatchAtEveryOffset) {
  using T = TypeParam;
  Context context;
  const int64_t k = 300, n = 67, max_batch = 37;
  const auto w = random_values<T>(n * k, 1);  // n x k, used transposed
  const auto x = random_values<T>(max_batch * k, 2);

  std::vector<T> alone(max_batch * n);
  for (int64_t r = 0; r < max_batch; ++r) {
    gemm(T(1), Op::kNoTrans, MatrixView<const T>(x.data() + r * k, 1, k), Op::kTrans,
         MatrixView<const T>(w.data(), n, k), T(0), MatrixView<T>(alone.data() + r * n, 1, n),
         context);
  }
  std::vector<T> batch(max_batch * n);
  for (int64_t size = 1; size <= max_batch; ++size) {
    // Rows [first, first + size) of x; each lands at offset (r - first) inside the batch.
    for (int64_t first = 0; first + size <= max_batch; first += (size > 4 ? size / 2 : 1)) {
      gemm(T(1), Op::kNoTrans, MatrixView<const T>(x.data() + first * k, size, k), Op::kTrans,
           MatrixView<const T>(w.data(), n, k), T(0), MatrixView<T>(batch.data(), size, n),
           context);
      for (int64_t off = 0; off < size; ++off) {
        ASSERT_EQ(
            std::memcmp(batch.data() + off * n, alone.data() + (first + off) * n, n * sizeof(T)), 0)
            << "row " << first + off << " at offset " << off << " of a batch of " << size;
      }
    }
  }
}

// x * W with W stored k x n: a batch of at most four rows reads W in place (the direct path),
// larger ones pack it. Both must give every row the same bits.
TYPED_TEST(Invariance, DirectAndPackedPathsAgreeRowByRow) {
  using T = TypeParam;
  Context context;
  const int64_t k = 300, n = 83, max_batch = 13;
  const auto w = random_values<T>(k * n, 3);
  const auto x = random_values<T>(max_batch * k, 4);
  std::vector<T> alone(max_batch * n), batch(max_batch * n);
  for (int64_t r = 0; r < max_batch; ++r) {
    gemm(T(1), Op::kNoTrans, MatrixView<const T>(x.data() + r * k, 1, k), Op::kNoTrans,
         MatrixView<const T>(w.data(), k, n), T(0), MatrixView<T>(alone.data() + r * n, 1, n),
         context);
  }
  for (int64_t size = 1; size <= max_batch; ++size) {
    gemm(T(1), Op::kNoTrans, MatrixView<const T>(x.data(), size, k), Op::kNoTrans,
         MatrixView<const T>(w.data(), k, n), T(0), MatrixView<T>(batch.data(), size, n), context);
    ASSERT_EQ(std::memcmp(batch.data(), alone.data(), size * n * sizeof(T)), 0) << "batch " << size;
  }
}

TYPED_TEST(Invariance, BlockSizesNeverChangeBits) {
  using T = TypeParam;
  Context reference_context;
  const auto& kern = kernels::kernel_for<T>(*reference_context.impl().kernels);
  const int64_t mr = kern.mr, nr = kern.nr;
  struct Blocks {
    int64_t mc, kc, nc;
  };
  const Blocks choices[] = {
      {1, 1, 1},       {mr, 3, nr},        {mr + 1, 7, nr + 1},   {3 * mr, 64, 2 * nr},
      {100, 100, 100}, {1000, 1000, 5000}, {2 * mr, 255, 9 * nr}, {0, 0, 0},
  };
  uint64_t seed = 7;
  for (int trans = 0; trans < 4; ++trans) {
    GemmCase g;
    g.trans_a = trans & 1;
    g.trans_b = trans & 2;
    g.m = 3 * mr + 2;
    g.n = 4 * nr + 1;
    g.k = 271;
    g.alpha = 0.5;
    g.beta = -1.0;
    g.pad_c = 3;
    g.seed = seed++;
    for (const Blocks& b : choices) {
      ContextOptions o;
      o.mc = b.mc;
      o.kc = b.kc;
      o.nc = b.nc;
      Context context(o);
      ASSERT_EQ(check_case<T>(g, context), "") << "mc=" << b.mc << " kc=" << b.kc << " nc=" << b.nc;
    }
  }
}

}  // namespace
}  // namespace invar::test

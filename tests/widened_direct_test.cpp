// The decode step over bf16 and f16 operands (kernels that widen in registers): every shape around
// the kernels' edges (rows 1..5, column groups of 8 and 16 and their tails, k around the 16-step
// transposes and the 2048-step chunks of A), B row-major and transposed, alpha and beta of every
// class, f32 and 16-bit C, on one thread and two: the bits of invar_sgemm on the widened
// operands, and of the same product forced through the loop nest. Signaling NaNs and f16
// subnormals in B included.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "api/context_impl.h"
#include "invar/invar.hpp"
#include "kernels/kernel_set.h"
#include "numeric/half.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

template <class H>
H narrow_of(float x) {
  if constexpr (std::is_same_v<H, f16>)
    return numeric::round_to_f16(x);
  else
    return numeric::round_to_bf16(x);
}

// Values in [-1, 1) rounded, every 17th scaled down to the f16 subnormals, and at `nan_every`
// (0: none) a signaling NaN with a payload.
template <class H>
std::vector<H> random_narrow(std::size_t n, uint64_t seed, std::size_t nan_every = 0) {
  Rng rng(seed);
  std::vector<H> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    float x = rng.symmetric();
    if (i % 17 == 5) x = std::ldexp(x, -16);
    v[i] = narrow_of<H>(x);
    if (nan_every != 0 && i % nan_every == nan_every - 1)
      v[i].bits = std::is_same_v<H, f16> ? uint16_t(0x7C01 + i % 64) : uint16_t(0x7F81 + i % 64);
  }
  return v;
}

template <class H>
std::vector<float> widened(const std::vector<H>& v) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = numeric::widen(v[i]);
  return out;
}

template <class H>
class WidenedDirect : public ::testing::Test {};
using Types = ::testing::Types<bf16, f16>;
TYPED_TEST_SUITE(WidenedDirect, Types);

// One product on `ctx`, f32 and 16-bit C, against sgemm on the widened operands on `ctx` and the
// 16-bit product forced through the loop nest on `nest`. False (with a message) on a difference.
template <class H>
::testing::AssertionResult check(Context& ctx, Context& nest, int64_t m, int64_t n, int64_t k,
                                 bool ta, bool tb, float alpha, float beta, uint64_t seed,
                                 std::size_t nan_every) {
  const int64_t lda = (ta ? m : k) + 1, ldb = (tb ? k : n) + 3, ldc = n + 2;
  const auto a = random_narrow<H>((ta ? k : m) * lda, seed * 3);
  const auto b = random_narrow<H>((tb ? n : k) * ldb, seed * 3 + 1, nan_every);
  const auto c0 = random_narrow<H>(m * ldc, seed * 3 + 2);
  const auto wa = widened(a), wb = widened(b);
  const Op oa = ta ? Op::kTrans : Op::kNoTrans, ob = tb ? Op::kTrans : Op::kNoTrans;
  const MatrixView<const H> va(a.data(), ta ? k : m, ta ? m : k, lda);
  const MatrixView<const H> vb(b.data(), tb ? n : k, tb ? k : n, ldb);
  std::vector<float> expected = widened(c0), got = expected, nested = expected;
  gemm(alpha, oa, MatrixView<const float>(wa.data(), ta ? k : m, ta ? m : k, lda), ob,
       MatrixView<const float>(wb.data(), tb ? n : k, tb ? k : n, ldb), beta,
       MatrixView<float>(expected.data(), m, n, ldc), ctx);
  gemm(alpha, oa, va, ob, vb, beta, MatrixView<float>(got.data(), m, n, ldc), ctx);
  gemm(alpha, oa, va, ob, vb, beta, MatrixView<float>(nested.data(), m, n, ldc), nest);
  const auto where = [&] {
    return ::testing::Message() << " m=" << m << " n=" << n << " k=" << k << " ta=" << ta
                                << " tb=" << tb << " alpha=" << alpha << " beta=" << beta;
  };
  if (std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) != 0)
    return ::testing::AssertionFailure() << "f32 C differs from sgemm" << where();
  if (std::memcmp(nested.data(), expected.data(), got.size() * sizeof(float)) != 0)
    return ::testing::AssertionFailure() << "the loop nest differs from sgemm" << where();
  std::vector<H> narrow = c0;
  gemm(alpha, oa, va, ob, vb, beta, MatrixView<H>(narrow.data(), m, n, ldc), ctx);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      const uint16_t want = j < n ? narrow_of<H>(expected[i * ldc + j]).bits : c0[i * ldc + j].bits;
      if (narrow[i * ldc + j].bits != want)
        return ::testing::AssertionFailure() << "16-bit C at " << i << "," << j << where();
    }
  }
  return ::testing::AssertionSuccess();
}

TYPED_TEST(WidenedDirect, EqualsSgemmOnTheWidenedOperands) {
  using H = TypeParam;
  // The path under test exists on this context's kernel.
  Context probe;
  const kernels::GemmKernel& kern = kernels::kernel_for<H>(*probe.impl().kernels);
  ASSERT_NE(kern.direct, nullptr);
  ASSERT_NE(kern.direct_t, nullptr);
  uint64_t seed = 1;
  for (int threads : {1, 2}) {
    ContextOptions o;
    o.num_threads = threads;
    Context ctx(o);
    Context nest(o);
    nest.impl().allow_direct = false;
    for (int64_t m : {1, 2, 3, 4, 5}) {
      for (const auto& nk : {std::array<int64_t, 2>{1, 1},
                             {7, 15},
                             {8, 16},
                             {9, 17},
                             {16, 33},
                             {17, 31},
                             {63, 64},
                             {64, 100},
                             {65, 47},
                             {130, 255},
                             {40, 2049},
                             {33, 4113}}) {
        for (bool tb : {false, true}) {
          const bool ta = seed % 3 == 0;
          const float alpha = seed % 4 == 0   ? 1.0f
                              : seed % 4 == 1 ? -1.0f
                              : seed % 4 == 2 ? 0.5f
                                              : 3.7f;
          const float beta = seed % 5 == 0   ? 0.0f
                             : seed % 5 == 1 ? 1.0f
                             : seed % 5 == 2 ? -1.0f
                             : seed % 5 == 3 ? 2.0f
                                             : 0.3f;
          ASSERT_TRUE(check<H>(ctx, nest, m, nk[0], nk[1], ta, tb, alpha, beta, seed, 0));
          ++seed;
        }
      }
    }
  }
}

// Signaling NaNs in B: the kernels widen B without setting the quiet bit; the result has the bits
// of the product of the quieted widening all the same.
TYPED_TEST(WidenedDirect, SignalingNaNsInB) {
  using H = TypeParam;
  Context ctx;
  Context nest;
  nest.impl().allow_direct = false;
  uint64_t seed = 100;
  for (int64_t m : {1, 3, 4}) {
    for (bool tb : {false, true}) {
      ASSERT_TRUE(check<H>(ctx, nest, m, 37, 70, false, tb, 1.0f, 1.0f, seed++, 29));
      ASSERT_TRUE(check<H>(ctx, nest, m, 64, 33, true, tb, -0.5f, 0.0f, seed++, 13));
    }
  }
}

}  // namespace
}  // namespace invar::test

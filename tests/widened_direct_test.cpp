// The decode step over bf16 and f16 operands (kernels that widen in registers): every shape around
// the kernels' edges (rows 1..5, column groups of 8 and 16 and their tails, k around the 16-step
// transposes and the chunks of A: 4096 / m steps, rounded down to 32), B row-major and transposed,
// alpha and beta of every class, f32 and 16-bit C, on one thread and two: the bits of invar_sgemm
// on the widened operands, and of the same product forced through the loop nest. Signaling NaNs and
// f16 subnormals in B included.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "api/context_impl.h"
#include "invar/invar.h"
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
  ASSERT_NE(kern.direct_panels_16bit, nullptr);
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

namespace invar::test {
namespace {

// A 16-bit prepacked B: half the bytes of the f32 panels, and every product over it (the decode
// step over the 16-bit panels, more rows over panels widened a run at a time, the loop nest
// forced) with the bits of the unpacked call, f32 and 16-bit C, through C++ and C.
template <class H>
class NarrowPrepacked : public ::testing::Test {};
TYPED_TEST_SUITE(NarrowPrepacked, Types);

TYPED_TEST(NarrowPrepacked, EqualsTheUnpackedCall) {
  using H = TypeParam;
  uint64_t seed = 500;
  for (int threads : {1, 2}) {
    ContextOptions o;
    o.num_threads = threads;
    Context ctx(o);
    Context nest(o);
    nest.impl().allow_direct = false;
    for (const auto& nk :
         {std::array<int64_t, 2>{1, 1}, {9, 17}, {33, 64}, {100, 31}, {130, 255}, {40, 2049}}) {
      const int64_t n = nk[0], k = nk[1];
      for (bool tb : {false, true}) {
        const int64_t ldb = (tb ? k : n) + 1;
        const auto b = random_narrow<H>((tb ? n : k) * ldb, seed * 7);
        const MatrixView<const H> vb(b.data(), tb ? n : k, tb ? k : n, ldb);
        const Op ob = tb ? Op::kTrans : Op::kNoTrans;
        const PackedB packed = pack_b(ob, vb, ctx);
        const std::size_t nr = kernels::kernel_for<H>(*ctx.impl().kernels).nr;
        ASSERT_EQ(packed.bytes(), (((n + nr - 1) / nr * nr * k * 2 + 63) / 64 * 64));
        for (int64_t m : {1, 2, 4, 5, 13}) {
          const bool ta = seed % 2;
          const float alpha = seed % 3 == 0 ? 1.0f : -0.75f;
          const float beta = seed % 4 == 0 ? 0.0f : seed % 4 == 1 ? 1.0f : 1.5f;
          const int64_t lda = (ta ? m : k) + 2, ldc = n + 1;
          const auto a = random_narrow<H>((ta ? k : m) * lda, seed * 7 + 1);
          const auto c0 = random_narrow<H>(m * ldc, seed * 7 + 2);
          const MatrixView<const H> va(a.data(), ta ? k : m, ta ? m : k, lda);
          const Op oa = ta ? Op::kTrans : Op::kNoTrans;
          std::vector<float> want(m * ldc), got(m * ldc), got_nest(m * ldc);
          for (std::size_t i = 0; i < want.size(); ++i) want[i] = numeric::widen(c0[i]);
          got = want;
          got_nest = want;
          gemm(alpha, oa, va, ob, vb, beta, MatrixView<float>(want.data(), m, n, ldc), ctx);
          gemm(alpha, oa, va, packed, beta, MatrixView<float>(got.data(), m, n, ldc), ctx);
          gemm(alpha, oa, va, packed, beta, MatrixView<float>(got_nest.data(), m, n, ldc), nest);
          ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
              << "m=" << m << " n=" << n << " k=" << k << " tb=" << tb;
          ASSERT_EQ(std::memcmp(got_nest.data(), want.data(), got.size() * sizeof(float)), 0)
              << "loop nest, m=" << m << " n=" << n << " k=" << k << " tb=" << tb;
          std::vector<H> want16 = c0, got16 = c0;
          gemm(alpha, oa, va, ob, vb, beta, MatrixView<H>(want16.data(), m, n, ldc), ctx);
          gemm(alpha, oa, va, packed, beta, MatrixView<H>(got16.data(), m, n, ldc), ctx);
          ASSERT_EQ(std::memcmp(got16.data(), want16.data(), got16.size() * sizeof(H)), 0)
              << "16-bit C, m=" << m << " n=" << n << " k=" << k;
          ++seed;
        }
      }
    }
  }
}

template <class H>
invar_status pack_c(invar_trans tb, int64_t k, int64_t n, const H* b, int64_t ldb,
                    invar_packed** out) {
  if constexpr (std::is_same_v<H, bf16>)
    return invar_gemm_bf16bf16f32_pack_b(tb, k, n, b, ldb, out);
  else
    return invar_gemm_f16f16f32_pack_b(tb, k, n, b, ldb, out);
}

template <class H>
invar_status packed_c(invar_trans ta, int64_t m, float alpha, const H* a, int64_t lda,
                      const invar_packed* b, float beta, float* c, int64_t ldc) {
  if constexpr (std::is_same_v<H, bf16>)
    return invar_gemm_bf16bf16f32_packed(ta, m, alpha, a, lda, b, beta, c, ldc);
  else
    return invar_gemm_f16f16f32_packed(ta, m, alpha, a, lda, b, beta, c, ldc);
}

template <class H>
invar_status packed_c16(invar_trans ta, int64_t m, float alpha, const H* a, int64_t lda,
                        const invar_packed* b, float beta, H* c, int64_t ldc) {
  if constexpr (std::is_same_v<H, bf16>)
    return invar_gemm_bf16bf16bf16_packed(ta, m, alpha, a, lda, b, beta, c, ldc);
  else
    return invar_gemm_f16f16f16_packed(ta, m, alpha, a, lda, b, beta, c, ldc);
}

template <class H>
invar_status unpacked_c16(int64_t m, int64_t n, int64_t k, const H* a, const H* b, H* c) {
  if constexpr (std::is_same_v<H, bf16>)
    return invar_gemm_bf16bf16bf16(INVAR_NO_TRANS, INVAR_TRANS, m, n, k, 0.5f, a, k, b, k, 2.0f, c,
                                   n);
  else
    return invar_gemm_f16f16f16(INVAR_NO_TRANS, INVAR_TRANS, m, n, k, 0.5f, a, k, b, k, 2.0f, c, n);
}

TYPED_TEST(NarrowPrepacked, CApi) {
  using H = TypeParam;
  const int64_t m = 3, n = 45, k = 70;
  const auto a = random_narrow<H>(m * k, 1), w = random_narrow<H>(n * k, 2);  // W is n x k
  const auto c0 = random_narrow<H>(m * n, 3);
  invar_packed* packed = nullptr;
  ASSERT_EQ(pack_c<H>(INVAR_TRANS, k, n, w.data(), k, &packed), INVAR_OK);
  std::vector<float> want(m * n), got(m * n);
  for (std::size_t i = 0; i < want.size(); ++i) want[i] = got[i] = numeric::widen(c0[i]);
  Context& ctx = Context::default_context();
  gemm(0.5f, Op::kNoTrans, MatrixView<const H>(a.data(), m, k), Op::kTrans,
       MatrixView<const H>(w.data(), n, k), 2.0f, MatrixView<float>(want.data(), m, n), ctx);
  ASSERT_EQ(packed_c<H>(INVAR_NO_TRANS, m, 0.5f, a.data(), k, packed, 2.0f, got.data(), n),
            INVAR_OK);
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
  std::vector<H> want16 = c0, got16 = c0;
  ASSERT_EQ(unpacked_c16<H>(m, n, k, a.data(), w.data(), want16.data()), INVAR_OK);
  ASSERT_EQ(packed_c16<H>(INVAR_NO_TRANS, m, 0.5f, a.data(), k, packed, 2.0f, got16.data(), n),
            INVAR_OK);
  EXPECT_EQ(std::memcmp(got16.data(), want16.data(), got16.size() * sizeof(H)), 0);
  // A handle of the other 16-bit type is refused, C untouched.
  using Other = std::conditional_t<std::is_same_v<H, bf16>, f16, bf16>;
  std::vector<Other> other_a(m * k);
  std::vector<float> untouched = got;
  EXPECT_EQ(
      packed_c<Other>(INVAR_NO_TRANS, m, 0.5f, other_a.data(), k, packed, 2.0f, got.data(), n),
      INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("packed from"), std::string::npos)
      << invar_last_error();
  EXPECT_EQ(std::memcmp(got.data(), untouched.data(), got.size() * sizeof(float)), 0);
  invar_packed_free(packed);
}

}  // namespace
}  // namespace invar::test

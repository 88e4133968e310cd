// Fused epilogues: the fused call equals the plain call followed by the scalar epilogue, bit for
// bit, on every path (direct, transposed direct, prepacked, loop nest, several threads, alpha ==
// 0); the activations are close to the mathematical functions and handle the special values.
#include "numeric/epilogue.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "api/context_impl.h"
#include "invar/invar.h"
#include "invar/invar.hpp"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

using numeric::activate;

template <class T>
class Fused : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Fused, ElementTypes);

// The plain product, then bias and activation element by element.
template <class T>
void unfused(std::vector<T>& c, int64_t m, int64_t n, int64_t ldc, const Epilogue<T>& e) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T v = c[i * ldc + j];
      if (e.bias == Bias::kPerRow) v = v + e.bias_values[i];
      if (e.bias == Bias::kPerColumn) v = v + e.bias_values[j];
      c[i * ldc + j] = activate(static_cast<numeric::Activation>(e.activation), v);
    }
  }
}

TYPED_TEST(Fused, EqualsPlainThenEpilogueOnEveryPath) {
  using T = TypeParam;
  ContextOptions o;
  o.num_threads = 2;
  Context two(o);
  o.num_threads = 1;
  o.mc = 12;
  o.kc = 7;
  o.nc = 32;
  Context blocked(o);
  blocked.impl().allow_direct = false;  // every shape through the loop nest too
  uint64_t seed = 1;
  // m <= 4 with B row-major or transposed (direct paths), small, narrow (B packed alone, A read
  // in place), and large (loop nest); `two` takes the direct paths where they apply, `blocked`
  // never does.
  for (const auto& shape : {std::array<int64_t, 3>{1, 45, 300},
                            {3, 29, 17},
                            {37, 29, 41},
                            {61, 40, 300},
                            {203, 187, 65}}) {
    for (bool tb : {false, true}) {
      for (Bias bias : {Bias::kNone, Bias::kPerRow, Bias::kPerColumn}) {
        for (Activation act :
             {Activation::kNone, Activation::kRelu, Activation::kGeluTanh, Activation::kSilu}) {
          const int64_t m = shape[0], n = shape[1], k = shape[2];
          const int64_t ldb = (tb ? k : n) + 1, ldc = n + 2;
          const auto a = random_values<T>(m * k, seed);
          auto b = random_values<T>((tb ? n : k) * ldb, seed + 1);
          for (T& x : b) x = x * T(4);  // results spread over the activations' interesting range
          const auto c0 = random_values<T>(m * ldc, seed + 2);
          const auto bias_values = random_values<T>(std::max(m, n), seed + 3);
          const Epilogue<T> e{bias, bias_values.data(), act};
          const T alpha = seed % 2 ? T(1) : T(-0.7), beta = seed % 3 ? T(0) : T(0.5);
          const MatrixView<const T> va(a.data(), m, k);
          const MatrixView<const T> vb(b.data(), tb ? n : k, tb ? k : n, ldb);
          const Op ob = tb ? Op::kTrans : Op::kNoTrans;
          for (Context* ctx : {&two, &blocked}) {
            auto expected = c0, got = c0;
            gemm(alpha, Op::kNoTrans, va, ob, vb, beta, MatrixView<T>(expected.data(), m, n, ldc),
                 *ctx);
            unfused(expected, m, n, ldc, e);
            gemm(alpha, Op::kNoTrans, va, ob, vb, beta, MatrixView<T>(got.data(), m, n, ldc), e,
                 *ctx);
            ASSERT_TRUE(same_bits(got, expected))
                << "m=" << m << " n=" << n << " k=" << k << " tb=" << tb
                << " bias=" << static_cast<int>(bias) << " act=" << static_cast<int>(act);
            // Prepacked weights.
            auto packed_got = c0;
            const PackedB packed = pack_b(ob, vb, *ctx);
            gemm(alpha, Op::kNoTrans, va, packed, beta, MatrixView<T>(packed_got.data(), m, n, ldc),
                 e, *ctx);
            ASSERT_TRUE(same_bits(packed_got, expected)) << "prepacked m=" << m;
          }
          ++seed;
        }
      }
    }
  }
}

TYPED_TEST(Fused, AlphaZeroAppliesTheEpilogueToBetaC) {
  using T = TypeParam;
  const int64_t m = 5, n = 6;
  const auto c0 = random_values<T>(m * n, 9);
  const auto bias_values = random_values<T>(n, 10);
  const Epilogue<T> e{Bias::kPerColumn, bias_values.data(), Activation::kSilu};
  auto expected = c0, got = c0;
  for (T& x : expected) x = T(2) * x;
  unfused(expected, m, n, n, e);
  gemm(T(0), Op::kNoTrans, MatrixView<const T>(nullptr, m, 3), Op::kNoTrans,
       MatrixView<const T>(nullptr, 3, n), T(2), MatrixView<T>(got.data(), m, n), e,
       Context::default_context());
  EXPECT_TRUE(same_bits(got, expected));
}

TEST(Activations, CloseToTheFunctionsAndSpecialValues) {
  for (double x = -30; x <= 30; x += 0.01) {
    const double silu = x / (1 + std::exp(-x));
    const double gelu = 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    const float xf = static_cast<float>(x);
    const double silu_f = x == xf ? silu : static_cast<double>(xf) / (1 + std::exp(-double(xf)));
    const double gelu_f =
        0.5 * xf * (1 + std::tanh(0.7978845608028654 * (xf + 0.044715 * double(xf) * xf * xf)));
    EXPECT_NEAR(activate(numeric::Activation::kSilu, x), silu, 1e-14 * (1 + std::fabs(silu))) << x;
    EXPECT_NEAR(activate(numeric::Activation::kGeluTanh, x), gelu, 1e-14 * (1 + std::fabs(gelu)))
        << x;
    EXPECT_NEAR(activate(numeric::Activation::kSilu, xf), silu_f, 2e-6 * (1 + std::fabs(silu_f)))
        << x;
    EXPECT_NEAR(activate(numeric::Activation::kGeluTanh, xf), gelu_f,
                2e-6 * (1 + std::fabs(gelu_f)))
        << x;
  }
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::signbit(activate(numeric::Activation::kRelu, -0.0f)));
  EXPECT_EQ(activate(numeric::Activation::kRelu, -2.0f), 0.0f);
  EXPECT_TRUE(std::isnan(activate(numeric::Activation::kRelu, std::nanf(""))));
  EXPECT_EQ(activate(numeric::Activation::kSilu, inf), inf);
  EXPECT_EQ(activate(numeric::Activation::kSilu, -inf), 0.0f);
  EXPECT_EQ(activate(numeric::Activation::kGeluTanh, inf), inf);
  EXPECT_EQ(activate(numeric::Activation::kGeluTanh, -inf), 0.0f);
  EXPECT_EQ(activate(numeric::Activation::kGeluTanh, -1e30f), 0.0f);
  EXPECT_EQ(activate(numeric::Activation::kSilu, 0.0f), 0.0f);
}

TEST(FusedErrors, BadEpilogueArgumentsLeaveCUntouched) {
  const auto a = random_floats(16, 1), b = random_floats(16, 2), c0 = random_floats(16, 3);
  auto c = c0;
  EXPECT_EQ(
      invar_sgemm_epilogue(INVAR_NO_TRANS, INVAR_NO_TRANS, 4, 4, 4, 1.0f, a.data(), 4, b.data(), 4,
                           0.0f, c.data(), 4, INVAR_BIAS_ROW, nullptr, INVAR_ACT_RELU),
      INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("bias values are NULL"), std::string::npos);
  EXPECT_EQ(
      invar_sgemm_epilogue(INVAR_NO_TRANS, INVAR_NO_TRANS, 4, 4, 4, 1.0f, a.data(), 4, b.data(), 4,
                           0.0f, c.data(), 4, static_cast<invar_bias>(7), a.data(), INVAR_ACT_RELU),
      INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("bias = 7"), std::string::npos);
  EXPECT_EQ(invar_sgemm_epilogue(INVAR_NO_TRANS, INVAR_NO_TRANS, 4, 4, 4, 1.0f, a.data(), 4,
                                 b.data(), 4, 0.0f, c.data(), 4, INVAR_BIAS_NONE, nullptr,
                                 static_cast<invar_activation>(-1)),
            INVAR_EINVAL);
  EXPECT_TRUE(same_bits(c, c0));
  // And a good call through the C API: relu of the product plus a column bias.
  auto expected = c0;
  ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 4, 4, 4, 1.0f, a.data(), 4, b.data(), 4,
                        0.0f, expected.data(), 4),
            INVAR_OK);
  for (int i = 0; i < 16; ++i) {
    const float v = expected[i] + a[i % 4];
    expected[i] = v < 0 ? 0.0f : v;
  }
  ASSERT_EQ(
      invar_sgemm_epilogue(INVAR_NO_TRANS, INVAR_NO_TRANS, 4, 4, 4, 1.0f, a.data(), 4, b.data(), 4,
                           0.0f, c.data(), 4, INVAR_BIAS_COLUMN, a.data(), INVAR_ACT_RELU),
      INVAR_OK);
  EXPECT_TRUE(same_bits(c, expected));
}

// The C entry over a prepacked B: M = 1 (the direct path) and M = 9 (the loop nest), row and
// column bias, each equal to invar_sgemm_packed followed by the scalar epilogue.
TEST(FusedPacked, CEntryEqualsPackedThenEpilogue) {
  const int64_t k = 37, n = 45;
  const auto w = random_floats(n * k, 1), bias = random_floats(n, 2);
  invar_packed* packed = nullptr;
  ASSERT_EQ(invar_sgemm_pack_b(INVAR_TRANS, k, n, w.data(), k, &packed), INVAR_OK);
  for (int64_t m : {1, 9}) {
    const auto x = random_floats(m * k, 3 + m), c0 = random_floats(m * n, 4 + m);
    for (invar_bias b : {INVAR_BIAS_ROW, INVAR_BIAS_COLUMN}) {
      auto expected = c0, got = c0;
      ASSERT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, m, 0.5f, x.data(), k, packed, 1.5f,
                                   expected.data(), n),
                INVAR_OK);
      const Epilogue<float> e{b == INVAR_BIAS_ROW ? Bias::kPerRow : Bias::kPerColumn, bias.data(),
                              Activation::kGeluTanh};
      unfused(expected, m, n, n, e);
      ASSERT_EQ(invar_sgemm_packed_epilogue(INVAR_NO_TRANS, m, 0.5f, x.data(), k, packed, 1.5f,
                                            got.data(), n, b, bias.data(), INVAR_ACT_GELU_TANH),
                INVAR_OK);
      EXPECT_TRUE(same_bits(got, expected)) << "m = " << m << ", bias " << b;
    }
  }
  // Bad epilogue arguments are refused before C is touched.
  auto c = random_floats(n, 9);
  const auto c0 = c;
  const auto x = random_floats(k, 10);
  EXPECT_EQ(invar_sgemm_packed_epilogue(INVAR_NO_TRANS, 1, 1.0f, x.data(), k, packed, 0.0f,
                                        c.data(), n, INVAR_BIAS_ROW, nullptr, INVAR_ACT_RELU),
            INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("bias values are NULL"), std::string::npos);
  EXPECT_TRUE(same_bits(c, c0));
  invar_packed_free(packed);
  // And in double precision.
  const auto wd = random_values<double>(n * k, 11), xd = random_values<double>(3 * k, 12);
  ASSERT_EQ(invar_dgemm_pack_b(INVAR_TRANS, k, n, wd.data(), k, &packed), INVAR_OK);
  std::vector<double> expected(3 * n), got(3 * n);
  ASSERT_EQ(
      invar_dgemm_packed(INVAR_NO_TRANS, 3, 1.0, xd.data(), k, packed, 0.0, expected.data(), n),
      INVAR_OK);
  unfused(expected, 3, n, n, Epilogue<double>{Bias::kNone, nullptr, Activation::kSilu});
  ASSERT_EQ(invar_dgemm_packed_epilogue(INVAR_NO_TRANS, 3, 1.0, xd.data(), k, packed, 0.0,
                                        got.data(), n, INVAR_BIAS_NONE, nullptr, INVAR_ACT_SILU),
            INVAR_OK);
  EXPECT_TRUE(same_bits(got, expected));
  invar_packed_free(packed);
}

}  // namespace
}  // namespace invar::test

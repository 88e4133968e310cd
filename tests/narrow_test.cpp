// bf16 and f16 inputs: the conversions (exhaustively over every 16-bit pattern), then products
// whose f32 result equals invar_sgemm on the widened operands bit for bit, and whose 16-bit result
// is that, from beta * C widened, rounded once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "invar/invar.h"
#include "invar/invar.hpp"
#include "numeric/half.h"
#include "testing/seeded_data.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace invar::test {
namespace {

using numeric::f32_to_bits;
using numeric::round_to_bf16;
using numeric::round_to_f16;
using numeric::widen;

bool is_nan16(f16 h) { return (h.bits & 0x7C00) == 0x7C00 && (h.bits & 0x3FF) != 0; }
bool is_nan16(bf16 h) { return (h.bits & 0x7F80) == 0x7F80 && (h.bits & 0x7F) != 0; }

template <class H>
void every_pattern_round_trips_and_midpoints_round_to_even() {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const H h{static_cast<uint16_t>(bits)};
    const float f = widen(h);
    if (is_nan16(h)) {
      ASSERT_TRUE(std::isnan(f)) << bits;
      const H back = std::is_same_v<H, f16> ? H{round_to_f16(f).bits} : H{round_to_bf16(f).bits};
      ASSERT_TRUE(is_nan16(back)) << bits;
      ASSERT_EQ(back.bits & 0x8000, h.bits & 0x8000) << bits;
      continue;
    }
    auto round = [](float x) -> uint16_t {
      if constexpr (std::is_same_v<H, f16>)
        return round_to_f16(x).bits;
      else
        return round_to_bf16(x).bits;
    };
    ASSERT_EQ(round(f), bits) << "round trip of " << bits;
    // The midpoint to the next pattern up in magnitude (both finite): ties go to the even one,
    // anything above or below it to the nearer one.
    const H up{static_cast<uint16_t>(bits + 1)};
    if ((bits & 0x7FFF) == 0x7FFF || std::isinf(f) || is_nan16(up) || std::isinf(widen(up)))
      continue;
    const double mid = (static_cast<double>(f) + static_cast<double>(widen(up))) / 2;
    const float midf = static_cast<float>(mid);
    ASSERT_EQ(static_cast<double>(midf), mid) << "midpoint not exact in f32: " << bits;
    ASSERT_EQ(round(midf), (bits & 1) ? up.bits : bits) << "tie at " << bits;
    const float above =
        std::nextafter(midf, f < 0 || (f == 0 && std::signbit(f)) ? -INFINITY : INFINITY);
    const float below =
        std::nextafter(midf, f < 0 || (f == 0 && std::signbit(f)) ? INFINITY : -INFINITY);
    ASSERT_EQ(round(above), up.bits) << "above the tie at " << bits;
    ASSERT_EQ(round(below), bits) << "below the tie at " << bits;
  }
}

TEST(Half, Bf16EveryPattern) { every_pattern_round_trips_and_midpoints_round_to_even<bf16>(); }
TEST(Half, F16EveryPattern) { every_pattern_round_trips_and_midpoints_round_to_even<f16>(); }

TEST(Half, OverflowAndUnderflow) {
  EXPECT_EQ(round_to_f16(65504.0f).bits, 0x7BFF);
  EXPECT_EQ(round_to_f16(65519.99f).bits, 0x7BFF);
  EXPECT_EQ(round_to_f16(65520.0f).bits, 0x7C00);  // the tie above the largest rounds to inf
  EXPECT_EQ(round_to_f16(-1e30f).bits, 0xFC00);
  EXPECT_EQ(round_to_f16(std::ldexp(1.0f, -25)).bits, 0x0000);  // tie with zero: even
  EXPECT_EQ(round_to_f16(std::nextafter(std::ldexp(1.0f, -25), 1.0f)).bits, 0x0001);
  EXPECT_EQ(round_to_f16(-std::ldexp(1.0f, -30)).bits, 0x8000);
  EXPECT_EQ(round_to_bf16(std::numeric_limits<float>::max()).bits, 0x7F80);  // rounds to inf
  EXPECT_EQ(round_to_bf16(std::numeric_limits<float>::denorm_min()).bits, 0x0000);
}

#if defined(__x86_64__)
__attribute__((target("f16c"))) uint16_t hardware_f16(float x) {
  return static_cast<uint16_t>(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("f16c"))) float hardware_widen(uint16_t h) { return _cvtsh_ss(h); }

// The portable code against the processor's own conversions, where it has them.
TEST(Half, F16AgreesWithTheHardware) {
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "no F16C";
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const float soft = widen(f16{static_cast<uint16_t>(bits)}), hard = hardware_widen(bits);
    ASSERT_EQ(f32_to_bits(soft), f32_to_bits(hard)) << bits;
  }
  Rng rng(7);
  for (int i = 0; i < 2000000; ++i) {
    const uint32_t u = static_cast<uint32_t>(rng.next());
    float x;
    std::memcpy(&x, &u, sizeof x);
    const uint16_t soft = round_to_f16(x).bits, hard = hardware_f16(x);
    if (std::isnan(x)) {
      ASSERT_TRUE(is_nan16(f16{soft}) && is_nan16(f16{hard})) << u;
    } else {
      ASSERT_EQ(soft, hard) << "f32 bits " << u;
    }
  }
}
#endif

template <class H>
H to_narrow(float x) {
  if constexpr (std::is_same_v<H, f16>)
    return round_to_f16(x);
  else
    return round_to_bf16(x);
}

// Random 16-bit values (f32 values in [-1, 1) rounded), some f16 subnormals among them.
template <class H>
std::vector<H> random_narrow(std::size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<H> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    float x = rng.symmetric();
    if (i % 17 == 5) x = std::ldexp(x, -16);
    v[i] = to_narrow<H>(x);
  }
  return v;
}

template <class H>
std::vector<float> widened(const std::vector<H>& v) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = widen(v[i]);
  return out;
}

template <class H>
class Narrow : public ::testing::Test {};
using NarrowTypes = ::testing::Types<bf16, f16>;
TYPED_TEST_SUITE(Narrow, NarrowTypes);

TYPED_TEST(Narrow, EqualsSgemmOnTheWidenedOperands) {
  using H = TypeParam;
  uint64_t seed = 1;
  for (int threads : {1, 2}) {
    ContextOptions o;
    o.num_threads = threads;
    Context context(o);
    o.mc = 12;
    o.kc = 5;
    o.nc = 32;
    Context blocked(o);
    for (Context* ctx : {&context, &blocked}) {
      for (const auto& shape : {std::array<int64_t, 3>{1, 37, 19},
                                {4, 17, 300},
                                {37, 29, 41},
                                {70, 130, 150},
                                {203, 187, 301}}) {
        const int64_t m = shape[0], n = shape[1], k = shape[2];
        const bool ta = seed % 2, tb = seed % 3 == 0;
        const float alpha = seed % 4 ? 1.0f : -0.3f;
        const float beta = seed % 3 == 0 ? 0.0f : seed % 3 == 1 ? 1.0f : 3.7f;
        const int64_t lda = (ta ? m : k) + 1, ldb = (tb ? k : n) + 2, ldc = n + 3;
        const auto a = random_narrow<H>((ta ? k : m) * lda, seed * 5);
        const auto b = random_narrow<H>((tb ? n : k) * ldb, seed * 5 + 1);
        const auto c0 = random_narrow<H>(m * ldc, seed * 5 + 2);
        const auto wa = widened(a), wb = widened(b);
        const MatrixView<const H> va(a.data(), ta ? k : m, ta ? m : k, lda);
        const MatrixView<const H> vb(b.data(), tb ? n : k, tb ? k : n, ldb);
        const Op oa = ta ? Op::kTrans : Op::kNoTrans, ob = tb ? Op::kTrans : Op::kNoTrans;

        // f32 C: the widened product.
        std::vector<float> expected = widened(c0), got = expected;
        gemm(alpha, oa, MatrixView<const float>(wa.data(), ta ? k : m, ta ? m : k, lda), ob,
             MatrixView<const float>(wb.data(), tb ? n : k, tb ? k : n, ldb), beta,
             MatrixView<float>(expected.data(), m, n, ldc), *ctx);
        gemm(alpha, oa, va, ob, vb, beta, MatrixView<float>(got.data(), m, n, ldc), *ctx);
        ASSERT_TRUE(same_bits(got, expected)) << "f32 C, m=" << m << " n=" << n << " k=" << k;

        // 16-bit C: the same from C widened, each result rounded once.
        std::vector<H> narrow = c0;
        gemm(alpha, oa, va, ob, vb, beta, MatrixView<H>(narrow.data(), m, n, ldc), *ctx);
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < ldc; ++j) {
            const uint16_t want =
                j < n ? to_narrow<H>(expected[i * ldc + j]).bits : c0[i * ldc + j].bits;
            ASSERT_EQ(narrow[i * ldc + j].bits, want)
                << "16-bit C at " << i << "," << j << " m=" << m << " n=" << n << " k=" << k;
          }
        }
        ++seed;
      }
    }
  }
}

TEST(NarrowApi, SpecialCasesAndErrors) {
  const int64_t m = 5, n = 7, k = 3;
  std::vector<bf16> a(m * k, bf16{0x3F80}), b(k * n, bf16{0x3F80});
  std::vector<bf16> c(m * n, bf16{0x7FC1});  // NaN: never read when beta == 0
  ASSERT_EQ(invar_gemm_bf16bf16bf16(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 0.0f, nullptr, k,
                                    nullptr, n, 0.0f, c.data(), n),
            INVAR_OK);
  for (bf16 x : c) ASSERT_EQ(x.bits, 0);
  ASSERT_EQ(invar_gemm_bf16bf16bf16(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a.data(), k,
                                    b.data(), n, 0.0f, c.data(), n),
            INVAR_OK);
  for (bf16 x : c) ASSERT_EQ(x.bits, 0x4040);  // 3.0
  std::vector<f16> h(m * n, f16{0x3C00});
  const auto h0 = h;
  std::vector<f16> ha(m * k), hb(k * n);
  EXPECT_EQ(invar_gemm_f16f16f16(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, ha.data(), 2,
                                 hb.data(), n, 0.0f, h.data(), n),
            INVAR_EINVAL);
  const std::string message = invar_last_error();
  EXPECT_NE(message.find("invar_gemm_f16f16f16"), std::string::npos) << message;
  EXPECT_NE(message.find("lda = 2"), std::string::npos) << message;
  EXPECT_EQ(std::memcmp(h.data(), h0.data(), h.size() * sizeof(f16)), 0);
  std::vector<float> cf(m * n, 1.0f);
  EXPECT_EQ(invar_gemm_f16f16f32(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, ha.data(), k,
                                 nullptr, n, 0.0f, cf.data(), n),
            INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("b is NULL"), std::string::npos);
}

}  // namespace
}  // namespace invar::test

// The bf16 dot-product kernel (kernels/bf16_dot.h): its check at detection, its bits against
// invar_sgemm on the widened operands with the kernel on and off, and the guard that sends
// products with a risk of subnormals to the widened path.
#include "kernels/bf16_dot.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "api/context_impl.h"
#include "arch/cpu_features.h"
#include "invar/invar.hpp"
#include "numeric/half.h"
#include "pack/pack.h"
#include "testing/seeded_data.h"

#if INVAR_TEST_HAVE_AVX512_BF16
#include "kernels/avx512/bf16/bf16.h"
#endif

namespace invar {
namespace {

using test::Rng;
using test::same_bits;

const float kOneAlpha = 1.0f;

// A 64-byte aligned buffer of n values (packed B panels are read with aligned loads).
struct Aligned {
  explicit Aligned(std::size_t n)
      : p(static_cast<uint16_t*>(std::aligned_alloc(64, (n * 2 + 63) / 64 * 64))) {}
  ~Aligned() { std::free(p); }
  uint16_t* p;
};

float widen_bits(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// The instruction as measured: the odd element, then the even one, one fma each.
void chain_lanes(int64_t lanes, const uint16_t* a, const uint16_t* b, const float* acc,
                 float* out) {
  for (int64_t l = 0; l < lanes; ++l) {
    const float first = std::fma(widen_bits(a[2 * l + 1]), widen_bits(b[2 * l + 1]), acc[l]);
    out[l] = std::fma(widen_bits(a[2 * l]), widen_bits(b[2 * l]), first);
  }
}

// Wrong instructions the check must reject: the even element first; both products summed
// exactly and rounded once (AMX's tdpbf16ps is of this family); one bit off in one lane.
void even_first_lanes(int64_t lanes, const uint16_t* a, const uint16_t* b, const float* acc,
                      float* out) {
  for (int64_t l = 0; l < lanes; ++l) {
    const float first = std::fma(widen_bits(a[2 * l]), widen_bits(b[2 * l]), acc[l]);
    out[l] = std::fma(widen_bits(a[2 * l + 1]), widen_bits(b[2 * l + 1]), first);
  }
}
void fused_pair_lanes(int64_t lanes, const uint16_t* a, const uint16_t* b, const float* acc,
                      float* out) {
  for (int64_t l = 0; l < lanes; ++l) {
    const double sum = static_cast<double>(widen_bits(a[2 * l + 1])) * widen_bits(b[2 * l + 1]) +
                       static_cast<double>(widen_bits(a[2 * l])) * widen_bits(b[2 * l]);
    out[l] = static_cast<float>(sum + acc[l]);
  }
}
void one_lane_off(int64_t lanes, const uint16_t* a, const uint16_t* b, const float* acc,
                  float* out) {
  chain_lanes(lanes, a, b, acc, out);
  uint32_t u;
  std::memcpy(&u, &out[lanes / 2], sizeof u);
  u ^= 1;
  std::memcpy(&out[lanes / 2], &u, sizeof u);
}

TEST(Bf16DotCheck, AcceptsTheChainAndRejectsEverythingElse) {
  const kernels::Bf16DotCheck good = kernels::bf16_dot_check(&chain_lanes);
  EXPECT_TRUE(good.passed) << good.detail;
  EXPECT_GT(good.lanes, 4000);
  for (kernels::Bf16DotLanesFn wrong : {&even_first_lanes, &fused_pair_lanes, &one_lane_off}) {
    const kernels::Bf16DotCheck bad = kernels::bf16_dot_check(wrong);
    EXPECT_FALSE(bad.passed);
    EXPECT_NE(bad.detail.find("lane "), std::string::npos) << bad.detail;
  }
}

bool cpu_runs_the_dot_kernel() {
#if INVAR_TEST_HAVE_AVX512_BF16
  return arch::cpu_features().avx512_bf16;
#else
  return false;
#endif
}

TEST(Bf16DotCheck, TheInstructionPassesWhereTheCpuHasIt) {
  const kernels::Bf16DotStatus& status = kernels::bf16_dot_status();
  if (!cpu_runs_the_dot_kernel()) {
    EXPECT_EQ(status.kernel, nullptr);
    GTEST_SKIP() << "no AVX512_BF16 kernel here: " << status.reason;
  }
#if INVAR_TEST_HAVE_AVX512_BF16
  const kernels::Bf16DotCheck check =
      kernels::bf16_dot_check(&kernels::avx512::sbgemm_avx512bf16_lanes);
  // Intel Xeons with AVX512_BF16 were measured to pass; a CPU that fails must not use the kernel.
  EXPECT_EQ(status.kernel != nullptr, check.passed) << check.detail;
  EXPECT_TRUE(check.passed) << check.detail;
#endif
}

// The detection gives the kernel only over an instruction that passes the check: the same
// detection as the library's, with a wrong instruction standing in for vdpbf16ps.
TEST(Bf16DotCheck, DetectionRefusesTheKernelOverAnInstructionThatFailsTheCheck) {
  if (!cpu_runs_the_dot_kernel()) GTEST_SKIP() << kernels::bf16_dot_status().reason;
  for (kernels::Bf16DotLanesFn wrong : {&even_first_lanes, &fused_pair_lanes, &one_lane_off}) {
    const kernels::Bf16DotStatus refused = kernels::bf16_dot_detect(wrong);
    EXPECT_EQ(refused.kernel, nullptr);
    EXPECT_FALSE(refused.faster);
    EXPECT_NE(refused.reason.find("differs from the chain"), std::string::npos) << refused.reason;
  }
  const kernels::Bf16DotStatus given = kernels::bf16_dot_detect(&chain_lanes);
  EXPECT_EQ(given.kernel, kernels::bf16_dot_status().kernel) << given.reason;
  EXPECT_NE(given.kernel, nullptr) << given.reason;
}

// The pair panels hold step 2q in the high half of each 32-bit lane and step 2q + 1 in the low
// half (the instruction adds the high half first, so k goes before k + 1 as in the chain), an
// odd last step alone, missing rows and columns zero; A's sign bit flipped for alpha -1 but a
// NaN's. Every layout the packers special-case: row-major and transposed sources.
TEST(Bf16DotPanels, StepKInTheHighHalfThenStepKPlusOne) {
  constexpr int kMr = 12, kNr = 32;
  const uint16_t kNan = 0x7fc1;
  for (int64_t kc : {1, 2, 5, 8}) {
    // B: kc x nc, one whole panel and a partial one.
    const int64_t nc = kNr + 5;
    std::vector<uint16_t> b(kc * nc);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint16_t>(0x3f80 + i);
    for (bool transposed : {false, true}) {
      const int64_t rs = transposed ? 1 : nc, cs = transposed ? kc : 1;
      std::vector<uint16_t> src(kc * nc);
      for (int64_t p = 0; p < kc; ++p)
        for (int64_t j = 0; j < nc; ++j) src[p * rs + j * cs] = b[p * nc + j];
      std::vector<uint16_t> got(2 * kNr * kc + 7, 0xdead);
      pack::pack_b_bf16_pairs<kNr>(kc, nc, src.data(), rs, cs, got.data());
      for (int64_t panel = 0; panel < 2; ++panel)
        for (int64_t p = 0; p < kc; ++p)
          for (int64_t l = 0; l < kNr; ++l) {
            const int64_t j = panel * kNr + l;
            const uint16_t want = j < nc ? b[p * nc + j] : 0;
            const int64_t at =
                panel * kNr * kc +
                (p + 1 < kc || p % 2 == 1 ? (p / 2 * 2) * kNr + 2 * l + (p % 2 == 0) : p * kNr + l);
            ASSERT_EQ(got[at], want) << "B kc=" << kc << " step " << p << " column " << j
                                     << " transposed=" << transposed;
          }
      EXPECT_EQ(got[2 * kNr * kc], 0xdead) << "written past the panels";
    }
    // A: mc x kc, one whole panel and a partial one, alpha 1 and -1.
    const int64_t mc = kMr + 3;
    std::vector<uint16_t> a(mc * kc);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint16_t>(0x4000 + i);
    a[1] = kNan;
    for (bool transposed : {false, true})
      for (bool negate : {false, true}) {
        const int64_t rs = transposed ? 1 : kc, cs = transposed ? mc : 1;
        std::vector<uint16_t> src(mc * kc);
        for (int64_t i = 0; i < mc; ++i)
          for (int64_t p = 0; p < kc; ++p) src[i * rs + p * cs] = a[i * kc + p];
        std::vector<uint16_t> got(2 * kMr * kc + 7, 0xdead);
        pack::pack_a_bf16_pairs<kMr>(mc, kc, src.data(), rs, cs, negate, got.data());
        for (int64_t panel = 0; panel < 2; ++panel)
          for (int64_t p = 0; p < kc; ++p)
            for (int64_t l = 0; l < kMr; ++l) {
              const int64_t i = panel * kMr + l;
              uint16_t want = i < mc ? a[i * kc + p] : 0;
              if (negate && i < mc && want != kNan) want ^= 0x8000;
              const int64_t at = panel * kMr * kc + (p + 1 < kc || p % 2 == 1
                                                         ? (p / 2 * 2) * kMr + 2 * l + (p % 2 == 0)
                                                         : p * kMr + l);
              ASSERT_EQ(got[at], want) << "A kc=" << kc << " step " << p << " row " << i
                                       << " transposed=" << transposed << " negate=" << negate;
            }
        EXPECT_EQ(got[2 * kMr * kc], 0xdead) << "written past the panels";
      }
  }
}

TEST(Bf16DotCheck, EnvironmentSwitch) {
  ASSERT_EQ(setenv("INVAR_BF16_DOT", "sometimes", 1), 0);
  EXPECT_THROW(Context{}, InvalidArgument);
  ASSERT_EQ(setenv("INVAR_BF16_DOT", "off", 1), 0);
  {
    Context off;
    EXPECT_EQ(off.impl().sbgemm_dot, nullptr);
    EXPECT_NE(off.impl().sbgemm_dot_reason.find("INVAR_BF16_DOT=off"), std::string::npos);
  }
  ASSERT_EQ(setenv("INVAR_BF16_DOT", "on", 1), 0);
  ContextOptions generic;
  generic.isa = Isa::kGeneric;
  EXPECT_THROW(Context{generic}, Unsupported);
  ContextOptions avx512;  // explicit: the suite also runs under INVAR_ISA=generic and avx2
  avx512.isa = Isa::kAvx512;
  if (kernels::bf16_dot_status().kernel != nullptr) {
    Context on(avx512);
    EXPECT_EQ(on.impl().sbgemm_dot, kernels::bf16_dot_status().kernel);
    ASSERT_EQ(unsetenv("INVAR_BF16_DOT"), 0);
    Context automatic(avx512);  // the kernel where it is the faster path
    EXPECT_EQ(automatic.impl().sbgemm_dot != nullptr, kernels::bf16_dot_status().faster)
        << kernels::bf16_dot_status().reason;
  } else if (kernels::cpu_supports(Isa::kAvx512)) {
    EXPECT_THROW(Context{avx512}, Unsupported);
  }
  ASSERT_EQ(unsetenv("INVAR_BF16_DOT"), 0);
}

std::vector<bf16> random_bf16(std::size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<bf16> v(n);
  for (auto& x : v) x = numeric::round_to_bf16(rng.symmetric());
  return v;
}

std::vector<float> widened(const std::vector<bf16>& v) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = numeric::widen(v[i]);
  return out;
}

// A context whose bf16 products take the dot kernel where they may (`on`), or never.
std::unique_ptr<Context> context_with(bool on, const ContextOptions& o) {
  auto c = std::make_unique<Context>(o);
  c->impl().sbgemm_dot = on ? kernels::bf16_dot_status().kernel : nullptr;
  return c;
}

struct Problem {
  int64_t m, n, k;
  bool ta, tb;
  float alpha, beta;
};

// Runs `p` on bf16 operands a and b with C from c0 in context `ctx`, f32 C and bf16 C, and
// checks both against invar's f32 product of the widened operands (bits, and untouched padding).
void expect_sgemm_bits(const Problem& p, const std::vector<bf16>& a, const std::vector<bf16>& b,
                       const std::vector<bf16>& c0, Context& ctx, Context& f32_ctx) {
  const int64_t m = p.m, n = p.n, k = p.k;
  const int64_t lda = (p.ta ? m : k) + 1, ldb = (p.tb ? k : n) + 2, ldc = n + 3;
  const auto wa = widened(a), wb = widened(b);
  const Op oa = p.ta ? Op::kTrans : Op::kNoTrans, ob = p.tb ? Op::kTrans : Op::kNoTrans;
  const int64_t ar = p.ta ? k : m, ac = p.ta ? m : k, br = p.tb ? n : k, bc = p.tb ? k : n;
  std::vector<float> expected = widened(c0), got = expected;
  gemm(p.alpha, oa, MatrixView<const float>(wa.data(), ar, ac, lda), ob,
       MatrixView<const float>(wb.data(), br, bc, ldb), p.beta,
       MatrixView<float>(expected.data(), m, n, ldc), f32_ctx);
  const MatrixView<const bf16> va(a.data(), ar, ac, lda), vb(b.data(), br, bc, ldb);
  gemm(p.alpha, oa, va, ob, vb, p.beta, MatrixView<float>(got.data(), m, n, ldc), ctx);
  ASSERT_TRUE(same_bits(got, expected))
      << "f32 C, m=" << m << " n=" << n << " k=" << k << " ta=" << p.ta << " tb=" << p.tb
      << " alpha=" << p.alpha << " beta=" << p.beta << " first difference at "
      << test::first_difference(got.data(), expected.data(), got.size());
  std::vector<bf16> narrow = c0;
  gemm(p.alpha, oa, va, ob, vb, p.beta, MatrixView<bf16>(narrow.data(), m, n, ldc), ctx);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      const uint16_t want =
          j < n ? numeric::round_to_bf16(expected[i * ldc + j]).bits : c0[i * ldc + j].bits;
      ASSERT_EQ(narrow[i * ldc + j].bits, want) << "bf16 C at " << i << "," << j;
    }
}

// Every path the planner takes for bf16 operands, with the dot kernel on and off, equals
// invar_sgemm on the widened operands: shapes around the tile's edges and odd K, both
// transposes, alpha +-1 (the dot kernel) and others (the widened path), every kind of beta,
// whole and forced small blocks (odd KC rounds up to a pair), one and two threads.
TEST(Bf16Dot, EqualsSgemmOnTheWidenedOperandsOnAndOff) {
  const bool have = kernels::bf16_dot_status().kernel != nullptr;
  uint64_t seed = 11;
  for (int threads : {1, 2}) {
    ContextOptions o;
    o.num_threads = threads;
    ContextOptions blocked = o;
    blocked.mc = 24;
    blocked.kc = 7;
    blocked.nc = 64;
    Context f32_ctx(o);
    for (const ContextOptions& opts : {o, blocked}) {
      for (bool on : {true, false}) {
        auto ctx = context_with(on, opts);
        if (on && cpu_runs_the_dot_kernel()) ASSERT_TRUE(have);
        for (const auto& s : std::array<std::array<int64_t, 3>, 9>{{{1, 1, 1},
                                                                    {1, 33, 7},
                                                                    {4, 64, 64},
                                                                    {11, 31, 2},
                                                                    {12, 32, 16},
                                                                    {13, 33, 17},
                                                                    {25, 65, 129},
                                                                    {37, 97, 300},
                                                                    {130, 70, 211}}}) {
          for (float alpha : {1.0f, -1.0f, 0.5f}) {
            const float beta = seed % 4 == 0   ? 0.0f
                               : seed % 4 == 1 ? 1.0f
                               : seed % 4 == 2 ? -1.0f
                                               : 3.7f;
            const Problem p{s[0], s[1], s[2], seed % 2 == 1, seed % 3 == 0, alpha, beta};
            const int64_t lda = (p.ta ? p.m : p.k) + 1, ldb = (p.tb ? p.k : p.n) + 2;
            const auto a = random_bf16((p.ta ? p.k : p.m) * lda, seed * 3);
            const auto b = random_bf16((p.tb ? p.n : p.k) * ldb, seed * 3 + 1);
            const auto c0 = random_bf16(p.m * (p.n + 3), seed * 3 + 2);
            if (have && (alpha == 1.0f || alpha == -1.0f)) {
              // These operands meet the guard, so with the kernel on it is what runs.
              ASSERT_TRUE(kernels::sbgemm_dot_applies(alpha, p.m, p.n, p.k, a.data(),
                                                      p.ta ? 1 : lda, p.ta ? lda : 1, b.data(),
                                                      p.tb ? 1 : ldb, p.tb ? ldb : 1));
            }
            expect_sgemm_bits(p, a, b, c0, *ctx, f32_ctx);
            if (HasFatalFailure()) return;
            ++seed;
          }
        }
      }
    }
  }
}

// Signed zeros, infinities and NaNs through the whole kernel: -0 products into -0 starts (the
// case an odd-K padding of +0 would get wrong), inf - inf, NaN operands.
TEST(Bf16Dot, SignedZerosAndSpecialsEqualSgemm) {
  auto on = context_with(true, {});
  Context f32_ctx;
  for (int64_t k : {1, 2, 3, 5, 8}) {
    const int64_t m = 13, n = 33;
    std::vector<bf16> a(m * (k + 1)), b(k * (n + 2)), c0(m * (n + 3));
    Rng rng(static_cast<uint64_t>(k));
    const uint16_t values[] = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc1, 0x4000};
    for (auto& x : a) x.bits = values[rng.below(4)];  // zeros and +-1 mostly
    for (auto& x : b) x.bits = values[rng.below(2)];  // +-0
    for (auto& x : c0) x.bits = values[rng.below(2)];
    for (float alpha : {1.0f, -1.0f})
      for (float beta : {0.0f, 1.0f, -1.0f}) {
        const Problem p{m, n, k, false, false, alpha, beta};
        expect_sgemm_bits(p, a, b, c0, *on, f32_ctx);
      }
    for (auto& x : a) x.bits = values[rng.below(8)];
    for (auto& x : b) x.bits = values[rng.below(8)];
    for (float alpha : {1.0f, -1.0f}) {
      const Problem p{m, n, k, false, false, alpha, 1.0f};
      expect_sgemm_bits(p, a, b, c0, *on, f32_ctx);
    }
  }
}

// bf16 with an exponent e (unbiased) and a fraction.
bf16 bf(int sign, int e, int fraction) {
  return bf16{static_cast<uint16_t>((sign << 15) | ((e + 127) << 7) | fraction)};
}

// Operands whose chains pass through subnormals: exponents -60 and -70 give products near
// 2^-130. The guard must send them to the widened path; the dot kernel itself, run directly,
// flushes them (so this data tells the two apart: the test could fail).
TEST(Bf16Dot, NearSubnormalOperandsTakeTheWidenedPath) {
  if (kernels::bf16_dot_status().kernel == nullptr)
    GTEST_SKIP() << kernels::bf16_dot_status().reason;
  const int64_t m = 24, n = 64, k = 9;
  std::vector<bf16> a(m * k), b(k * n);
  Rng rng(5);
  for (auto& x : a) x = bf(static_cast<int>(rng.below(2)), -60, static_cast<int>(rng.below(128)));
  for (auto& x : b) x = bf(static_cast<int>(rng.below(2)), -70, static_cast<int>(rng.below(128)));
  EXPECT_FALSE(kernels::sbgemm_dot_applies(1.0f, m, n, k, a.data(), k, 1, b.data(), n, 1));
  // One step up and the guard lets them through: -59 + -53 = -112.
  std::vector<bf16> a2 = a, b2 = b;
  for (auto& x : a2) x.bits = static_cast<uint16_t>(x.bits + (1 << 7));
  for (auto& x : b2) x.bits = static_cast<uint16_t>(x.bits + (17 << 7));
  EXPECT_TRUE(kernels::sbgemm_dot_applies(1.0f, m, n, k, a2.data(), k, 1, b2.data(), n, 1));
  // Transposed storage is scanned too; a single subnormal anywhere fails the guard.
  a2[m * k - 1] = bf16{0x0001};
  EXPECT_FALSE(kernels::sbgemm_dot_applies(-1.0f, m, n, k, a2.data(), k, 1, b2.data(), n, 1));
  const std::vector<bf16> b3(m * n, b2[0]);  // op(B) of the transposed call: m x n
  EXPECT_FALSE(kernels::sbgemm_dot_applies(1.0f, k, n, m, a2.data(), 1, k, b3.data(), n, 1));
  EXPECT_FALSE(kernels::sbgemm_dot_applies(0.5f, m, n, k, a.data(), k, 1, b2.data(), n, 1));
  // A subnormal operand fails whatever the other: with every |b| >= 2^15 the exponents would add
  // up to more than -112, but a * b is normal (2^-133 * 2^15) and the instruction reads a as 0.
  std::vector<bf16> big(k * n);
  for (auto& x : big) x = bf(static_cast<int>(rng.below(2)), 15, static_cast<int>(rng.below(128)));
  std::vector<bf16> tiny = a2;  // normal, exponents >= -59, and one subnormal
  EXPECT_FALSE(kernels::sbgemm_dot_applies(1.0f, m, n, k, tiny.data(), k, 1, big.data(), n, 1));
  std::vector<bf16> big_a(m * k);
  for (auto& x : big_a) x = bf(0, 15, static_cast<int>(rng.below(128)));
  std::vector<bf16> tiny_b = b2;
  tiny_b[k * n - 1] = bf16{0x8001};
  EXPECT_FALSE(kernels::sbgemm_dot_applies(1.0f, m, n, k, big_a.data(), k, 1, tiny_b.data(), n, 1));
  tiny_b[k * n - 1] = b2[0];
  EXPECT_TRUE(kernels::sbgemm_dot_applies(1.0f, m, n, k, big_a.data(), k, 1, tiny_b.data(), n, 1));

  auto on = context_with(true, {});
  Context f32_ctx;
  // The same values with expect_sgemm_bits's leading dimensions (k + 1, n + 2).
  std::vector<bf16> a_ld(m * (k + 1)), b_ld(k * (n + 2));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) a_ld[i * (k + 1) + p] = a[i * k + p];
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) b_ld[p * (n + 2) + j] = b[p * n + j];
  const std::vector<bf16> c0(m * (n + 3));
  for (float beta : {0.0f, 1.0f})
    expect_sgemm_bits({m, n, k, false, false, 1.0f, beta}, a_ld, b_ld, c0, *on, f32_ctx);

  // The kernel on these operands, run through the driver as if the guard had let them pass:
  // different bits (flushed), which is why the guard exists.
  const auto wa = widened(a), wb = widened(b);
  std::vector<float> want(m * n), flushed(m * n);
  gemm(1.0f, Op::kNoTrans, MatrixView<const float>(wa.data(), m, k), Op::kNoTrans,
       MatrixView<const float>(wb.data(), k, n), 0.0f, MatrixView<float>(want.data(), m, n),
       f32_ctx);
#if INVAR_TEST_HAVE_AVX512_BF16
  const kernels::GemmKernel& dot = *kernels::bf16_dot_status().kernel;
  Aligned ap(m * k), bp(k * n);
  for (int64_t r = 0; r < m; r += dot.mr)
    dot.pack_a(dot.mr, k, a.data() + r * k, k, 1, &kOneAlpha, ap.p + r * k);
  for (int64_t c = 0; c < n; c += dot.nr) dot.pack_b(k, dot.nr, b.data() + c, n, 1, bp.p + c * k);
  const float zero = 0.0f;
  for (int64_t r = 0; r < m; r += dot.mr)
    for (int64_t c = 0; c < n; c += dot.nr)
      dot.ukernel(k, ap.p + r * k, bp.p + c * k, flushed.data() + r * n + c, n,
                  kernels::AccInit::kZero, &kOneAlpha, &zero);
  EXPECT_FALSE(same_bits(flushed, want)) << "the data does not reach the subnormals";
#endif
}

// A start of beta * C that is normal but not a multiple of 2^-126 (exponent -112 < -103): the
// products (-2^-112, allowed by the operand guard) cancel it down to a subnormal, which the
// instruction flushes. The kernel sees the start and runs that tile with one fma per step.
TEST(Bf16Dot, StartsBelowTwoToMinus103TakeTheFmaChain) {
  if (kernels::bf16_dot_status().kernel == nullptr)
    GTEST_SKIP() << kernels::bf16_dot_status().reason;
  const int64_t m = 12, n = 32, k = 2;
  std::vector<bf16> a(m * k, bf(0, -56, 0)), b(k * n, bf(1, -56, 0));
  for (int64_t j = 0; j < n; ++j) b[n + j] = bf16{0x0000};  // step 1: +0 products
  ASSERT_TRUE(kernels::sbgemm_dot_applies(1.0f, m, n, k, a.data(), k, 1, b.data(), n, 1));
  const float start = std::ldexp(1.0f, -112) + std::ldexp(1.0f, -135);
  std::vector<float> got(m * n, start), want = got;
  const auto wa = widened(a), wb = widened(b);
  Context f32_ctx;
  gemm(1.0f, Op::kNoTrans, MatrixView<const float>(wa.data(), m, k), Op::kNoTrans,
       MatrixView<const float>(wb.data(), k, n), 1.0f, MatrixView<float>(want.data(), m, n),
       f32_ctx);
  EXPECT_EQ(want[0], std::ldexp(1.0f, -135));  // a subnormal
  auto on = context_with(true, {});
  gemm(1.0f, Op::kNoTrans, MatrixView<const bf16>(a.data(), m, k), Op::kNoTrans,
       MatrixView<const bf16>(b.data(), k, n), 1.0f, MatrixView<float>(got.data(), m, n), *on);
  EXPECT_TRUE(same_bits(got, want));
#if INVAR_TEST_HAVE_AVX512_BF16
  // The instruction alone on one such lane flushes: the data tells the two apart.
  std::vector<uint16_t> pa(32), pb(32);
  for (int l = 0; l < 16; ++l) {
    pa[2 * l + 1] = a[0].bits, pa[2 * l] = a[1].bits;
    pb[2 * l + 1] = b[0].bits, pb[2 * l] = b[n].bits;
  }
  std::vector<float> acc(16, start), out(16);
  kernels::avx512::sbgemm_avx512bf16_lanes(16, pa.data(), pb.data(), acc.data(), out.data());
  EXPECT_NE(out[0], want[0]);
#endif
}

#if defined(__x86_64__)
// A caller whose thread flushes subnormals (FTZ and DAZ set): the dot kernel's products, the
// widened path it falls back to and its tiles' fma chains all keep the contract's bits, and the
// caller's mode comes back.
TEST(Bf16Dot, CallerFlushingSubnormalsChangesNothing) {
  if (kernels::bf16_dot_status().kernel == nullptr)
    GTEST_SKIP() << kernels::bf16_dot_status().reason;
  const int64_t m = 13, n = 33, k = 9;
  std::vector<bf16> a(m * (k + 1)), b(k * (n + 2)), c0(m * (n + 3));
  Rng rng(9);
  for (auto& x : a) x = bf(static_cast<int>(rng.below(2)), -60, static_cast<int>(rng.below(128)));
  for (auto& x : b) x = bf(static_cast<int>(rng.below(2)), -70, static_cast<int>(rng.below(128)));
  const auto ok_a = random_bf16(a.size(), 1), ok_b = random_bf16(b.size(), 2);
  auto on = context_with(true, {});
  Context f32_ctx;
  struct Flushing {  // FTZ and DAZ on this thread, the previous mode back on every exit
    const unsigned saved = _mm_getcsr();
    Flushing() { _mm_setcsr(saved | 0x8040); }
    ~Flushing() { _mm_setcsr(saved); }
  } const flushing;
  expect_sgemm_bits({m, n, k, false, false, 1.0f, 0.0f}, a, b, c0, *on, f32_ctx);
  expect_sgemm_bits({m, n, k, false, false, -1.0f, 1.0f}, ok_a, ok_b, c0, *on, f32_ctx);
  EXPECT_EQ(_mm_getcsr(), flushing.saved | 0x8040);
}
#endif

}  // namespace
}  // namespace invar

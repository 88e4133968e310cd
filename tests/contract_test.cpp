// The special cases and error handling of the contract, through the C API.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "invar/invar.h"
#include "support/guarded_buffer.h"
#include "testing/reference.h"
#include "testing/seeded_data.h"

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace invar::test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<float> nan_filled(std::size_t n) { return std::vector<float>(n, kNaN); }

bool all_bits(const std::vector<float>& v, float x) {
  for (float y : v)
    if (std::memcmp(&x, &y, sizeof x) != 0) return false;
  return true;
}

TEST(Contract, BetaZeroNeverReadsNaNInC) {
  const int64_t m = 13, n = 21, k = 17;
  auto a = random_floats(m * k, 1), b = random_floats(k * n, 2);
  auto c = nan_filled(m * n);
  std::vector<float> expected(m * n, 0.0f);
  reference_gemm<float>(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                        expected.data(), n);
  ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 1.0f, a.data(), k, b.data(), n,
                        0.0f, c.data(), n),
            INVAR_OK);
  EXPECT_TRUE(same_bits(c, expected));
}

TEST(Contract, KZeroScalesCAndReadsNothing) {
  const int64_t m = 5, n = 7;
  auto c0 = random_floats(m * n, 3);
  for (float beta : {0.0f, 1.0f, -1.0f, 2.5f}) {
    auto c = c0;
    auto expected = c0;
    for (float& x : expected) x = beta == 0.0f ? 0.0f : (beta == 1.0f ? x : beta * x);
    ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_TRANS, m, n, 0, 1.0f, nullptr, 0, nullptr, 0, beta,
                          c.data(), n),
              INVAR_OK)
        << invar_last_error();
    EXPECT_TRUE(same_bits(c, expected)) << "beta=" << beta;
  }
  auto c = nan_filled(m * n);
  ASSERT_EQ(invar_sgemm(INVAR_TRANS, INVAR_NO_TRANS, m, n, 0, 1.0f, nullptr, 0, nullptr, 0, 0.0f,
                        c.data(), n),
            INVAR_OK);
  EXPECT_TRUE(all_bits(c, 0.0f));
}

TEST(Contract, AlphaZeroNeverReadsAOrB) {
  const int64_t m = 6, n = 9, k = 11;
  auto c0 = random_floats(m * n, 4);
  auto c = c0;
  // NULL operands: any read would crash.
  ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 0.0f, nullptr, k, nullptr, n, 1.0f,
                        c.data(), n),
            INVAR_OK)
      << invar_last_error();
  EXPECT_TRUE(same_bits(c, c0));
  ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 0.0f, nullptr, k, nullptr, n, 2.0f,
                        c.data(), n),
            INVAR_OK);
  auto expected = c0;
  for (float& x : expected) x = 2.0f * x;
  EXPECT_TRUE(same_bits(c, expected));
}

TEST(Contract, BetaOneWithNothingToAddNeverWritesC) {
  // C lives on read-only pages: "untouched" must mean not written at all, not C = 1 * C.
  const int64_t m = 5, n = 7, k = 3;
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* mem = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  float* c = static_cast<float*>(mem);
  const auto c0 = random_floats(m * n, 14);
  std::memcpy(c, c0.data(), c0.size() * sizeof(float));
  ASSERT_EQ(mprotect(mem, page, PROT_READ), 0);
  const auto a = random_floats(m * k, 15), b = random_floats(k * n, 16);
  EXPECT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, 0, 1.0f, nullptr, 0, nullptr, 0, 1.0f,
                        c, n),
            INVAR_OK);
  EXPECT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 0.0f, a.data(), k, b.data(), n,
                        1.0f, c, n),
            INVAR_OK);
  EXPECT_EQ(std::memcmp(c, c0.data(), c0.size() * sizeof(float)), 0);
  munmap(mem, page);
}

TEST(Contract, AlphaZeroBetaZeroOverNaNWritesPositiveZeros) {
  const int64_t m = 4, n = 9, k = 6;
  auto c = nan_filled(m * n);
  ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 0.0f, nullptr, k, nullptr, n, 0.0f,
                        c.data(), n),
            INVAR_OK);
  EXPECT_TRUE(all_bits(c, 0.0f));
}

TEST(Contract, EmptyProductsTouchNothing) {
  EXPECT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 0, 5, 3, 1.0f, nullptr, 3, nullptr, 5, 0.0f,
                        nullptr, 5),
            INVAR_OK);
  EXPECT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 5, 0, 3, 1.0f, nullptr, 0, nullptr, 0, 0.0f,
                        nullptr, 0),
            INVAR_OK);
  EXPECT_STREQ(invar_last_error(), "");
}

struct BadCall {
  const char* what;  // text the message must contain
  int ta, tb;
  int64_t m, n, k, lda, ldb, ldc;
  bool null_a, null_b, null_c;
};

TEST(Contract, InvalidArgumentsLeaveCUntouched) {
  const BadCall calls[] = {
      {"ta", 2, 0, 4, 4, 4, 4, 4, 4, false, false, false},
      {"tb", 0, -1, 4, 4, 4, 4, 4, 4, false, false, false},
      {"m = -1", 0, 0, -1, 4, 4, 4, 4, 4, false, false, false},
      {"n = -2", 0, 0, 4, -2, 4, 4, 4, 4, false, false, false},
      {"k = -3", 0, 0, 4, 4, -3, 4, 4, 4, false, false, false},
      {"lda = 3 is smaller than k = 4", 0, 0, 4, 4, 4, 3, 4, 4, false, false, false},
      {"lda = 2 is smaller than m = 4", 1, 0, 4, 4, 4, 2, 4, 4, false, false, false},
      {"ldb = 3 is smaller than n = 4", 0, 0, 4, 4, 4, 4, 3, 4, false, false, false},
      {"ldb = 1 is smaller than k = 4", 0, 1, 4, 4, 4, 4, 1, 4, false, false, false},
      {"ldc = 3 is smaller than n = 4", 0, 0, 4, 4, 4, 4, 4, 3, false, false, false},
      {"a is NULL", 0, 0, 4, 4, 4, 4, 4, 4, true, false, false},
      {"b is NULL", 0, 0, 4, 4, 4, 4, 4, 4, false, true, false},
      {"c is NULL", 0, 0, 4, 4, 4, 4, 4, 4, false, false, true},
  };
  auto a = random_floats(64, 5), b = random_floats(64, 6);
  const auto c0 = random_floats(64, 7);
  for (const BadCall& bad : calls) {
    auto c = c0;
    const invar_status s = invar_sgemm(
        static_cast<invar_trans>(bad.ta), static_cast<invar_trans>(bad.tb), bad.m, bad.n, bad.k,
        1.0f, bad.null_a ? nullptr : a.data(), bad.lda, bad.null_b ? nullptr : b.data(), bad.ldb,
        0.0f, bad.null_c ? nullptr : c.data(), bad.ldc);
    EXPECT_EQ(s, INVAR_EINVAL) << bad.what;
    const std::string message = invar_last_error();
    EXPECT_NE(message.find("invar_sgemm"), std::string::npos) << message;
    EXPECT_NE(message.find(bad.what), std::string::npos) << message;
    EXPECT_TRUE(same_bits(c, c0)) << bad.what;
  }
  // A later successful call clears the message.
  auto c = c0;
  ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 4, 4, 4, 1.0f, a.data(), 4, b.data(), 4,
                        0.0f, c.data(), 4),
            INVAR_OK);
  EXPECT_STREQ(invar_last_error(), "");
}

// invar_sgemm and invar_dgemm over tiny products of every row count to 17, each layout, alpha
// and beta: the tiny lane's kernel calls (the direct kernel, the small path's tiles, the planned
// ones) give the reference's bits and leave C's padding alone.
template <class T>
void tiny_products_match_the_reference() {
  const auto gemm = [](bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                       int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
    const invar_trans oa = ta ? INVAR_TRANS : INVAR_NO_TRANS,
                      ob = tb ? INVAR_TRANS : INVAR_NO_TRANS;
    if constexpr (sizeof(T) == 4)
      return invar_sgemm(oa, ob, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    else
      return invar_dgemm(oa, ob, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  };
  uint64_t seed = 300;
  for (int64_t m = 1; m <= 17; ++m) {
    for (auto [n, k] : {std::pair<int64_t, int64_t>{1, 1}, {3, 5}, {8, 8}, {17, 9}, {32, 32}}) {
      for (int trans = 0; trans < 4; ++trans) {
        const bool ta = trans & 1, tb = trans & 2;
        for (T alpha : {T(1), T(0.3)}) {
          for (T beta : {T(0), T(1), T(-3.7)}) {
            const int64_t ldc = n + 3;
            const auto a = random_values<T>(m * k, seed++), b = random_values<T>(k * n, seed++);
            auto c = random_values<T>(m * ldc, seed++);
            auto expected = c;
            reference_gemm<T>(ta, tb, m, n, k, alpha, a.data(), ta ? m : k, b.data(), tb ? k : n,
                              beta, expected.data(), ldc);
            ASSERT_EQ(gemm(ta, tb, m, n, k, alpha, a.data(), ta ? m : k, b.data(), tb ? k : n, beta,
                           c.data(), ldc),
                      INVAR_OK);
            ASSERT_TRUE(same_bits(c, expected)) << m << " x " << n << " x " << k << " trans "
                                                << trans << " alpha " << alpha << " beta " << beta;
          }
        }
      }
    }
  }
}
TEST(Contract, TinyProductsOfEveryRowCountMatchTheReference) {
  tiny_products_match_the_reference<float>();
}
TEST(ContractF64, TinyProductsOfEveryRowCountMatchTheReference) {
  tiny_products_match_the_reference<double>();
}

// invar_dgemm: the same contract over doubles, through the same validation.
TEST(ContractF64, CApiMatchesTheReferenceAndItsSpecialCases) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const int64_t m = 19, n = 23, k = 29;
  uint64_t seed = 100;
  for (int trans = 0; trans < 4; ++trans) {
    const bool ta = trans & 1, tb = trans & 2;
    for (double beta : {0.0, 1.0, -3.7}) {
      const auto a = random_doubles(m * k, seed++), b = random_doubles(k * n, seed++);
      auto c = random_doubles(m * n, seed++);
      if (beta == 0.0) c.assign(c.size(), nan);  // never read
      auto expected = c;
      reference_gemm<double>(ta, tb, m, n, k, 0.3, a.data(), ta ? m : k, b.data(), tb ? k : n, beta,
                             expected.data(), n);
      ASSERT_EQ(
          invar_dgemm(ta ? INVAR_TRANS : INVAR_NO_TRANS, tb ? INVAR_TRANS : INVAR_NO_TRANS, m, n, k,
                      0.3, a.data(), ta ? m : k, b.data(), tb ? k : n, beta, c.data(), n),
          INVAR_OK);
      ASSERT_TRUE(same_bits(c, expected)) << "trans=" << trans << " beta=" << beta;
    }
  }
  // alpha == 0 and K == 0 read neither A nor B; beta == 0 writes +0 over NaN.
  std::vector<double> c(m * n, nan);
  ASSERT_EQ(invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 0.0, nullptr, k, nullptr, n, 0.0,
                        c.data(), n),
            INVAR_OK);
  const double zero = 0.0;
  for (double x : c) ASSERT_EQ(std::memcmp(&x, &zero, sizeof x), 0);
  auto scaled = random_doubles(m * n, seed++);
  auto expected = scaled;
  for (double& x : expected) x = 2.5 * x;
  ASSERT_EQ(invar_dgemm(INVAR_TRANS, INVAR_NO_TRANS, m, n, 0, 1.0, nullptr, 0, nullptr, 0, 2.5,
                        scaled.data(), n),
            INVAR_OK);
  EXPECT_TRUE(same_bits(scaled, expected));
}

TEST(ContractF64, InvalidArgumentsNameTheFunctionAndLeaveCUntouched) {
  const auto a = random_doubles(64, 5), b = random_doubles(64, 6);
  const auto c0 = random_doubles(64, 7);
  struct Bad {
    const char* what;
    int64_t m, lda;
    bool null_b;
  };
  for (const Bad& bad :
       {Bad{"m = -1", -1, 4, false}, Bad{"lda = 3 is smaller than k = 4", 4, 3, false},
        Bad{"b is NULL", 4, 4, true}}) {
    auto c = c0;
    EXPECT_EQ(invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, bad.m, 4, 4, 1.0, a.data(), bad.lda,
                          bad.null_b ? nullptr : b.data(), 4, 0.0, c.data(), 4),
              INVAR_EINVAL);
    const std::string message = invar_last_error();
    EXPECT_NE(message.find("invar_dgemm"), std::string::npos) << message;
    EXPECT_NE(message.find(bad.what), std::string::npos) << message;
    EXPECT_TRUE(same_bits(c, c0)) << bad.what;
  }
}

TEST(Contract, OperandsEndingAtAnUnmappedPageAreNotOverread) {
  // Each operand's last element is the last byte before a PROT_NONE page.
  for (int trans = 0; trans < 4; ++trans) {
    const bool ta = trans & 1, tb = trans & 2;
    const int64_t m = 23, n = 19, k = 29;
    const int64_t lda = ta ? m : k, ldb = tb ? k : n;
    GuardedBuffer<float> a(m * k), b(k * n), c(m * n);
    const auto av = random_floats(m * k, 8), bv = random_floats(k * n, 9);
    std::memcpy(a.data(), av.data(), av.size() * 4);
    std::memcpy(b.data(), bv.data(), bv.size() * 4);
    std::vector<float> expected(m * n, 0.0f);
    std::memset(c.data(), 0, m * n * 4);
    reference_gemm<float>(ta, tb, m, n, k, 1.0f, av.data(), lda, bv.data(), ldb, 0.0f,
                          expected.data(), n);
    ASSERT_EQ(invar_sgemm(ta ? INVAR_TRANS : INVAR_NO_TRANS, tb ? INVAR_TRANS : INVAR_NO_TRANS, m,
                          n, k, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, c.data(), n),
              INVAR_OK);
    EXPECT_EQ(std::memcmp(c.data(), expected.data(), m * n * 4), 0);
  }
}

TEST(Contract, SubnormalsAndRoundingIgnoreTheCallersMode) {
  // Inputs whose products and sums are subnormal: FTZ/DAZ or another rounding mode would change
  // the bits. The reference runs in the default environment.
  const int64_t m = 9, n = 17, k = 33;
  auto a = random_floats(m * k, 10), b = random_floats(k * n, 11);
  for (float& x : a) x *= 1e-20f;
  for (float& x : b) x *= 1e-19f;
  a[0] = 1e-40f;  // a subnormal input
  std::vector<float> expected(m * n, 0.0f), c(m * n, 0.0f);
  reference_gemm<float>(false, false, m, n, k, 3.7f, a.data(), k, b.data(), n, 0.0f,
                        expected.data(), n);
  int subnormals = 0;
  for (float x : expected) subnormals += std::fpclassify(x) == FP_SUBNORMAL;
  ASSERT_GT(subnormals, 0) << "the data must exercise subnormal results";
#if defined(__x86_64__)
  const unsigned saved = _mm_getcsr();
  // FTZ, DAZ and round-toward-zero.
  const unsigned hostile = (saved & ~(3u << 13)) | (1u << 15) | (1u << 6) | (3u << 13);
  _mm_setcsr(hostile);
  const invar_status s = invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 3.7f, a.data(), k,
                                     b.data(), n, 0.0f, c.data(), n);
  const unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  ASSERT_EQ(s, INVAR_OK);
  EXPECT_EQ(after & 0xFFC0u, hostile & 0xFFC0u) << "the caller's MXCSR control bits are restored";
#else
  ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, k, 3.7f, a.data(), k, b.data(), n,
                        0.0f, c.data(), n),
            INVAR_OK);
#endif
  EXPECT_TRUE(same_bits(c, expected));
}

#if defined(__x86_64__)
TEST(Contract, CallersTrapsAndFlagsStayOutside) {
  // The caller unmasks the invalid-operation trap. Infinities in B meet the zero padding of the
  // packed tiles (0 * inf is invalid), on a threaded product whose workers were started by this
  // caller: no trap may fire, the result is the reference's, and the caller's MXCSR, flags
  // included, is what it was.
  const int64_t m = 67, n = 301, k = 129;
  auto a = random_floats(m * k, 12), b = random_floats(n * k, 13);
  b[5] = std::numeric_limits<float>::infinity();
  std::vector<float> expected(m * n, 0.0f), c(m * n, 0.0f);
  reference_gemm<float>(false, true, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, expected.data(),
                        n);
  invar_set_num_threads(2);
  const unsigned saved = _mm_getcsr();
  const unsigned hostile = (saved & ~0x3Fu) & ~(1u << 7);  // no flags, invalid unmasked
  _mm_setcsr(hostile);
  const invar_status s = invar_sgemm(INVAR_NO_TRANS, INVAR_TRANS, m, n, k, 1.0f, a.data(), k,
                                     b.data(), k, 0.0f, c.data(), n);
  const unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  invar_set_num_threads(0);
  ASSERT_EQ(s, INVAR_OK);
  EXPECT_EQ(after, hostile);
  EXPECT_EQ(std::memcmp(c.data(), expected.data(), c.size() * 4), 0);
}

TEST(Contract, CallerAlreadyInTheContractsModeGetsItsFlagsBack) {
  // A caller already in the contract's mode (control bits 0x1F80): the flags the products raise
  // (inexact, at least) must not reach it, and the flags it had must stay. Direct-path and
  // packed-path sizes, one and two threads.
  const unsigned saved = _mm_getcsr();
  for (unsigned caller_flags : {0u, 0x20u /* inexact */}) {
    for (int64_t size : {4, 97}) {
      for (int threads : {1, 2}) {
        auto a = random_floats(size * size, 14), b = random_floats(size * size, 15);
        std::vector<float> c(size * size, 0.0f);
        invar_set_num_threads(threads);
        const unsigned before = 0x1F80u | caller_flags;
        _mm_setcsr(before);
        const invar_status s = invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, size, size, size, 0.3f,
                                           a.data(), size, b.data(), size, 0.0f, c.data(), size);
        const unsigned after = _mm_getcsr();
        _mm_setcsr(saved);
        invar_set_num_threads(0);
        ASSERT_EQ(s, INVAR_OK);
        EXPECT_EQ(after, before) << "size " << size << ", " << threads << " thread(s)";
      }
    }
  }
}
#endif

TEST(Contract, VersionAndIsaAreReported) {
  EXPECT_NE(std::string(invar_version()).find('.'), std::string::npos);
  ASSERT_NE(invar_isa(), nullptr) << invar_last_error();
  EXPECT_GT(invar_set_num_threads(0), 0);
}

}  // namespace
}  // namespace invar::test

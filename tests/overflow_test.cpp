// Extents whose memory no address can span: sizes, leading dimensions and batch strides near the
// int64 limits. Every such call returns INVAR_EINVAL with a message naming the function and the
// argument, before touching anything: the operands are small buffers against guard pages, so a
// call that reads or writes them as if they were that large faults, and C stays as it was.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "invar/invar.h"
#include "support/guarded_buffer.h"

namespace invar::test {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t k2p40 = int64_t{1} << 40, k2p61 = int64_t{1} << 61, k2p62 = int64_t{1} << 62;

// 64 elements of each operand, C filled with a pattern, all against guard pages.
template <class T>
struct Small {
  GuardedBuffer<T> a{64}, b{64}, c{64};
  std::vector<unsigned char> c0;
  Small() {
    for (std::size_t i = 0; i < 64; ++i) {
      std::memset(&a.data()[i], 0x11, sizeof(T));
      std::memset(&b.data()[i], 0x22, sizeof(T));
      std::memset(&c.data()[i], static_cast<int>(0x30 + i % 7), sizeof(T));
    }
    c0.assign(reinterpret_cast<unsigned char*>(c.data()),
              reinterpret_cast<unsigned char*>(c.data()) + 64 * sizeof(T));
  }
  bool c_untouched() { return std::memcmp(c.data(), c0.data(), c0.size()) == 0; }
};

// The status is INVAR_EINVAL, the message starts with `function` (once) and names `argument`
// ("extent": any of the sizes and leading dimensions, when all of them are out of range).
::testing::AssertionResult refused(invar_status s, const char* function,
                                   const std::string& argument) {
  const std::string msg = invar_last_error();
  if (s != INVAR_EINVAL)
    return ::testing::AssertionFailure() << "status " << s << " (" << msg << ")";
  const std::string prefix = std::string(function) + ": ";
  if (msg.rfind(prefix, 0) != 0 || msg.find(prefix, prefix.size()) != std::string::npos)
    return ::testing::AssertionFailure()
           << "\"" << msg << "\" does not name " << function << " once";
  bool named = msg.find(argument) != std::string::npos;
  if (argument == "extent")
    for (const char* name : {"lda", "ldb", "ldc", "m = ", "n = ", "k = "})
      named = named || msg.find(name, prefix.size()) != std::string::npos;
  if (!named)
    return ::testing::AssertionFailure() << "\"" << msg << "\" does not name " << argument;
  return ::testing::AssertionSuccess();
}

TEST(Overflow, HugeExtentsWithAlphaZeroAreRefused) {
  // alpha == 0, beta == 2: only C would be touched, all 2^80 elements of it.
  Small<float> f;
  EXPECT_TRUE(refused(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, k2p40, k2p40, k2p40, 0.0f,
                                  f.a.data(), k2p40, f.b.data(), k2p40, 2.0f, f.c.data(), k2p40),
                      "invar_sgemm", "extent"));
  EXPECT_TRUE(f.c_untouched());
  Small<double> d;
  EXPECT_TRUE(refused(invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, k2p40, k2p40, k2p40, 0.0,
                                  d.a.data(), k2p40, d.b.data(), k2p40, 2.0, d.c.data(), k2p40),
                      "invar_dgemm", "extent"));
  EXPECT_TRUE(d.c_untouched());
  Small<invar_bf16> h;
  EXPECT_TRUE(refused(
      invar_gemm_bf16bf16bf16(INVAR_NO_TRANS, INVAR_NO_TRANS, k2p40, k2p40, k2p40, 0.0f, h.a.data(),
                              k2p40, h.b.data(), k2p40, 2.0f, h.c.data(), k2p40),
      "invar_gemm_bf16bf16bf16", "extent"));
  EXPECT_TRUE(h.c_untouched());
  Small<int32_t> i;
  EXPECT_TRUE(refused(
      invar_gemm_s8s8s32(INVAR_NO_TRANS, INVAR_NO_TRANS, k2p40, k2p40, k2p40, 0,
                         reinterpret_cast<const int8_t*>(i.a.data()), k2p40,
                         reinterpret_cast<const int8_t*>(i.b.data()), k2p40, 2, i.c.data(), k2p40),
      "invar_gemm_s8s8s32", "extent"));
  EXPECT_TRUE(i.c_untouched());
}

TEST(Overflow, Int64MaxExtentsAreRefused) {
  Small<float> f;
  EXPECT_TRUE(refused(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, kMax, kMax, kMax, 1.0f,
                                  f.a.data(), kMax, f.b.data(), kMax, 0.0f, f.c.data(), kMax),
                      "invar_sgemm", "extent"));
  EXPECT_TRUE(refused(invar_sgemm_epilogue(INVAR_NO_TRANS, INVAR_NO_TRANS, kMax, kMax, kMax, 1.0f,
                                           f.a.data(), kMax, f.b.data(), kMax, 0.0f, f.c.data(),
                                           kMax, INVAR_BIAS_NONE, nullptr, INVAR_ACT_RELU),
                      "invar_sgemm_epilogue", "extent"));
  EXPECT_TRUE(f.c_untouched());
}

TEST(Overflow, LeadingDimensionsThatWrapAreRefused) {
  // m = n = k = 2 with ld = 2^62: 2^62 floats are 2^64 bytes, so row 1 would land on row 0.
  Small<float> f;
  EXPECT_TRUE(refused(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1.0f, f.a.data(), 2,
                                  f.b.data(), 2, 0.0f, f.c.data(), k2p62),
                      "invar_sgemm", "ldc"));
  EXPECT_TRUE(refused(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1.0f, f.a.data(), k2p62,
                                  f.b.data(), 2, 0.0f, f.c.data(), 2),
                      "invar_sgemm", "lda"));
  EXPECT_TRUE(refused(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1.0f, f.a.data(), 2,
                                  f.b.data(), k2p62, 0.0f, f.c.data(), 2),
                      "invar_sgemm", "ldb"));
  EXPECT_TRUE(f.c_untouched());
  Small<double> d;
  EXPECT_TRUE(refused(invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1.0, d.a.data(), 2,
                                  d.b.data(), 2, 0.0, d.c.data(), k2p61),
                      "invar_dgemm", "ldc"));
  EXPECT_TRUE(d.c_untouched());
  Small<invar_f16> h;
  EXPECT_TRUE(refused(
      invar_gemm_f16f16f32(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1.0f, h.a.data(), 2, h.b.data(),
                           2, 0.0f, reinterpret_cast<float*>(h.c.data()), k2p62),
      "invar_gemm_f16f16f32", "ldc"));
  EXPECT_TRUE(h.c_untouched());
  Small<int32_t> i;
  EXPECT_TRUE(refused(
      invar_gemm_u8s8s32(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1,
                         reinterpret_cast<const uint8_t*>(i.a.data()), 2,
                         reinterpret_cast<const int8_t*>(i.b.data()), 2, 0, i.c.data(), k2p62),
      "invar_gemm_u8s8s32", "ldc"));
  EXPECT_TRUE(i.c_untouched());
  // Through a packed B, and packing such a B.
  float w[4] = {1, 2, 3, 4};
  invar_packed* packed = nullptr;
  ASSERT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, 2, 2, w, 2, &packed), INVAR_OK);
  EXPECT_TRUE(refused(
      invar_sgemm_packed(INVAR_NO_TRANS, 2, 1.0f, f.a.data(), 2, packed, 0.0f, f.c.data(), k2p62),
      "invar_sgemm_packed", "ldc"));
  invar_packed_free(packed);
  invar_packed* never = nullptr;
  EXPECT_TRUE(refused(invar_sgemm_pack_b(INVAR_NO_TRANS, 2, 2, f.b.data(), k2p62, &never),
                      "invar_sgemm_pack_b", "ldb"));
  EXPECT_EQ(never, nullptr);
  EXPECT_TRUE(f.c_untouched());
}

// A leading dimension only steps between rows, so with one row of an operand any value is valid
// (as in BLAS, ld >= the row's length is all that is asked), however large: the product equals
// the one with compact operands, bit for bit, and nothing along the way forms an address from
// ld times a row count (UBSan, under the sanitizer builds, and the guard pages check that).
template <class T, class F>
void one_row_operands_with_huge_leading_dimensions(F gemm) {
  Small<T> f, g;
  for (int64_t ld : {int64_t{64}, k2p40, k2p61, kMax / 3, kMax}) {
    SCOPED_TRACE(ld);
    // A is 4 x 1 (lda steps between its rows: compact), B is 1 x 16 with ldb = ld.
    ASSERT_EQ(gemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 4, 16, 1, f.a.data(), 1, f.b.data(), ld,
                   f.c.data(), 16),
              INVAR_OK)
        << invar_last_error();
    // A is 1 x 16 with lda = ld, B is 16 x 4 (compact).
    ASSERT_EQ(gemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 1, 4, 16, f.a.data(), ld, f.b.data(), 4,
                   f.c.data() + 48, 4),
              INVAR_OK)
        << invar_last_error();
  }
  ASSERT_EQ(
      gemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 4, 16, 1, g.a.data(), 1, g.b.data(), 16, g.c.data(), 16),
      INVAR_OK);
  ASSERT_EQ(gemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 1, 4, 16, g.a.data(), 16, g.b.data(), 4,
                 g.c.data() + 48, 4),
            INVAR_OK);
  EXPECT_EQ(std::memcmp(f.c.data(), g.c.data(), 64 * sizeof(T)), 0);
  EXPECT_FALSE(g.c_untouched());
}

TEST(Overflow, OneRowOperandsTakeAnyLeadingDimension) {
  one_row_operands_with_huge_leading_dimensions<float>(
      [](invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, const float* a,
         int64_t lda, const float* b, int64_t ldb, float* c,
         int64_t ldc) { return invar_sgemm(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc); });
  one_row_operands_with_huge_leading_dimensions<double>(
      [](invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, const double* a,
         int64_t lda, const double* b, int64_t ldb, double* c,
         int64_t ldc) { return invar_dgemm(ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc); });
}

// 13 x 40 x 1 (A compact, C rows n apart) with B's one row ldb apart: one call (count 0), or a
// strided batch of `count` entries sharing B.
template <class T>
invar_status one_row_b_product(const T* a, const T* b, int64_t ldb, T* c, int64_t count) {
  constexpr int64_t m = 13, n = 40;
  if constexpr (std::is_same_v<T, float>) {
    return count == 0 ? invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, 1, 1.0f, a, 1, b, ldb,
                                    0.0f, c, n)
                      : invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, 1, 1.0f, a,
                                                  1, m, b, ldb, 0, 0.0f, c, n, m * n, count);
  } else {
    return count == 0
               ? invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, 1, 1.0, a, 1, b, ldb, 0.0, c, n)
               : invar_dgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, m, n, 1, 1.0, a, 1, m, b,
                                           ldb, 0, 0.0, c, n, m * n, count);
  }
}

// The same over the small path's tiles (more rows than the record form takes over columns wider
// than kFewRowsGroupsMaxBytes): B's one row at any leading dimension, alone and as the entries of
// a strided batch, equal to the compact product.
template <class T>
void one_row_b_over_tiles() {
  constexpr int64_t m = 13, n = 40;
  GuardedBuffer<T> a{2 * m}, b{n}, c{2 * m * n}, want{2 * m * n};
  for (int64_t i = 0; i < 2 * m; ++i) a.data()[i] = T(0.25) * T(i % 5 + 1);
  for (int64_t j = 0; j < n; ++j) b.data()[j] = T(0.5) * T(j % 7 + 1);
  ASSERT_EQ(one_row_b_product(a.data(), b.data(), n, want.data(), 0), INVAR_OK)
      << invar_last_error();
  ASSERT_EQ(one_row_b_product(a.data() + m, b.data(), n, want.data() + m * n, 0), INVAR_OK);
  for (int64_t ld : {int64_t{64}, k2p40, k2p61, kMax / 3, kMax}) {
    SCOPED_TRACE(ld);
    std::memset(c.data(), 0, 2 * m * n * sizeof(T));
    ASSERT_EQ(one_row_b_product(a.data(), b.data(), ld, c.data(), 0), INVAR_OK)
        << invar_last_error();
    EXPECT_EQ(std::memcmp(c.data(), want.data(), m * n * sizeof(T)), 0);
    std::memset(c.data(), 0, 2 * m * n * sizeof(T));
    ASSERT_EQ(one_row_b_product(a.data(), b.data(), ld, c.data(), 2), INVAR_OK)
        << invar_last_error();
    EXPECT_EQ(std::memcmp(c.data(), want.data(), 2 * m * n * sizeof(T)), 0);
  }
}

TEST(Overflow, OneRowBOverTheSmallPathsTiles) {
  one_row_b_over_tiles<float>();
  one_row_b_over_tiles<double>();
}

TEST(Overflow, OneRowSixteenBitOperandsTakeAnyLeadingDimension) {
  // 16-bit operands into an f16 / bf16 C: B's one row is read by the widening kernels, which
  // prefetch rows ahead of the one they read.
  one_row_operands_with_huge_leading_dimensions<invar_f16>(
      [](invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, const invar_f16* a,
         int64_t lda, const invar_f16* b, int64_t ldb, invar_f16* c, int64_t ldc) {
        return invar_gemm_f16f16f16(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
      });
  one_row_operands_with_huge_leading_dimensions<invar_bf16>(
      [](invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, const invar_bf16* a,
         int64_t lda, const invar_bf16* b, int64_t ldb, invar_bf16* c, int64_t ldc) {
        return invar_gemm_bf16bf16bf16(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
      });
}

TEST(Overflow, BatchStridesThatWrapAreRefused) {
  Small<float> f;
  EXPECT_TRUE(
      refused(invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1.0f, f.a.data(),
                                        2, k2p61, f.b.data(), 2, 0, 0.0f, f.c.data(), 2, 4, 3),
              "invar_sgemm_batch_strided", "stride_a"));
  EXPECT_TRUE(
      refused(invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1.0f, f.a.data(),
                                        2, 0, f.b.data(), 2, k2p62, 0.0f, f.c.data(), 2, 4, 3),
              "invar_sgemm_batch_strided", "stride_b"));
  EXPECT_TRUE(
      refused(invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1.0f, f.a.data(),
                                        2, 0, f.b.data(), 2, 0, 0.0f, f.c.data(), 2, k2p61, 3),
              "invar_sgemm_batch_strided", "stride_c"));
  EXPECT_TRUE(
      refused(invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1.0f, f.a.data(),
                                        2, 0, f.b.data(), 2, 0, 0.0f, f.c.data(), 2, kMin, 2),
              "invar_sgemm_batch_strided", "stride_c"));
  EXPECT_TRUE(
      refused(invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 0.0f, f.a.data(),
                                        2, 0, f.b.data(), 2, 0, 0.0f, f.c.data(), 2, kMin, 5),
              "invar_sgemm_batch_strided", "stride_c"));
  EXPECT_TRUE(f.c_untouched());
  Small<double> d;
  EXPECT_TRUE(
      refused(invar_dgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1.0, d.a.data(), 2,
                                        -k2p62, d.b.data(), 2, 0, 0.0, d.c.data(), 2, 4, 3),
              "invar_dgemm_batch_strided", "stride_a"));
  EXPECT_TRUE(d.c_untouched());
  Small<invar_bf16> h;
  EXPECT_TRUE(refused(invar_gemm_bf16bf16bf16_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2,
                                                            1.0f, h.a.data(), 2, 0, h.b.data(), 2,
                                                            0, 0.0f, h.c.data(), 2, k2p62, 2),
                      "invar_gemm_bf16bf16bf16_batch_strided", "stride_c"));
  EXPECT_TRUE(h.c_untouched());
  Small<int32_t> i;
  EXPECT_TRUE(refused(
      invar_gemm_s8s8s32_batch_strided(
          INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1, reinterpret_cast<const int8_t*>(i.a.data()),
          2, k2p62, reinterpret_cast<const int8_t*>(i.b.data()), 2, 0, 0, i.c.data(), 2, 4, 2),
      "invar_gemm_s8s8s32_batch_strided", "stride_a"));
  EXPECT_TRUE(i.c_untouched());
}

// A batch of 2^40 products whose shared arguments are invalid is refused as such, before anything
// is allocated for its entries; so is a negative extent next to a transposed operand.
TEST(Overflow, HugeBatchesWithABadSharedArgumentAreRefusedFirst) {
  Small<float> f;
  const float* a[1] = {f.a.data()};
  const float* b[1] = {f.b.data()};
  float* c[1] = {f.c.data()};
  EXPECT_TRUE(
      refused(invar_sgemm_batch_strided(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1.0f, f.a.data(),
                                        2, 0, f.b.data(), 2, 0, 0.0f, f.c.data(), 1, 4, k2p40),
              "invar_sgemm_batch_strided", "ldc"));
  EXPECT_TRUE(refused(invar_sgemm_batch(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 2, 1.0f, a, 2, b, 2,
                                        0.0f, c, 1, k2p40),
                      "invar_sgemm_batch", "ldc"));
  EXPECT_TRUE(
      refused(invar_sgemm_batch_strided(INVAR_TRANS, INVAR_TRANS, kMin, 4, 3, 1.0f, f.a.data(), 1,
                                        0, f.b.data(), 3, 12, 0.0f, f.c.data(), 4, 0, 2),
              "invar_sgemm_batch_strided", "m = "));
  EXPECT_TRUE(
      refused(invar_sgemm_batch_strided(INVAR_TRANS, INVAR_TRANS, 12, kMin, 10, 1.0f, f.a.data(),
                                        14, 0, f.b.data(), 17, 0, 0.0f, f.c.data(), 1, 0, 3),
              "invar_sgemm_batch_strided", "n = "));
  EXPECT_TRUE(f.c_untouched());
}

}  // namespace
}  // namespace invar::test

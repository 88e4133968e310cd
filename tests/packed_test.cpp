// Prepacked operands. B: the same bits as the unpacked call (and so as the reference) for every
// M, both layouts of B, tile and block edges and thread counts; the decode step over packed
// weights equals the prefill row by row. A (alpha * op(A), alpha applied while packing): the same
// for every N, with B unpacked or prepacked too; one column of a product equals that column of
// the whole. Every misuse is an error that leaves C untouched.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api/context_impl.h"
#include "invar/invar.h"
#include "invar/invar.hpp"
#include "testing/reference.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

template <class T>
class Packed : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Packed, ElementTypes);

template <class T>
const kernels::GemmKernel& kernel_of(Context& context) {
  return kernels::kernel_for<T>(*context.impl().kernels);
}

// Which operands a check packs ahead of time.
enum class Prepacked { kB, kA, kBoth };

// C = alpha * op(A) * op(B) + beta * C through the packed operands, compared with the reference.
template <class T>
std::string check_packed(Context& context, Prepacked which, bool ta, bool tb, int64_t m, int64_t n,
                         int64_t k, T alpha, T beta, uint64_t seed) {
  const int64_t lda = (ta ? m : k) + 1, ldb = (tb ? k : n) + 2, ldc = n + 3;
  const auto a = random_values<T>((ta ? k : m) * lda, seed);
  const auto b = random_values<T>((tb ? n : k) * ldb, seed + 1);
  auto c = random_values<T>(m * ldc, seed + 2);
  auto expected = c;
  reference_gemm<T>(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, expected.data(),
                    ldc);
  const Op op_a = ta ? Op::kTrans : Op::kNoTrans, op_b = tb ? Op::kTrans : Op::kNoTrans;
  const MatrixView<const T> a_view(a.data(), ta ? k : m, ta ? m : k, lda);
  const MatrixView<const T> b_view(b.data(), tb ? n : k, tb ? k : n, ldb);
  const MatrixView<T> c_view(c.data(), m, n, ldc);
  if (which == Prepacked::kB) {
    const PackedB packed = pack_b(op_b, b_view, context);
    if (packed.k() != k || packed.n() != n) return "packed B shape";
    gemm(alpha, op_a, a_view, packed, beta, c_view, context);
  } else {
    const invar::PackedA packed = pack_a(alpha, op_a, a_view, context);
    if (packed.m() != m || packed.k() != k) return "packed A shape";
    if (which == Prepacked::kBoth) {
      gemm(packed, pack_b(op_b, b_view, context), beta, c_view, context);
    } else {
      gemm(packed, op_b, b_view, beta, c_view, context);
    }
  }
  const int64_t at = first_difference(c.data(), expected.data(), c.size());
  if (at < 0) return "";
  const char* what = which == Prepacked::kB ? "B" : which == Prepacked::kA ? "A" : "A and B";
  return std::string(what) + " packed, m=" + std::to_string(m) + " n=" + std::to_string(n) +
         " k=" + std::to_string(k) + " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) +
         ": first difference at " + std::to_string(at);
}

TYPED_TEST(Packed, EqualsTheReferenceForEveryShape) {
  using T = TypeParam;
  Context base;
  const auto& kern = kernel_of<T>(base);
  const int64_t nr = kern.nr, mr = kern.mr;
  uint64_t seed = 1;
  for (int threads : {1, 2, 3}) {
    ContextOptions o;
    o.num_threads = threads;
    Context context(o);
    o.mc = 2 * mr;  // small blocks: several row, column and k-blocks over prepacked panels
    o.kc = 7;
    o.nc = 2 * nr;
    Context blocked(o);
    for (int64_t m :
         {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{4}, int64_t{5}, mr + 1, 3 * mr + 2}) {
      // 9 NR + 5 columns: for m <= 4, runs of several panels at once, then single and partial
      // panels.
      for (int64_t n : {int64_t{1}, nr - 1, nr + 1, 5 * nr + 3, 9 * nr + 5}) {
        for (int64_t k : {1, 8, 29}) {
          const bool ta = seed % 2, tb = seed % 3 == 0;
          const T alpha = seed % 4 ? T(1) : T(-0.3), beta = seed % 5 ? T(0) : T(3.7);
          ASSERT_EQ(check_packed<T>(context, Prepacked::kB, ta, tb, m, n, k, alpha, beta, seed),
                    "");
          ASSERT_EQ(check_packed<T>(blocked, Prepacked::kB, ta, tb, m, n, k, alpha, beta, seed + 7),
                    "");
          ++seed;
        }
      }
    }
  }
}

// Large enough that the API uses two threads: they split the panels (m <= 4) or the rows and
// columns of the loop nest, without barriers between k-blocks.
TYPED_TEST(Packed, TwoThreadsGiveTheSameBits) {
  using T = TypeParam;
  ContextOptions o;
  o.num_threads = 2;
  Context context(o);
  for (int64_t m : {1, 3, 13}) {
    ASSERT_EQ(check_packed<T>(context, Prepacked::kB, false, m % 2 == 1, m, 2003, 2100, T(1), T(0),
                              40 + m),
              "");
  }
}

// The decode step over packed weights: x * W^T for one row equals that row of the prefill.
TYPED_TEST(Packed, DecodeRowEqualsPrefillRow) {
  using T = TypeParam;
  Context context;
  const int64_t k = 257, n = 203, t = 19;
  const auto w = random_values<T>(n * k, 11);  // n x k
  const auto x = random_values<T>(t * k, 12);
  const PackedB packed = pack_b(Op::kTrans, MatrixView<const T>(w.data(), n, k), context);
  std::vector<T> prefill(t * n), unpacked(t * n), step(n);
  gemm(T(1), Op::kNoTrans, MatrixView<const T>(x.data(), t, k), packed, T(0),
       MatrixView<T>(prefill.data(), t, n), context);
  gemm(T(1), Op::kNoTrans, MatrixView<const T>(x.data(), t, k), Op::kTrans,
       MatrixView<const T>(w.data(), n, k), T(0), MatrixView<T>(unpacked.data(), t, n), context);
  ASSERT_TRUE(same_bits(prefill, unpacked));
  for (int64_t r = 0; r < t; ++r) {
    gemm(T(1), Op::kNoTrans, MatrixView<const T>(x.data() + r * k, 1, k), packed, T(0),
         MatrixView<T>(step.data(), 1, n), context);
    ASSERT_EQ(std::memcmp(step.data(), prefill.data() + r * n, n * sizeof(T)), 0) << "row " << r;
  }
}

TYPED_TEST(Packed, ReportsItsSize) {
  using T = TypeParam;
  Context context;
  const int64_t nr = kernel_of<T>(context).nr;
  const auto b = random_values<T>(300 * 41, 3);
  const PackedB packed = pack_b(Op::kNoTrans, MatrixView<const T>(b.data(), 300, 41), context);
  const std::size_t panels_bytes = ((41 + nr - 1) / nr) * nr * 300 * sizeof(T);
  EXPECT_GE(packed.bytes(), panels_bytes);
  EXPECT_LT(packed.bytes(), panels_bytes + 64);
  EXPECT_EQ(packed.is_f64(), sizeof(T) == 8);
}

TEST(PackedErrors, MisuseIsAnErrorAndLeavesCUntouched) {
  const auto b = random_floats(8 * 8, 1), a = random_floats(8 * 8, 2);
  const auto c0 = random_floats(8 * 8, 3);
  auto c = c0;
  invar_packed* packed = nullptr;
  // Packing.
  EXPECT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, -1, 8, b.data(), 8, &packed), INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("k = -1"), std::string::npos);
  EXPECT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, 8, 8, b.data(), 7, &packed), INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("ldb = 7"), std::string::npos);
  EXPECT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, 8, 8, nullptr, 8, &packed), INVAR_EINVAL);
  EXPECT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, 8, 8, b.data(), 8, nullptr), INVAR_EINVAL);
  EXPECT_EQ(packed, nullptr);
  // A good handle, then calls that misuse it.
  ASSERT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, 8, 8, b.data(), 8, &packed), INVAR_OK);
  EXPECT_GE(invar_packed_bytes(packed), 8u * 8u * sizeof(float));
  EXPECT_EQ(invar_packed_bytes(nullptr), 0u);
  EXPECT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, 8, 1.0f, a.data(), 8, nullptr, 0.0f, c.data(), 8),
            INVAR_EINVAL);
  EXPECT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, 8, 1.0f, a.data(), 7, packed, 0.0f, c.data(), 8),
            INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("lda = 7"), std::string::npos);
  EXPECT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, 8, 1.0f, a.data(), 8, packed, 0.0f, c.data(), 7),
            INVAR_EINVAL);
  std::vector<double> cd(64, 1.0);
  const std::vector<double> ad(64, 1.0), cd0 = cd;
  EXPECT_EQ(invar_dgemm_packed(INVAR_NO_TRANS, 8, 1.0, ad.data(), 8, packed, 0.0, cd.data(), 8),
            INVAR_EINVAL);
  EXPECT_EQ(std::string(invar_last_error()),
            "invar_dgemm_packed: b was packed from f32 elements, but this product's B is f64");
  EXPECT_TRUE(same_bits(c, c0));
  EXPECT_TRUE(same_bits(cd, cd0));
  // And a good call agrees with invar_sgemm.
  auto expected = c0;
  ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 8, 8, 8, 0.3f, a.data(), 8, b.data(), 8,
                        -1.5f, expected.data(), 8),
            INVAR_OK);
  ASSERT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, 8, 0.3f, a.data(), 8, packed, -1.5f, c.data(), 8),
            INVAR_OK);
  EXPECT_TRUE(same_bits(c, expected));
  invar_packed_free(packed);
  invar_packed_free(nullptr);
}

TEST(PackedErrors, HandleOfAnotherPathIsRefused) {
  ContextOptions o;
  o.isa = Isa::kGeneric;
  Context generic(o);
  Context best;
  if (best.isa() == Isa::kGeneric) GTEST_SKIP() << "only the generic path on this machine";
  const auto b = random_floats(16 * 16, 1), a = random_floats(16 * 16, 2);
  const auto c0 = random_floats(16 * 16, 3);
  auto c = c0;
  const PackedB packed = pack_b(Op::kNoTrans, MatrixView<const float>(b.data(), 16, 16), generic);
  try {
    gemm(1.0f, Op::kNoTrans, MatrixView<const float>(a.data(), 16, 16), packed, 0.0f,
         MatrixView<float>(c.data(), 16, 16), best);
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("sgemm_generic"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(same_bits(c, c0));
  EXPECT_THROW(gemm(1.0f, Op::kNoTrans, MatrixView<const float>(a.data(), 16, 15), packed, 0.0f,
                    MatrixView<float>(c.data(), 16, 16), generic),
               InvalidArgument);
}

// ---- prepacked A ----------------------------------------------------------------------------

template <class T>
class PackedA : public ::testing::Test {};
TYPED_TEST_SUITE(PackedA, ElementTypes);

TYPED_TEST(PackedA, EqualsTheReferenceForEveryShape) {
  using T = TypeParam;
  Context base;
  const auto& kern = kernel_of<T>(base);
  const int64_t nr = kern.nr, mr = kern.mr;
  uint64_t seed = 1;
  for (int threads : {1, 2, 3}) {
    ContextOptions o;
    o.num_threads = threads;
    Context context(o);
    o.mc = 2 * mr;  // small blocks: several row, column and k-blocks over prepacked panels
    o.kc = 7;
    o.nc = 2 * nr;
    Context blocked(o);
    for (int64_t m : {int64_t{1}, int64_t{4}, mr - 1, mr + 1, 3 * mr + 2}) {
      for (int64_t n : {int64_t{1}, nr - 1, nr + 1, 5 * nr + 3}) {
        for (int64_t k : {1, 8, 29}) {
          const bool ta = seed % 2, tb = seed % 3 == 0;
          const Prepacked one = seed % 5 < 2 ? Prepacked::kBoth : Prepacked::kA;
          const Prepacked other = one == Prepacked::kBoth ? Prepacked::kA : Prepacked::kBoth;
          const T alpha = seed % 4 ? T(1) : T(-0.3), beta = seed % 7 ? T(0) : T(3.7);
          ASSERT_EQ(check_packed<T>(context, one, ta, tb, m, n, k, alpha, beta, seed), "");
          ASSERT_EQ(check_packed<T>(blocked, other, ta, tb, m, n, k, alpha, beta, seed + 7), "");
          ++seed;
        }
      }
    }
  }
}

// Large enough for two threads and several blocks of the model's sizes.
TYPED_TEST(PackedA, TwoThreadsGiveTheSameBits) {
  using T = TypeParam;
  ContextOptions o;
  o.num_threads = 2;
  Context context(o);
  ASSERT_EQ(check_packed<T>(context, Prepacked::kA, false, true, 301, 1003, 700, T(0.7), T(0), 50),
            "");
  ASSERT_EQ(check_packed<T>(context, Prepacked::kBoth, true, false, 64, 2003, 300, T(1), T(-2), 51),
            "");
}

// W * X over a packed W: one column of X gives exactly that column of the product of all.
TYPED_TEST(PackedA, OneColumnEqualsItsColumnOfTheWhole) {
  using T = TypeParam;
  Context context;
  const int64_t m = 203, k = 257, t = 19;
  const auto w = random_values<T>(m * k, 21);
  const auto x = random_values<T>(k * t, 22);  // k x t, row-major
  const invar::PackedA packed =
      pack_a(T(1), Op::kNoTrans, MatrixView<const T>(w.data(), m, k), context);
  std::vector<T> whole(m * t), column(m);
  gemm(packed, Op::kNoTrans, MatrixView<const T>(x.data(), k, t), T(0),
       MatrixView<T>(whole.data(), m, t), context);
  for (int64_t j = 0; j < t; ++j) {
    gemm(packed, Op::kNoTrans, MatrixView<const T>(x.data() + j, k, 1, t), T(0),
         MatrixView<T>(column.data(), m, 1), context);
    for (int64_t i = 0; i < m; ++i)
      ASSERT_EQ(std::memcmp(&column[i], &whole[i * t + j], sizeof(T)), 0) << i << ", " << j;
  }
}

TYPED_TEST(PackedA, ReportsItsSize) {
  using T = TypeParam;
  Context context;
  const int64_t mr = kernel_of<T>(context).mr;
  const auto a = random_values<T>(41 * 300, 3);
  const invar::PackedA packed =
      pack_a(T(2), Op::kNoTrans, MatrixView<const T>(a.data(), 41, 300), context);
  const std::size_t panels_bytes = ((41 + mr - 1) / mr) * mr * 300 * sizeof(T);
  EXPECT_GE(packed.bytes(), panels_bytes);
  EXPECT_LT(packed.bytes(), panels_bytes + 64);
  EXPECT_EQ(packed.is_f64(), sizeof(T) == 8);
}

TEST(PackedAErrors, MisuseIsAnErrorAndLeavesCUntouched) {
  const auto a = random_floats(8 * 8, 1), b = random_floats(8 * 8, 2);
  const auto c0 = random_floats(8 * 8, 3);
  auto c = c0;
  invar_packed* pa = nullptr;
  // Packing.
  EXPECT_EQ(invar_sgemm_pack_a(INVAR_NO_TRANS, -1, 8, 1.0f, a.data(), 8, &pa), INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("m = -1"), std::string::npos);
  EXPECT_EQ(invar_sgemm_pack_a(INVAR_NO_TRANS, 8, 8, 1.0f, a.data(), 7, &pa), INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("lda = 7 is smaller than k = 8"),
            std::string::npos);
  EXPECT_EQ(invar_sgemm_pack_a(INVAR_TRANS, 8, 9, 1.0f, a.data(), 7, &pa), INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("smaller than m = 8 (A is transposed"),
            std::string::npos);
  EXPECT_EQ(invar_sgemm_pack_a(INVAR_NO_TRANS, 8, 8, 1.0f, nullptr, 8, &pa), INVAR_EINVAL);
  EXPECT_EQ(invar_sgemm_pack_a(INVAR_NO_TRANS, 8, 8, 1.0f, a.data(), 8, nullptr), INVAR_EINVAL);
  EXPECT_EQ(pa, nullptr);
  // Good handles, then calls that misuse them.
  invar_packed* pb = nullptr;
  invar_packed* pb_short = nullptr;
  ASSERT_EQ(invar_sgemm_pack_a(INVAR_NO_TRANS, 8, 8, 0.3f, a.data(), 8, &pa), INVAR_OK);
  ASSERT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, 8, 8, b.data(), 8, &pb), INVAR_OK);
  ASSERT_EQ(invar_sgemm_pack_b(INVAR_NO_TRANS, 7, 8, b.data(), 8, &pb_short), INVAR_OK);
  EXPECT_GE(invar_packed_bytes(pa), 8u * 8u * sizeof(float));
  EXPECT_EQ(invar_sgemm_packed_a(nullptr, INVAR_NO_TRANS, 8, b.data(), 8, 0.0f, c.data(), 8),
            INVAR_EINVAL);
  EXPECT_EQ(invar_sgemm_packed_a(pa, INVAR_NO_TRANS, 8, b.data(), 7, 0.0f, c.data(), 8),
            INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("ldb = 7"), std::string::npos);
  EXPECT_EQ(invar_sgemm_packed_a(pa, INVAR_NO_TRANS, 8, b.data(), 8, 0.0f, c.data(), 7),
            INVAR_EINVAL);
  EXPECT_EQ(invar_sgemm_packed_a(pb, INVAR_NO_TRANS, 8, b.data(), 8, 0.0f, c.data(), 8),
            INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("a is a packed B"), std::string::npos);
  EXPECT_EQ(invar_sgemm_packed(INVAR_NO_TRANS, 8, 1.0f, a.data(), 8, pa, 0.0f, c.data(), 8),
            INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("b is a packed A"), std::string::npos);
  EXPECT_EQ(invar_sgemm_packed_ab(pa, pb_short, 0.0f, c.data(), 8), INVAR_EINVAL);
  EXPECT_NE(std::string(invar_last_error()).find("b was packed as 7 x 8, but op(B) is 8 x 8"),
            std::string::npos)
      << invar_last_error();
  EXPECT_EQ(invar_sgemm_packed_ab(pa, nullptr, 0.0f, c.data(), 8), INVAR_EINVAL);
  EXPECT_EQ(invar_sgemm_packed_ab(pb, pb, 0.0f, c.data(), 8), INVAR_EINVAL);
  std::vector<double> cd(64, 1.0);
  const std::vector<double> bd(64, 1.0), cd0 = cd;
  EXPECT_EQ(invar_dgemm_packed_a(pa, INVAR_NO_TRANS, 8, bd.data(), 8, 0.0, cd.data(), 8),
            INVAR_EINVAL);
  EXPECT_EQ(std::string(invar_last_error()),
            "invar_dgemm_packed_a: a was packed from f32 elements, but this product's A is f64");
  EXPECT_TRUE(same_bits(c, c0));
  EXPECT_TRUE(same_bits(cd, cd0));
  // And good calls agree with invar_sgemm at the alpha given to pack_a.
  auto expected = c0;
  ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 8, 8, 8, 0.3f, a.data(), 8, b.data(), 8,
                        -1.5f, expected.data(), 8),
            INVAR_OK);
  ASSERT_EQ(invar_sgemm_packed_a(pa, INVAR_NO_TRANS, 8, b.data(), 8, -1.5f, c.data(), 8), INVAR_OK);
  EXPECT_TRUE(same_bits(c, expected));
  c = c0;
  ASSERT_EQ(invar_sgemm_packed_ab(pa, pb, -1.5f, c.data(), 8), INVAR_OK);
  EXPECT_TRUE(same_bits(c, expected));
  // alpha == 0 packed: beta * C, as invar_sgemm gives.
  invar_packed* zero = nullptr;
  ASSERT_EQ(invar_sgemm_pack_a(INVAR_NO_TRANS, 8, 8, 0.0f, a.data(), 8, &zero), INVAR_OK);
  expected = c0;
  ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 8, 8, 8, 0.0f, a.data(), 8, b.data(), 8,
                        2.0f, expected.data(), 8),
            INVAR_OK);
  c = c0;
  ASSERT_EQ(invar_sgemm_packed_a(zero, INVAR_NO_TRANS, 8, b.data(), 8, 2.0f, c.data(), 8),
            INVAR_OK);
  EXPECT_TRUE(same_bits(c, expected));
  invar_packed_free(zero);
  invar_packed_free(pa);
  invar_packed_free(pb);
  invar_packed_free(pb_short);
}

// The text of this thread's last error after its "function: " prefix.
std::string last_error_text() {
  const std::string e = invar_last_error();
  const std::size_t colon = e.find(": ");
  return colon == std::string::npos ? e : e.substr(colon + 2);
}

// Packing checks an operand with the product's own checks (api/validation.h): each bad argument
// gets the message the unpacked product gives for it.
TEST(PackErrors, SameMessagesAsTheProduct) {
  const auto a = random_floats(8 * 8, 1), b = random_floats(8 * 8, 2);
  std::vector<float> c(8 * 8);
  const auto wrapping = reinterpret_cast<const float*>(~std::uintptr_t{0} - 255);
  const int64_t huge = int64_t{1} << 60;
  struct Case {
    int trans, m_or_n, k;
    const float* p;
    int64_t ld;
  };
  // B: tb, n, k, b, ldb, against invar_sgemm(no, tb, 2, n, k, 1, a, k, b, ldb, 0, c, n).
  for (const Case& bad :
       {Case{2, 8, 8, b.data(), 8}, Case{0, 8, -1, b.data(), 8}, Case{0, -3, 8, b.data(), 8},
        Case{0, 8, 8, b.data(), 7}, Case{1, 8, 8, b.data(), 7}, Case{0, 8, 8, nullptr, 8},
        Case{0, 8, 8, b.data(), huge}, Case{0, 8, 8, wrapping, 8}}) {
    invar_packed* packed = nullptr;
    ASSERT_EQ(invar_sgemm_pack_b(static_cast<invar_trans>(bad.trans), bad.k, bad.m_or_n, bad.p,
                                 bad.ld, &packed),
              INVAR_EINVAL);
    EXPECT_EQ(packed, nullptr);
    const std::string packing = last_error_text();
    ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, static_cast<invar_trans>(bad.trans), 2, bad.m_or_n, bad.k,
                          1.0f, a.data(), 8, bad.p, bad.ld, 0.0f, c.data(), 8),
              INVAR_EINVAL);
    EXPECT_EQ(packing, last_error_text());
  }
  // A: ta, m, k, a, lda, against invar_sgemm(ta, no, m, 2, k, 1, a, lda, b, 2, 0, c, 2).
  for (const Case& bad :
       {Case{3, 8, 8, a.data(), 8}, Case{0, -1, 8, a.data(), 8}, Case{0, 8, -2, a.data(), 8},
        Case{0, 8, 8, a.data(), 7}, Case{1, 8, 8, a.data(), 7}, Case{0, 8, 8, nullptr, 8},
        Case{1, 8, 8, a.data(), huge}, Case{0, 8, 8, wrapping, 8}}) {
    invar_packed* packed = nullptr;
    ASSERT_EQ(invar_sgemm_pack_a(static_cast<invar_trans>(bad.trans), bad.m_or_n, bad.k, 1.0f,
                                 bad.p, bad.ld, &packed),
              INVAR_EINVAL);
    EXPECT_EQ(packed, nullptr);
    const std::string packing = last_error_text();
    ASSERT_EQ(invar_sgemm(static_cast<invar_trans>(bad.trans), INVAR_NO_TRANS, bad.m_or_n, 2, bad.k,
                          1.0f, bad.p, bad.ld, b.data(), 2, 0.0f, c.data(), 2),
              INVAR_EINVAL);
    EXPECT_EQ(packing, last_error_text());
  }
}

TEST(PackedAErrors, HandleOfAnotherPathIsRefused) {
  ContextOptions o;
  o.isa = Isa::kGeneric;
  Context generic(o);
  Context best;
  if (best.isa() == Isa::kGeneric) GTEST_SKIP() << "only the generic path on this machine";
  const auto a = random_floats(16 * 16, 1), b = random_floats(16 * 16, 2);
  const auto c0 = random_floats(16 * 16, 3);
  auto c = c0;
  const invar::PackedA packed =
      pack_a(1.0f, Op::kNoTrans, MatrixView<const float>(a.data(), 16, 16), generic);
  try {
    gemm(packed, Op::kNoTrans, MatrixView<const float>(b.data(), 16, 16), 0.0f,
         MatrixView<float>(c.data(), 16, 16), best);
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("sgemm_generic"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(same_bits(c, c0));
  EXPECT_THROW(gemm(packed, Op::kNoTrans, MatrixView<const float>(b.data(), 15, 16), 0.0f,
                    MatrixView<float>(c.data(), 16, 16), generic),
               InvalidArgument);
}

}  // namespace
}  // namespace invar::test

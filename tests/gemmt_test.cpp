// Products of one triangle (gemmt, and syrk through it): every element of the triangle has the
// bits of the full product's, by memcmp against the scalar reference and against invar_sgemm /
// invar_dgemm, on any team and blocking; the other triangle is never written; the triangle's
// rows are shared among the members by its elements; bad arguments are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api/context_impl.h"
#include "driver/gemm_driver.h"
#include "driver/plan.h"
#include "invar/invar.h"
#include "invar/invar.hpp"
#include "runtime/thread_pool.h"
#include "support/driver_problem.h"
#include "testing/reference.h"
#include "testing/seeded_data.h"

namespace invar::test {
namespace {

using driver::Triangle;

bool in_triangle(Triangle t, int64_t i, int64_t j) {
  return t == Triangle::kUpper ? i <= j : i >= j;
}

// `got` equals `full` in the triangle and `before` outside it, element by element (bits).
template <class T>
::testing::AssertionResult triangle_of(const std::vector<T>& got, const std::vector<T>& full,
                                       const std::vector<T>& before, int64_t n, int64_t ldc,
                                       Triangle t) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < ldc; ++j) {
      const std::size_t e = static_cast<std::size_t>(i * ldc + j);
      const bool inside = j < n && in_triangle(t, i, j);
      const T& want = inside ? full[e] : before[e];
      if (std::memcmp(&got[e], &want, sizeof(T)) != 0)
        return ::testing::AssertionFailure()
               << "element (" << i << ", " << j << ") " << (inside ? "inside" : "outside")
               << " the triangle: " << got[e] << ", expected " << want;
    }
  }
  return ::testing::AssertionSuccess();
}

template <class T>
const kernels::GemmKernel& kernel_of(Context& context) {
  return kernels::kernel_for<T>(*context.impl().kernels);
}

// The driver with small blocks (every loop has partial cells, many tiles cross the diagonal) and
// explicit teams, against the reference.
template <class T>
void driver_triangle_equals_the_full_product() {
  runtime::ThreadPool pool(8);
  Context context;
  const auto& kern = kernel_of<T>(context);
  const int64_t mr = kern.mr, nr = kern.nr;
  uint64_t seed = 11;
  for (int64_t n : {int64_t{1}, mr - 1, 7 * mr + 3, 5 * nr + 2}) {
    for (int64_t k : {int64_t{37}}) {  // k = 0 and 1: the C API test below
      for (Triangle t : {Triangle::kUpper, Triangle::kLower}) {
        const bool trans_a = seed % 2 == 1, trans_b = seed % 3 == 0;
        const T alpha = T(0.75), beta = seed % 4 == 0 ? T(0) : T(-1.5);
        const auto init = beta == T(0) ? kernels::AccInit::kZero : kernels::AccInit::kScale;
        const int64_t ldc = n + 3;
        const auto a = random_values<T>(n * k, seed * 5);
        const auto b = random_values<T>(n * k, seed * 5 + 1);
        const auto c0 = random_values<T>(n * ldc, seed * 5 + 2);
        auto full = c0;
        reference_gemm<T>(trans_a, trans_b, n, n, k, alpha, a.data(), trans_a ? n : k, b.data(),
                          trans_b ? k : n, beta, full.data(), ldc);
        for (int64_t b_budget : {int64_t{0}, int64_t{1} << 30}) {
          blocking::BlockSizes blocks{2 * mr, 16, 3 * nr};
          blocks.b_block_budget = b_budget;
          for (int threads : {1, 2, 3}) {
            auto c = c0;
            driver::GemmProblem p =
                driver_problem<T>(n, n, k, trans_a, a.data(), trans_a ? n : k, trans_b, b.data(),
                                  trans_b ? k : n, c.data(), ldc, &alpha, &beta, init);
            p.allow_direct = false;
            p.triangle = t;
            runtime::Workspace workspace;
            driver::run_gemm(kern, p, blocks, workspace, &pool, threads);
            ASSERT_TRUE(triangle_of(c, full, c0, n, ldc, t))
                << "n=" << n << " k=" << k << " upper=" << (t == Triangle::kUpper)
                << " threads=" << threads << " b_budget=" << b_budget << " trans " << trans_a
                << trans_b;
          }
        }
        ++seed;
      }
    }
  }
}

TEST(Gemmt, DriverTriangleEqualsTheFullProductF32) {
  driver_triangle_equals_the_full_product<float>();
}
TEST(Gemmt, DriverTriangleEqualsTheFullProductF64) {
  driver_triangle_equals_the_full_product<double>();
}

template <class T>
invar_status gemm(invar_trans ta, invar_trans tb, int64_t n, int64_t k, T alpha, const T* a,
                  int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>)
    return invar_sgemm(ta, tb, n, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    return invar_dgemm(ta, tb, n, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <class T>
invar_status gemmt(invar_uplo uplo, invar_trans ta, invar_trans tb, int64_t n, int64_t k, T alpha,
                   const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>)
    return invar_sgemmt(uplo, ta, tb, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    return invar_dgemmt(uplo, ta, tb, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// The C entry points against the full product through invar_sgemm / invar_dgemm: every layout,
// the scalars' special cases, one and two threads, sizes through the planner's own choices.
template <class T>
void c_api_triangle_equals_the_full_product() {
  const int threads_before = invar_get_num_threads();
  uint64_t seed = 101;
  for (int threads : {1, 2}) {
    ASSERT_EQ(invar_set_num_threads(threads), threads);
    for (int64_t n : {int64_t{3}, int64_t{50}, int64_t{161}}) {
      for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{129}}) {
        for (invar_uplo uplo : {INVAR_UPPER, INVAR_LOWER}) {
          const Triangle t = uplo == INVAR_UPPER ? Triangle::kUpper : Triangle::kLower;
          const invar_trans ta = seed % 2 ? INVAR_TRANS : INVAR_NO_TRANS;
          const invar_trans tb = seed % 3 ? INVAR_NO_TRANS : INVAR_TRANS;
          const T alpha = seed % 5 == 0 ? T(0) : seed % 2 ? T(1) : T(-0.625);
          const T beta = seed % 3 == 0 ? T(0) : seed % 3 == 1 ? T(1) : T(2.5);
          const int64_t lda = (ta == INVAR_TRANS ? n : k) + 1,
                        ldb = (tb == INVAR_TRANS ? k : n) + 2;
          const int64_t ldc = n + 1;
          const auto a = random_values<T>((ta == INVAR_TRANS ? k : n) * lda + 1, seed * 7);
          const auto b = random_values<T>((tb == INVAR_TRANS ? n : k) * ldb + 1, seed * 7 + 1);
          const auto c0 = random_values<T>(n * ldc, seed * 7 + 2);
          auto full = c0, c = c0;
          ASSERT_EQ(
              gemm<T>(ta, tb, n, k, alpha, a.data(), lda, b.data(), ldb, beta, full.data(), ldc),
              INVAR_OK);
          ASSERT_EQ(gemmt<T>(uplo, ta, tb, n, k, alpha, a.data(), lda, b.data(), ldb, beta,
                             c.data(), ldc),
                    INVAR_OK)
              << invar_last_error();
          EXPECT_TRUE(triangle_of(c, full, c0, n, ldc, t))
              << "n=" << n << " k=" << k << " uplo=" << uplo << " threads=" << threads
              << " alpha=" << alpha << " beta=" << beta;
          ++seed;
        }
      }
    }
  }
  invar_set_num_threads(threads_before);
}

TEST(Gemmt, CApiTriangleEqualsTheFullProductF32) {
  c_api_triangle_equals_the_full_product<float>();
}
TEST(Gemmt, CApiTriangleEqualsTheFullProductF64) {
  c_api_triangle_equals_the_full_product<double>();
}

// syrk through gemmt: A * A^T's triangle, with A read as both operands.
TEST(Gemmt, SyrkIsTheTriangleOfTheProduct) {
  const int64_t n = 200, k = 333;
  const auto a = random_values<float>(n * k, 3);
  const auto c0 = random_values<float>(n * n, 4);
  auto full = c0, upper = c0, lower = c0;
  ASSERT_EQ(invar_sgemm(INVAR_NO_TRANS, INVAR_TRANS, n, n, k, 1.0f, a.data(), k, a.data(), k, 0.5f,
                        full.data(), n),
            INVAR_OK);
  ASSERT_EQ(invar_sgemmt(INVAR_UPPER, INVAR_NO_TRANS, INVAR_TRANS, n, k, 1.0f, a.data(), k,
                         a.data(), k, 0.5f, upper.data(), n),
            INVAR_OK);
  ASSERT_EQ(invar_sgemmt(INVAR_LOWER, INVAR_NO_TRANS, INVAR_TRANS, n, k, 1.0f, a.data(), k,
                         a.data(), k, 0.5f, lower.data(), n),
            INVAR_OK);
  EXPECT_TRUE(triangle_of(upper, full, c0, n, n, Triangle::kUpper));
  EXPECT_TRUE(triangle_of(lower, full, c0, n, n, Triangle::kLower));
}

TEST(Gemmt, BadArgumentsAreRefusedAndCIsUntouched) {
  const auto a = random_values<float>(64, 1), b = random_values<float>(64, 2);
  const auto c0 = random_values<float>(64, 3);
  auto c = c0;
  const auto refused = [&](invar_status s, const std::string& says) {
    const std::string msg = invar_last_error();
    return s == INVAR_EINVAL && msg.rfind("invar_sgemmt: ", 0) == 0 &&
           msg.find(says) != std::string::npos && c == c0;
  };
  invar_uplo bad_uplo;
  const int seven = 7;
  std::memcpy(&bad_uplo, &seven, sizeof bad_uplo);
  EXPECT_TRUE(refused(invar_sgemmt(bad_uplo, INVAR_NO_TRANS, INVAR_NO_TRANS, 4, 4, 1.0f, a.data(),
                                   4, b.data(), 4, 0.0f, c.data(), 4),
                      "uplo = 7"));
  EXPECT_TRUE(refused(invar_sgemmt(INVAR_UPPER, INVAR_NO_TRANS, INVAR_NO_TRANS, -2, 4, 1.0f,
                                   a.data(), 4, b.data(), 4, 0.0f, c.data(), 4),
                      "n = -2"));
  EXPECT_TRUE(refused(invar_sgemmt(INVAR_LOWER, INVAR_NO_TRANS, INVAR_NO_TRANS, 4, 4, 1.0f,
                                   a.data(), 4, b.data(), 4, 0.0f, c.data(), 3),
                      "ldc"));
  EXPECT_TRUE(refused(invar_sgemmt(INVAR_LOWER, INVAR_TRANS, INVAR_NO_TRANS, 4, 8, 1.0f, a.data(),
                                   3, b.data(), 4, 0.0f, c.data(), 4),
                      "lda"));
  EXPECT_TRUE(refused(invar_sgemmt(INVAR_UPPER, INVAR_NO_TRANS, INVAR_NO_TRANS, 4, 4, 1.0f,
                                   a.data(), 4, b.data(), 4, 0.0f, nullptr, 4),
                      "c is NULL"));
  EXPECT_EQ(invar_sgemmt(INVAR_UPPER, INVAR_NO_TRANS, INVAR_NO_TRANS, 0, 4, 1.0f, a.data(), 4,
                         b.data(), 4, 0.0f, c.data(), 4),
            INVAR_OK);
  EXPECT_EQ(c, c0);
}

// The C++ entry point: the C call's bits on a context of its own; bad shapes throw and leave C.
TEST(Gemmt, CppEqualsTheCCall) {
  const int64_t n = 130, k = 70;
  const auto a = random_values<double>(k * n, 21), b = random_values<double>(k * n, 22);
  const auto c0 = random_values<double>(n * n, 23);
  ContextOptions options;
  options.num_threads = 2;
  Context context(options);
  for (Uplo uplo : {Uplo::kUpper, Uplo::kLower}) {
    auto from_c = c0, from_cpp = c0;
    ASSERT_EQ(
        invar_dgemmt(uplo == Uplo::kUpper ? INVAR_UPPER : INVAR_LOWER, INVAR_TRANS, INVAR_NO_TRANS,
                     n, k, -1.25, a.data(), n, b.data(), n, 0.5, from_c.data(), n),
        INVAR_OK);
    gemmt(uplo, -1.25, Op::kTrans, MatrixView<const double>(a.data(), k, n), Op::kNoTrans,
          MatrixView<const double>(b.data(), k, n), 0.5, MatrixView<double>(from_cpp.data(), n, n),
          context);
    EXPECT_TRUE(same_bits(from_c, from_cpp));
    EXPECT_FALSE(same_bits(from_c, c0));
  }
  auto c = c0;
  const auto says = [](const InvalidArgument& e, const char* what) {
    return std::string(e.what()).rfind("invar::gemmt: ", 0) == 0 &&
           std::string(e.what()).find(what) != std::string::npos;
  };
  try {
    gemmt(Uplo::kUpper, 1.0, Op::kTrans, MatrixView<const double>(a.data(), k, n), Op::kNoTrans,
          MatrixView<const double>(b.data(), k, n), 0.0, MatrixView<double>(c.data(), n - 1, n),
          context);
    ADD_FAILURE() << "a C that is not square was taken";
  } catch (const InvalidArgument& e) {
    EXPECT_TRUE(says(e, "not square")) << e.what();
  }
  try {
    gemmt(Uplo::kLower, 1.0, Op::kNoTrans, MatrixView<const double>(a.data(), k, n), Op::kNoTrans,
          MatrixView<const double>(b.data(), k, n), 0.0, MatrixView<double>(c.data(), n, n),
          context);
    ADD_FAILURE() << "op(A) of k rows was taken for C of n";
  } catch (const InvalidArgument& e) {
    EXPECT_TRUE(says(e, "op(A) is")) << e.what();
  }
  EXPECT_TRUE(same_bits(c, c0));
}

// A triangle's rows go to the members by its elements: contiguous runs covering all rows, each
// holding its share of the triangle's elements to within one unit of rows.
TEST(Gemmt, MemberRowsShareTheTrianglesElements) {
  for (Triangle t : {Triangle::kUpper, Triangle::kLower}) {
    for (int64_t m : {int64_t{1}, int64_t{7}, int64_t{100}, int64_t{4096}}) {
      for (int members = 1; members <= 5; ++members) {
        for (int64_t unit : {int64_t{1}, int64_t{12}}) {
          const double total = static_cast<double>(m) * static_cast<double>(m + 1) / 2;
          int64_t previous = 0;
          for (int i = 0; i < members; ++i) {
            int64_t lo = 0, hi = 0;
            driver::member_rows(m, unit, i, members, &lo, &hi, t);
            ASSERT_EQ(lo, previous);
            ASSERT_LE(lo, hi);
            double elements = 0;
            for (int64_t r = lo; r < hi; ++r)
              elements += static_cast<double>(t == Triangle::kUpper ? m - r : r + 1);
            EXPECT_LE(std::abs(elements - total / members), static_cast<double>(unit * m))
                << "m=" << m << " members=" << members << " unit=" << unit << " member " << i;
            previous = hi;
          }
          EXPECT_EQ(previous, m);
        }
      }
    }
  }
  // The upper triangle's top rows are the long ones.
  int64_t lo = 0, hi = 0;
  driver::member_rows(4096, 1, 0, 2, &lo, &hi, Triangle::kUpper);
  EXPECT_EQ(lo, 0);
  EXPECT_NEAR(static_cast<double>(hi), 4096 * (1 - std::sqrt(0.5)), 2.0);
  driver::member_rows(4096, 1, 0, 2, &lo, &hi, Triangle::kLower);
  EXPECT_NEAR(static_cast<double>(hi), 4096 * std::sqrt(0.5), 2.0);
}

}  // namespace
}  // namespace invar::test

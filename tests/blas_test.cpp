// libinvar_blas: the Fortran and CBLAS entry points (GEMM, strided batched GEMM, GEMV, DOT, SYRK,
// GEMMT, SYMM) against invar's contract for the caller's logical matrices and against GEMM in the
// same layout (memcmp-exact), the reference error exits, the reference special cases, and the
// library's floating-point mode under a caller's DAZ/FTZ. This program replaces xerbla_ and
// cblas_xerbla (as the reference testers do) to see every report instead of ending.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "blas/blas_abi.h"
#include "invar/invar.h"
#include "testing/seeded_data.h"

namespace {

using invar::blas::FortranInt;
using invar::blas::kCblasColMajor;
using invar::blas::kCblasConjTrans;
using invar::blas::kCblasLeft;
using invar::blas::kCblasLower;
using invar::blas::kCblasNoTrans;
using invar::blas::kCblasRight;
using invar::blas::kCblasRowMajor;
using invar::blas::kCblasTrans;
using invar::blas::kCblasUpper;

// ---- the error handlers of this program --------------------------------------------------------

struct Report {
  int calls = 0;
  std::string name;  // Fortran name as passed (6 characters) or CBLAS routine
  int info = 0;
  int row_major = -1;  // RowMajorStrg while cblas_xerbla ran
};
Report fortran_report, cblas_report;

void reset_reports() {
  fortran_report = Report{};
  cblas_report = Report{};
}

}  // namespace

// As the reference CBLAS testers' xerbla_: a report from a CBLAS call (CBLAS_CallFromC) goes on
// to cblas_xerbla as position + 1 of "cblas_" + the name in lower case, trailing blanks dropped.
extern "C" void xerbla_(const char* name, const FortranInt* info, std::size_t name_length) {
  if (CBLAS_CallFromC != 0) {
    std::string rout = "cblas_";
    for (std::size_t i = 0; i < name_length && name[i] != ' '; ++i)
      rout += static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
    cblas_xerbla(*info + 1, rout.c_str(), "");
    return;
  }
  ++fortran_report.calls;
  fortran_report.name.assign(name, name_length);
  fortran_report.info = *info;
}

extern "C" void cblas_xerbla(int info, const char* rout, const char*, ...) {
  ++cblas_report.calls;
  cblas_report.name = rout;
  cblas_report.info = info;
  cblas_report.row_major = RowMajorStrg;
}

namespace {

// ---- the oracle ------------------------------------------------------------------------------

// The contract for column-major matrices: C(i,j) at c[i + j * ldc], op(A)(i,p) = A(i,p) at
// a[i + p * lda] or A(p,i) at a[p + i * lda] when transposed, and alpha multiplies op(A)'s
// elements. With alpha_on_b the same loop multiplies op(B)'s elements instead: the chain a
// careless mapping onto a row-major engine would compute.
template <class T>
void column_major_reference(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                            int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc,
                            bool alpha_on_b = false) {
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      T& cij = c[i + j * ldc];
      if (k == 0 || alpha == T(0)) {
        if (beta == T(0))
          cij = T(0);
        else if (beta != T(1))
          cij = beta * cij;
        continue;
      }
      T acc = beta == T(0) ? T(0) : beta * cij;
      for (int64_t p = 0; p < k; ++p) {
        const T aip = ta ? a[p + i * lda] : a[i + p * lda];
        const T bpj = tb ? b[j + p * ldb] : b[p + j * ldb];
        acc = alpha_on_b ? std::fma(aip, alpha * bpj, acc) : std::fma(alpha * aip, bpj, acc);
      }
      cij = acc;
    }
  }
}

using invar::test::random_values;
using invar::test::same_bits;

// ---- per element type ------------------------------------------------------------------------

template <class T>
struct Entry;

template <>
struct Entry<float> {
  static constexpr const char* kFortranName = "SGEMM ";
  static constexpr const char* kCblasName = "cblas_sgemm";
  static void fortran(const char* ta, const char* tb, FortranInt m, FortranInt n, FortranInt k,
                      float alpha, const float* a, FortranInt lda, const float* b, FortranInt ldb,
                      float beta, float* c, FortranInt ldc) {
    sgemm_(ta, tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
  }
  static void cblas(int layout, int ta, int tb, int m, int n, int k, float alpha, const float* a,
                    int lda, const float* b, int ldb, float beta, float* c, int ldc) {
    cblas_sgemm(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  static invar_status engine(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                             float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                             float beta, float* c, int64_t ldc) {
    return invar_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
};

template <>
struct Entry<double> {
  static constexpr const char* kFortranName = "DGEMM ";
  static constexpr const char* kCblasName = "cblas_dgemm";
  static void fortran(const char* ta, const char* tb, FortranInt m, FortranInt n, FortranInt k,
                      double alpha, const double* a, FortranInt lda, const double* b,
                      FortranInt ldb, double beta, double* c, FortranInt ldc) {
    dgemm_(ta, tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
  }
  static void cblas(int layout, int ta, int tb, int m, int n, int k, double alpha, const double* a,
                    int lda, const double* b, int ldb, double beta, double* c, int ldc) {
    cblas_dgemm(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  static invar_status engine(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                             double alpha, const double* a, int64_t lda, const double* b,
                             int64_t ldb, double beta, double* c, int64_t ldc) {
    return invar_dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
};

template <class T>
class Blas : public testing::Test {
 protected:
  void SetUp() override { reset_reports(); }
};

using ElementTypes = testing::Types<float, double>;
TYPED_TEST_SUITE(Blas, ElementTypes);

struct Shape {
  int64_t m, n, k;
};
// Direct-path sizes, tile edges, and products large enough for the packed loop nest.
const Shape kShapes[] = {{1, 1, 1},   {3, 5, 7},    {4, 17, 33},   {13, 1, 40},
                         {1, 29, 64}, {37, 23, 19}, {67, 45, 130}, {97, 41, 150}};
const float kAlphas[] = {0.7f, 3.7f, -1.3f, 1.0f, -1.0f, 0.0f};
const float kBetas[] = {0.0f, 1.0f, -0.6f};

// Column-major operands as views inside larger arrays: each leading dimension exceeds the rows
// stored, and each matrix starts a few elements into its buffer.
template <class T>
struct ColumnMajorCase {
  bool ta, tb;
  int64_t m, n, k, lda, ldb, ldc;
  std::vector<T> a, b, c;
  static constexpr int64_t kOffset = 3;
  ColumnMajorCase(bool ta_, bool tb_, Shape s, uint64_t seed) : ta(ta_), tb(tb_) {
    m = s.m, n = s.n, k = s.k;
    lda = (ta ? k : m) + 2;
    ldb = (tb ? n : k) + 1;
    ldc = m + 3;
    a = random_values<T>(static_cast<std::size_t>(kOffset + lda * (ta ? m : k)), seed);
    b = random_values<T>(static_cast<std::size_t>(kOffset + ldb * (tb ? k : n)), seed + 1);
    c = random_values<T>(static_cast<std::size_t>(kOffset + ldc * n), seed + 2);
  }
  const T* pa() const { return a.data() + kOffset; }
  const T* pb() const { return b.data() + kOffset; }
  std::vector<T> expected(T alpha, T beta, bool alpha_on_b = false) const {
    std::vector<T> out = c;
    column_major_reference<T>(ta, tb, m, n, k, alpha, pa(), lda, pb(), ldb, beta,
                              out.data() + kOffset, ldc, alpha_on_b);
    return out;
  }
};

const char* const kFortranNo[] = {"N", "n"};
const char* const kFortranYes[] = {"T", "t", "C", "c"};

// ---- results ---------------------------------------------------------------------------------

TYPED_TEST(Blas, FortranEqualsTheContractForEveryTransposeAndView) {
  using T = TypeParam;
  uint64_t seed = 100;
  for (const Shape& s : kShapes) {
    for (int ta = 0; ta < 2; ++ta) {
      for (int tb = 0; tb < 2; ++tb) {
        ColumnMajorCase<T> x(ta, tb, s, seed += 3);
        for (float alpha : kAlphas) {
          for (float beta : kBetas) {
            // Every spelling of the characters, in turn.
            const char* cta = ta ? kFortranYes[seed % 4] : kFortranNo[seed % 2];
            const char* ctb = tb ? kFortranYes[(seed / 4) % 4] : kFortranNo[(seed / 2) % 2];
            ++seed;
            std::vector<T> c = x.c;
            Entry<T>::fortran(cta, ctb, s.m, s.n, s.k, T(alpha), x.pa(), x.lda, x.pb(), x.ldb,
                              T(beta), c.data() + x.kOffset, x.ldc);
            EXPECT_TRUE(same_bits(c, x.expected(T(alpha), T(beta))))
                << cta << ctb << " " << s.m << "x" << s.n << "x" << s.k << " alpha " << alpha
                << " beta " << beta;
          }
        }
      }
    }
  }
  EXPECT_EQ(fortran_report.calls, 0);
}

// The test above can tell alpha * A from alpha * B: with these alphas the two chains differ.
TYPED_TEST(Blas, ScalingBInsteadOfAWouldChangeTheBits) {
  using T = TypeParam;
  for (float alpha : {0.7f, 3.7f, -1.3f}) {
    ColumnMajorCase<T> x(false, false, {37, 23, 19}, 7);
    EXPECT_FALSE(same_bits(x.expected(T(alpha), T(0)), x.expected(T(alpha), T(0), true))) << alpha;
  }
}

TYPED_TEST(Blas, CblasColumnMajorEqualsTheContract) {
  using T = TypeParam;
  const int kTrans[] = {kCblasNoTrans, kCblasTrans, kCblasConjTrans};
  uint64_t seed = 500;
  for (const Shape& s : kShapes) {
    for (int ta : kTrans) {
      for (int tb : kTrans) {
        ColumnMajorCase<T> x(ta != kCblasNoTrans, tb != kCblasNoTrans, s, seed += 3);
        for (float alpha : {0.7f, -1.3f, 1.0f}) {
          for (float beta : kBetas) {
            std::vector<T> c = x.c;
            Entry<T>::cblas(kCblasColMajor, ta, tb, s.m, s.n, s.k, T(alpha), x.pa(), x.lda, x.pb(),
                            x.ldb, T(beta), c.data() + x.kOffset, x.ldc);
            EXPECT_TRUE(same_bits(c, x.expected(T(alpha), T(beta))))
                << ta << " " << tb << " " << s.m << "x" << s.n << "x" << s.k << " alpha " << alpha
                << " beta " << beta;
          }
        }
      }
    }
  }
  EXPECT_EQ(cblas_report.calls, 0);
}

// Row-major CBLAS is invar's own layout: the bits of invar_sgemm / invar_dgemm on the same views.
TYPED_TEST(Blas, CblasRowMajorEqualsTheCApi) {
  using T = TypeParam;
  const int kTrans[] = {kCblasNoTrans, kCblasTrans, kCblasConjTrans};
  uint64_t seed = 900;
  for (const Shape& s : kShapes) {
    for (int ta : kTrans) {
      for (int tb : kTrans) {
        const bool tra = ta != kCblasNoTrans, trb = tb != kCblasNoTrans;
        const int64_t lda = (tra ? s.m : s.k) + 2, ldb = (trb ? s.k : s.n) + 1, ldc = s.n + 3;
        const std::vector<T> a = random_values<T>(lda * (tra ? s.k : s.m), seed += 3);
        const std::vector<T> b = random_values<T>(ldb * (trb ? s.n : s.k), seed + 1);
        const std::vector<T> c0 = random_values<T>(ldc * s.m, seed + 2);
        for (float alpha : {0.7f, -1.3f, 1.0f, 0.0f}) {
          for (float beta : kBetas) {
            std::vector<T> c = c0, expected = c0;
            Entry<T>::cblas(kCblasRowMajor, ta, tb, s.m, s.n, s.k, T(alpha), a.data(), lda,
                            b.data(), ldb, T(beta), c.data(), ldc);
            ASSERT_EQ(Entry<T>::engine(tra ? INVAR_TRANS : INVAR_NO_TRANS,
                                       trb ? INVAR_TRANS : INVAR_NO_TRANS, s.m, s.n, s.k, T(alpha),
                                       a.data(), lda, b.data(), ldb, T(beta), expected.data(), ldc),
                      INVAR_OK);
            EXPECT_TRUE(same_bits(c, expected))
                << ta << " " << tb << " " << s.m << "x" << s.n << "x" << s.k << " alpha " << alpha;
          }
        }
      }
    }
  }
  EXPECT_EQ(cblas_report.calls, 0);
}

// alpha * op(A) larger than one band (kScaledElements): several engine calls, the same bits.
TYPED_TEST(Blas, ColumnMajorInSeveralBandsEqualsTheContract) {
  using T = TypeParam;
  for (int ta = 0; ta < 2; ++ta) {
    ColumnMajorCase<T> x(ta, false, {2500, 3, 2048}, 77 + ta);
    std::vector<T> c = x.c;
    Entry<T>::fortran(ta ? "T" : "N", "N", x.m, x.n, x.k, T(0.3f), x.pa(), x.lda, x.pb(), x.ldb,
                      T(0.5f), c.data() + x.kOffset, x.ldc);
    EXPECT_TRUE(same_bits(c, x.expected(T(0.3f), T(0.5f)))) << "ta " << ta;
  }
}

#if defined(__x86_64__) || defined(__i386__)
// alpha * A is formed in the contract's mode even when the caller flushes subnormals.
TYPED_TEST(Blas, ColumnMajorScalingHonoursSubnormalsUnderCallerFtz) {
  using T = TypeParam;
  const T tiny = std::numeric_limits<T>::min();  // alpha * a = tiny / 4, a subnormal
  const T a[1] = {T(0.25f)}, b[1] = {T(1)};
  T c[1] = {T(7)};
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040);  // FTZ | DAZ
  Entry<T>::fortran("N", "N", 1, 1, 1, tiny, a, 1, b, 1, T(0), c, 1);
  const unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  EXPECT_EQ(after, saved | 0x8040);  // the caller's mode is back
  const T expected = tiny * T(0.25f);
  EXPECT_EQ(std::memcmp(c, &expected, sizeof(T)), 0) << c[0];
  EXPECT_NE(c[0], T(0));
}
#endif

// ---- special cases -----------------------------------------------------------------------------

TYPED_TEST(Blas, AlphaZeroReadsNeitherAnorBAndBetaZeroOverwritesNan) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> c(4 * 3, nan);
  Entry<T>::fortran("N", "N", 3, 3, 5, T(0), nullptr, 3, nullptr, 5, T(0), c.data(), 4);
  for (int64_t j = 0; j < 3; ++j) {
    for (int64_t i = 0; i < 4; ++i) {
      const T v = c[i + j * 4];
      if (i < 3)
        EXPECT_TRUE(v == T(0) && !std::signbit(v)) << i << "," << j;
      else
        EXPECT_TRUE(std::isnan(v)) << "row past M written";
    }
  }
  std::vector<T> d(3 * 3, nan);
  Entry<T>::cblas(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, 3, 3, 5, T(0), nullptr, 5, nullptr,
                  3, T(0), d.data(), 3);
  for (T v : d) EXPECT_TRUE(v == T(0) && !std::signbit(v));
  EXPECT_EQ(fortran_report.calls + cblas_report.calls, 0);
}

TYPED_TEST(Blas, BetaZeroNeverReadsCWhenComputing) {
  using T = TypeParam;
  ColumnMajorCase<T> x(false, true, {9, 7, 5}, 31);
  std::fill(x.c.begin(), x.c.end(), std::numeric_limits<T>::quiet_NaN());
  std::vector<T> c = x.c;
  Entry<T>::fortran("N", "T", x.m, x.n, x.k, T(0.7f), x.pa(), x.lda, x.pb(), x.ldb, T(0),
                    c.data() + x.kOffset, x.ldc);
  EXPECT_TRUE(same_bits(c, x.expected(T(0.7f), T(0))));
  for (int64_t j = 0; j < x.n; ++j)
    for (int64_t i = 0; i < x.m; ++i) EXPECT_FALSE(std::isnan(c[x.kOffset + i + j * x.ldc]));
}

TYPED_TEST(Blas, KZeroScalesCByBetaWithoutReadingAorB) {
  using T = TypeParam;
  std::vector<T> c = random_values<T>(6, 3), expected = c;
  for (T& v : expected) v = T(2.5f) * v;
  Entry<T>::fortran("T", "N", 2, 3, 0, T(0.7f), nullptr, 1, nullptr, 1, T(2.5f), c.data(), 2);
  EXPECT_TRUE(same_bits(c, expected));
  EXPECT_EQ(fortran_report.calls, 0);
}

TYPED_TEST(Blas, QuickReturnsTouchNothing) {
  using T = TypeParam;
  // M == 0 or N == 0: C may be null. (alpha == 0 or K == 0) and beta == 1: C untouched.
  Entry<T>::fortran("N", "N", 0, 3, 4, T(0.7f), nullptr, 1, nullptr, 4, T(0.5f), nullptr, 1);
  Entry<T>::fortran("N", "N", 3, 0, 4, T(0.7f), nullptr, 3, nullptr, 4, T(0.5f), nullptr, 3);
  Entry<T>::cblas(kCblasColMajor, kCblasNoTrans, kCblasNoTrans, 3, 3, 4, T(0), nullptr, 3, nullptr,
                  4, T(1), nullptr, 3);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> c(9, nan);
  Entry<T>::fortran("N", "N", 3, 3, 0, T(0.7f), nullptr, 3, nullptr, 1, T(1), c.data(), 3);
  for (T v : c) EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(fortran_report.calls + cblas_report.calls, 0);
}

// ---- error exits: Fortran --------------------------------------------------------------------

struct FortranBad {
  const char* what;
  const char *ta, *tb;
  FortranInt m, n, k, lda, ldb, ldc;
  int info;
};

const FortranBad kFortranBad[] = {
    {"bad TRANSA", "X", "N", 2, 2, 2, 2, 2, 2, 1},
    {"bad TRANSA before bad M", "x", "N", -1, 2, 2, 2, 2, 2, 1},
    {"bad TRANSB", "N", "Y", 2, 2, 2, 2, 2, 2, 2},
    {"negative M", "N", "N", -1, 2, 2, 2, 2, 2, 3},
    {"negative N", "T", "N", 2, -1, 2, 2, 2, 2, 4},
    {"negative K", "N", "T", 2, 2, -1, 2, 2, 2, 5},
    {"LDA < M, A not transposed", "N", "N", 3, 2, 2, 2, 2, 3, 8},
    {"LDA < K, A transposed", "T", "N", 2, 2, 3, 2, 3, 2, 8},
    {"LDA = 0 when M = 0", "N", "N", 0, 2, 2, 0, 2, 1, 8},
    {"LDB < K, B not transposed", "N", "N", 2, 2, 3, 2, 2, 2, 10},
    {"LDB < N, B transposed", "N", "t", 2, 3, 2, 2, 2, 2, 10},
    {"LDC < M", "N", "N", 3, 2, 2, 3, 2, 2, 13},
    {"LDC = 0 when N = 0", "N", "N", 0, 0, 0, 1, 1, 0, 13},
};

TYPED_TEST(Blas, FortranErrorExitsNameTheReferenceParameter) {
  using T = TypeParam;
  const std::vector<T> a = random_values<T>(64, 1), b = random_values<T>(64, 2);
  const std::vector<T> c0 = random_values<T>(64, 3);
  for (const FortranBad& bad : kFortranBad) {
    reset_reports();
    std::vector<T> c = c0;
    Entry<T>::fortran(bad.ta, bad.tb, bad.m, bad.n, bad.k, T(0.7f), a.data(), bad.lda, b.data(),
                      bad.ldb, T(0.5f), c.data(), bad.ldc);
    EXPECT_EQ(fortran_report.calls, 1) << bad.what;
    EXPECT_EQ(fortran_report.info, bad.info) << bad.what;
    EXPECT_EQ(fortran_report.name, Entry<T>::kFortranName) << bad.what;
    EXPECT_TRUE(same_bits(c, c0)) << bad.what << ": C changed";
    EXPECT_EQ(cblas_report.calls, 0);
  }
}

TYPED_TEST(Blas, FortranNullArraysTheCallNeedsAreInvalid) {
  using T = TypeParam;
  const std::vector<T> a = random_values<T>(16, 1), b = random_values<T>(16, 2);
  std::vector<T> c = random_values<T>(16, 3);
  const FortranInt m = 2, n = 2, k = 2, ld = 2;
  const T alpha = T(0.7f), beta = T(0.5f);
  struct {
    const T *a, *b;
    T* c;
    int info;
  } cases[] = {{nullptr, b.data(), c.data(), 7},
               {a.data(), nullptr, c.data(), 9},
               {a.data(), b.data(), nullptr, 12}};
  for (const auto& x : cases) {
    reset_reports();
    Entry<T>::fortran("N", "N", m, n, k, alpha, x.a, ld, x.b, ld, beta, x.c, ld);
    EXPECT_EQ(fortran_report.calls, 1);
    EXPECT_EQ(fortran_report.info, x.info);
  }
}

TEST(BlasFortran, NullScalarArgumentsAreInvalidNotDereferenced) {
  const float a[4] = {}, b[4] = {};
  float c[4] = {};
  const FortranInt two = 2;
  const float one = 1.0f;
  reset_reports();
  sgemm_(nullptr, "N", &two, &two, &two, &one, a, &two, b, &two, &one, c, &two);
  EXPECT_EQ(fortran_report.info, 1);
  reset_reports();
  sgemm_("N", "N", &two, nullptr, &two, &one, a, &two, b, &two, &one, c, &two);
  EXPECT_EQ(fortran_report.info, 4);
  reset_reports();
  sgemm_("N", "N", &two, &two, &two, nullptr, a, &two, b, &two, &one, c, &two);
  EXPECT_EQ(fortran_report.info, 6);
  reset_reports();
  sgemm_("N", "N", &two, &two, &two, &one, a, &two, b, &two, &one, c, nullptr);
  EXPECT_EQ(fortran_report.info, 13);
}

// ---- error exits: CBLAS ----------------------------------------------------------------------

struct CblasBad {
  const char* what;
  int layout, ta, tb, m, n, k, lda, ldb, ldc;
  int info;       // what cblas_xerbla receives (the reference CBLAS's position)
  int row_major;  // RowMajorStrg during the report
  int user;       // the caller's parameter it names, after the row-major mapping
};

const CblasBad kCblasBad[] = {
    {"bad layout", 99, kCblasNoTrans, kCblasNoTrans, 2, 2, 2, 2, 2, 2, 1, 0, 1},
    {"bad TransA, column-major", kCblasColMajor, 0, kCblasNoTrans, 2, 2, 2, 2, 2, 2, 2, 0, 2},
    {"bad TransA, row-major", kCblasRowMajor, 114, kCblasNoTrans, 2, 2, 2, 2, 2, 2, 2, 1, 2},
    {"bad TransB, column-major", kCblasColMajor, kCblasTrans, -1, 2, 2, 2, 2, 2, 2, 3, 0, 3},
    // The reference checks a row-major call's transposes as those of the column-major call for
    // C^T and reports an invalid TransB as position 2, as it reports TransA.
    {"bad TransB, row-major", kCblasRowMajor, kCblasTrans, 110, 2, 2, 2, 2, 2, 2, 2, 1, 2},
    {"negative M, column-major", kCblasColMajor, kCblasNoTrans, kCblasNoTrans, -1, 2, 2, 2, 2, 2, 4,
     0, 4},
    {"negative N, column-major", kCblasColMajor, kCblasNoTrans, kCblasNoTrans, 2, -1, 2, 2, 2, 2, 5,
     0, 5},
    {"negative K, column-major", kCblasColMajor, kCblasNoTrans, kCblasNoTrans, 2, 2, -1, 2, 2, 2, 6,
     0, 6},
    {"lda < M, column-major", kCblasColMajor, kCblasNoTrans, kCblasNoTrans, 3, 2, 2, 2, 2, 3, 9, 0,
     9},
    {"ldb < N, column-major, B transposed", kCblasColMajor, kCblasNoTrans, kCblasConjTrans, 2, 3, 2,
     2, 2, 2, 11, 0, 11},
    {"ldc < M, column-major", kCblasColMajor, kCblasNoTrans, kCblasNoTrans, 3, 2, 2, 3, 2, 2, 14, 0,
     14},
    // Row-major: the reference checks the column-major call for C^T (N, M, B, A exchanged).
    {"negative M, row-major", kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, -1, 2, 2, 2, 2, 2, 5, 1,
     4},
    {"negative N, row-major", kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, 2, -1, 2, 2, 2, 2, 4, 1,
     5},
    {"negative M and N, row-major: N first", kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, -1, -1,
     2, 2, 2, 2, 4, 1, 5},
    {"negative K, row-major", kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, 2, 2, -1, 2, 2, 2, 6, 1,
     6},
    {"lda < K, row-major", kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, 2, 2, 3, 2, 2, 2, 11, 1,
     9},
    {"lda < M, row-major, A transposed", kCblasRowMajor, kCblasTrans, kCblasNoTrans, 3, 2, 2, 2, 2,
     2, 11, 1, 9},
    {"ldb < N, row-major", kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, 2, 3, 2, 2, 2, 3, 9, 1,
     11},
    {"ldc < N, row-major", kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, 2, 3, 2, 2, 3, 2, 14, 1,
     14},
};

int user_position(int info, int row_major) {
  if (!row_major) return info;
  switch (info) {
    case 4: return 5;
    case 5: return 4;
    case 9: return 11;
    case 11: return 9;
    default: return info;
  }
}

TYPED_TEST(Blas, CblasErrorExitsFollowTheReferenceNumbering) {
  using T = TypeParam;
  const std::vector<T> a = random_values<T>(64, 1), b = random_values<T>(64, 2);
  const std::vector<T> c0 = random_values<T>(64, 3);
  for (const CblasBad& bad : kCblasBad) {
    reset_reports();
    RowMajorStrg = 0;
    std::vector<T> c = c0;
    Entry<T>::cblas(bad.layout, bad.ta, bad.tb, bad.m, bad.n, bad.k, T(0.7f), a.data(), bad.lda,
                    b.data(), bad.ldb, T(0.5f), c.data(), bad.ldc);
    EXPECT_EQ(cblas_report.calls, 1) << bad.what;
    EXPECT_EQ(cblas_report.name, Entry<T>::kCblasName) << bad.what;
    EXPECT_EQ(cblas_report.info, bad.info) << bad.what;
    EXPECT_EQ(cblas_report.row_major, bad.row_major) << bad.what;
    EXPECT_EQ(user_position(cblas_report.info, cblas_report.row_major), bad.user) << bad.what;
    EXPECT_EQ(RowMajorStrg, 0) << bad.what;
    EXPECT_TRUE(same_bits(c, c0)) << bad.what << ": C changed";
    EXPECT_EQ(fortran_report.calls, 0);
  }
}

TYPED_TEST(Blas, CblasNullArraysNameTheCallersArgument) {
  using T = TypeParam;
  const std::vector<T> a = random_values<T>(16, 1), b = random_values<T>(16, 2);
  std::vector<T> c = random_values<T>(16, 3);
  for (int layout : {kCblasRowMajor, kCblasColMajor}) {
    struct {
      const T *a, *b;
      T* c;
      int info;
    } cases[] = {{nullptr, b.data(), c.data(), 8},
                 {a.data(), nullptr, c.data(), 10},
                 {a.data(), b.data(), nullptr, 13}};
    for (const auto& x : cases) {
      reset_reports();
      Entry<T>::cblas(layout, kCblasNoTrans, kCblasNoTrans, 2, 2, 2, T(0.7f), x.a, 2, x.b, 2,
                      T(0.5f), x.c, 2);
      EXPECT_EQ(cblas_report.calls, 1);
      EXPECT_EQ(user_position(cblas_report.info, cblas_report.row_major), x.info) << layout;
    }
  }
}

// ---- the other products: gemv, dot, syrk, gemmt, symm, batched GEMM -----------------------------

// Element i of a vector of n elements with increment inc, as the reference BLAS walks it.
int64_t vector_offset(int64_t i, int64_t n, int64_t inc) {
  return inc > 0 ? i * inc : (n - 1 - i) * -inc;
}
int64_t vector_span(int64_t n, int64_t inc) { return n == 0 ? 0 : 1 + (n - 1) * std::abs(inc); }

// y = alpha * op(S) * x + beta * y for a row-major rows x cols S, as the row vector
// y^T = alpha * x^T * op(S)^T + beta * y^T: y[i] = chain of fma(alpha * x[j], op(S)[i][j], acc).
template <class T>
void gemv_reference(bool trans, int64_t rows, int64_t cols, T alpha, const T* s, int64_t lds,
                    const T* x, int64_t incx, T beta, T* y, int64_t incy) {
  const int64_t len_x = trans ? rows : cols, len_y = trans ? cols : rows;
  if (rows == 0 || cols == 0) return;
  for (int64_t i = 0; i < len_y; ++i) {
    T& yi = y[vector_offset(i, len_y, incy)];
    if (alpha == T(0)) {
      if (beta == T(0))
        yi = T(0);
      else if (beta != T(1))
        yi = beta * yi;
      continue;
    }
    T acc = beta == T(0) ? T(0) : beta * yi;
    for (int64_t j = 0; j < len_x; ++j) {
      const T sij = trans ? s[j * lds + i] : s[i * lds + j];
      acc = std::fma(alpha * x[vector_offset(j, len_x, incx)], sij, acc);
    }
    yi = acc;
  }
}

template <class T>
struct Routes;

template <>
struct Routes<float> {
  static constexpr const char* kGemv = "SGEMV ";
  static constexpr const char* kSyrk = "SSYRK ";
  static constexpr const char* kSymm = "SSYMM ";
  static constexpr const char* kGemmt = "SGEMMT";
  static constexpr auto gemv = sgemv_;
  static constexpr auto dot = sdot_;
  static constexpr auto syrk = ssyrk_;
  static constexpr auto symm = ssymm_;
  static constexpr auto gemmt = sgemmt_;
  static constexpr auto c_gemv = cblas_sgemv;
  static constexpr auto c_dot = cblas_sdot;
  static constexpr auto c_syrk = cblas_ssyrk;
  static constexpr auto c_symm = cblas_ssymm;
  static constexpr auto c_gemmt = cblas_sgemmt;
  static constexpr auto c_batch = cblas_sgemm_batch_strided;
};

template <>
struct Routes<double> {
  static constexpr const char* kGemv = "DGEMV ";
  static constexpr const char* kSyrk = "DSYRK ";
  static constexpr const char* kSymm = "DSYMM ";
  static constexpr const char* kGemmt = "DGEMMT";
  static constexpr auto gemv = dgemv_;
  static constexpr auto dot = ddot_;
  static constexpr auto syrk = dsyrk_;
  static constexpr auto symm = dsymm_;
  static constexpr auto gemmt = dgemmt_;
  static constexpr auto c_gemv = cblas_dgemv;
  static constexpr auto c_dot = cblas_ddot;
  static constexpr auto c_syrk = cblas_dsyrk;
  static constexpr auto c_symm = cblas_dsymm;
  static constexpr auto c_gemmt = cblas_dgemmt;
  static constexpr auto c_batch = cblas_dgemm_batch_strided;
};

// Fortran and both CBLAS layouts against the reference, every increment sign, beta == 0 over NaN.
TYPED_TEST(Blas, GemvEqualsTheRowVectorChainForEveryLayoutAndIncrement) {
  using T = TypeParam;
  using R = Routes<T>;
  const struct { int64_t rows, cols; } shapes[] = {{1, 1}, {3, 5}, {17, 33}, {64, 7}, {130, 97}};
  uint64_t seed = 5000;
  for (const auto& sh : shapes) {
    const int64_t lds = sh.cols + 2;
    const std::vector<T> a = random_values<T>(static_cast<std::size_t>(lds * sh.rows), ++seed);
    for (int api = 0; api < 3; ++api) {  // Fortran, CBLAS column-major, CBLAS row-major
      for (bool trans : {false, true}) {
        const int64_t len_x = trans ? sh.rows : sh.cols, len_y = trans ? sh.cols : sh.rows;
        for (int64_t incx : {1, 2, -1, -3}) {
          for (int64_t incy : {1, 3, -2}) {
            const std::vector<T> x =
                random_values<T>(static_cast<std::size_t>(vector_span(len_x, incx)), ++seed);
            for (float alpha : {0.7f, 1.0f, -1.0f, -1.3f, 0.0f}) {
              for (float beta : kBetas) {
                std::vector<T> y =
                    random_values<T>(static_cast<std::size_t>(vector_span(len_y, incy)), seed + 7);
                if (beta == 0.0f)
                  for (int64_t i = 0; i < len_y; ++i)
                    y[vector_offset(i, len_y, incy)] = std::numeric_limits<T>::quiet_NaN();
                std::vector<T> expected = y;
                gemv_reference<T>(trans, sh.rows, sh.cols, T(alpha), a.data(), lds, x.data(), incx,
                                  T(beta), expected.data(), incy);
                const T al = T(alpha), be = T(beta);
                const FortranInt ix = static_cast<FortranInt>(incx),
                                 iy = static_cast<FortranInt>(incy);
                if (api == 0) {
                  // The row-major rows x cols S is the column-major cols x rows S^T.
                  const FortranInt m = sh.cols, n = sh.rows, ld = lds;
                  R::gemv(trans ? "N" : "T", &m, &n, &al, a.data(), &ld, x.data(), &ix, &be,
                          y.data(), &iy);
                } else if (api == 1) {
                  R::c_gemv(kCblasColMajor, trans ? kCblasNoTrans : kCblasTrans, sh.cols, sh.rows,
                            al, a.data(), lds, x.data(), ix, be, y.data(), iy);
                } else {
                  R::c_gemv(kCblasRowMajor, trans ? kCblasTrans : kCblasNoTrans, sh.rows, sh.cols,
                            al, a.data(), lds, x.data(), ix, be, y.data(), iy);
                }
                ASSERT_TRUE(same_bits(y, expected))
                    << "api " << api << " trans " << trans << " " << sh.rows << "x" << sh.cols
                    << " incx " << incx << " incy " << incy << " alpha " << alpha << " beta "
                    << beta;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(fortran_report.calls + cblas_report.calls, 0);
}

// A row computed alone (gemv, as numpy's x @ W and x @ W.T call it) has the bits of that row of
// the whole product (gemm, as numpy's X @ W calls it), in both layouts.
TYPED_TEST(Blas, GemvRowsEqualTheRowsOfTheGemmProduct) {
  using T = TypeParam;
  using R = Routes<T>;
  const int rows = 37, k = 301, n = 45;
  const std::vector<T> x = random_values<T>(rows * k, 61), w = random_values<T>(k * n, 62);
  const std::vector<T> c0 = random_values<T>(rows * n, 63);
  for (float alpha : {1.0f, 0.7f}) {
    for (float beta : {0.0f, -0.6f}) {
      // Row-major X (rows x k) @ W (k x n) and X @ W2^T with W2 = the n x k matrix w.
      for (bool w_transposed : {false, true}) {
        std::vector<T> c = c0;
        Entry<T>::cblas(kCblasRowMajor, kCblasNoTrans, w_transposed ? kCblasTrans : kCblasNoTrans,
                        rows, n, k, T(alpha), x.data(), k, w.data(), w_transposed ? k : n, T(beta),
                        c.data(), n);
        for (int i = 0; i < rows; ++i) {
          std::vector<T> y(c0.begin() + i * n, c0.begin() + (i + 1) * n);
          if (w_transposed)
            R::c_gemv(kCblasRowMajor, kCblasNoTrans, n, k, T(alpha), w.data(), k, x.data() + i * k,
                      1, T(beta), y.data(), 1);
          else
            R::c_gemv(kCblasRowMajor, kCblasTrans, k, n, T(alpha), w.data(), n, x.data() + i * k, 1,
                      T(beta), y.data(), 1);
          ASSERT_EQ(std::memcmp(y.data(), c.data() + i * n, n * sizeof(T)), 0)
              << "row " << i << " w_transposed " << w_transposed << " alpha " << alpha;
        }
      }
      // Column-major: C (rows x n) = X (rows x k, ld rows) * W (k x n, ld k); row i of C is
      // gemv('T') of W with x = row i of X (increment rows) into row i of C (increment rows).
      std::vector<T> c = c0;
      Entry<T>::fortran("N", "N", rows, n, k, T(alpha), x.data(), rows, w.data(), k, T(beta),
                        c.data(), rows);
      std::vector<T> by_rows = c0;
      const FortranInt fk = k, fn = n, inc = rows;
      const T al = T(alpha), be = T(beta);
      for (int i = 0; i < rows; ++i)
        R::gemv("T", &fk, &fn, &al, w.data(), &fk, x.data() + i, &inc, &be, by_rows.data() + i,
                &inc);
      EXPECT_TRUE(same_bits(by_rows, c)) << "column-major alpha " << alpha << " beta " << beta;
    }
  }
}

TYPED_TEST(Blas, DotIsOneFmaChainFromZeroInIncreasingIndex) {
  using T = TypeParam;
  using R = Routes<T>;
  uint64_t seed = 7000;
  for (int64_t n : {0, 1, 2, 7, 100, 1001}) {
    for (int64_t incx : {1, 2, -1, -3, 0}) {
      for (int64_t incy : {1, 3, -2}) {
        const std::vector<T> x = random_values<T>(
            static_cast<std::size_t>(std::max<int64_t>(1, vector_span(n, incx))), ++seed);
        const std::vector<T> y = random_values<T>(
            static_cast<std::size_t>(std::max<int64_t>(1, vector_span(n, incy))), ++seed);
        T expected = T(0);
        for (int64_t i = 0; i < n; ++i)
          expected = std::fma(x[incx == 0 ? 0 : vector_offset(i, n, incx)],
                              y[vector_offset(i, n, incy)], expected);
        const FortranInt fn = static_cast<FortranInt>(n), ix = static_cast<FortranInt>(incx),
                         iy = static_cast<FortranInt>(incy);
        const T fortran = R::dot(&fn, x.data(), &ix, y.data(), &iy);
        const T cblas = R::c_dot(fn, x.data(), ix, y.data(), iy);
        EXPECT_EQ(std::memcmp(&fortran, &expected, sizeof(T)), 0)
            << n << " " << incx << " " << incy << ": " << fortran << " vs " << expected;
        EXPECT_EQ(std::memcmp(&cblas, &expected, sizeof(T)), 0) << n << " " << incx << " " << incy;
      }
    }
  }
}

// The triangle of C from a product through gemm in the same layout, the other triangle (and the
// padding beyond n) as it was.
template <class T>
std::vector<T> triangle_of(const std::vector<T>& product, const std::vector<T>& before,
                           bool row_major, bool upper, int64_t n, int64_t ldc) {
  std::vector<T> out = before;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (upper ? i <= j : i >= j) {
        const int64_t at = row_major ? i * ldc + j : i + j * ldc;
        out[at] = product[at];
      }
  return out;
}

// syrk's triangle is gemm's A * A^T (A^T * A) bit for bit, in each layout; the other triangle is
// not written.
TYPED_TEST(Blas, SyrkTriangleEqualsGemmOfAandItsTranspose) {
  using T = TypeParam;
  using R = Routes<T>;
  uint64_t seed = 8000;
  for (int64_t n : {1, 5, 96, 97, 150, 257}) {
    for (int64_t k : {1, 33, 100}) {
      for (int api = 0; api < 3; ++api) {  // Fortran, CBLAS column-major, CBLAS row-major
        const bool row_major = api == 2;
        for (bool trans : {false, true}) {
          const int64_t rows_a = row_major != trans ? n : k, cols_a = row_major != trans ? k : n;
          const int64_t lda = cols_a + 1, ldc = n + 2;
          // Stored row-major (rows_a x cols_a) or column-major (rows x cols of op): as the bytes.
          const std::vector<T> a = random_values<T>(static_cast<std::size_t>(lda * rows_a), ++seed);
          const std::vector<T> c0 = random_values<T>(static_cast<std::size_t>(ldc * n), ++seed);
          (void)rows_a;
          for (bool upper : {false, true}) {
            for (float alpha : {0.7f, 1.0f, 0.0f}) {
              for (float beta : kBetas) {
                const int tr = trans ? kCblasTrans : kCblasNoTrans;
                const int ntr = trans ? kCblasNoTrans : kCblasTrans;
                std::vector<T> full = c0, c = c0;
                const T al = T(alpha), be = T(beta);
                if (row_major)
                  Entry<T>::cblas(kCblasRowMajor, tr, ntr, n, n, k, al, a.data(), lda, a.data(),
                                  lda, be, full.data(), ldc);
                else
                  Entry<T>::fortran(trans ? "T" : "N", trans ? "N" : "T", n, n, k, al, a.data(),
                                    lda, a.data(), lda, be, full.data(), ldc);
                const std::vector<T> expected = triangle_of(full, c0, row_major, upper, n, ldc);
                if (api == 0) {
                  const FortranInt fn = n, fk = k, flda = lda, fldc = ldc;
                  R::syrk(upper ? "U" : "L", trans ? "T" : "N", &fn, &fk, &al, a.data(), &flda, &be,
                          c.data(), &fldc);
                } else {
                  R::c_syrk(row_major ? kCblasRowMajor : kCblasColMajor,
                            upper ? kCblasUpper : kCblasLower, tr, n, k, al, a.data(), lda, be,
                            c.data(), ldc);
                }
                ASSERT_TRUE(same_bits(c, expected))
                    << "api " << api << " n " << n << " k " << k << " trans " << trans << " upper "
                    << upper << " alpha " << alpha << " beta " << beta;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(fortran_report.calls + cblas_report.calls, 0);
}

TYPED_TEST(Blas, GemmtTriangleEqualsGemm) {
  using T = TypeParam;
  using R = Routes<T>;
  uint64_t seed = 9000;
  for (int64_t n : {3, 97, 203}) {
    const int64_t k = 41;
    for (int api = 0; api < 3; ++api) {
      const bool row_major = api == 2;
      for (int ta = 0; ta < 2; ++ta) {
        for (int tb = 0; tb < 2; ++tb) {
          const int64_t lda = (row_major != static_cast<bool>(ta) ? k : n) + 3;
          const int64_t ldb = (row_major != static_cast<bool>(tb) ? n : k) + 1;
          const int64_t ldc = n + 1;
          const std::vector<T> a =
              random_values<T>(static_cast<std::size_t>(lda * std::max(n, k)), ++seed);
          const std::vector<T> b =
              random_values<T>(static_cast<std::size_t>(ldb * std::max(n, k)), ++seed);
          const std::vector<T> c0 = random_values<T>(static_cast<std::size_t>(ldc * n), ++seed);
          for (bool upper : {false, true}) {
            for (float alpha : {0.7f, -1.0f}) {
              for (float beta : {0.0f, -0.6f}) {
                const T al = T(alpha), be = T(beta);
                const int cta = ta ? kCblasTrans : kCblasNoTrans,
                          ctb = tb ? kCblasTrans : kCblasNoTrans;
                std::vector<T> full = c0, c = c0;
                if (row_major)
                  Entry<T>::cblas(kCblasRowMajor, cta, ctb, n, n, k, al, a.data(), lda, b.data(),
                                  ldb, be, full.data(), ldc);
                else
                  Entry<T>::fortran(ta ? "T" : "N", tb ? "T" : "N", n, n, k, al, a.data(), lda,
                                    b.data(), ldb, be, full.data(), ldc);
                const std::vector<T> expected = triangle_of(full, c0, row_major, upper, n, ldc);
                if (api == 0) {
                  const FortranInt fn = n, fk = k, flda = lda, fldb = ldb, fldc = ldc;
                  R::gemmt(upper ? "U" : "L", ta ? "T" : "N", tb ? "T" : "N", &fn, &fk, &al,
                           a.data(), &flda, b.data(), &fldb, &be, c.data(), &fldc);
                } else {
                  R::c_gemmt(row_major ? kCblasRowMajor : kCblasColMajor,
                             upper ? kCblasUpper : kCblasLower, cta, ctb, n, k, al, a.data(), lda,
                             b.data(), ldb, be, c.data(), ldc);
                }
                ASSERT_TRUE(same_bits(c, expected)) << "api " << api << " n " << n << " ta " << ta
                                                    << " tb " << tb << " upper " << upper;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(fortran_report.calls + cblas_report.calls, 0);
}

// A column-major call with alpha other than 0 and +-1 scales op(A) into bands of at most
// kScaledElements elements (layouts.h); here two, the second one column wide, so that a band's
// rectangle beside its diagonal block is exercised on both sides.
TYPED_TEST(Blas, SyrkInBandsEqualsGemm) {
  using T = TypeParam;
  using R = Routes<T>;
  const int64_t n = 100, k = 21000;
  static_assert(100 * 21000 > (int64_t{1} << 21) && (int64_t{1} << 21) / 21000 == 99);
  const std::vector<T> a = random_values<T>(static_cast<std::size_t>(n * k), 9400);
  const std::vector<T> c0 = random_values<T>(static_cast<std::size_t>(n * n), 9401);
  const T al = T(0.7), be = T(-0.6);
  std::vector<T> full = c0;
  Entry<T>::fortran("N", "T", n, n, k, al, a.data(), n, a.data(), n, be, full.data(), n);
  for (bool upper : {false, true}) {
    std::vector<T> c = c0;
    const FortranInt fn = n, fk = k;
    R::syrk(upper ? "U" : "L", "N", &fn, &fk, &al, a.data(), &fn, &be, c.data(), &fn);
    ASSERT_TRUE(same_bits(c, triangle_of(full, c0, false, upper, n, n))) << "upper " << upper;
  }
  EXPECT_EQ(fortran_report.calls + cblas_report.calls, 0);
}

// symm is gemm with the symmetric matrix written out; the triangle it does not reference is NaN.
TYPED_TEST(Blas, SymmEqualsGemmOfTheFullSymmetricMatrix) {
  using T = TypeParam;
  using R = Routes<T>;
  uint64_t seed = 9500;
  const int64_t m = 37, n = 29;
  for (int api = 0; api < 3; ++api) {
    const bool row_major = api == 2;
    for (bool left : {true, false}) {
      for (bool upper : {true, false}) {
        const int64_t ka = left ? m : n, lda = ka + 2;
        const int64_t ldb = (row_major ? n : m) + 1, ldc = (row_major ? n : m) + 3;
        const int64_t c_lines = row_major ? m : n;
        std::vector<T> a = random_values<T>(static_cast<std::size_t>(lda * ka), ++seed);
        std::vector<T> full(static_cast<std::size_t>(ka * ka));
        for (int64_t i = 0; i < ka; ++i)
          for (int64_t j = 0; j < ka; ++j) {
            const bool referenced = upper ? i <= j : i >= j;
            const int64_t at = row_major ? i * lda + j : i + j * lda;
            if (!referenced) a[at] = std::numeric_limits<T>::quiet_NaN();
          }
        for (int64_t i = 0; i < ka; ++i)
          for (int64_t j = 0; j < ka; ++j) {
            const int64_t r = (upper ? i <= j : i >= j) ? i : j, q = r == i ? j : i;
            full[i * ka + j] = a[row_major ? r * lda + q : r + q * lda];
          }
        const std::vector<T> b =
            random_values<T>(static_cast<std::size_t>(ldb * (row_major ? m : n)), ++seed);
        const std::vector<T> c0 = random_values<T>(static_cast<std::size_t>(ldc * c_lines), ++seed);
        for (float alpha : {0.7f, 1.0f}) {
          for (float beta : {0.0f, -0.6f}) {
            const T al = T(alpha), be = T(beta);
            std::vector<T> expected = c0, c = c0;
            const int layout = row_major ? kCblasRowMajor : kCblasColMajor;
            if (row_major) {
              if (left)
                Entry<T>::cblas(layout, kCblasNoTrans, kCblasNoTrans, m, n, m, al, full.data(), ka,
                                b.data(), ldb, be, expected.data(), ldc);
              else
                Entry<T>::cblas(layout, kCblasNoTrans, kCblasNoTrans, m, n, n, al, b.data(), ldb,
                                full.data(), ka, be, expected.data(), ldc);
            } else {
              if (left)
                Entry<T>::fortran("N", "N", m, n, m, al, full.data(), ka, b.data(), ldb, be,
                                  expected.data(), ldc);
              else
                Entry<T>::fortran("N", "N", m, n, n, al, b.data(), ldb, full.data(), ka, be,
                                  expected.data(), ldc);
            }
            if (api == 0) {
              const FortranInt fm = m, fn = n, flda = lda, fldb = ldb, fldc = ldc;
              R::symm(left ? "L" : "R", upper ? "U" : "L", &fm, &fn, &al, a.data(), &flda, b.data(),
                      &fldb, &be, c.data(), &fldc);
            } else {
              R::c_symm(layout, left ? kCblasLeft : kCblasRight, upper ? kCblasUpper : kCblasLower,
                        m, n, al, a.data(), lda, b.data(), ldb, be, c.data(), ldc);
            }
            ASSERT_TRUE(same_bits(c, expected))
                << "api " << api << " left " << left << " upper " << upper << " alpha " << alpha;
          }
        }
      }
    }
  }
  EXPECT_EQ(fortran_report.calls + cblas_report.calls, 0);
}

TYPED_TEST(Blas, BatchStridedEqualsOneGemmPerEntry) {
  using T = TypeParam;
  using R = Routes<T>;
  const int m = 13, n = 11, k = 17, batch = 5;
  for (int layout : {kCblasRowMajor, kCblasColMajor}) {
    for (int ta : {kCblasNoTrans, kCblasTrans}) {
      for (int tb : {kCblasNoTrans, kCblasTrans}) {
        const bool row_major = layout == kCblasRowMajor;
        const bool tra = ta == kCblasTrans, trb = tb == kCblasTrans;
        const int lda = (row_major != tra ? k : m) + 1, ldb = (row_major != trb ? n : k) + 2;
        const int ldc = (row_major ? n : m) + 1;
        const int sa = lda * std::max(m, k) + 3, sb = ldb * std::max(n, k),
                  sc = ldc * std::max(m, n) + 1;
        const std::vector<T> a = random_values<T>(sa * batch, 31),
                             b = random_values<T>(sb * batch, 32);
        const std::vector<T> c0 = random_values<T>(sc * batch, 33);
        for (float alpha : {0.7f, 1.0f, 0.0f}) {
          for (float beta : {0.0f, -0.6f, 1.0f}) {
            std::vector<T> c = c0, expected = c0;
            for (int i = 0; i < batch; ++i)
              Entry<T>::cblas(layout, ta, tb, m, n, k, T(alpha), a.data() + i * sa, lda,
                              b.data() + i * sb, ldb, T(beta), expected.data() + i * sc, ldc);
            R::c_batch(layout, ta, tb, m, n, k, T(alpha), a.data(), lda, sa, b.data(), ldb, sb,
                       T(beta), c.data(), ldc, sc, batch);
            ASSERT_TRUE(same_bits(c, expected))
                << layout << " " << ta << " " << tb << " alpha " << alpha << " beta " << beta;
          }
        }
        // A shared B (stride 0).
        std::vector<T> c = c0, expected = c0;
        for (int i = 0; i < batch; ++i)
          Entry<T>::cblas(layout, ta, tb, m, n, k, T(0.7f), a.data() + i * sa, lda, b.data(), ldb,
                          T(0.5f), expected.data() + i * sc, ldc);
        R::c_batch(layout, ta, tb, m, n, k, T(0.7f), a.data(), lda, sa, b.data(), ldb, 0, T(0.5f),
                   c.data(), ldc, sc, batch);
        EXPECT_TRUE(same_bits(c, expected)) << "shared B";
      }
    }
  }
  EXPECT_EQ(fortran_report.calls + cblas_report.calls, 0);
}

// ---- error exits of the other products ---------------------------------------------------------

TYPED_TEST(Blas, RouteFortranErrorExitsNameTheReferenceParameter) {
  using T = TypeParam;
  using R = Routes<T>;
  const std::vector<T> a = random_values<T>(64, 1), b = random_values<T>(64, 2);
  const std::vector<T> c0 = random_values<T>(64, 3);
  const T one = T(1);
  auto expect = [&](const char* name, int info, const std::vector<T>& c, const char* what) {
    EXPECT_EQ(fortran_report.calls, 1) << what;
    EXPECT_EQ(fortran_report.name, name) << what;
    EXPECT_EQ(fortran_report.info, info) << what;
    EXPECT_TRUE(same_bits(c, c0)) << what << ": output changed";
    EXPECT_EQ(cblas_report.calls, 0) << what;
    reset_reports();
  };
  const FortranInt m1 = -1, z = 0, two = 2, three = 3;
  std::vector<T> c = c0;
  reset_reports();
  R::gemv("X", &two, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kGemv, 1, c, "gemv trans");
  R::gemv("N", &m1, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kGemv, 2, c, "gemv m");
  R::gemv("T", &two, &m1, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kGemv, 3, c, "gemv n");
  R::gemv("N", &three, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kGemv, 6, c, "gemv lda");
  R::gemv("N", &two, &two, &one, a.data(), &two, b.data(), &z, &one, c.data(), &two);
  expect(R::kGemv, 8, c, "gemv incx");
  R::gemv("N", &two, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &z);
  expect(R::kGemv, 11, c, "gemv incy");
  R::syrk("X", "N", &two, &two, &one, a.data(), &two, &one, c.data(), &two);
  expect(R::kSyrk, 1, c, "syrk uplo");
  R::syrk("U", "X", &two, &two, &one, a.data(), &two, &one, c.data(), &two);
  expect(R::kSyrk, 2, c, "syrk trans");
  R::syrk("U", "N", &m1, &two, &one, a.data(), &two, &one, c.data(), &two);
  expect(R::kSyrk, 3, c, "syrk n");
  R::syrk("L", "T", &two, &m1, &one, a.data(), &two, &one, c.data(), &two);
  expect(R::kSyrk, 4, c, "syrk k");
  R::syrk("L", "T", &two, &three, &one, a.data(), &two, &one, c.data(), &two);
  expect(R::kSyrk, 7, c, "syrk lda (k rows when transposed)");
  R::syrk("L", "N", &three, &two, &one, a.data(), &three, &one, c.data(), &two);
  expect(R::kSyrk, 10, c, "syrk ldc");
  R::symm("X", "U", &two, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kSymm, 1, c, "symm side");
  R::symm("L", "X", &two, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kSymm, 2, c, "symm uplo");
  R::symm("L", "U", &m1, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kSymm, 3, c, "symm m");
  R::symm("R", "U", &two, &m1, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kSymm, 4, c, "symm n");
  R::symm("R", "U", &two, &three, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kSymm, 7, c, "symm lda (n when right)");
  R::symm("L", "U", &three, &two, &one, a.data(), &three, b.data(), &two, &one, c.data(), &three);
  expect(R::kSymm, 9, c, "symm ldb");
  R::symm("L", "U", &three, &two, &one, a.data(), &three, b.data(), &three, &one, c.data(), &two);
  expect(R::kSymm, 12, c, "symm ldc");
  R::gemmt("X", "N", "N", &two, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kGemmt, 1, c, "gemmt uplo");
  R::gemmt("U", "X", "N", &two, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kGemmt, 2, c, "gemmt transa");
  R::gemmt("U", "N", "X", &two, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kGemmt, 3, c, "gemmt transb");
  R::gemmt("U", "N", "N", &m1, &two, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kGemmt, 4, c, "gemmt n");
  R::gemmt("U", "N", "N", &two, &m1, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kGemmt, 5, c, "gemmt k");
  R::gemmt("U", "T", "N", &two, &three, &one, a.data(), &two, b.data(), &three, &one, c.data(),
           &two);
  expect(R::kGemmt, 8, c, "gemmt lda");
  R::gemmt("U", "N", "N", &two, &three, &one, a.data(), &two, b.data(), &two, &one, c.data(), &two);
  expect(R::kGemmt, 10, c, "gemmt ldb");
  R::gemmt("U", "N", "N", &three, &two, &one, a.data(), &three, b.data(), &two, &one, c.data(),
           &two);
  expect(R::kGemmt, 13, c, "gemmt ldc");
}

// CBLAS: what cblas_xerbla receives (through this program's xerbla_ for the Fortran-list checks)
// and RowMajorStrg while it runs, as Debian's reference libblas.so.3 reports the same calls.
TYPED_TEST(Blas, RouteCblasErrorExitsFollowTheReferenceNumbering) {
  using T = TypeParam;
  using R = Routes<T>;
  const std::vector<T> a = random_values<T>(64, 1), b = random_values<T>(64, 2);
  const std::vector<T> c0 = random_values<T>(64, 3);
  const bool is_float = sizeof(T) == 4;
  auto expect = [&](const char* rout, int info, int row_major, const std::vector<T>& c,
                    const char* what) {
    EXPECT_EQ(cblas_report.calls, 1) << what;
    EXPECT_EQ(cblas_report.name, std::string("cblas_") + (is_float ? "s" : "d") + rout) << what;
    EXPECT_EQ(cblas_report.info, info) << what;
    EXPECT_EQ(cblas_report.row_major, row_major) << what;
    EXPECT_EQ(RowMajorStrg, 0) << what;
    EXPECT_EQ(CBLAS_CallFromC, 0) << what;
    EXPECT_TRUE(same_bits(c, c0)) << what << ": output changed";
    EXPECT_EQ(fortran_report.calls, 0) << what;
    reset_reports();
  };
  const int RM = kCblasRowMajor, CM = kCblasColMajor, N = kCblasNoTrans, TT = kCblasTrans;
  const int U = kCblasUpper, L = kCblasLower;
  std::vector<T> c = c0;
  reset_reports();
  R::c_gemv(7, N, 2, 2, 1, a.data(), 2, b.data(), 1, 1, c.data(), 1);
  expect("gemv", 1, 0, c, "gemv layout");
  R::c_gemv(RM, 1, 2, 2, 1, a.data(), 2, b.data(), 1, 1, c.data(), 1);
  expect("gemv", 2, 1, c, "gemv trans");
  R::c_gemv(RM, N, -1, 2, 1, a.data(), 2, b.data(), 1, 1, c.data(), 1);
  expect("gemv", 4, 1, c, "gemv row-major M (reported as N of the column-major call)");
  R::c_gemv(CM, N, -1, 2, 1, a.data(), 2, b.data(), 1, 1, c.data(), 1);
  expect("gemv", 3, 0, c, "gemv column-major M");
  R::c_gemv(RM, N, 2, 3, 1, a.data(), 2, b.data(), 1, 1, c.data(), 1);
  expect("gemv", 7, 1, c, "gemv row-major lda < N");
  R::c_gemv(RM, N, 2, 2, 1, a.data(), 2, b.data(), 0, 1, c.data(), 1);
  expect("gemv", 9, 1, c, "gemv incx");
  R::c_gemv(CM, TT, 2, 2, 1, a.data(), 2, b.data(), 1, 1, c.data(), 0);
  expect("gemv", 12, 0, c, "gemv incy");
  R::c_syrk(RM, 5, N, 2, 2, 1, a.data(), 2, 1, c.data(), 2);
  expect("syrk", 2, 1, c, "syrk uplo");
  R::c_syrk(CM, U, 5, 2, 2, 1, a.data(), 2, 1, c.data(), 2);
  expect("syrk", 3, 0, c, "syrk trans");
  R::c_syrk(RM, U, N, -1, 2, 1, a.data(), 2, 1, c.data(), 2);
  expect("syrk", 4, 1, c, "syrk n");
  R::c_syrk(RM, L, N, 2, 3, 1, a.data(), 2, 1, c.data(), 2);
  expect("syrk", 8, 1, c, "syrk row-major lda < K");
  R::c_syrk(CM, L, N, 3, 2, 1, a.data(), 3, 1, c.data(), 2);
  expect("syrk", 11, 0, c, "syrk ldc");
  R::c_symm(CM, 3, U, 2, 2, 1, a.data(), 2, b.data(), 2, 1, c.data(), 2);
  expect("symm", 2, 0, c, "symm side");
  R::c_symm(CM, kCblasLeft, 3, 2, 2, 1, a.data(), 2, b.data(), 2, 1, c.data(), 2);
  expect("symm", 3, 0, c, "symm uplo");
  R::c_symm(RM, kCblasLeft, U, -1, 2, 1, a.data(), 2, b.data(), 2, 1, c.data(), 2);
  expect("symm", 5, 1, c, "symm row-major M (reported as N)");
  R::c_symm(CM, kCblasLeft, U, 3, 2, 1, a.data(), 2, b.data(), 3, 1, c.data(), 3);
  expect("symm", 8, 0, c, "symm lda");
  R::c_gemmt(CM, 1, N, N, 2, 2, 1, a.data(), 2, b.data(), 2, 1, c.data(), 2);
  expect("gemmt", 2, 0, c, "gemmt uplo");
  R::c_gemmt(CM, U, 1, N, 2, 2, 1, a.data(), 2, b.data(), 2, 1, c.data(), 2);
  expect("gemmt", 3, 0, c, "gemmt transa");
  R::c_gemmt(RM, U, N, 1, 2, 2, 1, a.data(), 2, b.data(), 2, 1, c.data(), 2);
  expect("gemmt", 4, 1, c, "gemmt transb");
  R::c_gemmt(CM, U, N, N, -1, 2, 1, a.data(), 2, b.data(), 2, 1, c.data(), 2);
  expect("gemmt", 5, 0, c, "gemmt n");
  R::c_gemmt(RM, U, N, N, 2, 3, 1, a.data(), 2, b.data(), 2, 1, c.data(), 2);
  expect("gemmt", 11, 1, c, "gemmt row-major lda < K (the column-major call's ldb)");
  const std::string batch = "gemm_batch_strided";
  R::c_batch(RM, N, N, 2, 2, 2, 1, a.data(), 2, 4, b.data(), 2, 4, 1, c.data(), 2, 4, -1);
  expect(batch.c_str(), 18, 0, c, "batch size");
  R::c_batch(RM, N, N, 2, 2, 3, 1, a.data(), 2, 6, b.data(), 2, 6, 1, c.data(), 2, 4, 2);
  expect(batch.c_str(), 9, 0, c, "batch row-major lda < K");
  R::c_batch(CM, N, N, -1, 2, 2, 1, a.data(), 2, 4, b.data(), 2, 4, 1, c.data(), 2, 4, 2);
  expect(batch.c_str(), 4, 0, c, "batch M");
  R::c_batch(RM, N, N, 2, 2, 2, 1, a.data(), 2, 4, b.data(), 2, 4, 1, c.data(), 2, 1, 3);
  expect(batch.c_str(), 17, 0, c, "batch: overlapping C");
}

#if defined(__x86_64__)
// The library reads alpha, beta and the data in its own floating-point mode: with DAZ | FTZ in
// the caller's MXCSR a subnormal alpha is neither taken for 0 (which would make beta == 1 a quick
// return) nor its products flushed, and the caller's MXCSR, exception flags included, is as the
// caller left it.
TEST(BlasFpMode, SubnormalAlphaUnderCallerDazFtzGivesExactResults) {
  const float alpha = 0x1.8p-147f;  // subnormal
  const float one = 1.0f, a[1] = {1.0f}, x[1] = {1.0f};
  const FortranInt n1 = 1;
  const unsigned saved = _mm_getcsr();
  const unsigned caller = (saved | 0x8040 | 0x0020) & ~0x0010u;  // FTZ, DAZ, precision flag set
  auto check = [&](const char* what, float got, float want) {
    EXPECT_EQ(std::memcmp(&got, &want, sizeof got), 0) << what << ": " << got;
  };
  float c[1] = {0.0f};
  _mm_setcsr(caller);
  sgemm_("N", "N", &n1, &n1, &n1, &alpha, a, &n1, x, &n1, &one, c, &n1);
  unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  EXPECT_EQ(after, caller) << "sgemm_";
  check("sgemm_ (beta 1)", c[0], alpha);

  c[0] = 0.0f;
  _mm_setcsr(caller);
  cblas_sgemm(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, 1, 1, 1, alpha, a, 1, x, 1, 1.0f, c, 1);
  after = _mm_getcsr();
  _mm_setcsr(saved);
  EXPECT_EQ(after, caller) << "cblas_sgemm";
  check("cblas_sgemm (beta 1)", c[0], alpha);

  c[0] = 0.0f;
  _mm_setcsr(caller);
  sgemv_("N", &n1, &n1, &alpha, a, &n1, x, &n1, &one, c, &n1);
  after = _mm_getcsr();
  _mm_setcsr(saved);
  EXPECT_EQ(after, caller) << "sgemv_";
  check("sgemv_ (beta 1)", c[0], alpha);

  c[0] = 0.0f;
  _mm_setcsr(caller);
  cblas_sgemv(kCblasRowMajor, kCblasNoTrans, 1, 1, alpha, a, 1, x, 1, 1.0f, c, 1);
  after = _mm_getcsr();
  _mm_setcsr(saved);
  EXPECT_EQ(after, caller) << "cblas_sgemv";
  check("cblas_sgemv (beta 1)", c[0], alpha);

  const float xs[2] = {alpha, 0x1p-149f}, ys[2] = {1.0f, 1.0f};
  const FortranInt n2 = 2;
  _mm_setcsr(caller);
  const float d1 = sdot_(&n2, xs, &n1, ys, &n1);
  const float d2 = cblas_sdot(2, xs, 1, ys, 1);
  after = _mm_getcsr();
  _mm_setcsr(saved);
  EXPECT_EQ(after, caller) << "sdot";
  check("sdot_", d1, alpha + 0x1p-149f);
  check("cblas_sdot", d2, alpha + 0x1p-149f);
}
#endif

}  // namespace

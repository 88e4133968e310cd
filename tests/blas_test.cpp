// libinvar_blas: the Fortran and CBLAS GEMM entry points against invar's contract for the
// caller's logical matrices (memcmp-exact), the reference error exits, and the reference special
// cases. This program replaces xerbla_ and cblas_xerbla (as the reference testers do) to see
// every report instead of ending.
#include <gtest/gtest.h>

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
using invar::blas::kCblasNoTrans;
using invar::blas::kCblasRowMajor;
using invar::blas::kCblasTrans;

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

extern "C" void xerbla_(const char* name, const FortranInt* info, std::size_t name_length) {
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
    {"bad TransB, row-major", kCblasRowMajor, kCblasTrans, 110, 2, 2, 2, 2, 2, 2, 3, 1, 3},
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

}  // namespace

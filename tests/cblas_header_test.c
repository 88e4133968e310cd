/* cblas.h as a program sees it, compiled as C here and as C++ by cblas_header_test.cpp (which
 * includes this file):
 *   - the enumerations have the reference values, under both the CBLAS_LAYOUT and the older
 *     CBLAS_ORDER names;
 *   - every routine has the type of the reference / OpenBLAS prototype, written out again here;
 *   - every routine libinvar_blas exports is linked (its address taken), and cblas_sgemm and
 *     cblas_dgemm called through the header's enumerations give invar_sgemm's / invar_dgemm's
 *     bits. Routines declared by the header but not yet exported by this build of the library
 *     are type-checked only, unless INVAR_CBLAS_TEST_LINK_PENDING is 1 (tests/CMakeLists.txt
 *     lists them).
 */
#include <cblas.h>
#include <invar/invar.h>
#include <stdio.h>
#include <string.h>

#ifndef INVAR_CBLAS_TEST_LINK_PENDING
#define INVAR_CBLAS_TEST_LINK_PENDING 0
#endif

#ifdef __cplusplus
#include <type_traits>
#define CHECK_TYPE(fn, type) static_assert(std::is_same<decltype(&fn), type *>::value, #fn)
#define STATIC_CHECK(cond) static_assert(cond, #cond)
typedef void (*any_fn)(void);
#define ADDRESS(fn) reinterpret_cast<any_fn>(&fn)
#else
/* _Generic does not evaluate its operand: no reference to the symbol is made. */
#define CHECK_TYPE(fn, type) _Static_assert(_Generic(&fn, type * : 1, default : 0), #fn)
#define STATIC_CHECK(cond) _Static_assert(cond, #cond)
typedef void (*any_fn)(void);
#define ADDRESS(fn) ((any_fn)&fn)
#endif

STATIC_CHECK(CblasRowMajor == 101 && CblasColMajor == 102);
STATIC_CHECK(CblasNoTrans == 111 && CblasTrans == 112 && CblasConjTrans == 113);
STATIC_CHECK(CblasUpper == 121 && CblasLower == 122);
STATIC_CHECK(CblasNonUnit == 131 && CblasUnit == 132);
STATIC_CHECK(CblasLeft == 141 && CblasRight == 142);
STATIC_CHECK(sizeof(CBLAS_INDEX) == sizeof(size_t));

/* The reference and OpenBLAS prototypes, as function types. */
typedef float sdot_t(int, const float *, int, const float *, int);
typedef double ddot_t(int, const double *, int, const double *, int);
typedef void sgemv_t(CBLAS_LAYOUT, CBLAS_TRANSPOSE, int, int, float, const float *, int,
                     const float *, int, float, float *, int);
typedef void dgemv_t(CBLAS_LAYOUT, CBLAS_TRANSPOSE, int, int, double, const double *, int,
                     const double *, int, double, double *, int);
typedef void sgemm_t(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, float,
                     const float *, int, const float *, int, float, float *, int);
typedef void dgemm_t(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, double,
                     const double *, int, const double *, int, double, double *, int);
typedef void sgemmt_t(CBLAS_LAYOUT, CBLAS_UPLO, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, float,
                      const float *, int, const float *, int, float, float *, int);
typedef void dgemmt_t(CBLAS_LAYOUT, CBLAS_UPLO, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, double,
                      const double *, int, const double *, int, double, double *, int);
typedef void ssyrk_t(CBLAS_LAYOUT, CBLAS_UPLO, CBLAS_TRANSPOSE, int, int, float, const float *, int,
                     float, float *, int);
typedef void dsyrk_t(CBLAS_LAYOUT, CBLAS_UPLO, CBLAS_TRANSPOSE, int, int, double, const double *,
                     int, double, double *, int);
typedef void ssymm_t(CBLAS_LAYOUT, CBLAS_SIDE, CBLAS_UPLO, int, int, float, const float *, int,
                     const float *, int, float, float *, int);
typedef void dsymm_t(CBLAS_LAYOUT, CBLAS_SIDE, CBLAS_UPLO, int, int, double, const double *, int,
                     const double *, int, double, double *, int);
typedef void sgemm_batch_strided_t(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int,
                                   float, const float *, int, int, const float *, int, int, float,
                                   float *, int, int, int);
typedef void dgemm_batch_strided_t(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int,
                                   double, const double *, int, int, const double *, int, int,
                                   double, double *, int, int, int);
typedef void xerbla_t(int, const char *, const char *, ...);
typedef void set_threads_t(int);
typedef int get_int_t(void);
typedef char *get_string_t(void);

CHECK_TYPE(cblas_sdot, sdot_t);
CHECK_TYPE(cblas_ddot, ddot_t);
CHECK_TYPE(cblas_sgemv, sgemv_t);
CHECK_TYPE(cblas_dgemv, dgemv_t);
CHECK_TYPE(cblas_sgemm, sgemm_t);
CHECK_TYPE(cblas_dgemm, dgemm_t);
CHECK_TYPE(cblas_sgemmt, sgemmt_t);
CHECK_TYPE(cblas_dgemmt, dgemmt_t);
CHECK_TYPE(cblas_ssyrk, ssyrk_t);
CHECK_TYPE(cblas_dsyrk, dsyrk_t);
CHECK_TYPE(cblas_ssymm, ssymm_t);
CHECK_TYPE(cblas_dsymm, dsymm_t);
CHECK_TYPE(cblas_sgemm_batch_strided, sgemm_batch_strided_t);
CHECK_TYPE(cblas_dgemm_batch_strided, dgemm_batch_strided_t);
CHECK_TYPE(cblas_xerbla, xerbla_t);
CHECK_TYPE(openblas_set_num_threads, set_threads_t);
CHECK_TYPE(goto_set_num_threads, set_threads_t);
CHECK_TYPE(openblas_get_num_threads, get_int_t);
CHECK_TYPE(openblas_get_parallel, get_int_t);
CHECK_TYPE(openblas_get_config, get_string_t);
CHECK_TYPE(openblas_get_corename, get_string_t);

/* Every spelling of the layout type a program may use. */
static int layouts_agree(void) {
  enum CBLAS_ORDER a = CblasRowMajor;
  CBLAS_ORDER b = CblasRowMajor;
  enum CBLAS_LAYOUT c = CblasColMajor;
  CBLAS_LAYOUT d = CblasColMajor;
  return a == b && c == d && a != c;
}

/* Exported by every build of libinvar_blas. */
static const any_fn exported[] = {
    ADDRESS(cblas_sgemm),
    ADDRESS(cblas_dgemm),
    ADDRESS(cblas_xerbla),
#if INVAR_CBLAS_TEST_LINK_PENDING
    ADDRESS(cblas_sdot),
    ADDRESS(cblas_ddot),
    ADDRESS(cblas_sgemv),
    ADDRESS(cblas_dgemv),
    ADDRESS(cblas_sgemmt),
    ADDRESS(cblas_dgemmt),
    ADDRESS(cblas_ssyrk),
    ADDRESS(cblas_dsyrk),
    ADDRESS(cblas_ssymm),
    ADDRESS(cblas_dsymm),
    ADDRESS(cblas_sgemm_batch_strided),
    ADDRESS(cblas_dgemm_batch_strided),
#endif
#if INVAR_CBLAS_TEST_LINK_THREADS
    ADDRESS(openblas_set_num_threads),
    ADDRESS(goto_set_num_threads),
    ADDRESS(openblas_get_num_threads),
    ADDRESS(openblas_get_parallel),
    ADDRESS(openblas_get_config),
    ADDRESS(openblas_get_corename),
#endif
};

enum { M = 5, N = 3, K = 4 };

int main(void) {
  int failures = 0;
  for (size_t i = 0; i < sizeof exported / sizeof exported[0]; ++i) {
    if (exported[i] == NULL) {
      fprintf(stderr, "exported routine %u has no address\n", (unsigned)i);
      ++failures;
    }
  }
  if (!layouts_agree()) {
    fprintf(stderr, "CBLAS_ORDER and CBLAS_LAYOUT disagree\n");
    ++failures;
  }

  float sa[M * K], sb[N * K], sc[M * N], sexpected[M * N];
  double da[M * K], db[K * N], dc[M * N], dexpected[M * N];
  for (int i = 0; i < M * K; ++i) sa[i] = (float)(i % 7) / 3.0f, da[i] = (i % 5) / 7.0;
  for (int i = 0; i < N * K; ++i) sb[i] = (float)(i % 5) / 9.0f, db[i] = (i % 3) / 11.0;

  /* Row-major, B transposed: invar_sgemm on the same arguments. */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.5f, sa, K, sb, K, 0.0f, sc, N);
  if (invar_sgemm(INVAR_NO_TRANS, INVAR_TRANS, M, N, K, 1.5f, sa, K, sb, K, 0.0f, sexpected, N) !=
          INVAR_OK ||
      memcmp(sc, sexpected, sizeof sc) != 0) {
    fprintf(stderr, "cblas_sgemm differs from invar_sgemm\n");
    ++failures;
  }
  /* Column-major with alpha 1: C^T = B^T A^T, row-major. */
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0, da, M, db, K, 0.0, dc, M);
  if (invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, N, M, K, 1.0, db, K, da, M, 0.0, dexpected, M) !=
          INVAR_OK ||
      memcmp(dc, dexpected, sizeof dc) != 0) {
    fprintf(stderr, "cblas_dgemm (column-major) differs from invar_dgemm\n");
    ++failures;
  }
  if (failures == 0)
    printf("cblas.h: %u routines linked, GEMM bits as invar's\n",
           (unsigned)(sizeof exported / sizeof exported[0]));
  return failures == 0 ? 0 : 1;
}

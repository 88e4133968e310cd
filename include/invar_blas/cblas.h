/*
 * cblas.h for libinvar_blas: the CBLAS routines and the OpenBLAS thread controls that
 * libinvar_blas.so exports, and nothing else.
 *
 * It is installed as <prefix>/include/invar_blas/cblas.h, the way BLIS installs
 * include/blis/cblas.h: a program compiled with -I<prefix>/include/invar_blas (what
 * `pkg-config --cflags invar-blas` and the CMake target invar::blas give) keeps its
 * `#include <cblas.h>`, and the header does not sit in <prefix>/include where it would shadow
 * another BLAS's cblas.h (OpenBLAS, the reference CBLAS and Debian's libblas-dev put theirs
 * there).
 *
 * The declarations are those of the reference CBLAS and OpenBLAS: the same names, enumeration
 * values and argument order, with 32-bit int sizes (the LP64 interface). A routine computes what
 * the reference defines, each output element as one chain of fmas in increasing k (invar's
 * contract, see invar/invar.h), so its bits do not depend on threads or machine. Routines
 * that are not listed here (level 1 besides the dot products, TRSM, complex types, ...) are not
 * in libinvar_blas; when it is preloaded ahead of a system BLAS they come from that library.
 *
 * Threads: openblas_set_num_threads(n) sets the thread count of invar's default context (n < 1
 * restores the default: INVAR_NUM_THREADS, else OMP_NUM_THREADS, else the physical cores), the
 * same count as invar_set_num_threads(); openblas_get_num_threads() returns it.
 */
#ifndef INVAR_BLAS_CBLAS_H_
#define INVAR_BLAS_CBLAS_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- enumerations (values of the reference CBLAS) -------------------------------------------- */

typedef enum CBLAS_LAYOUT { CblasRowMajor = 101, CblasColMajor = 102 } CBLAS_LAYOUT;
typedef enum CBLAS_TRANSPOSE {
  CblasNoTrans = 111,
  CblasTrans = 112,
  CblasConjTrans = 113
} CBLAS_TRANSPOSE;
typedef enum CBLAS_UPLO { CblasUpper = 121, CblasLower = 122 } CBLAS_UPLO;
typedef enum CBLAS_DIAG { CblasNonUnit = 131, CblasUnit = 132 } CBLAS_DIAG;
typedef enum CBLAS_SIDE { CblasLeft = 141, CblasRight = 142 } CBLAS_SIDE;
/* The older name of CBLAS_LAYOUT, as `enum CBLAS_ORDER` and as `CBLAS_ORDER`. */
#define CBLAS_ORDER CBLAS_LAYOUT
#define CBLAS_INDEX size_t

/* ---- level 1 --------------------------------------------------------------------------------- */

float cblas_sdot(int n, const float *x, int incx, const float *y, int incy);
double cblas_ddot(int n, const double *x, int incx, const double *y, int incy);

/* ---- level 2 --------------------------------------------------------------------------------- */

void cblas_sgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, float alpha,
                 const float *a, int lda, const float *x, int incx, float beta, float *y, int incy);
void cblas_dgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, double alpha,
                 const double *a, int lda, const double *x, int incx, double beta, double *y,
                 int incy);

/* ---- level 3 --------------------------------------------------------------------------------- */

void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int n,
                 int k, float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                 float *c, int ldc);
void cblas_dgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int n,
                 int k, double alpha, const double *a, int lda, const double *b, int ldb,
                 double beta, double *c, int ldc);

/* C <- alpha * op(A) * op(B) + beta * C on the uplo triangle of the n x n matrix C only. */
void cblas_sgemmt(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE transa,
                  CBLAS_TRANSPOSE transb, int n, int k, float alpha, const float *a, int lda,
                  const float *b, int ldb, float beta, float *c, int ldc);
void cblas_dgemmt(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE transa,
                  CBLAS_TRANSPOSE transb, int n, int k, double alpha, const double *a, int lda,
                  const double *b, int ldb, double beta, double *c, int ldc);

void cblas_ssyrk(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
                 float alpha, const float *a, int lda, float beta, float *c, int ldc);
void cblas_dsyrk(CBLAS_LAYOUT layout, CBLAS_UPLO uplo, CBLAS_TRANSPOSE trans, int n, int k,
                 double alpha, const double *a, int lda, double beta, double *c, int ldc);

void cblas_ssymm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int m, int n, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
void cblas_dsymm(CBLAS_LAYOUT layout, CBLAS_SIDE side, CBLAS_UPLO uplo, int m, int n, double alpha,
                 const double *a, int lda, const double *b, int ldb, double beta, double *c,
                 int ldc);

/* batch_size products of one shape; product i reads A + i * stridea, B + i * strideb and writes
 * C + i * stridec (strides in elements). */
void cblas_sgemm_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb,
                               int m, int n, int k, float alpha, const float *a, int lda,
                               int stridea, const float *b, int ldb, int strideb, float beta,
                               float *c, int ldc, int stridec, int batch_size);
void cblas_dgemm_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb,
                               int m, int n, int k, double alpha, const double *a, int lda,
                               int stridea, const double *b, int ldb, int strideb, double beta,
                               double *c, int ldc, int stridec, int batch_size);

/* ---- errors ---------------------------------------------------------------------------------- */

/* Called with the 1-based position of the first invalid argument (the layout counts as 1). The
 * library's own prints the reference message and ends the program; a program may define its
 * own. */
void cblas_xerbla(int p, const char *rout, const char *form, ...);

/* ---- threads (OpenBLAS's names, for programs and tools written for OpenBLAS) ----------------- */

void openblas_set_num_threads(int num_threads);
void goto_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
/* invar_get_config()'s line: "invar <version>; isa ...; threads ...; caches ...". */
char *openblas_get_config(void);
/* The kernel path in use: "avx512", "avx2", "neon" or "generic". */
char *openblas_get_corename(void);
/* How the library is threaded: OPENBLAS_THREAD (its own thread pool, never OpenMP). */
int openblas_get_parallel(void);
#ifndef OPENBLAS_SEQUENTIAL
#define OPENBLAS_SEQUENTIAL 0
#define OPENBLAS_THREAD 1
#define OPENBLAS_OPENMP 2
#endif

#ifdef __cplusplus
}
#endif

#endif /* INVAR_BLAS_CBLAS_H_ */

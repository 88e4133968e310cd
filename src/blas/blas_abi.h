// The BLAS interfaces libinvar_blas implements, as their callers see them.
//
// Fortran BLAS (sgemm_, dgemm_, sgemv_, …): column-major, every argument by reference, INTEGER =
// int (the LP64 ABI of Debian's libblas.so.3, numpy and R), CHARACTER arguments as a pointer to
// their first character. gfortran appends the length of each CHARACTER argument as a hidden size_t
// after the last argument; the product entry points never need the lengths and do not declare them
// (extra arguments a caller passes are harmless in the C calling convention), while xerbla_ takes
// its name's length, which every caller (Fortran or ours) passes.
//
// CBLAS (cblas_sgemm, cblas_dgemm, cblas_sgemv, …): the enumerations of the reference cblas.h,
// passed by value as C ints. They are read as plain ints here, so that any value a caller passes
// can be checked.
//
// Error reporting, as the reference defines it (reporting.h says how each routine reports):
//   xerbla_(name, &info, len)          Fortran: the routine name blank-padded to 6 characters,
//                                      info the 1-based position of the first invalid argument.
//   cblas_xerbla(info, rout, form, …)  CBLAS: info counts the layout argument as 1. For a
//                                      row-major call the reference CBLAS hands the column-major
//                                      routine its arguments with A/B, M/N and lda/ldb exchanged
//                                      and reports the positions as that call sees them; a
//                                      cblas_xerbla learns this from the global RowMajorStrg
//                                      (1 while a row-major call reports) and maps the positions
//                                      back. Programs that replace cblas_xerbla (the reference
//                                      testers among them) rely on that convention.
//   CBLAS_CallFromC                    1 while a CBLAS routine reports through xerbla_.
// All four are weak in libinvar_blas: a program's own definition replaces them.
#ifndef INVAR_BLAS_BLAS_ABI_H_
#define INVAR_BLAS_BLAS_ABI_H_

#include <cstddef>

namespace invar::blas {

using FortranInt = int;

// cblas.h's CBLAS_LAYOUT and CBLAS_TRANSPOSE.
inline constexpr int kCblasRowMajor = 101;
inline constexpr int kCblasColMajor = 102;
inline constexpr int kCblasNoTrans = 111;
inline constexpr int kCblasTrans = 112;
inline constexpr int kCblasConjTrans = 113;
// CBLAS_UPLO and CBLAS_SIDE.
inline constexpr int kCblasUpper = 121;
inline constexpr int kCblasLower = 122;
inline constexpr int kCblasLeft = 141;
inline constexpr int kCblasRight = 142;

}  // namespace invar::blas

extern "C" {
void sgemm_(const char* transa, const char* transb, const invar::blas::FortranInt* m,
            const invar::blas::FortranInt* n, const invar::blas::FortranInt* k, const float* alpha,
            const float* a, const invar::blas::FortranInt* lda, const float* b,
            const invar::blas::FortranInt* ldb, const float* beta, float* c,
            const invar::blas::FortranInt* ldc);
void dgemm_(const char* transa, const char* transb, const invar::blas::FortranInt* m,
            const invar::blas::FortranInt* n, const invar::blas::FortranInt* k, const double* alpha,
            const double* a, const invar::blas::FortranInt* lda, const double* b,
            const invar::blas::FortranInt* ldb, const double* beta, double* c,
            const invar::blas::FortranInt* ldc);
void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha,
                 const double* a, int lda, const double* b, int ldb, double beta, double* c,
                 int ldc);
// Level 2 and 3 products and the dot product, Fortran and CBLAS (FI = FortranInt).
#define INVAR_BLAS_DECLARE(T, s)                                                                   \
  void s##gemv_(const char* trans, const invar::blas::FortranInt* m,                               \
                const invar::blas::FortranInt* n, const T* alpha, const T* a,                      \
                const invar::blas::FortranInt* lda, const T* x,                                    \
                const invar::blas::FortranInt* incx, const T* beta, T* y,                          \
                const invar::blas::FortranInt* incy);                                              \
  T s##dot_(const invar::blas::FortranInt* n, const T* x, const invar::blas::FortranInt* incx,     \
            const T* y, const invar::blas::FortranInt* incy);                                      \
  void s##syrk_(const char* uplo, const char* trans, const invar::blas::FortranInt* n,             \
                const invar::blas::FortranInt* k, const T* alpha, const T* a,                      \
                const invar::blas::FortranInt* lda, const T* beta, T* c,                           \
                const invar::blas::FortranInt* ldc);                                               \
  void s##symm_(const char* side, const char* uplo, const invar::blas::FortranInt* m,              \
                const invar::blas::FortranInt* n, const T* alpha, const T* a,                      \
                const invar::blas::FortranInt* lda, const T* b,                                    \
                const invar::blas::FortranInt* ldb, const T* beta, T* c,                           \
                const invar::blas::FortranInt* ldc);                                               \
  void s##gemmt_(const char* uplo, const char* transa, const char* transb,                         \
                 const invar::blas::FortranInt* n, const invar::blas::FortranInt* k,               \
                 const T* alpha, const T* a, const invar::blas::FortranInt* lda, const T* b,       \
                 const invar::blas::FortranInt* ldb, const T* beta, T* c,                          \
                 const invar::blas::FortranInt* ldc);                                              \
  void cblas_##s##gemv(int layout, int trans, int m, int n, T alpha, const T* a, int lda,          \
                       const T* x, int incx, T beta, T* y, int incy);                              \
  T cblas_##s##dot(int n, const T* x, int incx, const T* y, int incy);                             \
  void cblas_##s##syrk(int layout, int uplo, int trans, int n, int k, T alpha, const T* a,         \
                       int lda, T beta, T* c, int ldc);                                            \
  void cblas_##s##symm(int layout, int side, int uplo, int m, int n, T alpha, const T* a, int lda, \
                       const T* b, int ldb, T beta, T* c, int ldc);                                \
  void cblas_##s##gemmt(int layout, int uplo, int transa, int transb, int n, int k, T alpha,       \
                        const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc);          \
  void cblas_##s##gemm_batch_strided(int layout, int transa, int transb, int m, int n, int k,      \
                                     T alpha, const T* a, int lda, int stridea, const T* b,        \
                                     int ldb, int strideb, T beta, T* c, int ldc, int stridec,     \
                                     int batch_size);
INVAR_BLAS_DECLARE(float, s)
INVAR_BLAS_DECLARE(double, d)
#undef INVAR_BLAS_DECLARE
void xerbla_(const char* name, const invar::blas::FortranInt* info, std::size_t name_length);
void cblas_xerbla(int info, const char* rout, const char* form, ...);
extern int RowMajorStrg;
extern int CBLAS_CallFromC;
}

#endif  // INVAR_BLAS_BLAS_ABI_H_

/* The error handlers of libinvar_blas as a program meets them. Built twice:
 *   - as is, the library's default xerbla_ and cblas_xerbla run: a Fortran call's error prints
 *     "Parameter N to routine NAME was incorrect" and the call returns; a CBLAS call's error
 *     prints "Parameter N to routine cblas_name was incorrect" (and the message) and ends the
 *     program with status 255, as Debian's reference libblas.so.3 does;
 *   - with OWN_XERBLA, this program replaces xerbla_ only: the reports of the Fortran calls and
 *     those a CBLAS call finds on its Fortran argument list come to it (the call then returns),
 *     while the CBLAS layout and transpose checks still go to the default cblas_xerbla.
 * blas_default_handlers.sh runs each mode and checks the messages, the status, and whether the
 * call returned. */
#include <stdio.h>
#include <string.h>

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);
void cblas_sgemv(int layout, int trans, int m, int n, float alpha, const float *a, int lda,
                 const float *x, int incx, float beta, float *y, int incy);
void cblas_ssyrk(int layout, int uplo, int trans, int n, int k, float alpha, const float *a,
                 int lda, float beta, float *c, int ldc);

#ifdef OWN_XERBLA
void xerbla_(const char *name, const int *info, size_t length) {
  printf("xerbla_ '%.*s' %d\n", (int)length, name, *info);
}
#endif

enum { kRowMajor = 101, kColMajor = 102, kNoTrans = 111, kUpper = 121 };

int main(int argc, char **argv) {
  const float a[16] = {0}, b[16] = {0}, one = 1.0f;
  float c[16] = {0};
  const int two = 2, minus_one = -1;
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "fortran-transa") == 0) {
    sgemm_("X", "N", &two, &two, &two, &one, a, &two, b, &two, &one, c, &two);
  } else if (strcmp(mode, "fortran-m") == 0) {
    sgemm_("N", "N", &minus_one, &two, &two, &one, a, &two, b, &two, &one, c, &two);
  } else if (strcmp(mode, "cblas-layout") == 0) {
    cblas_sgemm(5, kNoTrans, kNoTrans, 2, 2, 2, 1.0f, a, 2, b, 2, 1.0f, c, 2);
  } else if (strcmp(mode, "cblas-row-transb") == 0) {
    cblas_sgemm(kRowMajor, kNoTrans, 5, 2, 2, 2, 1.0f, a, 2, b, 2, 1.0f, c, 2);
  } else if (strcmp(mode, "cblas-row-m") == 0) {
    cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, -1, 2, 2, 1.0f, a, 2, b, 2, 1.0f, c, 2);
  } else if (strcmp(mode, "cblas-col-m") == 0) {
    cblas_sgemm(kColMajor, kNoTrans, kNoTrans, -1, 2, 2, 1.0f, a, 2, b, 2, 1.0f, c, 2);
  } else if (strcmp(mode, "cblas-row-lda") == 0) {
    cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, 2, 2, 3, 1.0f, a, 2, b, 2, 1.0f, c, 2);
  } else if (strcmp(mode, "cblas-col-ldb") == 0) {
    cblas_sgemm(kColMajor, kNoTrans, kNoTrans, 2, 2, 3, 1.0f, a, 2, b, 2, 1.0f, c, 2);
  } else if (strcmp(mode, "cblas-gemv-row-m") == 0) {
    cblas_sgemv(kRowMajor, kNoTrans, -1, 2, 1.0f, a, 2, b, 1, 1.0f, c, 1);
  } else if (strcmp(mode, "cblas-gemv-incx") == 0) {
    cblas_sgemv(kRowMajor, kNoTrans, 2, 2, 1.0f, a, 2, b, 0, 1.0f, c, 1);
  } else if (strcmp(mode, "cblas-syrk-n") == 0) {
    cblas_ssyrk(kRowMajor, kUpper, kNoTrans, -1, 2, 1.0f, a, 2, 1.0f, c, 2);
  } else if (strcmp(mode, "cblas-syrk-lda") == 0) {
    cblas_ssyrk(kRowMajor, kUpper, kNoTrans, 2, 3, 1.0f, a, 2, 1.0f, c, 2);
  } else {
    fprintf(stderr, "unknown mode '%s'\n", mode);
    return 2;
  }
  printf("returned\n");
  return 0;
}

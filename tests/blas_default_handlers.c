/* The default xerbla_ and cblas_xerbla of libinvar_blas: this program does not replace them, so
 * an invalid argument prints the reference message and ends the program with a failure status.
 * blas_default_handlers.sh runs each mode and checks the message, the status, and that the call
 * never returned. */
#include <stdio.h>
#include <string.h>

void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                 const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);

enum { kRowMajor = 101, kColMajor = 102, kNoTrans = 111 };

int main(int argc, char **argv) {
  const float a[4] = {0}, b[4] = {0}, one = 1.0f;
  float c[4] = {0};
  const int two = 2, minus_one = -1;
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "fortran-transa") == 0) {
    sgemm_("X", "N", &two, &two, &two, &one, a, &two, b, &two, &one, c, &two);
  } else if (strcmp(mode, "fortran-m") == 0) {
    sgemm_("N", "N", &minus_one, &two, &two, &one, a, &two, b, &two, &one, c, &two);
  } else if (strcmp(mode, "cblas-row-m") == 0) {
    cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, -1, 2, 2, 1.0f, a, 2, b, 2, 1.0f, c, 2);
  } else if (strcmp(mode, "cblas-row-lda") == 0) {
    cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, 2, 2, 3, 1.0f, a, 2, b, 2, 1.0f, c, 2);
  } else if (strcmp(mode, "cblas-col-ldb") == 0) {
    cblas_sgemm(kColMajor, kNoTrans, kNoTrans, 2, 2, 3, 1.0f, a, 2, b, 2, 1.0f, c, 2);
  } else {
    fprintf(stderr, "unknown mode '%s'\n", mode);
    return 2;
  }
  printf("returned\n");
  return 0;
}

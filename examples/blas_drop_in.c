/* A program written against the Fortran BLAS, linked with invar::blas: dgemm_ on column-major
 * matrices gives the bits of invar's contract, here checked against invar_dgemm on the same
 * numbers (a column-major matrix read row-major is its transpose, so C^T = B^T A^T with alpha
 * folded into A beforehand, which is what the contract's first rounding is). */
#include <invar/invar.h>
#include <stdio.h>
#include <string.h>

void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc);

enum { M = 5, N = 4, K = 7 };

int main(void) {
  double a[M * K], b[K * N], scaled_a[M * K], c[M * N], expected[M * N];
  for (int i = 0; i < M * K; ++i) a[i] = 1.0 / (i + 3);
  for (int i = 0; i < K * N; ++i) b[i] = 1.0 / (2 * i + 1);
  const double alpha = 0.7, beta = 0.0;
  const int m = M, n = N, k = K;
  dgemm_("N", "N", &m, &n, &k, &alpha, a, &m, b, &k, &beta, c, &m);

  /* The contract: C(i,j) = chain over p of fma(alpha * A(i,p), B(p,j), acc). */
  for (int i = 0; i < M * K; ++i) scaled_a[i] = alpha * a[i];
  if (invar_dgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, N, M, K, 1.0, b, K, scaled_a, M, 0.0, expected,
                  M) != INVAR_OK) {
    fprintf(stderr, "invar_dgemm: %s\n", invar_last_error());
    return 1;
  }
  if (memcmp(c, expected, sizeof c) != 0) {
    fprintf(stderr, "blas_drop_in: dgemm_ differs from the contract\n");
    return 1;
  }
  printf("blas_drop_in: dgemm_ (column-major, alpha %.1f) has invar's bits; %s\n", alpha,
         invar_get_config());
  return 0;
}

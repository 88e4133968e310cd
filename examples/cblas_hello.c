/* A program written for a CBLAS (OpenBLAS's thread control included), built against
 * libinvar_blas with `cc cblas_hello.c $(pkg-config --cflags --libs invar-blas)`. */
#include <cblas.h>
#include <stdio.h>

int main(void) {
  const float a[6] = {1, 2, 3, 4, 5, 6};    /* 2 x 3, row-major */
  const float b[6] = {7, 8, 9, 10, 11, 12}; /* 3 x 2 */
  float c[4] = {0};
  openblas_set_num_threads(1);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 3, 1.0f, a, 3, b, 2, 0.0f, c, 2);
  printf("cblas_sgemm on %s, %d thread: [[%g %g] [%g %g]]\n", openblas_get_corename(),
         openblas_get_num_threads(), c[0], c[1], c[2], c[3]);
  return c[0] == 58 && c[1] == 64 && c[2] == 139 && c[3] == 154 && openblas_get_num_threads() == 1
             ? 0
             : 1;
}

/* The C API: a 2 x 3 times 3 x 2 product, and an error report. */
#include <invar/invar.h>
#include <stdio.h>

int main(void) {
  const float a[6] = {1, 2, 3, 4, 5, 6};    /* 2 x 3 */
  const float b[6] = {7, 8, 9, 10, 11, 12}; /* 3 x 2 */
  float c[4] = {0};
  if (invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 3, 1.0f, a, 3, b, 2, 0.0f, c, 2) !=
      INVAR_OK) {
    fprintf(stderr, "%s\n", invar_last_error());
    return 1;
  }
  printf("invar %s on %s: [[%g %g] [%g %g]]\n", invar_version(), invar_isa(), c[0], c[1], c[2],
         c[3]);
  /* A leading dimension shorter than the row is refused, and c is left as it was. */
  if (invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, 2, 2, 3, 1.0f, a, 2, b, 2, 0.0f, c, 2) !=
      INVAR_EINVAL) {
    return 1;
  }
  printf("refused: %s\n", invar_last_error());
  return c[0] == 58 && c[1] == 64 && c[2] == 139 && c[3] == 154 ? 0 : 1;
}

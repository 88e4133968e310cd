/* A C program statically linked with invar: a product on two threads, compared bit for bit with
 * the contract's chain written out in C (one fmaf per k, in increasing k). */
#include <invar/invar.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { M = 67, N = 45, K = 301 };

static float a[M * K], b[K * N], c[M * N], expected[M * N];

int main(void) {
  for (int i = 0; i < M * K; ++i) a[i] = (float)((i * 37) % 101 - 50) / 64.0f;
  for (int i = 0; i < K * N; ++i) b[i] = (float)((i * 53) % 97 - 48) / 32.0f;
  const float alpha = 0.75f;

  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float acc = 0.0f; /* beta == 0 */
      for (int p = 0; p < K; ++p) acc = fmaf(alpha * a[i * K + p], b[p * N + j], acc);
      expected[i * N + j] = acc;
    }
  }

  if (invar_set_num_threads(2) < 1 || invar_sgemm(INVAR_NO_TRANS, INVAR_NO_TRANS, M, N, K, alpha, a,
                                                  K, b, N, 0.0f, c, N) != INVAR_OK) {
    fprintf(stderr, "static_c: %s\n", invar_last_error());
    return 1;
  }
  if (memcmp(c, expected, sizeof c) != 0) {
    fprintf(stderr, "static_c: the product differs from the chain\n");
    return 1;
  }
  if (strcmp(invar_version(), INVAR_VERSION_STRING) != 0) {
    fprintf(stderr, "static_c: headers %s, library %s\n", INVAR_VERSION_STRING, invar_version());
    return 1;
  }
  printf("static_c: %dx%dx%d on %d threads equals the chain; %s\n", M, N, K,
         invar_set_num_threads(2), invar_get_config());
  return 0;
}

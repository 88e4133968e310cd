/* Do the two vCPUs have FMA units of their own? One FMA loop alone, then one per CPU at once
 * (scripts/bench-dist.sh): if each of the pair runs at about half the lone rate, the two vCPUs
 * are hyperthreads of one core and a 1x2 grid has one core's arithmetic, not two.
 *   fma_pair [seconds]  -> GFLOP/s of this process (AVX2 FMA, 10 independent chains) */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  const double seconds = argc > 1 ? atof(argv[1]) : 3;
  __m256 acc[10];
  for (int i = 0; i < 10; ++i) acc[i] = _mm256_set1_ps(0.001f * i);
  const __m256 x = _mm256_set1_ps(0.9999f), y = _mm256_set1_ps(1e-7f);
  long iters = 0;
  const double t0 = now();
  double t = t0;
  while (t - t0 < seconds) {
    for (int r = 0; r < 100000; ++r)
      for (int i = 0; i < 10; ++i) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
    iters += 100000;
    t = now();
  }
  float sink = 0;
  for (int i = 0; i < 10; ++i) sink += _mm256_cvtss_f32(acc[i]);
  printf("%.1f GFLOP/s (sink %g)\n", iters * 10.0 * 16 / (t - t0) * 1e-9, sink);
  return 0;
}

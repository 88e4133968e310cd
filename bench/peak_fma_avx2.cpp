// The core's AVX2 FMA peak: 12 independent dependency chains of 8-wide vfmadd231ps, no loads or
// stores in the loop, so only the FMA pipes limit it (no cache or memory involved). 12 chains
// cover latency x throughput of current AVX2 cores (e.g. 4 cycles x 2 pipes = 8 in flight) and
// leave 4 of the 16 ymm registers for the operands. Built with -mavx2 -mfma; call only after
// CPUID + XGETBV report AVX2, FMA and OS-saved YMM state.
#include <immintrin.h>

#include "peak_fma.h"

namespace invar_bench {

float fma_chains_avx2(int64_t iterations) {
  // acc <- acc * m + c converges to c / (1 - m) = 10: values stay normal, never overflow.
  const __m256 m = _mm256_set1_ps(0.9999999f);
  const __m256 c = _mm256_set1_ps(1e-6f);
  __m256 a0 = _mm256_set1_ps(0.0f), a1 = _mm256_set1_ps(0.1f), a2 = _mm256_set1_ps(0.2f);
  __m256 a3 = _mm256_set1_ps(0.3f), a4 = _mm256_set1_ps(0.4f), a5 = _mm256_set1_ps(0.5f);
  __m256 a6 = _mm256_set1_ps(0.6f), a7 = _mm256_set1_ps(0.7f), a8 = _mm256_set1_ps(0.8f);
  __m256 a9 = _mm256_set1_ps(0.9f), a10 = _mm256_set1_ps(1.0f), a11 = _mm256_set1_ps(1.1f);
  for (int64_t i = 0; i < iterations; ++i) {
    a0 = _mm256_fmadd_ps(a0, m, c);
    a1 = _mm256_fmadd_ps(a1, m, c);
    a2 = _mm256_fmadd_ps(a2, m, c);
    a3 = _mm256_fmadd_ps(a3, m, c);
    a4 = _mm256_fmadd_ps(a4, m, c);
    a5 = _mm256_fmadd_ps(a5, m, c);
    a6 = _mm256_fmadd_ps(a6, m, c);
    a7 = _mm256_fmadd_ps(a7, m, c);
    a8 = _mm256_fmadd_ps(a8, m, c);
    a9 = _mm256_fmadd_ps(a9, m, c);
    a10 = _mm256_fmadd_ps(a10, m, c);
    a11 = _mm256_fmadd_ps(a11, m, c);
  }
  const __m256 s =
      _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                                  _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7))),
                    _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  return lanes[0] + lanes[7];
}

// The same on doubles (vfmadd231pd), for the f64 peak.
double fma_chains_avx2_f64(int64_t iterations) {
  // The f32 loop's recurrence on doubles: acc <- acc * m + c converges to 10.
  const __m256d m = _mm256_set1_pd(0.9999999);
  const __m256d c = _mm256_set1_pd(1e-6);
  __m256d a0 = _mm256_set1_pd(0.0), a1 = _mm256_set1_pd(0.1), a2 = _mm256_set1_pd(0.2);
  __m256d a3 = _mm256_set1_pd(0.3), a4 = _mm256_set1_pd(0.4), a5 = _mm256_set1_pd(0.5);
  __m256d a6 = _mm256_set1_pd(0.6), a7 = _mm256_set1_pd(0.7), a8 = _mm256_set1_pd(0.8);
  __m256d a9 = _mm256_set1_pd(0.9), a10 = _mm256_set1_pd(1.0), a11 = _mm256_set1_pd(1.1);
  for (int64_t i = 0; i < iterations; ++i) {
    a0 = _mm256_fmadd_pd(a0, m, c);
    a1 = _mm256_fmadd_pd(a1, m, c);
    a2 = _mm256_fmadd_pd(a2, m, c);
    a3 = _mm256_fmadd_pd(a3, m, c);
    a4 = _mm256_fmadd_pd(a4, m, c);
    a5 = _mm256_fmadd_pd(a5, m, c);
    a6 = _mm256_fmadd_pd(a6, m, c);
    a7 = _mm256_fmadd_pd(a7, m, c);
    a8 = _mm256_fmadd_pd(a8, m, c);
    a9 = _mm256_fmadd_pd(a9, m, c);
    a10 = _mm256_fmadd_pd(a10, m, c);
    a11 = _mm256_fmadd_pd(a11, m, c);
  }
  const __m256d s =
      _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)),
                                  _mm256_add_pd(_mm256_add_pd(a4, a5), _mm256_add_pd(a6, a7))),
                    _mm256_add_pd(_mm256_add_pd(a8, a9), _mm256_add_pd(a10, a11)));
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, s);
  return lanes[0] + lanes[3];
}

}  // namespace invar_bench

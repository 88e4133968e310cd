// The core's AVX-512 FMA peak: 16 independent dependency chains of 16-wide vfmadd231ps on zmm
// registers, no loads or stores in the loop (no cache or memory involved). 16 chains cover
// latency x throughput of cores with two 512-bit FMA pipes. Built with -mavx512f; call only after
// CPUID + XGETBV report AVX-512F and OS-saved ZMM/opmask state.
#include <immintrin.h>

#include "peak_fma.h"

namespace invar_bench {

float fma_chains_avx512(int64_t iterations) {
  // acc <- acc * m + c converges to c / (1 - m) = 10: values stay normal, never overflow.
  const __m512 m = _mm512_set1_ps(0.9999999f);
  const __m512 c = _mm512_set1_ps(1e-6f);
  __m512 a0 = _mm512_set1_ps(0.00f), a1 = _mm512_set1_ps(0.1f), a2 = _mm512_set1_ps(0.2f);
  __m512 a3 = _mm512_set1_ps(0.3f), a4 = _mm512_set1_ps(0.4f), a5 = _mm512_set1_ps(0.5f);
  __m512 a6 = _mm512_set1_ps(0.6f), a7 = _mm512_set1_ps(0.7f), a8 = _mm512_set1_ps(0.8f);
  __m512 a9 = _mm512_set1_ps(0.9f), a10 = _mm512_set1_ps(1.0f), a11 = _mm512_set1_ps(1.1f);
  __m512 a12 = _mm512_set1_ps(1.2f), a13 = _mm512_set1_ps(1.3f), a14 = _mm512_set1_ps(1.4f);
  __m512 a15 = _mm512_set1_ps(1.5f);
  for (int64_t i = 0; i < iterations; ++i) {
    a0 = _mm512_fmadd_ps(a0, m, c);
    a1 = _mm512_fmadd_ps(a1, m, c);
    a2 = _mm512_fmadd_ps(a2, m, c);
    a3 = _mm512_fmadd_ps(a3, m, c);
    a4 = _mm512_fmadd_ps(a4, m, c);
    a5 = _mm512_fmadd_ps(a5, m, c);
    a6 = _mm512_fmadd_ps(a6, m, c);
    a7 = _mm512_fmadd_ps(a7, m, c);
    a8 = _mm512_fmadd_ps(a8, m, c);
    a9 = _mm512_fmadd_ps(a9, m, c);
    a10 = _mm512_fmadd_ps(a10, m, c);
    a11 = _mm512_fmadd_ps(a11, m, c);
    a12 = _mm512_fmadd_ps(a12, m, c);
    a13 = _mm512_fmadd_ps(a13, m, c);
    a14 = _mm512_fmadd_ps(a14, m, c);
    a15 = _mm512_fmadd_ps(a15, m, c);
  }
  const __m512 s =
      _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                                  _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7))),
                    _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)),
                                  _mm512_add_ps(_mm512_add_ps(a12, a13), _mm512_add_ps(a14, a15))));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  return lanes[0] + lanes[15];
}

// The same on doubles (vfmadd231pd), for the f64 peak.
double fma_chains_avx512_f64(int64_t iterations) {
  // The f32 loop's recurrence on doubles: acc <- acc * m + c converges to 10.
  const __m512d m = _mm512_set1_pd(0.9999999);
  const __m512d c = _mm512_set1_pd(1e-6);
  __m512d a0 = _mm512_set1_pd(0.0), a1 = _mm512_set1_pd(0.1), a2 = _mm512_set1_pd(0.2);
  __m512d a3 = _mm512_set1_pd(0.3), a4 = _mm512_set1_pd(0.4), a5 = _mm512_set1_pd(0.5);
  __m512d a6 = _mm512_set1_pd(0.6), a7 = _mm512_set1_pd(0.7), a8 = _mm512_set1_pd(0.8);
  __m512d a9 = _mm512_set1_pd(0.9), a10 = _mm512_set1_pd(1.0), a11 = _mm512_set1_pd(1.1);
  __m512d a12 = _mm512_set1_pd(1.2), a13 = _mm512_set1_pd(1.3), a14 = _mm512_set1_pd(1.4);
  __m512d a15 = _mm512_set1_pd(1.5);
  for (int64_t i = 0; i < iterations; ++i) {
    a0 = _mm512_fmadd_pd(a0, m, c);
    a1 = _mm512_fmadd_pd(a1, m, c);
    a2 = _mm512_fmadd_pd(a2, m, c);
    a3 = _mm512_fmadd_pd(a3, m, c);
    a4 = _mm512_fmadd_pd(a4, m, c);
    a5 = _mm512_fmadd_pd(a5, m, c);
    a6 = _mm512_fmadd_pd(a6, m, c);
    a7 = _mm512_fmadd_pd(a7, m, c);
    a8 = _mm512_fmadd_pd(a8, m, c);
    a9 = _mm512_fmadd_pd(a9, m, c);
    a10 = _mm512_fmadd_pd(a10, m, c);
    a11 = _mm512_fmadd_pd(a11, m, c);
    a12 = _mm512_fmadd_pd(a12, m, c);
    a13 = _mm512_fmadd_pd(a13, m, c);
    a14 = _mm512_fmadd_pd(a14, m, c);
    a15 = _mm512_fmadd_pd(a15, m, c);
  }
  const __m512d s =
      _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)),
                                  _mm512_add_pd(_mm512_add_pd(a4, a5), _mm512_add_pd(a6, a7))),
                    _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(a8, a9), _mm512_add_pd(a10, a11)),
                                  _mm512_add_pd(_mm512_add_pd(a12, a13), _mm512_add_pd(a14, a15))));
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, s);
  return lanes[0] + lanes[7];
}

}  // namespace invar_bench

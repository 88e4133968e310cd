// The core's AVX2 FMA peak: 12 independent dependency chains of vfmadd231ps (8 lanes) or
// vfmadd231pd (4 lanes), no loads or stores in the loop, so only the FMA pipes limit it (no cache
// or memory involved). 12 chains cover latency x throughput of current AVX2 cores (e.g. 4 cycles
// x 2 pipes = 8 in flight) and leave 4 of the 16 ymm registers for the operands. Built with
// -mavx2 -mfma; call only after CPUID + XGETBV report AVX2, FMA and OS-saved YMM state.
#include <immintrin.h>

#include "peak_fma.h"

namespace invar_bench {
namespace {

struct Ps {
  using T = float;
  using V = __m256;
  static V set1(T x) { return _mm256_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static T first_plus_last(V v) {
    alignas(32) T lanes[8];
    _mm256_store_ps(lanes, v);
    return lanes[0] + lanes[7];
  }
};

struct Pd {
  using T = double;
  using V = __m256d;
  static V set1(T x) { return _mm256_set1_pd(x); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static T first_plus_last(V v) {
    alignas(32) T lanes[4];
    _mm256_store_pd(lanes, v);
    return lanes[0] + lanes[3];
  }
};

template <class S>
typename S::T fma_chains(int64_t iterations) {
  constexpr int kChains = 12;
  // acc <- acc * m + c converges to c / (1 - m) = 10: values stay normal, never overflow.
  const typename S::V m = S::set1(typename S::T(0.9999999)), c = S::set1(typename S::T(1e-6));
  typename S::V acc[kChains];
#pragma GCC unroll 12
  for (int i = 0; i < kChains; ++i) acc[i] = S::set1(typename S::T(0.1 * i));
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = S::fma(acc[i], m, c);
  }
#pragma GCC unroll 12
  for (int i = 1; i < kChains; ++i) acc[0] = S::add(acc[0], acc[i]);
  return S::first_plus_last(acc[0]);
}

}  // namespace

float fma_chains_avx2(int64_t iterations) { return fma_chains<Ps>(iterations); }
double fma_chains_avx2_f64(int64_t iterations) { return fma_chains<Pd>(iterations); }

}  // namespace invar_bench

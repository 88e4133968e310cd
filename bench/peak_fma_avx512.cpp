// The core's AVX-512 FMA peak: 16 independent dependency chains of vfmadd231ps (16 lanes) or
// vfmadd231pd (8 lanes) on zmm registers, no loads or stores in the loop (no cache or memory
// involved). 16 chains cover latency x throughput of cores with two 512-bit FMA pipes. Built with
// -mavx512f; call only after CPUID + XGETBV report AVX-512F and OS-saved ZMM/opmask state.
#include <immintrin.h>

#include "peak_fma.h"

namespace invar_bench {
namespace {

struct Ps {
  using T = float;
  using V = __m512;
  static V set1(T x) { return _mm512_set1_ps(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static T first_plus_last(V v) {
    alignas(64) T lanes[16];
    _mm512_store_ps(lanes, v);
    return lanes[0] + lanes[15];
  }
};

struct Pd {
  using T = double;
  using V = __m512d;
  static V set1(T x) { return _mm512_set1_pd(x); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V add(V a, V b) { return _mm512_add_pd(a, b); }
  static T first_plus_last(V v) {
    alignas(64) T lanes[8];
    _mm512_store_pd(lanes, v);
    return lanes[0] + lanes[7];
  }
};

template <class S>
typename S::T fma_chains(int64_t iterations) {
  constexpr int kChains = 16;
  // acc <- acc * m + c converges to c / (1 - m) = 10: values stay normal, never overflow.
  const typename S::V m = S::set1(typename S::T(0.9999999)), c = S::set1(typename S::T(1e-6));
  typename S::V acc[kChains];
#pragma GCC unroll 16
  for (int i = 0; i < kChains; ++i) acc[i] = S::set1(typename S::T(0.1 * i));
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i) acc[i] = S::fma(acc[i], m, c);
  }
#pragma GCC unroll 16
  for (int i = 1; i < kChains; ++i) acc[0] = S::add(acc[0], acc[i]);
  return S::first_plus_last(acc[0]);
}

}  // namespace

float fma_chains_avx512(int64_t iterations) { return fma_chains<Ps>(iterations); }
double fma_chains_avx512_f64(int64_t iterations) { return fma_chains<Pd>(iterations); }

}  // namespace invar_bench

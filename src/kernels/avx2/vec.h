// The AVX2 vector operations of f32 (8 lanes) and f64 (4 lanes) that the AVX2 kernels are
// written over: the direct kernels (direct.h) and the packed tiles (kernels/tile_body.h); the
// AVX-512 f32 kernel's narrow edge tiles use F32Vec too. For translation units built with AVX2
// in their flags only (the AVX2 ones, and the AVX-512 ones, which include them; internal linkage
// keeps each unit's copy its own). load is unaligned; maskload and maskstore (vmaskmov) neither
// read nor write the lanes a mask leaves out, and never fault on them.
#ifndef INVAR_KERNELS_AVX2_VEC_H_
#define INVAR_KERNELS_AVX2_VEC_H_

#include <immintrin.h>

namespace invar::kernels::avx2 {
namespace {

struct F32Vec {
  using T = float;
  using V = __m256;
  using Mask = __m256i;
  static constexpr int kLanes = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V set1(T x) { return _mm256_set1_ps(x); }
  static V load(const T* p) { return _mm256_loadu_ps(p); }
  static V maskload(const T* p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void store(T* p, V v) { _mm256_storeu_ps(p, v); }
  static void maskstore(T* p, Mask m, V v) { _mm256_maskstore_ps(p, m, v); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V fma_bcast(const T* a, V b, V c) { return fma(set1(*a), b, c); }
  // Lanes l < left all ones: one 32-bit mask per lane.
  static Mask mask(int left) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static void zero_upper() { _mm256_zeroupper(); }
};

struct F64Vec {
  using T = double;
  using V = __m256d;
  using Mask = __m256i;
  static constexpr int kLanes = 4;
  static V zero() { return _mm256_setzero_pd(); }
  static V set1(T x) { return _mm256_set1_pd(x); }
  static V load(const T* p) { return _mm256_loadu_pd(p); }
  static V maskload(const T* p, Mask m) { return _mm256_maskload_pd(p, m); }
  static void store(T* p, V v) { _mm256_storeu_pd(p, v); }
  static void maskstore(T* p, Mask m, V v) { _mm256_maskstore_pd(p, m, v); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V fma_bcast(const T* a, V b, V c) { return fma(set1(*a), b, c); }
  // Lanes l < left all ones: one 64-bit mask per lane.
  static Mask mask(int left) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(left), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  static void zero_upper() { _mm256_zeroupper(); }
};

}  // namespace
}  // namespace invar::kernels::avx2

#endif  // INVAR_KERNELS_AVX2_VEC_H_

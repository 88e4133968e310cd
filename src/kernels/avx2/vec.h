// The AVX2 vector operations of f32 (8 lanes) and f64 (4 lanes) that the AVX2 kernels are
// written over: the direct kernels (direct.h) and the packed tiles (kernels/tile_body.h); the
// AVX-512 f32 kernel's narrow edge tiles use F32Vec too. For translation units built with AVX2
// in their flags only (the AVX2 ones, and the AVX-512 ones, which include them; internal linkage
// keeps each unit's copy its own). load is unaligned; maskload and maskstore neither read nor
// write the lanes a mask leaves out, and never fault on them.
//
// A mask is the first `lanes` lanes, held both as the vector vmaskmov loads under and as the
// count. maskstore writes by the count: the whole vector, or its leading 4 / 2 / 1 lanes (f32;
// 2 / 1 for f64) by plain stores, one per set bit of the count. A masked store (vmaskmovps to
// memory) took about fourteen cycles on an AMD EPYC Zen 3 (4.45 ns against 0.63 for a whole
// store, one thread, a loop of stores into L1), and the smallest products store every row of C
// under a mask: an 8^3 product's eight rows (one vector each, all lanes) cost some 36 ns at that
// rate, in a call that took 66.
#ifndef INVAR_KERNELS_AVX2_VEC_H_
#define INVAR_KERNELS_AVX2_VEC_H_

#include <immintrin.h>

namespace invar::kernels::avx2 {
namespace {

// The leading `lanes` (0 .. 3) of a 128-bit f32 vector, and (0 .. 1) of an f64 one, by plain
// stores, one per set bit: the tail of every maskstore below.
inline void store_leading(float* p, __m128 v, int lanes) {
  if (lanes & 2) {
    _mm_storel_pi(reinterpret_cast<__m64*>(p), v);  // vmovlps: any alignment
    v = _mm_movehl_ps(v, v);
    p += 2;
  }
  if (lanes & 1) _mm_store_ss(p, v);
}
inline void store_leading(double* p, __m128d v, int lanes) {
  if (lanes & 1) _mm_store_sd(p, v);
}

// The 128-bit halves (f32 4 lanes, f64 2): the direct kernels' narrowest products (few_rows_body.h,
// Vec::Half), whose columns fit half a vector, read and write C and B whole where the 256-bit
// forms would mask them.
struct F32x4 {
  using T = float;
  using V = __m128;
  struct Mask {
    __m128i bits;  // lanes l < lanes all ones
    int lanes;     // 0 .. kLanes
  };
  static constexpr int kLanes = 4;
  static V zero() { return _mm_setzero_ps(); }
  static V set1(T x) { return _mm_set1_ps(x); }
  static V load(const T* p) { return _mm_loadu_ps(p); }
  static V maskload(const T* p, Mask m) { return _mm_maskload_ps(p, m.bits); }
  static void store(T* p, V v) { _mm_storeu_ps(p, v); }
  static void maskstore(T* p, Mask m, V v) {
    if (m.lanes == kLanes)
      _mm_storeu_ps(p, v);
    else
      store_leading(p, v, m.lanes);
  }
  static V mul(V a, V b) { return _mm_mul_ps(a, b); }
  static V fma(V a, V b, V c) { return _mm_fmadd_ps(a, b, c); }
  static Mask mask(int left) {
    return {_mm_cmpgt_epi32(_mm_set1_epi32(left), _mm_setr_epi32(0, 1, 2, 3)),
            left < 0 ? 0 : (left > kLanes ? kLanes : left)};
  }
};

struct F64x2 {
  using T = double;
  using V = __m128d;
  struct Mask {
    __m128i bits;  // lanes l < lanes all ones
    int lanes;     // 0 .. kLanes
  };
  static constexpr int kLanes = 2;
  static V zero() { return _mm_setzero_pd(); }
  static V set1(T x) { return _mm_set1_pd(x); }
  static V load(const T* p) { return _mm_loadu_pd(p); }
  static V maskload(const T* p, Mask m) { return _mm_maskload_pd(p, m.bits); }
  static void store(T* p, V v) { _mm_storeu_pd(p, v); }
  static void maskstore(T* p, Mask m, V v) {
    if (m.lanes == kLanes)
      _mm_storeu_pd(p, v);
    else
      store_leading(p, v, m.lanes);
  }
  static V mul(V a, V b) { return _mm_mul_pd(a, b); }
  static V fma(V a, V b, V c) { return _mm_fmadd_pd(a, b, c); }
  static Mask mask(int left) {
    return {_mm_cmpgt_epi64(_mm_set1_epi64x(left), _mm_set_epi64x(1, 0)),
            left < 0 ? 0 : (left > kLanes ? kLanes : left)};
  }
};

struct F32Vec {
  using T = float;
  using V = __m256;
  using Half = F32x4;
  struct Mask {
    __m256i bits;  // lanes l < lanes all ones (one 32-bit mask per lane)
    int lanes;     // 0 .. kLanes
  };
  static constexpr int kLanes = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V set1(T x) { return _mm256_set1_ps(x); }
  static V load(const T* p) { return _mm256_loadu_ps(p); }
  static V maskload(const T* p, Mask m) { return _mm256_maskload_ps(p, m.bits); }
  static void store(T* p, V v) { _mm256_storeu_ps(p, v); }
  static void maskstore(T* p, Mask m, V v) {
    if (m.lanes == kLanes) {
      _mm256_storeu_ps(p, v);
      return;
    }
    __m128 part = _mm256_castps256_ps128(v);
    if (m.lanes & 4) {
      _mm_storeu_ps(p, part);
      part = _mm256_extractf128_ps(v, 1);
      p += 4;
    }
    store_leading(p, part, m.lanes & 3);
  }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V fma_bcast(const T* a, V b, V c) { return fma(set1(*a), b, c); }
  // The first `left` lanes (none for left <= 0, all for left >= kLanes).
  static Mask mask(int left) {
    return {_mm256_cmpgt_epi32(_mm256_set1_epi32(left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)),
            left < 0 ? 0 : (left > kLanes ? kLanes : left)};
  }
  static void zero_upper() { _mm256_zeroupper(); }
};

struct F64Vec {
  using T = double;
  using V = __m256d;
  using Half = F64x2;
  struct Mask {
    __m256i bits;  // lanes l < lanes all ones (one 64-bit mask per lane)
    int lanes;     // 0 .. kLanes
  };
  static constexpr int kLanes = 4;
  static V zero() { return _mm256_setzero_pd(); }
  static V set1(T x) { return _mm256_set1_pd(x); }
  static V load(const T* p) { return _mm256_loadu_pd(p); }
  static V maskload(const T* p, Mask m) { return _mm256_maskload_pd(p, m.bits); }
  static void store(T* p, V v) { _mm256_storeu_pd(p, v); }
  static void maskstore(T* p, Mask m, V v) {
    if (m.lanes == kLanes) {
      _mm256_storeu_pd(p, v);
      return;
    }
    __m128d part = _mm256_castpd256_pd128(v);
    if (m.lanes & 2) {
      _mm_storeu_pd(p, part);
      part = _mm256_extractf128_pd(v, 1);
      p += 2;
    }
    store_leading(p, part, m.lanes & 1);
  }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  static V fma_bcast(const T* a, V b, V c) { return fma(set1(*a), b, c); }
  // The first `left` lanes (none for left <= 0, all for left >= kLanes).
  static Mask mask(int left) {
    return {_mm256_cmpgt_epi64(_mm256_set1_epi64x(left), _mm256_setr_epi64x(0, 1, 2, 3)),
            left < 0 ? 0 : (left > kLanes ? kLanes : left)};
  }
  static void zero_upper() { _mm256_zeroupper(); }
};

}  // namespace
}  // namespace invar::kernels::avx2

#endif  // INVAR_KERNELS_AVX2_VEC_H_

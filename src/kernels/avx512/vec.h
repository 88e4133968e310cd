// The AVX-512F vector operations of f32 (16 lanes) and f64 (8 lanes) that the AVX-512 kernels
// are written over (kernels/tile_body.h), with the same names as avx2/vec.h's. For the AVX-512
// translation units only (built with their flags; internal linkage keeps each unit's copy its
// own). load is unaligned; maskload and maskstore go through an opmask and neither read nor
// write, nor fault on, the lanes it leaves out.
#ifndef INVAR_KERNELS_AVX512_VEC_H_
#define INVAR_KERNELS_AVX512_VEC_H_

#include <immintrin.h>

#include <cstdint>

namespace invar::kernels::avx512 {
namespace {

struct F32Vec {
  using T = float;
  using V = __m512;
  using Mask = __mmask16;
  static constexpr int kLanes = 16;
  static V zero() { return _mm512_setzero_ps(); }
  static V set1(T x) { return _mm512_set1_ps(x); }
  static V load(const T* p) { return _mm512_loadu_ps(p); }
  static V maskload(const T* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void store(T* p, V v) { _mm512_storeu_ps(p, v); }
  static void maskstore(T* p, Mask m, V v) { _mm512_mask_storeu_ps(p, m, v); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  // fma(set1(*a), b, c): g++ 12 and clang 14 load the broadcast into a register once
  // (vbroadcastss) and use it for the row's two fmas.
  static V fma_bcast(const T* a, V b, V c) { return fma(set1(*a), b, c); }
  static Mask mask(int left) { return static_cast<Mask>((uint32_t{1} << left) - 1); }
  static void zero_upper() { _mm256_zeroupper(); }
};

// F32Vec with the broadcast folded into each fma's memory operand ({1to16}): one instruction
// where there were two, and the row's element loaded once per fma. Written in asm because the
// compilers keep the register form above. The same rounding as fma (b * a + c, one rounding).
// Which form is faster depends on the core (kernels/sets/avx512.cpp has the measurements).
struct F32VecMemBcast : F32Vec {
  static V fma_bcast(const T* a, V b, V c) {
    asm("vfmadd231ps %[a]%{1to16%}, %[b], %[c]" : [c] "+v"(c) : [b] "v"(b), [a] "m"(*a));
    return c;
  }
};

struct F64Vec {
  using T = double;
  using V = __m512d;
  using Mask = __mmask8;
  static constexpr int kLanes = 8;
  static V zero() { return _mm512_setzero_pd(); }
  static V set1(T x) { return _mm512_set1_pd(x); }
  static V load(const T* p) { return _mm512_loadu_pd(p); }
  static V maskload(const T* p, Mask m) { return _mm512_maskz_loadu_pd(m, p); }
  static void store(T* p, V v) { _mm512_storeu_pd(p, v); }
  static void maskstore(T* p, Mask m, V v) { _mm512_mask_storeu_pd(p, m, v); }
  static V mul(V a, V b) { return _mm512_mul_pd(a, b); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_pd(a, b, c); }
  static V fma_bcast(const T* a, V b, V c) { return fma(set1(*a), b, c); }
  static Mask mask(int left) { return static_cast<Mask>((uint32_t{1} << left) - 1); }
  static void zero_upper() { _mm256_zeroupper(); }
};

// F64Vec with the broadcast folded into the fma ({1to8}), as F32VecMemBcast.
struct F64VecMemBcast : F64Vec {
  static V fma_bcast(const T* a, V b, V c) {
    asm("vfmadd231pd %[a]%{1to8%}, %[b], %[c]" : [c] "+v"(c) : [b] "v"(b), [a] "m"(*a));
    return c;
  }
};

}  // namespace
}  // namespace invar::kernels::avx512

#endif  // INVAR_KERNELS_AVX512_VEC_H_

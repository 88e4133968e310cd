// Loads of packed-operand values (eight, six or one) from an f32, bf16 or f16 source, widened
// exactly to f32, for the AVX2 packers only (built with their flags; internal linkage keeps each
// unit's copy its own). Each gives the bits of numeric/half.h's portable widening, so an AVX2
// packer writes what the portable packer writes:
//   bf16: the 16 bits become the top of the f32; a NaN gets its quiet bit set.
//   f16:  VCVTPH2PS (F16C), exact for every input: subnormals are widened (the packers run with
//         MXCSR's DAZ off, runtime/fp_mode.h, though the conversion kept them with DAZ on too on
//         the Zen 3 machine), and a NaN keeps its sign and payload with the quiet bit set.
// A source element is passed as its raw bits (uint16_t) for bf16 and f16. load8 reads eight
// values; load6 reads six (the last two lanes zero) and nothing past them.
#ifndef INVAR_KERNELS_AVX2_WIDEN8_H_
#define INVAR_KERNELS_AVX2_WIDEN8_H_

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace invar::kernels::avx2 {
namespace {

struct F32Source {
  using type = float;
  static __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
  static __m256 load6(const float* p) {
    return _mm256_maskload_ps(p, _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0));
  }
  static float load1(const float* p) { return *p; }
};

// The first six of eight values (lanes 6 and 7 zero), reading only those six: for the last
// piece of a row, where the two after it may lie past the operand.
inline __m128i load6_u16(const uint16_t* p) {
  int32_t last_two;
  std::memcpy(&last_two, p + 4, sizeof last_two);
  return _mm_insert_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)), last_two, 2);
}

struct Bf16Source {
  using type = uint16_t;
  static __m256 load8(const uint16_t* p) {
    return widen(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static __m256 load6(const uint16_t* p) { return widen(load6_u16(p)); }
  static __m256 widen(__m128i bits) {
    __m256i u = _mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16);
    const __m256i magnitude = _mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF));
    const __m256i nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7F800000));
    u = _mm256_or_si256(u, _mm256_and_si256(nan, _mm256_set1_epi32(0x00400000)));
    return _mm256_castsi256_ps(u);
  }
  static float load1(const uint16_t* p) {
    uint32_t u = static_cast<uint32_t>(*p) << 16;
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) u |= 0x00400000u;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
};

struct F16Source {
  using type = uint16_t;
  static __m256 load8(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static __m256 load6(const uint16_t* p) { return _mm256_cvtph_ps(load6_u16(p)); }
  static float load1(const uint16_t* p) {
    return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(*p)));
  }
};

// The zero-padded last A panel of `rows` < MR rows, value by value: op(A)[i][p] = a[i * rs + p *
// cs], stored at dst[MR * p + i] as alpha * value (the value itself when alpha is 1).
template <class S, int MR>
void pack_a_edge_panel(int64_t rows, int64_t kc, const typename S::type* a, int64_t rs, int64_t cs,
                       float alpha, float* dst) {
  std::memset(dst, 0, sizeof(float) * MR * kc);
  for (int64_t p = 0; p < kc; ++p) {
    for (int64_t i = 0; i < rows; ++i) {
      const float v = S::load1(a + i * rs + p * cs);
      dst[MR * p + i] = alpha == 1.0f ? v : alpha * v;
    }
  }
}

}  // namespace
}  // namespace invar::kernels::avx2

#endif  // INVAR_KERNELS_AVX2_WIDEN8_H_

// Exact widening of bfloat16 and binary16 to f32, and rounding of f32 to them (round to nearest,
// ties to even), in portable integer code: the same bits on every machine, whatever conversion
// instructions it has. Built only into baseline translation units.
//
// NaNs: widening keeps sign and payload and sets the quiet bit (as x86 VCVTPH2PS and AArch64
// FCVT do); rounding keeps sign and the payload's top bits and sets the quiet bit. Infinities and
// signed zeros map to themselves; binary16 subnormals widen exactly, and f32 values below
// binary16's range round to its subnormals or to zero.
#ifndef INVAR_NUMERIC_HALF_H_
#define INVAR_NUMERIC_HALF_H_

#include <cstdint>
#include <cstring>

#include "invar/types.h"

namespace invar::numeric {

inline float bits_to_f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline uint32_t f32_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float widen(bf16 x) {
  uint32_t u = static_cast<uint32_t>(x.bits) << 16;
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0) u |= 0x00400000u;  // quiet
  return bits_to_f32(u);
}

inline float widen(f16 x) {
  const uint32_t sign = static_cast<uint32_t>(x.bits & 0x8000u) << 16;
  const uint32_t exp = (x.bits >> 10) & 0x1Fu;
  uint32_t man = x.bits & 0x3FFu;
  if (exp == 0x1F) return bits_to_f32(sign | 0x7F800000u | (man << 13) | (man ? 0x00400000u : 0));
  if (exp != 0) return bits_to_f32(sign | ((exp + 112) << 23) | (man << 13));
  if (man == 0) return bits_to_f32(sign);
  // Subnormal: man * 2^-24, normalised.
  int e = 113;  // biased f32 exponent of 2^-14
  while ((man & 0x400u) == 0) {
    man <<= 1;
    --e;
  }
  return bits_to_f32(sign | (static_cast<uint32_t>(e) << 23) | ((man & 0x3FFu) << 13));
}

inline bf16 round_to_bf16(float f) {
  const uint32_t u = f32_to_bits(f);
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0)
    return bf16{static_cast<uint16_t>((u >> 16) | 0x0040u)};
  const uint32_t rounded = u + 0x7FFFu + ((u >> 16) & 1u);  // carries into the exponent: exact
  return bf16{static_cast<uint16_t>(rounded >> 16)};
}

inline f16 round_to_f16(float f) {
  const uint32_t u = f32_to_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7FFFFFFFu;
  if (abs > 0x7F800000u)  // NaN
    return f16{static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x3FFu))};
  if (abs >= 0x477FF000u) return f16{static_cast<uint16_t>(sign | 0x7C00u)};  // rounds past 65504
  if (abs >= 0x38800000u) {  // normal in binary16: >= 2^-14
    const uint32_t rounded = abs + 0xFFFu + ((abs >> 13) & 1u);
    return f16{static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13))};
  }
  if (abs < 0x33000000u) return f16{sign};  // below half the smallest subnormal (2^-25): zero
  // Subnormal result: the significand with its implicit bit, shifted to units of 2^-24.
  const uint32_t exp = abs >> 23;  // 102 ..= 112
  const uint32_t man = (abs & 0x7FFFFFu) | 0x800000u;
  const uint32_t shift = 126 - exp;  // 14 ..= 24
  const uint32_t q = man >> shift;
  const uint32_t rem = man & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  const uint32_t r = q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
  return f16{static_cast<uint16_t>(sign | r)};
}

}  // namespace invar::numeric

#endif  // INVAR_NUMERIC_HALF_H_

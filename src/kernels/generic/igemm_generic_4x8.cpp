// igemm_generic_4x8: the portable integer micro-kernel, the model of the SIMD ones.
//
// Assumptions: the int16 pair panels of ukernel.h with MR = 4, NR = 8; c a whole 4 x 8 tile with
// row stride ldc; kc >= 1. Every sum and product is taken in uint32_t, which wraps modulo 2^32
// (signed int32 would be undefined on overflow); each int16 product is exact in int32 first.
#include <cstdint>

#include "kernels/generic/generic.h"

namespace invar::kernels::generic {

void igemm_generic_4x8(int64_t kc, const int16_t* a_panel, const int16_t* b_panel, int32_t* c,
                       int64_t ldc, AccInit init, int32_t alpha, int32_t beta) {
  constexpr int MR = kIgemmMr;
  constexpr int NR = kIgemmNr;
  uint32_t acc[MR][NR] = {};
  int64_t p = 0;
  for (; p + 2 <= kc; p += 2) {
    const int16_t* a = a_panel + p * MR;
    const int16_t* b = b_panel + p * NR;
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < NR; ++j) {
        acc[i][j] += static_cast<uint32_t>(int32_t{a[2 * i]} * b[2 * j]) +
                     static_cast<uint32_t>(int32_t{a[2 * i + 1]} * b[2 * j + 1]);
      }
    }
  }
  if (p < kc) {
    const int16_t* a = a_panel + p * MR;
    const int16_t* b = b_panel + p * NR;
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < NR; ++j) acc[i][j] += static_cast<uint32_t>(int32_t{a[i]} * b[j]);
    }
  }
  const uint32_t ualpha = static_cast<uint32_t>(alpha);
  const uint32_t ubeta = static_cast<uint32_t>(beta);
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NR; ++j) {
      uint32_t start = 0;
      if (init == AccInit::kLoad) start = static_cast<uint32_t>(c[i * ldc + j]);
      if (init == AccInit::kScale) start = ubeta * static_cast<uint32_t>(c[i * ldc + j]);
      c[i * ldc + j] = static_cast<int32_t>(start + ualpha * acc[i][j]);
    }
  }
}

}  // namespace invar::kernels::generic

#include <cmath>

#include "kernels/generic/generic.h"

namespace invar::kernels::generic {

void sgemm_generic_4x8(int64_t kc, const float* a_panel, const float* b_panel, float* c,
                       int64_t ldc, AccInit init, float beta) {
  constexpr int MR = kSgemmMr;
  constexpr int NR = kSgemmNr;
  float acc[MR][NR];
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NR; ++j) {
      switch (init) {
        case AccInit::kZero: acc[i][j] = 0.0f; break;
        case AccInit::kLoad: acc[i][j] = c[i * ldc + j]; break;
        case AccInit::kScale: acc[i][j] = beta * c[i * ldc + j]; break;
      }
    }
  }
  for (int64_t p = 0; p < kc; ++p) {
    const float* a = a_panel + p * MR;
    const float* b = b_panel + p * NR;
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < NR; ++j) acc[i][j] = std::fma(a[i], b[j], acc[i][j]);
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NR; ++j) c[i * ldc + j] = acc[i][j];
  }
}

}  // namespace invar::kernels::generic

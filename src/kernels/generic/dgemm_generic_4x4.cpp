#include <cmath>

#include "kernels/generic/generic.h"

namespace invar::kernels::generic {

void dgemm_generic_4x4(int64_t kc, const double* a_panel, const double* b_panel, double* c,
                       int64_t ldc, AccInit init, double beta) {
  constexpr int MR = kDgemmMr;
  constexpr int NR = kDgemmNr;
  double acc[MR][NR];
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NR; ++j) {
      switch (init) {
        case AccInit::kZero: acc[i][j] = 0.0; break;
        case AccInit::kLoad: acc[i][j] = c[i * ldc + j]; break;
        case AccInit::kScale: acc[i][j] = beta * c[i * ldc + j]; break;
      }
    }
  }
  for (int64_t p = 0; p < kc; ++p) {
    const double* a = a_panel + p * MR;
    const double* b = b_panel + p * NR;
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < NR; ++j) acc[i][j] = std::fma(a[i], b[j], acc[i][j]);
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NR; ++j) c[i * ldc + j] = acc[i][j];
  }
}

}  // namespace invar::kernels::generic

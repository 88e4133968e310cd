// The portable decode step over bf16 and f16 operands (ukernel.h, WidenedDirectFn): each value
// widened exactly (numeric/half.h), then the chains of the f32 direct kernels, so the bits are
// those of sgemm on the widened operands.
#include <cmath>
#include <cstring>

#include "kernels/generic/generic.h"
#include "numeric/half.h"

namespace invar::kernels::generic {

namespace {

template <class H>
float widen_bits(uint16_t bits) {
  H h;
  std::memcpy(&h, &bits, sizeof h);
  return numeric::widen(h);
}

// Up to kSgemmNr columns; B[p][j] at col[j][p * step].
template <class H>
void widened_cols(int64_t m, int64_t cols, int64_t k, float alpha, const uint16_t* a, int64_t a_rs,
                  int64_t a_cs, const uint16_t* const* col, int64_t step, float* c, int64_t ldc,
                  AccInit init, float beta) {
  float acc[kDirectMaxRows][kSgemmNr];
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      switch (init) {
        case AccInit::kZero: acc[i][j] = 0.0f; break;
        case AccInit::kLoad: acc[i][j] = c[i * ldc + j]; break;
        case AccInit::kScale: acc[i][j] = beta * c[i * ldc + j]; break;
      }
    }
  }
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t i = 0; i < m; ++i) {
      const float x = widen_bits<H>(a[i * a_rs + p * a_cs]);
      const float aip = alpha == 1.0f ? x : alpha * x;
      for (int64_t j = 0; j < cols; ++j)
        acc[i][j] = std::fma(aip, widen_bits<H>(col[j][p * step]), acc[i][j]);
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < cols; ++j) c[i * ldc + j] = acc[i][j];
  }
}

// Column j of B starts at b + j * cs (rows `step` apart), or, over panels of kSgemmNr columns,
// at panel j / kSgemmNr (panel_stride apart), column j % kSgemmNr (rows kSgemmNr apart).
template <class H>
void widened_direct(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a, int64_t a_rs,
                    int64_t a_cs, const uint16_t* b, int64_t step, int64_t cs, int64_t panel_stride,
                    float* c, int64_t ldc, AccInit init, float beta) {
  for (int64_t j = 0; j < n; j += kSgemmNr) {
    const int64_t cols = n - j < kSgemmNr ? n - j : kSgemmNr;
    const uint16_t* col[kSgemmNr];
    for (int64_t t = 0; t < cols; ++t)
      col[t] = panel_stride != 0 ? b + (j / kSgemmNr) * panel_stride + t : b + (j + t) * cs;
    widened_cols<H>(m, cols, k, alpha, a, a_rs, a_cs, col, step, c + j, ldc, init, beta);
  }
}

}  // namespace

#define INVAR_GENERIC_WIDENED(name, H)                                                          \
  void name##_direct(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,           \
                     int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,      \
                     int64_t ldc, AccInit init, float beta) {                                   \
    widened_direct<H>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, 1, 0, c, ldc, init, beta);         \
  }                                                                                             \
  void name##_direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,         \
                       int64_t a_rs, int64_t a_cs, const uint16_t* b, int64_t ldb, float* c,    \
                       int64_t ldc, AccInit init, float beta) {                                 \
    widened_direct<H>(m, n, k, alpha, a, a_rs, a_cs, b, 1, ldb, 0, c, ldc, init, beta);         \
  }                                                                                             \
  void name##_direct_panels(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,    \
                            int64_t a_rs, int64_t a_cs, const uint16_t* panels,                 \
                            int64_t panel_stride, float* c, int64_t ldc, AccInit init,          \
                            float beta) {                                                       \
    widened_direct<H>(m, n, k, alpha, a, a_rs, a_cs, panels, kSgemmNr, 1, panel_stride, c, ldc, \
                      init, beta);                                                              \
  }
INVAR_GENERIC_WIDENED(sbgemm_generic, bf16)
INVAR_GENERIC_WIDENED(shgemm_generic, f16)
#undef INVAR_GENERIC_WIDENED

}  // namespace invar::kernels::generic

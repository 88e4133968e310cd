#include <cmath>

#include "kernels/generic/generic.h"

namespace invar::kernels::generic {

namespace {

// Up to NR columns; B[p][j] at b[p * b_rs + j * b_cs]: row-major B (b_cs = 1) or stored
// transposed (b_rs = 1). T is float or double.
template <class T, int NR>
void direct_cols(int64_t m, int64_t cols, int64_t k, T alpha, const T* a, int64_t a_rs,
                 int64_t a_cs, const T* b, int64_t b_rs, int64_t b_cs, T* c, int64_t ldc,
                 AccInit init, T beta) {
  T acc[kDirectMaxRows][NR];
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      switch (init) {
        case AccInit::kZero: acc[i][j] = T(0); break;
        case AccInit::kLoad: acc[i][j] = c[i * ldc + j]; break;
        case AccInit::kScale: acc[i][j] = beta * c[i * ldc + j]; break;
      }
    }
  }
  for (int64_t p = 0; p < k; ++p) {
    const T* bp = b + p * b_rs;
    for (int64_t i = 0; i < m; ++i) {
      const T aip = alpha == T(1) ? a[i * a_rs + p * a_cs] : alpha * a[i * a_rs + p * a_cs];
      for (int64_t j = 0; j < cols; ++j) acc[i][j] = std::fma(aip, bp[j * b_cs], acc[i][j]);
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < cols; ++j) c[i * ldc + j] = acc[i][j];
  }
}

}  // namespace

void sgemm_generic_direct_8(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                            int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                            int64_t ldc, AccInit init, float beta) {
  for (int64_t j = 0; j < n; j += kSgemmNr)
    direct_cols<float, kSgemmNr>(m, n - j < kSgemmNr ? n - j : kSgemmNr, k, alpha, a, a_rs, a_cs,
                                 b + j, ldb, 1, c + j, ldc, init, beta);
}

void sgemm_generic_direct_t_8(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                              int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                              int64_t ldc, AccInit init, float beta) {
  for (int64_t j = 0; j < n; j += kSgemmNr)
    direct_cols<float, kSgemmNr>(m, n - j < kSgemmNr ? n - j : kSgemmNr, k, alpha, a, a_rs, a_cs,
                                 b + j * ldb, 1, ldb, c + j, ldc, init, beta);
}

void dgemm_generic_direct_4(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                            int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                            int64_t ldc, AccInit init, double beta) {
  for (int64_t j = 0; j < n; j += kDgemmNr)
    direct_cols<double, kDgemmNr>(m, n - j < kDgemmNr ? n - j : kDgemmNr, k, alpha, a, a_rs, a_cs,
                                  b + j, ldb, 1, c + j, ldc, init, beta);
}

void dgemm_generic_direct_t_4(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                              int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                              int64_t ldc, AccInit init, double beta) {
  for (int64_t j = 0; j < n; j += kDgemmNr)
    direct_cols<double, kDgemmNr>(m, n - j < kDgemmNr ? n - j : kDgemmNr, k, alpha, a, a_rs, a_cs,
                                  b + j * ldb, 1, ldb, c + j, ldc, init, beta);
}

}  // namespace invar::kernels::generic

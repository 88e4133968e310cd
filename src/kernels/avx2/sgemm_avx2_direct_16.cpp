// sgemm_avx2_direct_16: m <= 4 rows x n (a multiple of 16) columns of C from unpacked operands (ukernel.h), for
// products with a few rows and a row-major B, where packing B would cost more than the product.
// The product is bound by reading B once; each step loads one 64-byte row segment of B and
// broadcasts alpha * op(A)[i][k] (one rounded multiply, as packing would do) into one fma per
// accumulator lane. Rows are handled by a switch over m so the accumulators stay in registers.
#include <immintrin.h>

#include "kernels/avx2/avx2.h"

namespace invar::kernels::avx2 {
namespace {

template <int M, int NV>
void direct(int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
            int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  __m256 acc[M][NV];
  const __m256 vbeta = _mm256_set1_ps(beta);
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < NV; ++v) {
      if (init == AccInit::kZero) {
        acc[i][v] = _mm256_setzero_ps();
      } else if (init == AccInit::kLoad) {
        acc[i][v] = _mm256_loadu_ps(c + i * ldc + 8 * v);
      } else {
        acc[i][v] = _mm256_mul_ps(vbeta, _mm256_loadu_ps(c + i * ldc + 8 * v));
      }
    }
  }
  const bool scale = alpha != 1.0f;
  for (int64_t p = 0; p < k; ++p) {
    const float* bp = b + p * ldb;
    __m256 bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = _mm256_loadu_ps(bp + 8 * v);
    for (int i = 0; i < M; ++i) {
      float aip = a[i * a_rs + p * a_cs];
      if (scale) aip = alpha * aip;
      const __m256 va = _mm256_set1_ps(aip);
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_fmadd_ps(va, bv[v], acc[i][v]);
    }
  }
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < NV; ++v) _mm256_storeu_ps(c + i * ldc + 8 * v, acc[i][v]);
  }
}

// All n columns (a multiple of 16) of M rows: groups as wide as the registers allow (fewer rows,
// more columns, so at least eight independent chains and several loads in flight), then
// 16-column groups for the rest.
template <int M>
void direct_rows(int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs,
                 const float* b, int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  constexpr int kWide = M == 1 ? 8 : M == 2 ? 4 : 2;  // vectors per row in the wide groups
  int64_t j = 0;
  for (; j + 8 * kWide <= n; j += 8 * kWide)
    direct<M, kWide>(k, alpha, a, a_rs, a_cs, b + j, ldb, c + j, ldc, init, beta);
  for (; j < n; j += 16) direct<M, 2>(k, alpha, a, a_rs, a_cs, b + j, ldb, c + j, ldc, init, beta);
}

}  // namespace

void sgemm_avx2_direct_16(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs,
                          int64_t a_cs, const float* b, int64_t ldb, float* c, int64_t ldc,
                          AccInit init, float beta) {
  static_assert(kDirectMaxRows == 4, "one case per row count");
  switch (m) {
    case 1: direct_rows<1>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    case 2: direct_rows<2>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    case 3: direct_rows<3>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    default: direct_rows<4>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
  }
}

}  // namespace invar::kernels::avx2

// sgemm_avx2_direct_16: m <= 4 rows x 16 columns of C from unpacked operands (ukernel.h), for
// products with a few rows and a row-major B, where packing B would cost more than the product.
// The product is bound by reading B once; each step loads one 64-byte row segment of B and
// broadcasts alpha * op(A)[i][k] (one rounded multiply, as packing would do) into one fma per
// accumulator lane. Rows are handled by a switch over m so the accumulators stay in registers.
#include <immintrin.h>

#include "kernels/avx2/avx2.h"

namespace invar::kernels::avx2 {
namespace {

template <int M>
void direct(int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
            int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  __m256 acc[M][2];
  const __m256 vbeta = _mm256_set1_ps(beta);
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < 2; ++v) {
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
    const __m256 b0 = _mm256_loadu_ps(bp);
    const __m256 b1 = _mm256_loadu_ps(bp + 8);
    for (int i = 0; i < M; ++i) {
      float aip = a[i * a_rs + p * a_cs];
      if (scale) aip = alpha * aip;
      const __m256 va = _mm256_set1_ps(aip);
      acc[i][0] = _mm256_fmadd_ps(va, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(va, b1, acc[i][1]);
    }
  }
  for (int i = 0; i < M; ++i) {
    _mm256_storeu_ps(c + i * ldc, acc[i][0]);
    _mm256_storeu_ps(c + i * ldc + 8, acc[i][1]);
  }
}

}  // namespace

void sgemm_avx2_direct_16(int64_t m, int64_t k, float alpha, const float* a, int64_t a_rs,
                          int64_t a_cs, const float* b, int64_t ldb, float* c, int64_t ldc,
                          AccInit init, float beta) {
  static_assert(kDirectMaxRows == 4, "one case per row count");
  switch (m) {
    case 1: direct<1>(k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    case 2: direct<2>(k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    case 3: direct<3>(k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    default: direct<4>(k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
  }
}

}  // namespace invar::kernels::avx2

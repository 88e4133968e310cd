// dgemm_avx2_direct_8: m <= 4 rows x any n columns of C from unpacked operands (ukernel.h), for
// products with a few rows (or small ones) and a row-major B, where packing would cost more than
// the product. Each step loads one row segment of B and broadcasts alpha * op(A)[i][k] (one
// rounded multiply, as packing would do) into one fma per accumulator lane. Rows are a template
// parameter so the accumulators stay in registers.
//
// The f64 counterpart of sgemm_avx2_direct_16, four doubles per vector. The last n % 8 columns
// use vmaskmovpd: masked-off lanes of B and C are neither read (no fault
// past the end of a row, however the row ends) nor written, and the lanes that are computed see
// the same fma chain as full vectors.
#include <immintrin.h>

#include "kernels/avx2/avx2.h"

namespace invar::kernels::avx2 {
namespace {

// M rows x 4*NV columns; with `mask`, only the lanes it selects (of two vectors) exist.
template <int M, int NV, bool kMasked>
void direct(int64_t k, double alpha, const double* a, int64_t a_rs, int64_t a_cs, const double* b,
            int64_t ldb, double* c, int64_t ldc, AccInit init, double beta, const __m256i* mask) {
  static_assert(!kMasked || NV == 2, "masked groups are 8 columns");
  auto load = [&](const double* p, int v) {
    if constexpr (kMasked) return _mm256_maskload_pd(p, mask[v]);
    return _mm256_loadu_pd(p);
  };
  __m256d acc[M][NV];
  const __m256d vbeta = _mm256_set1_pd(beta);
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < NV; ++v) {
      if (init == AccInit::kZero) {
        acc[i][v] = _mm256_setzero_pd();
      } else if (init == AccInit::kLoad) {
        acc[i][v] = load(c + i * ldc + 4 * v, v);
      } else {
        acc[i][v] = _mm256_mul_pd(vbeta, load(c + i * ldc + 4 * v, v));
      }
    }
  }
  const bool scale = alpha != 1.0;
  for (int64_t p = 0; p < k; ++p) {
    const double* bp = b + p * ldb;
    __m256d bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = load(bp + 4 * v, v);
    for (int i = 0; i < M; ++i) {
      double aip = a[i * a_rs + p * a_cs];
      if (scale) aip = alpha * aip;
      const __m256d va = _mm256_set1_pd(aip);
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_fmadd_pd(va, bv[v], acc[i][v]);
    }
  }
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < NV; ++v) {
      if constexpr (kMasked) {
        _mm256_maskstore_pd(c + i * ldc + 4 * v, mask[v], acc[i][v]);
      } else {
        _mm256_storeu_pd(c + i * ldc + 4 * v, acc[i][v]);
      }
    }
  }
}

// All n columns of M rows: groups as wide as the registers allow (fewer rows, more columns, so
// at least eight independent chains and several loads in flight), then 8-column groups, then
// a masked group for the rest.
template <int M>
void direct_rows(int64_t n, int64_t k, double alpha, const double* a, int64_t a_rs, int64_t a_cs,
                 const double* b, int64_t ldb, double* c, int64_t ldc, AccInit init, double beta) {
  constexpr int kWide = M == 1 ? 8 : M == 2 ? 4 : 2;  // vectors per row in the wide groups
  int64_t j = 0;
  for (; j + 4 * kWide <= n; j += 4 * kWide)
    direct<M, kWide, false>(k, alpha, a, a_rs, a_cs, b + j, ldb, c + j, ldc, init, beta, nullptr);
  for (; j + 8 <= n; j += 8)
    direct<M, 2, false>(k, alpha, a, a_rs, a_cs, b + j, ldb, c + j, ldc, init, beta, nullptr);
  if (j < n) {
    const int left = static_cast<int>(n - j);
    __m256i mask[2];
    for (int v = 0; v < 2; ++v) {
      const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
      mask[v] = _mm256_cmpgt_epi64(_mm256_set1_epi64x(left - 4 * v), lane);
    }
    direct<M, 2, true>(k, alpha, a, a_rs, a_cs, b + j, ldb, c + j, ldc, init, beta, mask);
  }
}

}  // namespace

void dgemm_avx2_direct_8(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                         int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                         int64_t ldc, AccInit init, double beta) {
  static_assert(kDirectMaxRows == 4, "one case per row count");
  switch (m) {
    case 1: direct_rows<1>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    case 2: direct_rows<2>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    case 3: direct_rows<3>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    default: direct_rows<4>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
  }
}

}  // namespace invar::kernels::avx2

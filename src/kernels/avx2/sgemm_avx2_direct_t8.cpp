// sgemm_avx2_direct_t8: m <= 4 rows x any n columns of C from unpacked operands with B stored
// transposed (ukernel.h, SgemmDirectFn with B[k][j] at b[j * ldb + k]): the decode step of x * W^T
// with W row-major, the usual layout of a linear layer's weights.
//
// Eight rows of W (eight columns of C) are read eight k at a time and transposed in registers, so
// each vector holds one k for eight columns and every lane is still one element's chain: acc =
// fma(alpha * op(A)[i][k], B[k][j], acc) in increasing k, exactly as packing and the micro-kernel
// would compute it, without writing W anywhere. One block of eight columns reads eight rows of W
// at a time: eight sequential streams. Sixteen (two blocks side by side, for two chains per row)
// ran at a third of the speed on the Zen 3 machine at M = 1, N = K = 4096, one thread: more
// streams than the prefetchers follow. k % 8 trailing steps gather their eight values with
// scalar loads; the n % 8 trailing columns run scalar chains (vfmadd231ss, the same rounding).
#include <immintrin.h>

#include "kernels/avx2/avx2.h"

namespace invar::kernels::avx2 {
namespace {

// r[l] holds row l (8 values); afterwards r[q] holds column q, lane l = old r[l][q].
inline __attribute__((always_inline)) void transpose8(__m256 (&r)[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// M rows x 8 columns (eight rows of W).
template <int M>
void direct_t(int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
              int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  __m256 acc[M];
  const __m256 vbeta = _mm256_set1_ps(beta);
  for (int i = 0; i < M; ++i) {
    if (init == AccInit::kZero) {
      acc[i] = _mm256_setzero_ps();
    } else if (init == AccInit::kLoad) {
      acc[i] = _mm256_loadu_ps(c + i * ldc);
    } else {
      acc[i] = _mm256_mul_ps(vbeta, _mm256_loadu_ps(c + i * ldc));
    }
  }
  const bool scale = alpha != 1.0f;
  auto a_at = [&](int i, int64_t p) {
    const float x = a[i * a_rs + p * a_cs];
    return scale ? alpha * x : x;
  };
  int64_t p = 0;
  for (; p + 8 <= k; p += 8) {
    __m256 t[8];
    for (int l = 0; l < 8; ++l) t[l] = _mm256_loadu_ps(b + l * ldb + p);
    transpose8(t);  // t[q] = B[p + q][0 .. 7]
    for (int q = 0; q < 8; ++q) {
      for (int i = 0; i < M; ++i)
        acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(a_at(i, p + q)), t[q], acc[i]);
    }
  }
  for (; p < k; ++p) {
    const float* col = b + p;
    const __m256 t = _mm256_setr_ps(col[0], col[ldb], col[2 * ldb], col[3 * ldb], col[4 * ldb],
                                    col[5 * ldb], col[6 * ldb], col[7 * ldb]);
    for (int i = 0; i < M; ++i) acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(a_at(i, p)), t, acc[i]);
  }
  for (int i = 0; i < M; ++i) _mm256_storeu_ps(c + i * ldc, acc[i]);
}

// Fewer than eight columns: one scalar chain per element, k outermost so the chains of all
// columns and rows are independent.
void direct_t_tail(int64_t m, int64_t cols, int64_t k, float alpha, const float* a, int64_t a_rs,
                   int64_t a_cs, const float* b, int64_t ldb, float* c, int64_t ldc,
                   AccInit init, float beta) {
  float acc[kDirectMaxRows][8];
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const float cij = init == AccInit::kZero ? 0.0f : c[i * ldc + j];
      acc[i][j] = init == AccInit::kScale ? beta * cij : cij;
    }
  }
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t i = 0; i < m; ++i) {
      const float x = a[i * a_rs + p * a_cs];
      const float aip = alpha != 1.0f ? alpha * x : x;
      for (int64_t j = 0; j < cols; ++j) acc[i][j] = __builtin_fmaf(aip, b[j * ldb + p], acc[i][j]);
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < cols; ++j) c[i * ldc + j] = acc[i][j];
  }
}

template <int M>
void direct_t_rows(int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs,
                   const float* b, int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    direct_t<M>(k, alpha, a, a_rs, a_cs, b + j * ldb, ldb, c + j, ldc, init, beta);
  if (j < n)
    direct_t_tail(M, n - j, k, alpha, a, a_rs, a_cs, b + j * ldb, ldb, c + j, ldc, init, beta);
}

}  // namespace

void sgemm_avx2_direct_t8(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                          int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta) {
  static_assert(kDirectMaxRows == 4, "one case per row count");
  switch (m) {
    case 1: direct_t_rows<1>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    case 2: direct_t_rows<2>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    case 3: direct_t_rows<3>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    default: direct_t_rows<4>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
  }
}

}  // namespace invar::kernels::avx2

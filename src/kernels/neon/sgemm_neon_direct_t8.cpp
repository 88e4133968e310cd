// sgemm_neon_direct_t8: m <= 4 rows x any n columns of C from unpacked operands with B stored
// transposed (ukernel.h, B[k][j] at b[j * ldb + k]): the decode step of x * W^T with W row-major.
//
// Four rows of W (four columns of C) are read four k at a time and transposed in registers (trn1
// and trn2 on 32- then 64-bit lanes), so each vector holds one k for four columns and every lane
// is one element's chain: acc = fma(alpha * op(A)[i][k], B[k][j], acc) in increasing k (fmla,
// one rounding), exactly as packing and the micro-kernel compute it. Two blocks of four columns
// run side by side: eight row streams and two chains per row. k % 4 trailing steps gather their
// values with scalar loads; the n % 4 trailing columns run scalar chains (kernels/scalar_chain.h:
// fmadd, the same rounding). Nothing in this file is shared with other translation units except the
// entry point.
#include <arm_neon.h>

#include "kernels/neon/neon.h"
#include "kernels/scalar_chain.h"

namespace invar::kernels::neon {
namespace {

// r[l] holds four k of row l; afterwards r[q] holds k = q of the four rows.
inline __attribute__((always_inline)) void transpose4(float32x4_t (&r)[4]) {
  const float32x4_t t0 = vtrn1q_f32(r[0], r[1]), t1 = vtrn2q_f32(r[0], r[1]);
  const float32x4_t t2 = vtrn1q_f32(r[2], r[3]), t3 = vtrn2q_f32(r[2], r[3]);
  r[0] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
  r[1] = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
  r[2] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
  r[3] = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
}

// M rows x 4 * NB columns (NB blocks of four W rows).
template <int M, int NB>
void direct_t(int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
              int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  float32x4_t acc[M][NB];
  const float32x4_t vbeta = vdupq_n_f32(beta);
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < NB; ++v) {
      if (init == AccInit::kZero) {
        acc[i][v] = vdupq_n_f32(0.0f);
      } else if (init == AccInit::kLoad) {
        acc[i][v] = vld1q_f32(c + i * ldc + 4 * v);
      } else {
        acc[i][v] = vmulq_f32(vbeta, vld1q_f32(c + i * ldc + 4 * v));
      }
    }
  }
  const bool scale = alpha != 1.0f;
  auto a_at = [&](int i, int64_t p) {
    const float x = a[i * a_rs + p * a_cs];
    return scale ? alpha * x : x;
  };
  int64_t p = 0;
  for (; p + 4 <= k; p += 4) {
    for (int v = 0; v < NB; ++v) {
      float32x4_t t[4];
      for (int l = 0; l < 4; ++l) t[l] = vld1q_f32(b + (4 * v + l) * ldb + p);
      transpose4(t);  // t[q] = B[p + q][4v .. 4v + 3]
      for (int q = 0; q < 4; ++q) {
        for (int i = 0; i < M; ++i)
          acc[i][v] = vfmaq_f32(acc[i][v], t[q], vdupq_n_f32(a_at(i, p + q)));
      }
    }
  }
  for (; p < k; ++p) {
    for (int v = 0; v < NB; ++v) {
      const float* col = b + 4 * v * ldb + p;
      const float g[4] = {col[0], col[ldb], col[2 * ldb], col[3 * ldb]};
      const float32x4_t t = vld1q_f32(g);
      for (int i = 0; i < M; ++i) acc[i][v] = vfmaq_f32(acc[i][v], t, vdupq_n_f32(a_at(i, p)));
    }
  }
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < NB; ++v) vst1q_f32(c + i * ldc + 4 * v, acc[i][v]);
  }
}

template <int M>
void direct_t_rows(int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs,
                   const float* b, int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    direct_t<M, 2>(k, alpha, a, a_rs, a_cs, b + j * ldb, ldb, c + j, ldc, init, beta);
  for (; j + 4 <= n; j += 4)
    direct_t<M, 1>(k, alpha, a, a_rs, a_cs, b + j * ldb, ldb, c + j, ldc, init, beta);
  if (j < n)
    scalar_chains<float, 4>(M, n - j, k, alpha, a, a_rs, a_cs, b + j * ldb, /*b_rs=*/1,
                            /*b_cs=*/ldb, c + j, ldc, init, beta);
}

}  // namespace

void sgemm_neon_direct_t8(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
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

}  // namespace invar::kernels::neon

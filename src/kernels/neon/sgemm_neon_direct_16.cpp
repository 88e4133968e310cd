// sgemm_neon_direct_16: m <= 4 rows x any n columns of C from unpacked operands (ukernel.h), for
// products with a few rows (or small ones) and a row-major B, where packing would cost more than
// the product. Each step loads one row segment of B and multiplies it by alpha * op(A)[i][k]
// (one rounded multiply, as packing would do) with vfmaq_n_f32, a fused multiply-add per lane.
// Columns go 16 at a time (4 q vectors per row: at most 16 accumulators), then 4 at a time, then
// one at a time with a scalar fused multiply-add, so no load or store passes the end of a row.
#include <arm_neon.h>

#include "kernels/neon/neon.h"

namespace invar::kernels::neon {
namespace {

// M rows x 4*NV columns.
template <int M, int NV>
void direct(int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
            int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  float32x4_t acc[M][NV];
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < NV; ++v) {
      if (init == AccInit::kZero) {
        acc[i][v] = vdupq_n_f32(0.0f);
      } else if (init == AccInit::kLoad) {
        acc[i][v] = vld1q_f32(c + i * ldc + 4 * v);
      } else {
        acc[i][v] = vmulq_n_f32(vld1q_f32(c + i * ldc + 4 * v), beta);
      }
    }
  }
  const bool scale = alpha != 1.0f;
  for (int64_t p = 0; p < k; ++p) {
    const float* bp = b + p * ldb;
    float32x4_t bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = vld1q_f32(bp + 4 * v);
    for (int i = 0; i < M; ++i) {
      float aip = a[i * a_rs + p * a_cs];
      if (scale) aip = alpha * aip;
      for (int v = 0; v < NV; ++v) acc[i][v] = vfmaq_n_f32(acc[i][v], bv[v], aip);
    }
  }
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < NV; ++v) vst1q_f32(c + i * ldc + 4 * v, acc[i][v]);
  }
}

// M rows x 1 column, the last n % 4 columns.
template <int M>
void direct_column(int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs,
                   const float* b, int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  float acc[M];
  for (int i = 0; i < M; ++i) {
    acc[i] = init == AccInit::kZero   ? 0.0f
             : init == AccInit::kLoad ? c[i * ldc]
                                      : beta * c[i * ldc];
  }
  const bool scale = alpha != 1.0f;
  for (int64_t p = 0; p < k; ++p) {
    const float bp = b[p * ldb];
    for (int i = 0; i < M; ++i) {
      float aip = a[i * a_rs + p * a_cs];
      if (scale) aip = alpha * aip;
      acc[i] = __builtin_fmaf(aip, bp, acc[i]);
    }
  }
  for (int i = 0; i < M; ++i) c[i * ldc] = acc[i];
}

template <int M>
void direct_rows(int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs,
                 const float* b, int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  int64_t j = 0;
  for (; j + 16 <= n; j += 16)
    direct<M, 4>(k, alpha, a, a_rs, a_cs, b + j, ldb, c + j, ldc, init, beta);
  for (; j + 4 <= n; j += 4)
    direct<M, 1>(k, alpha, a, a_rs, a_cs, b + j, ldb, c + j, ldc, init, beta);
  for (; j < n; ++j)
    direct_column<M>(k, alpha, a, a_rs, a_cs, b + j, ldb, c + j, ldc, init, beta);
}

}  // namespace

void sgemm_neon_direct_16(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                          int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta) {
  static_assert(kDirectMaxRows == 4, "one case per row count");
  switch (m) {
    case 1: direct_rows<1>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    case 2: direct_rows<2>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    case 3: direct_rows<3>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    default: direct_rows<4>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
  }
}

}  // namespace invar::kernels::neon

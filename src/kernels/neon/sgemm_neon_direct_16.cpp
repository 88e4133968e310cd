// sgemm_neon_direct_16 and sgemm_neon_direct_panels12: m <= 4 rows x any n columns of C from
// unpacked operands (ukernel.h), for products with a few rows (or small ones) and a row-major B,
// where packing would cost more than the product, and the same over prepacked 12-column panels
// (the decode step over packed weights). Each step loads one row segment of B and multiplies it by
// alpha * op(A)[i][k] (one rounded multiply, as packing would do) with vfmaq_n_f32, a fused
// multiply-add per lane. Columns go in wide blocks (48 for one row, 24 for two, 16 for three or
// four: at most 16 accumulators, at least 12 independent chains), then 4 at a time, then one at
// a time with a scalar fused multiply-add, so no load or store passes the end of a row.
//
// B is read in groups of 4 columns (one q vector), `gpp` groups side by side in each panel,
// panels gs elements apart: group g starts at b[(g / gpp) * gs + (g % gpp) * 4] and B[k][j] is
// element k * ldb + j % 4 of its group. A row-major B is one panel (gpp = 1, gs = 4); prepacked
// 12-column panels are ldb = 12, gpp = 3 and gs = the panel's size, so the wide blocks stream
// several panels at once.
#include <arm_neon.h>

#include "kernels/neon/neon.h"

namespace invar::kernels::neon {
namespace {

inline const float* group_start(const float* b, int64_t g, int64_t gs, int gpp) {
  return b + (g / gpp) * gs + (g % gpp) * 4;
}

// M rows x NV groups of 4 columns, from group g0.
template <int M, int NV>
void direct(int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
            int64_t g0, int64_t ldb, int64_t gs, int gpp, float* c, int64_t ldc, AccInit init,
            float beta) {
  const float* bg[NV];
  for (int v = 0; v < NV; ++v) bg[v] = group_start(b, g0 + v, gs, gpp);
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
    float32x4_t bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = vld1q_f32(bg[v] + p * ldb);
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

// M rows x column j, one of the last n % 4 columns.
template <int M>
void direct_column(int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs,
                   const float* b, int64_t j, int64_t ldb, int64_t gs, int gpp, float* c,
                   int64_t ldc, AccInit init, float beta) {
  const float* bj = group_start(b, j / 4, gs, gpp) + j % 4;
  float acc[M];
  for (int i = 0; i < M; ++i) {
    acc[i] = init == AccInit::kZero   ? 0.0f
             : init == AccInit::kLoad ? c[i * ldc]
                                      : beta * c[i * ldc];
  }
  const bool scale = alpha != 1.0f;
  for (int64_t p = 0; p < k; ++p) {
    const float bp = bj[p * ldb];
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
                 const float* b, int64_t ldb, int64_t gs, int gpp, float* c, int64_t ldc,
                 AccInit init, float beta) {
  constexpr int kWide = M == 1 ? 12 : M == 2 ? 6 : 4;  // groups per wide block
  int64_t j = 0;
  for (; j + 4 * kWide <= n; j += 4 * kWide)
    direct<M, kWide>(k, alpha, a, a_rs, a_cs, b, j / 4, ldb, gs, gpp, c + j, ldc, init, beta);
  for (; j + 4 <= n; j += 4)
    direct<M, 1>(k, alpha, a, a_rs, a_cs, b, j / 4, ldb, gs, gpp, c + j, ldc, init, beta);
  for (; j < n; ++j)
    direct_column<M>(k, alpha, a, a_rs, a_cs, b, j, ldb, gs, gpp, c + j, ldc, init, beta);
}

void direct_any(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs,
                int64_t a_cs, const float* b, int64_t ldb, int64_t gs, int gpp, float* c,
                int64_t ldc, AccInit init, float beta) {
  static_assert(kDirectMaxRows == 4, "one case per row count");
  switch (m) {
    case 1: direct_rows<1>(n, k, alpha, a, a_rs, a_cs, b, ldb, gs, gpp, c, ldc, init, beta); break;
    case 2: direct_rows<2>(n, k, alpha, a, a_rs, a_cs, b, ldb, gs, gpp, c, ldc, init, beta); break;
    case 3: direct_rows<3>(n, k, alpha, a, a_rs, a_cs, b, ldb, gs, gpp, c, ldc, init, beta); break;
    default: direct_rows<4>(n, k, alpha, a, a_rs, a_cs, b, ldb, gs, gpp, c, ldc, init, beta); break;
  }
}

}  // namespace

void sgemm_neon_direct_16(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                          int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta) {
  direct_any(m, n, k, alpha, a, a_rs, a_cs, b, ldb, 4, 1, c, ldc, init, beta);
}

void sgemm_neon_direct_panels12(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                                int64_t a_rs, int64_t a_cs, const float* panels,
                                int64_t panel_stride, float* c, int64_t ldc, AccInit init,
                                float beta) {
  static_assert(kSgemmNr == 12, "three groups of four per panel");
  direct_any(m, n, k, alpha, a, a_rs, a_cs, panels, kSgemmNr, panel_stride, kSgemmNr / 4, c, ldc,
             init, beta);
}

}  // namespace invar::kernels::neon

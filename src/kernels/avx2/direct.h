// The AVX2 direct kernels' body, for f32 (8 lanes) and f64 (4 lanes); for the AVX2 translation
// units only (built with their flags; internal linkage keeps each unit's copy its own).
//
// m <= 4 rows x any n columns of C from unpacked operands (ukernel.h), for products with a few
// rows (or small ones), where packing would cost more than the product. Each step loads one row
// segment of B and broadcasts alpha * op(A)[i][k] (one rounded multiply, as packing would do) into
// one fma per accumulator lane. Rows are a template parameter so the accumulators stay in
// registers.
//
// B is read in groups of G = 2 vectors of columns, `gpp` groups side by side in each panel of
// gpp * G columns, panels gs elements apart: group g starts at b[(g / gpp) * gs + (g % gpp) * G]
// and B[k][j] is element k * ldb + j % G of its group. A row-major B is one panel (gpp = 1,
// gs = G, so the groups lie side by side in each row); prepacked panels are ldb = gpp * G = NR
// and gs = the panel's size, so the same code streams several panels at once.
//
// The last n % G columns use vmaskmov: masked-off lanes of B and C are neither read (no fault
// past the end of a row, however the row ends) nor written, and the lanes that are computed see
// the same fma chain as full vectors.
#ifndef INVAR_KERNELS_AVX2_DIRECT_H_
#define INVAR_KERNELS_AVX2_DIRECT_H_

#include <immintrin.h>

#include <cstdint>

#include "kernels/ukernel.h"

namespace invar::kernels::avx2 {
namespace {

struct F32Vec {
  using T = float;
  using V = __m256;
  static constexpr int kLanes = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V set1(T x) { return _mm256_set1_ps(x); }
  static V load(const T* p) { return _mm256_loadu_ps(p); }
  static V maskload(const T* p, __m256i m) { return _mm256_maskload_ps(p, m); }
  static void store(T* p, V v) { _mm256_storeu_ps(p, v); }
  static void maskstore(T* p, __m256i m, V v) { _mm256_maskstore_ps(p, m, v); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  // Lanes l < left all ones: one 32-bit mask per lane.
  static __m256i mask(int left) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
};

struct F64Vec {
  using T = double;
  using V = __m256d;
  static constexpr int kLanes = 4;
  static V zero() { return _mm256_setzero_pd(); }
  static V set1(T x) { return _mm256_set1_pd(x); }
  static V load(const T* p) { return _mm256_loadu_pd(p); }
  static V maskload(const T* p, __m256i m) { return _mm256_maskload_pd(p, m); }
  static void store(T* p, V v) { _mm256_storeu_pd(p, v); }
  static void maskstore(T* p, __m256i m, V v) { _mm256_maskstore_pd(p, m, v); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_pd(a, b, c); }
  // Lanes l < left all ones: one 64-bit mask per lane.
  static __m256i mask(int left) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(left), _mm256_setr_epi64x(0, 1, 2, 3));
  }
};

// Where group g of B starts (see above).
template <class Vec>
const typename Vec::T* group_start(const typename Vec::T* b, int64_t g, int64_t gs, int gpp) {
  return b + (g / gpp) * gs + (g % gpp) * 2 * Vec::kLanes;
}

// M rows x NV vectors of columns (NV / 2 groups from group g0); with kMasked, the first NV <= 2
// vectors of one group, the lanes `mask` selects.
template <class Vec, int M, int NV, bool kMasked>
void direct_block(int64_t k, typename Vec::T alpha, const typename Vec::T* a, int64_t a_rs,
                  int64_t a_cs, const typename Vec::T* b, int64_t g0, int64_t ldb, int64_t gs,
                  int gpp, typename Vec::T* c, int64_t ldc, AccInit init, typename Vec::T beta,
                  const __m256i* mask) {
  using T = typename Vec::T;
  using V = typename Vec::V;
  constexpr int L = Vec::kLanes;
  static_assert(kMasked ? NV <= 2 : NV % 2 == 0, "whole groups, or part of one masked group");
  auto load_c = [&](const T* p, int v) {
    if constexpr (kMasked) return Vec::maskload(p, mask[v]);
    return Vec::load(p);
  };
  const T* bg[(NV + 1) / 2];  // each group's first row
  for (int g = 0; g < (NV + 1) / 2; ++g) bg[g] = group_start<Vec>(b, g0 + g, gs, gpp);
  V acc[M][NV];
  const V vbeta = Vec::set1(beta);
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < NV; ++v) {
      if (init == AccInit::kZero) {
        acc[i][v] = Vec::zero();
      } else if (init == AccInit::kLoad) {
        acc[i][v] = load_c(c + i * ldc + L * v, v);
      } else {
        acc[i][v] = Vec::mul(vbeta, load_c(c + i * ldc + L * v, v));
      }
    }
  }
  const bool scale = alpha != T(1);
  for (int64_t p = 0; p < k; ++p) {
    V bv[NV];
    for (int v = 0; v < NV; ++v) {
      const T* src = bg[v / 2] + p * ldb + L * (v % 2);
      if constexpr (kMasked) {
        bv[v] = Vec::maskload(src, mask[v]);
      } else {
        bv[v] = Vec::load(src);
      }
    }
    for (int i = 0; i < M; ++i) {
      T aip = a[i * a_rs + p * a_cs];
      if (scale) aip = alpha * aip;
      const V va = Vec::set1(aip);
      for (int v = 0; v < NV; ++v) acc[i][v] = Vec::fma(va, bv[v], acc[i][v]);
    }
  }
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < NV; ++v) {
      if constexpr (kMasked) {
        Vec::maskstore(c + i * ldc + L * v, mask[v], acc[i][v]);
      } else {
        Vec::store(c + i * ldc + L * v, acc[i][v]);
      }
    }
  }
}

// All n columns of M rows: blocks as wide as the registers allow (fewer rows, more groups, so at
// least eight independent chains and, over prepacked panels, several streams in flight), then
// single groups, then a masked group for the rest.
template <class Vec, int M>
void direct_rows(int64_t n, int64_t k, typename Vec::T alpha, const typename Vec::T* a,
                 int64_t a_rs, int64_t a_cs, const typename Vec::T* b, int64_t ldb, int64_t gs,
                 int gpp, typename Vec::T* c, int64_t ldc, AccInit init, typename Vec::T beta) {
  constexpr int G = 2 * Vec::kLanes;
  constexpr int kWide = M == 1 ? 8 : M == 2 ? 4 : 2;  // vectors per row in the wide blocks
  int64_t j = 0;
  for (; j + Vec::kLanes * kWide <= n; j += Vec::kLanes * kWide)
    direct_block<Vec, M, kWide, false>(k, alpha, a, a_rs, a_cs, b, j / G, ldb, gs, gpp, c + j,
                                       ldc, init, beta, nullptr);
  for (; j + G <= n; j += G)
    direct_block<Vec, M, 2, false>(k, alpha, a, a_rs, a_cs, b, j / G, ldb, gs, gpp, c + j, ldc,
                                   init, beta, nullptr);
  if (j < n) {
    const int left = static_cast<int>(n - j);
    const __m256i mask[2] = {Vec::mask(left), Vec::mask(left - Vec::kLanes)};
    if (left <= Vec::kLanes) {  // one vector is enough
      direct_block<Vec, M, 1, true>(k, alpha, a, a_rs, a_cs, b, j / G, ldb, gs, gpp, c + j, ldc,
                                    init, beta, mask);
    } else {
      direct_block<Vec, M, 2, true>(k, alpha, a, a_rs, a_cs, b, j / G, ldb, gs, gpp, c + j, ldc,
                                    init, beta, mask);
    }
  }
}

template <class Vec>
void direct_any(int64_t m, int64_t n, int64_t k, typename Vec::T alpha, const typename Vec::T* a,
                int64_t a_rs, int64_t a_cs, const typename Vec::T* b, int64_t ldb, int64_t gs,
                int gpp, typename Vec::T* c, int64_t ldc, AccInit init, typename Vec::T beta) {
  static_assert(kDirectMaxRows == 4, "one case per row count");
  switch (m) {
    case 1:
      direct_rows<Vec, 1>(n, k, alpha, a, a_rs, a_cs, b, ldb, gs, gpp, c, ldc, init, beta);
      break;
    case 2:
      direct_rows<Vec, 2>(n, k, alpha, a, a_rs, a_cs, b, ldb, gs, gpp, c, ldc, init, beta);
      break;
    case 3:
      direct_rows<Vec, 3>(n, k, alpha, a, a_rs, a_cs, b, ldb, gs, gpp, c, ldc, init, beta);
      break;
    default:
      direct_rows<Vec, 4>(n, k, alpha, a, a_rs, a_cs, b, ldb, gs, gpp, c, ldc, init, beta);
      break;
  }
}

}  // namespace
}  // namespace invar::kernels::avx2

#endif  // INVAR_KERNELS_AVX2_DIRECT_H_

// The AVX-512 floating-point micro-kernel body, shared by sgemm_avx512_12x32.cpp and
// dgemm_avx512_12x16.cpp (and included by nothing else: both are compiled with the AVX-512
// flags, and everything here has internal linkage in each of them).
//
// tile<V, M, NV, kMasked> runs M rows (1..12) of the 12-row packed A panel against NV (1 or 2)
// vectors of the packed B panel, and updates an M x (cols) block of C. Each zmm lane of
// acc[i][v] is the accumulator of one element C[i][v * lanes + lane]; every step is one fma per
// accumulator, so each element's chain is the contract's chain in increasing k whatever M, NV or
// the mask are: an edge tile computes exactly the bits the whole tile computes for the same
// elements.
//
// kMasked: the last vector's C lanes are read and written under `mask` (masked loads do not
// fault on the lanes left out, so nothing outside the block is touched). The whole tile,
// <12, 2, false>, reads and writes C with plain unaligned vector moves.
//
// Panels: a_panel holds kc steps of 12 values (rows M.. of a step are padding, never read),
// b_panel kc steps of 2 * lanes values, 64-byte aligned.
#ifndef INVAR_KERNELS_AVX512_TILE_H_
#define INVAR_KERNELS_AVX512_TILE_H_

#include <immintrin.h>

#include <cstdint>

#include "kernels/ukernel.h"

namespace invar::kernels::avx512 {
namespace {

// The vector operations of one element type.
struct F32Ops {
  using T = float;
  using Vec = __m512;
  using Mask = __mmask16;
  static constexpr int kLanes = 16;
  static Vec zero() { return _mm512_setzero_ps(); }
  static Vec set1(T x) { return _mm512_set1_ps(x); }
  static Vec load(const T* p) { return _mm512_load_ps(p); }
  static Vec loadu(const T* p) { return _mm512_loadu_ps(p); }
  static Vec loadu(const T* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void storeu(T* p, Vec v) { _mm512_storeu_ps(p, v); }
  static void storeu(T* p, Vec v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
  static Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
};

struct F64Ops {
  using T = double;
  using Vec = __m512d;
  using Mask = __mmask8;
  static constexpr int kLanes = 8;
  static Vec zero() { return _mm512_setzero_pd(); }
  static Vec set1(T x) { return _mm512_set1_pd(x); }
  static Vec load(const T* p) { return _mm512_load_pd(p); }
  static Vec loadu(const T* p) { return _mm512_loadu_pd(p); }
  static Vec loadu(const T* p, Mask m) { return _mm512_maskz_loadu_pd(m, p); }
  static void storeu(T* p, Vec v) { _mm512_storeu_pd(p, v); }
  static void storeu(T* p, Vec v, Mask m) { _mm512_mask_storeu_pd(p, m, v); }
  static Vec mul(Vec a, Vec b) { return _mm512_mul_pd(a, b); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_pd(a, b, c); }
};

constexpr int kPanelRows = 12;
constexpr int kPanelVectors = 2;

template <class V, int M, int NV, bool kMasked>
void tile(int64_t kc, const typename V::T* a_panel, const typename V::T* b_panel,
          typename V::T* c, int64_t ldc, AccInit init, typename V::T beta,
          typename V::Mask mask) {
  static_assert(M >= 1 && M <= kPanelRows && NV >= 1 && NV <= kPanelVectors);
  using Vec = typename V::Vec;
  constexpr int L = V::kLanes;
  // C lanes of row i, vector v: all of them, or the mask's in the last vector.
  auto load_c = [&](int i, int v) {
    if constexpr (kMasked) {
      if (v == NV - 1) return V::loadu(c + i * ldc + v * L, mask);
    }
    return V::loadu(c + i * ldc + v * L);
  };
  Vec acc[M][NV];
  if (init == AccInit::kZero) {
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[i][v] = V::zero();
  } else if (init == AccInit::kLoad) {
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[i][v] = load_c(i, v);
  } else {
    const Vec vbeta = V::set1(beta);
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[i][v] = V::mul(vbeta, load_c(i, v));
  }

  const typename V::T* a = a_panel;
  const typename V::T* b = b_panel;
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    Vec bv[NV];
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) bv[v] = V::load(b + v * L);
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i) {
      const Vec ai = V::set1(a[i]);
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[i][v] = V::fmadd(ai, bv[v], acc[i][v]);
    }
    a += kPanelRows;
    b += kPanelVectors * L;
  }

#pragma GCC unroll 12
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) {
      if constexpr (kMasked) {
        if (v == NV - 1) {
          V::storeu(c + i * ldc + v * L, acc[i][v], mask);
          continue;
        }
      }
      V::storeu(c + i * ldc + v * L, acc[i][v]);
    }
  }
}

// The whole 12 x (2 * lanes) tile.
template <class V>
void whole_tile(int64_t kc, const typename V::T* a_panel, const typename V::T* b_panel,
                typename V::T* c, int64_t ldc, AccInit init, typename V::T beta) {
  tile<V, kPanelRows, kPanelVectors, false>(kc, a_panel, b_panel, c, ldc, init, beta, 0);
}

// A partial tile, rows x cols with 1 <= rows <= 12 and 1 <= cols <= 2 * lanes: one instance per
// row count and vector count, the last vector masked to the columns it holds.
template <class V>
using EdgeFn = void (*)(int64_t, const typename V::T*, const typename V::T*, typename V::T*,
                        int64_t, AccInit, typename V::T, typename V::Mask);

template <class V, int M>
constexpr EdgeFn<V> edge_instance(int nv) {
  return nv == 1 ? &tile<V, M, 1, true> : &tile<V, M, 2, true>;
}

template <class V>
void edge_tile(int64_t rows, int64_t cols, int64_t kc, const typename V::T* a_panel,
               const typename V::T* b_panel, typename V::T* c, int64_t ldc, AccInit init,
               typename V::T beta) {
  constexpr int L = V::kLanes;
  static constexpr EdgeFn<V> kTable[kPanelRows][kPanelVectors] = {
      {edge_instance<V, 1>(1), edge_instance<V, 1>(2)},
      {edge_instance<V, 2>(1), edge_instance<V, 2>(2)},
      {edge_instance<V, 3>(1), edge_instance<V, 3>(2)},
      {edge_instance<V, 4>(1), edge_instance<V, 4>(2)},
      {edge_instance<V, 5>(1), edge_instance<V, 5>(2)},
      {edge_instance<V, 6>(1), edge_instance<V, 6>(2)},
      {edge_instance<V, 7>(1), edge_instance<V, 7>(2)},
      {edge_instance<V, 8>(1), edge_instance<V, 8>(2)},
      {edge_instance<V, 9>(1), edge_instance<V, 9>(2)},
      {edge_instance<V, 10>(1), edge_instance<V, 10>(2)},
      {edge_instance<V, 11>(1), edge_instance<V, 11>(2)},
      {edge_instance<V, 12>(1), edge_instance<V, 12>(2)},
  };
  const int nv = cols > L ? 2 : 1;
  const int last = static_cast<int>(cols) - (nv - 1) * L;  // 1..L columns in the last vector
  const auto mask = static_cast<typename V::Mask>((uint32_t{1} << last) - 1);
  kTable[rows - 1][nv - 1](kc, a_panel, b_panel, c, ldc, init, beta, mask);
}

}  // namespace
}  // namespace invar::kernels::avx512

#endif  // INVAR_KERNELS_AVX512_TILE_H_

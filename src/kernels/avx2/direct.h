// The AVX2 direct kernels' body, for f32 (8 lanes) and f64 (4 lanes); for the AVX2 translation
// units only (built with their flags; internal linkage keeps each unit's copy its own).
//
// m <= kDirectMr (6) rows x any n columns of C from an unpacked A (ukernel.h), for products with
// a few rows, small ones, or narrow ones over a packed B, where packing A (or B) would cost more
// than it saves. Each step loads one row segment of B and broadcasts alpha * op(A)[i][k] (one
// rounded multiply, as packing would do) into one fma per accumulator lane. Rows are a template
// parameter so the accumulators stay in registers.
//
// B is read in groups of G = 2 vectors of columns, `gpp` groups side by side in each panel of
// gpp * G columns, panels gs elements apart: group g starts at b[(g / gpp) * gs + (g % gpp) * G]
// and B[k][j] is element k * ldb + j % G of its group. A row-major B is one panel (gpp = 1,
// gs = G, so the groups lie side by side in each row); prepacked panels are ldb = gpp * G = NR
// and gs = the panel's size, so the same code streams several panels at once.
//
// The last n % G columns are masked (avx2/vec.h): masked-off lanes of B and C are neither read
// (no fault past the end of a row, however the row ends) nor written, and the lanes that are
// computed see the same fma chain as full vectors.
#ifndef INVAR_KERNELS_AVX2_DIRECT_H_
#define INVAR_KERNELS_AVX2_DIRECT_H_

#include <immintrin.h>

#include <cstdint>

#include "kernels/avx2/avx2.h"
#include "kernels/avx2/vec.h"
#include "kernels/ukernel.h"

namespace invar::kernels::avx2 {
namespace {

// Where group g of B starts (see above).
template <class Vec>
const typename Vec::T* group_start(const typename Vec::T* b, int64_t g, int64_t gs, int gpp) {
  return b + (g / gpp) * gs + (g % gpp) * 2 * Vec::kLanes;
}

// How a block treats the columns past n. kWhole: none in the block. kLastVector: only the lanes
// masks[NV - 1] selects of its last vector exist, in B as in C (a row-major B may end anywhere).
// kCOnly: B is a zero-padded packed panel, read whole; only C is masked, masks[v] per vector.
enum class Tail { kWhole, kLastVector, kCOnly };

// M rows x NV vectors of columns (NV / 2 groups from group g0; with a tail, NV <= 2 vectors of
// one group). kScale: alpha != 1, so each A value is multiplied by alpha first (a template
// parameter, so the loop has no test in it; with alpha == 1 the broadcast reads A directly).
template <class Vec, int M, int NV, Tail kTail, bool kScale>
void direct_block(int64_t k, typename Vec::T alpha, const typename Vec::T* a, int64_t a_rs,
                  int64_t a_cs, const typename Vec::T* b, int64_t g0, int64_t ldb, int64_t gs,
                  int gpp, typename Vec::T* c, int64_t ldc, AccInit init, typename Vec::T beta,
                  const typename Vec::Mask* masks) {
  using T = typename Vec::T;
  using V = typename Vec::V;
  constexpr int L = Vec::kLanes;
  static_assert(kTail == Tail::kWhole ? NV % 2 == 0 : NV <= 2,
                "whole groups, or part of one group");
  auto masked = [](int v, bool is_c) {
    return (kTail == Tail::kLastVector && v == NV - 1) || (kTail == Tail::kCOnly && is_c);
  };
  auto load = [&](const T* p, int v, bool is_c) {
    return masked(v, is_c) ? Vec::maskload(p, masks[v]) : Vec::load(p);
  };
  const T* bg[(NV + 1) / 2];  // each group's first row
  for (int g = 0; g < (NV + 1) / 2; ++g) bg[g] = group_start<Vec>(b, g0 + g, gs, gpp);
  // Every loop over i and v is unrolled, so the accumulators live in registers throughout.
  V acc[M][NV];
  if (init == AccInit::kZero) {
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] = Vec::zero();
  } else {
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] = load(c + i * ldc + L * v, v, true);
    if (init == AccInit::kScale) {
      const V vbeta = Vec::set1(beta);
#pragma GCC unroll 8
      for (int i = 0; i < M; ++i)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[i][v] = Vec::mul(vbeta, acc[i][v]);
    }
  }
  for (int64_t p = 0; p < k; ++p) {
    V bv[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) bv[v] = load(bg[v / 2] + p * ldb + L * (v % 2), v, false);
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      T aip = a[i * a_rs + p * a_cs];
      if constexpr (kScale) aip = alpha * aip;
      const V va = Vec::set1(aip);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] = Vec::fma(va, bv[v], acc[i][v]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      if (masked(v, true)) {
        Vec::maskstore(c + i * ldc + L * v, masks[v], acc[i][v]);
      } else {
        Vec::store(c + i * ldc + L * v, acc[i][v]);
      }
    }
  }
}

// The last n - j (1 .. 2 G - 1) columns of direct_rows: over a row-major B (b_padded false) one
// vector or two with the last masked; over zero-padded panels a whole group with only C masked,
// as fast as a full one. Out of line, so that the masks take no registers from the wide blocks'
// loop (inlined there, they left one of its B vectors on the stack: 64 x 64 x 65536 on a Zen 3,
// one thread, 67 -> 46 GFLOP/s).
template <class Vec, int M, bool kScale>
__attribute__((noinline)) void direct_tail(int64_t j, int64_t n, int64_t k, typename Vec::T alpha,
                                           const typename Vec::T* a, int64_t a_rs, int64_t a_cs,
                                           const typename Vec::T* b, int64_t ldb, int64_t gs,
                                           int gpp, bool b_padded, typename Vec::T* c, int64_t ldc,
                                           AccInit init, typename Vec::T beta) {
  constexpr int G = 2 * Vec::kLanes;
  const int left = static_cast<int>(n - j);
  const typename Vec::Mask masks[2] = {Vec::mask(left), Vec::mask(left - Vec::kLanes)};
  if (b_padded) {
    direct_block<Vec, M, 2, Tail::kCOnly, kScale>(k, alpha, a, a_rs, a_cs, b, j / G, ldb, gs, gpp,
                                                  c + j, ldc, init, beta, masks);
  } else if (left <= Vec::kLanes) {  // one vector is enough
    direct_block<Vec, M, 1, Tail::kLastVector, kScale>(k, alpha, a, a_rs, a_cs, b, j / G, ldb, gs,
                                                       gpp, c + j, ldc, init, beta, masks);
  } else {  // a whole vector and a masked one
    direct_block<Vec, M, 2, Tail::kLastVector, kScale>(k, alpha, a, a_rs, a_cs, b, j / G, ldb, gs,
                                                       gpp, c + j, ldc, init, beta, masks);
  }
}

// All n columns of M rows: blocks as wide as the registers allow (fewer rows, more groups, so at
// least eight independent chains and, over prepacked panels, several streams in flight), then
// single groups, then the rest (direct_tail).
template <class Vec, int M, bool kScale>
void direct_rows(int64_t n, int64_t k, typename Vec::T alpha, const typename Vec::T* a,
                 int64_t a_rs, int64_t a_cs, const typename Vec::T* b, int64_t ldb, int64_t gs,
                 int gpp, bool b_padded, typename Vec::T* c, int64_t ldc, AccInit init,
                 typename Vec::T beta) {
  constexpr int G = 2 * Vec::kLanes;
  constexpr int kWide = M == 1 ? 8 : M == 2 ? 4 : 2;  // vectors per row in the wide blocks
  static_assert(M * kWide <= 12, "accumulators, B vectors and the broadcast fit 16 registers");
  int64_t j = 0;
  for (; j + Vec::kLanes * kWide <= n; j += Vec::kLanes * kWide)
    direct_block<Vec, M, kWide, Tail::kWhole, kScale>(k, alpha, a, a_rs, a_cs, b, j / G, ldb, gs,
                                                      gpp, c + j, ldc, init, beta, nullptr);
  for (; j + G <= n; j += G)
    direct_block<Vec, M, 2, Tail::kWhole, kScale>(k, alpha, a, a_rs, a_cs, b, j / G, ldb, gs, gpp,
                                                  c + j, ldc, init, beta, nullptr);
  if (j < n)
    direct_tail<Vec, M, kScale>(j, n, k, alpha, a, a_rs, a_cs, b, ldb, gs, gpp, b_padded, c, ldc,
                                init, beta);
}

// m <= kDirectMr rows (m >= 1): the row count's and alpha's instance of direct_rows.
template <class Vec>
void direct_any(int64_t m, int64_t n, int64_t k, typename Vec::T alpha, const typename Vec::T* a,
                int64_t a_rs, int64_t a_cs, const typename Vec::T* b, int64_t ldb, int64_t gs,
                int gpp, bool b_padded, typename Vec::T* c, int64_t ldc, AccInit init,
                typename Vec::T beta) {
  using T = typename Vec::T;
  using Rows = void (*)(int64_t, int64_t, T, const T*, int64_t, int64_t, const T*, int64_t, int64_t,
                        int, bool, T*, int64_t, AccInit, T);
  static_assert(kDirectMr == 6, "one instance per row count");
  static constexpr Rows kRows[2][kDirectMr] = {
      {&direct_rows<Vec, 1, false>, &direct_rows<Vec, 2, false>, &direct_rows<Vec, 3, false>,
       &direct_rows<Vec, 4, false>, &direct_rows<Vec, 5, false>, &direct_rows<Vec, 6, false>},
      {&direct_rows<Vec, 1, true>, &direct_rows<Vec, 2, true>, &direct_rows<Vec, 3, true>,
       &direct_rows<Vec, 4, true>, &direct_rows<Vec, 5, true>, &direct_rows<Vec, 6, true>}};
  kRows[alpha != T(1)][m - 1](n, k, alpha, a, a_rs, a_cs, b, ldb, gs, gpp, b_padded, c, ldc, init,
                              beta);
}

}  // namespace
}  // namespace invar::kernels::avx2

#endif  // INVAR_KERNELS_AVX2_DIRECT_H_

// The decode step over bf16 and f16 operands (ukernel.h, WidenedDirectFn), written once over an
// ISA's widening S (avx2/widened_direct.cpp, neon/widened_direct.cpp) for the ISA translation
// units that include it (built with their flags; internal linkage keeps each unit's copy its
// own), as few_rows_body.h and tile_body.h are for the f32 kernels: m <= kDirectMaxRows rows x any
// n columns of C from A and B in place, B row-major, in 16-bit panels or stored transposed
// (x * W^T), each 16-bit value widened exactly to f32 in registers and fed to the chains of the
// f32 direct kernels: acc = fma(alpha * op(A)[i][k], B[k][j], acc) in increasing k, one lane per
// element. The bits are those of the f32 kernels on the widened operands, and B is read at two
// bytes an element.
//
// A is widened into a buffer on the stack (kBufferFloats), multiplied by alpha when alpha
// != 1 (one rounding, as every f32 kernel does it); past the buffer K is taken in chunks, the
// accumulators stored to C after one and loaded back for the next, which is exact: the same
// chain.
//
// S, one per ISA and 16-bit type, has
//   V, kLanes                    the f32 vector and its lanes;
//   zero(), set1(x), load(p), store(p, v), mul(a, b)
//                                as in avx2/vec.h;
//   A, a(p)                      one A value from the buffer as the multiply-add takes it (a
//                                broadcast vector, or a scalar for a multiply by element);
//   fma_a(a, b, acc)             acc + a * b with one rounding, the operands in the order of the
//                                ISA's f32 direct kernels (which NaN comes out depends on it);
//   widen_a(p)                   one A value widened as numeric/half.h widens it;
//   widen1(p), widen(p)          one B value, or kLanes consecutive ones, widened;
//   gather(p, ld)                kLanes B values ld apart, widened (a transposed B's step);
//   kSteps, steps<M, G>(acc, h, abuf, bh, ldb, p)
//                                kSteps steps of block h of a transposed B (kLanes rows of W from
//                                bh, ldb apart) from step p into acc[..][h];
//   kChunkSteps                  A's chunks are a multiple of this many steps;
//   kAheadBytes                  how far ahead along each row of a transposed B to prefetch (to
//                                all cache levels, for reading) every kChunkSteps steps; 0: none;
//   kRowsAhead                   how many steps ahead along a row-major B or 16-bit panels to
//                                prefetch each step's lines (to all cache levels); 0: none;
//   rows_wide(m), t_blocks(m)    the vectors per row of a block over a row-major B, and the
//                                blocks of a transposed B side by side, for m rows.
// The columns of a row-major B or of panels are a Cols of the ISA file's: b, ldb (the distance
// between rows), and column(j), the first row's element of column j.
#ifndef INVAR_KERNELS_WIDENED_DIRECT_BODY_H_
#define INVAR_KERNELS_WIDENED_DIRECT_BODY_H_

#include <cstdint>

#include "kernels/ukernel.h"

namespace invar::kernels {
namespace {
namespace widened {

// A's buffer on the stack: step p of row i at p * m + i, all of K in one pass up to 4096 / m
// steps (4096 for one row), chunks of that many (rounded down to S::kChunkSteps) beyond. No
// allocation per call. A pass over a transposed W in short chunks reads each row a piece at a
// time and the prefetchers lose the streams: W 16384 x 8192, M = 1, one thread, bf16 x * W^T ran
// at 1.3-1.4x the f32 decode in chunks of 2048 steps and 1.9x in one pass (Intel Xeon of
// block_sizes.h).
constexpr int64_t kBufferFloats = 4096;

// Rows [0, m) of op(A) over steps [p0, p0 + kc), widened, times alpha when alpha != 1, at
// abuf[p * m + i].
template <class S>
void widen_a(int64_t m, int64_t p0, int64_t kc, float alpha, const uint16_t* a, int64_t a_rs,
             int64_t a_cs, float* abuf) {
  const bool scale = alpha != 1.0f;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = 0; p < kc; ++p) {
      const float x = S::widen_a(a + i * a_rs + (p0 + p) * a_cs);
      abuf[p * m + i] = scale ? alpha * x : x;
    }
  }
}

template <int M>
struct Rows {
  static constexpr int kM = M;
};

// The whole product: A widened a chunk of steps at a time into the stack buffer, and
// pass(rows, p0, kc, abuf, init) over those steps for every column, rows a Rows<m>; the first
// chunk starts the accumulators as `init` says, the next ones from C.
template <class S, class Pass>
void in_chunks(int64_t m, int64_t k, float alpha, const uint16_t* a, int64_t a_rs, int64_t a_cs,
               AccInit init, Pass pass) {
  alignas(64) float abuf[kBufferFloats];
  const int64_t chunk = kBufferFloats / m / S::kChunkSteps * S::kChunkSteps;
  for (int64_t p0 = 0; p0 < k; p0 += chunk) {
    const int64_t kc = k - p0 < chunk ? k - p0 : chunk;
    widen_a<S>(m, p0, kc, alpha, a, a_rs, a_cs, abuf);
    const AccInit first = p0 == 0 ? init : AccInit::kLoad;
    switch (m) {
      case 1: pass(Rows<1>{}, p0, kc, abuf, first); break;
      case 2: pass(Rows<2>{}, p0, kc, abuf, first); break;
      case 3: pass(Rows<3>{}, p0, kc, abuf, first); break;
      default: pass(Rows<4>{}, p0, kc, abuf, first); break;
    }
  }
}

template <class S, int M, int W>
void init_acc(typename S::V (&acc)[M][W], const float* c, int64_t ldc, AccInit init, float beta) {
  const typename S::V vbeta = S::set1(beta);
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < W; ++v) {
      if (init == AccInit::kZero) {
        acc[i][v] = S::zero();
      } else if (init == AccInit::kLoad) {
        acc[i][v] = S::load(c + i * ldc + S::kLanes * v);
      } else {
        acc[i][v] = S::mul(vbeta, S::load(c + i * ldc + S::kLanes * v));
      }
    }
  }
}

template <class S, int M, int W>
void store_acc(const typename S::V (&acc)[M][W], float* c, int64_t ldc) {
  for (int i = 0; i < M; ++i)
    for (int v = 0; v < W; ++v) S::store(c + i * ldc + S::kLanes * v, acc[i][v]);
}

// Fewer than kLanes columns, one scalar chain each (the same rounding); column j's values are at
// col[j][p * step].
template <class S, int M>
void scalar_cols(int64_t cols, int64_t kc, const float* abuf, const uint16_t* const* col,
                 int64_t step, float* c, int64_t ldc, AccInit init, float beta) {
  float acc[M][S::kLanes];
  for (int i = 0; i < M; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      const float cij = init == AccInit::kZero ? 0.0f : c[i * ldc + j];
      acc[i][j] = init == AccInit::kScale ? beta * cij : cij;
    }
  }
  for (int64_t p = 0; p < kc; ++p) {
    for (int64_t j = 0; j < cols; ++j) {
      const float bj = S::widen1(col[j] + p * step);
      for (int i = 0; i < M; ++i) acc[i][j] = __builtin_fmaf(abuf[p * M + i], bj, acc[i][j]);
    }
  }
  for (int i = 0; i < M; ++i) {
    for (int64_t j = 0; j < cols; ++j) c[i * ldc + j] = acc[i][j];
  }
}

// ---- B row-major, or 16-bit panels -----------------------------------------------------------

// M rows x W vectors of kLanes columns from column j (a multiple of kLanes).
template <class S, int M, int W, class Cols>
void rows_block(int64_t kc, const float* abuf, const Cols& g, int64_t j, float* c, int64_t ldc,
                AccInit init, float beta) {
  const uint16_t* bp[W];
  for (int v = 0; v < W; ++v) bp[v] = g.column(j + S::kLanes * v);
  typename S::V acc[M][W];
  init_acc<S, M, W>(acc, c, ldc, init, beta);
  const int64_t ldb = g.ldb;
  // One prefetch per 64-byte line of each step's columns, S::kRowsAhead steps ahead. Past the
  // end of B the address is harmless (a prefetch never faults) and formed in unsigned integer
  // arithmetic, never as a pointer beyond the array (any ldb is valid when k is 1).
  constexpr int kVectorsPerLine = 64 / (2 * S::kLanes) > 0 ? 64 / (2 * S::kLanes) : 1;
  for (int64_t p = 0; p < kc; ++p) {
    if constexpr (S::kRowsAhead > 0) {
#pragma GCC unroll 8
      for (int v = 0; v < W; v += kVectorsPerLine) {
        const auto at = reinterpret_cast<std::uintptr_t>(bp[v] + p * ldb) +
                        static_cast<std::uintptr_t>(ldb) * (S::kRowsAhead * sizeof(uint16_t));
        __builtin_prefetch(reinterpret_cast<const char*>(at), 0, 3);
      }
    }
    typename S::A va[M];
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) va[i] = S::a(abuf + p * M + i);
#pragma GCC unroll 8
    for (int v = 0; v < W; ++v) {
      const typename S::V bv = S::widen(bp[v] + p * ldb);
#pragma GCC unroll 4
      for (int i = 0; i < M; ++i) acc[i][v] = S::fma_a(va[i], bv, acc[i][v]);
    }
  }
  store_acc<S, M, W>(acc, c, ldc);
}

template <class S, int M, class Cols>
void rows_all(int64_t n, int64_t kc, const float* abuf, const Cols& g, float* c, int64_t ldc,
              AccInit init, float beta) {
  constexpr int L = S::kLanes;
  constexpr int kWide = S::rows_wide(M);
  int64_t j = 0;
  for (; j + L * kWide <= n; j += L * kWide)
    rows_block<S, M, kWide>(kc, abuf, g, j, c + j, ldc, init, beta);
  for (; j + L <= n; j += L) rows_block<S, M, 1>(kc, abuf, g, j, c + j, ldc, init, beta);
  if (j < n) {
    const uint16_t* col[L];
    for (int64_t t = 0; j + t < n; ++t) col[t] = g.column(j + t);
    scalar_cols<S, M>(n - j, kc, abuf, col, g.ldb, c + j, ldc, init, beta);
  }
}

template <class S, class Cols>
void direct_rows(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a, int64_t a_rs,
                 int64_t a_cs, Cols g, float* c, int64_t ldc, AccInit init, float beta) {
  in_chunks<S>(m, k, alpha, a, a_rs, a_cs, init,
               [&](auto rows, int64_t p0, int64_t kc, const float* abuf, AccInit first) {
                 Cols at = g;
                 at.b = g.b + p0 * g.ldb;
                 rows_all<S, decltype(rows)::kM>(n, kc, abuf, at, c, ldc, first, beta);
               });
}

// ---- B stored transposed ---------------------------------------------------------------------

// G blocks of kLanes rows of W (C's columns), side by side; S::steps takes S::kSteps steps of a
// block at once, the last kc % S::kSteps steps go one by one.
template <class S, int M, int G>
void t_block(int64_t kc, const float* abuf, const uint16_t* b, int64_t ldb, float* c, int64_t ldc,
             AccInit init, float beta) {
  constexpr int L = S::kLanes;
  typename S::V acc[M][G];
  init_acc<S, M, G>(acc, c, ldc, init, beta);
  int64_t p = 0;
  for (; p + S::kSteps <= kc; p += S::kSteps) {
    if constexpr (S::kAheadBytes > 0) {
      if (p % S::kChunkSteps == 0) {  // prefetcht0 on x86
        for (int l = 0; l < L * G; ++l) {
          const auto at = reinterpret_cast<std::uintptr_t>(b + l * ldb + p) + S::kAheadBytes;
          __builtin_prefetch(reinterpret_cast<const char*>(at), 0, 3);
        }
      }
    }
    for (int h = 0; h < G; ++h) S::template steps<M, G>(acc, h, abuf, b + L * h * ldb, ldb, p);
  }
  for (; p < kc; ++p) {
    for (int h = 0; h < G; ++h) {
      const typename S::V t = S::gather(b + L * h * ldb + p, ldb);
      for (int i = 0; i < M; ++i) acc[i][h] = S::fma_a(S::a(abuf + p * M + i), t, acc[i][h]);
    }
  }
  store_acc<S, M, G>(acc, c, ldc);
}

template <class S, int M>
void t_all(int64_t n, int64_t kc, const float* abuf, const uint16_t* b, int64_t ldb, float* c,
           int64_t ldc, AccInit init, float beta) {
  constexpr int L = S::kLanes;
  constexpr int G = S::t_blocks(M);
  int64_t j = 0;
  for (; j + L * G <= n; j += L * G)
    t_block<S, M, G>(kc, abuf, b + j * ldb, ldb, c + j, ldc, init, beta);
  for (; j + L <= n; j += L) t_block<S, M, 1>(kc, abuf, b + j * ldb, ldb, c + j, ldc, init, beta);
  if (j < n) {
    const uint16_t* col[L];
    for (int64_t t = 0; j + t < n; ++t) col[t] = b + (j + t) * ldb;
    scalar_cols<S, M>(n - j, kc, abuf, col, 1, c + j, ldc, init, beta);
  }
}

template <class S>
void direct_t(int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a, int64_t a_rs,
              int64_t a_cs, const uint16_t* b, int64_t ldb, float* c, int64_t ldc, AccInit init,
              float beta) {
  in_chunks<S>(m, k, alpha, a, a_rs, a_cs, init,
               [&](auto rows, int64_t p0, int64_t kc, const float* abuf, AccInit first) {
                 t_all<S, decltype(rows)::kM>(n, kc, abuf, b + p0, ldb, c, ldc, first, beta);
               });
}

}  // namespace widened
}  // namespace
}  // namespace invar::kernels

#endif  // INVAR_KERNELS_WIDENED_DIRECT_BODY_H_

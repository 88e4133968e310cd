// The floating-point micro-kernel body, written once over a vector-operations type V and
// instantiated by each ISA's kernel units (avx512/, avx2/, neon/) with their own V. Everything here
// has internal linkage in each unit that includes it, and the body itself names no instruction:
// each unit's copy is compiled with that unit's flags only, so no code built for one ISA can be
// picked by the linker for another (the trap pack.h describes).
//
// tile_on<V, M, NV, kMasked>(kc, a, b, ...) runs M rows of A against NV (1 to 4) vectors of B
// over kc steps and updates an M x cols block of C; a and b say where the operands are (packed
// panels or in place, below). Each lane of acc[i][v] is the accumulator of one element
// C[i][v * lanes + lane]; every step is one fma per accumulator, so each element's chain is the
// contract's chain in increasing k whatever M, NV, the mask or the operands' layout are: an
// edge tile, or a tile read in place, computes exactly the bits the whole packed tile computes
// for the same elements.
//
// kMasked: the last vector's C lanes (and an unpacked B's) are read and written under `mask`
// (masked loads do not fault on the lanes left out, so nothing outside the block is touched).
// The whole tile, <R, NV, false>, reads and writes C with plain unaligned vector moves. The x86
// tiles are two vectors wide (kTileVectors), the NEON ones three (whole_tile's NV); the AVX2
// tiles over A and B in place take four vectors where they can (wide_tiles_a_in_place).
//
// Entry points for the ISA units: whole_tile and edge_tile over packed panels (a_panel: kc
// steps of R values, rows M.. of a step being padding, never read; b_panel: kc steps of
// NV * lanes values), whole_tile_packing_b (a packed A panel, B in place and packed on the way),
// and tiles_a_in_place over a row-major A and B in place.
//
// V is an ISA's vector type (avx2/vec.h, avx512/vec.h, neon/vec.h, the direct kernels' too): T,
// V, Mask, kLanes; zero(), set1(T), load(const T*) and store(T*, V) (unaligned), mul(V, V),
// fma(a, b, c) = a * b + c rounded once, fma_bcast(const T* a, b, c) = fma(set1(*a), b, c)
// (AVX-512 folds the broadcast into the fma's memory operand: one instruction where there were
// two, measured +2 to +5 % on the Zen 4 from 96^3 to 4096^3); for the masked forms
// maskload(const T*, Mask) and maskstore(T*, Mask, V), mask(int lanes) (the first `lanes`), and
// zero_upper() (vzeroupper). A V with kFmaByLane (neon/vec.h) has fma_lane<l>(a, b, c) =
// fma(set1(a[l]), b, c), and its tiles over packed A panels load a step's A values a vector at a
// time and multiply by lane instead of broadcasting each one (fma_by_lane below).
//
// The partial tiles are reached through tables of function pointers (EdgeTable), and g++ 12
// emits no vzeroupper on the way out of those internal functions: their callers end with
// V::zero_upper(), so that no entry point returns with the upper halves of the vector registers
// dirty (the caller's SSE code would pay for it on every instruction on Intel cores;
// tests/upper_state_test.cpp).
#ifndef INVAR_KERNELS_TILE_BODY_H_
#define INVAR_KERNELS_TILE_BODY_H_

#include <cstdint>
#include <utility>

#include "kernels/ukernel.h"

namespace invar::kernels {
namespace {

// The x86 tiles' vectors per row.
constexpr int kTileVectors = 2;

// Where a tile's operands come from. Packed panels (the loop nest's): step p of an R-row A panel
// at a[p * R], of B at b[p * 2 * lanes]. In place (tiles_a_in_place below): a row-major A,
// row i at a + i * lda and step p at + p (alpha 1: nothing to round before the fma); a row-major
// B, step p at b + p * ldb, its last vector read under the tile's mask so nothing past the
// block's columns is touched.
template <class V, int R>
struct PackedA {
  static constexpr bool kRowsContiguous = true;  // row i of a step at at(0) + i
  const typename V::T* p;
  const typename V::T* at(int i) const { return p + i; }
  void step() { p += R; }
};

template <class V>
struct RowsA {
  static constexpr bool kRowsContiguous = false;
  const typename V::T* p;
  int64_t lda;
  const typename V::T* at(int i) const { return p + i * lda; }
  void step() { ++p; }
};

// kWidth: the panel's columns per step, which a narrower V than the panel's own may read the
// first lanes of (edge_tile_narrow).
template <class V, int kWidth = kTileVectors* V::kLanes>
struct PackedB {
  const typename V::T* p;
  typename V::V load(int v, bool /*last*/, typename V::Mask /*mask*/) const {
    return V::load(p + v * V::kLanes);
  }
  void step() { p += kWidth; }
};

// B's row of the current step is at p + at: the offset is an integer, so that stepping past the
// last row forms no pointer (B's one row may have any leading dimension: p + ldb could lie past
// the end of the address space). It stays below 2^63: the call was valid, so (k - 1) * ldb
// elements are addressable and k * ldb is at most twice that, or ldb itself for one row.
template <class V>
struct RowsB {
  const typename V::T* p;
  int64_t ldb;
  int64_t at = 0;
  // `last`: the masked tile's last vector (tile_on), read under the mask.
  typename V::V load(int v, bool last, typename V::Mask mask) const {
    const typename V::T* row = p + at;
    return last ? V::maskload(row + v * V::kLanes, mask) : V::load(row + v * V::kLanes);
  }
  void step() { at += ldb; }
};

// A row-major B read in place (whole vectors, step p at p + p * ldb) whose values are also stored,
// as read, into a packed micro-panel (step p at dst + p * 2 * lanes): the tile that packs B on
// its way (whole_tile_packing_b). The stores change nothing the chains compute.
template <class V>
struct PackingB {
  const typename V::T* p;
  int64_t ldb;
  typename V::T* dst;
  int64_t at = 0;  // the step's row at p + at, as in RowsB
  typename V::V load(int v, bool /*last*/, typename V::Mask /*mask*/) const {
    const typename V::V x = V::load(p + at + v * V::kLanes);
    V::store(dst + v * V::kLanes, x);
    return x;
  }
  void step() {
    at += ldb;
    dst += kTileVectors * V::kLanes;
  }
};

// Whether V multiplies by lane (neon/vec.h) and A's rows of a step are contiguous (packed panels),
// so that a step's A values are loaded as vectors.
template <class V, class A>
constexpr bool fma_by_lane() {
  if constexpr (requires { V::kFmaByLane; }) {
    return V::kFmaByLane && A::kRowsContiguous;
  } else {
    return false;
  }
}

// One step of the M x NV accumulators by lane: A's M values (at `a`) in M / lanes vectors, row i
// taken from lane i % lanes of vector i / lanes (the lane must be a constant: one instance per
// row through the index sequence). Row by row, vector by vector, as the broadcast form.
template <class V, int NV, int kLane>
inline __attribute__((always_inline)) void fma_row_by_lane(typename V::V a,
                                                           const typename V::V (&bv)[NV],
                                                           typename V::V (&acc)[NV]) {
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) acc[v] = V::template fma_lane<kLane>(a, bv[v], acc[v]);
}

template <class V, int M, int NV, int... I>
inline __attribute__((always_inline)) void fma_step_by_lane(const typename V::T* a,
                                                            const typename V::V (&bv)[NV],
                                                            typename V::V (&acc)[M][NV],
                                                            std::integer_sequence<int, I...>) {
  constexpr int L = V::kLanes;
  static_assert(M % L == 0, "whole vectors of A rows");
  typename V::V av[M / L];
#pragma GCC unroll 12
  for (int g = 0; g < M / L; ++g) av[g] = V::load(a + g * L);
  (fma_row_by_lane<V, NV, I % L>(av[I / L], bv, acc[I]), ...);
}

template <class V, int M, int NV, bool kMasked, class A, class B>
void tile_on(int64_t kc, A a, B b, typename V::T* c, int64_t ldc, AccInit init, typename V::T beta,
             typename V::Mask mask) {
  static_assert(M >= 1 && NV >= 1 && NV <= 4);
  // Four vectors of B do not fit in registers beside the accumulators (AVX2's sixteen: 3 x 4
  // accumulators, 4 vectors and a broadcast): a step broadcasts its M values of A first, then
  // loads each vector of B and uses it at once (the same fmas in another order).
  constexpr bool kByVector = NV == 4;
  static_assert(!(kByVector && fma_by_lane<V, A>()), "the by-lane form loads B whole");
  using Vec = typename V::V;
  constexpr int L = V::kLanes;
  // C lanes of row i, vector v: all of them, or the mask's in the last vector.
  auto load_c = [&](int i, int v) {
    if constexpr (kMasked) {
      if (v == NV - 1) return V::maskload(c + i * ldc + v * L, mask);
    }
    return V::load(c + i * ldc + v * L);
  };
  Vec acc[M][NV];
  if (init == AccInit::kZero) {
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = V::zero();
  } else if (init == AccInit::kLoad) {
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = load_c(i, v);
  } else {
    const Vec vbeta = V::set1(beta);
#pragma GCC unroll 12
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = V::mul(vbeta, load_c(i, v));
  }

#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    if constexpr (kByVector) {
      Vec av[M];
#pragma GCC unroll 4
      for (int i = 0; i < M; ++i) av[i] = V::set1(*a.at(i));
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const Vec bv = b.load(v, kMasked && v == NV - 1, mask);
#pragma GCC unroll 4
        for (int i = 0; i < M; ++i) acc[i][v] = V::fma(av[i], bv, acc[i][v]);
      }
    } else {
      Vec bv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) bv[v] = b.load(v, kMasked && v == NV - 1, mask);
      if constexpr (fma_by_lane<V, A>()) {
        fma_step_by_lane<V, M, NV>(a.at(0), bv, acc, std::make_integer_sequence<int, M>{});
      } else {
#pragma GCC unroll 12
        for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) acc[i][v] = V::fma_bcast(a.at(i), bv[v], acc[i][v]);
        }
      }
    }
    a.step();
    b.step();
  }

#pragma GCC unroll 12
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      if constexpr (kMasked) {
        if (v == NV - 1) {
          V::maskstore(c + i * ldc + v * L, mask, acc[i][v]);
          continue;
        }
      }
      V::store(c + i * ldc + v * L, acc[i][v]);
    }
  }
}

// The whole R x (NV * lanes) tile.
template <class V, int R, int NV = kTileVectors>
void whole_tile(int64_t kc, const typename V::T* a_panel, const typename V::T* b_panel,
                typename V::T* c, int64_t ldc, AccInit init, typename V::T beta) {
  tile_on<V, R, NV, false>(kc, PackedA<V, R>{a_panel}, PackedB<V, NV * V::kLanes>{b_panel}, c, ldc,
                           init, beta, typename V::Mask{});
}

// The whole tile over a row-major B in place (rows ldb apart), leaving B's packed micro-panel at
// b_panel as the packer would have: the same chains as whole_tile on that panel.
template <class V, int R>
void whole_tile_packing_b(int64_t kc, const typename V::T* a_panel, const typename V::T* b,
                          int64_t ldb, typename V::T* b_panel, typename V::T* c, int64_t ldc,
                          AccInit init, typename V::T beta) {
  tile_on<V, R, kTileVectors, false>(kc, PackedA<V, R>{a_panel}, PackingB<V>{b, ldb, b_panel}, c,
                                     ldc, init, beta, typename V::Mask{});
}

// A partial tile, rows x cols with 1 <= rows <= R and 1 <= cols <= 2 * lanes, over operands A
// and B: one instance per row count and vector count, the last vector masked to the columns it
// holds, or none masked where the columns fill both vectors (fewer rows only). Masked loads and
// stores cost more than plain ones on AMD's AVX2 cores: on the Zen 3 of block_sizes.h (one
// thread, invar_bench_small), 16^3 over A and B in place, in tiles of 6, 5 and 5 rows, went from
// f32 6.8 to 7.2-7.5 M calls/s and f64 3.6 to 3.9-4.1 with its two 5-row tiles unmasked.
template <class V, class A, class B>
using EdgeFn = void (*)(int64_t, A, B, typename V::T*, int64_t, AccInit, typename V::T,
                        typename V::Mask);

template <class V, class A, class B, int NV, bool kMasked, int... Rows>
struct EdgeTable {
  static constexpr EdgeFn<V, A, B> kFns[] = {&tile_on<V, Rows + 1, NV, kMasked, A, B>...};
};

template <class V, class A, class B, int NV, bool kMasked, int... Rows>
EdgeTable<V, A, B, NV, kMasked, Rows...> edge_table(std::integer_sequence<int, Rows...>);

// The partial tiles of 1 .. R rows over NV vectors, the last masked (kMasked) or whole.
template <class V, int R, int NV, class A, class B, bool kMasked = true>
using EdgeTableOf =
    decltype(edge_table<V, A, B, NV, kMasked>(std::make_integer_sequence<int, R>{}));

template <class V, int R, class A, class B>
void edge_tile_on(int64_t rows, int64_t cols, int64_t kc, A a, B b, typename V::T* c, int64_t ldc,
                  AccInit init, typename V::T beta) {
  constexpr int L = V::kLanes;
  if (cols == 2 * L) {  // whole vectors: plain loads and stores of C (and of a B in place)
    EdgeTableOf<V, R, 2, A, B, false>::kFns[rows - 1](kc, a, b, c, ldc, init, beta,
                                                      typename V::Mask{});
  } else if (cols > L) {
    EdgeTableOf<V, R, 2, A, B>::kFns[rows - 1](kc, a, b, c, ldc, init, beta,
                                               V::mask(static_cast<int>(cols) - L));
  } else {
    EdgeTableOf<V, R, 1, A, B>::kFns[rows - 1](kc, a, b, c, ldc, init, beta,
                                               V::mask(static_cast<int>(cols)));
  }
  V::zero_upper();
}

template <class V, int R>
void edge_tile(int64_t rows, int64_t cols, int64_t kc, const typename V::T* a_panel,
               const typename V::T* b_panel, typename V::T* c, int64_t ldc, AccInit init,
               typename V::T beta) {
  edge_tile_on<V, R>(rows, cols, kc, PackedA<V, R>{a_panel}, PackedB<V>{b_panel}, c, ldc, init,
                     beta);
}

// A partial tile of at most N::kLanes columns over the packed panels of a wider vector type
// (kWidth columns per step), through N: one vector of N per row, masked to the columns, the same
// chains. Where an fma on N's half-width vectors issues twice as often as one on the panel's (the
// Zen 4's 256-bit pipes), an 8-column tile no longer spends a full-width fma on 8 lanes: at
// 1000^3 on one Zen 4 thread those tiles' share of the time fell from 1.53 to 1.11 % (perf), not
// by half (each step still reads a new line of the panel for a quarter of it).
template <class N, int R, int kWidth>
void edge_tile_narrow(int64_t rows, int64_t cols, int64_t kc, const typename N::T* a_panel,
                      const typename N::T* b_panel, typename N::T* c, int64_t ldc, AccInit init,
                      typename N::T beta) {
  using A = PackedA<N, R>;
  using B = PackedB<N, kWidth>;
  EdgeTableOf<N, R, 1, A, B>::kFns[rows - 1](kc, A{a_panel}, B{b_panel}, c, ldc, init, beta,
                                             N::mask(static_cast<int>(cols)));
  N::zero_upper();
}

// The rows of the next tile of at most R rows with `left` rows to go: R, but the last two tiles
// share their rows evenly where the last would get fewer than R (tiles_a_in_place's reason).
constexpr int64_t tile_rows(int64_t left, int64_t R) {
  return left <= R ? left : left < 2 * R ? (left + 1) / 2 : R;
}

// One block of 4 * lanes columns of a row-major B in place against every row of a row-major A in
// place (alpha 1): tiles of M x 4 vectors, M = 3 (the last four rows as 2 + 2: one row alone is
// four chains, a wait on the fma's latency).
template <class V>
void wide_block_a_in_place(int64_t m, int64_t k, const typename V::T* a, int64_t lda,
                           const typename V::T* b, int64_t ldb, typename V::T* c, int64_t ldc,
                           AccInit init, typename V::T beta) {
  const typename V::Mask none{};
  for (int64_t i = 0, rows = 0; i < m; i += rows) {
    const int64_t left = m - i;
    rows = left == 4 ? 2 : left < 3 ? left : 3;
    const RowsA<V> a_rows{a + i * lda, lda};
    const RowsB<V> b_block{b, ldb};
    typename V::T* const tile_c = c + i * ldc;
    if (rows == 3)
      tile_on<V, 3, 4, false>(k, a_rows, b_block, tile_c, ldc, init, beta, none);
    else if (rows == 2)
      tile_on<V, 2, 4, false>(k, a_rows, b_block, tile_c, ldc, init, beta, none);
    else
      tile_on<V, 1, 4, false>(k, a_rows, b_block, tile_c, ldc, init, beta, none);
  }
}

// The wide tiles of tiles_a_in_place over a row-major B in place: its columns in blocks of four
// vectors, column blocks outer so that a block's K x 4 vectors of B stay in L1 while its tiles
// walk down A (a step broadcasts three values of A for twelve fmas where the R x 2 tile
// broadcasts R for 2 * R), then a rest of 2 * lanes + 1 .. 3 * lanes columns in 4 x 3 tiles (the
// last vector masked past the columns), the rows' last tiles sharing them evenly. Returns the
// columns it ran: all, or the blocks' when the rest is another width, which the R x 2 tiles
// then run (a rest of 3 * lanes + 1 .. 4 * lanes - 1 ran faster in two R x 2 tiles, in a harness
// of the tiles alone, than in one block with its last vector masked, or three vectors and a
// masked one).
template <class V>
int64_t wide_tiles_a_in_place(int64_t m, int64_t n, int64_t k, const typename V::T* a, int64_t lda,
                              const typename V::T* b, int64_t ldb, typename V::T* c, int64_t ldc,
                              AccInit init, typename V::T beta) {
  constexpr int L = V::kLanes;
  int64_t j = 0;
  for (; j + 4 * L <= n; j += 4 * L)
    wide_block_a_in_place<V>(m, k, a, lda, b + j, ldb, c + j, ldc, init, beta);
  const int left = static_cast<int>(n - j);
  if (left <= 2 * L || left > 3 * L) return j;
  constexpr int R = 4;
  using A = RowsA<V>;
  using B = RowsB<V>;
  const B b_cols{b + j, ldb};
  const typename V::Mask mask = V::mask(left - 2 * L);
  for (int64_t i = 0, rows = 0; i < m; i += rows) {
    const int64_t rest = m - i;
    rows = tile_rows(rest, R);
    const A a_rows{a + i * lda, lda};
    typename V::T* const tile_c = c + i * ldc + j;
    if (left == 3 * L)
      EdgeTableOf<V, R, 3, A, B, false>::kFns[rows - 1](k, a_rows, b_cols, tile_c, ldc, init, beta,
                                                        mask);
    else
      EdgeTableOf<V, R, 3, A, B>::kFns[rows - 1](k, a_rows, b_cols, tile_c, ldc, init, beta, mask);
  }
  return n;
}

// C's m x n block in R x (2 * lanes) tiles, each over all k steps, from a row-major A in place
// (alpha 1) and B in groups of 2 * lanes columns, group g at b + g * gs, rows ldb apart (the
// micro-kernel over A in place, ukernel.h). The same chains as the packed tiles.
// Where the last tile would get fewer than R rows, the last two share their rows evenly: a tile's
// chains are its rows times its vectors, and a few rows over one vector (16 x 16 as 12 + 4 rows)
// wait on the fma's latency where two tiles of 8 keep both pipes busy.
// kWide (the AVX2 tiles): where the R-row tiles would end in partial ones (m not a multiple of
// R) that are a large share of them (m < 6 * R), a row-major B in place (gs = 2 * lanes) goes
// through wide_tiles_a_in_place first, the columns it leaves as above. On the Zen 3 of
// block_sizes.h (one thread; the library built with and without them, both loaded in one process,
// the calls alternating): f64 16^3 1.21-1.23x, 20 x 16 x 16 1.15-1.30x, 28^3 1.16x, 32^3
// 1.04-1.05x, 16 x 32 x 32 1.13x; f32 16 x 64 x 64 1.04-1.06x, 32^3 1.02-1.03x. Elsewhere they
// were level or slower: with m a multiple of R the R-row tiles have no partial ones (f64 18 x 16
// x 16 0.85x, 24 x 16 x 16 0.87x), and over more rows the wide tiles' four loads of B per twelve
// fmas cost more than the R-row tiles' six broadcasts save (f64 128^3 0.94x, 256 x 16 x 16
// 0.94x). Packed panels (gs the panel's size: the A-in-place path's B, streaming from L2) keep
// the R-row tiles, which read each panel once per R rows.
template <class V, int R, bool kWide = false>
void tiles_a_in_place(int64_t m, int64_t n, int64_t k, const typename V::T* a, int64_t lda,
                      const typename V::T* b, int64_t ldb, int64_t gs, typename V::T* c,
                      int64_t ldc, AccInit init, typename V::T beta) {
  constexpr int64_t W = kTileVectors * V::kLanes;
  if constexpr (kWide) {
    if (gs == W && m % R != 0 && m < 6 * R) {
      const int64_t done = wide_tiles_a_in_place<V>(m, n, k, a, lda, b, ldb, c, ldc, init, beta);
      b += done;
      c += done;
      n -= done;
    }
  }
  for (int64_t i = 0, rows = 0; i < m; i += rows) {
    const int64_t left = m - i;
    rows = tile_rows(left, R);
    for (int64_t j = 0; j < n; j += W) {
      const int64_t cols = n - j < W ? n - j : W;
      const RowsA<V> a_rows{a + i * lda, lda};
      typename V::T* const tile_c = c + i * ldc + j;
      const typename V::T* const group = b + j / W * gs;
      if (rows == R && cols == W) {
        tile_on<V, R, kTileVectors, false>(k, a_rows, RowsB<V>{group, ldb}, tile_c, ldc, init, beta,
                                           typename V::Mask{});
      } else {
        edge_tile_on<V, R>(rows, cols, k, a_rows, RowsB<V>{group, ldb}, tile_c, ldc, init, beta);
      }
    }
  }
}

}  // namespace
}  // namespace invar::kernels

#endif  // INVAR_KERNELS_TILE_BODY_H_

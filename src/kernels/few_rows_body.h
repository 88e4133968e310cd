// The direct kernels' form for few rows over a row-major B (ukernel.h's direct kernel and its
// record form; more rows as groups of few), written once over a vector type Vec (avx2/vec.h: f32 8
// lanes, f64 4; avx512/vec.h: 16 and 8) for the ISA translation units that include it (built with
// their flags; internal linkage keeps each unit's copy its own), as tile_body.h is for the packed
// tiles.
//
// Why not direct.h's blocks: those hold eight accumulators for any row count (4 rows x 2
// vectors), exactly the chains two FMA pipes of latency 4 need, with nothing to spare, and with
// alpha != 1 multiply each A value by alpha again in every column block (a scalar multiply and a
// broadcast per row per k step, on the FMA pipes). Here each block is M rows x kWide(M)
// vectors, twelve chains whatever M (1 x 12, 2 x 6, 3 x 4, 4 x 3; 5 x 2 and 6 x 2 hold ten and
// twelve, 7 and 8 rows run as two passes): per k step it loads each of
// its B vectors once and broadcasts each of its M A values once, every load feeding M or kWide
// multiply-adds. Wider products deal their vectors evenly to as few blocks as hold them
// (few_rows_pass), the last vector masked when n is not a whole number of vectors: masked-off
// lanes of B and C are neither read nor written. On an AVX-512 core the same blocks over 512-bit
// vectors (avx512/direct_avx512.cpp) are what closed most of the gap at 4 x 256 x 256
// (invar_bench_small, one thread, the Intel Xeon of block_sizes.h: f32 0.51 -> 0.87 of libxsmm's
// rate, on a loaded machine).
//
// A is read in place when its rows are contiguous (a_cs == 1) and alpha == 1. Otherwise
// alpha * op(A) (one rounded multiply per value, as packing does) is first copied, kChunk k steps
// at a time, into a buffer on the stack with contiguous rows; every column block then reads the
// buffer, and the chunks after the first start from the C the previous one stored (exact: an
// accumulator goes through memory unchanged). Either way each element of C is one chain, in
// increasing k, from 0, C or beta * C.
#ifndef INVAR_KERNELS_FEW_ROWS_BODY_H_
#define INVAR_KERNELS_FEW_ROWS_BODY_H_

#include <immintrin.h>

#include <cstdint>
#include <type_traits>

#include "kernels/ukernel.h"

namespace invar::kernels {
namespace {

// Vectors per row of a wide block: twelve accumulators whatever the row count up to 4 (5 and 6
// rows: 10 and 12, 2 vectors each). Seven and eight rows run as two passes of at most 4 rows
// (few_rows_all), each row's chains whole in one of them: one pass of 8 rows x 1 vector would
// load a broadcast per multiply-add, and 8 x 2 are more accumulators than AVX2 has registers.
// One masked vector of up to 8 rows (few_rows_narrow) is 8 accumulators.
constexpr int few_rows_wide(int m) { return 12 / m; }

// M rows x NV vectors of C at c (column 0 of the block) over k steps: A row i at a + i * lda
// (contiguous, already scaled), B rows ldb apart. kMasked: only the lanes `mask` selects of the
// last vector exist, in B as in C.
template <class Vec, int M, int NV, bool kMasked>
inline __attribute__((always_inline)) void few_rows_block(
    int64_t k, const typename Vec::T* a, int64_t lda, const typename Vec::T* b, int64_t ldb,
    typename Vec::T* c, int64_t ldc, AccInit init, typename Vec::T beta, typename Vec::Mask mask) {
  using T = typename Vec::T;
  using V = typename Vec::V;
  constexpr int L = Vec::kLanes;
  auto load = [&](const T* p, int v) {
    return kMasked && v == NV - 1 ? Vec::maskload(p, mask) : Vec::load(p);
  };
  V acc[M][NV];
  if (init == AccInit::kZero) {
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) acc[i][v] = Vec::zero();
  } else {
    const V vbeta = Vec::set1(beta);
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i)
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) {
        acc[i][v] = load(c + i * ldc + L * v, v);
        if (init == AccInit::kScale) acc[i][v] = Vec::mul(vbeta, acc[i][v]);
      }
  }
  for (int64_t p = 0; p < k; ++p) {
    V bv[NV];
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) bv[v] = load(b + p * ldb + L * v, v);
#pragma GCC unroll 16
    for (int i = 0; i < M; ++i) {
      const V va = Vec::set1(a[i * lda + p]);
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) acc[i][v] = Vec::fma(va, bv[v], acc[i][v]);
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < M; ++i)
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      if (kMasked && v == NV - 1)
        Vec::maskstore(c + i * ldc + L * v, mask, acc[i][v]);
      else
        Vec::store(c + i * ldc + L * v, acc[i][v]);
    }
}

// The block of the last 1..kWide(M) vectors: `vectors` of them, the last masked when kMasked
// (a chain of comparisons, not a table: a standard-library array here could be the copy the
// linker keeps for the baseline units, tests/isa_objects_odr.sh).
template <class Vec, int M, bool kMasked, int NV = 1>
inline __attribute__((always_inline)) void few_rows_rest(int vectors, int64_t k,
                                                         const typename Vec::T* a, int64_t lda,
                                                         const typename Vec::T* b, int64_t ldb,
                                                         typename Vec::T* c, int64_t ldc,
                                                         AccInit init, typename Vec::T beta,
                                                         typename Vec::Mask mask) {
  if constexpr (NV < few_rows_wide(M)) {
    if (vectors != NV) {
      few_rows_rest<Vec, M, kMasked, NV + 1>(vectors, k, a, lda, b, ldb, c, ldc, init, beta, mask);
      return;
    }
  }
  few_rows_block<Vec, M, NV, kMasked>(k, a, lda, b, ldb, c, ldc, init, beta, mask);
}

// All n columns of M <= 6 rows over k steps, from the record of the direct kernel's arguments
// (ukernel.h) with A's rows contiguous (a_cs == 1, a_rs their stride) and alpha already in A.
// The n columns' vectors are dealt evenly to as few blocks as hold them (at most few_rows_wide
// vectors each; the first blocks one vector more where they do not divide): wide blocks and
// the remainder after them would leave that remainder as few as M chains, which wait on the FMA
// latency (2 x 64 x 64 in f32: 2 x 6 and 2 x 2 vectors take 5/4 as long as 2 x 4 twice). Only
// the last vector may be masked.
// kGroups: the same for `groups` groups of M rows one after another (few_rows_groups), set up
// once; without it, one group, its code that of a single pass (a loop of a count known only at
// run time cost 8^3 a tenth of its time).
template <class Vec, int M, bool kGroups = false>
__attribute__((noinline)) void few_rows_pass(const DirectArgs& r, int64_t groups = 1) {
  static_assert(M <= 6, "twelve accumulators at most");
  using T = typename Vec::T;
  constexpr int L = Vec::kLanes;
  constexpr int kWide = few_rows_wide(M);
  const int64_t n = r.n, k = r.k, lda = r.a_rs, ldb = r.ldb, ldc = r.ldc;
  const T* a = static_cast<const T*>(r.a);
  const T* b = static_cast<const T*>(r.b);
  T* c = static_cast<T*>(r.c);
  const AccInit init = r.init;
  const T beta = *static_cast<const T*>(r.beta);
  const int64_t vectors = (n + L - 1) / L;
  const int last = static_cast<int>(n - L * (vectors - 1));  // columns of the last vector
  const typename Vec::Mask none{};
  // Each group's rows from the first's (a pointer moved on past the last group could be outside
  // every object the caller passed, with a huge stride of a one-row operand).
  const int64_t count = kGroups ? groups : 1;
  if (vectors <= kWide) {  // one block: no division, no loop over blocks (the common case)
    const int v = static_cast<int>(vectors);
    if (last == L) {
      for (int64_t g = 0; g < count; ++g)
        few_rows_rest<Vec, M, false>(v, k, a + g * M * lda, lda, b, ldb, c + g * M * ldc, ldc, init,
                                     beta, none);
    } else {
      const typename Vec::Mask mask = Vec::mask(last);
      for (int64_t g = 0; g < count; ++g)
        few_rows_rest<Vec, M, true>(v, k, a + g * M * lda, lda, b, ldb, c + g * M * ldc, ldc, init,
                                    beta, mask);
    }
    return;
  }
  const int64_t blocks = (vectors + kWide - 1) / kWide;
  const int64_t base = vectors / blocks, wider = vectors % blocks;
  for (int64_t g = 0; g < count; ++g) {
    const T* ag = a + g * M * lda;
    T* cg = c + g * M * ldc;
    int64_t j = 0;
    for (int64_t q = 0; q < blocks; ++q) {
      const int v = static_cast<int>(base + (q < wider));
      if (q + 1 < blocks || last == L)
        few_rows_rest<Vec, M, false>(v, k, ag, lda, b + j, ldb, cg + j, ldc, init, beta, none);
      else
        few_rows_rest<Vec, M, true>(v, k, ag, lda, b + j, ldb, cg + j, ldc, init, beta,
                                    Vec::mask(last));
      j += L * v;
    }
  }
}

// Seven or eight rows: rows 0..3, then the others (few_rows_wide). Out of line, so that the
// direct kernel's entry keeps no record of its own on the stack.
template <class Vec, int M>
__attribute__((noinline)) void few_rows_split(const DirectArgs& r) {
  using T = typename Vec::T;
  few_rows_pass<Vec, 4>(r);
  DirectArgs rest = r;
  rest.m = M - 4;
  rest.a = static_cast<const T*>(r.a) + 4 * r.a_rs;
  rest.c = static_cast<T*>(r.c) + 4 * r.ldc;
  few_rows_pass<Vec, M - 4>(rest);
}

// All n columns of M rows: one pass of few_rows_pass, or two above 6 rows (few_rows_split).
template <class Vec, int M>
inline __attribute__((always_inline)) void few_rows_all(const DirectArgs& r) {
  if constexpr (M <= 6)
    few_rows_pass<Vec, M>(r);
  else
    few_rows_split<Vec, M>(r);
}

// The buffer's depth in k steps: kFewRowsMaxRows rows of it are 8 KiB of f32, 16 KiB of f64.
inline constexpr int64_t kFewRowsChunk = 256;

// M rows with alpha != 1 or columns of A apart (a_cs != 1): alpha * op(A) through the buffer,
// kFewRowsChunk k steps at a time. Out of line, so that few_rows' test of alpha and a_cs costs a
// tiny product no spilled arguments.
template <class Vec, int M>
__attribute__((noinline)) void few_rows_scaled(const DirectArgs& r) {
  using T = typename Vec::T;
  const T alpha = *static_cast<const T*>(r.alpha);
  const T* a = static_cast<const T*>(r.a);
  alignas(32) T scaled[M * kFewRowsChunk];
  DirectArgs chunk = r;
  chunk.a = scaled;
  chunk.a_cs = 1;
  int64_t p0 = 0;
  do {
    const int64_t kc = r.k - p0 < kFewRowsChunk ? r.k - p0 : kFewRowsChunk;
    for (int i = 0; i < M; ++i) {
      const T* row = a + i * r.a_rs + p0 * r.a_cs;
      T* dst = scaled + i * kc;
      if (r.a_cs == 1) {
        for (int64_t p = 0; p < kc; ++p) dst[p] = alpha * row[p];
      } else {
        for (int64_t p = 0; p < kc; ++p) dst[p] = alpha * row[p * r.a_cs];
      }
    }
    chunk.k = kc;
    chunk.a_rs = kc;
    chunk.b = static_cast<const T*>(r.b) + p0 * r.ldb;
    chunk.init = p0 == 0 ? r.init : AccInit::kLoad;
    few_rows_all<Vec, M>(chunk);
    p0 += kc;
  } while (p0 < r.k);
}

// M rows of at most one vector of columns (the smallest products, 2^3 to 8^3 among them), A
// in place: one block, without few_rows_all's set-up for wider blocks; masked unless the columns
// fill the vector.
// kGroups: `groups` groups of M rows one after another (few_rows_groups), as in few_rows_pass.
template <class Vec, int M, bool kGroups = false>
__attribute__((noinline)) void few_rows_narrow(const DirectArgs& r, int64_t groups = 1) {
  using T = typename Vec::T;
  const T* a = static_cast<const T*>(r.a);
  const T* b = static_cast<const T*>(r.b);
  T* c = static_cast<T*>(r.c);
  const T beta = *static_cast<const T*>(r.beta);
  // Each group's rows from the first's, as in few_rows_pass.
  const int64_t count = kGroups ? groups : 1;
  if (r.n == Vec::kLanes) {
    for (int64_t g = 0; g < count; ++g)
      few_rows_block<Vec, M, 1, false>(r.k, a + g * M * r.a_rs, r.a_rs, b, r.ldb, c + g * M * r.ldc,
                                       r.ldc, r.init, beta, typename Vec::Mask{});
  } else {
    const typename Vec::Mask mask = Vec::mask(static_cast<int>(r.n));
    for (int64_t g = 0; g < count; ++g)
      few_rows_block<Vec, M, 1, true>(r.k, a + g * M * r.a_rs, r.a_rs, b, r.ldb, c + g * M * r.ldc,
                                      r.ldc, r.init, beta, mask);
  }
}

// Whether Vec names a vector of half its width (avx2/vec.h: Vec::Half).
template <class Vec, class = void>
struct HasHalf : std::false_type {};
template <class Vec>
struct HasHalf<Vec, std::void_t<typename Vec::Half>> : std::true_type {};

// M rows of at most one vector of columns: on half a vector where they fit in one (its loads and
// stores whole or masked, as the full vector's would be; the same fma per lane), else on one.
template <class Vec, int M, bool kGroups = false>
inline __attribute__((always_inline)) void few_rows_narrowest(const DirectArgs& r,
                                                              int64_t groups = 1) {
  if constexpr (HasHalf<Vec>::value) {
    if (r.n <= Vec::Half::kLanes) {
      few_rows_narrow<typename Vec::Half, M, kGroups>(r, groups);
      return;
    }
  }
  few_rows_narrow<Vec, M, kGroups>(r, groups);
}

// M rows: A in place when its rows are contiguous and alpha == 1, else through the buffer.
template <class Vec, int M>
inline __attribute__((always_inline)) void few_rows_m(const DirectArgs& r) {
  using T = typename Vec::T;
  if (*static_cast<const T*>(r.alpha) == T(1) && r.a_cs == 1) {
    if (r.n <= Vec::kLanes)
      few_rows_narrowest<Vec, M>(r);
    else
      few_rows_all<Vec, M>(r);
  } else {
    few_rows_scaled<Vec, M>(r);
  }
}

// Half-cycles per k step of M <= 8 rows over `vectors` vectors of columns as few_rows_m runs
// them, on two FMA pipes of latency 4 with two loads a cycle: each block of R rows x V vectors
// takes the most of its R * V multiply-adds, its V + R loads, and 10, which fewer chains wait
// out on the latency (8 would, in theory; on Zen 3 4 x 2 blocks ran slower than 6 x 2 and 5 x 2
// over the same rows).
constexpr int64_t few_rows_step_cost(int M, int64_t vectors) {
  const auto block = [](int64_t rows, int64_t v) {
    const int64_t fmas = rows * v, loads = rows + v;
    return fmas > loads ? (fmas > 10 ? fmas : 10) : (loads > 10 ? loads : 10);
  };
  if (vectors <= 1) return block(M, 1);  // few_rows_narrow: one block
  if (M > 6) return few_rows_step_cost(4, vectors) + few_rows_step_cost(M - 4, vectors);
  const int64_t wide = few_rows_wide(M), blocks = (vectors + wide - 1) / wide;
  const int64_t base = vectors / blocks, wider = vectors % blocks;
  return wider * block(M, base + 1) + (blocks - wider) * block(M, base);
}

// The rows per group in which few_rows_groups runs m rows over `vectors` vectors of columns: the
// least few_rows_step_cost over groups of balanced sizes, the fewest groups among equals; at
// most kFewRowsMaxRows over one vector (one block, few_rows_narrow), at most 6 over more (one
// pass, few_rows_pass).
constexpr int few_rows_group_rows(int64_t m, int64_t vectors) {
  int best = kFewRowsMaxRows;
  int64_t best_cost = -1;
  for (int g = vectors <= 1 ? kFewRowsMaxRows : 6; g >= 1; --g) {
    const int64_t groups = (m + g - 1) / g, base = m / groups, wider = m % groups;
    const int64_t cost = wider * few_rows_step_cost(static_cast<int>(base + 1), vectors) +
                         (groups - wider) * few_rows_step_cost(static_cast<int>(base), vectors);
    if (best_cost < 0 || cost < best_cost) {
      best = g;
      best_cost = cost;
    }
  }
  return best;
}

// How few_rows_groups splits m rows into groups of at most g: `groups` groups, the first `wider`
// of base + 1 rows, the others of base.
struct FewRowsSplit {
  int64_t groups, base, wider;
};
constexpr FewRowsSplit few_rows_split_of(int64_t m, int64_t g) {
  const int64_t groups = (m + g - 1) / g;
  return {groups, m / groups, m % groups};
}

// few_rows_group_rows and its split for m <= kFewRowsGroupsMaxM rows over at most
// kFewRowsGroupsMaxV vectors (the record form takes more rows only over columns of at most
// kFewRowsGroupsMaxBytes: three AVX2 vectors), found at compile time: the model's divisions
// would cost a small product more than they save. More rows take the group size of
// kFewRowsGroupsMaxM.
inline constexpr int kFewRowsGroupsMaxM = 64, kFewRowsGroupsMaxV = 4;
struct FewRowsSplits {
  int8_t rows[kFewRowsGroupsMaxM + 1][kFewRowsGroupsMaxV + 1] = {};
  int8_t groups[kFewRowsGroupsMaxM + 1][kFewRowsGroupsMaxV + 1] = {};
  int8_t base[kFewRowsGroupsMaxM + 1][kFewRowsGroupsMaxV + 1] = {};
  int8_t wider[kFewRowsGroupsMaxM + 1][kFewRowsGroupsMaxV + 1] = {};
  constexpr FewRowsSplits() {
    for (int m = 1; m <= kFewRowsGroupsMaxM; ++m) {
      for (int v = 1; v <= kFewRowsGroupsMaxV; ++v) {
        rows[m][v] = static_cast<int8_t>(few_rows_group_rows(m, v));
        const FewRowsSplit s = few_rows_split_of(m, rows[m][v]);
        groups[m][v] = static_cast<int8_t>(s.groups);
        base[m][v] = static_cast<int8_t>(s.base);
        wider[m][v] = static_cast<int8_t>(s.wider);
      }
    }
  }
};
inline constexpr FewRowsSplits kFewRowsSplits{};

// M <= kFewRowsMaxRows rows: few_rows_m's instance.
template <class Vec>
inline __attribute__((always_inline)) void few_rows_upto8(const DirectArgs& r) {
  static_assert(kFewRowsMaxRows == 8, "one instance per row count");
  switch (r.m) {
    case 1: few_rows_m<Vec, 1>(r); return;
    case 2: few_rows_m<Vec, 2>(r); return;
    case 3: few_rows_m<Vec, 3>(r); return;
    case 4: few_rows_m<Vec, 4>(r); return;
    case 5: few_rows_m<Vec, 5>(r); return;
    case 6: few_rows_m<Vec, 6>(r); return;
    case 7: few_rows_m<Vec, 7>(r); return;
    default: few_rows_m<Vec, 8>(r); return;
  }
}

// `groups` groups of M rows one after another, A in place (alpha 1, rows contiguous): one
// vector of columns or less as few_rows_narrowest, more (M <= 6) as few_rows_pass.
template <class Vec, int M>
inline __attribute__((always_inline)) void few_rows_in_groups(const DirectArgs& r, int64_t groups) {
  if (r.n <= Vec::kLanes) {
    few_rows_narrowest<Vec, M, true>(r, groups);
  } else if constexpr (M <= 6) {
    few_rows_pass<Vec, M, true>(r, groups);
  } else {  // not chosen (few_rows_group_rows), but whole
    DirectArgs part = r;
    for (int64_t g = 0; g < groups; ++g) {
      part.a = static_cast<const typename Vec::T*>(r.a) + g * M * r.a_rs;
      part.c = static_cast<typename Vec::T*>(r.c) + g * M * r.ldc;
      few_rows_split<Vec, M>(part);
    }
  }
}
template <class Vec>
inline __attribute__((always_inline)) void few_rows_in_groups(const DirectArgs& r, int64_t rows,
                                                              int64_t groups) {
  static_assert(kFewRowsMaxRows == 8, "one instance per row count");
  switch (rows) {
    case 1: few_rows_in_groups<Vec, 1>(r, groups); return;
    case 2: few_rows_in_groups<Vec, 2>(r, groups); return;
    case 3: few_rows_in_groups<Vec, 3>(r, groups); return;
    case 4: few_rows_in_groups<Vec, 4>(r, groups); return;
    case 5: few_rows_in_groups<Vec, 5>(r, groups); return;
    case 6: few_rows_in_groups<Vec, 6>(r, groups); return;
    case 7: few_rows_in_groups<Vec, 7>(r, groups); return;
    default: few_rows_in_groups<Vec, 8>(r, groups); return;
  }
}

// More than kFewRowsMaxRows rows: groups of balanced sizes (kFewRowsSplits; over more than
// kFewRowsGroupsMaxV vectors as over that many), each row's chains whole in its group. With A in
// place, the groups of each size run as one call (their set-up once); otherwise each group as
// few_rows_m runs it, through its buffer.
template <class Vec>
__attribute__((noinline)) void few_rows_groups(const DirectArgs& r) {
  using T = typename Vec::T;
  const int64_t vectors = (r.n + Vec::kLanes - 1) / Vec::kLanes;
  const int64_t v = vectors < kFewRowsGroupsMaxV ? vectors : kFewRowsGroupsMaxV;
  const FewRowsSplit split =
      r.m <= kFewRowsGroupsMaxM
          ? FewRowsSplit{kFewRowsSplits.groups[r.m][v], kFewRowsSplits.base[r.m][v],
                         kFewRowsSplits.wider[r.m][v]}
          : few_rows_split_of(r.m, kFewRowsSplits.rows[kFewRowsGroupsMaxM][v]);
  const int64_t groups = split.groups, base = split.base, wider = split.wider;
  DirectArgs part = r;
  if (*static_cast<const T*>(r.alpha) == T(1) && r.a_cs == 1) {
    if (wider > 0) {
      part.m = base + 1;
      few_rows_in_groups<Vec>(part, base + 1, wider);
      part.a = static_cast<const T*>(part.a) + wider * (base + 1) * r.a_rs;
      part.c = static_cast<T*>(part.c) + wider * (base + 1) * r.ldc;
    }
    part.m = base;
    few_rows_in_groups<Vec>(part, base, groups - wider);
    return;
  }
  for (int64_t q = 0; q < groups; ++q) {
    const int64_t first = q * base + (q < wider ? q : wider);  // rows before group q
    part.m = base + (q < wider);
    part.a = static_cast<const T*>(r.a) + first * r.a_rs;
    part.c = static_cast<T*>(r.c) + first * r.ldc;
    few_rows_upto8<Vec>(part);
  }
}

// The direct kernel (ukernel.h) for any m rows over a row-major B.
template <class Vec>
inline __attribute__((always_inline)) void few_rows(const DirectArgs& r) {
  if (r.m <= kFewRowsMaxRows)
    few_rows_upto8<Vec>(r);
  else
    few_rows_groups<Vec>(r);
}

// The products of a strided batch (DirectBatchFn) of M rows and NV vectors of columns, the last
// masked when kMasked, A in place: the mask, beta and the loop's set-up once, then per entry one
// block of M rows, or two (rows 0..3, then the others) where M x NV accumulators would be more
// than twelve (few_rows_wide). The entry's chains are few_rows' own.
template <class Vec, int M, int NV, bool kMasked>
__attribute__((noinline)) void few_rows_batch_blocks(const DirectArgs& r, int64_t count,
                                                     int64_t a_stride, int64_t b_stride,
                                                     int64_t c_stride) {
  using T = typename Vec::T;
  constexpr int kFirst = M * NV <= 12 ? M : 4;
  const T* a = static_cast<const T*>(r.a);
  const T* b = static_cast<const T*>(r.b);
  T* c = static_cast<T*>(r.c);
  const int64_t k = r.k, lda = r.a_rs, ldb = r.ldb, ldc = r.ldc;
  const AccInit init = r.init;
  const T beta = *static_cast<const T*>(r.beta);
  const typename Vec::Mask mask =
      kMasked ? Vec::mask(static_cast<int>(r.n - Vec::kLanes * (NV - 1))) : typename Vec::Mask{};
  // Each entry's addresses from the first's (a pointer moved on past the last entry would be
  // outside every object the caller passed).
  for (int64_t i = 0; i < count; ++i) {
    const T* ai = a + i * a_stride;
    const T* bi = b + i * b_stride;
    T* ci = c + i * c_stride;
    few_rows_block<Vec, kFirst, NV, kMasked>(k, ai, lda, bi, ldb, ci, ldc, init, beta, mask);
    if constexpr (kFirst < M)
      few_rows_block<Vec, M - kFirst, NV, kMasked>(k, ai + kFirst * lda, lda, bi, ldb,
                                                   ci + kFirst * ldc, ldc, init, beta, mask);
  }
}

// M rows of at most two vectors of columns: the instance of few_rows_batch_blocks for n (on half
// a vector where they fit in one, as few_rows_narrowest).
template <class Vec, int M>
inline __attribute__((always_inline)) void few_rows_batch_m(const DirectArgs& r, int64_t count,
                                                            int64_t sa, int64_t sb, int64_t sc) {
  constexpr int L = Vec::kLanes;
  if constexpr (HasHalf<Vec>::value) {
    using H = typename Vec::Half;
    if (r.n <= H::kLanes) {
      if (r.n == H::kLanes)
        few_rows_batch_blocks<H, M, 1, false>(r, count, sa, sb, sc);
      else
        few_rows_batch_blocks<H, M, 1, true>(r, count, sa, sb, sc);
      return;
    }
  }
  if (r.n <= L) {
    if (r.n == L)
      few_rows_batch_blocks<Vec, M, 1, false>(r, count, sa, sb, sc);
    else
      few_rows_batch_blocks<Vec, M, 1, true>(r, count, sa, sb, sc);
  } else {
    if (r.n == 2 * L)
      few_rows_batch_blocks<Vec, M, 2, false>(r, count, sa, sb, sc);
    else
      few_rows_batch_blocks<Vec, M, 2, true>(r, count, sa, sb, sc);
  }
}

// The direct kernel's record form over a strided batch's entries (ukernel.h: DirectBatchFn):
// entries of at most kFewRowsMaxRows rows and two vectors of columns with A in place by
// few_rows_batch_blocks, any other entry by few_rows.
template <class Vec>
inline __attribute__((always_inline)) void few_rows_batch(const DirectArgs& first, int64_t count,
                                                          int64_t a_stride, int64_t b_stride,
                                                          int64_t c_stride) {
  using T = typename Vec::T;
  if (*static_cast<const T*>(first.alpha) == T(1) && first.a_cs == 1 &&
      first.n <= 2 * Vec::kLanes && first.m <= kFewRowsMaxRows) {
    static_assert(kFewRowsMaxRows == 8, "one instance per row count");
    switch (first.m) {
      case 1: few_rows_batch_m<Vec, 1>(first, count, a_stride, b_stride, c_stride); return;
      case 2: few_rows_batch_m<Vec, 2>(first, count, a_stride, b_stride, c_stride); return;
      case 3: few_rows_batch_m<Vec, 3>(first, count, a_stride, b_stride, c_stride); return;
      case 4: few_rows_batch_m<Vec, 4>(first, count, a_stride, b_stride, c_stride); return;
      case 5: few_rows_batch_m<Vec, 5>(first, count, a_stride, b_stride, c_stride); return;
      case 6: few_rows_batch_m<Vec, 6>(first, count, a_stride, b_stride, c_stride); return;
      case 7: few_rows_batch_m<Vec, 7>(first, count, a_stride, b_stride, c_stride); return;
      default: few_rows_batch_m<Vec, 8>(first, count, a_stride, b_stride, c_stride); return;
    }
  }
  DirectArgs r = first;
  for (int64_t i = 0; i < count; ++i) {
    r.a = static_cast<const T*>(first.a) + i * a_stride;
    r.b = static_cast<const T*>(first.b) + i * b_stride;
    r.c = static_cast<T*>(first.c) + i * c_stride;
    few_rows<Vec>(r);
  }
}

}  // namespace
}  // namespace invar::kernels

#endif  // INVAR_KERNELS_FEW_ROWS_BODY_H_

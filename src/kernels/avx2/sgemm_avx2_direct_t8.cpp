// sgemm_avx2_direct_t8: m <= 4 rows x any n columns of C from unpacked operands with B stored
// transposed (ukernel.h, SgemmDirectFn with B[k][j] at b[j * ldb + k]): the decode step of x * W^T
// with W row-major, the usual layout of a linear layer's weights.
//
// Eight rows of W (eight columns of C) are read eight k at a time and transposed in registers
// (load_transposed8: the loads exchange the 128-bit halves, two in-lane stages the rest), so
// each vector holds one k for eight columns and every lane is still one element's chain: acc =
// fma(alpha * op(A)[i][k], B[k][j], acc) in increasing k, exactly as packing and the micro-kernel
// would compute it, without writing W anywhere. One block of eight columns reads eight rows of W
// at a time: eight sequential streams. Sixteen (two blocks side by side, for two chains per row)
// ran at a third of the speed on the Zen 3 machine at M = 1, N = K = 4096 (W from memory), one
// thread: more streams than the prefetchers follow. (With the second block 16 or 32 k behind the
// first, so that the sixteen rows' lines at one k no longer share an L1 set, it still ran 20-30 %
// slower at M = 1 and M = 4: the limit is the number of streams, not the L1's associativity.)
// Measured again there, the forms alternating in one process, 1 x 4096 x 4096, median GB/s of
// W: this kernel 22.0, the pair with the second block 32 to 768 k behind 15.1-17.5 (512 k behind
// and asking 128 floats ahead too 17.7); twelve rows (this block and four rows on 128-bit
// vectors, two chains) 14.7-15.5 against 18.9; 1 x 16384 x 4096 and 2 x 11008 x 4096 alike.
// The peers' rate there (26-27 GB/s) is a dot product's, which sums each column's products in
// an order of its own.
// From cache the pair is faster, since one row's chains then wait on the fma's latency, not on
// memory: sgemm_avx2_direct_t8_pairs, which the planner takes where W is in cache. k % 8
// trailing steps gather their eight values with scalar loads; the n % 8 trailing columns run
// scalar chains (kernels/scalar_chain.h: vfmadd231ss, the same rounding).
// Each row asks for its line kAhead floats ahead once per line (prefetcht0): the hardware
// prefetchers stop at every 4 KiB page of a row and start again behind the loads. On the Intel
// Xeon of block_sizes.h, x * W^T with W 4096 x 4096 (64 MiB) against no software prefetch,
// alternating runs, GFLOP/s, one thread: M = 1 12.6-13.6 / 11.8-12.7 (2 threads 27.3-28.1 /
// 25.5-26.0), M = 4 43.6-45.2 / 42.8-43.2, M = 2 over an 11008 x 4096 W 18.5-18.6 / 15.5-16.0;
// 1 x 1024 x 1024 (W in cache) 14.5 / 14.1-14.2. 64 and 96 floats ahead ran level with 128,
// 192 to 384 slower, 1024 slower than none.
#include <immintrin.h>

#include <cstdint>

#include "kernels/avx2/avx2.h"
#include "kernels/avx2/transpose8.h"
#include "kernels/scalar_chain.h"

namespace invar::kernels::avx2 {
namespace {

constexpr int64_t kAhead = 128;
// The second block of the pair form runs this many steps behind the first, so that the sixteen
// rows' lines of one step fall in two L1 sets, eight in each (a row of 4096 floats puts every row's
// line of one step in the same set).
constexpr int64_t kPairSkew = 32;

// alpha * op(A)[i][p], or op(A)[i][p] where alpha is 1 (kScale false); with op(A)'s rows
// contiguous when kUnitStep (a_cs == 1). Both known at compile time keep the k loop free of
// their tests.
template <bool kScale, bool kUnitStep>
struct RowsOfA {
  const float* a;
  int64_t a_rs, a_cs;
  float alpha;
  float at(int i, int64_t p) const {
    const float x = a[i * a_rs + p * (kUnitStep ? 1 : a_cs)];
    return kScale ? alpha * x : x;
  }
};

// f(RowsOfA<...>{...}) with the form that fits alpha and a_cs.
template <class F>
inline void with_rows_of_a(const float* a, int64_t a_rs, int64_t a_cs, float alpha, F&& f) {
  if (alpha != 1.0f) {
    if (a_cs == 1)
      f(RowsOfA<true, true>{a, a_rs, a_cs, alpha});
    else
      f(RowsOfA<true, false>{a, a_rs, a_cs, alpha});
  } else {
    if (a_cs == 1)
      f(RowsOfA<false, true>{a, a_rs, a_cs, alpha});
    else
      f(RowsOfA<false, false>{a, a_rs, a_cs, alpha});
  }
}

// M rows x 8 columns (eight rows of W, from b): the accumulators as init says.
template <int M>
inline void start(__m256 (&acc)[M], const float* c, int64_t ldc, AccInit init, float beta) {
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
}

// Steps p .. p + 7 (p a multiple of 8), each row's line kAheadBy floats ahead asked for once
// where kPrefetch.
template <int M, class A, bool kPrefetch = true, int64_t kAheadBy = kAhead>
inline __attribute__((always_inline)) void eight_steps(__m256 (&acc)[M], const A& a, const float* b,
                                                       int64_t ldb, int64_t p) {
  if (kPrefetch && p % 16 == 0) {
    // An address past the end of W is harmless: a prefetch never faults (and the address is
    // formed as an integer, never as a pointer beyond the array).
    for (int l = 0; l < 8; ++l) {
      const auto at = reinterpret_cast<std::uintptr_t>(b + l * ldb + p) + kAheadBy * sizeof(float);
      _mm_prefetch(reinterpret_cast<const char*>(at), _MM_HINT_T0);
    }
  }
  __m256 t[8];
  load_transposed8(b + p, ldb, t);  // t[q] = B[p + q][0 .. 7]
  for (int q = 0; q < 8; ++q) {
    for (int i = 0; i < M; ++i)
      acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(a.at(i, p + q)), t[q], acc[i]);
  }
}

// Steps from .. k - 1, each column's value gathered by scalar loads.
template <int M, class A>
inline void last_steps(__m256 (&acc)[M], const A& a, const float* b, int64_t ldb, int64_t from,
                       int64_t k) {
  for (int64_t p = from; p < k; ++p) {
    const float* col = b + p;
    const __m256 t = _mm256_setr_ps(col[0], col[ldb], col[2 * ldb], col[3 * ldb], col[4 * ldb],
                                    col[5 * ldb], col[6 * ldb], col[7 * ldb]);
    for (int i = 0; i < M; ++i) acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(a.at(i, p)), t, acc[i]);
  }
}

template <int M>
inline void store(const __m256 (&acc)[M], float* c, int64_t ldc) {
  for (int i = 0; i < M; ++i) _mm256_storeu_ps(c + i * ldc, acc[i]);
}

// M rows x 8 columns (eight rows of W).
template <int M, class A>
void direct_t(int64_t k, const A& a, const float* b, int64_t ldb, float* c, int64_t ldc,
              AccInit init, float beta) {
  __m256 acc[M];
  start(acc, c, ldc, init, beta);
  const int64_t k8 = k / 8 * 8;
  for (int64_t p = 0; p < k8; p += 8) eight_steps(acc, a, b, ldb, p);
  last_steps(acc, a, b, ldb, k8, k);
  store(acc, c, ldc);
}

// How a pair of blocks reads W: from the caches (no software prefetch; the second block
// kPairSkew steps behind), or streaming from memory (each row's line kStreamAhead floats ahead
// asked for, the second block kStreamSkew steps behind).
enum class PairRead { kCached, kStreaming };

// Streaming W from memory, sixteen rows in flight, on the AMD Zen 5 of kernels/sets/avx512.cpp
// (one thread, kernels alternating in one process, median GB/s of W): 1 x 4096 x 4096 (64 MiB)
// 25.6 for sgemm_avx2_direct_t8, 27.0 for the pair without prefetch, 29.8 with the second block
// 64 steps behind, 32.6 asking 512 floats ahead too (256: 31.6, 768: 31.1); 1 x 16384 x 4096 23.1
// against 25.8; 3 x 4096 x 4096 22.5 against 25.5. From the caches the prefetch loses there
// (1 x 1024 x 1024: 48-49 without, 41 with), hence two forms.
constexpr int64_t kStreamAhead = 512;
constexpr int64_t kStreamSkew = 64;

// M rows x 16 columns: two blocks of eight, the second kPairSkew (kStreamSkew) steps behind the
// first. A block holds one chain per row and column, so one row's product waits on the fma's
// latency; two blocks in flight take twice the columns per latency. Up to kPairMaxRows rows
// (2 M accumulators and a block's eight transposed vectors in the sixteen ymm registers).
// Cached, no software prefetch: with sixteen rows of W in flight it gained nothing on the Xeon of
// block_sizes.h (1 x 4096 x 4096: 24.2 GB/s of W without, 23.6 with), and its addresses cost
// registers.
constexpr int kPairMaxRows = 3;
template <int M, PairRead kRead, class A>
void direct_t_pair(int64_t k, const A& a, const float* b, int64_t ldb, float* c, int64_t ldc,
                   AccInit init, float beta) {
  static_assert(M <= kPairMaxRows);
  constexpr bool kPrefetch = kRead == PairRead::kStreaming;
  constexpr int64_t kSkew = kPrefetch ? kStreamSkew : kPairSkew;
  __m256 acc0[M], acc1[M];
  start(acc0, c, ldc, init, beta);
  start(acc1, c + 8, ldc, init, beta);
  const float* b1 = b + 8 * ldb;
  const int64_t k8 = k / 8 * 8;
  int64_t p = 0;
  for (; p < k8 && p < kSkew; p += 8)
    eight_steps<M, A, kPrefetch, kStreamAhead>(acc0, a, b, ldb, p);
  for (; p < k8; p += 8) {
    eight_steps<M, A, kPrefetch, kStreamAhead>(acc0, a, b, ldb, p);
    eight_steps<M, A, kPrefetch, kStreamAhead>(acc1, a, b1, ldb, p - kSkew);
  }
  for (int64_t q = p > kSkew ? p - kSkew : 0; q < k8; q += 8)
    eight_steps<M, A, kPrefetch, kStreamAhead>(acc1, a, b1, ldb, q);
  last_steps(acc0, a, b, ldb, k8, k);
  last_steps(acc1, a, b1, ldb, k8, k);
  store(acc0, c, ldc);
  store(acc1, c + 8, ldc);
}

template <int M, class A>
void direct_t_rows(int64_t n, int64_t k, const A& a, const float* b, int64_t ldb, float* c,
                   int64_t ldc, AccInit init, float beta, int64_t j = 0) {
  for (; j + 8 <= n; j += 8) direct_t<M>(k, a, b + j * ldb, ldb, c + j, ldc, init, beta);
  if (j < n)
    scalar_chains<float, 8>(M, n - j, k, a.alpha, a.a, a.a_rs, a.a_cs, b + j * ldb, /*b_rs=*/1,
                            /*b_cs=*/ldb, c + j, ldc, init, beta);
}

template <int M, PairRead kRead, class A>
void direct_t_pairs(int64_t n, int64_t k, const A& a, const float* b, int64_t ldb, float* c,
                    int64_t ldc, AccInit init, float beta) {
  int64_t j = 0;
  for (; j + 16 <= n; j += 16)
    direct_t_pair<M, kRead>(k, a, b + j * ldb, ldb, c + j, ldc, init, beta);
  direct_t_rows<M>(n, k, a, b, ldb, c, ldc, init, beta, j);
}

template <PairRead kRead>
void pairs_entry(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs,
                 int64_t a_cs, const float* b, int64_t ldb, float* c, int64_t ldc, AccInit init,
                 float beta) {
  if (m > kPairMaxRows) {
    sgemm_avx2_direct_t8(m, n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta);
    return;
  }
  with_rows_of_a(a, a_rs, a_cs, alpha, [&](const auto& rows) {
    switch (m) {
      case 1: direct_t_pairs<1, kRead>(n, k, rows, b, ldb, c, ldc, init, beta); break;
      case 2: direct_t_pairs<2, kRead>(n, k, rows, b, ldb, c, ldc, init, beta); break;
      default: direct_t_pairs<3, kRead>(n, k, rows, b, ldb, c, ldc, init, beta); break;
    }
  });
}

}  // namespace

void sgemm_avx2_direct_t8(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                          int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                          int64_t ldc, AccInit init, float beta) {
  static_assert(kDirectMaxRows == 4, "one case per row count");
  with_rows_of_a(a, a_rs, a_cs, alpha, [&](const auto& rows) {
    switch (m) {
      case 1: direct_t_rows<1>(n, k, rows, b, ldb, c, ldc, init, beta); break;
      case 2: direct_t_rows<2>(n, k, rows, b, ldb, c, ldc, init, beta); break;
      case 3: direct_t_rows<3>(n, k, rows, b, ldb, c, ldc, init, beta); break;
      default: direct_t_rows<4>(n, k, rows, b, ldb, c, ldc, init, beta); break;
    }
  });
}

void sgemm_avx2_direct_t8_pairs(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                                int64_t a_rs, int64_t a_cs, const float* b, int64_t ldb, float* c,
                                int64_t ldc, AccInit init, float beta) {
  pairs_entry<PairRead::kCached>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta);
}

void sgemm_avx2_direct_t8_pairs_streaming(int64_t m, int64_t n, int64_t k, float alpha,
                                          const float* a, int64_t a_rs, int64_t a_cs,
                                          const float* b, int64_t ldb, float* c, int64_t ldc,
                                          AccInit init, float beta) {
  pairs_entry<PairRead::kStreaming>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta);
}

}  // namespace invar::kernels::avx2

// sgemm_avx2_direct_t8: m <= 4 rows x any n columns of C from unpacked operands with B stored
// transposed (ukernel.h, SgemmDirectFn with B[k][j] at b[j * ldb + k]): the decode step of x * W^T
// with W row-major, the usual layout of a linear layer's weights.
//
// Eight rows of W (eight columns of C) are read eight k at a time and transposed in registers, so
// each vector holds one k for eight columns and every lane is still one element's chain: acc =
// fma(alpha * op(A)[i][k], B[k][j], acc) in increasing k, exactly as packing and the micro-kernel
// would compute it, without writing W anywhere. One block of eight columns reads eight rows of W
// at a time: eight sequential streams. Sixteen (two blocks side by side, for two chains per row)
// ran at a third of the speed on the Zen 3 machine at M = 1, N = K = 4096, one thread: more
// streams than the prefetchers follow. (With the second block 16 or 32 k behind the first, so
// that the sixteen rows' lines at one k no longer share an L1 set, it still ran 20-30 % slower at
// M = 1 and M = 4: the limit is the number of streams, not the L1's associativity.) k % 8
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

// M rows x 8 columns (eight rows of W).
template <int M>
void direct_t(int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
              int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  __m256 acc[M];
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
  const bool scale = alpha != 1.0f;
  auto a_at = [&](int i, int64_t p) {
    const float x = a[i * a_rs + p * a_cs];
    return scale ? alpha * x : x;
  };
  int64_t p = 0;
  for (; p + 8 <= k; p += 8) {
    if (p % 16 == 0) {
      // An address past the end of W is harmless: a prefetch never faults (and the address is
      // formed as an integer, never as a pointer beyond the array).
      for (int l = 0; l < 8; ++l) {
        const auto at = reinterpret_cast<std::uintptr_t>(b + l * ldb + p) + kAhead * sizeof(float);
        _mm_prefetch(reinterpret_cast<const char*>(at), _MM_HINT_T0);
      }
    }
    __m256 t[8];
    for (int l = 0; l < 8; ++l) t[l] = _mm256_loadu_ps(b + l * ldb + p);
    transpose8(t);  // t[q] = B[p + q][0 .. 7]
    for (int q = 0; q < 8; ++q) {
      for (int i = 0; i < M; ++i)
        acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(a_at(i, p + q)), t[q], acc[i]);
    }
  }
  for (; p < k; ++p) {
    const float* col = b + p;
    const __m256 t = _mm256_setr_ps(col[0], col[ldb], col[2 * ldb], col[3 * ldb], col[4 * ldb],
                                    col[5 * ldb], col[6 * ldb], col[7 * ldb]);
    for (int i = 0; i < M; ++i) acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(a_at(i, p)), t, acc[i]);
  }
  for (int i = 0; i < M; ++i) _mm256_storeu_ps(c + i * ldc, acc[i]);
}

template <int M>
void direct_t_rows(int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs,
                   const float* b, int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    direct_t<M>(k, alpha, a, a_rs, a_cs, b + j * ldb, ldb, c + j, ldc, init, beta);
  if (j < n)
    scalar_chains<float, 8>(M, n - j, k, alpha, a, a_rs, a_cs, b + j * ldb, /*b_rs=*/1,
                            /*b_cs=*/ldb, c + j, ldc, init, beta);
}

}  // namespace

void sgemm_avx2_direct_t8(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
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

}  // namespace invar::kernels::avx2

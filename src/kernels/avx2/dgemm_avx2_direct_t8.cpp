// dgemm_avx2_direct_t8: the f64 form of sgemm_avx2_direct_t8, m <= 4 rows x any n columns of C
// from unpacked operands with B stored transposed (ukernel.h, DgemmDirectFn with B[k][j] at
// b[j * ldb + k]): x * W^T with W row-major, which is also a row-major y = W x (gemv) read in
// place.
//
// Eight rows of W (eight columns of C) are read four k at a time, as two groups of four rows each
// transposed in registers (4 x 4 doubles), so each vector holds one k for four columns and every
// lane is still one element's chain: acc = fma(alpha * op(A)[i][k], B[k][j], acc) in increasing
// k, exactly as packing and the micro-kernel would compute it. The two groups give each row two
// independent chains, and the block reads eight sequential streams (as many as the f32 kernel's;
// more ran slower there). k % 4 trailing steps gather their four values with scalar loads; four
// to seven trailing columns run one group, fewer than four scalar chains (vfmadd231sd, the same
// rounding). Each row asks for its line kAhead doubles ahead once per line (prefetcht0), as the
// f32 kernel does.
// libinvar_blas's row-major cblas_dgemv y = W x on the Intel Xeon of block_sizes.h (AVX-512 set),
// against the best peer in the same run (BLIS 0.9 haswell, OpenBLAS 0.3.21), median GFLOP/s, a
// host so loaded that the calling threads got 19-40 % of a core: 4096 x 4096 0.96 (1 thread),
// 1.06 (2 threads); 16384 x 4096 1.01, 1.08. Before, as the one-column product A * x: 0.79, 0.64;
// 0.76, 0.81.
#include <immintrin.h>

#include <cstdint>

#include "kernels/avx2/avx2.h"
#include "kernels/scalar_chain.h"

namespace invar::kernels::avx2 {
namespace {

constexpr int64_t kAhead = 64;  // doubles: 512 bytes, as the f32 kernel's 128 floats

// r[l] holds row l (4 values); afterwards r[q] holds column q, lane l = old r[l][q].
inline __attribute__((always_inline)) void transpose4(__m256d (&r)[4]) {
  const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
  const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
  r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

// M rows x 4 H columns (H groups of four rows of W). kScale: alpha != 1.
template <int M, int H, bool kScale>
void direct_t(int64_t k, double alpha, const double* a, int64_t a_rs, int64_t a_cs, const double* b,
              int64_t ldb, double* c, int64_t ldc, AccInit init, double beta) {
  __m256d acc[M][H];
  const __m256d vbeta = _mm256_set1_pd(beta);
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 2
    for (int h = 0; h < H; ++h) {
      if (init == AccInit::kZero) {
        acc[i][h] = _mm256_setzero_pd();
      } else if (init == AccInit::kLoad) {
        acc[i][h] = _mm256_loadu_pd(c + i * ldc + 4 * h);
      } else {
        acc[i][h] = _mm256_mul_pd(vbeta, _mm256_loadu_pd(c + i * ldc + 4 * h));
      }
    }
  }
  auto a_at = [&](int i, int64_t p) {
    const double x = a[i * a_rs + p * a_cs];
    return kScale ? alpha * x : x;
  };
  int64_t p = 0;
  for (; p + 4 <= k; p += 4) {
    if (p % 8 == 0) {
      // An address past the end of W is harmless: a prefetch never faults (and the address is
      // formed as an integer, never as a pointer beyond the array).
#pragma GCC unroll 8
      for (int l = 0; l < 4 * H; ++l) {
        const auto at = reinterpret_cast<std::uintptr_t>(b + l * ldb + p) + kAhead * sizeof(double);
        _mm_prefetch(reinterpret_cast<const char*>(at), _MM_HINT_T0);
      }
    }
    // One group at a time: four B vectors, M accumulators per group, and the broadcast fit the
    // registers with M = 4.
#pragma GCC unroll 2
    for (int h = 0; h < H; ++h) {
      __m256d t[4];
#pragma GCC unroll 4
      for (int l = 0; l < 4; ++l) t[l] = _mm256_loadu_pd(b + (4 * h + l) * ldb + p);
      transpose4(t);  // t[q] = B[p + q][4 h .. 4 h + 3]
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
#pragma GCC unroll 4
        for (int i = 0; i < M; ++i)
          acc[i][h] = _mm256_fmadd_pd(_mm256_set1_pd(a_at(i, p + q)), t[q], acc[i][h]);
      }
    }
  }
  for (; p < k; ++p) {
#pragma GCC unroll 2
    for (int h = 0; h < H; ++h) {
      const double* col = b + 4 * h * ldb + p;
      const __m256d t = _mm256_setr_pd(col[0], col[ldb], col[2 * ldb], col[3 * ldb]);
#pragma GCC unroll 4
      for (int i = 0; i < M; ++i)
        acc[i][h] = _mm256_fmadd_pd(_mm256_set1_pd(a_at(i, p)), t, acc[i][h]);
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 2
    for (int h = 0; h < H; ++h) _mm256_storeu_pd(c + i * ldc + 4 * h, acc[i][h]);
  }
}

template <int M, bool kScale>
void direct_t_rows(int64_t n, int64_t k, double alpha, const double* a, int64_t a_rs, int64_t a_cs,
                   const double* b, int64_t ldb, double* c, int64_t ldc, AccInit init,
                   double beta) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    direct_t<M, 2, kScale>(k, alpha, a, a_rs, a_cs, b + j * ldb, ldb, c + j, ldc, init, beta);
  if (j + 4 <= n) {
    direct_t<M, 1, kScale>(k, alpha, a, a_rs, a_cs, b + j * ldb, ldb, c + j, ldc, init, beta);
    j += 4;
  }
  if (j < n)  // fewer than four columns: one scalar chain per element (kernels/scalar_chain.h)
    scalar_chains<double, 4>(M, n - j, k, alpha, a, a_rs, a_cs, b + j * ldb, /*b_rs=*/1,
                             /*b_cs=*/ldb, c + j, ldc, init, beta);
}

template <bool kScale>
void direct_t_any(int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t a_rs,
                  int64_t a_cs, const double* b, int64_t ldb, double* c, int64_t ldc, AccInit init,
                  double beta) {
  static_assert(kDirectMaxRows == 4, "one case per row count");
  switch (m) {
    case 1: direct_t_rows<1, kScale>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    case 2: direct_t_rows<2, kScale>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    case 3: direct_t_rows<3, kScale>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta); break;
    default:
      direct_t_rows<4, kScale>(n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta);
      break;
  }
}

}  // namespace

void dgemm_avx2_direct_t8(int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                          int64_t a_rs, int64_t a_cs, const double* b, int64_t ldb, double* c,
                          int64_t ldc, AccInit init, double beta) {
  if (alpha != 1.0)
    direct_t_any<true>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta);
  else
    direct_t_any<false>(m, n, k, alpha, a, a_rs, a_cs, b, ldb, c, ldc, init, beta);
}

}  // namespace invar::kernels::avx2

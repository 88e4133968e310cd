// sgemm_avx512_direct_t16: m <= 4 rows x any n columns of C from unpacked operands with B stored
// transposed (ukernel.h, SgemmDirectFn with B[k][j] at b[j * ldb + k]): the decode step of x * W^T
// with W row-major, and BLAS's gemv over a matrix whose rows are the outputs.
//
// avx2::sgemm_avx2_direct_t8's plan on zmm registers: sixteen rows of W (sixteen columns of C)
// are read sixteen k at a time and transposed in registers, so that each vector holds one k for
// sixteen columns and every lane is one element's chain: acc = fma(alpha * op(A)[i][k], B[k][j],
// acc) in increasing k, the bits of packing and the micro-kernel. What bounds the eight-column
// kernel where W comes from the caches is its one chain per row of C: eight dependent fmas per
// 256 bytes of W; here sixteen per kilobyte, with the 64 shuffles of the transpose beside them.
// Sixteen rows are sixteen sequential streams (Intel's L2 streamer follows 32); each row asks for
// its line kAhead floats ahead, once per line, as the eight-column kernel does.
// On the Intel Xeon of block_sizes.h (family 6 model 207), one thread, best of 200 x 20 calls in
// thread CPU time (the machine was shared): 1 x 256 x 1024 (W in L2) 30.5-32.2 GB/s of W against
// the eight-column kernel's 21.1-22.0; with W from L3 (1 x 4096 x 4096, 4 x 4096 x 4096) the two
// ran level (18-21 and 16 GB/s), bound there by reading W.
// The k % 16 trailing steps read each row's last values under a mask (masked lanes never fault)
// and run as many steps; the n % 16 trailing columns go to the eight-column kernel (the same
// chains, so the same bits).
#include <immintrin.h>

#include <cstdint>

#include "kernels/avx2/avx2.h"
#include "kernels/avx512/avx512.h"
#include "kernels/avx512/transpose16.h"

namespace invar::kernels::avx512 {
namespace {

constexpr int64_t kAhead = 128;

// M rows x 16 columns (sixteen rows of W).
template <int M>
void direct_t(int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs, const float* b,
              int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  __m512 acc[M];
  const __m512 vbeta = _mm512_set1_ps(beta);
  for (int i = 0; i < M; ++i) {
    if (init == AccInit::kZero) {
      acc[i] = _mm512_setzero_ps();
    } else if (init == AccInit::kLoad) {
      acc[i] = _mm512_loadu_ps(c + i * ldc);
    } else {
      acc[i] = _mm512_mul_ps(vbeta, _mm512_loadu_ps(c + i * ldc));
    }
  }
  const bool scale = alpha != 1.0f;
  auto a_at = [&](int i, int64_t p) {
    const float x = a[i * a_rs + p * a_cs];
    return scale ? alpha * x : x;
  };
  __m512 t[16];
  int64_t p = 0;
  for (; p + 16 <= k; p += 16) {
    for (int l = 0; l < 16; ++l) {
      // An address past the end of W is harmless: a prefetch never faults (and the address is
      // formed as an integer, never as a pointer beyond the array).
      const auto at = reinterpret_cast<std::uintptr_t>(b + l * ldb + p) + kAhead * sizeof(float);
      _mm_prefetch(reinterpret_cast<const char*>(at), _MM_HINT_T0);
      t[l] = _mm512_loadu_ps(b + l * ldb + p);
    }
    transpose16(t);  // t[q] = B[p + q][0 .. 15]
    for (int q = 0; q < 16; ++q) {
      for (int i = 0; i < M; ++i)
        acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(a_at(i, p + q)), t[q], acc[i]);
    }
  }
  if (p < k) {
    const int rest = static_cast<int>(k - p);
    const __mmask16 mask = static_cast<__mmask16>((1u << rest) - 1);
    for (int l = 0; l < 16; ++l) t[l] = _mm512_maskz_loadu_ps(mask, b + l * ldb + p);
    transpose16(t);
    for (int q = 0; q < rest; ++q) {
      for (int i = 0; i < M; ++i)
        acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(a_at(i, p + q)), t[q], acc[i]);
    }
  }
  for (int i = 0; i < M; ++i) _mm512_storeu_ps(c + i * ldc, acc[i]);
}

template <int M>
void direct_t_rows(int64_t n, int64_t k, float alpha, const float* a, int64_t a_rs, int64_t a_cs,
                   const float* b, int64_t ldb, float* c, int64_t ldc, AccInit init, float beta) {
  int64_t j = 0;
  for (; j + 16 <= n; j += 16)
    direct_t<M>(k, alpha, a, a_rs, a_cs, b + j * ldb, ldb, c + j, ldc, init, beta);
  if (j < n)
    avx2::sgemm_avx2_direct_t8(M, n - j, k, alpha, a, a_rs, a_cs, b + j * ldb, ldb, c + j, ldc,
                               init, beta);
}

}  // namespace

void sgemm_avx512_direct_t16(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
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

}  // namespace invar::kernels::avx512

#include "blas/routes.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>

#include "blas/layouts.h"

namespace invar::blas {
namespace {

template <class T>
std::unique_ptr<T[]> scratch(const char* routine, int64_t elements) {
  std::unique_ptr<T[]> p(new (std::nothrow)
                             T[static_cast<std::size_t>(std::max<int64_t>(1, elements))]);
  if (!p) engine_failed(routine, "out of memory for a scratch copy");
  return p;
}

// f64 y = A x with alpha = +-1 as the one-column product A * x (the same bits) where the engine
// has no f64 one-row kernel over a transposed B: the NEON path, whose one-row product packs all
// of A while the one-column product reads A in place. The x86-64 paths have one
// (dgemm_avx2_direct_t8, also in the AVX-512 set; dgemm_generic_direct_t_4), and there the
// one-row product is the faster: on the Intel Xeon of block_sizes.h (AVX-512 set), 4096 x 4096,
// alternating runs under load, 1.2-1.4x the one-column product at 1 and 2 threads.
#if defined(__aarch64__)
constexpr bool kF64OneColumn = true;
#else
constexpr bool kF64OneColumn = false;
#endif

// The memory offset of logical element i of a vector of n elements with increment inc.
inline int64_t vector_offset(int64_t i, int64_t n, int64_t inc) {
  return inc > 0 ? i * inc : (n - 1 - i) * -inc;
}

}  // namespace

template <class T>
void gemv_row_major(const char* routine, bool trans, int64_t rows, int64_t cols, T alpha,
                    const T* a, int64_t lda, const T* x, int64_t incx, T beta, T* y, int64_t incy) {
  if (rows == 0 || cols == 0 || (alpha == T(0) && beta == T(1))) return;
  const int64_t len_x = trans ? rows : cols;
  const int64_t len_y = trans ? cols : rows;
  if (kF64OneColumn && std::is_same_v<T, double> && !trans && (alpha == T(1) || alpha == T(-1))) {
    // y = A x as the one-column product (A on the left, x as a len_x x 1 B, y as a len_y x 1 C):
    // fma(alpha * A[i][j], x[j]) is fma(alpha * x[j], A[i][j]) bit for bit when alpha * A and
    // alpha * x are both exact (see kF64OneColumn). Positive increments are read in place.
    std::unique_ptr<T[]> x_copy, y_copy;
    const T* right = x;
    int64_t ld_right = incx;
    if (incx < 1) {
      x_copy = scratch<T>(routine, len_x);
      for (int64_t i = 0; i < len_x; ++i) x_copy[i] = x[vector_offset(i, len_x, incx)];
      right = x_copy.get();
      ld_right = 1;
    }
    T* out = y;
    int64_t ld_out = incy;
    if (incy < 1) {
      y_copy = scratch<T>(routine, len_y);
      if (beta != T(0))
        for (int64_t i = 0; i < len_y; ++i) y_copy[i] = y[vector_offset(i, len_y, incy)];
      out = y_copy.get();
      ld_out = 1;
    }
    engine_gemm<T>(routine, false, false, len_y, 1, len_x, alpha, a, lda, right, ld_right, beta,
                   out, ld_out);
    if (y_copy)
      for (int64_t i = 0; i < len_y; ++i) y[vector_offset(i, len_y, incy)] = y_copy[i];
    return;
  }
  // x as the engine's 1 x len_x left operand: in place when its elements are evenly spaced
  // forwards (a row, or with incx > 1 a column of a matrix stored len_x x 1, ld = incx).
  std::unique_ptr<T[]> x_copy;
  const T* left = x;
  bool left_trans = false;
  int64_t ld_left = len_x;
  if (alpha != T(0) && incx != 1) {
    if (incx > 1) {
      left_trans = true;
      ld_left = incx;
    } else {
      x_copy = scratch<T>(routine, len_x);
      for (int64_t i = 0; i < len_x; ++i) x_copy[i] = x[vector_offset(i, len_x, incx)];
      left = x_copy.get();
    }
  }
  // y as the engine's 1 x len_y C: in place when contiguous, else a copy (read only if beta != 0).
  std::unique_ptr<T[]> y_copy;
  T* out = y;
  if (incy != 1) {
    y_copy = scratch<T>(routine, len_y);
    if (beta != T(0))
      for (int64_t i = 0; i < len_y; ++i) y_copy[i] = y[vector_offset(i, len_y, incy)];
    out = y_copy.get();
  }
  // y^T = x^T * op(A)^T: op(A)^T is the stored matrix transposed when op(A) = A, as stored when
  // op(A) = A^T.
  engine_gemm<T>(routine, left_trans, !trans, 1, len_y, len_x, alpha, left, ld_left, a, lda, beta,
                 out, len_y);
  if (y_copy)
    for (int64_t i = 0; i < len_y; ++i) y[vector_offset(i, len_y, incy)] = y_copy[i];
}

template <class T>
T dot(int64_t n, const T* x, int64_t incx, const T* y, int64_t incy) {
  if (n <= 0) return T(0);
  std::unique_ptr<T[]> x_copy, y_copy;
  const T* left = x;
  bool left_trans = false;
  int64_t ld_left = n;
  if (incx > 1) {
    left_trans = true;
    ld_left = incx;
  } else if (incx != 1) {
    x_copy = scratch<T>("dot", n);
    for (int64_t i = 0; i < n; ++i) x_copy[i] = x[vector_offset(i, n, incx)];
    left = x_copy.get();
  }
  const T* right = y;
  int64_t ld_right = incy;
  if (incy < 1) {
    y_copy = scratch<T>("dot", n);
    for (int64_t i = 0; i < n; ++i) y_copy[i] = y[vector_offset(i, n, incy)];
    right = y_copy.get();
    ld_right = 1;
  }
  T result = T(0);
  engine_gemm<T>("dot", left_trans, false, 1, 1, n, T(1), left, ld_left, right, ld_right, T(0),
                 &result, 1);
  return result;
}

template <class T>
void gemmt(const char* routine, bool row_major, bool upper, bool trans_a, bool trans_b, int64_t n,
           int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
           int64_t ldc) {
  if (row_major)
    gemmt_row_major<T>(routine, upper, trans_a, trans_b, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    gemmt_column_major<T>(routine, upper, trans_a, trans_b, n, k, alpha, a, lda, b, ldb, beta, c,
                          ldc);
}

template <class T>
void symm(const char* routine, bool row_major, bool left, bool upper, int64_t m, int64_t n, T alpha,
          const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0 || (alpha == T(0) && beta == T(1))) return;
  const int64_t ka = left ? m : n;
  std::unique_ptr<T[]> full;
  const T* s = a;
  if (alpha != T(0)) {
    full = scratch<T>(routine, ka * ka);
    // Element (i, j) of the stored triangle, i <= j for upper, i >= j for lower.
    auto stored = [&](int64_t i, int64_t j) { return row_major ? a[i * lda + j] : a[i + j * lda]; };
    for (int64_t i = 0; i < ka; ++i)
      for (int64_t j = 0; j < ka; ++j)
        full[i * ka + j] = (upper == (i <= j)) ? stored(i, j) : stored(j, i);
    s = full.get();
  }
  // The full matrix is symmetric: the same bytes in either layout, ld ka.
  auto gemm = row_major ? gemm_row_major<T> : gemm_column_major<T>;
  if (left)
    gemm(routine, false, false, m, n, m, alpha, s, ka, b, ldb, beta, c, ldc);
  else
    gemm(routine, false, false, m, n, n, alpha, b, ldb, s, ka, beta, c, ldc);
}

#define INVAR_BLAS_INSTANTIATE(T)                                                              \
  template void gemv_row_major<T>(const char*, bool, int64_t, int64_t, T, const T*, int64_t,   \
                                  const T*, int64_t, T, T*, int64_t);                          \
  template T dot<T>(int64_t, const T*, int64_t, const T*, int64_t);                            \
  template void gemmt<T>(const char*, bool, bool, bool, bool, int64_t, int64_t, T, const T*,   \
                         int64_t, const T*, int64_t, T, T*, int64_t);                          \
  template void symm<T>(const char*, bool, bool, bool, int64_t, int64_t, T, const T*, int64_t, \
                        const T*, int64_t, T, T*, int64_t);
INVAR_BLAS_INSTANTIATE(float)
INVAR_BLAS_INSTANTIATE(double)
#undef INVAR_BLAS_INSTANTIATE

}  // namespace invar::blas

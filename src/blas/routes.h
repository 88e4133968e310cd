// The BLAS products beyond GEMM, each element one chain of invar's contract, computed by
// invar's GEMM engine (through layouts.h) so that every route keeps the bits of the GEMM that
// computes the same product:
//
//   gemv   y = alpha * op(A) * x + beta * y is the row vector y^T = alpha * x^T * op(A)^T +
//          beta * y^T: a GEMM with one row (M = 1) whose left operand is x, so
//          y[i] = chain over j of fma(alpha * x[j], op(A)[i][j], acc), acc from beta * y[i].
//          That is the element a GEMM over a batch of such rows X (X @ op(A)^T) computes in the
//          row of x: a row computed alone has the bits of the whole product's row. (On
//          aarch64, f64 with op(A) = A and alpha = +-1 runs as the one-column GEMM A * x
//          instead: the same bits, since alpha * A and alpha * x are then exact; the NEON path
//          has no f64 one-row kernel over a transposed B.)
//   dot    x . y = chain over i of fma(x[i], y[i], acc), acc from +0: a 1 x 1 GEMM over k = n.
//          One dependent fma per element (a latency of ~4 cycles each), where a BLAS that sums
//          in vector lanes is several times faster on long vectors.
//   gemmt  the uplo triangle (diagonal included) of C = alpha * op(A) * op(B) + beta * C, each
//          element the GEMM's, the other triangle neither read nor written: the engine's own
//          product of one triangle (invar_sgemmt / invar_dgemmt), whose loop nest runs only the
//          tiles that hold some of the triangle, about half the multiply-adds of the full GEMM.
//   syrk   gemmt with op(B) = op(A)^T: C = alpha * A * A^T + beta * C (or A^T * A) equals the
//          GEMM's A * A^T in the triangle, bit for bit, in the call's own layout.
//   symm   the symmetric A is expanded from its uplo triangle into a full scratch matrix, then
//          one GEMM: alpha * A * B (left) or alpha * B * A (right), with alpha on the left factor
//          as in every GEMM.
//
// Increments follow the reference BLAS: a negative increment walks the vector from its last
// element in memory (element i of x at x[(n - 1 - i) * |incx|]). Vectors with an increment the
// engine cannot take in place (negative, or y with |incy| != 1) are copied into contiguous
// scratch, y only when beta != 0 (beta == 0 never reads y).
//
// The functions expect checked arguments (argument_checks.h) and apply the reference quick
// returns themselves.
#ifndef INVAR_BLAS_ROUTES_H_
#define INVAR_BLAS_ROUTES_H_

#include <cstdint>

namespace invar::blas {

// The matrix is stored row-major, rows x cols, leading dimension lda; op(A) = A or A^T. A
// column-major m x n matrix is the row-major n x m matrix with the transpose flag inverted.
template <class T>
void gemv_row_major(const char* routine, bool trans, int64_t rows, int64_t cols, T alpha,
                    const T* a, int64_t lda, const T* x, int64_t incx, T beta, T* y, int64_t incy);

template <class T>
T dot(int64_t n, const T* x, int64_t incx, const T* y, int64_t incy);

// op(A) is n x k, op(B) is k x n, C is n x n; row_major chooses how all three are stored.
template <class T>
void gemmt(const char* routine, bool row_major, bool upper, bool trans_a, bool trans_b, int64_t n,
           int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
           int64_t ldc);

// C is m x n; A is m x m (left) or n x n (right), its upper or lower triangle referenced.
template <class T>
void symm(const char* routine, bool row_major, bool left, bool upper, int64_t m, int64_t n, T alpha,
          const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc);

}  // namespace invar::blas

#endif  // INVAR_BLAS_ROUTES_H_

// Running a checked BLAS call on invar's row-major engine, in either storage order, with invar's
// contract for the caller's logical matrices:
//
//   C[i][j] = chain over k of fma(alpha * op(A)[i][k], op(B)[k][j], acc), acc from beta * C[i][j].
//
// Row-major (CBLAS CblasRowMajor) is the engine's own order: one call, arguments as given.
//
// Column-major (Fortran, CblasColMajor): the bytes of a column-major M x N C are a row-major
// N x M matrix, C^T, and C^T = op(B)^T * op(A)^T, so the engine computes it with the roles of A
// and B exchanged: its "A" is op(B)^T (the caller's B, read in place) and its "B" is op(A)^T.
// The engine folds alpha into its "A", which would give fma(alpha * op(B)[k][j], op(A)[i][k]):
// the same real number, rounded differently whenever alpha * b differs from alpha * a in their
// roundings. So for alpha other than 0, 1 and -1 (where both are exact), alpha * op(A) is formed
// first, one rounded multiply per element as in the contract, into a scratch buffer the engine
// then reads with alpha = 1; fma(op(B)[k][j], alpha * op(A)[i][k], acc) is the contract's chain
// (fma's two factors commute exactly). The buffer holds a band of at most kScaledElements
// elements of op(A) (whole rows of op(A), the engine's columns), and the engine runs once per
// band; each band's columns of C get the same chains as in one call, since no element's chain
// depends on the other columns.
//
// Both functions expect arguments that passed argument_checks.h (and no null operand the call
// needs); they apply the reference quick return themselves. If the engine fails (no memory for
// its workspace, an invalid INVAR_* setting) there is no way to report it through the BLAS
// interface: the message goes to stderr and the process aborts rather than return a wrong C.
#ifndef INVAR_BLAS_LAYOUTS_H_
#define INVAR_BLAS_LAYOUTS_H_

#include <cstdint>

namespace invar::blas {

// The most elements of alpha * op(A) held at once by a column-major call: 8 MiB of float,
// 16 MiB of double. A bound on memory, not a tuned value; at K = 4096 a band is 512 rows of
// op(A), wider than the engine's column blocks, so bands cost one extra pass over B each.
inline constexpr int64_t kScaledElements = int64_t{1} << 21;

// One call of invar_sgemm / invar_dgemm (row-major, the engine's own arguments); aborts with the
// engine's message if it fails, as above.
template <class T>
void engine_gemm(const char* routine, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                 T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta, T* c,
                 int64_t ldc);

[[noreturn]] void engine_failed(const char* routine, const char* why);

template <class T>
void gemm_row_major(const char* routine, bool trans_a, bool trans_b, int64_t m, int64_t n,
                    int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
                    T* c, int64_t ldc);

template <class T>
void gemm_column_major(const char* routine, bool trans_a, bool trans_b, int64_t m, int64_t n,
                       int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
                       T* c, int64_t ldc);

// One triangle (upper: i <= j) of the n x n C = alpha * op(A) * op(B) + beta * C
// (invar_sgemmt / invar_dgemmt), the other neither read nor written.
template <class T>
void gemmt_row_major(const char* routine, bool upper, bool trans_a, bool trans_b, int64_t n,
                     int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
                     T* c, int64_t ldc);

template <class T>
void gemmt_column_major(const char* routine, bool upper, bool trans_a, bool trans_b, int64_t n,
                        int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb,
                        T beta, T* c, int64_t ldc);

}  // namespace invar::blas

#endif  // INVAR_BLAS_LAYOUTS_H_

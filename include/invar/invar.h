/*
 * invar — reproducible matrix multiplication.
 *
 * C API. Every function computes C <- alpha * op(A) * op(B) + beta * C on row-major matrices, and
 * every output element is produced by exactly one chain of operations that depends only on that
 * element's row of op(A), column of op(B), K, alpha and beta:
 *
 *     acc = (beta == 0) ? +0 : beta * C[i][j]              (one rounded multiply)
 *     for k = 0 .. K-1, in increasing order:
 *         acc = fma(alpha * op(A)[i][k], op(B)[k][j], acc)  (alpha == 1 is exact)
 *     C[i][j] = acc
 *
 * with IEEE-754 round-to-nearest and subnormals honoured, whatever the caller's floating-point
 * mode. The bits therefore do not depend on M, on the thread count, on the cache blocking, on the
 * SIMD instruction set or on the machine.
 *
 * Special cases: M == 0 or N == 0 touches nothing. alpha == 0 or K == 0 computes C <- beta * C
 * without reading A or B (beta == 0 writes +0, beta == 1 leaves C untouched). beta == 0 never
 * reads C.
 *
 * Errors: a function returns a status; on failure C is untouched and invar_last_error() returns a
 * message naming the function and the argument. Functions never abort on user input.
 */
#ifndef INVAR_INVAR_H_
#define INVAR_INVAR_H_

#include <stddef.h>
#include <stdint.h>

#include "invar/export.h"
#include "invar/invar_version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  INVAR_OK = 0,
  INVAR_EINVAL = 1,      /* an argument is invalid; C is untouched */
  INVAR_ENOMEM = 2,      /* workspace could not be allocated; C is untouched */
  INVAR_EUNSUPPORTED = 3 /* e.g. INVAR_ISA names a path this CPU or build lacks */
} invar_status;

typedef enum { INVAR_NO_TRANS = 0, INVAR_TRANS = 1 } invar_trans;

/* 16-bit floating-point elements as their bit patterns: bfloat16 and IEEE-754 binary16. */
typedef struct invar_bf16 {
  uint16_t bits;
} invar_bf16;
typedef struct invar_f16 {
  uint16_t bits;
} invar_f16;

/*
 * Single precision. op(A) is M x K (A is stored K x M when ta == INVAR_TRANS), op(B) is K x N
 * (B is stored N x K when tb == INVAR_TRANS), C is M x N. Leading dimensions count elements
 * between consecutive rows of the stored matrix.
 */
INVAR_API invar_status invar_sgemm(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                                   float alpha, const float *a, int64_t lda, const float *b,
                                   int64_t ldb, float beta, float *c, int64_t ldc);

/* Double precision: the same arguments, the same chain over doubles. */
INVAR_API invar_status invar_dgemm(invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k,
                                   double alpha, const double *a, int64_t lda, const double *b,
                                   int64_t ldb, double beta, double *c, int64_t ldc);

/*
 * One triangle of a square product (gemmt; syrk with op(B) = op(A)^T): the upper (i <= j) or
 * lower (i >= j) triangle of the n x n C, the diagonal included, gets alpha * op(A) * op(B) +
 * beta * C, where op(A) is n x k and op(B) is k x n. Each of its elements has the bits
 * invar_sgemm would give it; the other triangle is neither read nor written. About half the work
 * of the whole product.
 */
typedef enum { INVAR_UPPER = 0, INVAR_LOWER = 1 } invar_uplo;
INVAR_API invar_status invar_sgemmt(invar_uplo uplo, invar_trans ta, invar_trans tb, int64_t n,
                                    int64_t k, float alpha, const float *a, int64_t lda,
                                    const float *b, int64_t ldb, float beta, float *c, int64_t ldc);
INVAR_API invar_status invar_dgemmt(invar_uplo uplo, invar_trans ta, invar_trans tb, int64_t n,
                                    int64_t k, double alpha, const double *a, int64_t lda,
                                    const double *b, int64_t ldb, double beta, double *c,
                                    int64_t ldc);

/*
 * Fused epilogues: once an element's chain has ended, C[i][j] = act(acc + bias), with bias[i]
 * (INVAR_BIAS_ROW, m values), bias[j] (INVAR_BIAS_COLUMN, n values) or no bias, the addition one
 * rounded add, then the activation. The activations are invar's own fixed sequences of IEEE
 * operations, no math library, so they give the same bits on every machine:
 *   relu(x) = x < 0 ? +0 : x;  silu(x) = x / (1 + exp(-x));
 *   gelu_tanh(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
 * A fused call equals the plain call followed by the epilogue, bit for bit; with alpha == 0 or
 * K == 0 the epilogue applies to beta * C.
 */
typedef enum { INVAR_BIAS_NONE = 0, INVAR_BIAS_ROW = 1, INVAR_BIAS_COLUMN = 2 } invar_bias;
typedef enum {
  INVAR_ACT_NONE = 0,
  INVAR_ACT_RELU = 1,
  INVAR_ACT_GELU_TANH = 2,
  INVAR_ACT_SILU = 3
} invar_activation;

INVAR_API invar_status invar_sgemm_epilogue(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                            int64_t k, float alpha, const float *a, int64_t lda,
                                            const float *b, int64_t ldb, float beta, float *c,
                                            int64_t ldc, invar_bias bias, const float *bias_values,
                                            invar_activation activation);
INVAR_API invar_status invar_dgemm_epilogue(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                            int64_t k, double alpha, const double *a, int64_t lda,
                                            const double *b, int64_t ldb, double beta, double *c,
                                            int64_t ldc, invar_bias bias, const double *bias_values,
                                            invar_activation activation);

/*
 * Batches of products of one shape. Entry i multiplies the i-th A, B and C: at a + i * stride_a,
 * b + i * stride_b and c + i * stride_c (strides in elements; a stride of 0 shares one A or B), or
 * at a[i], b[i], c[i]. Every entry gets exactly the bits of the single call. Small products run
 * in parallel across the batch, large ones one after another on all threads. Every entry is
 * validated before any is computed; on an error no C is touched and the message names the
 * entry. The C matrices must not overlap each other or any A or B (strided calls check C).
 */
INVAR_API invar_status invar_sgemm_batch_strided(invar_trans ta, invar_trans tb, int64_t m,
                                                 int64_t n, int64_t k, float alpha, const float *a,
                                                 int64_t lda, int64_t stride_a, const float *b,
                                                 int64_t ldb, int64_t stride_b, float beta,
                                                 float *c, int64_t ldc, int64_t stride_c,
                                                 int64_t batch);
INVAR_API invar_status invar_dgemm_batch_strided(invar_trans ta, invar_trans tb, int64_t m,
                                                 int64_t n, int64_t k, double alpha,
                                                 const double *a, int64_t lda, int64_t stride_a,
                                                 const double *b, int64_t ldb, int64_t stride_b,
                                                 double beta, double *c, int64_t ldc,
                                                 int64_t stride_c, int64_t batch);
INVAR_API invar_status invar_sgemm_batch(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                         int64_t k, float alpha, const float *const *a, int64_t lda,
                                         const float *const *b, int64_t ldb, float beta,
                                         float *const *c, int64_t ldc, int64_t batch);
INVAR_API invar_status invar_dgemm_batch(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                         int64_t k, double alpha, const double *const *a,
                                         int64_t lda, const double *const *b, int64_t ldb,
                                         double beta, double *const *c, int64_t ldc, int64_t batch);

/*
 * 16-bit inputs, named by the types of A, B and C. Each element of A and B is widened exactly to
 * f32 and the f32 chain runs: with an f32 C the result equals invar_sgemm on the widened operands,
 * bit for bit. With a bf16 (f16) C, the chain starts from beta * C widened, stays in f32 across
 * all of K, and each result is rounded once to nearest even into C. alpha and beta are f32.
 */
INVAR_API invar_status invar_gemm_bf16bf16f32(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                              int64_t k, float alpha, const invar_bf16 *a,
                                              int64_t lda, const invar_bf16 *b, int64_t ldb,
                                              float beta, float *c, int64_t ldc);
INVAR_API invar_status invar_gemm_bf16bf16bf16(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                               int64_t k, float alpha, const invar_bf16 *a,
                                               int64_t lda, const invar_bf16 *b, int64_t ldb,
                                               float beta, invar_bf16 *c, int64_t ldc);
INVAR_API invar_status invar_gemm_f16f16f32(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                            int64_t k, float alpha, const invar_f16 *a, int64_t lda,
                                            const invar_f16 *b, int64_t ldb, float beta, float *c,
                                            int64_t ldc);
INVAR_API invar_status invar_gemm_f16f16f16(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                            int64_t k, float alpha, const invar_f16 *a, int64_t lda,
                                            const invar_f16 *b, int64_t ldb, float beta,
                                            invar_f16 *c, int64_t ldc);

/*
 * 8-bit integers: s8 x s8 and u8 x s8 with int32 C, alpha and beta. Exact integer arithmetic,
 * wrapping modulo 2^32 (two's complement, as if every operation were done in uint32_t):
 *     C[i][j] <- alpha * (sum over k of op(A)[i][k] * op(B)[k][j]) + beta * C[i][j]   (mod 2^32)
 * Addition and multiplication modulo 2^32 are associative and distributive, so the result is the
 * same whatever order the terms are taken in; every path and thread count gives these bits. The
 * special cases are those of the floating-point calls: alpha == 0 or k == 0 gives beta * C
 * without reading A or B; beta == 0 never reads C; beta == 1 then leaves C untouched.
 */
INVAR_API invar_status invar_gemm_s8s8s32(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                          int64_t k, int32_t alpha, const int8_t *a, int64_t lda,
                                          const int8_t *b, int64_t ldb, int32_t beta, int32_t *c,
                                          int64_t ldc);
INVAR_API invar_status invar_gemm_u8s8s32(invar_trans ta, invar_trans tb, int64_t m, int64_t n,
                                          int64_t k, int32_t alpha, const uint8_t *a, int64_t lda,
                                          const int8_t *b, int64_t ldb, int32_t beta, int32_t *c,
                                          int64_t ldc);

/*
 * Batches of the 16-bit and 8-bit products: the arguments, strides and rules of
 * invar_sgemm_batch_strided and invar_sgemm_batch, with the element types, alpha and beta of the
 * single call of the same name. Every entry gets exactly the bits of that single call; every
 * entry is validated before any is computed. With a bf16 or f16 C each product runs on an f32
 * copy of its C, as the single call does: m x n floats for each product computed at once (one
 * per thread when the batch runs in parallel), allocated before any product runs.
 */
INVAR_API invar_status invar_gemm_bf16bf16f32_batch_strided(
    invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, float alpha,
    const invar_bf16 *a, int64_t lda, int64_t stride_a, const invar_bf16 *b, int64_t ldb,
    int64_t stride_b, float beta, float *c, int64_t ldc, int64_t stride_c, int64_t batch);
INVAR_API invar_status invar_gemm_bf16bf16f32_batch(invar_trans ta, invar_trans tb, int64_t m,
                                                    int64_t n, int64_t k, float alpha,
                                                    const invar_bf16 *const *a, int64_t lda,
                                                    const invar_bf16 *const *b, int64_t ldb,
                                                    float beta, float *const *c, int64_t ldc,
                                                    int64_t batch);
INVAR_API invar_status invar_gemm_bf16bf16bf16_batch_strided(
    invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, float alpha,
    const invar_bf16 *a, int64_t lda, int64_t stride_a, const invar_bf16 *b, int64_t ldb,
    int64_t stride_b, float beta, invar_bf16 *c, int64_t ldc, int64_t stride_c, int64_t batch);
INVAR_API invar_status invar_gemm_bf16bf16bf16_batch(invar_trans ta, invar_trans tb, int64_t m,
                                                     int64_t n, int64_t k, float alpha,
                                                     const invar_bf16 *const *a, int64_t lda,
                                                     const invar_bf16 *const *b, int64_t ldb,
                                                     float beta, invar_bf16 *const *c, int64_t ldc,
                                                     int64_t batch);
INVAR_API invar_status invar_gemm_f16f16f32_batch_strided(
    invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, float alpha,
    const invar_f16 *a, int64_t lda, int64_t stride_a, const invar_f16 *b, int64_t ldb,
    int64_t stride_b, float beta, float *c, int64_t ldc, int64_t stride_c, int64_t batch);
INVAR_API invar_status invar_gemm_f16f16f32_batch(invar_trans ta, invar_trans tb, int64_t m,
                                                  int64_t n, int64_t k, float alpha,
                                                  const invar_f16 *const *a, int64_t lda,
                                                  const invar_f16 *const *b, int64_t ldb,
                                                  float beta, float *const *c, int64_t ldc,
                                                  int64_t batch);
INVAR_API invar_status invar_gemm_f16f16f16_batch_strided(
    invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, float alpha,
    const invar_f16 *a, int64_t lda, int64_t stride_a, const invar_f16 *b, int64_t ldb,
    int64_t stride_b, float beta, invar_f16 *c, int64_t ldc, int64_t stride_c, int64_t batch);
INVAR_API invar_status invar_gemm_f16f16f16_batch(invar_trans ta, invar_trans tb, int64_t m,
                                                  int64_t n, int64_t k, float alpha,
                                                  const invar_f16 *const *a, int64_t lda,
                                                  const invar_f16 *const *b, int64_t ldb,
                                                  float beta, invar_f16 *const *c, int64_t ldc,
                                                  int64_t batch);
INVAR_API invar_status invar_gemm_s8s8s32_batch_strided(
    invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, int32_t alpha, const int8_t *a,
    int64_t lda, int64_t stride_a, const int8_t *b, int64_t ldb, int64_t stride_b, int32_t beta,
    int32_t *c, int64_t ldc, int64_t stride_c, int64_t batch);
INVAR_API invar_status invar_gemm_s8s8s32_batch(invar_trans ta, invar_trans tb, int64_t m,
                                                int64_t n, int64_t k, int32_t alpha,
                                                const int8_t *const *a, int64_t lda,
                                                const int8_t *const *b, int64_t ldb, int32_t beta,
                                                int32_t *const *c, int64_t ldc, int64_t batch);
INVAR_API invar_status invar_gemm_u8s8s32_batch_strided(
    invar_trans ta, invar_trans tb, int64_t m, int64_t n, int64_t k, int32_t alpha,
    const uint8_t *a, int64_t lda, int64_t stride_a, const int8_t *b, int64_t ldb, int64_t stride_b,
    int32_t beta, int32_t *c, int64_t ldc, int64_t stride_c, int64_t batch);
INVAR_API invar_status invar_gemm_u8s8s32_batch(invar_trans ta, invar_trans tb, int64_t m,
                                                int64_t n, int64_t k, int32_t alpha,
                                                const uint8_t *const *a, int64_t lda,
                                                const int8_t *const *b, int64_t ldb, int32_t beta,
                                                int32_t *const *c, int64_t ldc, int64_t batch);

/*
 * Prepacked B. invar_sgemm_pack_b packs op(B) (K x N; B stored N x K when tb == INVAR_TRANS) once
 * into the default context's micro-kernel layout; invar_sgemm_packed then computes
 * C <- alpha * op(A) * op(B) + beta * C for any M with exactly the bits of invar_sgemm on the
 * unpacked B. Weights reused by every decode step (M = 1) and prefill (M = T) are packed once.
 * The handle is immutable and may be shared by threads; it belongs to the instruction-set path
 * that packed it (a later call on another path fails with INVAR_EINVAL). The d variants are the
 * same in double precision; a handle of one precision is refused by the other.
 */
typedef struct invar_packed invar_packed;

INVAR_API invar_status invar_sgemm_pack_b(invar_trans tb, int64_t k, int64_t n, const float *b,
                                          int64_t ldb, invar_packed **out);
INVAR_API invar_status invar_dgemm_pack_b(invar_trans tb, int64_t k, int64_t n, const double *b,
                                          int64_t ldb, invar_packed **out);
INVAR_API invar_status invar_sgemm_packed(invar_trans ta, int64_t m, float alpha, const float *a,
                                          int64_t lda, const invar_packed *b, float beta, float *c,
                                          int64_t ldc);
INVAR_API invar_status invar_dgemm_packed(invar_trans ta, int64_t m, double alpha, const double *a,
                                          int64_t lda, const invar_packed *b, double beta,
                                          double *c, int64_t ldc);
/*
 * Prepacked A. invar_sgemm_pack_a packs alpha * op(A) (M x K; A stored K x M when ta ==
 * INVAR_TRANS), alpha included as every call applies it, into the same kind of handle;
 * invar_sgemm_packed_a then computes C <- alpha * op(A) * op(B) + beta * C for any N with exactly
 * the bits of invar_sgemm on the unpacked A and that alpha, and invar_sgemm_packed_ab does the
 * same with B prepacked too (a's K must equal b's). The rules of prepacked B apply; a packed B
 * given as A, or the other way round, is refused with INVAR_EINVAL.
 */
INVAR_API invar_status invar_sgemm_pack_a(invar_trans ta, int64_t m, int64_t k, float alpha,
                                          const float *a, int64_t lda, invar_packed **out);
INVAR_API invar_status invar_dgemm_pack_a(invar_trans ta, int64_t m, int64_t k, double alpha,
                                          const double *a, int64_t lda, invar_packed **out);
INVAR_API invar_status invar_sgemm_packed_a(const invar_packed *a, invar_trans tb, int64_t n,
                                            const float *b, int64_t ldb, float beta, float *c,
                                            int64_t ldc);
INVAR_API invar_status invar_dgemm_packed_a(const invar_packed *a, invar_trans tb, int64_t n,
                                            const double *b, int64_t ldb, double beta, double *c,
                                            int64_t ldc);
INVAR_API invar_status invar_sgemm_packed_ab(const invar_packed *a, const invar_packed *b,
                                             float beta, float *c, int64_t ldc);
INVAR_API invar_status invar_dgemm_packed_ab(const invar_packed *a, const invar_packed *b,
                                             double beta, double *c, int64_t ldc);
/* With an epilogue (see invar_sgemm_epilogue): x * W^T + bias, activated, over packed weights. */
INVAR_API invar_status invar_sgemm_packed_epilogue(invar_trans ta, int64_t m, float alpha,
                                                   const float *a, int64_t lda,
                                                   const invar_packed *b, float beta, float *c,
                                                   int64_t ldc, invar_bias bias,
                                                   const float *bias_values,
                                                   invar_activation activation);
INVAR_API invar_status invar_dgemm_packed_epilogue(invar_trans ta, int64_t m, double alpha,
                                                   const double *a, int64_t lda,
                                                   const invar_packed *b, double beta, double *c,
                                                   int64_t ldc, invar_bias bias,
                                                   const double *bias_values,
                                                   invar_activation activation);
/*
 * Prepacked int8 B for the 8-bit integer products: invar_gemm_s8s8s32_pack_b and
 * invar_gemm_u8s8s32_pack_b pack op(B) for the products of an int8 A and of a uint8 A (their
 * kernels differ); invar_gemm_s8s8s32_packed and invar_gemm_u8s8s32_packed then compute
 * C <- alpha * (op(A) . op(B)) + beta * C for any M with exactly the bits of the unpacked call.
 * The rules of prepacked B apply; a handle packed for the other A type, or for a floating-point
 * call, is refused with INVAR_EINVAL.
 */
INVAR_API invar_status invar_gemm_s8s8s32_pack_b(invar_trans tb, int64_t k, int64_t n,
                                                 const int8_t *b, int64_t ldb, invar_packed **out);
INVAR_API invar_status invar_gemm_u8s8s32_pack_b(invar_trans tb, int64_t k, int64_t n,
                                                 const int8_t *b, int64_t ldb, invar_packed **out);
INVAR_API invar_status invar_gemm_s8s8s32_packed(invar_trans ta, int64_t m, int32_t alpha,
                                                 const int8_t *a, int64_t lda,
                                                 const invar_packed *b, int32_t beta, int32_t *c,
                                                 int64_t ldc);
INVAR_API invar_status invar_gemm_u8s8s32_packed(invar_trans ta, int64_t m, int32_t alpha,
                                                 const uint8_t *a, int64_t lda,
                                                 const invar_packed *b, int32_t beta, int32_t *c,
                                                 int64_t ldc);
/*
 * Prepacked bf16 and f16 B: invar_gemm_bf16bf16f32_pack_b and invar_gemm_f16f16f32_pack_b pack
 * op(B) once, keeping its 16-bit values (half the bytes of f32 panels); the _packed calls then
 * compute C <- alpha * op(A) * op(B) + beta * C for any M, with an f32 C or a 16-bit one (rounded
 * once), with exactly the bits of the unpacked call. The decode step (M <= 4) reads the 16-bit
 * panels and widens them in registers. The rules of prepacked B apply; a handle of the other 16-bit
 * type is refused with INVAR_EINVAL.
 */
INVAR_API invar_status invar_gemm_bf16bf16f32_pack_b(invar_trans tb, int64_t k, int64_t n,
                                                     const invar_bf16 *b, int64_t ldb,
                                                     invar_packed **out);
INVAR_API invar_status invar_gemm_f16f16f32_pack_b(invar_trans tb, int64_t k, int64_t n,
                                                   const invar_f16 *b, int64_t ldb,
                                                   invar_packed **out);
INVAR_API invar_status invar_gemm_bf16bf16f32_packed(invar_trans ta, int64_t m, float alpha,
                                                     const invar_bf16 *a, int64_t lda,
                                                     const invar_packed *b, float beta, float *c,
                                                     int64_t ldc);
INVAR_API invar_status invar_gemm_bf16bf16bf16_packed(invar_trans ta, int64_t m, float alpha,
                                                      const invar_bf16 *a, int64_t lda,
                                                      const invar_packed *b, float beta,
                                                      invar_bf16 *c, int64_t ldc);
INVAR_API invar_status invar_gemm_f16f16f32_packed(invar_trans ta, int64_t m, float alpha,
                                                   const invar_f16 *a, int64_t lda,
                                                   const invar_packed *b, float beta, float *c,
                                                   int64_t ldc);
INVAR_API invar_status invar_gemm_f16f16f16_packed(invar_trans ta, int64_t m, float alpha,
                                                   const invar_f16 *a, int64_t lda,
                                                   const invar_packed *b, float beta, invar_f16 *c,
                                                   int64_t ldc);
/* Bytes held by the packed panels (0 for NULL). */
INVAR_API size_t invar_packed_bytes(const invar_packed *p);
/* Frees a handle; NULL is ignored. A handle freed already, or a pointer no pack function
 * returned, is refused where it can be told (nothing is freed and invar_last_error() says why);
 * every other function given such a handle returns INVAR_EINVAL. */
INVAR_API void invar_packed_free(invar_packed *p);

/* Sets the thread count of the default context. 0 restores the default: INVAR_NUM_THREADS, else
 * the first value of OMP_NUM_THREADS ("4,2" gives 4), else the physical cores this process may
 * use. Returns the count now in force. A negative n or one above 1024 changes nothing and sets
 * invar_last_error(); if the default context cannot be created (an invalid INVAR_* or
 * OMP_NUM_THREADS setting) it returns 0 and sets invar_last_error().
 *
 * A call made inside an OpenMP parallel region, or while the default context's threads are busy
 * with another thread's call, runs on its calling thread alone instead of waiting for them (the
 * bits are the same: the thread count never changes them). */
INVAR_API int invar_set_num_threads(int n);

/* The thread count of the default context; 0 (with invar_last_error set) if it cannot be
 * created. */
INVAR_API int invar_get_num_threads(void);

/* Threads lent by another runtime. By default the default context computes on threads of its
 * own; a program whose own parallel code runs on an OpenMP runtime (PyTorch on CPU, most
 * scientific codes) can have invar's products run on that runtime's threads instead. Its threads
 * spin for a while after each of the program's parallel regions, just when invar's would start:
 * with one set of threads the cores are not asked for twice.
 *
 * invar_use_openmp_threads(1) finds the OpenMP runtime already loaded in the process (GNU
 * libgomp, LLVM libomp or Intel libiomp5, by soname; nothing is loaded or linked) and runs each
 * parallel product as one parallel region of that runtime, of invar_get_num_threads() threads or
 * as many as the runtime would give the calling thread's next region (omp_get_max_threads(): what
 * OMP_NUM_THREADS or omp_set_num_threads, e.g. PyTorch's torch.set_num_threads, set), whichever
 * is fewer. Inside a parallel region of the program the runtime gives one thread, and the product
 * runs on the calling thread alone. Returns INVAR_EUNSUPPORTED when no OpenMP runtime is loaded
 * (then nothing changes). invar_use_openmp_threads(0) returns to invar's own threads. The
 * results' bits are the same either way.
 *
 * invar_set_team_runner installs any runtime as the runner: run(user, n, member, team) chooses a
 * team size s from 1 to n, calls member(team, id, s) once for each id in [0, s), all at once on s
 * different threads (the members wait for each other), and returns s after every call has
 * returned; or it calls nothing and returns 0, and the product runs on the calling thread alone.
 * member never throws or longjmps and sets the floating-point mode it needs itself. run == NULL
 * returns to invar's own threads. A product in progress finishes on the runner it started on. */
typedef int (*invar_team_runner)(void *user, int n, void (*member)(void *team, int id, int size),
                                 void *team);
INVAR_API invar_status invar_set_team_runner(invar_team_runner run, void *user);
INVAR_API invar_status invar_use_openmp_threads(int on);

/* The failure of this thread's most recent invar call, "" if it succeeded. The pointer stays
 * valid until this thread's next call. */
INVAR_API const char *invar_last_error(void);

/* The library's version, "MAJOR.MINOR.PATCH"; equal to the headers' INVAR_VERSION_STRING
 * (invar/invar_version.h) when headers and library come from the same release. */
INVAR_API const char *invar_version(void);

/* The name of the micro-kernel path the default context uses ("avx512", "avx2", "neon",
 * "generic"), or NULL (with invar_last_error set) when INVAR_ISA asks for an unavailable one. */
INVAR_API const char *invar_isa(void);

/* One line describing the build and the default context, for bug reports and logs, e.g.
 * "invar 0.1.0; isa avx2 (<why>); kernels sgemm_avx2_6x16 dgemm_avx2_6x8; threads 2; L1d 32 KiB
 * 8-way; L2 512 KiB 8-way; L3 32 MiB 16-way (<where the sizes came from>)". When the default
 * context cannot be created (an invalid INVAR_* setting) the line says why, and invar_last_error()
 * is set. The pointer stays valid for the life of the process; the text reflects the settings at
 * the time of the call (invar_set_num_threads changes the thread count it reports). */
INVAR_API const char *invar_get_config(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* INVAR_INVAR_H_ */
